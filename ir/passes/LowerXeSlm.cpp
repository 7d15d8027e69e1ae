// lower-xe, shared local memory: gpu.slm_alloc and the tiles over its buffers. An SLM tile has no 2D
// block message (those address global surfaces only): blocking marks its loads per lane, and every
// access here is one lane op per register at the element the lane layout puts there (the measured
// per-lane SLM forms of reference §6, `load.slm`/`store.slm`), so a load produces directly the layout
// its consumer wants (a DPAS operand, say) and a store takes whatever layout its value has: the
// layout change that an SLM round trip is stays visible in the IR as the store/barrier/load sequence.
// A buffer's `swizzle` (docs/passes.md, wg-distribute) is applied to every access through
// SlmSwizzle.h, the arithmetic lower-generic uses, with the bounds check of the unswizzled element
// moved into the lane op's mask.
#include "ir/passes/LowerXeKernel.h"
#include "ir/passes/SlmSwizzle.h"

namespace xtc::passes::lowerxe {

void KernelLowerXe::lowerSlmAlloc(Operation& op) {
  ir::AttrMap attrs = op.attrs();
  attrs.erase("swizzle");
  std::string error;
  std::vector<int64_t> sw = slmSwizzleOf(op, &error);
  if (!error.empty()) fail(op, error);
  Value* r = b_.create(op.name(), {}, {op.result()->type()}, attrs)->result();
  r->setNameHint(op.result()->nameHint());
  if (!sw.empty()) slmSwizzle_[r] = sw;
  vals_.set(op.result(), {r});
}

void KernelLowerXe::swizzleSlm(const TileState& t, std::vector<Value*>& idx, Value** mask) {
  auto it = slmSwizzle_.find(t.mem);
  if (it == slmSwizzle_.end()) return;
  swizzleSlmIndex(b_, it->second, t.mem->type().shape(), idx, mask, [this](int64_t v) { return cIndex(v); });
}

void KernelLowerXe::lowerSlmStore(Operation& op, const TileState& t, const layout::LinearLayout& l,
                                  const std::vector<Value*>& regs) {
  std::vector<Value*> lane = laneCoords(l, op);
  // A replicated layout (zero lane bases) stores from the lanes whose replica bits are 0 only: the
  // replicas hold the same value, and one writer per element keeps the interpreter's race check quiet.
  int64_t replicaBits = 0;
  for (int b = 0; b < l.inDimBits("lane"); ++b)
    if (l.basis("lane", b) == std::vector<int32_t>{0, 0}) replicaBits |= int64_t(1) << b;
  Value* replica = nullptr;
  if (replicaBits)
    replica = pro_.create("arith.cmpi", {pro_.create("arith.andi", {laneId_, cIndex(replicaBits)}, {Type::index()})->result(), cIndex(0)},
                          {Type::scalar(ElemKind::I1)}, {{"predicate", Attribute::enumValue("cmpi", "eq")}})
                  ->result();
  for (int64_t r = 0; r < static_cast<int64_t>(regs.size()); ++r) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r), 0});
    std::vector<Value*> idx{add(t.offs[0], addC(lane[0], c[0])), add(t.offs[1], addC(lane[1], c[1]))};
    Value* mask = replica;
    swizzleSlm(t, idx, &mask);
    std::vector<Value*> operands{regs[static_cast<size_t>(r)], t.mem, idx[0], idx[1]};
    if (mask) operands.push_back(mask);
    b_.create("lane.store", operands, {});
  }
}

}  // namespace xtc::passes::lowerxe
