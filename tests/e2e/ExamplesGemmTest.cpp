// e2e: the GEMM examples (examples/*.xt) that compile for the generic target, through the real
// `xtc compile --target generic` + spirv-val, run on the Intel CPU OpenCL device and compared with
//   (a) a plain C++ triple loop in double written here, and
//   (b) the reference interpreter (interp::runKernel) on the frontend's tile IR,
// on seeded random non-zero inputs at aligned sizes, unaligned sizes and K smaller than the K step.
//
// gemm_bt (B given transposed; an in-register transpose per K step) and gemm_i8 (i8 x i8 -> i32)
// run here too.
// gemm_splitk (C += A x B, each workgroup's K chunk added with atomic_rmw addf: lane.atomic, a
// compare-exchange loop in SPIR-V) runs here for generic, pvc and dg2 (portable path on both);
// ExamplesInterpTest.cpp also checks it through the interpreter alone.
// softmax, row_sum, sg_bias_relu, bias_relu, transpose and gather_scatter run on the device and in
// the interpreter in ExamplesRowOpsTest.cpp.
// gemm_bf16 (256x256 blocks, 32 subgroups) runs here at 257x129x65 and K < step (ExampleGemmTest.cpp
// covers small sizes); building its program takes the CPU runtime about 3 s, the launches are fast,
// and the runner caches the built program.
// Every GEMM example also runs at 1000x1000x1000 (device against the C++ reference only: the
// interpreter would take minutes) and 1x4096x512, for generic and emulated pvc/dg2 (GemmLarge below).
//
// Tolerance (float): every product of two f16/bf16 inputs is exact in f32 (11 + 11 <= 24 significant
// bits), an f32 x f32 product rounds once; the accumulation of K terms (plus C for C += A x B) in f32,
// in any order and with or without fused multiply-add, is within gamma * S of the exact sum, where
// S = sum_k |a_ik * b_kj| (+ |c_ij|) and gamma = (K + 2) * 2^-24 (one rounding per addition and per
// product, first-order bound). The device is compared with the interpreter within 2 * gamma * S, since
// both are within gamma * S of the exact value.
#include "ir/Module.h"
#include "tests/e2e/ExampleHarness.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

namespace xtc {
namespace {

using interp::Buffer;
using interp::KernelArg;
using ir::ElemKind;

// One GEMM example and the facts about it the test checks the compiler against.
struct GemmExample {
  const char* file;
  ElemKind in;            // element type of A and B
  int64_t tileM, tileN;   // C block per workgroup (the example's grid rule divides by these)
  int64_t subgroups;      // subgroups per workgroup: wg_size = 16 * subgroups
  bool accumulate;        // C += A x B (C is read) instead of C = A x B
  bool bTransposed = false;  // B is passed as BT (N x K)
  ElemKind acc = ElemKind::F32;  // element type of C
  int64_t splitK = 0;     // K chunk per workgroup along the grid's third dimension (0: no split)
};

const GemmExample kSgF16{"sg_gemm_f16.xt", ElemKind::F16, 8, 32, 1, false};
const GemmExample kWgF16{"gemm_f16.xt", ElemKind::F16, 32, 64, 4, false};
const GemmExample kWgAcc{"gemm_acc.xt", ElemKind::F32, 16, 32, 2, true};
const GemmExample kBt{"gemm_bt.xt", ElemKind::F32, 8, 16, 1, false, true};
const GemmExample kBf16{"gemm_bf16.xt", ElemKind::BF16, 256, 256, 32, false};
const GemmExample kN8{"tests/e2e/inputs/sg_gemm_n8.xt", ElemKind::F32, 8, 8, 1, false};
const GemmExample kI8{"gemm_i8.xt", ElemKind::I8, 32, 32, 4, false, false, ElemKind::I32};
const GemmExample kSgF32{"sg_gemm_f32.xt", ElemKind::F32, 8, 16, 1, false};
const GemmExample kSplitK{"gemm_splitk.xt", ElemKind::F32, 8, 16, 1, true, false, ElemKind::F32, 64};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void runGemm(const GemmExample& ex, int64_t M, int64_t N, int64_t K, bool interpreter = true, const char* target = "generic") {
  SCOPED_TRACE(testing::Message() << ex.file << " --target " << target << " " << M << "x" << N << "x" << K);
  unsigned seed = static_cast<unsigned>(M * 131 + N * 17 + K);
  bool isInt = !ir::isFloatElem(ex.in);
  double lo = isInt ? 1 : 0.25, hi = isInt ? 127 : 2.0;
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ex.in, {M, K}, seed, lo, hi)));
  args.args.push_back(KernelArg::fromBuffer(
      e2e::randomBuffer(ex.in, ex.bTransposed ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N}, seed + 1, lo, hi)));
  // C = A x B: C starts as NaN (an integer C as a garbage pattern), so an element nobody writes fails.
  Buffer c0 = ex.accumulate ? e2e::randomBuffer(ex.acc, {M, N}, seed + 2, 1.0, 8.0)
                            : e2e::filledBuffer(ex.acc, {M, N}, isInt ? 0x5a5a5a5a : std::nan(""));
  args.args.push_back(KernelArg::fromBuffer(c0));
  const Buffer &a = args.args[0].buffer, &b = args.args[1].buffer;

  // Tolerance (floats): gamma * sum|terms| with gamma = (K + 2 + chunks) * 2^-24, see the top of the
  // file; a split-K run adds one rounding per K chunk (each chunk's sum is added to C atomically).
  // Integers (i8 x i8 -> i32, no overflow at these sizes: 127 * 127 * K < 2^31) are exact.
  int64_t chunks = ex.splitK ? ceilDiv(K, ex.splitK) : 0;
  const double gamma = isInt ? 0.0 : static_cast<double>(K + 2 + chunks) * std::ldexp(1.0, -24);
  // A as rows and B as columns in double, converted once (the 1000^3 reference would otherwise
  // spend most of its time converting f16 elements).
  std::vector<double> ad(static_cast<size_t>(M * K)), bd(static_cast<size_t>(K * N));
  for (int64_t i = 0; i < M * K; ++i) ad[static_cast<size_t>(i)] = a.getFloat(i);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) bd[static_cast<size_t>(j * K + k)] = b.getFloat(ex.bTransposed ? j * K + k : k * N + j);
  e2e::runAndCheck(ex.file, args, 2, {ceilDiv(M, ex.tileM), ceilDiv(N, ex.tileN), ex.splitK ? chunks : 1},
                   ex.subgroups, [&](int64_t at, double* ref, double* tol) {
                     int64_t i = at / N, j = at % N;
                     double r = ex.accumulate ? c0.getFloat(at) : 0.0, mag = std::fabs(r);
                     const double* arow = &ad[static_cast<size_t>(i * K)];
                     const double* bcol = &bd[static_cast<size_t>(j * K)];
                     for (int64_t k = 0; k < K; ++k) {
                       double prod = arow[k] * bcol[k];
                       r += prod;
                       mag += std::fabs(prod);
                     }
                     *ref = r;
                     *tol = gamma * mag;
                   }, interpreter, target);
}

