// The `layout-assignment` pass (pvc, dg2): gives every vector value of a blocked kernel a lane layout
// (a `linear<...>` attribute on its type: register, lane -> dim0, dim1 of the subgroup value).
// Contract (docs/passes.md, "layout-assignment"):
//   - a blocked tile.load_tile produces the layout of its 2D block messages (XeCommon tileLoadLayout);
//     a per-lane load (blocking found no message) produces what its tile_mma consumer needs, else the
//     DPAS C pattern (lane = column, registers = rows);
//   - tile.tile_mma consumes A, B, C in the DPAS operand layouts of its `dpas` block and produces C's;
//   - element-wise ops, scf.for iteration values and scf.yield keep the layout of what flows in;
//     splat constants take the layout their first consumer needs;
//   - wherever a value's layout differs from the one its consumer needs, an explicit
//     `tile.convert_layout` is inserted (seed 002: a conversion is visible in the IR, never hidden in a
//     lowering). Nothing is resolved here; resolve-layouts decides how each conversion is done.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/ops/XeOps.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/XeCommon.h"

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
  layout::LinearLayout perLaneLayout(Operation* load);

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
  if (!cur) fail(*user, fmt::format("operand {} has no layout (its producer '{}' is not handled yet)", i,
                                    def ? def->name() : std::string("block argument")));
  ir::Builder b;
  b.setInsertionPoint(user);
  b.setLoc(user->loc());
  Operation* cv = b.create("tile.convert_layout", {v}, {v->type().withVectorLayout(ir::linearLayoutAttr(l))});
  user->setOperand(i, cv->result());
}

layout::LinearLayout KernelLayouts::perLaneLayout(Operation* load) {
  // A per-lane load can produce any layout: the DPAS operand layout when a tile_mma consumes it,
  // else the DPAS C pattern (lane = column, registers = rows, then column groups of the subgroup
  // size), which is also what an f32 accumulator initialised from memory needs.
  const Type& t = load->result()->type();
  layout::Operand which = layout::Operand::C;
  ir::ElemKind in = t.elem();
  for (const ir::Use& u : load->result()->uses())
    if (u.user->is("tile.tile_mma") && u.index < 2) {
      which = u.index == 0 ? layout::Operand::A : layout::Operand::B;
      break;
    }
  if (which == layout::Operand::C) {
    // Built directly (equal to the DPAS C layout, repetitions along rows first, when rows >= 8).
    if (t.rank() != 2) fail(*load, "per-lane loads of rank-1 tiles are not implemented yet");
    int64_t rows = t.shape()[0], cols = t.shape()[1], S = t_.subgroupSize;
    auto pow2 = [](int64_t v) { return v > 0 && (v & (v - 1)) == 0; };
    if (!pow2(rows) || !pow2(cols) || cols < S)
      fail(*load, fmt::format("a per-lane load of a {}x{} tile needs power-of-two sizes and at least {} columns; not "
                              "implemented yet",
                              rows, cols, S));
    layout::InDim reg{"register", {}}, lane{"lane", {}};
    for (int64_t r = 1; r < rows; r *= 2) reg.bases.push_back({static_cast<int32_t>(r), 0});
    for (int64_t c = S; c < cols; c *= 2) reg.bases.push_back({0, static_cast<int32_t>(c)});
    for (int64_t l = 1; l < S; l *= 2) lane.bases.push_back({0, static_cast<int32_t>(l)});
    return need(layout::LinearLayout::make({reg, lane}, {{"dim0", static_cast<int32_t>(rows)}, {"dim1", static_cast<int32_t>(cols)}}),
                *load);
  }
  return need(xe::dpasOperandLayout(t_, in, which, t.shape()[0], t.shape()[1]), *load);
}

