// e2e: the pvc pipeline (blocking, layout-assignment, resolve-layouts, lower-xe) executed on the CPU
// OpenCL device: `xtc compile examples/gemm_bf16.xt --target pvc --emulate-xe` turns every xe.* op into
// portable lane ops with the hardware's per-lane data placement (ir/passes/EmulateXe.cpp), so the
// 2D block loads (plain and VNNI), the layout conversions and the DPAS operand gathering of lower-xe
// are checked against a plain C++ GEMM in double, on seeded random non-zero bf16 inputs; the
// unaligned case exercises the zero fill of out-of-bounds rows and columns (K = 40 is not a multiple
// of the K step 32). What emulation cannot check: the hardware itself (the ISA tests cover the
// builtins' forms) and the 2D surface rules (pitch multiple of 16 bytes, which 40 bf16 columns break).
// Tolerance: bf16 x bf16 products are exact in f32; K f32 additions are within (K + 2) 2^-24 sum|a b|.
#include "tests/e2e/ExampleHarness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace xtc {
namespace {

using interp::Buffer;
using interp::KernelArg;
using ir::ElemKind;

std::string xtcBinary() {
  const char* env = std::getenv("XTC_BINARY");
  return env && *env ? env : XTC_BINARY_PATH;
}

// `xtc compile --target pvc --emulate-xe`, spirv-val, and the words of the binary.
bool compileEmulated(const std::string& file, std::vector<uint32_t>& words, std::string* error) {
  std::string spv = ::testing::TempDir() + "xe_emulated_" + file + ".spv";
  std::string cmd = xtcBinary() + " compile " XTC_SOURCE_DIR "/examples/" + file + " --target pvc --emulate-xe -o " + spv;
  if (std::system(cmd.c_str()) != 0) return *error = "failed: " + cmd, false;
  if (std::system(("spirv-val " + spv).c_str()) != 0) return *error = "spirv-val rejects " + spv, false;
  std::ifstream in(spv, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4) return *error = "empty or truncated " + spv, false;
  words.resize(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return true;
}

void runGemmBf16(int64_t M, int64_t N, int64_t K) {
  SCOPED_TRACE(::testing::Message() << "gemm_bf16 pvc --emulate-xe " << M << "x" << N << "x" << K);
  static std::vector<uint32_t> words;
  static e2e::TileKernel tile;
  static std::string failure = [] {
    std::string err;
    if (!e2e::loadExample("gemm_bf16.xt", tile, &err)) return err;
    if (!compileEmulated("gemm_bf16.xt", words, &err)) return err;
    return std::string();
  }();
  ASSERT_TRUE(failure.empty()) << failure;

  unsigned seed = static_cast<unsigned>(M * 7 + N * 131 + K);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::BF16, {M, K}, seed, 0.25, 2.0)));
  args.args.push_back(KernelArg::fromBuffer(e2e::randomBuffer(ElemKind::BF16, {K, N}, seed + 1, 0.25, 2.0)));
  // NaN marks every element the kernel must write.
  args.args.push_back(KernelArg::fromBuffer(e2e::filledBuffer(ElemKind::F32, {M, N}, std::nan(""))));
  const Buffer a = args.args[0].buffer, b = args.args[1].buffer;
  std::array<int64_t, 3> grid = interp::evaluateLaunchGrid(*tile.kernel, args);
  ASSERT_EQ(grid, (std::array<int64_t, 3>{(M + 255) / 256, (N + 255) / 256, 1}));
  std::string err;
  // 32 subgroups of 16 lanes (the kernel's wg_size from lower-xe).
  ASSERT_TRUE(e2e::runOnDevice(words, *tile.kernel, args, grid, {512, 1, 1}, &err)) << err;
  const Buffer& c = args.args[2].buffer;
  const double gamma = static_cast<double>(K + 2) * std::ldexp(1.0, -24);
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        double p = a.getFloat(i * K + k) * b.getFloat(k * N + j);
        ref += p;
        mag += std::fabs(p);
      }
      double got = c.getFloat(i * N + j);
      if (!(std::fabs(got - ref) <= gamma * mag) && bad++ < 5)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", expected " << ref << " (tolerance " << gamma * mag
                      << ")";
    }
  EXPECT_EQ(bad, 0);
}

TEST(XeEmulatedGemm, Bf16Aligned256x256x64) { runGemmBf16(256, 256, 64); }
TEST(XeEmulatedGemm, Bf16Unaligned200x136x40) { runGemmBf16(200, 136, 40); }

}  // namespace
}  // namespace xtc
