// Hardware-level ops of the pvc/dg2 lowering (xe.*, docs/passes.md "xe ops") at lane level.
// Addresses are real: xe.base_address gives the host address of the kernel buffer's first byte, and
// the 2D messages read and write through it only inside a kernel buffer (an address inside the
// surface but outside every buffer is an error, not garbage).
//
// 2D block messages (reference §2.3/§2.5). A message's *response* is built as the hardware lays it out
// (vISA rule): per block, plain rows of block_w elements padded to a power-of-two element count; VNNI
// packs 2 (d16) or 4 (d8) consecutive rows of one column into a dword, rows of dwords padded the
// same way; a transposed d32 block holds one response row per surface column, block_h elements
// padded to a power of two. Each block is padded to whole *registers* of the IR (lanes x one lane
// unit: the IR's register vector has no room for more; for 32-bit units that is one 64-B GRF on
// 16 lanes). The lane unit is 32 bits for VNNI and transposed messages, else the larger of elem_bits
// (at least 16: d8 data comes as i16, §2.3) and the register type's width; unit u of the response
// goes to lane u % lanes, unit register u / lanes, and a unit wider than the register type is split
// into consecutive registers (low bytes first). So the registers are typed elements: a VNNI d16 load's register 2i and 2i+1 are rows 2i
// and 2i+1 of the lane's column. Surface elements outside width x height read 0; stores drop them.
// A message whose padded response does not fit the result's register count is an error.
//
// Also: 1-D subgroup block IO (xe.block_read/write: register i of lane l is flat element
// start + i*lanes + l of the memref's buffer, global or SLM; with elem_bits = 32 on 16-bit data,
// pairs: register 2i+h of lane l is start + 2*(i*lanes + l) + h; a global read must start 16-byte
// aligned), xe.lane_read (N consecutive elements of a row per lane, inside the row and unit-aligned),
// xe.prefetch_1d (no effect, but every
// lane's address must be inside a kernel buffer) and dpas (k x element bits = 256: 1, 2 or 4 elements
// of a row of A per lane).
#include "ir/interpret/Exec.h"

#include "ir/interpret/Numeric.h"
#include "ir/ops/XeOps.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

namespace xtc::interp {

namespace {

int64_t lanesOf(Executor& ex, const ir::Operation& op) {
  if (ex.lanes() == 0) fail(op, "internal error: interpreter: '" + op.name() + "' needs lane-level execution (kernel sg_size)");
  return ex.lanes();
}

void execBaseAddress(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const MemRefVal& m = ex.memref(op, 0);
  if (m.slm) fail(op, "internal error: interpreter: xe.base_address of an SLM memref is not implemented yet");
  Tensor t(ir::ElemKind::I64, {L});
  std::fill(t.i.begin(), t.i.end(),
            static_cast<int64_t>(reinterpret_cast<uintptr_t>(m.buf->bytes.data())) + m.offset * ir::elemBits(m.buf->elem) / 8);
  ex.setTensor(op.result(), std::move(t));
}

// Its operand: the guard that reads it holds for the hardware whether or not a backend took it as 0
// (both arms of the guard compute the same values).
void execOwordAlignBits(Executor& ex, const ir::Operation& op) { ex.setTensor(op.result(), ex.tensor(op, 0)); }

struct Surface {
  int64_t base, width, height, pitch, x, y;
};

Surface surface(Executor& ex, const ir::Operation& op) {
  return Surface{ex.scalarInt(op, 0), ex.scalarInt(op, 1), ex.scalarInt(op, 2), ex.scalarInt(op, 3), ex.scalarInt(op, 4), ex.scalarInt(op, 5)};
}

// Host address of surface element (row, col) of `eb` bytes, or null outside width x height. Inside
// the surface but outside every kernel buffer is an error.
uint8_t* surfaceElem(Executor& ex, const ir::Operation& op, const Surface& s, int64_t eb, int64_t row, int64_t col) {
  if (row < 0 || row >= s.height || col < 0 || (col + 1) * eb > s.width) return nullptr;
  uintptr_t a = static_cast<uintptr_t>(s.base + row * s.pitch + col * eb);
  if (!globalBufferAt(ex, a, static_cast<size_t>(eb)))
    fail(op, op.name() + ": element (" + std::to_string(row) + ", " + std::to_string(col) + ") of the surface (address " + hexAddress(a) +
                 ") is inside its width/height but outside every kernel buffer");
  return reinterpret_cast<uint8_t*>(a);
}

// One element slot of a message response: the elem_bits element at byte `offset` holds block
// element (row, col) (col counted from the message's x), or padding when `pad`.
struct Slot {
  int64_t offset, row, col;
  bool pad;
};

struct Message {
  int64_t eb, W, H, A;  // element bytes, block width/height, blocks
  bool vnni, transpose;
  int64_t unitBytes;     // per-lane unit of the response
  std::vector<Slot> slots;
};

int64_t pow2Ceil(int64_t v) { return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(v))); }

