// The f32 arithmetic of backends/spirv/XeMath.h's written-out exp and division, modeled on the CPU:
// the hardware math.exp as exp2f and math.inv as 1/v (both correctly rounded or nearly; the GPU's own
// error is not known here, and is the same in IGC's expansion, which uses the same instructions).
// Checks that the exp equals IGC's own expansion (the same steps plus its range fix-ups, read in the
// ISA of benchmarks/floor-probes/exp_8x16.xt) bit for bit, with the clamp of k in place of the
// fix-ups, and that both are within OpenCL's 3 ulp of a double exp over softmax's inputs (x <= 0) and
// beyond; and that the division is within OpenCL's 2.5 ulp of a double division and gives IGC's
// expansion's bits (xtc scales the divisor by another power of two, flag-free: XeMath.cpp).
#include "backends/spirv/XeMath.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using namespace xtc::backend::xemath;

float f(uint32_t bits) { return std::bit_cast<float>(bits); }

// The steps both forms share: k = trunc(x * log2 e) (clamped or not), r = x - k ln 2 in two fmas,
// 2^k * 2^(r log2 e).
float splitExp(float x, bool clampK) {
  float k = std::trunc(x * f(kLog2E));
  if (clampK) k = std::fmin(std::fmax(k, -kMaxK), kMaxK);
  float r = std::fma(k, f(kMinusLn2Hi), x);
  r = std::fma(k, f(kMinusLn2Lo), r);
  return std::exp2(k) * std::exp2(r * f(kLog2E));
}

float xtcExp(float x) { return splitExp(x, true); }

// IGC 1.0.12504's OpenCL exp: x < -105 -> 0, x > 105 -> inf, else the split form (no clamp).
float igcExp(float x) {
  float e = splitExp(x, false);
  if (x < -105.0f) e = 0.0f;
  return x > 105.0f ? std::numeric_limits<float>::infinity() : e;
}

bool sameBits(float a, float b) { return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }

// |got - want| in units of the last place of f32 at want (2^-149 below the normal range).
double ulpError(float got, double want) {
  if (std::isinf(want) || want > std::numeric_limits<float>::max()) return std::isinf(got) && got > 0 ? 0.0 : 1e30;
  int e = want == 0.0 ? -126 : std::max(std::ilogb(want), -126);
  return std::fabs(static_cast<double>(got) - want) / std::ldexp(1.0, e - 23);
}

// Every 251st f32 bit pattern, and every f32 in the windows around the ranges' ends: IGC's ±105,
// the clamp's k = ±151/152, the overflow (88.72), the normal/denormal (-87.34) and the zero (-103.97)
// boundaries of the result, and around 0.
std::vector<float> inputs() {
  std::vector<float> xs;
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 251) xs.push_back(f(static_cast<uint32_t>(b)));
  for (float c : {105.0f, -105.0f, 105.36f, -105.36f, 88.72f, -87.34f, -103.97f, 0.0f, 1.0f, -1.0f}) {
    float lo = c, hi = c;
    for (int i = 0; i < 100000; ++i) {
      lo = std::nextafter(lo, -INFINITY);
      hi = std::nextafter(hi, INFINITY);
      xs.push_back(lo);
      xs.push_back(hi);
    }
  }
  for (float s : {INFINITY, -INFINITY, NAN, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()})
    xs.push_back(s);
  return xs;
}

TEST(XeMathModel, ExpIsIgcsExpansionBitForBit) {
  unsigned differ = 0;
  float first = 0;
  for (float x : inputs())
    if (!sameBits(xtcExp(x), igcExp(x)) && differ++ == 0) first = x;
  EXPECT_EQ(differ, 0u) << "first x = " << first << ": xtc " << xtcExp(first) << ", IGC " << igcExp(first);
  // The clamp is a no-op where IGC computes (|x| <= 105: |k| <= 151).
  EXPECT_EQ(std::trunc(105.0f * f(kLog2E)), 151.0f);
  EXPECT_LE(151.0f, kMaxK);
  EXPECT_TRUE(std::isnan(xtcExp(NAN)));
  EXPECT_EQ(xtcExp(INFINITY), INFINITY);
  EXPECT_EQ(xtcExp(-INFINITY), 0.0f);
  EXPECT_EQ(xtcExp(1e30f), INFINITY);
  EXPECT_EQ(xtcExp(-1e30f), 0.0f);
  EXPECT_EQ(xtcExp(0.0f), 1.0f);
}

TEST(XeMathModel, ExpWithinOpenClUlpOfDoubleExp) {
  double worstSoftmax = 0, worst = 0;  // softmax's inputs x - max(x) <= 0, and all others
  for (float x : inputs()) {
    if (std::isnan(x)) continue;
    double err = ulpError(xtcExp(x), std::exp(static_cast<double>(x)));
    (x <= 0 ? worstSoftmax : worst) = std::max(x <= 0 ? worstSoftmax : worst, err);
  }
  EXPECT_LE(worstSoftmax, 3.0);
  EXPECT_LE(worst, 3.0);
  std::printf("model: max error %.3f ulp for x <= 0, %.3f ulp for x > 0\n", worstSoftmax, worst);
}

// IGC's own scale constants (read in its expansion's ISA; xtc no longer uses them): the reference.
constexpr uint32_t kBigExp = 0x64000000u;    // exponent >= 200: divisor >= 2^73
constexpr uint32_t kTwoTo32 = 0x4F800000u;   // the scale of a zero/denormal divisor
constexpr uint32_t kTwoToM32 = 0x2F800000u;  // the scale of a big divisor

