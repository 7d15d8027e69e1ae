// The `emulate-xe` pass (`xtc compile --target pvc|dg2 --emulate-xe`): replaces every xe.* hardware op
// of a lowered kernel by portable lane-level ops with the same per-lane result, so pvc/dg2 kernels run
// on any OpenCL device with subgroups (the CPU device in CI) through the ordinary lane-level backend.
// Contract (docs/passes.md, "emulate-xe"):
//   - xe.load_2d -> one masked lane.load per register, at the element the message's lane layout
//     (reference §2.3) puts there (plain: any power-of-two width whose blocks fill whole registers;
//     VNNI: one block as wide as the subgroup); elements outside the surface (row >= height, column bytes >= width)
//     read 0, as the hardware pads them. The element is addressed through the memref whose
//     xe.base_address is the message's base: at the same (row, column) when the pitch is provably
//     the memref's row pitch (lower-xe's dense surfaces), else at the memref's flat element
//     row * pitch / element bytes + column (an init_tile view's row stride); the surface's 2D rules (alignment, pitch multiple of 16 B, width at
//     least 64 B) are not checked, so emulation also runs shapes real hardware would reject, unless
//     --poison-bad-surfaces (surfaceLegal): then such a load reads, and such a store writes, a poison
//     value, so a test shows that a kernel sent one;
//   - xe.dpas -> a loop over the S lanes holding A (scf.for, not unrolled: the CPU runtime builds it
//     fast), per (k, m): A[m][k] broadcast from the lane that holds it (p = K/S elements of a row
//     per lane: lane k/p, register p*m + k%p), B[k][n] from this lane's register k; bf16/f16 are
//     converted to f32 and accumulated with lane.fma in K order (DPAS rounds its internal sums
//     differently; results agree within the usual f32 accumulation bound); s8 (i8 x i8 -> i32, k = 32,
//     pvc and dg2) is sign-extended and accumulated with i32 multiply/add, exactly (wrapping). The
//     u8 forms have no IR type (xtc's i8 is signed), so they are never produced;
//   - transposed d32 xe.load_2d (32-bit data, 16-bit pairs or 8-bit quadruples) -> one masked lane.load per register
//     at the element reference §2.3 puts there (load2dTransposed);
//   - xe.store_2d (one plain block) -> one masked lane.store per register at the element the
//     message's lane layout names (register i = row i, lane j = column j); elements outside the
//     surface are dropped, as the hardware drops them;
//   - xe.block_read / xe.block_write (1-D subgroup block IO) -> one lane.load / lane.store per
//     register at flat element start + i * S + lane of the memref (elem_bits = 32 on 16-bit data: units
//     of P = 2 elements, start + P ((i / P) S + lane) + i % P; rank 1 or 2, static or dynamic; unmasked: the
//     hardware message has no mask either, and the interpreter reports an access outside the buffer);
//   - xe.lane_read (N consecutive elements of a row per lane) -> one lane.load per register
//     (emulate-xe-except-block-io keeps it: it is an ordinary vector load of each lane's own address);
//   - xe.prefetch_1d and xe.prefetch_2d are erased (cache hints); xe.oword_align_bits is its operand
//     (the emulated and the builtins' block messages keep the guard's alignment); xe.base_address ops
//     left without uses are erased; other xe.* ops are errors (not implemented).
// The variant `emulate-xe-except-block-io` leaves xe.block_read / xe.block_write as they are: a
// device with Intel's subgroup block IO (cl_intel_subgroups, _short, _char and
// cl_intel_subgroup_local_block_io: the CPU runtime has them) then executes the backend's real block
// messages, with their address arithmetic, while DPAS and the 2D messages it lacks are emulated.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/ops/XeOps.h"
#include "ir/passes/PassManager.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace xtc::passes {

using ir::Attribute;
using ir::ElemKind;
using ir::Operation;
using ir::Type;
using ir::Value;

