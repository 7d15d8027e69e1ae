// Bit-exact checks of the bf16/f16 conversions (ties, subnormals, overflow, inf, NaN), single
// rounding from f64, integer wrapping and float->int saturation. Expected bit patterns are worked
// out by hand from the IEEE formats (bf16: 1-8-7, f16: 1-5-10).
#include "ir/interpret/Numeric.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

using namespace xtc::interp;
using xtc::ir::ElemKind;

namespace {
float bitsToFloat(uint32_t u) { return std::bit_cast<float>(u); }
}  // namespace

TEST(Numeric, Bf16ToFloat) {
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0xC000), -2.0f);
  EXPECT_EQ(bf16ToFloat(0x3FC0), 1.5f);
  EXPECT_EQ(bf16ToFloat(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(bf16ToFloat(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bf16ToFloat(0x7FC0)));
  EXPECT_EQ(bf16ToFloat(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
  EXPECT_TRUE(std::signbit(bf16ToFloat(0x8000)));
}

TEST(Numeric, FloatToBf16Ties) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  // 1 + 2^-8 is halfway between 0x3F80 and 0x3F81: ties to the even 0x3F80.
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  // 1 + 3*2^-8 is halfway between 0x3F81 and 0x3F82: ties to the even 0x3F82.
  EXPECT_EQ(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  // Just above the tie rounds up.
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3F81);
  // Just below rounds down; negative values round symmetrically.
  EXPECT_EQ(floatToBf16(bitsToFloat(0x3F807FFF)), 0x3F80);
  EXPECT_EQ(floatToBf16(bitsToFloat(0xBF818000)), 0xBF82);
}

TEST(Numeric, FloatToBf16Specials) {
  EXPECT_EQ(floatToBf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(floatToBf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(floatToBf16(bitsToFloat(0x7F7FFFFF)), 0x7F80);  // FLT_MAX overflows to inf
  EXPECT_EQ(floatToBf16(bitsToFloat(0x7F7F7FFF)), 0x7F7F);  // below the tie: largest finite bf16
  EXPECT_EQ(floatToBf16(bitsToFloat(0x7F7F8000)), 0x7F80);  // tie, 0x7F7F is odd: up to inf
  // A signalling NaN whose payload is only in the low bits must stay a NaN (not become inf).
  uint16_t n = floatToBf16(bitsToFloat(0x7F800001));
  EXPECT_EQ(n, 0x7FC0);
  EXPECT_EQ(floatToBf16(bitsToFloat(0xFFC00000)), 0xFFC0);
  // Subnormals: 0x00010000 is exactly bf16 0x0001; 0x00008000 ties between 0 and 1 -> 0;
  // 0x00018000 ties between 1 and 2 -> 2.
  EXPECT_EQ(floatToBf16(bitsToFloat(0x00010000)), 0x0001);
  EXPECT_EQ(floatToBf16(bitsToFloat(0x00008000)), 0x0000);
  EXPECT_EQ(floatToBf16(bitsToFloat(0x00018000)), 0x0002);
  EXPECT_EQ(floatToBf16(-0.0f), 0x8000);
}

TEST(Numeric, HalfToFloat) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03FF), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(halfToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7C01)));
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0xC500), -5.0f);
}

TEST(Numeric, FloatToHalf) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-5.0f), 0xC500);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);  // below the 65520 tie
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);  // tie, 0x7BFF odd: up to inf
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  // Ties in the normal range: 1 + 2^-11 is halfway between 0x3C00 and 0x3C01.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
  // Subnormals (units of 2^-24).
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);          // tie with 0 -> 0
  EXPECT_EQ(floatToHalf(1.5f * std::ldexp(1.0f, -25)), 0x0001);   // above the tie
  EXPECT_EQ(floatToHalf(3.0f * std::ldexp(1.0f, -25)), 0x0002);   // 1.5 units: tie -> 2
  EXPECT_EQ(floatToHalf(5.0f * std::ldexp(1.0f, -25)), 0x0002);   // 2.5 units: tie -> 2
  EXPECT_EQ(floatToHalf(1023.5f * std::ldexp(1.0f, -24)), 0x0400); // tie -> smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  uint16_t n = floatToHalf(bitsToFloat(0x7F800001));
  EXPECT_EQ(n & 0x7C00, 0x7C00);
  EXPECT_NE(n & 0x03FF, 0);
}

