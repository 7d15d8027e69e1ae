// The `sink-reductions` pass (pvc/dg2, first pass of the Xe path; subgroup-level tile IR): a
// tile.reduction whose operand is an scf.if result used by nothing else is computed inside the
// branches instead, and the if yields the reduced value.
//
// Why: wg-distribute's SLM exchange in rounds (a convert_layout before a reduction, RFC 2.2) is a
// chain of scf.ifs, one per round, each yielding the rows this subgroup loaded in that round or the
// previous if's value. The rows of an early round then stay live across the later rounds' stores of
// the source tile: on pvc 128 + 128 of the 256 GRFs for RFC 2.2's 8x256 rows and 32x64 sum, and
// ocloc spills. Reduced inside the branches, only the reduced rows (8 registers) cross the rounds.
// A branch yielding the only-use result of an earlier scf.if reduces in that if's branches
// (recursively: the whole chain); a branch yielding a zero splat yields a zero splat of the reduced
// type (every reduction kind of zeros is zero: sum, product, max, min, and, or, xor); any other
// yielded value gets its own copy of the reduction before the yield. The reduction is computed
// exactly once on every path, on the same values, so the results are unchanged.
#include "ir/Module.h"
#include "ir/passes/PassManager.h"

namespace xtc::passes {

using ir::Attribute;
using ir::Operation;
using ir::Type;
using ir::Value;

namespace {

bool isZeroSplat(const Value* v) {
  const Operation* d = v->definingOp();
  if (!d || !d->is("arith.constant")) return false;
  const Attribute* a = d->attr("value");
  if (!a || a->kind() != ir::AttrKind::Dense || !a->isSplat()) return false;
  return a->denseIsFloat() ? a->denseFloats().at(0) == 0.0 : a->denseInts().at(0) == 0;
}

// Makes result `i` of `ifOp` the reduction (`red`'s kind, dims and result type) of what it was.
void sinkInto(Operation* ifOp, unsigned i, const Operation& red) {
  const Type& rt = red.result()->type();
  for (unsigned r = 0; r < ifOp->numRegions(); ++r) {
    Operation* yield = ifOp->region(r).block().terminator();
    Value* y = yield->operand(i);
    ir::Builder b;
    b.setInsertionPoint(yield);
    b.setLoc(red.loc());
    Operation* d = y->definingOp();
    if (isZeroSplat(y)) {
      Attribute zero = d->attr("value")->denseIsFloat() ? Attribute::denseFloat(rt, {0.0}) : Attribute::denseInt(rt, {0});
      yield->setOperand(i, b.create("arith.constant", {}, {rt}, {{"value", zero}})->result());
    } else if (d && d->is("scf.if") && y->uses().size() == 1) {
      sinkInto(d, y->index(), red);
    } else {
      yield->setOperand(i, b.create(red.name(), {y}, {rt}, red.attrs())->result());
    }
  }
  ifOp->result(i)->setType(rt);
}

class SinkReductionsPass : public Pass {
public:
  std::string name() const override { return "sink-reductions"; }
  std::string description() const override {
    return "pvc/dg2: a reduction of an scf.if result is computed in the branches (register pressure of SLM rounds)";
  }
  bool run(Operation* module, PassContext&) override {
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered
      std::vector<Operation*> reductions;
      k->walk([&](Operation* o) {
        if (o->is("tile.reduction")) reductions.push_back(o);
      });
      for (Operation* red : reductions) {
        Value* v = red->operand(0);
        Operation* ifOp = v->definingOp();
        if (!ifOp || !ifOp->is("scf.if") || v->uses().size() != 1 || red->numOperands() != 1) continue;
        sinkInto(ifOp, v->index(), *red);
        v->setNameHint(red->result()->nameHint());  // the if's value is now the reduction's
        red->result()->replaceAllUsesWith(v);
        red->erase();
      }
    }
    return true;
  }
};

}  // namespace

void registerSinkReductionsPass() {
  registerPass("sink-reductions", [] { return std::make_unique<SinkReductionsPass>(); });
}

}  // namespace xtc::passes
