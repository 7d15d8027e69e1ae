// OpenCL host for the e2e tests (see OpenCLRunner.h). Every API result is checked; the first
// failure becomes the error message. The context, queue and built programs are cached per process.
#include "tests/e2e/OpenCLRunner.h"

#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

#include <sys/stat.h>
#include <unistd.h>

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

// Releases what one launch created, whatever path returns.
struct Resources {
  cl_kernel kernel = nullptr;
  std::vector<cl_mem> mems;
  ~Resources() {
    for (cl_mem m : mems)
      if (m) clReleaseMemObject(m);
    if (kernel) clReleaseKernel(kernel);
  }
};

// The device, context, queue and every program built so far, kept for the life of the process:
// building a program takes the CPU runtime 1.5-2 s, and the example tests launch the same SPIR-V
// many times. Programs are keyed by the SPIR-V words themselves (no hash collisions to reason about).
// Never released: the runtime tears itself down at exit.
struct Session {
  std::mutex mutex;
  bool ready = false;
  std::string error;  // why the session could not be set up (reported by every launch)
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  std::map<std::vector<uint32_t>, cl_program> programs;
};

Session& session() {
  static Session s;
  return s;
}

// Finds the Intel CPU device and creates the context and queue (once).
bool setUp(Session& s, std::string* error) {
  if (s.ready) return true;
  if (!s.error.empty()) {
    *error = s.error;
    return false;
  }
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, nullptr, &np);
  if (rc != CL_SUCCESS || np == 0) {
    s.error = "no OpenCL platform found (is OCL_ICD_VENDORS pointing at the Intel CPU runtime? run scripts/setup)";
  } else {
    std::vector<cl_platform_id> platforms(np);
    clGetPlatformIDs(np, platforms.data(), nullptr);
    for (cl_platform_id p : platforms) {
      if (platformName(p).find("Intel(R) OpenCL") == std::string::npos) continue;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &s.device, nullptr) == CL_SUCCESS) break;
      s.device = nullptr;
    }
    if (!s.device) s.error = "no Intel(R) OpenCL CPU device found";
  }
  if (s.error.empty()) {
    s.ctx = clCreateContext(nullptr, 1, &s.device, nullptr, nullptr, &rc);
    if (rc != CL_SUCCESS) s.error = "clCreateContext failed with OpenCL error " + std::to_string(rc);
  }
  if (s.error.empty()) {
    s.queue = clCreateCommandQueueWithProperties(s.ctx, s.device, nullptr, &rc);
    if (rc != CL_SUCCESS) s.error = "clCreateCommandQueueWithProperties failed with OpenCL error " + std::to_string(rc);
  }
  if (!s.error.empty()) {
    *error = s.error;
    return false;
  }
  s.ready = true;
  return true;
}

// The on-disk program cache: ctest runs every test in its own process, so the in-process cache alone
// saves only repeated launches inside one test. A file holds the SPIR-V it was built from (compared
// in full on lookup, so a hash collision is harmless) and the device binary; it is written to a
// temporary name and renamed, so parallel tests never read half a file. A binary the runtime rejects
// (another runtime version) is rebuilt from the SPIR-V. XTC_E2E_PROGRAM_CACHE=off disables it.
std::string cachePath(const std::vector<uint32_t>& spirv) {
  const char* env = std::getenv("XTC_E2E_PROGRAM_CACHE");
  if (env && std::string(env) == "off") return {};
  std::string dir = env && *env ? env : std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/xtc-e2e-programs-" + std::to_string(::getuid());
  ::mkdir(dir.c_str(), 0700);
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
  for (uint32_t w : spirv) h = (h ^ w) * 1099511628211ull;
  char name[32];
  std::snprintf(name, sizeof name, "/%016llx.bin", static_cast<unsigned long long>(h));
  return dir + name;
}

std::vector<uint8_t> readCached(const std::string& path, const std::vector<uint32_t>& spirv) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t n = spirv.size() * 4;
  if (bytes.size() <= 8 + n) return {};
  uint64_t stored;
  std::memcpy(&stored, bytes.data(), 8);
  if (stored != n || std::memcmp(bytes.data() + 8, spirv.data(), n) != 0) return {};
  return std::vector<uint8_t>(bytes.begin() + static_cast<long>(8 + n), bytes.end());
}

void writeCached(const std::string& path, const std::vector<uint32_t>& spirv, cl_program p) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) return;
  std::vector<uint8_t> bin(size);
  unsigned char* ptr = bin.data();
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
  std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    uint64_t n = spirv.size() * 4;
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(reinterpret_cast<const char*>(spirv.data()), static_cast<std::streamsize>(n));
    out.write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(bin.size()));
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      return;
    }
  }
  std::rename(tmp.c_str(), path.c_str());
}

