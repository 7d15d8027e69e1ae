// gpu.* (ids, sizes, barrier, shared local memory), memref.dim and memref.transpose.
#include "ir/ops/OpHelpers.h"

namespace xtc::ir::ops {

namespace {

OpVerifier indexQuery(bool hasDim) {
  return [hasDim](const Operation& op) -> std::string {
    XTC_CHECK(numOperands(op, 0));
    XTC_CHECK(numResults(op, 1));
    XTC_REQUIRE(op.result()->type().isIndex(), "result must be 'index', got " + q(op.result()->type()));
    if (hasDim) {
      std::string err;
      const Attribute* d = getAttr(op, "dim", AttrKind::Int, true, &err);
      XTC_REQUIRE(d, err);
      XTC_REQUIRE(d->getInt() >= 0 && d->getInt() <= 2, "'dim' must be 0, 1 or 2, got " + std::to_string(d->getInt()));
    }
    return {};
  };
}

std::string verifyBarrier(const Operation& op) {
  XTC_CHECK(numOperands(op, 0));
  return numResults(op, 0);
}

std::string verifySlmAlloc(const Operation& op) {
  XTC_CHECK(numOperands(op, 0));
  XTC_CHECK(numResults(op, 1));
  const Type& r = op.result()->type();
  XTC_REQUIRE(r.isMemRef() && r.memSpace() == MemSpace::Slm, "result must be an 'slm' memref, got " + q(r));
  XTC_REQUIRE(r.hasStaticShape(), "SLM allocations need a static shape, got " + q(r));
  if (op.hasAttr("offset")) {
    std::string err;
    const Attribute* o = getAttr(op, "offset", AttrKind::Int, true, &err);
    XTC_REQUIRE(o, err);
    XTC_REQUIRE(o->getInt() >= 0, "'offset' must be non-negative");
  }
  return {};
}

std::string verifyDim(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  const Type& m = op.operand(0)->type();
  XTC_REQUIRE(m.isMemRef(), "operand must be a memref, got " + q(m));
  XTC_REQUIRE(op.result()->type().isIndex(), "result must be 'index'");
  std::string err;
  const Attribute* d = getAttr(op, "index", AttrKind::Int, true, &err);
  XTC_REQUIRE(d, err);
  XTC_REQUIRE(d->getInt() >= 0 && d->getInt() < m.rank(),
              "'index' " + std::to_string(d->getInt()) + " is out of range for " + q(m));
  return {};
}

// The memref views (memref.transpose, slice, flatten): `operands` operands, one result, the first
// operand and the result memrefs of one element type and memory space.
std::string verifyMemRefView(const Operation& op, unsigned operands) {
  XTC_CHECK(numOperands(op, operands));
  XTC_CHECK(numResults(op, 1));
  const Type& m = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(m.isMemRef() && r.isMemRef(), "operand and result must be memrefs, got " + q(m) + " and " + q(r));
  XTC_REQUIRE(m.elem() == r.elem() && m.memSpace() == r.memSpace(), "operand and result differ in element type or space");
  return {};
}

// memref.transpose {permutation}: the same memory seen with its dimensions permuted (result dim i is
// operand dim permutation[i]); the result is dense row-major, so the operand must be dense in the
// permuted order (order-transpose makes column-major parameters their row-major transposes).
std::string verifyMemRefTranspose(const Operation& op) {
  XTC_CHECK(verifyMemRefView(op, 1));
  const Type& m = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(r.strides().empty(), "the result must be dense row-major (no strides), got " + q(r));
  std::vector<int64_t> perm;
  XTC_CHECK(intArrayAttr(op, "permutation", true, &perm));
  std::optional<std::vector<int64_t>> order = denseMemRefOrder(m);
  XTC_REQUIRE(order && *order == perm, "'permutation' must be the operand's dense order (slowest dimension first)");
  std::vector<int64_t> shape;
  for (int64_t d : perm) shape.push_back(m.shape()[static_cast<size_t>(d)]);
  XTC_REQUIRE(r.shape() == shape, "result shape must be the operand's permuted, got " + q(r));
  return {};
}

// memref.slice %m, %i: matrix %i of a batch, i.e. the dense row-major memref of m's inner dimensions
// whose first element is m[i, 0, ...] (batch-slice, docs/passes.md). The index is not bounds-checked
// here: the tiles over the slice check theirs against its dims, as over any memref.
std::string verifyMemRefSlice(const Operation& op) {
  XTC_CHECK(verifyMemRefView(op, 2));
  const Type& m = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(op.operand(1)->type().isIndex(), "the slice index must be 'index', got " + q(op.operand(1)->type()));
  XTC_REQUIRE(m.memSpace() == MemSpace::Global, "only global memrefs are sliced, got " + q(m));
  XTC_REQUIRE(m.rank() >= 2 && m.strides().empty() && r.strides().empty(),
              "operand and result must be dense row-major (no strides) and the operand of rank 2 or more");
  std::vector<int64_t> inner(m.shape().begin() + 1, m.shape().end());
  XTC_REQUIRE(r.shape() == inner, "result shape must be the operand's without its first dimension, got " + q(r));
  return {};
}

// lower-xe's flat form of a matrix for accesses through a view whose row stride is not the matrix's
// own (LowerXe.cpp viewAccess): element (r, c) of the operand is element r * cols + c of the result.
std::string verifyMemRefFlatten(const Operation& op) {
  XTC_CHECK(verifyMemRefView(op, 1));
  const Type& m = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(m.rank() == 2 && r.rank() == 1 && m.strides().empty() && r.strides().empty(),
              "the operand must be a dense row-major (no strides) matrix and the result of rank 1");
  int64_t rows = m.shape()[0], cols = m.shape()[1];
  int64_t n = rows == kDynamic || cols == kDynamic ? kDynamic : rows * cols;
  XTC_REQUIRE(r.shape()[0] == n, "result shape must be the operand's element count, got " + q(r));
  return {};
}

}  // namespace

void registerGpuOps() {
  for (const char* n : {"group_id", "num_groups", "local_id", "local_size"})
    def(std::string("gpu.") + n, pure(), indexQuery(true), "a per-dimension id or size");
  for (const char* n : {"subgroup_id", "num_subgroups", "lane_id", "subgroup_size"})
    def(std::string("gpu.") + n, pure(), indexQuery(false), "a subgroup id or size");
  def("gpu.barrier", effect(), verifyBarrier, "workgroup barrier with SLM fence");
  // Not pure: two allocations of the same type are different memory.
  def("gpu.slm_alloc", effect(), verifySlmAlloc, "allocates shared local memory");
  def("memref.dim", pure(), verifyDim, "a dimension of a memref");
  def("memref.transpose", pure(), verifyMemRefTranspose, "a dense memref viewed with permuted dimensions");
  def("memref.slice", pure(), verifyMemRefSlice, "one matrix of a batch: a dense memref without its first dimension");
  def("memref.flatten", pure(), verifyMemRefFlatten, "a dense matrix as the vector of its elements");
}

}  // namespace xtc::ir::ops
