// ctest stub-cxx: the generated stub used from C++17: NAME.c compiled as C++ (it is included here, so
// this translation unit is the whole stub) and the header's extern "C" API called from C++ code.
// Runs the fixture's axpy on the CPU device and checks it exactly.
#include "fx.c"

#include <cstdio>
#include <vector>

int main() {
  cl_platform_id platforms[16];
  cl_uint n = 0;
  cl_device_id device = nullptr;
  if (clGetPlatformIDs(16, platforms, &n) != CL_SUCCESS) n = 0;
  for (cl_uint i = 0; i < n && !device; ++i)
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &device, nullptr) != CL_SUCCESS) device = nullptr;
  if (!device) {
    std::fprintf(stderr, "stub-cxx: FAIL: no OpenCL CPU device (OCL_ICD_VENDORS; scripts/setup)\n");
    return 1;
  }
  cl_int rc;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  cl_command_queue q = clCreateCommandQueueWithProperties(context, device, nullptr, &rc);
  const int N = 300;
  std::vector<float> x(N), y(N), out(N);
  for (int i = 0; i < N; ++i) {
    x[i] = static_cast<float>((i * 37) % 101 - 50) + 0.5f;
    y[i] = static_cast<float>((i * 11) % 23 + 1);
  }
  cl_mem X = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, N * sizeof(float), x.data(), &rc);
  cl_mem Y = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, N * sizeof(float), y.data(), &rc);
  rc = fx_axpy_cl_sync(q, X, N, Y, N, 2.0f);
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "stub-cxx: FAIL: fx_axpy_cl_sync: %s\n", fx_error_string(rc));
    return 1;
  }
  clEnqueueReadBuffer(q, Y, CL_TRUE, 0, N * sizeof(float), out.data(), 0, nullptr, nullptr);
  for (int i = 0; i < N; ++i)
    if (out[i] != 2.0f * x[i] + y[i]) {
      std::fprintf(stderr, "stub-cxx: FAIL: Y[%d] = %g, expected %g\n", i, out[i], 2.0f * x[i] + y[i]);
      return 1;
    }
  fx_release();
  clReleaseMemObject(X);
  clReleaseMemObject(Y);
  clReleaseCommandQueue(q);
  clReleaseContext(context);
  std::printf("stub-cxx: PASS\n");
  return 0;
}
