// OpenCL runtime for `xtc run`. Works with no environment set by hand: unless the user chose ICDs
// (OCL_ICD_VENDORS / OCL_ICD_FILENAMES), ocl-icd is pointed at the project's CPU runtime folder.
#include "driver/runtime/OpenCLRuntime.h"

#include "backends/stub/StubGenerator.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <algorithm>

#include <cstdlib>
#include <string>

#ifndef XTC_DEFAULT_ICD_VENDORS
#define XTC_DEFAULT_ICD_VENDORS ""
#endif

namespace xtc::driver::runtime {

void setDefaultIcdVendors() {
  if (std::getenv("OCL_ICD_VENDORS") || std::getenv("OCL_ICD_FILENAMES")) return;
  if (*XTC_DEFAULT_ICD_VENDORS) setenv("OCL_ICD_VENDORS", XTC_DEFAULT_ICD_VENDORS, 0);
}

std::string openclSearchDescription() {
  const char* v = std::getenv("OCL_ICD_VENDORS");
  const char* f = std::getenv("OCL_ICD_FILENAMES");
  std::string s = "OpenCL platforms through the ICD loader (libOpenCL.so.1)";
  if (v) s += std::string(", ICD vendor files in OCL_ICD_VENDORS=") + v;
  else s += ", ICD vendor files in /etc/OpenCL/vendors";
  if (f) s += std::string(", OCL_ICD_FILENAMES=") + f;
  if (v && std::string(v) == XTC_DEFAULT_ICD_VENDORS) s += " (the project's Intel CPU runtime, installed by scripts/setup)";
  return s;
}

namespace {

std::string clErr(const char* what, cl_int e) { return std::string(what) + " failed with OpenCL error " + std::to_string(e); }

std::string deviceString(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platformName(cl_platform_id p) {
  size_t n = 0;
  if (clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, CL_PLATFORM_NAME, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

struct ClDevice {
  cl_platform_id platform;
  cl_device_id id;
  DeviceInfo info;
};

std::vector<ClDevice> enumerate(std::string* error) {
  setDefaultIcdVendors();
  std::vector<ClDevice> out;
  cl_uint np = 0;
  cl_int e = clGetPlatformIDs(0, nullptr, &np);
  if (e != CL_SUCCESS || np == 0) {
    if (error) *error = "no OpenCL platform found (clGetPlatformIDs returned " + std::to_string(e) + "); looked for " + openclSearchDescription();
    return out;
  }
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  for (cl_platform_id p : ps) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    for (cl_device_id d : ds) {
      ClDevice c{p, d, {}};
      c.info.runtime = "opencl";
      c.info.platform = platformName(p);
      c.info.name = deviceString(d, CL_DEVICE_NAME);
      cl_device_type t = 0;
      clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, nullptr);
      c.info.isGpu = (t & CL_DEVICE_TYPE_GPU) != 0;
      cl_ulong local = 0;
      if (clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr) == CL_SUCCESS) c.info.localMemBytes = local;
      std::string ext = deviceString(d, CL_DEVICE_EXTENSIONS);
      c.info.intelSubgroups = ext.find("cl_intel_subgroups") != std::string::npos;
      auto has = [&](const char* e) {  // a whole name: cl_intel_subgroups is a prefix of the others
        std::string padded = " " + ext + " ";
        return padded.find(std::string(" ") + e + " ") != std::string::npos;
      };
      c.info.intelBlockIo = has("cl_intel_subgroups") && has("cl_intel_subgroups_short") && has("cl_intel_subgroups_char") &&
                            has("cl_intel_subgroup_local_block_io");
      // DPAS and 2D block IO come with the matrix-multiply-accumulate and 2D block extensions.
      c.info.intelXe = c.info.isGpu && ext.find("cl_intel_subgroup_matrix_multiply_accumulate") != std::string::npos;
      out.push_back(std::move(c));
    }
  }
  if (out.empty() && error) *error = "OpenCL platforms exist but have no device; looked for " + openclSearchDescription();
  return out;
}

// RAII holders so every early return releases what was created.
template <class T, cl_int (*Release)(T)>
struct ClHandle {
  T h = nullptr;
  ClHandle() = default;
  explicit ClHandle(T x) : h(x) {}
  ClHandle(const ClHandle&) = delete;
  ClHandle& operator=(const ClHandle&) = delete;
  ClHandle(ClHandle&& o) noexcept : h(o.h) { o.h = nullptr; }
  ~ClHandle() { if (h) Release(h); }
};
using Context = ClHandle<cl_context, clReleaseContext>;
using Queue = ClHandle<cl_command_queue, clReleaseCommandQueue>;
using Program = ClHandle<cl_program, clReleaseProgram>;
using Kernel = ClHandle<cl_kernel, clReleaseKernel>;
using Mem = ClHandle<cl_mem, clReleaseMemObject>;
using Event = ClHandle<cl_event, clReleaseEvent>;

}  // namespace

// build_options are GPU options: the CPU runtime rejects them ("Unrecognized build options"), so a
// CPU device gets none, as in the host stub.
std::string openclBuildFlags(const std::string& buildOptions, bool gpu) { return gpu ? backend::openclBuildOptions(buildOptions) : ""; }

namespace {

class OpenCLRuntime final : public Runtime {
public:
  explicit OpenCLRuntime(ClDevice d) : dev_(std::move(d)) {}
  const DeviceInfo& device() const override { return dev_.info; }

  std::string buildFlags(const std::string& buildOptions) const override { return openclBuildFlags(buildOptions, dev_.info.isGpu); }