namespace {

struct EmulateError {};

class XeEmulator {
public:
  XeEmulator(const targets::Target& t, DiagnosticEngine& d, bool keepBlockIo, bool poison)
      : S_(t.subgroupSize), target_(t.name), diags_(d), keepBlockIo_(keepBlockIo), poison_(poison) {}
  void run(Operation* kernel);

private:
  [[noreturn]] void fail(const Operation& op, const std::string& msg) {
    diags_.error(op.loc(), "emulate-xe: " + msg);
    throw EmulateError{};
  }
  Value* c(int64_t v) { return b_.constantIndex(v); }
  Value* idx(Value* i32) { return b_.create("arith.convert", {i32}, {Type::index()})->result(); }
  Value* bin(const char* op, Value* a, Value* x, Type t = Type::index()) { return b_.create(op, {a, x}, {t})->result(); }
  Value* ult(Value* a, Value* x) {
    return b_.create("arith.cmpi", {a, x}, {Type::scalar(ElemKind::I1)}, {{"predicate", Attribute::enumValue("cmpi", "ult")}})
        ->result();
  }
  // The memref a 2D message addresses (its base must be an xe.base_address of it).
  Value* messageMemRef(Operation* op) {
    Operation* ba = op->operand(0)->definingOp();
    if (!ba || !ba->is("xe.base_address")) fail(*op, "the message base is not an xe.base_address of a memref (a raw i64 address is not emulated yet)");
    return ba->operand(0);
  }
  // A message's surface (operands 1, 2: width in bytes, height in rows) as index values.
  struct Surface {
    Value* width;
    Value* height;
  };
  Surface surface(Operation* op) { return {idx(op->operand(1)), idx(op->operand(2))}; }
  // Whether element (row, col) of `elemBytes` bytes lies inside the surface. Per element, so a width
  // that is not a whole number of dwords (illegal for the hardware, reference §2.5) never reads or
  // writes past the row in emulation.
  Value* inSurface(const Surface& s, Value* row, Value* col, int64_t elemBytes) {
    Value* inCols = ult(bin("arith.muli", col, c(elemBytes)), s.width);
    return bin("arith.andi", ult(row, s.height), inCols, Type::scalar(ElemKind::I1));
  }
  // How a message's surface elements map to its memref: pitchElems null when the message's pitch
  // (operand 3, bytes) is provably the memref's row pitch (memref.dim 1 x element bytes, as lower-xe
  // builds a dense surface, or that constant), so surface (row, col) is memref (row, col); else the
  // pitch in elements and the memref's row width (at least 1). Why: a view with its own row stride
  // (init_tile ..., shape = [..], strides = [s, 1]) is a surface of pitch s x element bytes over a
  // memref whose rows may have another width; the hardware addresses base + row * pitch + col bytes.
  struct Addressing {
    Value* mem;
    Value* pitchElems = nullptr;
    Value* width = nullptr;
  };
  Addressing addressing(Operation* op, Value* mem, int64_t elemBytes) {
    Addressing a{mem};
    if (pitchIsRowPitch(op->operand(3), mem, elemBytes)) return a;
    a.pitchElems = bin("arith.divui", idx(op->operand(3)), c(elemBytes));
    Value* w = b_.create("memref.dim", {mem}, {Type::index()}, {{"index", Attribute::integer(1)}})->result();
    a.width = bin("arith.maxsi", w, c(1));
    return a;
  }
  static bool pitchIsRowPitch(Value* pitch, Value* mem, int64_t elemBytes) {
    auto constOf = [](Value* v) -> std::optional<int64_t> {
      const Operation* o = v->definingOp();
      const Attribute* a = o && o->is("arith.constant") ? o->attr("value") : nullptr;
      if (!a || !a->isa(ir::AttrKind::Int)) return std::nullopt;
      return a->getInt();
    };
    int64_t n = mem->type().rank() == 2 ? mem->type().shape()[1] : ir::kDynamic;
    auto isWidth = [&](Value* v) {
      const Operation* o = v->definingOp();
      if (o && o->is("memref.dim") && o->operand(0) == mem && o->intAttr("index", -1) == 1) return true;
      return n != ir::kDynamic && constOf(v) == n;
    };
    if (n != ir::kDynamic && constOf(pitch) == n * elemBytes) return true;
    Operation* o = pitch->definingOp();
    if (o && o->is("arith.convert")) {
      pitch = o->operand(0);
      o = pitch->definingOp();
    }
    if (elemBytes == 1 && isWidth(pitch)) return true;
    if (!o || !o->is("arith.muli")) return false;
    return (isWidth(o->operand(0)) && constOf(o->operand(1)) == elemBytes) ||
           (isWidth(o->operand(1)) && constOf(o->operand(0)) == elemBytes);
  }
  // The memref (row, col) of surface element (row, col).
  std::pair<Value*, Value*> at(const Addressing& a, Value* row, Value* col) {
    if (!a.pitchElems) return {row, col};
    Value* flat = bin("arith.addi", bin("arith.muli", row, a.pitchElems), col);
    return {bin("arith.divui", flat, a.width), bin("arith.remui", flat, a.width)};
  }
  // A masked lane.load of surface element (row, col): 0 outside the surface, as the hardware pads.
  Value* maskedLoad(const Surface& s, const Addressing& a, Value* row, Value* col, int64_t elemBytes) {
    ElemKind k = a.mem->type().elem();
    Attribute pad = ir::isFloatElem(k) ? Attribute::floating(0.0, k) : Attribute::integer(0, k);
    Value* in = inSurface(s, row, col, elemBytes);
    auto [r, cl] = at(a, row, col);
    return b_.create("lane.load", {a.mem, r, cl, in}, {Type::scalar(k)}, {{"padding", pad}})->result();
  }
  // --poison-bad-surfaces: whether the 2D message `op` (data of `elemBytes` bytes) keeps the surface
  // rules of reference §2.5: base 64-byte aligned; width 64 .. 2^24 bytes, a multiple of 4; height
  // 1 .. 2^24 rows; pitch >= width, a multiple of 16 bytes; x (in elements) a multiple of 4 bytes
  // for 8- and 16-bit data. Null without the option. The operands are i32 (base i64), widened signed,
  // so a "negative" one fails the unsigned range compares.
  Value* surfaceLegal(Operation* op, int64_t elemBytes) {
    if (!poison_) return nullptr;
    Type i1 = Type::scalar(ElemKind::I1);
    auto ule = [&](Value* a, Value* x) {
      return b_.create("arith.cmpi", {a, x}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "ule")}})->result();
    };
    auto zeroBits = [&](Value* v, int64_t mask) {
      return b_.create("arith.cmpi", {bin("arith.andi", v, c(mask)), c(0)}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "eq")}})
          ->result();
    };
    auto both = [&](Value* a, Value* x) { return bin("arith.andi", a, x, i1); };
    Value* base = b_.create("arith.convert", {op->operand(0)}, {Type::index()})->result();
    Value *w = idx(op->operand(1)), *h = idx(op->operand(2)), *p = idx(op->operand(3));
    Value* ok = zeroBits(base, 63);
    ok = both(ok, ule(bin("arith.subi", w, c(64)), c((int64_t(1) << 24) - 64)));
    ok = both(ok, zeroBits(w, 3));
    ok = both(ok, ule(bin("arith.subi", h, c(1)), c((int64_t(1) << 24) - 1)));
    ok = both(ok, both(zeroBits(p, 15), ule(w, p)));
    if (elemBytes < 4) ok = both(ok, zeroBits(bin("arith.muli", idx(op->operand(4)), c(elemBytes)), 3));
    return ok;
  }
  // `v` (a register of element kind k), or the poison value where `ok` is false: a float far from any
  // test's data (a GEMM over it overflows), a byte pattern for integers.
  Value* poisoned(Value* ok, Value* v) {
    if (!ok) return v;
    ElemKind k = v->type().elem();
    Value* bad = ir::isFloatElem(k) ? b_.constantFloat(k == ElemKind::F16 ? 60000.0 : 1e30, k)
                                    : b_.constantInt(ir::elemBits(k) == 8 ? 0x5A : ir::elemBits(k) == 16 ? 0x5A5A : 0x5A5A5A5A, k);
    return b_.create("arith.select", {ok, v, bad}, {v->type()})->result();
  }
  Value* extract(Value* vec, int64_t i) {
    return b_.create("vector.extract", {vec}, {Type::scalar(vec->type().elem())}, {{"index", Attribute::integer(i)}})->result();
  }
  void load2d(Operation* op);
  void load2dTransposed(Operation* op);
  void store2d(Operation* op);
  void blockIo(Operation* op);
  void laneRead(Operation* op);
  void dpas(Operation* op);

  int64_t S_;
  std::string target_;
  std::string kernelTarget_;  // the kernel's own target attribute ("" if none), for the advice of a diagnostic
  DiagnosticEngine& diags_;
  bool keepBlockIo_;  // emulate-xe-except-block-io: the 1-D block messages stay xe.*
  bool poison_;       // PassContext::poisonBadSurfaces
  ir::Builder b_;
  Value* lane_ = nullptr;
};

