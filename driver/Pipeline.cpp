// The compilation pipeline (see Pipeline.h): the target's pass pipeline (passes::defaultPipeline:
// generic lowers with lower-generic to portable subgroup code; pvc and dg2 go through blocking,
// layout-assignment, resolve-layouts and lower-xe to xe.* ops), then the SPIR-V backend.
#include "driver/Pipeline.h"

#include "backends/spirv/SpirvBackend.h"
#include "frontend/Frontend.h"
#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "ir/ops/LaneOps.h"
#include "ir/ops/Ops.h"
#include "ir/targets/Target.h"

#include <fmt/format.h>

namespace xtc::driver {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void registerEverything() {
  ir::registerAllOps();
  ir::registerLaneOps();
  passes::registerAllPasses();
}

// --verify-isa: ocloc's view of the SPIR-V (backends/isa). A dropped hardware call or an ocloc failure
// on xtc's own output is xtc's bug (an internal error); a missing ocloc is the environment's; spills
// are warnings, as ocloc reports them (errors under -Werror).
bool verifyModuleIsa(const ir::Operation& module, const targets::Target& target, const CompileOptions& options,
                     DiagnosticEngine& diags, CompileResult& result) {
  if (target.kind == targets::TargetKind::Generic || !options.runBackend) {
    diags.error(SourceLoc{}, "--verify-isa needs --target pvc or dg2 and a SPIR-V output (--emit=spirv or spirv-asm)");
    return false;
  }
  isa::IsaVerifyOptions vo;
  vo.device = target.name;
  // The kernels' build options (e.g. the large register file); ocloc takes one set per module.
  for (ir::Operation* k : ir::moduleKernels(const_cast<ir::Operation*>(&module)))
    if (const ir::Attribute* a = k->attr("build_options"); a && a->isa(ir::AttrKind::String) && vo.buildOptions.empty())
      vo.buildOptions = a->getString();
  isa::IsaReport r = isa::verifyIsa(result.spirv, result.hardwareCalls, vo);
  if (r.toolMissing) {
    diags.error(SourceLoc{}, r.toolError);
    return false;
  }
  if (!r.toolError.empty()) {
    result.internalError = "--verify-isa: " + r.toolError;
    return false;
  }
  if (!r.dropped.empty()) {
    result.internalError = "--verify-isa: " + r.dropped.front();
    for (size_t i = 1; i < r.dropped.size(); ++i) result.internalError += "; " + r.dropped[i];
    return false;
  }
  for (const std::string& w : r.warnings) diags.warning(SourceLoc{}, "--verify-isa: " + w);
  return !diags.hasErrors();
}

}  // namespace

std::vector<std::string> targetPipeline(const std::string& target) {
  registerEverything();
  const targets::Target* t = targets::findTarget(target);
  return t ? passes::defaultPipeline(*t) : std::vector<std::string>{};
}

bool compileModule(std::unique_ptr<ir::Operation> module, const CompileOptions& options, DiagnosticEngine& diags,
                   CompileResult& result) {
  registerEverything();
  result = CompileResult{};
  const targets::Target* target = targets::findTarget(options.target);
  if (!target) {
    diags.error(SourceLoc{}, fmt::format("unknown target '{}' (expected one of: {})", options.target,
                                         targets::targetNames()));
    return false;
  }
  targets::Target withSlm{};  // the target with another SLM size (options.slmBytes)
  if (options.slmBytes > 0) {
    withSlm = *target;
    withSlm.slmBytes = options.slmBytes;
    withSlm.slmOrigin = options.slmOrigin.empty() ? "--slm-size" : options.slmOrigin;
    target = &withSlm;
  }
  if (!ir::verify(*module, diags)) return false;
  // --emulate-xe keeps the IR of the vISA path (the backend then writes builtins): what it runs is
  // what ships.
  passes::PassContext ctx{diags, target, options.xeCodegen != "builtins"};
  ctx.poisonBadSurfaces = options.poisonBadSurfaces;
  ctx.surfaceFallback = options.surfaceFallback;
  passes::PassManager pm(ctx, options.passOptions);
  std::vector<std::string> pipeline = targetPipeline(options.target);
  // --emulate-xe: the xe.* ops become portable lane-level ops (ir/passes/EmulateXe.cpp), so pvc/dg2
  // kernels run on any OpenCL device with subgroups; with emulateBlockIo false the 1-D block messages
  // stay, for a device with Intel's subgroup block IO (the backend writes them as its builtins, since an
  // emulated module is compiled without inline vISA, below).
  if (options.emulateXe && target->kind != targets::TargetKind::Generic)
    pipeline.push_back(options.emulateBlockIo ? "emulate-xe" : "emulate-xe-except-block-io");
  if (!pm.addPipeline(pipeline)) return false;
  if (!pm.run(module.get())) return false;

  for (ir::Operation* k : ir::moduleKernels(module.get())) {
    KernelInfo info;
    info.name = ir::kernelName(k);
    if (const ir::Attribute* a = k->attr("arg_names"))
      for (const ir::Attribute& n : a->getArray()) info.argNames.push_back(n.isa(ir::AttrKind::String) ? n.getString() : "");
    if (const ir::Attribute* a = k->attr("wg_size")) info.wgSize = a->getIntArray();
    info.sgSize = k->intAttr("sg_size", 0);
    result.kernels.push_back(std::move(info));
  }

  if (options.runBackend || options.wantLLVM) {
    backend::BackendOptions bo;
    bo.target = target;
    bo.optLevel = options.optLevel;
    // An emulated module runs on any OpenCL device, so it holds no inline vISA: its xe.* ops are gone
    // (emulate-xe), the masked per-lane messages keep their portable branch form (VisaLanes.h), and
    // an f32 lane.reduce add or max is IGC's builtin (VisaEmitter.h, visaReduceF32).
    bool visa = options.xeCodegen != "builtins" && !options.emulateXe;
    bo.xeCodegen = visa ? backend::XeCodegen::Visa : backend::XeCodegen::Builtins;
    if (options.wantLLVM && !backend::emitLLVMText(*module, bo, diags, result.llvmText)) return false;
    bo.hardwareCalls = options.verifyIsa ? &result.hardwareCalls : nullptr;
    bo.renameBuiltinForTesting = options.renameBuiltinForTesting;
    if (options.runBackend && !backend::emitSpirv(*module, bo, diags, result.spirv)) return false;
  }
  if (options.verifyIsa && !verifyModuleIsa(*module, *target, options, diags, result)) return false;
  result.module = std::move(module);
  return !diags.hasErrors();
}

bool compileFile(const std::string& path, const CompileOptions& options, DiagnosticEngine& diags,
                 CompileResult& result) {
  registerEverything();
  SourceManager& sm = diags.sources();
  if (!sm.text(path)) {
    std::string error;
    if (!sm.addFile(path, &error)) {
      diags.error(SourceLoc{}, error);
      return false;
    }
  }
  std::unique_ptr<ir::Operation> module;
  if (endsWith(path, ".ir"))
    module = ir::parseModule(path, *sm.text(path), diags);
  else
    module = frontend::compileToTileIR(path, diags);
  if (!module) return false;
  return compileModule(std::move(module), options, diags, result);
}

}  // namespace xtc::driver
