// e2e: the row-wise examples that compile for the generic target -- softmax.xt (subgroup level),
// row_sum.xt (workgroup level, 4 subgroups) and sg_bias_relu.xt (subgroup level) -- through the real
// `xtc compile --target generic` + spirv-val, run on the CPU OpenCL device and compared with
//   (a) plain C++ references in double written here, and
//   (b) the reference interpreter on the frontend's tile IR,
// on seeded random non-zero inputs at aligned and unaligned sizes. (ExampleRowOpsTest.cpp runs softmax
// and row_sum on the device against host loops only; this file adds the interpreter and other sizes.)
//
// Tolerances: sg_bias_relu is exact (the f32 sum of two f32 inputs is their double sum rounded once,
// then max with 0). row_sum: a sum of n f32 terms in any order is within (n + 2) * 2^-24 * sum|x| of the
// exact sum. softmax: relative 2^-17 (exp, the 64-term sum and the division each add a few f32
// roundings; 64 * 2^-24 = 2^-18). Device and interpreter, each within tol of the exact value, must
// agree within 2 * tol.
#include "tests/e2e/ExampleHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace xtc {
namespace {

using interp::Buffer;
using interp::KernelArg;
using ir::ElemKind;

struct Prepared {
  std::string failure;
  e2e::TileKernel tile;
  std::vector<uint32_t> spirv;
};

// Frontend + `xtc compile` once per example, asserted in every test.
const Prepared& prepare(const char* file) {
  static std::map<std::string, std::unique_ptr<Prepared>> cache;
  std::unique_ptr<Prepared>& p = cache[file];
  if (!p) {
    p = std::make_unique<Prepared>();
    std::string err;
    if (!e2e::loadExample(file, p->tile, &err)) p->failure = err;
    else if (!e2e::compileExampleGeneric(file, p->spirv, &err)) p->failure = err;
  }
  return *p;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
const double kU = std::ldexp(1.0, -24);  // f32 unit roundoff

// Runs `file` on copies of `args` in the interpreter and on the device; `out` is the index of the
// output argument. `expect(e, &ref, &tol)` gives element e's exact value and tolerance.
void runAndCheck(const char* file, const interp::KernelArgs& args, size_t out, const std::array<int64_t, 3>& grid,
                 int64_t subgroups, const std::function<void(int64_t, double*, double*)>& expect) {
  const Prepared& p = prepare(file);
  ASSERT_TRUE(p.failure.empty()) << p.failure;
  ASSERT_EQ(interp::evaluateLaunchGrid(*p.tile.kernel, args), grid);
  interp::KernelArgs onInterp = args, onDevice = args;
  std::string err;
  ASSERT_TRUE(e2e::interpret(*p.tile.kernel, onInterp, &err)) << err;
  ASSERT_TRUE(e2e::runOnDevice(p.spirv, *p.tile.kernel, onDevice, grid, {16 * subgroups, 1, 1}, &err)) << err;
  const Buffer &dev = onDevice.args[out].buffer, &itp = onInterp.args[out].buffer;
  int bad = 0;
  for (int64_t e = 0; e < dev.numElements(); ++e) {
    double ref = 0, tol = 0;
    expect(e, &ref, &tol);
    double d = dev.getFloat(e), i = itp.getFloat(e);
    bool ok = std::fabs(d - ref) <= tol && std::fabs(i - ref) <= tol && std::fabs(d - i) <= 2 * tol;
    if (!ok && bad++ < 5)
      ADD_FAILURE() << "element " << e << ": device " << d << ", interpreter " << i << ", reference " << ref
                    << " (tolerance " << tol << ")";
  }
  EXPECT_EQ(bad, 0);
}

// ---- softmax: rows of 64, 8 rows per subgroup ----
void softmax(int64_t M) {
  SCOPED_TRACE(testing::Message() << M << " rows");
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
  });
}
TEST(ExampleSoftmax, Aligned32Rows) { softmax(32); }
TEST(ExampleSoftmax, Unaligned37Rows) { softmax(37); }

// ---- row_sum: 32 rows per workgroup, columns in blocks of 32 ----
void rowSum(int64_t M, int64_t N) {
  SCOPED_TRACE(testing::Message() << M << "x" << N);
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
  });
}
TEST(ExampleRowSum, Aligned64x128) { rowSum(64, 128); }
TEST(ExampleRowSum, Unaligned70x100) { rowSum(70, 100); }
TEST(ExampleRowSum, NarrowerThanBlock5x7) { rowSum(5, 7); }

// ---- sg_bias_relu: exact ----
void sgBiasRelu(int64_t M, int64_t N) {
  SCOPED_TRACE(testing::Message() << M << "x" << N);
  unsigned seed = static_cast<unsigned>(M * 3 + N);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, N}, seed, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {1, N}, seed + 1, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {M, N}, std::nan(""))));
  const Buffer x = args.args[0].buffer, bias = args.args[1].buffer;
  int positive = 0;
  runAndCheck("sg_bias_relu.xt", args, 2, {ceilDiv(M, 8), ceilDiv(N, 32), 1}, 1, [&](int64_t e, double* ref, double* tol) {
    float y = static_cast<float>(x.getFloat(e)) + static_cast<float>(bias.getFloat(e % N));
    *ref = std::max(y, 0.0f);
    *tol = 0;
    positive += *ref > 0;
  });
  EXPECT_GT(positive, 0);  // the inputs exercise both sides of the relu
  EXPECT_LT(positive, M * N);
}
TEST(ExampleSgBiasRelu, Aligned32x64) { sgBiasRelu(32, 64); }
TEST(ExampleSgBiasRelu, Unaligned37x45) { sgBiasRelu(37, 45); }

}  // namespace
}  // namespace xtc