void XeEmulator::load2d(Operation* op) {
  Value* mem = messageMemRef(op);
  const Type& mt = mem->type();
  const Type& rt = op->result()->type();
  int64_t bits = op->intAttr("elem_bits", 0), W = op->intAttr("block_w", 0), H = op->intAttr("block_h", 0),
          A = op->intAttr("array_len", 1);
  bool vnni = op->boolAttr("vnni");
  if (op->boolAttr("transpose")) return load2dTransposed(op);
  if (mt.rank() != 2 || ir::elemBits(mt.elem()) != bits || rt.elem() != mt.elem())
    fail(*op, fmt::format("a d{} message on {} is not emulated yet", bits, mt.str()));
  if (vnni && (W != S_ || A != 1))
    fail(*op, fmt::format("VNNI 2D loads {} wide x {} blocks on {} lanes are not emulated yet", W, A, S_));
  // Plain: the response is row-major per block, blocks one after another (reference §2.3), and
  // arrives in slots of max(16, bits) bits (d8 as i16: two bytes of a row per lane); register i of
  // lane j is its data element e = (S (i / q) + j) q + i % q (q elements per slot). Only blocks that
  // fill whole registers (no padding) are emulated.
  const int64_t q = !vnni && bits == 8 ? 2 : 1;  // VNNI packs whole dwords per lane instead
  if (!vnni && ((W & (W - 1)) != 0 || (W * H) % (S_ * q) != 0))
    fail(*op, fmt::format("2D loads of {}x{} blocks (padded to whole registers) on {} lanes are not emulated yet", W, H, S_));
  b_.setInsertionPoint(op);
  b_.setLoc(op->loc());
  Surface surf = surface(op);
  Addressing addr = addressing(op, mem, bits / 8);
  Value* x = idx(op->operand(4));
  Value* y = idx(op->operand(5));
  Value* laneQ = q == 1 ? lane_ : bin("arith.muli", lane_, c(q));
  // Rows at least a register wide (W a multiple of S q): the lanes of a register stay in one row, so
  // (row, column) = (y + a constant, x + j q + a constant), no division by the lane.
  const bool wideRows = !vnni && W % (S_ * q) == 0;
  Value* col0 = vnni || wideRows ? bin("arith.addi", x, laneQ) : nullptr;
  Value* legal = surfaceLegal(op, bits / 8);
  std::vector<Value*> regs;
  for (int64_t i = 0; i < rt.shape()[0]; ++i) {
    Value *row, *col;
    if (vnni) {  // one block: register i = row i (a dword's 16-bit halves are consecutive rows, §2.3)
      row = bin("arith.addi", y, c(i));
      col = col0;
    } else if (wideRows) {
      int64_t e0 = i / q * S_ * q + i % q, within = e0 % (W * H), dc = e0 / (W * H) * W + within % W;
      row = bin("arith.addi", y, c(within / W));
      col = dc == 0 ? col0 : bin("arith.addi", col0, c(dc));
    } else {
      Value* e = bin("arith.addi", laneQ, c(i / q * S_ * q + i % q));
      Value* within = bin("arith.remui", e, c(W * H));
      row = bin("arith.addi", y, bin("arith.divui", within, c(W)));
      col = bin("arith.addi", bin("arith.addi", x, bin("arith.muli", bin("arith.divui", e, c(W * H)), c(W))),
                bin("arith.remui", within, c(W)));
    }
    regs.push_back(poisoned(legal, maskedLoad(surf, addr, row, col, bits / 8)));
  }
  Value* v = b_.create("vector.from_elements", regs, {rt})->result();
  op->result()->replaceAllUsesWith(v);
  op->erase();
}

