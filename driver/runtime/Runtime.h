// Device runtimes for `xtc run`: launch one SPIR-V kernel with the xtc kernel ABI (docs/abi.md) on
// an OpenCL or Level Zero device, read the buffers back and time the kernel with device events.
#pragma once

#include <array>
#include <cstring>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xtc::driver::runtime {

struct DeviceInfo {
  std::string runtime;   // "opencl" or "level-zero"
  std::string platform;
  std::string name;
  bool isGpu = false;
  bool intelSubgroups = false;  // cl_intel_subgroups (shuffles) — what the generic target needs
  bool intelXe = false;         // DPAS / 2D block IO capable Intel GPU (what pvc/dg2 code needs)
  // Intel's 1-D subgroup block reads/writes on global (8/16/32-bit) and local memory: the builtins
  // dg2's xe.block_read/xe.block_write become (cl_intel_subgroups, _short, _char, _local_block_io).
  bool intelBlockIo = false;
  // Shared local memory per workgroup (CL_DEVICE_LOCAL_MEM_SIZE; Level Zero: maxSharedLocalMemory),
  // 0 if the runtime did not say. `xtc run --target generic` compiles for this size.
  uint64_t localMemBytes = 0;
};

// One kernel argument in ABI form: a device buffer (contents uploaded before, read back after the
// launch) or the raw bytes of a scalar (an i64 for each dynamic dim, etc.).
struct LaunchArg {
  std::vector<uint8_t>* buffer = nullptr;
  std::vector<uint8_t> scalar;
  static LaunchArg buf(std::vector<uint8_t>& b) { LaunchArg a; a.buffer = &b; return a; }
  template <class T>
  static LaunchArg value(T v) {
    LaunchArg a;
    a.scalar.resize(sizeof(T));
    std::memcpy(a.scalar.data(), &v, sizeof(T));
    return a;
  }
};

struct LaunchConfig {
  std::array<size_t, 3> global{1, 1, 1};  // work-items
  std::array<size_t, 3> local{1, 1, 1};
  unsigned timedRuns = 0;  // after the first (result) run: one warm-up, then this many timed runs
  std::string buildOptions;  // the kernel's build_options attribute (Level Zero spelling), "" if none
};

struct LaunchTiming {
  double firstMs = 0;            // the run whose results are read back
  std::vector<double> timedMs;   // kernel times of the timed runs (device profiling events)
};

class Runtime {
public:
  virtual ~Runtime() = default;
  virtual const DeviceInfo& device() const = 0;
  // The flags run() gives the program build (clBuildProgram / zeModuleCreate) for a kernel's
  // build_options, in this runtime's spelling for this device.
  virtual std::string buildFlags(const std::string& buildOptions) const = 0;
  // Builds `spirv`, launches `kernel` once with `args` and reads every buffer back into it; then,
  // for benchmarking, re-uploads the original inputs and times cfg.timedRuns more launches.
  virtual bool run(const std::vector<uint32_t>& spirv, const std::string& kernel, std::vector<LaunchArg>& args,
                   const LaunchConfig& cfg, LaunchTiming& timing, std::string* error) = 0;
};

// Points ocl-icd at the project's CPU OpenCL runtime (XTC_DEFAULT_ICD_VENDORS, set by the build)
// unless the user set OCL_ICD_VENDORS or OCL_ICD_FILENAMES. Call before the first OpenCL call.
void setDefaultIcdVendors();
// A description of where OpenCL devices were looked for (for "no device" messages).
std::string openclSearchDescription();

// The OpenCL build flags for a kernel's build_options (Level Zero spelling) on a GPU or CPU device.
std::string openclBuildFlags(const std::string& buildOptions, bool gpu);

std::vector<DeviceInfo> listOpenCLDevices(std::string* error);
std::vector<DeviceInfo> listLevelZeroDevices(std::string* error);

// The `index`-th device of the runtime, or null with `error` saying what was looked for.
std::unique_ptr<Runtime> createOpenCLRuntime(unsigned index, std::string* error);
std::unique_ptr<Runtime> createLevelZeroRuntime(unsigned index, std::string* error);

}  // namespace xtc::driver::runtime
