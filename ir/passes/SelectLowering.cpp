// The `select-lowering` pass (pvc, dg2): per kernel, the Xe path (blocking, layout-assignment,
// resolve-layouts, lower-xe: DPAS and 2D block IO) or the portable path (lower-generic: subgroup
// operations and FMAs, which are just as valid on an Intel GPU).
//
// Why a trial instead of a list of supported ops: what the Xe passes accept depends on types, shapes,
// layouts and the target table, and grows as they do; a separate list would drift from them. So the
// pass runs the Xe passes on a copy of the module, one kernel at a time (the others are marked as
// already lowered so the passes skip them), with their diagnostics captured. A kernel the Xe path
// lowers keeps going down that path; any other kernel is lowered here by lower-generic for the
// target's subgroup size and carries `lowering = "portable"` and `lowering_reason = "<the Xe path's
// first error>"`, which `--emit=ir` and `xtc opt --print-after=select-lowering` show. The Xe passes
// that follow skip it (they skip kernels that already have a `target`). Errors of the portable path
// are reported as usual, followed by a note with the Xe path's reason.
#include "ir/Module.h"
#include "ir/passes/LowerGeneric.h"
#include "ir/passes/PassManager.h"
#include "ir/targets/Target.h"

#include <fmt/format.h>

#include <sstream>

namespace xtc::passes {

using ir::Attribute;
using ir::Operation;

namespace {

// The Xe passes the trial runs, in pipeline order (the same list defaultPipeline uses).
bool xeTrial(const Operation& module, size_t kernelIndex, const targets::Target& target, SourceManager& sources,
             std::string& reason) {
  ir::IRMapping mapping;
  std::unique_ptr<Operation> copy = module.clone(mapping);
  std::vector<Operation*> kernels = ir::moduleKernels(copy.get());
  for (size_t i = 0; i < kernels.size(); ++i)
    if (i != kernelIndex && !kernels[i]->hasAttr("target")) kernels[i]->setAttr("target", Attribute::string(target.name));
  std::ostringstream unused;  // the trial's diagnostics are read from diagnostics(), never printed
  DiagnosticEngine diags(sources, unused);
  PassContext ctx{diags, &target};
  PassManager pm(ctx);
  if (pm.addPipeline(xeLoweringPasses()) && pm.run(copy.get()) && !diags.hasErrors()) return true;
  reason = "the Xe passes failed";
  for (const Diagnostic& d : diags.diagnostics())
    if (d.severity == Severity::Error) {
      reason = d.message;
      break;
    }
  return false;
}

class SelectLoweringPass : public Pass {
public:
  std::string name() const override { return "select-lowering"; }
  std::string description() const override {
    return "pvc/dg2: per kernel, the Xe path (DPAS, 2D block IO) when it applies, else lower-generic now";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target || ctx.target->kind == targets::TargetKind::Generic) return true;  // generic: lower-generic
    std::vector<Operation*> kernels = ir::moduleKernels(module);
    std::vector<Operation*> portable;
    for (size_t i = 0; i < kernels.size(); ++i) {
      Operation* k = kernels[i];
      if (k->hasAttr("target")) continue;  // lane-level input
      std::string reason;
      if (xeTrial(*module, i, *ctx.target, ctx.diags.sources(), reason)) {
        k->setAttr("lowering", Attribute::string("xe"));
        continue;
      }
      k->setAttr("lowering", Attribute::string("portable"));
      k->setAttr("lowering_reason", Attribute::string(reason));
      ctx.diags.remark(k->loc(), fmt::format("kernel '{}' takes the portable path on {} (no DPAS, no block messages): {}",
                                             ir::kernelName(k), ctx.target->name, reason));
      portable.push_back(k);
    }
    // The portable path's diagnostics are replayed with a note saying why the Xe path was not taken:
    // a pvc user reading "lower-generic: ..." must learn that DPAS/2D block IO did not apply first.
    bool ok = true;
    for (Operation* k : portable) {
      std::ostringstream unused;
      DiagnosticEngine portableDiags(ctx.diags.sources(), unused);
      portableDiags.setRemarks(ctx.diags.remarksEnabled());
      ok = lowerGenericKernel(k, *ctx.target, portableDiags) && ok;
      for (const Diagnostic& d : portableDiags.diagnostics()) {
        DiagnosticEngine::Builder b = d.severity == Severity::Error    ? ctx.diags.error(d.range, d.message)
                                      : d.severity == Severity::Remark ? ctx.diags.remark(d.range.begin, d.message)
                                                                       : ctx.diags.warning(d.range, d.message);
        for (const Diagnostic& n : d.notes) b.note(n.range, n.message);
        if (d.severity == Severity::Error)
          b.note(k->loc(), fmt::format("kernel '{}' took the portable path on {} because the Xe path reported: {}",
                                       ir::kernelName(k), ctx.target->name, k->attr("lowering_reason")->getString()));
      }
    }
    return ok;
  }
};

}  // namespace

std::vector<std::string> xeLoweringPasses() {
  return {"sink-reductions", "pad-columns", "split-uneven-tiles", "split-accumulators", "blocking", "layout-assignment", "canonicalize", "resolve-layouts", "lower-xe"};
}

void registerSelectLoweringPass() {
  registerPass("select-lowering", [] { return std::make_unique<SelectLoweringPass>(); });
}

}  // namespace xtc::passes