// Transposed d32 (reference §2.3; layout::blockLoadLayout): lane j, dword e is surface row
// y + j + S * (e mod H/S), dword column x + e / (H/S); a dword holds 32 / bits(T) consecutive
// elements of that row, the lower-addressed one in the low bits (register k = dword k / q, part
// k % q). Outside the surface (row >= height, element bytes beyond width) it reads 0.
void XeEmulator::load2dTransposed(Operation* op) {
  Value* mem = messageMemRef(op);
  const Type& mt = mem->type();
  const Type& rt = op->result()->type();
  int64_t W = op->intAttr("block_w", 0), H = op->intAttr("block_h", 0), A = op->intAttr("array_len", 1);
  int64_t tb = ir::elemBits(rt.elem());
  if (op->intAttr("elem_bits", 0) != 32 || mt.rank() != 2 || rt.elem() != mt.elem() || (tb != 32 && tb != 16 && tb != 8) || A != 1 ||
      H % S_ != 0 || rt.shape()[0] != W * (H / S_) * (32 / tb))
    fail(*op, fmt::format("a transposed d32 {}x{}x{} message into {} on {} is not emulated yet", W, H, A, rt.str(), mt.str()));
  int64_t q = 32 / tb, groups = H / S_;
  b_.setInsertionPoint(op);
  b_.setLoc(op->loc());
  Surface surf = surface(op);
  Addressing addr = addressing(op, mem, tb / 8);
  Value* x = idx(op->operand(4));
  Value* row0 = bin("arith.addi", idx(op->operand(5)), lane_);
  Value* legal = surfaceLegal(op, 4);
  std::vector<Value*> regs;
  for (int64_t k = 0; k < rt.shape()[0]; ++k) {
    int64_t e = k / q;
    Value* row = bin("arith.addi", row0, c(S_ * (e % groups)));
    Value* dword = bin("arith.addi", x, c(e / groups));
    Value* col = bin("arith.addi", bin("arith.muli", dword, c(q)), c(k % q));
    regs.push_back(poisoned(legal, maskedLoad(surf, addr, row, col, 4 / q)));
  }
  Value* v = b_.create("vector.from_elements", regs, {rt})->result();
  op->result()->replaceAllUsesWith(v);
  op->erase();
}

