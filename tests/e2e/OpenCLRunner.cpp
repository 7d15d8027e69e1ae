// OpenCL host for the e2e tests (see OpenCLRunner.h). Every API result is checked; the first
// failure becomes the error message.
#include "tests/e2e/OpenCLRunner.h"

#include <CL/cl.h>

#include <cstring>
#include <memory>

namespace xtc::e2e {

std::vector<uint8_t> toBytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> toFloats(const std::vector<uint8_t>& b) {
  std::vector<float> v(b.size() / sizeof(float));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(float));
  return v;
}

namespace {

std::string platformName(cl_platform_id p) {
  size_t n = 0;
  clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetPlatformInfo(p, CL_PLATFORM_NAME, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// Releases what was created, in reverse order, whatever path returns.
struct Resources {
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  std::vector<cl_mem> mems;
  ~Resources() {
    for (cl_mem m : mems)
      if (m) clReleaseMemObject(m);
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
    if (queue) clReleaseCommandQueue(queue);
    if (ctx) clReleaseContext(ctx);
  }
};

}  // namespace

bool runKernel(const std::vector<uint32_t>& spirv, const std::string& kernel, std::vector<KernelArg>& args,
               const size_t global[3], const size_t local[3], std::string* error) {
  auto failed = [&](const std::string& what, cl_int rc) {
    *error = what + " failed with OpenCL error " + std::to_string(rc);
    return false;
  };
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, nullptr, &np);
  if (rc != CL_SUCCESS || np == 0) {
    *error = "no OpenCL platform found (is OCL_ICD_VENDORS pointing at the Intel CPU runtime? run scripts/setup)";
    return false;
  }
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  cl_device_id device = nullptr;
  for (cl_platform_id p : platforms) {
    if (platformName(p).find("Intel(R) OpenCL") == std::string::npos) continue;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) == CL_SUCCESS) break;
    device = nullptr;
  }
  if (!device) {
    *error = "no Intel(R) OpenCL CPU device found";
    return false;
  }
  Resources r;
  r.ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  if (rc != CL_SUCCESS) return failed("clCreateContext", rc);
  r.queue = clCreateCommandQueueWithProperties(r.ctx, device, nullptr, &rc);
  if (rc != CL_SUCCESS) return failed("clCreateCommandQueueWithProperties", rc);
  r.program = clCreateProgramWithIL(r.ctx, spirv.data(), spirv.size() * 4, &rc);
  if (rc != CL_SUCCESS) return failed("clCreateProgramWithIL", rc);
  rc = clBuildProgram(r.program, 1, &device, "", nullptr, nullptr);
  if (rc != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(r.program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(r.program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    *error = "clBuildProgram failed with OpenCL error " + std::to_string(rc) + ": " + log;
    return false;
  }
  r.kernel = clCreateKernel(r.program, kernel.c_str(), &rc);
  if (rc != CL_SUCCESS) return failed("clCreateKernel(" + kernel + ")", rc);
  for (size_t i = 0; i < args.size(); ++i) {
    cl_uint idx = static_cast<cl_uint>(i);
    if (args[i].buffer) {
      std::vector<uint8_t>& b = *args[i].buffer;
      // A zero-sized buffer is not allowed; give empty tensors one dummy element (never accessed).
      size_t bytes = b.empty() ? 4 : b.size();
      cl_mem m = clCreateBuffer(r.ctx, CL_MEM_READ_WRITE, bytes, nullptr, &rc);
      if (rc != CL_SUCCESS) return failed("clCreateBuffer", rc);
      r.mems.push_back(m);
      if (!b.empty()) {
        rc = clEnqueueWriteBuffer(r.queue, m, CL_TRUE, 0, b.size(), b.data(), 0, nullptr, nullptr);
        if (rc != CL_SUCCESS) return failed("clEnqueueWriteBuffer", rc);
      }
      rc = clSetKernelArg(r.kernel, idx, sizeof(cl_mem), &m);
    } else {
      cl_long v = args[i].scalar;
      rc = clSetKernelArg(r.kernel, idx, sizeof(cl_long), &v);
    }
    if (rc != CL_SUCCESS) return failed("clSetKernelArg(" + std::to_string(i) + ")", rc);
  }
  rc = clEnqueueNDRangeKernel(r.queue, r.kernel, 3, nullptr, global, local, 0, nullptr, nullptr);
  if (rc != CL_SUCCESS) return failed("clEnqueueNDRangeKernel", rc);
  size_t mi = 0;
  for (KernelArg& a : args) {
    if (!a.buffer) continue;
    cl_mem m = r.mems[mi++];
    if (a.buffer->empty()) continue;
    rc = clEnqueueReadBuffer(r.queue, m, CL_TRUE, 0, a.buffer->size(), a.buffer->data(), 0, nullptr, nullptr);
    if (rc != CL_SUCCESS) return failed("clEnqueueReadBuffer", rc);
  }
  rc = clFinish(r.queue);
  if (rc != CL_SUCCESS) return failed("clFinish", rc);
  return true;
}

}  // namespace xtc::e2e