TEST(Numeric, RoundTripEveryHalfAndBf16) {
  // Every finite 16-bit pattern converts to float and back unchanged.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) != 0x7C00) {
      EXPECT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h) << h;
    }
    if ((h & 0x7F80) != 0x7F80) {
      EXPECT_EQ(floatToBf16(bf16ToFloat(static_cast<uint16_t>(h))), h) << h;
    }
  }
}

TEST(Numeric, DoubleRoundsOnce) {
  // d = 1 + 2^-8 + 2^-30 lies above the bf16 tie; going through f32 first would land exactly on
  // the tie (2^-30 is below f32's half ulp) and then round down.
  double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(floatToBf16(static_cast<float>(d)), 0x3F80);
  EXPECT_EQ(doubleToBf16(d), 0x3F81);
  double h = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(floatToHalf(static_cast<float>(h)), 0x3C00);
  EXPECT_EQ(doubleToHalf(h), 0x3C01);
  EXPECT_EQ(roundToElem(h, ElemKind::F16), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(roundToElem(0.1, ElemKind::F32), static_cast<double>(0.1f));
  EXPECT_EQ(roundToElem(0.1, ElemKind::F64), 0.1);
  EXPECT_EQ(doubleToBf16(1e300), 0x7F80);
  EXPECT_EQ(doubleToHalf(-1e-300), 0x8000);
}

TEST(Numeric, Tf32) {
  // tf32 keeps 10 mantissa bits: 1 + 2^-11 ties to 1, 1 + 3*2^-11 ties up to 1 + 2^-9.
  EXPECT_EQ(floatToTf32(1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(floatToTf32(1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
}

TEST(Numeric, IntegerWrapAndSaturate) {
  EXPECT_EQ(wrapToElem(200, ElemKind::I8), -56);
  EXPECT_EQ(wrapToElem(3, ElemKind::I1), 1);
  EXPECT_EQ(wrapToElem((int64_t{1} << 32) + 5, ElemKind::I32), 5);
  EXPECT_EQ(wrapToElem(0x18000, ElemKind::I16), -32768);
  EXPECT_EQ(unsignedOf(-1, ElemKind::I8), 255u);
  EXPECT_EQ(floatToIntSat(1e10, ElemKind::I32), 2147483647);
  EXPECT_EQ(floatToIntSat(-1e10, ElemKind::I8), -128);
  EXPECT_EQ(floatToIntSat(-3.7, ElemKind::I32), -3);
  EXPECT_EQ(floatToIntSat(std::nan(""), ElemKind::I32), 0);
  EXPECT_EQ(floatToIntSat(1e30, ElemKind::I64), std::numeric_limits<int64_t>::max());
}

TEST(Numeric, LoadStore) {
  uint8_t b[8] = {};
  storeFloat(ElemKind::BF16, b, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30));
  EXPECT_EQ(b[0], 0x81);
  EXPECT_EQ(b[1], 0x3F);
  EXPECT_EQ(loadFloat(ElemKind::BF16, b), 1.0 + std::ldexp(1.0, -7));
  storeInt(ElemKind::I32, b, -2);
  EXPECT_EQ(loadInt(ElemKind::I32, b), -2);
  EXPECT_EQ(b[3], 0xFF);
  storeInt(ElemKind::I1, b, 1);
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(elemBytes(ElemKind::I1), 1u);
  EXPECT_EQ(elemBytes(ElemKind::Index), 8u);
}
