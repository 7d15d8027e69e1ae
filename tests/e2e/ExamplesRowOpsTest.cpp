// e2e: the row-wise and data-movement examples -- softmax.xt (subgroup level), row_sum.xt (workgroup
// level, 4 subgroups), sg_bias_relu.xt (subgroup level), bias_relu.xt (workgroup level: its broadcast
// gets a broadcast_size from wg-distribute), transpose.xt (an in-register transpose) and gather_scatter.xt
// (masked gather and scatter through per-lane offsets) -- through the real
// `xtc compile --target generic` (and pvc/dg2 emulated) + spirv-val, run on the CPU OpenCL
// device and compared with
//   (a) plain C++ references in double written here, and
//   (b) the reference interpreter on the frontend's tile IR,
// on seeded random non-zero inputs at aligned and unaligned sizes. (ExampleRowOpsTest.cpp runs softmax
// and row_sum on the device against host loops only; this file adds the interpreter and other sizes.)
//
// Tolerances: transpose and gather_scatter only move data (and double it) and are exact; sg_bias_relu and bias_relu are exact (the f32 sum of two f32 inputs is their double sum rounded once,
// then max with 0). row_sum: a sum of n f32 terms in any order is within (n + 2) * 2^-24 * sum|x| of the
// exact sum. softmax: relative 2^-17 (exp, the 64-term sum and the division each add a few f32
// roundings; 64 * 2^-24 = 2^-18). Device and interpreter, each within tol of the exact value, must
// agree within 2 * tol.
#include "tests/e2e/ExampleHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <random>

namespace xtc {
namespace {

using interp::Buffer;
using interp::KernelArg;
using ir::ElemKind;

using e2e::runAndCheck;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
const double kU = std::ldexp(1.0, -24);  // f32 unit roundoff

// ---- softmax: rows of 64, 8 rows per subgroup ----
void softmax(int64_t M, const char* target = "generic") {
  SCOPED_TRACE(testing::Message() << target << " " << M << " rows");
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, 64}, static_cast<unsigned>(M), 0.25, 4.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {M, 64}, std::nan(""))));
  const Buffer x = args.args[0].buffer;
  std::vector<double> rowMax(static_cast<size_t>(M), -INFINITY), rowSum(static_cast<size_t>(M), 0.0);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < 64; ++j) rowMax[static_cast<size_t>(i)] = std::max(rowMax[static_cast<size_t>(i)], x.getFloat(i * 64 + j));
    for (int64_t j = 0; j < 64; ++j) rowSum[static_cast<size_t>(i)] += std::exp(x.getFloat(i * 64 + j) - rowMax[static_cast<size_t>(i)]);
  }
  runAndCheck("softmax.xt", args, 1, {ceilDiv(M, 8), 1, 1}, 1, [&](int64_t e, double* ref, double* tol) {
    size_t i = static_cast<size_t>(e / 64);
    *ref = std::exp(x.getFloat(e) - rowMax[i]) / rowSum[i];
    *tol = std::ldexp(*ref, -17);
  }, true, target);
}
TEST(ExampleSoftmax, Aligned32Rows) { softmax(32); }
TEST(ExampleSoftmax, Unaligned37Rows) { softmax(37); }

// ---- row_sum: 32 rows per workgroup, columns in blocks of 32 ----
void rowSum(int64_t M, int64_t N, const char* target = "generic") {
  SCOPED_TRACE(testing::Message() << target << " " << M << "x" << N);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, N}, static_cast<unsigned>(M + N), 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {M, 1}, std::nan(""))));
  const Buffer x = args.args[0].buffer;
  runAndCheck("row_sum.xt", args, 1, {ceilDiv(M, 32), 1, 1}, 4, [&](int64_t i, double* ref, double* tol) {
    double s = 0, mag = 0;
    for (int64_t j = 0; j < N; ++j) {
      s += x.getFloat(i * N + j);
      mag += std::fabs(x.getFloat(i * N + j));
    }
    *ref = s;
    *tol = static_cast<double>(N + 2) * kU * mag;
  }, true, target);
}
TEST(ExampleRowSum, Aligned64x128) { rowSum(64, 128); }
TEST(ExampleRowSum, Unaligned70x100) { rowSum(70, 100); }
TEST(ExampleRowSum, NarrowerThanBlock5x7) { rowSum(5, 7); }

