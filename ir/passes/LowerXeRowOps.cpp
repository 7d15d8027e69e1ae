// lower-xe, row ops: tile.reduction and tile.broadcast along one dimension of a rank-2 vector, on
// the lane layouts layout-assignment gave them (ir/passes/XeRowLayouts.h):
//   - reduction: the result layout is the operand's projected along d (with reduction_size n < the
//     dimension, only the layout bits below n combine; the others pick the group). Registers along d are
//     combined in-lane (register order ascending), then the lanes: all of the subgroup's by one
//     lane.reduce, fewer by one xor shuffle and a combine per lane bit along d (a butterfly), so
//     every lane of a group ends with the group's total;
//   - broadcast: the operand is in the result's layout projected along d (a convert_layout before it
//     otherwise), so each result register is one operand register: no instruction at all.
// bf16 reductions, and f16 sums and products, run in f32 and round once (ir::reductionElem), as the
// interpreter.
#include "ir/ops/LaneOps.h"
#include "ir/passes/LowerXeKernel.h"
#include "ir/passes/XeRowLayouts.h"

namespace xtc::passes::lowerxe {

// The projection of the 2-D side of a row op along its dimension, or nullopt when the collapsed
// side's layout is not exactly that projection (layout-assignment guarantees it).
static std::optional<xe::Projection> rowProjection(const Operation& op, const layout::LinearLayout& full,
                                                   const layout::LinearLayout& collapsed) {
  // A reduction with reduction_size n combines groups of n: the full side's size over the collapsed
  // side's (a broadcast's operand has size 1 along d: one group).
  int64_t d = op.attr("dims")->getIntArray().at(0);
  const Type& big = op.is("tile.reduction") ? op.operand(0)->type() : op.result()->type();
  const Type& small = op.is("tile.reduction") ? op.result()->type() : op.operand(0)->type();
  int64_t group = big.shape()[static_cast<size_t>(d)] / small.shape()[static_cast<size_t>(d)];
  auto p = xe::projectLayout(full, static_cast<int>(d), group);
  if (!p || p->layout != collapsed) return std::nullopt;
  return *p;
}

Value* KernelLowerXe::combine(const std::string& kind, ElemKind ek, Value* a, Value* b) {
  bool f = ir::isFloatElem(ek);
  static const std::map<std::string, std::pair<const char*, const char*>> names = {
      {"add", {"arith.addf", "arith.addi"}}, {"mul", {"arith.mulf", "arith.muli"}}, {"max", {"arith.maxf", "arith.maxsi"}},
      {"min", {"arith.minf", "arith.minsi"}}, {"and", {"", "arith.andi"}},       {"or", {"", "arith.ori"}},
      {"xor", {"", "arith.xori"}}};
  auto it = names.find(kind);
  if (it == names.end() || (f && !*it->second.first)) throw LowerError{};
  return b_.create(f ? it->second.first : it->second.second, {a, b}, {Type::scalar(ek)})->result();
}

void KernelLowerXe::lowerReduction(Operation& op) {
  const Type& st = op.operand(0)->type();
  const layout::LinearLayout& lr = laneLayout(op.result()->type(), op);
  auto proj = rowProjection(op, laneLayout(st, op), lr);
  if (!proj) fail(op, "internal error: the reduction's result layout is not its operand's projected");
  const xe::Projection& p = *proj;
  std::string kind = op.attr("kind")->getString();
  if (kind.empty()) fail(op, "internal error: reduction without a kind (the verifier requires one)");
  ElemKind ek = ir::reductionElem(kind, st.elem());
  std::vector<Value*> src = extractAll(vals_.get1(op.operand(0), op));
  if (ek != st.elem())
    for (Value*& v : src) v = b_.create("arith.convert", {v}, {Type::scalar(ek)})->result();
  std::vector<Value*> out(static_cast<size_t>(xe::registersOf(lr)), nullptr);
  try {
    for (int32_t r = 0; r < static_cast<int32_t>(src.size()); ++r) {
      Value*& acc = out[static_cast<size_t>(p.projectRegister(r))];
      acc = acc ? combine(kind, ek, acc, src[static_cast<size_t>(r)]) : src[static_cast<size_t>(r)];
    }
  } catch (const LowerError&) {
    fail(op, fmt::format("reduction kind '{}' on {} is not implemented", kind, ir::elemName(ek)));
  }
  // Along all the subgroup's lanes: one lane.reduce (IGC's sub_group_reduce_*, a log2(S) tree of
  // uniform ops over register halves, 5 instructions for f32 on pvc: tests/isa/builtins/
  // reduce_pvc_add_f32.ir) instead of log2(S) xor shuffles, each an address add, a register-indirect
  // mov and the combine (ir/ops/LaneOps.h laneReduceLowers: the kinds and types the backend has).
  bool whole = int64_t(1) << p.reducedLaneBits.size() == S_ && ir::laneReduceLowers(kind, ek);
  for (Value*& v : out) {
    if (whole) {
      v = b_.create("lane.reduce", {v}, {Type::scalar(ek)}, {{"kind", *op.attr("kind")}})->result();
      continue;
    }
    for (int b : p.reducedLaneBits) {
      Value* from = b_.create("arith.xori", {laneId_, cIndex(int64_t(1) << b)}, {Type::index()})->result();
      v = combine(kind, ek, v, b_.create("lane.shuffle", {v, from}, {Type::scalar(ek)})->result());
    }
  }
  if (ek != st.elem())
    for (Value*& v : out) v = b_.create("arith.convert", {v}, {Type::scalar(st.elem())})->result();
  vals_.set(op.result(), {fromElements(out, st.elem())});
}

void KernelLowerXe::lowerBroadcast(Operation& op) {
  const Type& rt = op.result()->type();
  const layout::LinearLayout& ld = laneLayout(rt, op);
  auto p = rowProjection(op, ld, laneLayout(op.operand(0)->type(), op));
  if (!p) fail(op, "internal error: the broadcast operand is not in its result's layout projected");
  std::vector<Value*> src = extractAll(vals_.get1(op.operand(0), op)), out;
  for (int32_t r = 0; r < ld.inDimSize("register"); ++r) out.push_back(src.at(static_cast<size_t>(p->projectRegister(r))));
  vals_.set(op.result(), {fromElements(out, rt.elem())});
}

}  // namespace xtc::passes::lowerxe
