// e2e: GEMM examples (examples/*.xt) through the real command line (`xtc compile --target generic`),
// the binary checked by spirv-val, then run on the Intel CPU OpenCL device at aligned and unaligned
// sizes and compared element by element with a plain C++ triple loop.
#include "tests/e2e/CompileExample.h"
#include "tests/e2e/OpenCLRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>

namespace xtc {
namespace {

// One GEMM example: its file and kernel, the input element type, the C block one workgroup computes
// (its launch rule is grid = (ceildiv(M, blockM), ceildiv(N, blockN))) and its workgroup size in
// work-items (subgroups x 16), all read off the example's source by hand.
struct GemmExample {
  const char* file;
  const char* kernel;
  const char* elem;  // "f32", "f16" or "bf16"
  int64_t blockM, blockN, wgSize;
};

// A/B values k/4 with small integers k != 0: exact in f16 and bf16, and every partial sum of the
// products is exact in f32, so the device result must equal the host's exactly.
float exactValue(std::mt19937& rng) {
  int k = static_cast<int>(rng() % 16) - 8;
  return static_cast<float>(k == 0 ? 3 : k) / 4.0f;
}

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// f32 -> bf16/f16 bits for the values above (normal numbers whose low mantissa bits are zero).
void appendElem(std::vector<uint8_t>& out, float f, const std::string& elem) {
  uint32_t u = floatBits(f);
  if (elem == "f32") {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(u >> (8 * i)));
    return;
  }
  uint16_t h;
  if (elem == "bf16") {
    h = static_cast<uint16_t>(u >> 16);
  } else {
    uint32_t sign = (u >> 16) & 0x8000u, exp = (u >> 23) & 0xffu, mant = u & 0x7fffffu;
    h = static_cast<uint16_t>(sign | ((exp - 127 + 15) << 10) | (mant >> 13));
  }
  out.push_back(static_cast<uint8_t>(h));
  out.push_back(static_cast<uint8_t>(h >> 8));
}

class ExampleGemm : public testing::TestWithParam<GemmExample> {
protected:
  // Compiles the example with `xtc compile --target generic` (once per example) and checks the
  // binary with spirv-val. Done in the test, not in SetUpTestSuite: a failure there makes ctest
  // report the tests as skipped instead of failed.
  const std::vector<uint32_t>* compiled() {
    static std::map<std::string, std::pair<std::vector<uint32_t>, std::string>> cache;
    const GemmExample& ex = GetParam();
    auto it = cache.find(ex.file);
    if (it == cache.end()) {
      std::vector<uint32_t> words;
      std::string failure = e2e::compileExample(ex.file, words);
      it = cache.emplace(ex.file, std::make_pair(words, failure)).first;
    }
    EXPECT_TRUE(it->second.second.empty()) << it->second.second;
    return it->second.second.empty() ? &it->second.first : nullptr;
  }

  void run(int64_t M, int64_t N, int64_t K) {
    const GemmExample& ex = GetParam();
    SCOPED_TRACE(testing::Message() << ex.file << " " << M << "x" << N << "x" << K);
    const std::vector<uint32_t>* words = compiled();
    ASSERT_TRUE(words);
    std::mt19937 rng(static_cast<unsigned>(1000 + M * 7 + N * 3 + K));
    std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
    for (float& x : a) x = exactValue(rng);
    for (float& x : b) x = exactValue(rng);
    std::vector<uint8_t> ab, bb;
    for (float x : a) appendElem(ab, x, ex.elem);
    for (float x : b) appendElem(bb, x, ex.elem);
    // C starts as NaN: an element the kernel does not write fails the comparison.
    std::vector<uint8_t> cb = e2e::toBytes(std::vector<float>(static_cast<size_t>(M * N), std::nanf("")));
    std::vector<e2e::KernelArg> args = {e2e::KernelArg::buf(ab), e2e::KernelArg::i64(M), e2e::KernelArg::i64(K),
                                        e2e::KernelArg::buf(bb), e2e::KernelArg::i64(K), e2e::KernelArg::i64(N),
                                        e2e::KernelArg::buf(cb), e2e::KernelArg::i64(M), e2e::KernelArg::i64(N)};
    size_t global[3] = {static_cast<size_t>((M + ex.blockM - 1) / ex.blockM * ex.wgSize),
                        static_cast<size_t>((N + ex.blockN - 1) / ex.blockN), 1};
    size_t local[3] = {static_cast<size_t>(ex.wgSize), 1, 1};
    std::string err;
    ASSERT_TRUE(e2e::runKernel(*words, ex.kernel, args, global, local, &err)) << err;
    std::vector<float> got = e2e::toFloats(cb);
    int bad = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float ref = 0;  // exact: see exactValue
        for (int64_t k = 0; k < K; ++k) ref += a[static_cast<size_t>(i * K + k)] * b[static_cast<size_t>(k * N + j)];
        float g = got[static_cast<size_t>(i * N + j)];
        if (floatBits(g) != floatBits(ref) && bad++ < 5)
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << g << ", expected " << ref;
      }
    EXPECT_EQ(bad, 0);
  }
};

TEST_P(ExampleGemm, Aligned64x64x64) { run(64, 64, 64); }
TEST_P(ExampleGemm, Unaligned33x47x19) { run(33, 47, 19); }
TEST_P(ExampleGemm, KSmallerThanStep) { run(24, 40, 3); }
TEST_P(ExampleGemm, SingleElement) { run(1, 1, 1); }

INSTANTIATE_TEST_SUITE_P(
    Examples, ExampleGemm,
    testing::Values(GemmExample{"sg_gemm_f32.xt", "sg_gemm", "f32", 8, 16, 16},
                    GemmExample{"sg_gemm_f16.xt", "sg_gemm_f16", "f16", 8, 32, 16},
                    // Workgroup level: wg-distribute, then lower-generic; 8x4 subgroups of 32x64.
                    GemmExample{"gemm_bf16.xt", "gemm", "bf16", 256, 256, 32 * 16}),
    [](const testing::TestParamInfo<GemmExample>& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

}  // namespace
}  // namespace xtc
