// The examples that do not compile for the generic target yet (see the list at the top of
// ExamplesGemmTest.cpp), checked through the reference interpreter on the frontend's tile IR against
// plain C++ references written here, on seeded random non-zero inputs at aligned and unaligned sizes.
// This pins down what each example computes, so a device test only has to be added to
// ExamplesGemmTest.cpp once lower-generic supports the example's ops.
//
// Tolerances: sums of n f32 terms are within (n + 2) * 2^-24 * sum|terms| of the exact value
// (first-order bound, any order). Today only gemm_splitk, which also runs on the device in
// ExamplesGemmTest.cpp (lane.atomic), like every other example there or in ExamplesRowOpsTest.cpp.
#include "tests/e2e/ExampleHarness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace xtc {
namespace {

using interp::Buffer;
using interp::KernelArg;
using ir::ElemKind;

const e2e::TileKernel& load(const char* file) {
  static std::map<std::string, std::unique_ptr<e2e::TileKernel>> cache;
  static std::map<std::string, std::string> failures;
  std::unique_ptr<e2e::TileKernel>& k = cache[file];
  if (!k) {
    k = std::make_unique<e2e::TileKernel>();
    std::string err;
    if (!e2e::loadExample(file, *k, &err)) failures[file] = err;
  }
  EXPECT_TRUE(failures[file].empty()) << failures[file];
  return *k;
}

// Runs `file` on `args` through the interpreter; fails the test (returns false) if anything fails.
bool run(const char* file, interp::KernelArgs& args, const std::array<int64_t, 3>& expectedGrid) {
  const e2e::TileKernel& k = load(file);
  if (!k.kernel) return false;
  EXPECT_EQ(interp::evaluateLaunchGrid(*k.kernel, args), expectedGrid);
  std::string err;
  bool ok = e2e::interpret(*k.kernel, args, &err);
  EXPECT_TRUE(ok) << err;
  return ok;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
const double kU = std::ldexp(1.0, -24);  // f32 unit roundoff

// ---- gemm_splitk: an f32 GEMM checked against a double triple loop ----
// C = C0 + A x B (C0 is C's input, or 0 without one).
void checkGemmF32(const Buffer& a, const Buffer& b, const Buffer* c0, const Buffer& got, int64_t M,
                  int64_t N, int64_t K, int64_t extraRoundings) {
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = c0 ? c0->getFloat(i * N + j) : 0.0, mag = std::fabs(ref);
      for (int64_t k = 0; k < K; ++k) {
        double p = a.getFloat(i * K + k) * b.getFloat(k * N + j);
        ref += p;
        mag += std::fabs(p);
      }
      double g = got.getFloat(i * N + j), tol = static_cast<double>(K + 2 + extraRoundings) * kU * mag;
      if (!(std::fabs(g - ref) <= tol) && bad++ < 5)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << g << ", expected " << ref << " +- " << tol;
    }
  EXPECT_EQ(bad, 0);
}

void gemmSplitK(int64_t M, int64_t N, int64_t K) {
  SCOPED_TRACE(testing::Message() << M << "x" << N << "x" << K);
  unsigned seed = static_cast<unsigned>(13 * M + 7 * N + K);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, K}, seed, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {K, N}, seed + 1, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::F32, {M, N}, seed + 2, 1.0, 8.0)));
  Buffer c0 = args.args[2].buffer;
  ASSERT_TRUE(run("gemm_splitk.xt", args, {ceilDiv(M, 8), ceilDiv(N, 16), ceilDiv(K, 64)}));
  // One more rounding per K chunk (each chunk's partial sum is added to C atomically).
  checkGemmF32(args.args[0].buffer, args.args[1].buffer, &c0, args.args[2].buffer, M, N, K, ceilDiv(K, 64));
}
TEST(ExampleInterpGemmSplitK, Aligned32x32x256) { gemmSplitK(32, 32, 256); }
TEST(ExampleInterpGemmSplitK, Unaligned257x129x65) { gemmSplitK(257, 129, 65); }
TEST(ExampleInterpGemmSplitK, KSmallerThanStep) { gemmSplitK(10, 20, 5); }

}  // namespace
}  // namespace xtc