// (1/(y s) x) s: IGC's division, s = 2^32 for a zero/denormal y, 2^-32 for y >= 2^73, else 1.
float igcDiv(float x, float y) {
  uint32_t e = std::bit_cast<uint32_t>(y) & kExpMask;
  float s = e == 0 ? f(kTwoTo32) : 1.0f;
  if (e >= kBigExp) s = f(kTwoToM32);
  float inv = 1.0f / (y * s);
  return inv * x * s;
}

// xtc's: the same steps with s = 2^(32 - k) for y's exponent field k < 32, 1 for 32 <= k <= 129,
// 2^(129 - k) above, computed as XeMath.cpp does, on the bits: 1.0 - e + clamp(e, 32 << 23, 129 << 23).
float xtcDiv(float x, float y) {
  uint32_t e = std::bit_cast<uint32_t>(y) & kExpMask;
  uint32_t g = std::min(std::max(e, kScaleLoExp), kScaleHiExp);
  float s = std::bit_cast<float>(kOneBits - e + g);
  float inv = 1.0f / (y * s);
  return inv * x * s;
}

// The scale as a function of k, independently: a power of two, IGC's where IGC's is not 1, and where
// xtc's differs from 1 the scaled divisor y s and the product 1/(y s) x stay normal (so the steps are
// exact scalings of IGC's: the same bits, checked below on the quotients).
TEST(XeMathModel, DivisionScale) {
  for (uint32_t k = 0; k < 256; ++k) {
    float y = std::bit_cast<float>(k << 23 | 0x400000u);  // 1.5 * 2^(k - 127), or a denormal for k = 0
    uint32_t e = k << 23;
    float s = std::bit_cast<float>(kOneBits - e + std::min(std::max(e, kScaleLoExp), kScaleHiExp));
    int want = k == 0 ? 32 : k < 32 ? 32 - static_cast<int>(k) : k <= 129 ? 0 : 129 - static_cast<int>(k);
    EXPECT_EQ(s, std::ldexp(1.0f, want)) << "k = " << k;
    if (k == 0 || k == 255) continue;
    EXPECT_GE(std::fabs(y * s), 0x1p-126f) << "k = " << k;
    EXPECT_LE(std::fabs(y * s), 8.0f) << "k = " << k;
  }
}

TEST(XeMathModel, DivisionWithinOpenClUlpOfDoubleDivision) {
  double worst = 0;
  unsigned checked = 0, differ = 0;
  float firstX = 0, firstY = 0;
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int i = 0; i < 2000000; ++i) {
    // Softmax's numerators are in [0, 1], its divisors (row sums) in [1, 64]; the rest any finite f32
    // whose quotient is a normal f32.
    float x = f(next() & 0x7FFFFFFFu), y = f(next() & 0x7FFFFFFFu);
    if (i % 2 == 0) {
      x = static_cast<float>(next() % 1000000) / 1e6f;
      y = 1.0f + static_cast<float>(next() % 63000000) / 1e6f;
    }
    if (!std::isfinite(x) || !std::isfinite(y) || y == 0.0f) continue;
    double want = static_cast<double>(x) / static_cast<double>(y);
    if (want != 0.0 && (std::fabs(want) < 0x1p-126 || std::fabs(want) > std::numeric_limits<float>::max())) continue;
    worst = std::max(worst, ulpError(xtcDiv(x, y), want));
    if (!sameBits(xtcDiv(x, y), igcDiv(x, y)) && differ++ == 0) firstX = x, firstY = y;
    ++checked;
  }
  EXPECT_GT(checked, 1000000u);
  EXPECT_LE(worst, 2.5);
  EXPECT_EQ(differ, 0u) << "first x = " << firstX << ", y = " << firstY << ": xtc " << xtcDiv(firstX, firstY)
                        << ", IGC " << igcDiv(firstX, firstY);
  // Every divisor exponent, each with numerators across the range and at its ends (the smallest and
  // the largest f32, where a scale out of its bounds first loses the quotient): IGC's bits wherever
  // the quotient is a normal f32, and the special divisors' results.
  std::vector<uint32_t> xs;
  for (uint32_t xk = 0; xk < 255; xk += 3) xs.push_back(xk << 23);
  for (uint32_t b : {0x1u, 0x7u, 0x7FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x7F000000u}) xs.push_back(b | 0x80000000u);
  for (uint32_t k = 0; k < 256; ++k)
    for (uint32_t xb : xs) {
      float y = f(k << 23 | (next() & 0x7FFFFFu));
      float x = xb & 0x80000000u ? f(xb & 0x7FFFFFFFu) : f(xb | (next() & 0x7FFFFFu));
      if (std::isnan(y)) continue;
      double want = static_cast<double>(x) / static_cast<double>(y);
      if (std::isinf(y) || y == 0.0f || (std::fabs(want) >= 0x1p-126 && std::fabs(want) <= std::numeric_limits<float>::max())) {
        EXPECT_TRUE(sameBits(xtcDiv(x, y), igcDiv(x, y))) << "x = " << x << ", y = " << y;
      }
    }
  EXPECT_EQ(xtcDiv(1.0f, std::numeric_limits<float>::denorm_min()), INFINITY);
  EXPECT_EQ(xtcDiv(3.0f, 0x1p100f), 3.0f * 0x1p-100f);
  EXPECT_EQ(xtcDiv(3.0f, INFINITY), 0.0f);
  EXPECT_EQ(xtcDiv(3.0f, 0.0f), INFINITY);
  EXPECT_TRUE(std::isnan(xtcDiv(INFINITY, INFINITY)));
  EXPECT_TRUE(std::isnan(xtcDiv(3.0f, NAN)));
  EXPECT_EQ(xtcDiv(0x1p127f, 0x1p-20f), INFINITY);
}

}  // namespace