// Subgroup-level f16 GEMM (8x32 block, K step 16). Its aligned, small unaligned and K < step cases
// run on the device in ExampleGemmTest.cpp; these are the sizes that file does not cover.
TEST(ExampleSgGemmF16, Unaligned257x129x65) { runGemm(kSgF16, 257, 129, 65); }

// Workgroup-level f16 GEMM (32x64 block, 4 subgroups, K step 16).
TEST(ExampleGemmF16, Aligned64x128x64) { runGemm(kWgF16, 64, 128, 64); }
TEST(ExampleGemmF16, Unaligned257x129x65) { runGemm(kWgF16, 257, 129, 65); }
TEST(ExampleGemmF16, KSmallerThanStep) { runGemm(kWgF16, 33, 65, 7); }

// Workgroup-level C += A x B in f32 (16x32 block, 2 subgroups, K step 8).
TEST(ExampleGemmAcc, Aligned32x64x32) { runGemm(kWgAcc, 32, 64, 32); }
TEST(ExampleGemmAcc, Unaligned257x129x65) { runGemm(kWgAcc, 257, 129, 65); }
TEST(ExampleGemmAcc, KSmallerThanStep) { runGemm(kWgAcc, 17, 33, 3); }

// C = A x transpose(BT) in f32 (8x16 block, 1 subgroup, K step 8): BT's 16x8 block is transposed in
// registers every K step.
TEST(ExampleGemmBt, Aligned64x64x64) { runGemm(kBt, 64, 64, 64); }
TEST(ExampleGemmBt, Unaligned257x129x65) { runGemm(kBt, 257, 129, 65); }
TEST(ExampleGemmBt, KSmallerThanStep) { runGemm(kBt, 9, 17, 3); }

// bf16 GEMM (256x256 block, 32 subgroups): the unaligned size issue #11 asks for.
TEST(ExampleGemmBf16, Unaligned257x129x65) { runGemm(kBf16, 257, 129, 65); }
TEST(ExampleGemmBf16, KSmallerThanStep) { runGemm(kBf16, 40, 300, 9); }

// Split-K C += A x B in f32 (8x16 block, K chunks of 64 per workgroup along the grid's z): several
// workgroups add into each C element with atomic_rmw addf (4 and 3 chunks here).
TEST(ExampleGemmSplitK, Aligned64x64x256) { runGemm(kSplitK, 64, 64, 256); }
TEST(ExampleGemmSplitK, Unaligned257x129x150) { runGemm(kSplitK, 257, 129, 150); }
TEST(ExampleGemmSplitK, KSmallerThanStep) { runGemm(kSplitK, 9, 17, 5); }

// C blocks narrower than the subgroup (8x8, K step 4; a test kernel, not an example): lower-generic's
// shuffle path for tile_mma with N % 16 != 0.
TEST(GemmNarrowN, Aligned64x64x64) { runGemm(kN8, 64, 64, 64); }
TEST(GemmNarrowN, Unaligned37x29x13) { runGemm(kN8, 37, 29, 13); }