void XeEmulator::store2d(Operation* op) {
  Value* mem = messageMemRef(op);
  const Type& mt = mem->type();
  Value* val = op->operand(6);
  const Type& vt = val->type();
  int64_t bits = op->intAttr("elem_bits", 0), W = op->intAttr("block_w", 0), H = op->intAttr("block_h", 0);
  if (mt.rank() != 2 || ir::elemBits(mt.elem()) != bits || vt.elem() != mt.elem())
    fail(*op, fmt::format("a d{} store on {} is not emulated yet", bits, mt.str()));
  if (W != S_ || vt.shape()[0] != H) fail(*op, fmt::format("2D stores {} wide on {} lanes are not emulated yet", W, S_));
  b_.setInsertionPoint(op);
  b_.setLoc(op->loc());
  Surface surf = surface(op);
  Addressing addr = addressing(op, mem, bits / 8);
  Value* col = bin("arith.addi", idx(op->operand(4)), lane_);
  Value* y = idx(op->operand(5));
  Value* legal = surfaceLegal(op, bits / 8);
  for (int64_t i = 0; i < H; ++i) {
    Value* row = bin("arith.addi", y, c(i));
    Value* in = inSurface(surf, row, col, bits / 8);
    auto [r, cl] = at(addr, row, col);
    b_.create("lane.store", {poisoned(legal, extract(val, i)), mem, r, cl, in}, {});
  }
  op->erase();
}