void KernelLayouts::assignFor(Operation* op) {
  ir::Block& body = op->region(0).block();
  Operation* yield = body.terminator();
  // An iteration value takes the layout of its initial value when it has one; a layout-less initial
  // value (a splat) waits for what the body yields: the body is assigned first with the argument
  // unassigned only when nothing else decides. For an accumulator, the body's tile_mma decides.
  for (unsigned i = 3; i < op->numOperands(); ++i) {
    Value* arg = body.argument(i - 2);
    if (!arg->type().isVector()) continue;
    if (const layout::LinearLayout* l = layoutOf(op->operand(i))) setLayout(arg, *l);
  }
  // Accumulators: a layout-less iteration value used as tile_mma's C gets the DPAS C layout.
  for (unsigned i = 3; i < op->numOperands(); ++i) {
    Value* arg = body.argument(i - 2);
    if (!arg->type().isVector() || layoutOf(arg)) continue;
    for (const ir::Use& u : arg->uses())
      if (u.user->is("tile.tile_mma") && u.index == 2) {
        const Type& c = u.user->result()->type();
        setLayout(arg, need(xe::dpasOperandLayout(t_, u.user->operand(0)->type().elem(), layout::Operand::C,
                                                  c.shape()[0], c.shape()[1]),
                            *u.user));
        break;
      }
    if (!layoutOf(arg)) fail(*op, fmt::format("cannot decide the layout of iteration value #{}", i - 3));
  }
  assignBlock(body);
  for (unsigned i = 3; i < op->numOperands(); ++i) {
    Value* arg = body.argument(i - 2);
    if (!arg->type().isVector()) continue;
    const layout::LinearLayout& l = *layoutOf(arg);
    require(op, i, l);
    require(yield, i - 3, l);
    setLayout(op->result(i - 3), l);
  }
}

void KernelLayouts::assignOp(Operation* op) {
  const std::string& n = op->name();
  if (n == "scf.for") return assignFor(op);
  if (n == "scf.if") {
    for (Value* r : op->results())
      if (r->type().isVector()) fail(*op, "scf.if yielding vectors is not implemented yet on pvc/dg2");
    for (unsigned r = 0; r < op->numRegions(); ++r)
      if (!op->region(r).empty()) assignBlock(op->region(r).block());
    return;
  }
  if (n == "tile.load_tile") {
    const Type& t = op->operand(0)->type();
    if (const Attribute* pl = op->attr("per_lane"); pl && pl->isa(ir::AttrKind::Bool) && pl->getBool()) {
      setLayout(op->result(), perLaneLayout(op));
      return;
    }
    auto m = xe::messageOf(*op);
    if (!m) fail(*op, "the load is not blocked (run blocking first)");
    setLayout(op->result(), need(xe::tileLoadLayout(*m, t.shape()[0], t.shape()[1], static_cast<int>(t_.subgroupSize)), *op));
    return;
  }
  if (n == "tile.tile_mma") {
    auto blk = xe::dpasBlockOf(*op);
    if (!blk) fail(*op, "the tile_mma is not blocked (run blocking first)");
    ir::ElemKind in = op->operand(0)->type().elem();
    const Type& a = op->operand(0)->type();
    const Type& b = op->operand(1)->type();
    const Type& c = op->result()->type();
    auto la = need(xe::dpasOperandLayout(t_, in, layout::Operand::A, a.shape()[0], a.shape()[1]), *op);
    auto lb = need(xe::dpasOperandLayout(t_, in, layout::Operand::B, b.shape()[0], b.shape()[1]), *op);
    auto lc = need(xe::dpasOperandLayout(t_, in, layout::Operand::C, c.shape()[0], c.shape()[1]), *op);
    require(op, 0, la);
    require(op, 1, lb);
    if (op->numOperands() == 3) require(op, 2, lc);
    setLayout(op->result(), lc);
    return;
  }
  if (n == "tile.convert_layout") {
    if (!layoutOf(op->result())) fail(*op, "a convert_layout to a non-linear layout is not handled yet");
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
