// e2e: the row-wise examples through `xtc compile --target generic` on the CPU OpenCL device, against
// host loops: softmax.xt (subgroup level: reduction max/add and broadcasts over 8x64 tiles) and
// row_sum.xt (workgroup level, 4 subgroups: a loop-carried 32x1 accumulator of row reductions).
#include "tests/e2e/CompileExample.h"
#include "tests/e2e/OpenCLRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace xtc {
namespace {

std::vector<float> randomMatrix(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-3.0f, 3.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    x = d(rng);
    if (x == 0.0f) x = 0.5f;  // never zero
  }
  return v;
}

TEST(ExampleRowOps, Softmax) {
  std::vector<uint32_t> words;
  std::string failure = e2e::compileExample("softmax.xt", words);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int64_t rows : {8, 21, 1}) {
    SCOPED_TRACE(testing::Message() << rows << " rows");
    std::vector<float> x = randomMatrix(rows * 64, static_cast<unsigned>(rows));
    std::vector<uint8_t> xb = e2e::toBytes(x), yb = e2e::toBytes(std::vector<float>(x.size(), std::nanf("")));
    // X: memref<?x64xf32> -> pointer + dim 0 only (dim 1 is static).
    std::vector<e2e::KernelArg> args = {e2e::KernelArg::buf(xb), e2e::KernelArg::i64(rows), e2e::KernelArg::buf(yb),
                                        e2e::KernelArg::i64(rows)};
    size_t global[3] = {static_cast<size_t>((rows + 7) / 8) * 16, 1, 1}, local[3] = {16, 1, 1};
    std::string err;
    ASSERT_TRUE(e2e::runKernel(words, "softmax", args, global, local, &err)) << err;
    std::vector<float> y = e2e::toFloats(yb);
    for (int64_t i = 0; i < rows; ++i) {
      double mx = x[static_cast<size_t>(i * 64)], sum = 0;
      for (int64_t j = 0; j < 64; ++j) mx = std::max(mx, static_cast<double>(x[static_cast<size_t>(i * 64 + j)]));
      for (int64_t j = 0; j < 64; ++j) sum += std::exp(x[static_cast<size_t>(i * 64 + j)] - mx);
      for (int64_t j = 0; j < 64; ++j) {
        double ref = std::exp(x[static_cast<size_t>(i * 64 + j)] - mx) / sum;
        EXPECT_NEAR(y[static_cast<size_t>(i * 64 + j)], ref, 1e-5 * ref + 1e-7) << "Y[" << i << "][" << j << "]";
      }
    }
  }
}

TEST(ExampleRowOps, RowSum) {
  std::vector<uint32_t> words;
  std::string failure = e2e::compileExample("row_sum.xt", words);
  ASSERT_TRUE(failure.empty()) << failure;
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{64, 96}, {45, 70}, {3, 5}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols);
    std::vector<float> x = randomMatrix(rows * cols, static_cast<unsigned>(rows * 7 + cols));
    std::vector<uint8_t> xb = e2e::toBytes(x), sb = e2e::toBytes(std::vector<float>(static_cast<size_t>(rows), std::nanf("")));
    // S: memref<?x1xf32> -> pointer + dim 0.
    std::vector<e2e::KernelArg> args = {e2e::KernelArg::buf(xb), e2e::KernelArg::i64(rows), e2e::KernelArg::i64(cols),
                                        e2e::KernelArg::buf(sb), e2e::KernelArg::i64(rows)};
    // 4 subgroups (sg_layout [4, 1]) of 16 lanes; one workgroup per 32 rows.
    size_t global[3] = {static_cast<size_t>((rows + 31) / 32) * 64, 1, 1}, local[3] = {64, 1, 1};
    std::string err;
    ASSERT_TRUE(e2e::runKernel(words, "row_sum", args, global, local, &err)) << err;
    std::vector<float> s = e2e::toFloats(sb);
    for (int64_t i = 0; i < rows; ++i) {
      double ref = 0, mag = 0;
      for (int64_t j = 0; j < cols; ++j) {
        ref += x[static_cast<size_t>(i * cols + j)];
        mag += std::fabs(x[static_cast<size_t>(i * cols + j)]);
      }
      EXPECT_NEAR(s[static_cast<size_t>(i)], ref, 1e-6 * mag * static_cast<double>(cols) + 1e-6) << "S[" << i << "]";
    }
  }
}

}  // namespace
}  // namespace xtc
