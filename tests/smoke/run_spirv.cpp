// run_spirv: loads a SPIR-V module, runs one kernel on an OpenCL device (by default the Intel CPU
// runtime, platform "Intel(R) OpenCL") and checks the outputs against a reference computed here on
// the host, independently of the device. Reusable by later tests:
//
//   run_spirv FILE.spv --kernel NAME --global N --local L [--in f32:N]... [--out f32:N]...
//             [--reference NAME] [--seed S] [--platform SUBSTRING] [--device cpu|gpu|any]
//   run_spirv --probe [--platform SUBSTRING] [--device cpu|gpu|any]   (only find the device)
//
// Buffers become kernel arguments in command-line order. Inputs are filled with seeded random
// non-zero floats (never zeros: a kernel that does nothing must not pass); outputs start as NaN.
// Exit 0 when every output element matches, 1 on a mismatch or any OpenCL failure (with its message).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Buffer {
  bool output = false;
  size_t count = 0;
  std::vector<float> host;
  cl_mem mem = nullptr;
};

// A host reference fills `expected` (one vector per output buffer, in order) from the inputs.
using Reference = std::function<bool(const std::vector<const Buffer*>& in, size_t global, size_t local,
                                     std::vector<std::vector<float>>& expected, std::string& why)>;

// shuffle_smoke (tests/smoke/shuffle.ll): out[i] = in[g + ((5l+3) & 15)] + 2 * in[g + (l ^ 1)]
// with subgroup size 16, l = i % 16, g = i - l.
bool referenceShuffleSmoke(const std::vector<const Buffer*>& in, size_t global, size_t local,
                           std::vector<std::vector<float>>& expected, std::string& why) {
  if (in.size() != 1 || expected.size() != 1 || local != 16) {
    why = "shuffle_smoke needs one f32 input, one f32 output and --local 16";
    return false;
  }
  const std::vector<float>& x = in[0]->host;
  for (size_t i = 0; i < global; ++i) {
    size_t l = i % 16, g = i - l;
    float a = x[g + ((5 * l + 3) & 15)];
    float b = x[g + (l ^ 1)];
    expected[0][i] = a + 2.0f * b;
  }
  return true;
}

const std::map<std::string, Reference>& references() {
  static const std::map<std::string, Reference> table = {
      {"shuffle_smoke", referenceShuffleSmoke},
  };
  return table;
}

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "run_spirv: error: " << message << "\n";
  std::exit(1);
}

void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) fail(std::string(what) + " failed with OpenCL error " + std::to_string(rc));
}

