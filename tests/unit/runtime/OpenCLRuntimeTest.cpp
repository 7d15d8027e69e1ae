// The OpenCL runtime of `xtc run` launching a hand-written kernel (LLVM IR -> llvm-as-15 ->
// llvm-spirv-15) on the Intel CPU OpenCL device, with ABI-style arguments (buffer, i64 size,
// buffer): out[i] = 2 * in[i] + n. No environment variable is set: the runtime finds the
// project's CPU runtime itself.
#include "driver/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace xtc::driver::runtime;

namespace {

const char* kKernel = R"(
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
declare spir_func i64 @_Z13get_global_idj(i32)
define spir_kernel void @axpn(float addrspace(1)* %in, i64 %n, float addrspace(1)* %out) {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %ok = icmp slt i64 %i, %n
  br i1 %ok, label %body, label %done
body:
  %p = getelementptr inbounds float, float addrspace(1)* %in, i64 %i
  %x = load float, float addrspace(1)* %p, align 4
  %x2 = fmul float %x, 2.000000e+00
  %nf = sitofp i64 %n to float
  %r = fadd float %x2, %nf
  %q = getelementptr inbounds float, float addrspace(1)* %out, i64 %i
  store float %r, float addrspace(1)* %q, align 4
  br label %done
done:
  ret void
}
)";

std::vector<uint32_t> buildSpirv() {
  // ctest runs each test as its own process, in parallel: the file names carry the pid.
  std::string base = ::testing::TempDir() + "/xtc_rt_axpn_" + std::to_string(::getpid());
  std::string ll = base + ".ll", bc = base + ".bc", spv = base + ".spv";
  std::ofstream(ll) << kKernel;
  std::string cmd = "llvm-as-15 " + ll + " -o " + bc + " && llvm-spirv-15 " + bc + " -o " + spv;
  if (std::system(cmd.c_str()) != 0) return {};
  std::ifstream f(spv, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  std::remove(ll.c_str());
  std::remove(bc.c_str());
  std::remove(spv.c_str());
  return words;
}

std::vector<uint8_t> floatsToBytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

TEST(OpenCLRuntime, LaunchesHandMadeSpirvOnTheCpuDevice) {
  std::vector<uint32_t> spirv = buildSpirv();
  ASSERT_FALSE(spirv.empty()) << "llvm-as-15 / llvm-spirv-15 failed (run scripts/setup)";
  std::string err;
  auto rt = createOpenCLRuntime(0, &err);
  ASSERT_TRUE(rt) << err;
  EXPECT_EQ(rt->device().runtime, "opencl");
  const int64_t n = 20;  // 32 work-items launched, 20 valid elements
  std::vector<float> in(32);
  for (int i = 0; i < 32; ++i) in[i] = 0.25f * static_cast<float>(i) - 3.0f;
  std::vector<uint8_t> inBytes = floatsToBytes(in), outBytes = floatsToBytes(std::vector<float>(32, -1.0f));
  std::vector<LaunchArg> args{LaunchArg::buf(inBytes), LaunchArg::value<int64_t>(n), LaunchArg::buf(outBytes)};
  LaunchConfig cfg;
  cfg.global = {32, 1, 1};
  cfg.local = {16, 1, 1};
  cfg.timedRuns = 3;
  LaunchTiming timing;
  ASSERT_TRUE(rt->run(spirv, "axpn", args, cfg, timing, &err)) << err;
  std::vector<float> out(32);
  std::memcpy(out.data(), outBytes.data(), outBytes.size());
  for (int i = 0; i < 32; ++i) {
    float want = i < n ? 2.0f * (0.25f * static_cast<float>(i) - 3.0f) + 20.0f : -1.0f;
    EXPECT_EQ(out[i], want) << i;
  }
  EXPECT_EQ(timing.timedMs.size(), 3u);
  for (double t : timing.timedMs) EXPECT_GE(t, 0.0);
}

TEST(OpenCLRuntime, ReportsBadSpirvAndUnknownKernel) {
  std::string err;
  auto rt = createOpenCLRuntime(0, &err);
  ASSERT_TRUE(rt) << err;
  std::vector<uint8_t> b(4);
  std::vector<LaunchArg> args{LaunchArg::buf(b)};
  LaunchConfig cfg;
  LaunchTiming timing;
  EXPECT_FALSE(rt->run({0x07230203u, 0, 0, 0, 0}, "k", args, cfg, timing, &err));
  EXPECT_NE(err.find("failed with OpenCL error"), std::string::npos) << err;
  std::vector<uint32_t> spirv = buildSpirv();
  ASSERT_FALSE(spirv.empty());
  EXPECT_FALSE(rt->run(spirv, "nope", args, cfg, timing, &err));
  EXPECT_NE(err.find("clCreateKernel('nope')"), std::string::npos) << err;
  EXPECT_FALSE(createOpenCLRuntime(99, &err));
  EXPECT_NE(err.find("OpenCL device 99 does not exist"), std::string::npos) << err;
}

TEST(LevelZeroRuntime, NoDriverIsAMessageNotACrash) {
  std::string err;
  auto rt = createLevelZeroRuntime(0, &err);
  if (rt) GTEST_SKIP() << "a Level Zero GPU is present: " << rt->device().name;
  EXPECT_FALSE(err.empty());
}

TEST(OpenCLRuntime, BuildOptionsInOpenCLSpelling) {
  // The lowering's Level Zero option becomes Intel OpenCL's name on a GPU (reference §7); other
  // words pass through; a CPU device gets none (its runtime rejects them).
  EXPECT_EQ(openclBuildFlags("-ze-opt-large-register-file", true), "-cl-intel-256-GRF-per-thread");
  EXPECT_EQ(openclBuildFlags("-g  -ze-opt-large-register-file", true), "-g -cl-intel-256-GRF-per-thread");
  EXPECT_EQ(openclBuildFlags("-ze-opt-large-register-file", false), "");
  std::string err;
  auto rt = createOpenCLRuntime(0, &err);
  ASSERT_TRUE(rt) << err;
  EXPECT_EQ(rt->buildFlags("-ze-opt-large-register-file"), rt->device().isGpu ? "-cl-intel-256-GRF-per-thread" : "");
}