// A loop over the S lanes that hold A's K elements (K / S = p of them per lane and row): iteration l
// adds the products of k = l*p .. l*p + p-1 for every row m. Unrolled, a pvc bf16 GEMM's K step was
// ~16x the code and took the CPU runtime ~70 s to build (dg2 gemm_bf16); the loop keeps the same
// per-(m, n) fma order (k ascending), so its results are bit-identical to the unrolled form. B's
// registers are rotated by p each iteration (loop-carried), so every index stays static.
void XeEmulator::dpas(Operation* op) {
  int64_t M = op->intAttr("m", 0), K = op->intAttr("k", 0);
  Value* bIn = op->operand(2);
  const Type& at = op->operand(1)->type();
  const Type& accT = op->operand(0)->type();
  const Type& bT = bIn->type();
  bool isFloat = accT.elem() == ElemKind::F32 && (at.elem() == ElemKind::BF16 || at.elem() == ElemKind::F16) && K == 16;
  bool isInt = accT.elem() == ElemKind::I32 && at.elem() == ElemKind::I8 && K == 32;
  if (!isFloat && !isInt) fail(*op, "only bf16/f16 DPAS into f32 and s8 DPAS into i32 are emulated yet");
  // A DPAS runs one lane per column of C (n = the subgroup size), so one made for another target's
  // subgroups (e.g. pvc's n = 16 IR compiled for dg2) is the input's mistake, not a register count bug.
  if (int64_t n = op->intAttr("n", 0); n != S_)
    fail(*op, fmt::format("this DPAS has n = {} (one lane per column of C), but target '{}' runs {}-lane subgroups; compile the IR "
                          "for the target it was lowered for{}",
                          n, target_, S_, kernelTarget_.empty() ? "" : " (--target " + kernelTarget_ + ")"));
  // Elements of A per lane and row (a row is 256 bits over the lanes, reference §4): bf16/f16: 1 on
  // pvc (lane k), 2 on dg2 (lane k / 2); s8: 2 on pvc (lane k / 2), 4 on dg2 (lane k / 4).
  int64_t p = at.shape()[0] / M;
  if (p * S_ != K || accT.shape()[0] != M || bT.shape()[0] != K)
    fail(*op, "internal error: the DPAS operands' register counts do not match the subgroup size");
  b_.setInsertionPoint(op);
  b_.setLoc(op->loc());
  // Floats: products and sums in f32 (fma). s8: sign-extended to i32, products exact, sums in i32
  // wrapping (the interpreter's rule); integer addition is associative, so the result is exact.
  Type accS = Type::scalar(accT.elem()), in = Type::scalar(at.elem());
  // A's registers (loop-invariant); s8 is widened once, before the broadcasts (i32 is what every
  // subgroup broadcast takes; the widening commutes with the broadcast).
  std::vector<Value*> a;
  for (int64_t i = 0; i < at.shape()[0]; ++i) {
    Value* e = extract(op->operand(1), i);
    a.push_back(isInt ? b_.create("arith.convert", {e}, {accS})->result() : e);
  }
  Operation* loop = b_.create("scf.for", {c(0), c(S_), c(1), op->operand(0), bIn}, {accT, bT}, {}, 1);
  ir::Block& body = loop->region(0).addBlock();
  Value* l = body.addArgument(Type::index());
  Value* accV = body.addArgument(accT);
  Value* bV = body.addArgument(bT);
  b_.setInsertionPointToEnd(&body);
  std::vector<Value*> acc, bregs;
  for (int64_t m = 0; m < M; ++m) acc.push_back(extract(accV, m));
  for (int64_t k = 0; k < K; ++k) bregs.push_back(extract(bV, k));
  for (int64_t j = 0; j < p; ++j) {  // k = l*p + j: this lane's B register j (after the rotations)
    Value* bk = b_.create("arith.convert", {bregs[static_cast<size_t>(j)]}, {accS})->result();
    for (int64_t m = 0; m < M; ++m) {
      Value* amk = b_.create("lane.broadcast", {a[static_cast<size_t>(m * p + j)], l}, {isInt ? accS : in})->result();
      Value* af = isInt ? amk : b_.create("arith.convert", {amk}, {accS})->result();
      Value*& sum = acc[static_cast<size_t>(m)];
      sum = isFloat ? b_.create("lane.fma", {af, bk, sum}, {accS})->result()
                    : bin("arith.addi", sum, bin("arith.muli", af, bk, accS), accS);
    }
  }
  std::rotate(bregs.begin(), bregs.begin() + p, bregs.end());
  Value* accNext = b_.create("vector.from_elements", acc, {accT})->result();
  Value* bNext = b_.create("vector.from_elements", bregs, {bT})->result();
  b_.create("scf.yield", {accNext, bNext}, {});
  op->result()->replaceAllUsesWith(loop->result(0));
  op->erase();
}