// ---- sg_bias_relu (subgroup level, 8x32 per subgroup) and bias_relu (workgroup level, 2 subgroups,
// 16x32 per workgroup; its broadcast gets a broadcast_size from wg-distribute): exact ----
void biasRelu(const char* file, int64_t rowsPerGroup, int64_t subgroups, int64_t M, int64_t N, const char* target = "generic") {
  SCOPED_TRACE(testing::Message() << file << " " << target << " " << M << "x" << N);
  unsigned seed = static_cast<unsigned>(M * 3 + N);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, N}, seed, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {1, N}, seed + 1, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {M, N}, std::nan(""))));
  const Buffer x = args.args[0].buffer, bias = args.args[1].buffer;
  int positive = 0;
  runAndCheck(file, args, 2, {ceilDiv(M, rowsPerGroup), ceilDiv(N, 32), 1}, subgroups,
              [&](int64_t e, double* ref, double* tol) {
                float y = static_cast<float>(x.getFloat(e)) + static_cast<float>(bias.getFloat(e % N));
                *ref = std::max(y, 0.0f);
                *tol = 0;
                positive += *ref > 0;
              }, true, target);
  EXPECT_GT(positive, 0);  // the inputs exercise both sides of the relu
  EXPECT_LT(positive, M * N);
}
TEST(ExampleSgBiasRelu, Aligned32x64) { biasRelu("sg_bias_relu.xt", 8, 1, 32, 64); }
TEST(ExampleSgBiasRelu, Unaligned37x45) { biasRelu("sg_bias_relu.xt", 8, 1, 37, 45); }
TEST(ExampleBiasRelu, Aligned32x64) { biasRelu("bias_relu.xt", 16, 2, 32, 64); }
TEST(ExampleBiasRelu, Unaligned37x45) { biasRelu("bias_relu.xt", 16, 2, 37, 45); }

// ---- transpose (one 16x16 block per subgroup): exact; Y starts as NaN so a missed element fails ----
void transpose(int64_t M, int64_t N, const char* target = "generic") {
  SCOPED_TRACE(testing::Message() << target << " " << M << "x" << N);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, N}, static_cast<unsigned>(M * 5 + N), 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {N, M}, std::nan(""))));
  const Buffer x = args.args[0].buffer;
  runAndCheck("transpose.xt", args, 1, {ceilDiv(M, 16), ceilDiv(N, 16), 1}, 1, [&](int64_t e, double* ref, double* tol) {
    int64_t j = e / M, i = e % M;  // Y[j][i] = X[i][j]
    *ref = x.getFloat(i * N + j);
    *tol = 0;
  }, true, target);
}
TEST(ExampleTranspose, Aligned32x64) { transpose(32, 64); }
TEST(ExampleTranspose, Unaligned37x45) { transpose(37, 45); }

// ---- gather_scatter (16 indices per subgroup): exact ----
// Dst starts with values the kernel must keep where it does not write (masked-off lanes, the tail past
// n, indices never named), so both stores and drops are checked.
void gatherScatter(int64_t size, int64_t n, const char* target = "generic") {
  SCOPED_TRACE(testing::Message() << target << " size " << size << ", n " << n);
  unsigned seed = static_cast<unsigned>(size * 7 + n);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {size}, seed, 0.25, 2.0)));
  // n distinct indices in random order.
  std::vector<int64_t> perm(static_cast<size_t>(size));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(seed + 1));
  Buffer idx(ElemKind::Index, {1, n});
  for (int64_t i = 0; i < n; ++i) idx.setInt(i, perm[static_cast<size_t>(i)]);
  args.args.push_back(KernelArg::fromBuffer(idx));
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {size}, seed + 2, 4.0, 8.0)));
  const Buffer src = args.args[0].buffer, dst0 = args.args[2].buffer;
  std::vector<double> ref(static_cast<size_t>(size));
  for (int64_t e = 0; e < size; ++e) ref[static_cast<size_t>(e)] = dst0.getFloat(e);
  int written = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t e = perm[static_cast<size_t>(i)];
    if (src.getFloat(e) > 0) {
      ref[static_cast<size_t>(e)] = 2 * src.getFloat(e);
      ++written;
    }
  }
  EXPECT_GT(written, 0);  // both masked-on and masked-off lanes occur
  EXPECT_LT(written, n);
  runAndCheck("gather_scatter.xt", args, 2, {ceilDiv(n, 16), 1, 1}, 1, [&](int64_t e, double* r, double* tol) {
    *r = ref[static_cast<size_t>(e)];
    *tol = 0;
  }, true, target);
}
TEST(ExampleGatherScatter, Aligned64Of128) { gatherScatter(128, 64); }
TEST(ExampleGatherScatter, Unaligned37Of100) { gatherScatter(100, 37); }

