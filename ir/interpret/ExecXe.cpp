// Hardware-level ops of the pvc/dg2 lowering (xe.*, docs/passes.md "xe ops") at lane level.
// Addresses are real: xe.base_address gives the host address of the kernel buffer's first byte, and
// xe.load_2d reads through it only inside that buffer (anything else is an error, not garbage).
// Registers are typed elements, so a VNNI load orders registers by row exactly like a plain one
// (the 32-bit packing is the backend's business). Implemented: base_address, load_2d (blocks as
// wide as the subgroup, plain/VNNI, and d32 transposed single blocks), prefetch_2d (no effect),
// dpas (k = subgroup size, or 2x it for 8-bit types). Other forms fail as not implemented yet.
#include "ir/interpret/Exec.h"

#include "ir/interpret/Numeric.h"

#include <cstring>

namespace xtc::interp {

namespace {

int64_t lanesOf(Executor& ex, const ir::Operation& op) {
  if (ex.lanes() == 0) fail(op, "'" + op.name() + "' needs lane-level execution (kernel sg_size)");
  return ex.lanes();
}

void execBaseAddress(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const MemRefVal& m = ex.memref(op, 0);
  if (m.slm) fail(op, "xe.base_address of an SLM memref is not implemented yet");
  Tensor t(ir::ElemKind::I64, {L});
  std::fill(t.i.begin(), t.i.end(), static_cast<int64_t>(reinterpret_cast<uintptr_t>(m.buf->bytes.data())));
  ex.setTensor(op.result(), std::move(t));
}

// The global buffer holding bytes [addr, addr + n), or null.
const Buffer* bufferAt(Executor& ex, uintptr_t addr, size_t n) {
  WorkgroupCtx* wg = ex.wg();
  if (!wg || !wg->globalBuffers) return nullptr;
  for (const Buffer* b : *wg->globalBuffers) {
    auto lo = reinterpret_cast<uintptr_t>(b->bytes.data());
    if (addr >= lo && addr + n <= lo + b->bytes.size()) return b;
  }
  return nullptr;
}

struct Surface {
  int64_t base, width, height, pitch, x, y;
};

Surface surface(Executor& ex, const ir::Operation& op) {
  return Surface{ex.scalarInt(op, 0), ex.scalarInt(op, 1), ex.scalarInt(op, 2), ex.scalarInt(op, 3), ex.scalarInt(op, 4), ex.scalarInt(op, 5)};
}

// Element (row, col) of the surface (col in elements of type t); zero outside width x height.
double surfaceElem(Executor& ex, const ir::Operation& op, const Surface& s, ir::ElemKind t, int64_t row, int64_t col) {
  unsigned eb = elemBytes(t);
  if (row < 0 || row >= s.height || col < 0 || (col + 1) * static_cast<int64_t>(eb) > s.width) return 0.0;
  uintptr_t a = static_cast<uintptr_t>(s.base + row * s.pitch + col * static_cast<int64_t>(eb));
  if (!bufferAt(ex, a, eb))
    fail(op, "xe.load_2d: element (" + std::to_string(row) + ", " + std::to_string(col) +
                 ") of the surface is inside its width/height but outside every kernel buffer");
  return ir::isFloatElem(t) ? loadFloat(t, reinterpret_cast<const uint8_t*>(a))
                            : static_cast<double>(loadInt(t, reinterpret_cast<const uint8_t*>(a)));
}

void execLoad2d(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  Surface s = surface(ex, op);
  const ir::Type& rt = op.result()->type();
  ir::ElemKind t = rt.elem();
  int64_t bits = attrInt(op, "elem_bits", 0), bw = attrInt(op, "block_w", 0), bh = attrInt(op, "block_h", 0),
          blocks = attrInt(op, "array_len", 1);
  bool transpose = op.attr("transpose") && op.attr("transpose")->kind() == ir::AttrKind::Bool && op.attr("transpose")->getBool();
  if (bits != static_cast<int64_t>(elemBytes(t) * 8)) fail(op, "xe.load_2d with elem_bits different from the register type is not implemented yet");
  int64_t n = rt.shape().at(0);
  Tensor r(t, {L, n});
  if (!transpose) {
    if (bw != L || n != bh * blocks) fail(op, "xe.load_2d: only blocks as wide as the subgroup are implemented yet");
    for (int64_t l = 0; l < L; ++l)
      for (int64_t b = 0; b < blocks; ++b)
        for (int64_t i = 0; i < bh; ++i) {
          double v = surfaceElem(ex, op, s, t, s.y + i, s.x + b * bw + l);
          int64_t k = l * n + b * bh + i;
          if (r.isFloat()) r.f[k] = v;
          else r.i[k] = static_cast<int64_t>(v);
        }
  } else {
    // d32 transposed: lane j, register i = S[y + j][x + i].
    if (bh != L || blocks != 1 || n != bw) fail(op, "xe.load_2d: this transposed shape is not implemented yet");
    for (int64_t l = 0; l < L; ++l)
      for (int64_t i = 0; i < bw; ++i) {
        double v = surfaceElem(ex, op, s, t, s.y + l, s.x + i);
        if (r.isFloat()) r.f[l * n + i] = v;
        else r.i[l * n + i] = static_cast<int64_t>(v);
      }
  }
  ex.setTensor(op.result(), std::move(r));
}

void execPrefetch2d(Executor& ex, const ir::Operation& op) {
  lanesOf(ex, op);
  (void)surface(ex, op);  // a cache hint
}

void execDpas(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const Tensor& acc = ex.tensor(op, 0);
  const Tensor& a = ex.tensor(op, 1);
  const Tensor& b = ex.tensor(op, 2);
  int64_t M = attrInt(op, "m", 0), N = attrInt(op, "n", 0), K = attrInt(op, "k", 0);
  if (N != L) fail(op, "xe.dpas: n must equal the subgroup size");
  if (K != L && K != 2 * L) fail(op, "xe.dpas with k = " + std::to_string(K) + " is not implemented yet");
  if (acc.shape != std::vector<int64_t>{L, M} || a.shape != std::vector<int64_t>{L, M * K / L} || b.shape != std::vector<int64_t>{L, K})
    fail(op, "xe.dpas: operand shapes do not match m/n/k");
  int64_t per = K / L;  // A elements per lane and row
  // A(m, k) lives in lane k / per, register m * per + k % per; B(k, n) in lane n, register k.
  auto A = [&](int64_t m, int64_t k) { return a.getF((k / per) * (M * per) + m * per + k % per); };
  auto B = [&](int64_t k, int64_t n) { return b.getF(n * K + k); };
  ir::ElemKind rk = op.result()->type().elem();
  Tensor r(rk, {L, M});
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      if (acc.isFloat()) {
        float s = static_cast<float>(acc.f[n * M + m]);  // f32 accumulation in k order
        for (int64_t k = 0; k < K; ++k) s += static_cast<float>(A(m, k)) * static_cast<float>(B(k, n));
        r.f[n * M + m] = roundToElem(s, rk);
      } else {
        int64_t s = acc.i[n * M + m];
        for (int64_t k = 0; k < K; ++k) s += static_cast<int64_t>(A(m, k)) * static_cast<int64_t>(B(k, n));
        r.i[n * M + m] = wrapToElem(s, rk);
      }
    }
  WorkgroupCtx* wg = ex.wg();
  if (wg && wg->stats) wg->stats->mmaFlops += 2 * M * N * K;
  ex.setTensor(op.result(), std::move(r));
}

}  // namespace

void registerXeHandlers() {
  auto& t = handlerTable();
  t["xe.base_address"] = execBaseAddress;
  t["xe.load_2d"] = execLoad2d;
  t["xe.prefetch_2d"] = execPrefetch2d;
  t["xe.dpas"] = execDpas;
}

}  // namespace xtc::interp