void XeEmulator::blockIo(Operation* op) {
  bool write = op->is("xe.block_write");
  Value* mem = op->operand(write ? 1 : 0);
  const Type& mt = mem->type();
  if (mt.rank() > 2) fail(*op, fmt::format("'{}' on {} is not emulated yet", op->name(), mt.str()));
  b_.setInsertionPoint(op);
  b_.setLoc(op->loc());
  unsigned first = write ? 2 : 1;
  Value* start = op->operand(first);
  Value* cols = nullptr;  // rank 2: the row length (static, or the memref's dim 1)
  if (mt.rank() == 2) {
    cols = mt.shape()[1] != ir::kDynamic ? c(mt.shape()[1])
                                         : b_.create("memref.dim", {mem}, {Type::index()}, {{"index", Attribute::integer(1)}})->result();
    start = bin("arith.addi", bin("arith.muli", start, cols), op->operand(first + 1));
  }
  int64_t n = (write ? op->operand(0) : op->result())->type().shape()[0], P = ir::blockUnit(*op).value_or(1);
  // Register i of lane l: start + P * ((i / P) * S + l) + i % P (ir/ops/XeOps.h, blockElement).
  Value* laneStart = bin("arith.addi", start, P == 1 ? lane_ : bin("arith.muli", lane_, c(P)));
  ElemKind k = mt.elem();
  std::vector<Value*> regs;
  for (int64_t i = 0; i < n; ++i) {
    Value* e = bin("arith.addi", laneStart, c(ir::blockElement(0, i, 0, S_, P)));
    std::vector<Value*> at{e};
    if (mt.rank() == 2) at = {bin("arith.divui", e, cols), bin("arith.remui", e, cols)};
    if (write) {
      std::vector<Value*> operands{extract(op->operand(0), i), mem};
      operands.insert(operands.end(), at.begin(), at.end());
      b_.create("lane.store", operands, {});
    } else {
      std::vector<Value*> operands{mem};
      operands.insert(operands.end(), at.begin(), at.end());
      regs.push_back(b_.create("lane.load", operands, {Type::scalar(k)})->result());
    }
  }
  if (!write) op->result()->replaceAllUsesWith(b_.create("vector.from_elements", regs, {op->result()->type()})->result());
  op->erase();
}