std::string platformInfo(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  clGetPlatformInfo(p, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string deviceInfo(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

size_t parseCount(const std::string& spec, const std::string& option) {
  // f32:N is the only element type today.
  if (spec.rfind("f32:", 0) != 0) fail(option + " expects f32:N, got '" + spec + "'");
  char* end = nullptr;
  unsigned long long n = std::strtoull(spec.c_str() + 4, &end, 10);
  if (*end != '\0' || n == 0) fail(option + " expects f32:N with N > 0, got '" + spec + "'");
  return static_cast<size_t>(n);
}

bool sameFloat(float a, float b) {
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  return ua == ub;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spvPath, kernelName, referenceName, platformWanted = "Intel(R) OpenCL", deviceKind = "cpu";
  size_t global = 0, local = 0;
  unsigned seed = 1;
  std::vector<Buffer> buffers;
  bool probe = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail("missing value after " + a);
      return argv[++i];
    };
    if (a == "--kernel") kernelName = value();
    else if (a == "--global") global = std::stoull(value());
    else if (a == "--local") local = std::stoull(value());
    else if (a == "--seed") seed = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--reference") referenceName = value();
    else if (a == "--platform") platformWanted = value();
    else if (a == "--device") deviceKind = value();
    else if (a == "--probe") probe = true;
    else if (a == "--in" || a == "--out") {
      Buffer b;
      b.output = a == "--out";
      b.count = parseCount(value(), a);
      buffers.push_back(std::move(b));
    } else if (a == "-h" || a == "--help") {
      std::cout << "usage: run_spirv --probe [--platform SUBSTRING] [--device cpu|gpu|any]\n"
                   "       run_spirv FILE.spv --kernel NAME --global N --local L [--in f32:N]... [--out f32:N]...\n"
                   "                        [--reference NAME] [--seed S] [--platform SUBSTRING] [--device cpu|gpu|any]\n";
      return 0;
    } else if (!a.empty() && a[0] != '-' && spvPath.empty()) spvPath = a;
    else fail("unknown argument '" + a + "'");
  }
  if (!probe && (spvPath.empty() || kernelName.empty() || global == 0 || local == 0 || global % local != 0))
    fail("need FILE.spv, --kernel, --global N and --local L with N a multiple of L (see --help)");
  for (const Buffer& b : buffers)
    if (b.count < global) fail("every buffer needs at least --global elements");
  const Reference* reference = nullptr;
  if (!referenceName.empty()) {
    auto it = references().find(referenceName);
    if (it == references().end()) fail("unknown --reference '" + referenceName + "'");
    reference = &it->second;
  }

  // Platform and device.
  cl_uint nplat = 0;
  cl_int rc = clGetPlatformIDs(0, nullptr, &nplat);
  if (rc != CL_SUCCESS || nplat == 0)
    fail("no OpenCL platform found (error " + std::to_string(rc) +
         "); the Intel CPU runtime is installed by scripts/setup and found through OCL_ICD_VENDORS");
  std::vector<cl_platform_id> platforms(nplat);
  check(clGetPlatformIDs(nplat, platforms.data(), nullptr), "clGetPlatformIDs");
  cl_device_type type = deviceKind == "gpu" ? CL_DEVICE_TYPE_GPU : deviceKind == "any" ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_CPU;
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string seen;
  for (cl_platform_id p : platforms) {
    std::string name = platformInfo(p, CL_PLATFORM_NAME);
    seen += " '" + name + "'";
    if (name.find(platformWanted) == std::string::npos) continue;
    cl_uint ndev = 0;
    if (clGetDeviceIDs(p, type, 1, &device, &ndev) == CL_SUCCESS && ndev > 0) {
      platform = p;
      break;
    }
  }
  if (!platform)
    fail("no OpenCL platform named '" + platformWanted + "' with a " + deviceKind + " device (found:" + seen + ")");
  std::cout << "run_spirv: " << platformInfo(platform, CL_PLATFORM_NAME) << " / " << deviceInfo(device, CL_DEVICE_NAME)
            << " (" << deviceInfo(device, CL_DEVICE_VERSION) << ")\n";
  if (probe) return 0;

  std::ifstream file(spvPath, std::ios::binary);
  if (!file) fail("cannot open '" + spvPath + "'");
  std::vector<char> il((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (il.size() < 20) fail("'" + spvPath + "' is not a SPIR-V module");

  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, nullptr, &rc);
  check(rc, "clCreateCommandQueueWithProperties");
  cl_program program = clCreateProgramWithIL(ctx, il.data(), il.size(), &rc);
  check(rc, "clCreateProgramWithIL (does the device accept SPIR-V?)");
  rc = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
  if (rc != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    fail("clBuildProgram failed with OpenCL error " + std::to_string(rc) + "; build log:\n" + log);
  }
  cl_kernel kernel = clCreateKernel(program, kernelName.c_str(), &rc);
  check(rc, ("clCreateKernel('" + kernelName + "')").c_str());

  // Buffers: seeded random non-zero inputs, NaN-filled outputs.
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> magnitude(0.5f, 2.0f);
  std::bernoulli_distribution negative(0.5);
  for (size_t k = 0; k < buffers.size(); ++k) {
    Buffer& b = buffers[k];
    b.host.resize(b.count);
    for (float& v : b.host)
      v = b.output ? std::numeric_limits<float>::quiet_NaN() : (negative(rng) ? -1.0f : 1.0f) * magnitude(rng);
    b.mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b.count * sizeof(float), b.host.data(), &rc);
    check(rc, "clCreateBuffer");
    check(clSetKernelArg(kernel, static_cast<cl_uint>(k), sizeof(cl_mem), &b.mem), "clSetKernelArg");
  }

  check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
  for (Buffer& b : buffers)
    if (b.output)
      check(clEnqueueReadBuffer(queue, b.mem, CL_TRUE, 0, b.count * sizeof(float), b.host.data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
  check(clFinish(queue), "clFinish");

  int status = 0;
  if (reference) {
    std::vector<const Buffer*> inputs;
    std::vector<Buffer*> outputs;
    for (Buffer& b : buffers) (b.output ? outputs.push_back(&b) : inputs.push_back(&b));
    std::vector<std::vector<float>> expected;
    for (Buffer* b : outputs) expected.emplace_back(b->count, std::numeric_limits<float>::quiet_NaN());
    std::string why;
    if (!(*reference)(inputs, global, local, expected, why)) fail(why);
    size_t mismatches = 0, checked = 0;
    for (size_t o = 0; o < outputs.size(); ++o) {
      for (size_t i = 0; i < global; ++i, ++checked) {
        float got = outputs[o]->host[i], want = expected[o][i];
        if (sameFloat(got, want)) continue;
        if (++mismatches <= 20)
          std::cout << "mismatch: output " << o << " [" << i << "] = " << got << ", expected " << want << "\n";
      }
    }
    std::cout << "run_spirv: kernel " << kernelName << ", global " << global << ", local " << local << ": "
              << checked << " elements checked against '" << referenceName << "', " << mismatches << " mismatches\n";
    status = mismatches == 0 ? 0 : 1;
  } else {
    std::cout << "run_spirv: kernel " << kernelName << " ran; no --reference given, nothing checked\n";
  }

  for (Buffer& b : buffers) clReleaseMemObject(b.mem);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return status;
}
