// The `layout-assignment` pass (pvc, dg2): gives every vector value of a blocked kernel a lane layout
// (a `linear<...>` attribute on its type: register, lane -> dim0, dim1 of the subgroup value).
// Contract (docs/passes.md, "layout-assignment"):
//   - a blocked tile.load_tile produces the layout of its 2D block messages (XeCommon tileLoadLayout);
//     a per-lane load (blocking found no message) produces what its tile_mma consumer needs, else the
//     DPAS C pattern (lane = column, registers = rows);
//   - tile.tile_mma consumes A, B, C in the DPAS operand layouts of its `dpas` block and produces C's;
//   - tile.transpose: the operand's layout with its two dimensions swapped (no data moves,
//     XeTranspose.h); an scf.if vector result: the layout its first branch yields;
//   - element-wise ops, scf.for iteration values and scf.yield keep the layout of what flows in;
//     splat constants take the layout their first consumer needs;
//   - tile.atomic_rmw (per lane) returns the old values in its value's layout;
//   - wherever a value's layout differs from the one its consumer needs, an explicit
//     `tile.convert_layout` is inserted (seed 002: a conversion is visible in the IR, never hidden in a
//     lowering). Nothing is resolved here; resolve-layouts decides how each conversion is done.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/ops/XeOps.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/XeCommon.h"
#include "ir/passes/XeRowLayouts.h"
#include "ir/passes/XeTranspose.h"

#include <fmt/format.h>

namespace xtc::passes {

using ir::Attribute;
using ir::Operation;
using ir::Type;
using ir::Value;

namespace {

struct AssignError {};

class KernelLayouts {
public:
  KernelLayouts(Operation* k, const targets::Target& t, DiagnosticEngine& d) : kernel_(k), t_(t), diags_(d) {}
  void run() {
    ir::registerXeOps();
    assignBlock(ir::kernelBody(kernel_));
  }

private:
  [[noreturn]] void fail(const Operation& op, const std::string& msg) {
    diags_.error(op.loc(), "layout-assignment: " + msg);
    throw AssignError{};
  }
  template <class T>
  T need(layout::Expected<T> e, const Operation& op) {
    if (!e) fail(op, e.error());
    return *e;
  }
  static const layout::LinearLayout* layoutOf(Value* v) { return ir::vectorLinearLayout(v->type()); }
  static void setLayout(Value* v, const layout::LinearLayout& l) {
    v->setType(v->type().withVectorLayout(ir::linearLayoutAttr(l)));
  }
  // Makes operand `i` of `user` have layout `l`: retypes a layout-less splat constant used only here
  // (or a fresh copy of it), else inserts a tile.convert_layout before `user`.
  void require(Operation* user, unsigned i, const layout::LinearLayout& l);
  void assignBlock(ir::Block& b);
  void assignOp(Operation* op);
  void assignFor(Operation* op);
  void assignReduction(Operation* op);
  void assignBroadcast(Operation* op);
  static bool isFma(const Operation& mma) { return mma.hasAttr("fma"); }
  void assignIf(Operation* op);
  layout::LinearLayout perLaneLayout(Operation* load);
  layout::LinearLayout perLaneLayoutFor(Value* v, Operation* load);
  // The layout tile_mma `mma` needs for operand A, B or C (C = also its result): the DPAS operand
  // layouts, or for an FMA tile_mma lanes along the columns of B and C (fmaLaneLayout).
  layout::LinearLayout mmaLayout(Operation& mma, layout::Operand which);