// xe.lane_read: register i of the lane = mem[row, col + i], one lane.load each (never out of bounds
// where lower-xe emits the op: behind the guard of its tile).
void XeEmulator::laneRead(Operation* op) {
  b_.setInsertionPoint(op);
  b_.setLoc(op->loc());
  std::vector<Value*> regs;
  for (int64_t i = 0; i < op->result()->type().shape()[0]; ++i) {
    Value* col = i == 0 ? op->operand(2) : bin("arith.addi", op->operand(2), c(i));
    regs.push_back(b_.create("lane.load", {op->operand(0), op->operand(1), col}, {Type::scalar(op->result()->type().elem())})->result());
  }
  op->result()->replaceAllUsesWith(b_.create("vector.from_elements", regs, {op->result()->type()})->result());
  op->erase();
}

void XeEmulator::run(Operation* kernel) {
  std::vector<Operation*> xe;
  ir::kernelBody(kernel).parentOp()->walk([&](Operation* o) {
    if (o->dialect() == "xe") xe.push_back(o);
  });
  if (xe.empty()) return;
  if (const ir::Attribute* t = kernel->attr("target"); t && t->isa(ir::AttrKind::String)) kernelTarget_ = t->getString();
  ir::Block& body = ir::kernelBody(kernel);
  b_.setInsertionPointToStart(&body);
  b_.setLoc(kernel->loc());
  lane_ = b_.create("gpu.lane_id", {}, {Type::index()})->result();
  // The rewrites erase the ops they replace: remember the base addresses apart (erased last, if
  // nothing uses them any more) and never look at a rewritten op again.
  std::vector<Operation*> bases;
  for (Operation* o : xe) {
    if (o->is("xe.base_address")) bases.push_back(o);
    else if (o->is("xe.oword_align_bits")) {  // the builtins' block messages need the alignment
      o->result()->replaceAllUsesWith(o->operand(0));
      o->erase();
    }
    else if (o->is("xe.load_2d")) load2d(o);
    else if (o->is("xe.dpas")) dpas(o);
    else if (o->is("xe.store_2d")) store2d(o);
    else if (o->is("xe.block_read") || o->is("xe.block_write")) {
      if (!keepBlockIo_) blockIo(o);
    } else if (o->is("xe.lane_read")) {
      if (!keepBlockIo_) laneRead(o);  // a plain vector load per lane: any OpenCL device runs it as compiled
    } else if (o->is("xe.prefetch_1d") || o->is("xe.prefetch_2d")) o->erase();  // cache hints: no effect on results
    // Every op of the xe dialect (ir/ops/XeOps.cpp) has a case above.
    else fail(*o, fmt::format("internal error: '{}' has no emulation", o->name()));
  }
  for (Operation* o : bases)
    if (!o->result()->hasUses()) o->erase();
}

class EmulateXePass : public Pass {
public:
  explicit EmulateXePass(bool keepBlockIo) : keepBlockIo_(keepBlockIo) {}
  std::string name() const override { return keepBlockIo_ ? "emulate-xe-except-block-io" : "emulate-xe"; }
  std::string description() const override {
    return keepBlockIo_ ? "pvc/dg2: as emulate-xe, but 1-D subgroup block reads/writes stay (for a device with Intel's subgroup block IO)"
                        : "pvc/dg2: replace xe.* hardware ops by portable lane-level ops (runs on any OpenCL device)";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target) {
      ctx.diags.error(module->loc(), "internal error: emulate-xe: needs a target (the driver always gives one)");
      return false;
    }
    ir::registerXeOps();
    bool ok = true;
    for (Operation* k : ir::moduleKernels(module)) {
      try {
        XeEmulator(*ctx.target, ctx.diags, keepBlockIo_, ctx.poisonBadSurfaces).run(k);
      } catch (const EmulateError&) {
        ok = false;
      }
    }
    return ok;
  }

private:
  bool keepBlockIo_;
};

}  // namespace

void registerEmulateXePass() {
  registerPass("emulate-xe", [] { return std::make_unique<EmulateXePass>(false); });
  registerPass("emulate-xe-except-block-io", [] { return std::make_unique<EmulateXePass>(true); });
}

}  // namespace xtc::passes
