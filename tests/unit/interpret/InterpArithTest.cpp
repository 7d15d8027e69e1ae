// Interpreter: scalar/element-wise ops (arith.*, math.*, vector.splat). Each test builds a kernel
// that applies one op to constant vectors and stores the result; expected values are worked out by
// hand (bit patterns for the 16-bit float cases).
#include "InterpTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace xtc;
using namespace xtc::interp;
using namespace xtc::interp::test;

namespace {

Value* constVec(KernelBuilder& kb, ElemKind k, const std::vector<double>& v) {
  Type t = Type::vector({static_cast<int64_t>(v.size())}, k);
  if (ir::isFloatElem(k)) return kb.denseF(t, v);
  std::vector<int64_t> iv;
  for (double d : v) iv.push_back(static_cast<int64_t>(d));
  return kb.denseI(t, iv);
}

// Runs `name` on constant vectors a (and b) of kind k; returns the stored result.
Buffer unary(const std::string& name, ElemKind k, std::vector<double> a, ElemKind rk, ir::AttrMap attrs = {},
             std::string* diags = nullptr) {
  int64_t n = static_cast<int64_t>(a.size());
  KernelBuilder kb({"out"}, {Type::memref({n}, rk)});
  Value* r = kb.op(name, {constVec(kb, k, a)}, Type::vector({n}, rk), std::move(attrs));
  kb.storeAll(r, kb.arg(0));
  kb.finish();
  KernelArgs args{{buf(rk, {n})}};
  RunResult res = run(kb, args);
  if (diags) *diags = res.diags;
  else EXPECT_TRUE(res.ok) << res.diags;
  return args.args[0].buffer;
}

Buffer binary(const std::string& name, ElemKind k, std::vector<double> a, std::vector<double> b, ElemKind rk,
              ir::AttrMap attrs = {}, std::string* diags = nullptr) {
  int64_t n = static_cast<int64_t>(a.size());
  KernelBuilder kb({"out"}, {Type::memref({n}, rk)});
  kb.b.setLoc(kb.loc(5, 7));
  Value* r = kb.op(name, {constVec(kb, k, a), constVec(kb, k, b)}, Type::vector({n}, rk), std::move(attrs));
  kb.storeAll(r, kb.arg(0));
  kb.finish();
  KernelArgs args{{buf(rk, {n})}};
  RunResult res = run(kb, args);
  if (diags) *diags = res.diags;
  else EXPECT_TRUE(res.ok) << res.diags;
  return args.args[0].buffer;
}

std::vector<int64_t> ints(const Buffer& b) {
  std::vector<int64_t> r;
  for (int64_t i = 0; i < b.numElements(); ++i) r.push_back(b.getInt(i));
  return r;
}
std::vector<double> floats(const Buffer& b) {
  std::vector<double> r;
  for (int64_t i = 0; i < b.numElements(); ++i) r.push_back(b.getFloat(i));
  return r;
}
std::vector<uint16_t> raw16(const Buffer& b) {
  std::vector<uint16_t> r;
  for (int64_t i = 0; i < b.numElements(); ++i) r.push_back(static_cast<uint16_t>(b.bytes[2 * i] | (b.bytes[2 * i + 1] << 8)));
  return r;
}

using V = std::vector<int64_t>;
using D = std::vector<double>;
const ElemKind I32 = ElemKind::I32, I8 = ElemKind::I8;

}  // namespace

TEST(InterpArith, SignedDivisionFamily) {
  D a{7, -7, 7, -7}, b{2, 2, -2, -2};
  EXPECT_EQ(ints(binary("arith.divsi", I32, a, b, I32)), (V{3, -3, -3, 3}));
  EXPECT_EQ(ints(binary("arith.remsi", I32, a, b, I32)), (V{1, -1, 1, -1}));
  EXPECT_EQ(ints(binary("arith.ceildivsi", I32, a, b, I32)), (V{4, -3, -3, 4}));
  EXPECT_EQ(ints(binary("arith.floordivsi", I32, a, b, I32)), (V{3, -4, -4, 3}));
  // -2^31 / -1 wraps to -2^31 in i32.
  EXPECT_EQ(ints(binary("arith.divsi", I32, {-2147483648.0}, {-1}, I32)), (V{-2147483648}));
}