  bool run(const std::vector<uint32_t>& spirv, const std::string& kernelName, std::vector<LaunchArg>& args,
           const LaunchConfig& cfg, LaunchTiming& timing, std::string* error) override {
    cl_int e = CL_SUCCESS;
    Context ctx(clCreateContext(nullptr, 1, &dev_.id, nullptr, nullptr, &e));
    if (e != CL_SUCCESS) return fail(error, clErr("clCreateContext", e));
    cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    Queue q(clCreateCommandQueueWithProperties(ctx.h, dev_.id, qp, &e));
    if (e != CL_SUCCESS) return fail(error, clErr("clCreateCommandQueueWithProperties", e));
    Program prog(clCreateProgramWithIL(ctx.h, spirv.data(), spirv.size() * sizeof(uint32_t), &e));
    if (e != CL_SUCCESS) return fail(error, clErr("clCreateProgramWithIL", e));
    std::string flags = buildFlags(cfg.buildOptions);
    e = clBuildProgram(prog.h, 1, &dev_.id, flags.c_str(), nullptr, nullptr);
    if (e != CL_SUCCESS) {
      size_t n = 0;
      clGetProgramBuildInfo(prog.h, dev_.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(prog.h, dev_.id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      return fail(error, clErr("clBuildProgram", e) + (log.empty() ? "" : ":\n" + log));
    }
    Kernel k(clCreateKernel(prog.h, kernelName.c_str(), &e));
    if (e != CL_SUCCESS) return fail(error, clErr(("clCreateKernel('" + kernelName + "')").c_str(), e));

    std::vector<Mem> mems;
    std::vector<std::vector<uint8_t>> originals;  // inputs as uploaded, for the timed re-runs
    for (size_t i = 0; i < args.size(); ++i) {
      LaunchArg& a = args[i];
      if (a.buffer) {
        // A zero-sized buffer is not allowed in OpenCL; allocate one byte so the pointer is valid.
        size_t bytes = std::max<size_t>(a.buffer->size(), 1);
        mems.emplace_back(clCreateBuffer(ctx.h, CL_MEM_READ_WRITE, bytes, nullptr, &e));
        if (e != CL_SUCCESS) return fail(error, clErr("clCreateBuffer", e));
        originals.push_back(*a.buffer);
        e = clSetKernelArg(k.h, static_cast<cl_uint>(i), sizeof(cl_mem), &mems.back().h);
      } else {
        e = clSetKernelArg(k.h, static_cast<cl_uint>(i), a.scalar.size(), a.scalar.data());
      }
      if (e != CL_SUCCESS) return fail(error, clErr(("clSetKernelArg(" + std::to_string(i) + ")").c_str(), e));
    }
    auto upload = [&]() -> cl_int {
      size_t m = 0;
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i].buffer) {
          const std::vector<uint8_t>& src = originals[m];
          if (!src.empty()) {
            cl_int r = clEnqueueWriteBuffer(q.h, mems[m].h, CL_TRUE, 0, src.size(), src.data(), 0, nullptr, nullptr);
            if (r != CL_SUCCESS) return r;
          }
          ++m;
        }
      return CL_SUCCESS;
    };
    auto launch = [&](double& ms) -> cl_int {
      Event ev;
      cl_int r = clEnqueueNDRangeKernel(q.h, k.h, 3, nullptr, cfg.global.data(), cfg.local.data(), 0, nullptr, &ev.h);
      if (r != CL_SUCCESS) return r;
      if ((r = clWaitForEvents(1, &ev.h)) != CL_SUCCESS) return r;
      cl_ulong t0 = 0, t1 = 0;
      clGetEventProfilingInfo(ev.h, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr);
      clGetEventProfilingInfo(ev.h, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr);
      ms = static_cast<double>(t1 - t0) * 1e-6;
      return CL_SUCCESS;
    };
    if ((e = upload()) != CL_SUCCESS) return fail(error, clErr("clEnqueueWriteBuffer", e));
    if ((e = launch(timing.firstMs)) != CL_SUCCESS) return fail(error, clErr("clEnqueueNDRangeKernel", e));
    size_t m = 0;
    for (LaunchArg& a : args)
      if (a.buffer) {
        if (!a.buffer->empty()) {
          e = clEnqueueReadBuffer(q.h, mems[m].h, CL_TRUE, 0, a.buffer->size(), a.buffer->data(), 0, nullptr, nullptr);
          if (e != CL_SUCCESS) return fail(error, clErr("clEnqueueReadBuffer", e));
        }
        ++m;
      }
    timing.timedMs.clear();
    if (cfg.timedRuns > 0) {
      for (unsigned r = 0; r < cfg.timedRuns + 1; ++r) {  // the first one warms up
        double ms = 0;
        if ((e = upload()) != CL_SUCCESS) return fail(error, clErr("clEnqueueWriteBuffer", e));
        if ((e = launch(ms)) != CL_SUCCESS) return fail(error, clErr("clEnqueueNDRangeKernel", e));
        if (r > 0) timing.timedMs.push_back(ms);
      }
    }
    return true;
  }

private:
  static bool fail(std::string* error, std::string msg) {
    if (error) *error = std::move(msg);
    return false;
  }
  ClDevice dev_;
};

}  // namespace

std::vector<DeviceInfo> listOpenCLDevices(std::string* error) {
  std::vector<DeviceInfo> r;
  for (ClDevice& d : enumerate(error)) r.push_back(d.info);
  return r;
}

std::unique_ptr<Runtime> createOpenCLRuntime(unsigned index, std::string* error) {
  std::vector<ClDevice> ds = enumerate(error);
  if (ds.empty()) return nullptr;
  if (index >= ds.size()) {
    if (error) *error = "OpenCL device " + std::to_string(index) + " does not exist (" + std::to_string(ds.size()) + " found; see --list-devices)";
    return nullptr;
  }
  return std::make_unique<OpenCLRuntime>(std::move(ds[index]));
}

}  // namespace xtc::driver::runtime