// The same examples compiled for pvc with --emulate-xe and dg2 with --emulate-xe=except-block-io
// (the Xe lowering; 16 and 8 lanes; dg2's block reads and writes run as compiled), at the unaligned sizes, against the same C++ references and the interpreter.
class RowOpsXe : public testing::TestWithParam<const char*> {};
TEST_P(RowOpsXe, SoftmaxUnaligned37Rows) { softmax(37, GetParam()); }
TEST_P(RowOpsXe, RowSumUnaligned70x100) { rowSum(70, 100, GetParam()); }
TEST_P(RowOpsXe, SgBiasReluUnaligned37x45) { biasRelu("sg_bias_relu.xt", 8, 1, 37, 45, GetParam()); }
TEST_P(RowOpsXe, BiasReluUnaligned37x45) { biasRelu("bias_relu.xt", 16, 2, 37, 45, GetParam()); }
TEST_P(RowOpsXe, TransposeUnaligned37x45) { transpose(37, 45, GetParam()); }
TEST_P(RowOpsXe, GatherScatterUnaligned37Of100) { gatherScatter(100, 37, GetParam()); }
INSTANTIATE_TEST_SUITE_P(Emulated, RowOpsXe, testing::Values("pvc", "dg2"));

// ---- group_sum (a test kernel): sums of 16 consecutive elements, reduction_size ----
void groupSum(int64_t M, int64_t N) {
  SCOPED_TRACE(testing::Message() << M << "x" << N);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, N}, static_cast<unsigned>(M * 7 + N), 0.25, 2.0)));
  int64_t G = ceilDiv(N, 16);
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {M, G}, std::nan(""))));
  const Buffer x = args.args[0].buffer;
  // Out-of-bounds columns load as 0 and add nothing; 16 terms: tolerance (16 + 2) * 2^-24 * sum|x|.
  runAndCheck("tests/e2e/inputs/group_sum.xt", args, 1, {ceilDiv(M, 8), ceilDiv(N, 64), 1}, 1,
              [&](int64_t e, double* ref, double* tol) {
                int64_t i = e / G, j = e % G;
                double sum = 0, mag = 0;
                for (int64_t c = 16 * j; c < std::min(N, 16 * j + 16); ++c) {
                  sum += x.getFloat(i * N + c);
                  mag += std::fabs(x.getFloat(i * N + c));
                }
                *ref = sum;
                *tol = 18 * kU * mag;
              });
}
TEST(GenericReductionSize, Aligned16x128) { groupSum(16, 128); }
TEST(GenericReductionSize, Unaligned13x45) { groupSum(13, 45); }

// ---- bf16 arithmetic (a test kernel): exact against a per-op bf16 rounding written here ----
// Round an f32 to bf16, nearest even (inputs are finite), independent of the interpreter's rounding.
float roundBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

void bf16SquarePlus(int64_t M, int64_t N) {
  SCOPED_TRACE(testing::Message() << M << "x" << N);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::BF16, {M, N}, static_cast<unsigned>(M * 11 + N), 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::BF16, {M, N}, std::nan(""))));
  const Buffer x = args.args[0].buffer;
  // x * x is exact in f32 (8 + 8 significant bits) and rounded once; bf16(x * x) + x is exact in f32
  // for |x| in [0.25, 2] (exponents differ by at most 5) and rounded once: the reference is exact.
  runAndCheck("tests/e2e/inputs/bf16_square_plus.xt", args, 1, {ceilDiv(M, 8), ceilDiv(N, 16), 1}, 1,
              [&](int64_t e, double* ref, double* tol) {
                float v = static_cast<float>(x.getFloat(e));
                *ref = roundBf16(roundBf16(v * v) + v);
                *tol = 0;
              });
}
TEST(GenericBf16Arith, Aligned16x32) { bf16SquarePlus(16, 32); }
TEST(GenericBf16Arith, Unaligned13x45) { bf16SquarePlus(13, 45); }

// A bf16 row sum: the f32 sum of 32 terms is within 34 * 2^-24 * sum|x| of the exact one, and its
// rounding to bf16 moves it by at most 2^-9 relative (half a bf16 ulp); 2^-8 * |sum| covers that.
void bf16RowSum(int64_t M) {
  SCOPED_TRACE(testing::Message() << M << " rows");
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::BF16, {M, 32}, static_cast<unsigned>(M * 13), 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::BF16, {M, 1}, std::nan(""))));
  const Buffer x = args.args[0].buffer;
  runAndCheck("tests/e2e/inputs/bf16_row_sum.xt", args, 1, {ceilDiv(M, 8), 1, 1}, 1, [&](int64_t i, double* ref, double* tol) {
    double sum = 0, mag = 0;
    for (int64_t j = 0; j < 32; ++j) {
      sum += x.getFloat(i * 32 + j);
      mag += std::fabs(x.getFloat(i * 32 + j));
    }
    *ref = sum;
    *tol = std::ldexp(std::fabs(sum), -8) + 34 * kU * mag;
  });
}
TEST(GenericBf16Arith, RowSum16Rows) { bf16RowSum(16); }
TEST(GenericBf16Arith, RowSum13Rows) { bf16RowSum(13); }

}  // namespace
}  // namespace xtc
