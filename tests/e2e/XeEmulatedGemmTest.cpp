// e2e: the pvc/dg2 pipeline (blocking, layout-assignment, resolve-layouts, lower-xe) executed on the
// CPU OpenCL device: `xtc compile examples/<gemm>.xt --target pvc|dg2 --emulate-xe` turns every xe.* op into
// portable lane ops with the hardware's per-lane data placement (ir/passes/EmulateXe.cpp), so the
// 2D block loads (plain and VNNI), the layout conversions and the DPAS operand gathering of lower-xe
// are checked against a plain C++ GEMM in double, on seeded random non-zero bf16/f16 inputs; the
// unaligned case exercises the zero fill of out-of-bounds rows and columns (K = 40 is not a multiple
// of the K step 32). What emulation cannot check: the hardware itself (the ISA tests cover the
// builtins' forms) and the 2D surface rules (pitch multiple of 16 bytes, which 40 bf16 columns break).
// Tolerance: bf16 x bf16 products are exact in f32; K f32 additions are within (K + 2) 2^-24 sum|a b|.
#include "tests/e2e/ExampleHarness.h"

#include <gtest/gtest.h>

#include <cmath>

namespace xtc {
namespace {

using interp::Buffer;
using interp::KernelArg;
using ir::ElemKind;

// An example, the target it is compiled for, and the facts its launch rule and wg_size follow from.
struct Case {
  const char* file;
  const char* target;
  ElemKind in;
  int64_t tileM, tileN;  // C block per workgroup
  int64_t wgSize;        // work-items per workgroup (subgroups x the target's subgroup size)
};

void runGemm(const Case& ex, int64_t M, int64_t N, int64_t K) {
  SCOPED_TRACE(::testing::Message() << ex.file << " --target " << ex.target << " --emulate-xe " << M << "x" << N
                                    << "x" << K);
  const e2e::PreparedExample& p = e2e::prepareExample(ex.file, ex.target);
  ASSERT_TRUE(p.failure.empty()) << p.failure;

  unsigned seed = static_cast<unsigned>(M * 7 + N * 131 + K);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ex.in, {M, K}, seed, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ex.in, {K, N}, seed + 1, 0.25, 2.0)));
  // NaN marks every element the kernel must write.
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {M, N}, std::nan(""))));
  const Buffer a = args.args[0].buffer, b = args.args[1].buffer;
  std::array<int64_t, 3> grid = interp::evaluateLaunchGrid(*p.tile.kernel, args);
  ASSERT_EQ(grid, (std::array<int64_t, 3>{(M + ex.tileM - 1) / ex.tileM, (N + ex.tileN - 1) / ex.tileN, 1}));
  std::string err;
  ASSERT_TRUE(e2e::runOnDevice(p.spirv, *p.tile.kernel, args, grid, {ex.wgSize, 1, 1}, &err)) << err;
  const Buffer& c = args.args[2].buffer;
  const double gamma = static_cast<double>(K + 2) * std::ldexp(1.0, -24);
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        double prod = a.getFloat(i * K + k) * b.getFloat(k * N + j);
        ref += prod;
        mag += std::fabs(prod);
      }
      double got = c.getFloat(i * N + j);
      if (!(std::fabs(got - ref) <= gamma * mag) && bad++ < 5)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", expected " << ref << " (tolerance " << gamma * mag
                      << ")";
    }
  EXPECT_EQ(bad, 0);
}

// gemm_bf16: 2D block loads (plain A, VNNI B), a register-permutation conversion for A, 32 DPAS.
const Case kBf16Pvc{"gemm_bf16.xt", "pvc", ElemKind::BF16, 256, 256, 512};
// gemm_f16 / sg_gemm_f16: 16-wide A tiles no measured 2D message fits: per-lane loads in the DPAS A
// layout, B through VNNI 2D loads.
const Case kF16Pvc{"gemm_f16.xt", "pvc", ElemKind::F16, 32, 64, 64};
const Case kSgF16Pvc{"sg_gemm_f16.xt", "pvc", ElemKind::F16, 8, 32, 16};
// dg2: no 2D block IO, every load per lane; DPAS with 8 lanes (A packs two K elements per lane).
const Case kF16Dg2{"gemm_f16.xt", "dg2", ElemKind::F16, 32, 64, 32};

TEST(XeEmulatedGemm, Bf16PvcAligned256x256x64) { runGemm(kBf16Pvc, 256, 256, 64); }
TEST(XeEmulatedGemm, Bf16PvcUnaligned200x136x40) { runGemm(kBf16Pvc, 200, 136, 40); }
TEST(XeEmulatedGemm, F16PvcUnaligned65x129x33) { runGemm(kF16Pvc, 65, 129, 33); }
TEST(XeEmulatedGemm, SgF16PvcUnaligned33x47x19) { runGemm(kSgF16Pvc, 33, 47, 19); }
TEST(XeEmulatedGemm, F16Dg2Unaligned65x129x33) { runGemm(kF16Dg2, 65, 129, 33); }

}  // namespace
}  // namespace xtc
