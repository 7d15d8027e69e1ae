// lower-xe, per-lane writes: tile.atomic_rmw, and the tile.store_tile that no 2D block message
// takes. Both become one lane op per register at the element the lane layout puts there (row, col =
// register part + lane part); the lane op itself drops what falls outside the memref (the clipping),
// and a tile over an explicit view also what falls outside the view's shape (viewAccess).
// An atomic is never a 2D message: the hardware has no block atomic, so per lane is the only form
// (the backend emits lane.atomic as a core SPIR-V atomic, float kinds as a compare-exchange loop).
// A replicated layout (zero lane bases, e.g. a row reduction's result) writes from the lanes whose
// replica bits are 0 only (for an atomic add, every replica writing would add the value that many
// times); the other replicas get the old values by a shuffle.
#include "ir/passes/LowerXeKernel.h"

namespace xtc::passes::lowerxe {

std::vector<Value*> KernelLowerXe::perLaneWrites(const std::string& name, const TileState& t, const layout::LinearLayout& l,
                                                 const std::vector<Value*>& regs, const ir::AttrMap& attrs,
                                                 const Operation& op) {
  std::vector<Value*> lane = laneCoords(l, op);
  int64_t replicaBits = 0;
  for (int b = 0; b < l.inDimBits("lane"); ++b)
    if (l.basis("lane", b) == std::vector<int32_t>{0, 0}) replicaBits |= int64_t(1) << b;
  Value* mask = nullptr;
  if (replicaBits) {
    Value* bits = pro_.create("arith.andi", {laneId_, cIndex(replicaBits)}, {Type::index()})->result();
    mask = pro_.create("arith.cmpi", {bits, cIndex(0)}, {Type::scalar(ElemKind::I1)},
                       {{"predicate", Attribute::enumValue("cmpi", "eq")}})
               ->result();
  }
  std::vector<Value*> results;
  for (int64_t r = 0; r < static_cast<int64_t>(regs.size()); ++r) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r), 0});
    std::vector<Value*> idx{add(t.offs[0], addC(lane[0], c[0])), add(t.offs[1], addC(lane[1], c[1]))};
    Value* m = mask;
    Value* mem = viewAccess(t, idx, &m);
    std::vector<Value*> operands{regs[static_cast<size_t>(r)], mem};
    operands.insert(operands.end(), idx.begin(), idx.end());
    if (m) operands.push_back(m);
    std::vector<Type> types;
    if (name != "lane.store") types.push_back(regs[static_cast<size_t>(r)]->type());
    Operation* w = b_.create(name, operands, types, attrs);
    if (!types.empty()) results.push_back(w->result());
  }
  // The old values of the replicas that did not write (0 from a masked-off lane.atomic) are the
  // writing replica's: one shuffle per register, only when someone reads them.
  if (replicaBits && op.numResults() == 1 && op.result()->hasUses()) {
    Value* from = pro_.create("arith.andi", {laneId_, cIndex(~replicaBits & (S_ - 1))}, {Type::index()})->result();
    for (Value*& v : results) v = b_.create("lane.shuffle", {v, from}, {v->type()})->result();
  }
  return results;
}

void KernelLowerXe::lowerAtomic(Operation& op) {
  const TileState& t = vals_.tile(op.operand(1), op);
  const Type& vt = op.operand(0)->type();
  if (vt.shape() != t.type.shape()) fail(op, "internal error: atomic_rmw value and tile shapes differ (the verifier requires one shape)");
  const layout::LinearLayout& l = laneLayout(vt, op);
  std::vector<Value*> old = perLaneWrites("lane.atomic", t, l, extractAll(vals_.get1(op.operand(0), op)),
                                          {{"kind", *op.attr("kind")}}, op);
  vals_.set(op.result(), {fromElements(old, vt.elem())});
}

}  // namespace xtc::passes::lowerxe