// The response layout of a 2D message whose registers are `regs` x `L` elements of `t`.
Message message(const ir::Operation& op, ir::ElemKind t, int64_t regs, int64_t L) {
  Message m{};
  int64_t bits = attrInt(op, "elem_bits", 0);
  m.eb = bits / 8;
  m.W = attrInt(op, "block_w", 0);
  m.H = attrInt(op, "block_h", 0);
  m.A = attrInt(op, "array_len", 1);
  m.vnni = op.boolAttr("vnni");
  m.transpose = op.boolAttr("transpose");
  int64_t tb = elemBytes(t);
  if (m.eb <= 0 || m.W <= 0 || m.H <= 0 || m.A <= 0) fail(op, "internal error: interpreter: " + op.name() + ": elem_bits, block_w, block_h and array_len must be positive");
  if ((m.vnni || m.transpose) && tb > 4) fail(op, "internal error: interpreter: " + op.name() + ": VNNI and transposed messages need registers of at most 32 bits");
  // d8 data travels in 16-bit slots (reference §2.3: "u8 ... as i16", two bytes of a row per lane),
  // so 8-bit registers take a slot's bytes in pairs, low byte first (the DPAS i8 A layout on pvc).
  m.unitBytes = (m.vnni || m.transpose) ? 4 : std::max({m.eb, tb, m.eb == 1 ? int64_t{2} : int64_t{1}});
  int64_t regBytes = m.unitBytes * L;
  if (m.transpose && m.eb != 4) fail(op, op.name() + ": transposed messages need elem_bits = 32");
  int64_t f = m.vnni ? 4 / m.eb : 1;  // rows per VNNI dword
  if (m.vnni && (m.eb >= 4 || m.H % f != 0))
    fail(op, op.name() + ": a VNNI message needs 8- or 16-bit elements and block_h a multiple of " + std::to_string(f));
  int64_t wp = pow2Ceil(m.W), hp = pow2Ceil(m.H);
  int64_t blockBytes = m.transpose ? m.W * hp * 4 : m.vnni ? m.H / f * wp * 4 : m.H * wp * m.eb;
  int64_t padded = (blockBytes + regBytes - 1) / regBytes * regBytes;
  for (int64_t b = 0; b < m.A; ++b) {
    int64_t base = b * padded, x0 = b * m.W;
    if (m.transpose) {
      for (int64_t c = 0; c < m.W; ++c)
        for (int64_t h = 0; h < hp; ++h) m.slots.push_back({base + (c * hp + h) * 4, h, x0 + c, h >= m.H});
    } else if (m.vnni) {
      for (int64_t p = 0; p < m.H / f; ++p)
        for (int64_t c = 0; c < wp; ++c)
          for (int64_t q = 0; q < f; ++q) m.slots.push_back({base + (p * wp + c) * 4 + q * m.eb, p * f + q, x0 + c, c >= m.W});
    } else {
      for (int64_t r = 0; r < m.H; ++r)
        for (int64_t c = 0; c < wp; ++c) m.slots.push_back({base + (r * wp + c) * m.eb, r, x0 + c, c >= m.W});
    }
  }
  int64_t used = (m.A - 1) * padded + blockBytes, have = regs * L * tb;
  if (regs % (m.unitBytes / tb) != 0)
    fail(op, op.name() + ": " + std::to_string(regs) + " registers per lane do not split into whole " + std::to_string(m.unitBytes) + "-byte units");
  // The last block's padding may be cut off (the value then simply ends with the data).
  if (used > have || m.A * padded < have)
    fail(op, op.name() + ": the message's response (" + std::to_string(m.A) + " block(s) of " + std::to_string(blockBytes) +
                 " bytes, rows padded to a power of two and blocks to whole " + std::to_string(regBytes) +
                 "-byte registers) does not fill the " + std::to_string(regs) + " registers per lane of the value exactly");
  return m;
}