TEST(InterpArith, WrapShiftsUnsigned) {
  EXPECT_EQ(ints(binary("arith.addi", I8, {100, -128, 127, 1}, {100, -1, 1, 1}, I8)), (V{-56, 127, -128, 2}));
  EXPECT_EQ(ints(binary("arith.muli", I8, {16, -3}, {16, 50}, I8)), (V{0, 106}));  // 256 -> 0; -150 -> 106
  EXPECT_EQ(ints(binary("arith.shrsi", I32, {-8, 8}, {1, 2}, I32)), (V{-4, 2}));
  EXPECT_EQ(ints(binary("arith.shrui", I8, {-8, 16}, {1, 1}, I8)), (V{124, 8}));  // 248 >> 1
  EXPECT_EQ(ints(binary("arith.shli", I8, {65, 3}, {1, 2}, I8)), (V{-126, 12}));   // 130 wraps
  EXPECT_EQ(ints(binary("arith.minui", I8, {-1, 3}, {2, 4}, I8)), (V{2, 3}));      // 255 vs 2
  EXPECT_EQ(ints(binary("arith.maxsi", I8, {-1, 3}, {2, 4}, I8)), (V{2, 4}));
  EXPECT_EQ(ints(binary("arith.divui", I8, {-2}, {2}, I8)), (V{127}));             // 254 / 2
  EXPECT_EQ(ints(binary("arith.xori", I32, {12}, {10}, I32)), (V{6}));
}

TEST(InterpArith, DivisionByZeroAndBadShiftAreErrors) {
  std::string d;
  binary("arith.divsi", I32, {1}, {0}, I32, {}, &d);
  EXPECT_NE(d.find("k.xt:5:7: error: integer division by zero"), std::string::npos) << d;
  binary("arith.shli", I32, {1}, {32}, I32, {}, &d);
  EXPECT_NE(d.find("k.xt:5:7: error: shift amount 32"), std::string::npos) << d;
}

TEST(InterpArith, Bf16AndF16RoundOnce) {
  double e8 = std::ldexp(1.0, -8);
  // 1 + 2^-8 ties to 1.0 (even); 1 + 3*2^-8 ties up to 0x3F82; 1 + 2^-8 + 2^-15 is above the tie.
  Buffer r = binary("arith.addf", ElemKind::BF16, {1, 1, 1}, {e8, 3 * e8, e8 + std::ldexp(1.0, -15)}, ElemKind::BF16);
  EXPECT_EQ(raw16(r), (std::vector<uint16_t>{0x3F80, 0x3F82, 0x3F81}));
  // f16: 1.5 * (1 + 2^-10) = 1.5 + 2^-10 + 2^-11: tie between mantissas 0x201 and 0x202 -> 0x202;
  // 65504 * 2 overflows to inf.
  Buffer h = binary("arith.mulf", ElemKind::F16, {1.5, 65504}, {1 + std::ldexp(1.0, -10), 2}, ElemKind::F16);
  EXPECT_EQ(raw16(h), (std::vector<uint16_t>{0x3E02, 0x7C00}));
  // f32 division is IEEE f32 division.
  EXPECT_EQ(floats(binary("arith.divf", ElemKind::F32, {1, 2}, {3, 7}, ElemKind::F32)),
            (D{static_cast<double>(1.0f / 3.0f), static_cast<double>(2.0f / 7.0f)}));
}

TEST(InterpArith, MaxNumMinNumAndNegate) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(floats(binary("arith.maxf", ElemKind::F32, {nan, 1, -3}, {2, nan, -4}, ElemKind::F32)), (D{2, 1, -3}));
  EXPECT_EQ(floats(binary("arith.minf", ElemKind::F32, {nan, 1, -3}, {2, nan, -4}, ElemKind::F32)), (D{2, 1, -4}));
  EXPECT_EQ(floats(unary("arith.negf", ElemKind::F32, {1.5, -2}, ElemKind::F32)), (D{-1.5, 2}));
}

TEST(InterpArith, Comparisons) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  auto pred = [](const char* p, const char* kind) { return ir::AttrMap{{"predicate", ir::Attribute::enumValue(kind, p)}}; };
  EXPECT_EQ(ints(binary("arith.cmpf", ElemKind::F32, {1, nan, 3}, {2, 1, 3}, ElemKind::I1, pred("olt", "cmpf"))), (V{1, 0, 0}));
  EXPECT_EQ(ints(binary("arith.cmpf", ElemKind::F32, {1, nan, 3}, {2, 1, 3}, ElemKind::I1, pred("une", "cmpf"))), (V{1, 1, 0}));
  EXPECT_EQ(ints(binary("arith.cmpf", ElemKind::F32, {1, nan, 3}, {2, 1, 3}, ElemKind::I1, pred("uno", "cmpf"))), (V{0, 1, 0}));
  EXPECT_EQ(ints(binary("arith.cmpi", I8, {-1, 5, 5}, {1, 5, 6}, ElemKind::I1, pred("slt", "cmpi"))), (V{1, 0, 1}));
  EXPECT_EQ(ints(binary("arith.cmpi", I8, {-1, 5, 5}, {1, 5, 6}, ElemKind::I1, pred("ult", "cmpi"))), (V{0, 0, 1}));  // 255 < 1 false
  EXPECT_EQ(ints(binary("arith.cmpi", I8, {-1, 5, 5}, {1, 5, 6}, ElemKind::I1, pred("sge", "cmpi"))), (V{0, 1, 0}));
}

