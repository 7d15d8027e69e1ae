// Registration and verifiers of the `xe.*` ops (see ir/ops/XeOps.h and docs/passes.md, "xe ops"),
// and the `linear<...>` layout attribute. The verifiers check what the hardware message or DPAS
// instruction needs to be well formed (types, register counts per lane, block geometry against the
// spec rules of INTEL_XE_REFERENCE.md §2.5); which shapes a target can really emit is the target
// table's business (ir/targets) and the backend's (backends/spirv/XeBuiltins.cpp).
#include "ir/ops/XeOps.h"

#include "ir/OpRegistry.h"
#include "ir/ops/LaneOps.h"
#include "ir/ops/OpHelpers.h"

#include <fmt/format.h>

#include <mutex>

namespace xtc::ir {

bool LinearLayoutValue::equals(const LayoutValue& other) const {
  auto* o = dynamic_cast<const LinearLayoutValue*>(&other);
  return o && o->layout_ == layout_;
}

std::shared_ptr<const Attribute> linearLayoutAttr(layout::LinearLayout l) {
  return std::make_shared<const Attribute>(Attribute::layout(std::make_shared<const LinearLayoutValue>(std::move(l))));
}

const layout::LinearLayout* vectorLinearLayout(const Type& t) {
  if (!t.isVector() || !t.vectorLayout() || !t.vectorLayout()->isa(AttrKind::Layout)) return nullptr;
  auto* v = dynamic_cast<const LinearLayoutValue*>(t.vectorLayout()->getLayout().get());
  return v ? &v->layout() : nullptr;
}

std::optional<int64_t> blockUnit(const Operation& op) {
  bool write = op.is("xe.block_write");
  if (op.numOperands() <= (write ? 1u : 0u)) return std::nullopt;
  int64_t bits = elemBits(op.operand(write ? 1 : 0)->type().elem());
  int64_t unit = op.intAttr("elem_bits", bits);
  if (unit == bits) return 1;
  if (unit == 32 && (bits == 16 || bits == 8)) return 32 / bits;
  return std::nullopt;
}

namespace {

using ops::q;

bool isRegVector(const Type& t) { return t.isVector() && t.rank() == 1 && t.shape()[0] > 0; }
const Type kI32 = Type::scalar(ElemKind::I32);
const Type kI64 = Type::scalar(ElemKind::I64);

std::string intAttrIn(const Operation& op, const char* name, std::initializer_list<int64_t> allowed, int64_t* out) {
  std::string err;
  const Attribute* a = ops::getAttr(op, name, AttrKind::Int, true, &err);
  if (!a) return err;
  for (int64_t v : allowed)
    if (a->getInt() == v) {
      *out = v;
      return "";
    }
  return fmt::format("attribute '{}' = {} is not one of the allowed values", name, a->getInt());
}

std::string positiveIntAttr(const Operation& op, const char* name, int64_t* out) {
  std::string err;
  const Attribute* a = ops::getAttr(op, name, AttrKind::Int, true, &err);
  if (!a) return err;
  if (a->getInt() <= 0) return fmt::format("attribute '{}' must be positive", name);
  *out = a->getInt();
  return "";
}

// xe.base_address %mem -> i64
std::string verifyBaseAddress(const Operation& op) {
  XTC_CHECK(ops::numOperands(op, 1));
  XTC_CHECK(ops::numResults(op, 1));
  XTC_REQUIRE(op.operand(0)->type().isMemRef(), "expects a memref, got " + q(op.operand(0)->type()));
  XTC_REQUIRE(op.operand(0)->type().memSpace() == MemSpace::Global, "expects a global memref");
  XTC_REQUIRE(op.result()->type() == kI64, "the result must be i64");
  return "";
}

// xe.oword_align_bits %bits -> index: %bits itself (the address bits an oword block message needs
// zero, lower-xe's dg2 guard). A backend whose guarded block path moves by element-aligned messages
// only may take it as 0 (LLVMEmitter.cpp, Dg2VisaBlock.h).
std::string verifyOwordAlignBits(const Operation& op) {
  XTC_CHECK(ops::numOperands(op, 1));
  XTC_CHECK(ops::numResults(op, 1));
  XTC_REQUIRE(op.operand(0)->type() == Type::index() && op.result()->type() == Type::index(), "the operand and the result must be index");
  return "";
}

// The 2D block message operands: base (i64), width, height, pitch (i32, bytes/rows/bytes, not minus
// one), x, y (i32) and its attributes. `nData` receives the data elements of one message (in units of
// `dataBits`-bit elements).
std::string verifyBlock2d(const Operation& op, unsigned firstOperand, unsigned dataBits, int64_t* nData) {
  XTC_REQUIRE(op.numOperands() >= firstOperand + 6, "expects base, width, height, pitch, x and y operands");
  XTC_REQUIRE(op.operand(firstOperand)->type() == kI64, "the base address must be i64");
  for (unsigned i = 1; i < 6; ++i)
    XTC_REQUIRE(op.operand(firstOperand + i)->type() == kI32,
                fmt::format("operand {} (width, height, pitch, x, y) must be i32", firstOperand + i));
  int64_t bits = 0, w = 0, h = 0, n = 0;
  XTC_CHECK(intAttrIn(op, "elem_bits", {8, 16, 32}, &bits));
  XTC_CHECK(positiveIntAttr(op, "block_w", &w));
  XTC_CHECK(positiveIntAttr(op, "block_h", &h));
  XTC_CHECK(positiveIntAttr(op, "array_len", &n));
  bool vnni = op.boolAttr("vnni"), tr = op.boolAttr("transpose");
  XTC_REQUIRE(!(vnni && tr), "a 2D block message cannot be both VNNI and transposed");
  XTC_REQUIRE(!tr || bits == 32, "transposed 2D block messages need elem_bits = 32");
  XTC_REQUIRE(!vnni || bits < 32, "VNNI 2D block messages need 8- or 16-bit elements");
  // §2.5: a row is at most 64 bytes, at most 32 rows, at most 4 blocks.
  XTC_REQUIRE(w * bits <= 64 * 8, fmt::format("block_w {} x {} bits exceeds a 64-byte row", w, bits));
  XTC_REQUIRE(h <= 32, fmt::format("block_h {} exceeds 32 rows", h));
  XTC_REQUIRE(n <= 4, fmt::format("array_len {} exceeds 4", n));
  if (const Attribute* c = op.attr("cache")) XTC_REQUIRE(c->isa(AttrKind::Enum) && c->enumName() == "cache", "'cache' must be cache<...>");
  int64_t totalBits = w * h * n * bits;
  XTC_REQUIRE(totalBits % dataBits == 0, "the message size is not a whole number of data elements");
  *nData = totalBits / dataBits;
  return "";
}

// The subgroup size implied by a per-lane vector of `perLane` elements for `total` elements.
std::string laneCount(int64_t total, int64_t perLane, const std::string& what) {
  XTC_REQUIRE(perLane > 0 && total % perLane == 0 && (total / perLane == 8 || total / perLane == 16),
              fmt::format("{} holds {} elements per lane for a {}-element message: not a subgroup of 8 or 16 lanes",
                          what, perLane, total));
  return "";
}

// xe.load_2d %base, %w, %h, %p, %x, %y {...} -> vector<N x T>
std::string verifyLoad2d(const Operation& op) {
  XTC_CHECK(ops::numOperands(op, 6));
  XTC_CHECK(ops::numResults(op, 1));
  const Type& r = op.result()->type();
  XTC_REQUIRE(isRegVector(r), "the result must be a 1-D register vector, got " + q(r));
  int64_t n = 0;
  XTC_CHECK(verifyBlock2d(op, 0, elemBits(r.elem()), &n));
  return laneCount(n, r.shape()[0], "the result");
}

// xe.store_2d %base, %w, %h, %p, %x, %y, %value {...}
std::string verifyStore2d(const Operation& op) {
  XTC_CHECK(ops::numOperands(op, 7));
  XTC_CHECK(ops::numResults(op, 0));
  const Type& v = op.operand(6)->type();
  XTC_REQUIRE(isRegVector(v), "the stored value must be a 1-D register vector, got " + q(v));
  int64_t n = 0;
  XTC_CHECK(verifyBlock2d(op, 0, elemBits(v.elem()), &n));
  XTC_REQUIRE(op.intAttr("array_len", 1) == 1, "2D block stores write one block (array_len = 1)");
  XTC_REQUIRE(!op.boolAttr("vnni") && !op.boolAttr("transpose"), "2D block stores are neither VNNI nor transposed");
  return laneCount(n, v.shape()[0], "the value");
}

// xe.prefetch_2d %base, %w, %h, %p, %x, %y {...}
std::string verifyPrefetch2d(const Operation& op) {
  XTC_CHECK(ops::numOperands(op, 6));
  XTC_CHECK(ops::numResults(op, 0));
  int64_t n = 0;
  return verifyBlock2d(op, 0, static_cast<unsigned>(op.intAttr("elem_bits", 16)), &n);
}

std::string typeAttr(const Operation& op, const char* name, ElemKind expect) {
  std::string err;
  const Attribute* a = ops::getAttr(op, name, AttrKind::String, true, &err);
  if (!a) return err;
  XTC_REQUIRE(a->getString() == elemName(expect), fmt::format("attribute '{}' = \"{}\" does not match the operand element type {}",
                                                          name, a->getString(), elemName(expect)));
  return "";
}

// xe.prefetch_1d %addr: i64 {cache = 4 | 2}: per lane, prefetch the dword at byte address addr.
std::string verifyPrefetch1d(const Operation& op) {
  XTC_CHECK(ops::numOperands(op, 1));
  XTC_CHECK(ops::numResults(op, 0));
  XTC_REQUIRE(op.operand(0)->type() == kI64, "the address must be i64");
  int64_t cache = 0;
  return intAttrIn(op, "cache", {2, 4}, &cache);
}

// xe.dpas %acc, %a, %b {a_type, b_type, acc_type, m, n, k} -> type(acc)
// Per lane (S = n lanes): acc/result m*n/S, a m*k/S, b k*n/S elements.
std::string verifyDpas(const Operation& op) {
  XTC_CHECK(ops::numOperands(op, 3));
  XTC_CHECK(ops::numResults(op, 1));
  const Type& acc = op.operand(0)->type();
  const Type& a = op.operand(1)->type();
  const Type& b = op.operand(2)->type();
  for (const Type* t : {&acc, &a, &b}) XTC_REQUIRE(isRegVector(*t), "operands must be 1-D register vectors, got " + q(*t));
  XTC_REQUIRE(op.result()->type() == acc, "the result type must be the accumulator's " + q(acc));
  int64_t m = 0, n = 0, k = 0;
  XTC_CHECK(intAttrIn(op, "m", {1, 2, 4, 8}, &m));
  XTC_CHECK(intAttrIn(op, "n", {8, 16}, &n));
  XTC_CHECK(intAttrIn(op, "k", {8, 16, 32}, &k));
  XTC_CHECK(typeAttr(op, "a_type", a.elem()));
  XTC_CHECK(typeAttr(op, "b_type", b.elem()));
  XTC_CHECK(typeAttr(op, "acc_type", acc.elem()));
  XTC_REQUIRE(a.elem() == b.elem(), "A and B must have one element type");
  int64_t S = n;  // DPAS executes with one lane per column of C
  auto per = [&](int64_t total, const Type& t, const char* what) -> std::string {
    XTC_REQUIRE(total % S == 0 && t.shape()[0] == total / S,
                fmt::format("{} must hold {} elements per lane ({} over {} lanes), got {}", what, total / S, total, S, q(t)));
    return "";
  };
  XTC_CHECK(per(m * n, acc, "the accumulator"));
  XTC_CHECK(per(m * k, a, "A"));
  XTC_CHECK(per(k * n, b, "B"));
  return "";
}

// The access unit of xe.block_read / xe.block_write on `data` (XeOps.h, blockUnit): P elements of it.
std::string verifyBlockUnit(const Operation& op, const Type& data) {
  std::optional<int64_t> P = blockUnit(op);
  XTC_REQUIRE(P, fmt::format("elem_bits must be the element's bits or 32 over 8- or 16-bit elements, got {}",
                             op.intAttr("elem_bits", 0)));
  XTC_REQUIRE(data.shape()[0] % *P == 0,
              fmt::format("{} elements per lane do not make whole {}-bit units", data.shape()[0], op.intAttr("elem_bits", 0)));
  return "";
}

// xe.block_read %mem, %i0, ..., %i{r-1} -> vector<N x T>: N*S consecutive elements from the element at
// the indices; element i of lane l is flat element (start + i*S + l), or in units of P elements
// (elem_bits, XeOps.h): start + P*((i/P)*S + l) + i%P.
std::string verifyBlockRead(const Operation& op) {
  XTC_REQUIRE(op.numOperands() >= 1 && op.operand(0)->type().isMemRef(), "expects a memref as operand 0");
  const Type& mem = op.operand(0)->type();
  XTC_REQUIRE(op.numOperands() == 1 + mem.rank(), fmt::format("expects {} index operands", mem.rank()));
  for (unsigned i = 1; i < op.numOperands(); ++i) XTC_REQUIRE(op.operand(i)->type().isIndex(), "indices must be index");
  XTC_CHECK(ops::numResults(op, 1));
  const Type& r = op.result()->type();
  XTC_REQUIRE(isRegVector(r) && r.elem() == mem.elem(), "the result must be a register vector of the memref's element type");
  return verifyBlockUnit(op, r);
}

// xe.lane_read %mem, %row, %col -> vector<N x T>: each lane reads N consecutive elements of one row of a
// rank-2 memref from its own (row, col): register i of the lane = mem[row, col + i] (dg2: one untyped
// surface read of N / P dwords per lane, P = 2 with elem_bits = 32 on 16-bit data; no bounds check).
// The probed forms: 1, 2, 4 or 8 units of 32 bits (tests/isa/builtins/lane_read_dg2_f32.ir; 8 is two
// `xyzw` reads into one 8-register variable).
std::string verifyLaneRead(const Operation& op) {
  XTC_REQUIRE(op.numOperands() == 3 && op.operand(0)->type().isMemRef() && op.operand(0)->type().rank() == 2,
              "expects a rank-2 memref and a row and a column index");
  for (unsigned i = 1; i < 3; ++i) XTC_REQUIRE(op.operand(i)->type().isIndex(), "indices must be index");
  XTC_CHECK(ops::numResults(op, 1));
  const Type& r = op.result()->type();
  XTC_REQUIRE(isRegVector(r) && r.elem() == op.operand(0)->type().elem(),
              "the result must be a register vector of the memref's element type");
  XTC_CHECK(verifyBlockUnit(op, r));
  int64_t P = blockUnit(op).value_or(1), units = r.shape()[0] / P;
  XTC_REQUIRE(elemBits(r.elem()) * P == 32 && (units == 1 || units == 2 || units == 4 || units == 8),
              fmt::format("reads 1, 2, 4 or 8 units of 32 bits per lane, got {} of {} bits", units, elemBits(r.elem()) * P));
  return "";
}

// xe.block_write %value, %mem, %i0, ..., %i{r-1}
std::string verifyBlockWrite(const Operation& op) {
  XTC_REQUIRE(op.numOperands() >= 2 && op.operand(1)->type().isMemRef(), "expects a value and a memref");
  const Type& mem = op.operand(1)->type();
  XTC_REQUIRE(op.numOperands() == 2 + mem.rank(), fmt::format("expects {} index operands", mem.rank()));
  for (unsigned i = 2; i < op.numOperands(); ++i) XTC_REQUIRE(op.operand(i)->type().isIndex(), "indices must be index");
  XTC_CHECK(ops::numResults(op, 0));
  const Type& v = op.operand(0)->type();
  XTC_REQUIRE(isRegVector(v) && v.elem() == mem.elem(), "the value must be a register vector of the memref's element type");
  return verifyBlockUnit(op, v);
}

}  // namespace

void registerXeOps() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerLaneOps();  // xe-level kernels use the lane ops for everything that is not a hardware message
    registerLayoutParser("linear", [](std::string_view text, std::string* error) -> std::shared_ptr<const LayoutValue> {
      auto l = layout::LinearLayout::parse(text);
      if (!l) {
        *error = l.error();
        return nullptr;
      }
      return std::make_shared<const LinearLayoutValue>(*l);
    });
    OpTraits pure;
    pure.pure = true;
    OpTraits effects;  // memory or subgroup-convergent
    registerOp({"xe.base_address", pure, verifyBaseAddress, "the byte address (i64) of a global memref's first element"});
    registerOp({"xe.oword_align_bits", pure, verifyOwordAlignBits,
                "its operand: address bits an oword block message needs zero (0 where the block path needs less)"});
    registerOp({"xe.load_2d", effects, verifyLoad2d,
                "2D block load (base, width/height/pitch in bytes/rows/bytes, x, y) -> the lane's registers"});
    registerOp({"xe.store_2d", effects, verifyStore2d, "2D block store of the lane's registers"});
    registerOp({"xe.prefetch_2d", effects, verifyPrefetch2d, "2D block prefetch into the cache"});
    registerOp({"xe.prefetch_1d", effects, verifyPrefetch1d,
                "per-lane prefetch of the dword at a byte address (cache 4 = L1 and L3 cached, 2 = L3 only)"});
    registerOp({"xe.dpas", pure, verifyDpas, "DPAS: acc + A x B, one M x N x K block per subgroup"});
    registerOp({"xe.block_read", effects, verifyBlockRead, "1-D subgroup block read (N x S consecutive elements)"});
    registerOp({"xe.block_write", effects, verifyBlockWrite, "1-D subgroup block write (N x S consecutive elements)"});
    registerOp({"xe.lane_read", effects, verifyLaneRead, "per-lane read of N consecutive elements of a row (no bounds check)"});
  });
}

}  // namespace xtc::ir
