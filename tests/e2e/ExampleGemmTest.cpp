// e2e: examples/sg_gemm_f32.xt through the real command line (`xtc compile --target generic`), the
// binary checked by spirv-val, then run on the Intel CPU OpenCL device at aligned and unaligned
// sizes and compared element by element with a plain C++ triple loop.
#include "tests/e2e/OpenCLRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <cstdio>
#include <cstring>
#include <random>

#include <unistd.h>

namespace xtc {
namespace {

// The xtc binary of this build (tests/e2e/CMakeLists.txt); XTC_BINARY overrides it.
std::string xtcBinary() {
  const char* x = std::getenv("XTC_BINARY");
  return x && *x ? x : XTC_BINARY_PATH;
}

std::string tempPath(const std::string& name) {
  const char* d = std::getenv("TMPDIR");
  return std::string(d ? d : "/tmp") + "/xtc_e2e_" + std::to_string(::getpid()) + "_" + name;
}

bool readWords(const std::string& path, std::vector<uint32_t>& words) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4) return false;
  words.resize(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return true;
}

class SgGemmExample : public testing::Test {
protected:
  // Compiled once, in the first test (a failure in SetUpTestSuite would make ctest report the tests
  // as skipped, not failed); every test asserts it worked.
  void SetUp() override {
    static bool tried = false;
    static std::string failure;
    if (!tried) {
      tried = true;
      std::string spv = tempPath("sg_gemm.spv");
      std::string cmd = xtcBinary() + " compile " XTC_SOURCE_DIR "/examples/sg_gemm_f32.xt --target generic -o " + spv;
      if (std::system(cmd.c_str()) != 0) failure = "failed: " + cmd;
      else if (std::system(("spirv-val " + spv).c_str()) != 0) failure = "spirv-val rejects " + spv;
      else if (!readWords(spv, words_)) failure = "cannot read " + spv;
      std::remove(spv.c_str());
    }
    ASSERT_TRUE(failure.empty()) << failure;
  }

  // The example's launch rule: grid = (ceildiv(M, 8), ceildiv(N, 16)); one 16-lane subgroup each.
  void run(int64_t M, int64_t N, int64_t K) {
    ASSERT_FALSE(words_.empty());
    std::mt19937 rng(static_cast<unsigned>(1000 + M * 7 + N * 3 + K));
    std::uniform_real_distribution<float> dist(0.25f, 2.0f);  // never zero
    std::vector<float> a(static_cast<size_t>(M * K)), b(static_cast<size_t>(K * N));
    for (float& x : a) x = rng() % 2 ? dist(rng) : -dist(rng);
    for (float& x : b) x = rng() % 2 ? dist(rng) : -dist(rng);
    std::vector<float> c(static_cast<size_t>(M * N), std::nanf(""));
    std::vector<uint8_t> ab = e2e::toBytes(a), bb = e2e::toBytes(b), cb = e2e::toBytes(c);
    std::vector<e2e::KernelArg> args = {e2e::KernelArg::buf(ab), e2e::KernelArg::i64(M), e2e::KernelArg::i64(K),
                                        e2e::KernelArg::buf(bb), e2e::KernelArg::i64(K), e2e::KernelArg::i64(N),
                                        e2e::KernelArg::buf(cb), e2e::KernelArg::i64(M), e2e::KernelArg::i64(N)};
    size_t global[3] = {static_cast<size_t>((M + 7) / 8) * 16, static_cast<size_t>((N + 15) / 16), 1};
    size_t local[3] = {16, 1, 1};
    std::string err;
    ASSERT_TRUE(e2e::runKernel(words_, "sg_gemm", args, global, local, &err)) << err;
    std::vector<float> got = e2e::toFloats(cb);
    int bad = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          double p = static_cast<double>(a[static_cast<size_t>(i * K + k)]) * b[static_cast<size_t>(k * N + j)];
          ref += p;
          mag += std::fabs(p);
        }
        double g = got[static_cast<size_t>(i * N + j)];
        if (!(std::fabs(g - ref) <= 1e-6 + 2.0 * static_cast<double>(K) * 1.2e-7 * mag) && bad++ < 5)
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << g << ", expected " << ref;
      }
    EXPECT_EQ(bad, 0);
  }

  static std::vector<uint32_t> words_;
};

std::vector<uint32_t> SgGemmExample::words_;

TEST_F(SgGemmExample, Aligned64x64x64) { run(64, 64, 64); }
TEST_F(SgGemmExample, Unaligned33x47x19) { run(33, 47, 19); }
TEST_F(SgGemmExample, KSmallerThanStep) { run(24, 32, 3); }
TEST_F(SgGemmExample, SingleElement) { run(1, 1, 1); }

}  // namespace
}  // namespace xtc