// Byte offset in the response of register k of lane j.
int64_t registerByte(const Message& m, ir::ElemKind t, int64_t L, int64_t k, int64_t j) {
  int64_t tb = elemBytes(t), per = m.unitBytes / tb;
  return ((k / per) * L + j) * m.unitBytes + (k % per) * tb;
}

void execLoad2d(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  Surface s = surface(ex, op);
  const ir::Type& rt = op.result()->type();
  ir::ElemKind t = rt.elem();
  int64_t n = rt.shape().at(0);
  Message m = message(op, t, n, L);
  std::vector<uint8_t> resp(static_cast<size_t>(n * L * elemBytes(t)), 0);
  for (const Slot& sl : m.slots) {
    if (sl.pad) continue;  // hardware padding: zero here, never read as data by a correct lowering
    if (const uint8_t* p = surfaceElem(ex, op, s, m.eb, s.y + sl.row, s.x + sl.col)) std::memcpy(&resp[static_cast<size_t>(sl.offset)], p, static_cast<size_t>(m.eb));
  }
  Tensor r(t, {L, n});
  for (int64_t j = 0; j < L; ++j)
    for (int64_t k = 0; k < n; ++k) {
      const uint8_t* p = &resp[static_cast<size_t>(registerByte(m, t, L, k, j))];
      if (r.isFloat()) r.f[j * n + k] = loadFloat(t, p);
      else r.i[j * n + k] = loadInt(t, p);
    }
  ex.setTensor(op.result(), std::move(r));
}

void execStore2d(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  Surface s = surface(ex, op);
  const Tensor& v = ex.tensor(op, 6);
  if (v.shape.size() != 2 || v.shape[0] != L) fail(op, "internal error: interpreter: xe.store_2d: the value is not a register vector");
  if (op.boolAttr("vnni") || op.boolAttr("transpose") || attrInt(op, "array_len", 1) != 1)
    fail(op, "xe.store_2d writes one plain block (no VNNI, transpose or array)");
  ir::ElemKind t = v.elem;
  int64_t n = v.shape[1];
  Message m = message(op, t, n, L);
  std::vector<uint8_t> resp(static_cast<size_t>(n * L * elemBytes(t)), 0);
  for (int64_t j = 0; j < L; ++j)
    for (int64_t k = 0; k < n; ++k) {
      uint8_t* p = &resp[static_cast<size_t>(registerByte(m, t, L, k, j))];
      if (v.isFloat()) storeFloat(t, p, v.f[j * n + k]);
      else storeInt(t, p, v.i[j * n + k]);
    }
  for (const Slot& sl : m.slots) {
    if (sl.pad) continue;
    if (uint8_t* p = surfaceElem(ex, op, s, m.eb, s.y + sl.row, s.x + sl.col)) std::memcpy(p, &resp[static_cast<size_t>(sl.offset)], static_cast<size_t>(m.eb));
  }
}

