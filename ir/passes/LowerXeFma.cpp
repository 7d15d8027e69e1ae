// lower-xe, FMA tile_mma (`fma = true` from blocking: f32, for which no target has a DPAS; tf32 would
// round the inputs). B (K x N) and C (M x N) have lanes along their columns and registers along rows
// then column groups of S (fmaLaneLayout; N < S: one group, the lanes past N replicate); A may be in
// any layout.
// C(m, n) += A(m, k) * B(k, n) for k ascending (the interpreter's order): A(m, k) is broadcast from
// the lane that holds it (lane.broadcast with a constant lane: a scalar region operand of the `mad`
// on pvc, reference §5), B(k, n) is this lane's register. So M * K * max(1, N / S) lane.fma and
// M * K broadcasts per tile_mma: sg_gemm_f32 (8x16x8, S = 16) takes 64 mad per K step.
// On pvc a K loop of these (with 2D loads) becomes one inline-vISA statement whose mads read A as
// that scalar region directly (backends/spirv/VisaLoop.cpp; 73 instructions per step for sg_gemm_f32).
#include "ir/passes/LowerXeKernel.h"
#include "ir/passes/XeRowLayouts.h"

namespace xtc::passes::lowerxe {

void KernelLowerXe::lowerFmaMma(Operation& op) {
  const Type& at = op.operand(0)->type();
  const Type& bt = op.operand(1)->type();
  const Type& ct = op.result()->type();
  int64_t M = at.shape()[0], K = at.shape()[1], N = bt.shape()[1];
  const layout::LinearLayout& la = laneLayout(at, op);
  const layout::LinearLayout& lb = laneLayout(bt, op);
  const layout::LinearLayout& lc = laneLayout(ct, op);
  if (lb != need(xe::fmaLaneLayout(K, N, static_cast<int>(S_)), op) ||
      lc != need(xe::fmaLaneLayout(M, N, static_cast<int>(S_)), op))
    fail(op, "internal error: the B or C operand of an FMA tile_mma is not in the FMA lane layout");
  // Register of (row, column group g) in B and C: lane 0 holds columns g * S.
  auto regAt = [&](const layout::LinearLayout& l, int64_t row, int64_t g) {
    for (int32_t r = 0; r < l.inDimSize("register"); ++r)
      if (l.apply(std::vector<int32_t>{r, 0}) == std::vector<int32_t>{static_cast<int32_t>(row), static_cast<int32_t>(g * S_)})
        return static_cast<size_t>(r);
    fail(op, "internal error: an element of an FMA operand has no register");
  };
  // The (register, lane) holding each A element (the first owner, register-major).
  std::map<std::pair<int32_t, int32_t>, std::pair<int32_t, int32_t>> ownerA;
  for (int32_t lane = S_ - 1; lane >= 0; --lane)
    for (int32_t r = la.inDimSize("register") - 1; r >= 0; --r) {
      auto c = la.apply(std::vector<int32_t>{r, lane});
      ownerA[{c[0], c[1]}] = {r, lane};
    }
  std::vector<Value*> A = extractAll(vals_.get1(op.operand(0), op));
  std::vector<Value*> B = extractAll(vals_.get1(op.operand(1), op));
  std::vector<Value*> C;
  if (op.numOperands() == 3) C = extractAll(vals_.get1(op.operand(2), op));
  else C.assign(static_cast<size_t>(xe::registersOf(lc)), pro_.constantFloat(0.0, ct.elem()));
  Type f = Type::scalar(ct.elem());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t m = 0; m < M; ++m) {
      auto [r, lane] = ownerA.at({static_cast<int32_t>(m), static_cast<int32_t>(k)});
      Value* a = b_.create("lane.broadcast", {A[static_cast<size_t>(r)], cIndex(lane)}, {f})->result();
      for (int64_t g = 0; g < std::max<int64_t>(1, N / S_); ++g) {
        Value*& c = C[regAt(lc, m, g)];
        c = b_.create("lane.fma", {a, B[regAt(lb, k, g)], c}, {f})->result();
      }
    }
  vals_.set(op.result(), {fromElements(C, ct.elem())});
}

}  // namespace xtc::passes::lowerxe
