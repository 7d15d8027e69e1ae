// gemm_host: C = A x B through the generated host stub of examples/sg_gemm_f32.xt (sg_gemm_f32.h /
// sg_gemm_f32.c, built by xtc_add_kernel). Picks the first OpenCL device (a GPU if there is one,
// else the CPU runtime), fills A and B with small random integers (fixed seed, never all zero: every
// product and sum is exact in f32, so the check is exact) at sizes that are not multiples of the
// kernel's 8x16 tiles, runs the kernel and compares with a plain triple loop. Then shows what the
// Level Zero launcher does on this machine (no driver: a clean error, not a crash).
// Exit code 0 when the results match, 1 otherwise.
#include "sg_gemm_f32.h"

#include <cstdio>
#include <random>
#include <vector>

namespace {

bool pickDevice(cl_device_id& device) {
  cl_platform_id platforms[16];
  cl_uint n = 0;
  if (clGetPlatformIDs(16, platforms, &n) != CL_SUCCESS) return false;
  for (cl_device_type type : {static_cast<cl_device_type>(CL_DEVICE_TYPE_GPU), static_cast<cl_device_type>(CL_DEVICE_TYPE_CPU)})
    for (cl_uint i = 0; i < n && i < 16; ++i)
      if (clGetDeviceIDs(platforms[i], type, 1, &device, nullptr) == CL_SUCCESS) return true;
  return false;
}

int fail(const char* what, int code) {
  std::fprintf(stderr, "gemm_host: %s: %s\n", what, sg_gemm_f32_error_string(code));
  return 1;
}

}  // namespace

int main() {
  const int64_t M = 77, N = 45, K = 53;
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<float> A(M * K), B(K * N), C(M * N, -1.0f), ref(M * N, 0.0f);
  for (float& v : A) v = static_cast<float>(small(rng));
  for (float& v : B) v = static_cast<float>(small(rng));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int64_t k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
      ref[i * N + j] = s;
    }

  cl_device_id device;
  if (!pickDevice(device)) {
    std::fprintf(stderr, "gemm_host: no OpenCL device (for the CPU runtime: scripts/setup, OCL_ICD_VENDORS)\n");
    return 1;
  }
  char name[256] = {0};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  cl_int rc;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  if (rc != CL_SUCCESS) return fail("clCreateContext", rc);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &rc);
  if (rc != CL_SUCCESS) return fail("clCreateCommandQueueWithProperties", rc);
  cl_mem dA = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, A.size() * 4, A.data(), &rc);
  cl_mem dB = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, B.size() * 4, B.data(), &rc);
  cl_mem dC = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, C.size() * 4, C.data(), &rc);
  if (rc != CL_SUCCESS) return fail("clCreateBuffer", rc);

  int64_t grid[3];
  rc = sg_gemm_f32_sg_gemm_grid(M, K, K, N, M, N, grid);
  if (rc != 0) return fail("sg_gemm_f32_sg_gemm_grid", rc);
  std::printf("sg_gemm %lldx%lldx%lld on %s: %lld x %lld x %lld workgroups of %d work-items\n", (long long)M,
              (long long)N, (long long)K, name, (long long)grid[0], (long long)grid[1], (long long)grid[2],
              sg_gemm_f32_sg_gemm_WG_SIZE_X);
  rc = sg_gemm_f32_sg_gemm_cl_sync(queue, dA, M, K, dB, K, N, dC, M, N);
  if (rc != CL_SUCCESS) {
    char log[4096];
    if (sg_gemm_f32_build_log(log, sizeof log) > 0) std::fprintf(stderr, "build log:\n%s\n", log);
    return fail("sg_gemm_f32_sg_gemm_cl_sync", rc);
  }
  rc = clEnqueueReadBuffer(queue, dC, CL_TRUE, 0, C.size() * 4, C.data(), 0, nullptr, nullptr);
  if (rc != CL_SUCCESS) return fail("clEnqueueReadBuffer", rc);
  int64_t bad = 0;
  for (int64_t i = 0; i < M * N; ++i)
    if (C[i] != ref[i] && bad++ < 5)
      std::fprintf(stderr, "mismatch C[%lld][%lld] = %g, expected %g\n", (long long)(i / N), (long long)(i % N), C[i],
                   ref[i]);
  // A wrong size is an argument error, reported before anything runs.
  int wrong = sg_gemm_f32_sg_gemm_cl_sync(queue, dA, M, K, dB, K, N, dC, M + 1, N);
  std::printf("C with one row too many: %s\n", sg_gemm_f32_error_string(wrong));

  // Level Zero: the same kernel through the other runtime's launcher, where a driver exists.
  ze_result_t ze = zeInit(0);
  uint32_t drivers = 0;
  if (ze == ZE_RESULT_SUCCESS) zeDriverGet(&drivers, nullptr);
  if (drivers == 0) {
    int r = sg_gemm_f32_sg_gemm_ze_sync(nullptr, nullptr, nullptr, M, K, nullptr, K, N, nullptr, M, N);
    std::printf("Level Zero: no driver (zeInit: %s); the launcher reports %s\n", sg_gemm_f32_error_string(ze),
                sg_gemm_f32_error_string(r));
  } else {
    std::printf("Level Zero: %u driver(s) found; this example runs the OpenCL launcher only\n", drivers);
  }

  sg_gemm_f32_release();
  clReleaseMemObject(dA);
  clReleaseMemObject(dB);
  clReleaseMemObject(dC);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  if (bad != 0 || wrong != XTC_STUB_ERROR_BUFFER_TOO_SMALL) {
    std::fprintf(stderr, "gemm_host: FAIL (%lld mismatches; wrong-size launch gave %s)\n", (long long)bad,
                 sg_gemm_f32_error_string(wrong));
    return 1;
  }
  std::printf("gemm_host: PASS (%lld elements exact)\n", (long long)(M * N));
  return 0;
}