// The built program of `spirv`: from the process cache, else from the disk cache, else built from
// the SPIR-V (a failed build is not cached).
cl_program program(Session& s, const std::vector<uint32_t>& spirv, std::string* error) {
  auto it = s.programs.find(spirv);
  if (it != s.programs.end()) return it->second;
  std::string path = cachePath(spirv);
  if (!path.empty()) {
    std::vector<uint8_t> bin = readCached(path, spirv);
    if (!bin.empty()) {
      const unsigned char* ptr = bin.data();
      size_t size = bin.size();
      cl_int rc, status;
      cl_program p = clCreateProgramWithBinary(s.ctx, 1, &s.device, &size, &ptr, &status, &rc);
      if (rc == CL_SUCCESS && clBuildProgram(p, 1, &s.device, "", nullptr, nullptr) == CL_SUCCESS) {
        s.programs.emplace(spirv, p);
        return p;
      }
      if (p) clReleaseProgram(p);
    }
  }
  cl_int rc;
  cl_program p = clCreateProgramWithIL(s.ctx, spirv.data(), spirv.size() * 4, &rc);
  if (rc != CL_SUCCESS) {
    *error = "clCreateProgramWithIL failed with OpenCL error " + std::to_string(rc);
    return nullptr;
  }
  rc = clBuildProgram(p, 1, &s.device, "", nullptr, nullptr);
  if (rc != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(p, s.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p, s.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    *error = "clBuildProgram failed with OpenCL error " + std::to_string(rc) + ": " + log;
    clReleaseProgram(p);
    return nullptr;
  }
  if (!path.empty()) writeCached(path, spirv, p);
  s.programs.emplace(spirv, p);
  return p;
}

}  // namespace

bool runKernel(const std::vector<uint32_t>& spirv, const std::string& kernel, std::vector<KernelArg>& args,
               const size_t global[3], const size_t local[3], std::string* error) {
  auto failed = [&](const std::string& what, cl_int rc) {
    *error = what + " failed with OpenCL error " + std::to_string(rc);
    return false;
  };
  Session& sess = session();
  std::lock_guard<std::mutex> lock(sess.mutex);  // one launch at a time on the shared queue
  if (!setUp(sess, error)) return false;
  cl_program prog = program(sess, spirv, error);
  if (!prog) return false;
  cl_int rc;
  Resources r;
  r.kernel = clCreateKernel(prog, kernel.c_str(), &rc);
  if (rc != CL_SUCCESS) return failed("clCreateKernel(" + kernel + ")", rc);
  for (size_t i = 0; i < args.size(); ++i) {
    cl_uint idx = static_cast<cl_uint>(i);
    if (args[i].buffer) {
      std::vector<uint8_t>& b = *args[i].buffer;
      // A zero-sized buffer is not allowed; give empty tensors one dummy element (never accessed).
      size_t bytes = b.empty() ? 4 : b.size();
      cl_mem m = clCreateBuffer(sess.ctx, CL_MEM_READ_WRITE, bytes, nullptr, &rc);
      if (rc != CL_SUCCESS) return failed("clCreateBuffer", rc);
      r.mems.push_back(m);
      if (!b.empty()) {
        rc = clEnqueueWriteBuffer(sess.queue, m, CL_TRUE, 0, b.size(), b.data(), 0, nullptr, nullptr);
        if (rc != CL_SUCCESS) return failed("clEnqueueWriteBuffer", rc);
      }
      rc = clSetKernelArg(r.kernel, idx, sizeof(cl_mem), &m);
    } else {
      cl_long v = args[i].scalar;
      rc = clSetKernelArg(r.kernel, idx, sizeof(cl_long), &v);
    }
    if (rc != CL_SUCCESS) return failed("clSetKernelArg(" + std::to_string(i) + ")", rc);
  }
  rc = clEnqueueNDRangeKernel(sess.queue, r.kernel, 3, nullptr, global, local, 0, nullptr, nullptr);
  if (rc != CL_SUCCESS) return failed("clEnqueueNDRangeKernel", rc);
  size_t mi = 0;
  for (KernelArg& a : args) {
    if (!a.buffer) continue;
    cl_mem m = r.mems[mi++];
    if (a.buffer->empty()) continue;
    rc = clEnqueueReadBuffer(sess.queue, m, CL_TRUE, 0, a.buffer->size(), a.buffer->data(), 0, nullptr, nullptr);
    if (rc != CL_SUCCESS) return failed("clEnqueueReadBuffer", rc);
  }
  rc = clFinish(sess.queue);
  if (rc != CL_SUCCESS) return failed("clFinish", rc);
  return true;
}

}  // namespace xtc::e2e