TEST(InterpArith, SelectAndSplat) {
  KernelBuilder kb({"out"}, {Type::memref({3}, ElemKind::F32)});
  Value* c = constVec(kb, ElemKind::I1, {1, 0, 1});
  Value* s = kb.b.constantFloat(2.5, ElemKind::F32);
  Value* a = kb.op("vector.splat", {s}, Type::vector({3}, ElemKind::F32));
  Value* b = constVec(kb, ElemKind::F32, {7, 8, 9});
  Value* r = kb.op("arith.select", {c, a, b}, Type::vector({3}, ElemKind::F32));
  kb.storeAll(r, kb.arg(0));
  kb.finish();
  KernelArgs args{{buf(ElemKind::F32, {3})}};
  RunResult res = run(kb, args);
  ASSERT_TRUE(res.ok) << res.diags;
  EXPECT_EQ(floats(args.args[0].buffer), (D{2.5, 8, 2.5}));
}

TEST(InterpArith, Conversions) {
  // f32 -> bf16 rounds to nearest even (1 + 2^-8 + 2^-20 is above the tie).
  EXPECT_EQ(raw16(unary("arith.convert", ElemKind::F32, {1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -20), -1}, ElemKind::BF16)),
            (std::vector<uint16_t>{0x3F81, 0xBF80}));
  // float -> int truncates toward zero and saturates.
  EXPECT_EQ(ints(unary("arith.convert", ElemKind::F32, {-2.7, 2.7, 1e10}, I32)), (V{-2, 2, 2147483647}));
  // i1 widens unsigned, as MLIR's extui / uitofp: true is 1 and 1.0 (other ints widen signed).
  EXPECT_EQ(ints(unary("arith.convert", ElemKind::I1, {1, 0}, I32)), (V{1, 0}));
  EXPECT_EQ(floats(unary("arith.convert", ElemKind::I1, {1, 0}, ElemKind::F32)), (D{1.0, 0.0}));
  EXPECT_EQ(ints(unary("arith.convert", ElemKind::I8, {-3}, I32)), (V{-3}));
  // to i1 is "not zero" (2 is true, not its low bit), as float -> i1.
  EXPECT_EQ(ints(unary("arith.convert", I32, {2, 0, -1}, ElemKind::I1)), (V{1, 0, 1}));
  EXPECT_EQ(ints(unary("arith.convert", I32, {300, -1}, I8)), (V{44, -1}));
  // i32 -> f16: 2049 ties between 2048 and 2050 -> 2048 (even); 2051 -> 2052.
  EXPECT_EQ(floats(unary("arith.convert", I32, {2049, 2051}, ElemKind::F16)), (D{2048, 2052}));
  EXPECT_EQ(ints(unary("arith.bitcast", ElemKind::F32, {1.0, -2.0}, I32)), (V{0x3F800000, static_cast<int32_t>(0xC0000000u)}));
}

TEST(InterpArith, Math) {
  EXPECT_EQ(floats(unary("math.exp", ElemKind::F32, {1.0, 0.0}, ElemKind::F32)), (D{static_cast<double>(2.7182817f), 1.0}));
  // sqrt(2) = 1.41421356...; bf16 keeps 7 mantissa bits: 1 + 53/128 = 1.4140625.
  EXPECT_EQ(floats(unary("math.sqrt", ElemKind::BF16, {2.0}, ElemKind::BF16)), (D{1.4140625}));
  EXPECT_EQ(floats(unary("math.floor", ElemKind::F32, {-1.5, 1.5}, ElemKind::F32)), (D{-2, 1}));
  EXPECT_EQ(floats(unary("math.abs", ElemKind::F16, {-3.0}, ElemKind::F16)), (D{3}));
  EXPECT_EQ(floats(unary("math.rsqrt", ElemKind::F32, {4.0}, ElemKind::F32)), (D{0.5}));
}

TEST(InterpArith, UnknownOpFailsLoudly) {
  std::string d;
  binary("arith.frobnicate", ElemKind::F32, {1}, {2}, ElemKind::F32, {}, &d);
  EXPECT_NE(d.find("k.xt:5:7: error: interpreter: op 'arith.frobnicate' is not implemented yet"), std::string::npos) << d;
}