  Operation* kernel_;
  const targets::Target& t_;
  DiagnosticEngine& diags_;
};

void KernelLayouts::require(Operation* user, unsigned i, const layout::LinearLayout& l) {
  Value* v = user->operand(i);
  const layout::LinearLayout* cur = layoutOf(v);
  if (cur && *cur == l) return;
  Operation* def = v->definingOp();
  if (!cur && def && def->is("arith.constant")) {
    // A splat has every layout: give this use its own copy in the needed one.
    ir::Builder b;
    b.setInsertionPointAfter(def);
    b.setLoc(def->loc());
    Operation* c = b.create("arith.constant", {}, {v->type().withVectorLayout(ir::linearLayoutAttr(l))}, def->attrs());
    c->result()->setNameHint(v->nameHint());
    user->setOperand(i, c->result());
    if (!v->hasUses()) def->erase();
    return;
  }
  if (!cur && !def && v->type().isVector()) {
    // A layout-less scf.for iteration value (initialised by a splat): its first consumer decides;
    // assignFor then makes the initial and yielded values follow.
    if (Operation* owner = v->ownerBlock() ? v->ownerBlock()->parentOp() : nullptr; owner && owner->is("scf.for")) {
      setLayout(v, l);
      return;
    }
  }
  if (!cur) fail(*user, fmt::format("operand {} has no layout (its producer '{}' is not handled yet)", i,
                                    def ? def->name() : std::string("block argument")));
  ir::Builder b;
  b.setInsertionPoint(user);
  b.setLoc(user->loc());
  Operation* cv = b.create("tile.convert_layout", {v}, {v->type().withVectorLayout(ir::linearLayoutAttr(l))});
  user->setOperand(i, cv->result());
}

layout::LinearLayout KernelLayouts::perLaneLayout(Operation* load) {
  // A load only transposed: the transpose of what the transpose's consumers need (so no conversion).
  if (Operation* tr = xe::foldedTranspose(*load)) return need(xe::transposedLayout(perLaneLayoutFor(tr->result(), load)), *load);
  return perLaneLayoutFor(load->result(), load);
}

layout::LinearLayout KernelLayouts::perLaneLayoutFor(Value* v, Operation* load) {
  // A per-lane load can produce any layout: the DPAS operand layout when a tile_mma consumes it,
  // else the DPAS C pattern (lane = column, registers = rows, then column groups of the subgroup
  // size), which is also what an f32 accumulator initialised from memory needs.
  const Type& t = v->type();
  layout::Operand which = layout::Operand::C;
  ir::ElemKind in = t.elem();
  for (const ir::Use& u : v->uses())
    if (u.user->is("tile.tile_mma") && u.index < 2 && !isFma(*u.user)) {
      which = u.index == 0 ? layout::Operand::A : layout::Operand::B;
      break;
    }
  // An FMA tile_mma's B or C: lanes along the columns, replicated when there are fewer than S.
  for (const ir::Use& u : v->uses())
    if (u.user->is("tile.tile_mma") && u.index > 0 && isFma(*u.user) && t.rank() == 2)
      return need(xe::fmaLaneLayout(t.shape()[0], t.shape()[1], static_cast<int>(t_.subgroupSize)), *load);
  if (which == layout::Operand::C) {
    // Lanes along the columns (equal to the DPAS C layout, repetitions along rows first, when there
    // are at least S columns); an FMA tile_mma takes its A and B operands this way too.
    if (t.rank() != 2) fail(*load, "per-lane loads of rank-1 tiles are not implemented yet");
    return need(xe::rowMajorLaneLayout(t.shape()[0], t.shape()[1], static_cast<int>(t_.subgroupSize)), *load);
  }
  return need(xe::dpasOperandLayout(t_, in, which, t.shape()[0], t.shape()[1]), *load);
}

layout::LinearLayout KernelLayouts::mmaLayout(Operation& mma, layout::Operand which) {
  unsigned idx = which == layout::Operand::A ? 0 : which == layout::Operand::B ? 1 : 2;
  const Type& t = idx == 2 ? mma.result()->type() : mma.operand(idx)->type();
  if (isFma(mma)) return need(xe::fmaLaneLayout(t.shape()[0], t.shape()[1], static_cast<int>(t_.subgroupSize)), mma);
  return need(xe::dpasOperandLayout(t_, mma.operand(0)->type().elem(), which, t.shape()[0], t.shape()[1]), mma);
}

// tile.reduction along one dimension d of a rank-2 vector, to size 1 (or size / reduction_size): the
// result's layout is the operand's projected (XeRowLayouts.h): registers along d (within a group) are
// combined in-lane, lanes along d by shuffles, and every lane of such a group ends with the total (a
// replicated layout).
void KernelLayouts::assignReduction(Operation* op) {
  const Type& st = op->operand(0)->type();
  std::vector<int64_t> dims = op->attr("dims") ? op->attr("dims")->getIntArray() : std::vector<int64_t>{};
  if (st.rank() != 2 || dims.size() != 1) fail(*op, "only reductions of one dimension of a rank-2 vector are implemented yet on pvc/dg2");
  const layout::LinearLayout* l = layoutOf(op->operand(0));
  if (!l) fail(*op, "operand 0 has no layout (not implemented yet)");
  // reduction_size n < the dimension: groups of n consecutive elements (their layout bits below n).
  int64_t d = dims[0], group = st.shape()[static_cast<size_t>(d)] / op->result()->type().shape()[static_cast<size_t>(d)];
  setLayout(op->result(), need(xe::projectLayout(*l, static_cast<int>(d), group), *op).layout);
}

// tile.broadcast of a size-1 dimension d: the result takes the layout its element-wise consumer's
// other operand already has (so the sum of a block and a broadcast row needs no conversion), else
// the operand's with registers repeated along d. The operand must be that layout projected along d
// (a convert_layout otherwise): then every result register is one operand register, no shuffles.
void KernelLayouts::assignBroadcast(Operation* op) {
  const Type& st = op->operand(0)->type();
  const Type& rt = op->result()->type();
  std::vector<int64_t> dims = op->attr("dims") ? op->attr("dims")->getIntArray() : std::vector<int64_t>{};
  if (st.rank() != 2 || dims.size() != 1 || st.shape()[static_cast<size_t>(dims[0])] != 1)
    fail(*op, "only broadcasts of one size-1 dimension of a rank-2 vector are implemented yet on pvc/dg2");
  int d = static_cast<int>(dims[0]);
  std::optional<layout::LinearLayout> out;
  for (const ir::Use& u : op->result()->uses()) {
    if (u.user->dialect() == "tile" || u.user->numRegions() != 0) continue;
    for (Value* v : u.user->operands())
      if (v != op->result() && v->type().isVector() && v->type().shape() == rt.shape())
        if (const layout::LinearLayout* l = layoutOf(v)) {
          out = *l;
          break;
        }
    if (out) break;
  }
  if (!out) {
    const layout::LinearLayout* l = layoutOf(op->operand(0));
    if (!l) fail(*op, "operand 0 has no layout (not implemented yet)");
    out = need(xe::broadcastLayout(*l, d, rt.shape()[static_cast<size_t>(d)]), *op);
  }
  require(op, 0, need(xe::projectLayout(*out, d), *op).layout);
  setLayout(op->result(), *out);
}

void KernelLayouts::assignFor(Operation* op) {
  ir::Block& body = op->region(0).block();
  Operation* yield = body.terminator();
  // Accumulators: an iteration value used as tile_mma's C gets the tile_mma's C layout, so a
  // different layout of its initial value (an f32 FMA accumulator loaded from memory) is converted
  // once before the loop and the result once after, not twice per iteration. Any other iteration
  // value takes the layout of its initial value when it has one; a layout-less initial value (a
  // splat) waits for what the body yields: the body is assigned first with the argument unassigned
  // only when nothing else decides.
  for (unsigned i = 3; i < op->numOperands(); ++i) {
    Value* arg = body.argument(i - 2);
    if (!arg->type().isVector()) continue;
    for (const ir::Use& u : arg->uses())
      if (u.user->is("tile.tile_mma") && u.index == 2) {
        setLayout(arg, mmaLayout(*u.user, layout::Operand::C));
        break;
      }
    if (layoutOf(arg)) continue;
    if (const layout::LinearLayout* l = layoutOf(op->operand(i))) setLayout(arg, *l);
  }
  // Other layout-less iteration values take the layout of their first consumer in the body (see
  // require), or else of what the body yields.
  assignBlock(body);
  for (unsigned i = 3; i < op->numOperands(); ++i) {
    Value* arg = body.argument(i - 2);
    if (!arg->type().isVector()) continue;
    if (!layoutOf(arg)) {
      const layout::LinearLayout* y = layoutOf(yield->operand(i - 3));
      if (!y) fail(*op, fmt::format("cannot decide the layout of iteration value #{}", i - 3));
      setLayout(arg, *y);
    }
    const layout::LinearLayout& l = *layoutOf(arg);
    require(op, i, l);
    require(yield, i - 3, l);
    setLayout(op->result(i - 3), l);
  }
}

void KernelLayouts::assignOp(Operation* op) {
  const std::string& n = op->name();
  if (n == "scf.for") return assignFor(op);
  if (n == "scf.if") return assignIf(op);
  if (n == "tile.load_tile") {
    const Type& t = op->operand(0)->type();
    if (op->boolAttr("per_lane")) {
      setLayout(op->result(), perLaneLayout(op));
      return;
    }
    auto m = xe::messageOf(*op);
    if (!m) fail(*op, "the load is not blocked (run blocking first)");
    setLayout(op->result(), need(xe::tileLoadLayout(*m, t.shape()[0], t.shape()[1], static_cast<int>(t_.subgroupSize)), *op));
    return;
  }
  if (n == "tile.tile_mma") {
    if (!xe::dpasBlockOf(*op) && !isFma(*op)) fail(*op, "the tile_mma is not blocked (run blocking first)");
    // FMA (no DPAS for the types): A may be in any layout (each element is broadcast from its lane).
    if (!isFma(*op)) require(op, 0, mmaLayout(*op, layout::Operand::A));
    else if (!layoutOf(op->operand(0))) fail(*op, "operand 0 has no layout (not implemented yet)");
    require(op, 1, mmaLayout(*op, layout::Operand::B));
    layout::LinearLayout lc = mmaLayout(*op, layout::Operand::C);
    if (op->numOperands() == 3) require(op, 2, lc);
    setLayout(op->result(), lc);
    return;
  }
  if (n == "tile.convert_layout") {
    if (!layoutOf(op->result())) fail(*op, "a convert_layout to a non-linear layout is not handled yet");
    return;
  }
  if (n == "tile.reduction") return assignReduction(op);
  if (n == "tile.transpose") {
    // No data moves: the registers stay, their layout's dimensions swap (XeTranspose.h).
    const layout::LinearLayout* l = layoutOf(op->operand(0));
    if (!l) fail(*op, "operand 0 has no layout (not implemented yet)");
    setLayout(op->result(), need(xe::transposedLayout(*l), *op));
    return;
  }
  if (n == "tile.broadcast") return assignBroadcast(op);
  if (n == "tile.atomic_rmw") {
    // Per lane (LowerXeAtomic.cpp): any layout will do; the old values come back in the value's.
    const layout::LinearLayout* l = layoutOf(op->operand(0));
    if (!l) fail(*op, "operand 0 has no layout (not implemented yet)");
    setLayout(op->result(), *l);
    return;
  }
  if (n == "scf.yield" || n == "tile.store_tile" || n == "xtc.return") return;
  // Element-wise: the result takes the layout of the first vector operand that has one.
  bool anyVector = false;
  for (Value* r : op->results()) anyVector |= r->type().isVector();
  if (!anyVector) return;
  if (n == "arith.constant") return;  // a splat: takes its consumer's layout (require)
  if (op->dialect() == "tile") fail(*op, fmt::format("'{}' is not implemented yet on pvc/dg2", n));
  const layout::LinearLayout* l = nullptr;
  for (Value* v : op->operands())
    if ((l = layoutOf(v))) break;
  if (!l) fail(*op, "none of the operands has a layout (not implemented yet)");
  layout::LinearLayout lay = *l;
  for (unsigned i = 0; i < op->numOperands(); ++i)
    if (op->operand(i)->type().isVector()) require(op, i, lay);
  for (Value* r : op->results())
    if (r->type().isVector()) setLayout(r, lay);
}

// A vector result of scf.if takes the layout the first branch (with one) yields; the other branch
// converts to it before its yield.
void KernelLayouts::assignIf(Operation* op) {
  std::vector<Operation*> yields;
  for (unsigned r = 0; r < op->numRegions(); ++r)
    if (!op->region(r).empty()) {
      assignBlock(op->region(r).block());
      yields.push_back(op->region(r).block().terminator());
    }
  for (Value* res : op->results()) {
    if (!res->type().isVector()) continue;
    unsigned i = res->index();
    const layout::LinearLayout* l = nullptr;
    for (Operation* y : yields)
      if ((l = layoutOf(y->operand(i)))) break;
    if (!l) fail(*op, fmt::format("cannot decide the layout of result #{} (no branch yields a value with a layout)", i));
    layout::LinearLayout lay = *l;
    for (Operation* y : yields) require(y, i, lay);
    setLayout(res, lay);
  }
}

void KernelLayouts::assignBlock(ir::Block& b) {
  for (Operation* op : b.opsSnapshot()) assignOp(op);
}

class LayoutAssignmentPass : public Pass {
public:
  std::string name() const override { return "layout-assignment"; }
  std::string description() const override {
    return "pvc/dg2: lane layouts for every vector (block loads, DPAS operands); explicit convert_layout where "
           "they differ";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target || !ctx.target->hasDpas) {
      ctx.diags.error(module->loc(), "layout-assignment: needs a target with DPAS (pvc or dg2)");
      return false;
    }
    bool ok = true;
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered (lane-level input)
      try {
        KernelLayouts(k, *ctx.target, ctx.diags).run();
      } catch (const AssignError&) {
        ok = false;
      }
    }
    return ok;
  }
};

}  // namespace

void registerLayoutAssignmentPass() {
  registerPass("layout-assignment", [] { return std::make_unique<LayoutAssignmentPass>(); });
}

}  // namespace xtc::passes