void execPrefetch2d(Executor& ex, const ir::Operation& op) {
  lanesOf(ex, op);
  (void)surface(ex, op);  // a cache hint
}

void execPrefetch1d(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const Tensor& a = ex.tensor(op, 0);
  if (a.shape != std::vector<int64_t>{L}) fail(op, "internal error: interpreter: xe.prefetch_1d: the address is not a per-lane i64");
  // No effect on results, but a prefetch of an unmapped address can fault on the device.
  for (int64_t l = 0; l < L; ++l)
    if (!globalBufferAt(ex, static_cast<uintptr_t>(a.i[l]), 1))
      fail(op, "xe.prefetch_1d: lane " + std::to_string(l) + " prefetches address " + hexAddress(static_cast<uintptr_t>(a.i[l])) +
                   ", outside every kernel buffer");
}

// Buffer-linear index of the (subgroup-uniform) indices starting at operand `first`.
int64_t blockStart(Executor& ex, const ir::Operation& op, const MemRefVal& m, unsigned first) {
  int64_t lin = 0;
  for (size_t d = 0; d < m.shape.size(); ++d) lin += ex.scalarInt(op, first + static_cast<unsigned>(d)) * m.strides[d];
  return lin;
}

// dg2's global block reads and writes are oword block messages: the hardware ignores the low four
// address bits (it would move the wrong bytes), so a misaligned start is an error here.
void checkGlobalBlockAligned(const ir::Operation& op, const MemRefVal& m, int64_t start, const char* what) {
  if (m.slm) return;
  uintptr_t addr = reinterpret_cast<uintptr_t>(m.buf->bytes.data()) + static_cast<uintptr_t>((m.offset + start) * ir::elemBits(m.buf->elem) / 8);
  if (addr % 16 != 0)
    fail(op, op.name() + ": address " + hexAddress(addr) + " is not 16-byte aligned (a global block " + what + " needs it)");
}

void execBlockRead(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const MemRefVal& m = ex.memref(op, 0);
  int64_t start = blockStart(ex, op, m, 1);
  int64_t n = op.result()->type().shape().at(0), P = ir::blockUnit(op).value_or(1);
  checkGlobalBlockAligned(op, m, start, "read");
  Tensor r(m.buf->elem, {L, n});
  for (int64_t l = 0; l < L; ++l)
    for (int64_t i = 0; i < n; ++i) {
      int64_t lin = ir::blockElement(start, i, l, L, P);
      if (r.isFloat()) r.f[l * n + i] = memLoadF(op, ex, m, lin);
      else r.i[l * n + i] = memLoadI(op, ex, m, lin);
    }
  ex.setTensor(op.result(), std::move(r));
}

void execBlockWrite(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const Tensor& v = ex.tensor(op, 0);
  const MemRefVal& m = ex.memref(op, 1);
  if (v.shape.size() != 2 || v.shape[0] != L) fail(op, "internal error: interpreter: xe.block_write: the value is not a register vector");
  int64_t start = blockStart(ex, op, m, 2);
  int64_t n = v.shape[1], P = ir::blockUnit(op).value_or(1);
  checkGlobalBlockAligned(op, m, start, "write");
  for (int64_t l = 0; l < L; ++l)
    for (int64_t i = 0; i < n; ++i) {
      int64_t lin = ir::blockElement(start, i, l, L, P);
      if (v.isFloat()) memStoreF(op, ex, m, lin, v.f[l * n + i]);
      else memStoreI(op, ex, m, lin, v.i[l * n + i]);
    }
}

