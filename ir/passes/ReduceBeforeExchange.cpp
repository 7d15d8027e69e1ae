// The `reduce-before-exchange` pass (every target, workgroup-level tile IR, before wg-distribute): a
// tile.reduction whose operand is a convert_layout used by nothing else reduces the convert_layout's
// operand instead; the convert_layout goes.
//
// Why: a reduction's value does not depend on how its operand is distributed, only on the elements,
// so the re-distribution before it is pure data movement. Left in, wg-distribute moves the whole
// operand through SLM (RFC 2.2: the 256x256 f32 sum, 256 KiB, in rounds over row slabs, with every
// subgroup's block live across all rounds: dg2 spilled thousands of registers). Reduced in the
// source layout instead, wg-distribute's cross-subgroup reduction reduces each subgroup's block
// locally and exchanges only the partial results (RFC 2.2: one 256x4 f32 buffer, 4 KiB, one round).
// The result keeps its type (and so its wg_map); only the order of the additions changes, as it does
// for any distributed reduction.
#include "ir/Module.h"
#include "ir/passes/PassManager.h"

namespace xtc::passes {

using ir::Operation;
using ir::Value;

namespace {

bool hasWgMap(const Value* v) {
  const ir::Type& t = v->type();
  return t.isVector() && t.vectorLayout() && t.vectorLayout()->isa(ir::AttrKind::WgMap);
}

class ReduceBeforeExchangePass : public Pass {
public:
  std::string name() const override { return "reduce-before-exchange"; }
  std::string description() const override {
    return "a reduction of a convert_layout reduces the convert_layout's operand (exchange partials, not the data)";
  }
  bool run(Operation* module, PassContext&) override {
    for (Operation* k : ir::moduleKernels(module)) {
      std::vector<Operation*> reductions;
      k->walk([&](Operation* o) {
        if (o->is("tile.reduction")) reductions.push_back(o);
      });
      for (Operation* red : reductions) {
        Value* v = red->operand(0);
        Operation* cvt = v->definingOp();
        if (!cvt || !cvt->is("tile.convert_layout") || v->uses().size() != 1) continue;
        // Workgroup level only: both sides distributed by a wg_map (what wg-distribute exchanges).
        Value* src = cvt->operand(0);
        if (!hasWgMap(src) || !hasWgMap(v) || !hasWgMap(red->result())) continue;
        red->setOperand(0, src);
        cvt->erase();
      }
    }
    return true;
  }
};

}  // namespace

void registerReduceBeforeExchangePass() {
  registerPass("reduce-before-exchange", [] { return std::make_unique<ReduceBeforeExchangePass>(); });
}

}  // namespace xtc::passes