// i8 x i8 -> i32 (32x32 block, 4 subgroups, K step 32): exact.
TEST(ExampleGemmI8, Aligned64x64x64) { runGemm(kI8, 64, 64, 64); }
TEST(ExampleGemmI8, Unaligned257x129x65) { runGemm(kI8, 257, 129, 65); }
TEST(ExampleGemmI8, KSmallerThanStep) { runGemm(kI8, 40, 50, 7); }

// The same GEMMs compiled for pvc with --emulate-xe and dg2 with --emulate-xe=except-block-io (the Xe
// lowering: 2D block loads on pvc, 1-D subgroup block reads in the interior K loops and per-lane
// loads at the edges on dg2, which the CPU device runs as compiled; DPAS operands with one (pvc) or
// two (dg2) f16 and two (pvc) or four (dg2) i8 elements of a row of A per lane), at issue #11's
// sizes; each example's emulated program is built once per process and cached on disk
// (OpenCLRunner.cpp). gemm_bf16 is in GemmLarge below (its 32 subgroups x 256 f32 accumulators per
// lane make a large program; XeEmulatedGemmTest.cpp has it on pvc).
class GemmXe : public testing::TestWithParam<const char*> {};
TEST_P(GemmXe, F16Unaligned257x129x65) { runGemm(kWgF16, 257, 129, 65, true, GetParam()); }
TEST_P(GemmXe, F16KSmallerThanStep) { runGemm(kWgF16, 33, 65, 7, true, GetParam()); }
TEST_P(GemmXe, SgF16Unaligned257x129x65) { runGemm(kSgF16, 257, 129, 65, true, GetParam()); }
TEST_P(GemmXe, SgF16KSmallerThanStep) { runGemm(kSgF16, 9, 33, 5, true, GetParam()); }
TEST_P(GemmXe, SgF32Unaligned257x129x65) { runGemm(kSgF32, 257, 129, 65, true, GetParam()); }
TEST_P(GemmXe, SgF32KSmallerThanStep) { runGemm(kSgF32, 9, 17, 3, true, GetParam()); }
TEST_P(GemmXe, AccUnaligned257x129x65) { runGemm(kWgAcc, 257, 129, 65, true, GetParam()); }
TEST_P(GemmXe, AccKSmallerThanStep) { runGemm(kWgAcc, 17, 33, 3, true, GetParam()); }
TEST_P(GemmXe, BtUnaligned257x129x65) { runGemm(kBt, 257, 129, 65, true, GetParam()); }
TEST_P(GemmXe, BtKSmallerThanStep) { runGemm(kBt, 9, 17, 3, true, GetParam()); }
TEST_P(GemmXe, I8Unaligned257x129x65) { runGemm(kI8, 257, 129, 65, true, GetParam()); }
TEST_P(GemmXe, I8KSmallerThanStep) { runGemm(kI8, 40, 50, 7, true, GetParam()); }
TEST_P(GemmXe, SplitKUnaligned257x129x150) { runGemm(kSplitK, 257, 129, 150, true, GetParam()); }
INSTANTIATE_TEST_SUITE_P(Emulated, GemmXe, testing::Values("pvc", "dg2"));
// Issue #11's 1000x1000x1000 and 1x4096x512 for every GEMM example on every target (pvc and dg2
// emulated): the large size against the C++ reference only (the interpreter would take minutes;
// measured 1-3 s per run on this machine with the program cached), the one-row size against both.
// gemm_bf16 on dg2 (8 slice loops, 384 block reads per K step) takes the CPU runtime about 40 s of
// CPU to build with its block reads kept (fully emulated, each a row of per-lane loads, far longer).
using GemmRun = std::tuple<const GemmExample*, const char*>;
class GemmLarge : public testing::TestWithParam<GemmRun> {};
TEST_P(GemmLarge, Large1000x1000x1000) {
  runGemm(*std::get<0>(GetParam()), 1000, 1000, 1000, false, std::get<1>(GetParam()));
}
TEST_P(GemmLarge, OneRow1x4096x512) { runGemm(*std::get<0>(GetParam()), 1, 4096, 512, true, std::get<1>(GetParam())); }
std::vector<GemmRun> largeRuns() {
  std::vector<GemmRun> runs;
  for (const GemmExample* ex : {&kSgF16, &kWgF16, &kWgAcc, &kBt, &kBf16, &kI8, &kSgF32, &kSplitK})
    for (const char* target : {"generic", "pvc", "dg2"}) runs.push_back({ex, target});
  return runs;
}
INSTANTIATE_TEST_SUITE_P(Examples, GemmLarge, testing::ValuesIn(largeRuns()), [](const auto& info) {
  std::string file = std::get<0>(info.param)->file;
  std::string name = file.substr(0, file.find('.')) + "_" + std::get<1>(info.param);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace xtc