// xe.lane_read: each active lane reads N consecutive elements of its own row. The message (an
// untyped surface read on dg2) has no bounds check, so a lane whose elements leave the row (they
// would come from the next row or outside the buffer) is an error, as is an address that is not a
// multiple of the 32-bit unit (the hardware ignores the low address bits).
void execLaneRead(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const MemRefVal& m = ex.memref(op, 0);
  int64_t n = op.result()->type().shape().at(0), P = ir::blockUnit(op).value_or(1);
  int64_t unitBytes = P * ir::elemBits(m.buf->elem) / 8;
  auto index = [&](unsigned i, int64_t l) {
    const Tensor& t = ex.tensor(op, i);
    return t.shape == std::vector<int64_t>{L} ? t.i[static_cast<size_t>(l)] : ex.scalarInt(op, i);
  };
  Tensor r(m.buf->elem, {L, n});
  for (int64_t l = 0; l < L; ++l) {
    if (!ex.laneActive(l)) continue;
    int64_t row = index(1, l), col = index(2, l);
    if (row < 0 || row >= m.shape[0] || col < 0 || col + n > m.shape[1])
      fail(op, fmt::format("xe.lane_read: lane {} reads [{}, {}..{}] outside the {}x{} memref (the message has no bounds check)", l, row,
                           col, col + n - 1, m.shape[0], m.shape[1]));
    int64_t lin = row * m.strides[0] + col * m.strides[1];
    uintptr_t addr = reinterpret_cast<uintptr_t>(m.buf->bytes.data()) + static_cast<uintptr_t>((m.offset + lin) * ir::elemBits(m.buf->elem) / 8);
    if (addr % static_cast<uintptr_t>(unitBytes) != 0)
      fail(op, fmt::format("xe.lane_read: lane {} reads address {}, not a multiple of its {}-byte unit", l, hexAddress(addr), unitBytes));
    for (int64_t i = 0; i < n; ++i) {
      if (r.isFloat()) r.f[l * n + i] = memLoadF(op, ex, m, lin + i * m.strides[1]);
      else r.i[l * n + i] = memLoadI(op, ex, m, lin + i * m.strides[1]);
    }
  }
  ex.setTensor(op.result(), std::move(r));
}

void execDpas(Executor& ex, const ir::Operation& op) {
  int64_t L = lanesOf(ex, op);
  const Tensor& acc = ex.tensor(op, 0);
  const Tensor& a = ex.tensor(op, 1);
  const Tensor& b = ex.tensor(op, 2);
  int64_t M = attrInt(op, "m", 0), N = attrInt(op, "n", 0), K = attrInt(op, "k", 0);
  if (N != L) fail(op, "xe.dpas: n must equal the subgroup size");
  // A row of A is always 256 bits (systolic depth 8 x one dword) spread over the lanes: k = 16 for
  // 16-bit and k = 32 for 8-bit types, 1 (pvc bf16/f16), 2 (pvc i8, dg2 bf16/f16) or 4 (dg2 i8)
  // elements per lane (reference §4). tf32 (k = 8 on 16 lanes: half a dword per lane) is not modelled.
  int64_t aBits = ir::elemBits(a.elem);
  if (K * aBits != 256 || K % L != 0 || a.elem == ir::ElemKind::TF32)
    fail(op, "xe.dpas with k = " + std::to_string(K) + " on " + std::to_string(aBits) + "-bit elements and " + std::to_string(L) +
                 " lanes is not implemented yet");
  if (acc.shape != std::vector<int64_t>{L, M} || a.shape != std::vector<int64_t>{L, M * K / L} || b.shape != std::vector<int64_t>{L, K})
    fail(op, "internal error: interpreter: xe.dpas: operand shapes do not match m/n/k");
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
  t["xe.oword_align_bits"] = execOwordAlignBits;
  t["xe.load_2d"] = execLoad2d;
  t["xe.store_2d"] = execStore2d;
  t["xe.prefetch_2d"] = execPrefetch2d;
  t["xe.prefetch_1d"] = execPrefetch1d;
  t["xe.block_read"] = execBlockRead;
  t["xe.block_write"] = execBlockWrite;
  t["xe.dpas"] = execDpas;
  t["xe.lane_read"] = execLaneRead;
}

}  // namespace xtc::interp
