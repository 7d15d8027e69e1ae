// Level Zero runtime for `xtc run`: module from SPIR-V, shared USM buffers, one immediate command
// list, kernel timestamps for timing. Respects the loader's own environment variables
// (ZE_ENABLE_*, ZE_AFFINITY_MASK, ...) since it does not touch them.
#include "driver/runtime/LevelZeroRuntime.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace xtc::driver::runtime {

namespace {

std::string zeErr(const char* what, ze_result_t r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%x", static_cast<unsigned>(r));
  return std::string(what) + " failed with Level Zero error " + buf;
}

struct ZeDevice {
  ze_driver_handle_t driver;
  ze_device_handle_t device;
  ze_device_properties_t props;
  DeviceInfo info;
};

// The real loader in this build, or null with `error` saying why not.
const ZeApi* realApi(std::string* error) {
#ifdef __SANITIZE_ADDRESS__
  // The loader dlopens drivers with RTLD_DEEPBIND, which aborts a process running under
  // AddressSanitizer; sanitizer builds therefore never initialise Level Zero.
  if (error) *error = "Level Zero is not used in AddressSanitizer builds (its loader opens drivers with RTLD_DEEPBIND)";
  return nullptr;
#else
  (void)error;
  static const ZeApi api;
  return &api;
#endif
}

std::vector<ZeDevice> enumerate(const ZeApi& api, std::string* error) {
  std::vector<ZeDevice> out;
  ze_result_t r = api.init(ZE_INIT_FLAG_GPU_ONLY);
  if (r != ZE_RESULT_SUCCESS) {
    if (error) *error = "no Level Zero driver (zeInit returned " + zeErr("", r).substr(std::strlen(" failed with Level Zero error ")) +
                        "; an Intel GPU and its level-zero driver package are needed)";
    return out;
  }
  uint32_t nd = 0;
  api.driverGet(&nd, nullptr);
  std::vector<ze_driver_handle_t> drivers(nd);
  if (nd) api.driverGet(&nd, drivers.data());
  for (ze_driver_handle_t drv : drivers) {
    uint32_t n = 0;
    api.deviceGet(drv, &n, nullptr);
    std::vector<ze_device_handle_t> devs(n);
    if (n) api.deviceGet(drv, &n, devs.data());
    for (ze_device_handle_t d : devs) {
      ZeDevice z{drv, d, {}, {}};
      z.props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      api.deviceGetProperties(d, &z.props);
      z.info.runtime = "level-zero";
      z.info.platform = "Level Zero";
      z.info.name = z.props.name;
      z.info.isGpu = z.props.type == ZE_DEVICE_TYPE_GPU;
      z.info.intelSubgroups = z.info.isGpu;
      // Every Level Zero GPU device is an Intel Xe GPU; DPAS availability is decided by the target.
      z.info.intelXe = z.info.isGpu;
      z.info.intelBlockIo = z.info.isGpu;
      ze_device_compute_properties_t cp{};
      cp.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
      if (api.deviceGetComputeProperties(d, &cp) == ZE_RESULT_SUCCESS) z.info.localMemBytes = cp.maxSharedLocalMemory;
      out.push_back(z);
    }
  }
  if (out.empty() && error) *error = "the Level Zero loader found no GPU device";
  return out;
}

class LevelZeroRuntime final : public Runtime {
public:
  LevelZeroRuntime(const ZeApi& api, ZeDevice d) : api_(api), dev_(d) {}
  const DeviceInfo& device() const override { return dev_.info; }
  // The lowering writes build_options in Level Zero's spelling: passed as they are.
  std::string buildFlags(const std::string& buildOptions) const override { return buildOptions; }

  bool run(const std::vector<uint32_t>& spirv, const std::string& kernelName, std::vector<LaunchArg>& args,
           const LaunchConfig& cfg, LaunchTiming& timing, std::string* error) override {
    Cleanup c(api_);
    ze_result_t r;
    ze_context_desc_t cd{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    if ((r = api_.contextCreate(dev_.driver, &cd, &c.ctx)) != ZE_RESULT_SUCCESS) return fail(error, zeErr("zeContextCreate", r));
    ze_module_desc_t md{};
    md.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    md.format = ZE_MODULE_FORMAT_IL_SPIRV;
    md.inputSize = spirv.size() * sizeof(uint32_t);
    md.pInputModule = reinterpret_cast<const uint8_t*>(spirv.data());
    std::string flags = buildFlags(cfg.buildOptions);
    md.pBuildFlags = flags.c_str();
    ze_module_build_log_handle_t log = nullptr;
    r = api_.moduleCreate(c.ctx, dev_.device, &md, &c.module, &log);
    if (r != ZE_RESULT_SUCCESS) {
      std::string text;
      if (log) {
        size_t n = 0;
        api_.moduleBuildLogGetString(log, &n, nullptr);
        text.resize(n);
        api_.moduleBuildLogGetString(log, &n, text.data());
      }
      if (log) api_.moduleBuildLogDestroy(log);
      return fail(error, zeErr("zeModuleCreate", r) + (text.empty() ? "" : ":\n" + text));
    }
    if (log) api_.moduleBuildLogDestroy(log);
    ze_kernel_desc_t kd{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, kernelName.c_str()};
    if ((r = api_.kernelCreate(c.module, &kd, &c.kernel)) != ZE_RESULT_SUCCESS) return fail(error, zeErr("zeKernelCreate", r));
    if ((r = api_.kernelSetGroupSize(c.kernel, static_cast<uint32_t>(cfg.local[0]), static_cast<uint32_t>(cfg.local[1]),
                                  static_cast<uint32_t>(cfg.local[2]))) != ZE_RESULT_SUCCESS)
      return fail(error, zeErr("zeKernelSetGroupSize", r));
    std::vector<std::vector<uint8_t>> originals;
    for (size_t i = 0; i < args.size(); ++i) {
      LaunchArg& a = args[i];
      if (a.buffer) {
        ze_device_mem_alloc_desc_t dd{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
        ze_host_mem_alloc_desc_t hd{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
        void* p = nullptr;
        if ((r = api_.memAllocShared(c.ctx, &dd, &hd, std::max<size_t>(a.buffer->size(), 1), 64, dev_.device, &p)) != ZE_RESULT_SUCCESS)
          return fail(error, zeErr("zeMemAllocShared", r));
        c.mems.push_back(p);
        originals.push_back(*a.buffer);
        r = api_.kernelSetArgumentValue(c.kernel, static_cast<uint32_t>(i), sizeof(void*), &c.mems.back());
      } else {
        r = api_.kernelSetArgumentValue(c.kernel, static_cast<uint32_t>(i), a.scalar.size(), a.scalar.data());
      }
      if (r != ZE_RESULT_SUCCESS) return fail(error, zeErr("zeKernelSetArgumentValue", r));
    }
    ze_command_queue_desc_t qd{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
                               ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    if ((r = api_.commandListCreateImmediate(c.ctx, dev_.device, &qd, &c.list)) != ZE_RESULT_SUCCESS)
      return fail(error, zeErr("zeCommandListCreateImmediate", r));
    ze_event_pool_desc_t pd{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                            ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    c.device = dev_.device;
    if ((r = api_.eventPoolCreate(c.ctx, &pd, 1, &c.device, &c.pool)) != ZE_RESULT_SUCCESS) return fail(error, zeErr("zeEventPoolCreate", r));
    ze_event_desc_t ed{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    if ((r = api_.eventCreate(c.pool, &ed, &c.event)) != ZE_RESULT_SUCCESS) return fail(error, zeErr("zeEventCreate", r));
    ze_group_count_t groups{static_cast<uint32_t>(cfg.global[0] / cfg.local[0]), static_cast<uint32_t>(cfg.global[1] / cfg.local[1]),
                            static_cast<uint32_t>(cfg.global[2] / cfg.local[2])};
    auto upload = [&] {
      for (size_t m = 0; m < originals.size(); ++m)
        if (!originals[m].empty()) std::memcpy(c.mems[m], originals[m].data(), originals[m].size());
    };
    auto launch = [&](double& ms) -> ze_result_t {
      api_.eventHostReset(c.event);
      ze_result_t e = api_.commandListAppendLaunchKernel(c.list, c.kernel, &groups, c.event, 0, nullptr);
      if (e != ZE_RESULT_SUCCESS) return e;
      if ((e = api_.eventHostSynchronize(c.event, UINT64_MAX)) != ZE_RESULT_SUCCESS) return e;
      ze_kernel_timestamp_result_t ts{};
      if ((e = api_.eventQueryKernelTimestamp(c.event, &ts)) != ZE_RESULT_SUCCESS) return e;
      // timerResolution is in nanoseconds per tick for ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES.
      ms = static_cast<double>(ts.global.kernelEnd - ts.global.kernelStart) * static_cast<double>(dev_.props.timerResolution) * 1e-6;
      return ZE_RESULT_SUCCESS;
    };
    upload();
    if ((r = launch(timing.firstMs)) != ZE_RESULT_SUCCESS) return fail(error, zeErr("zeCommandListAppendLaunchKernel", r));
    size_t m = 0;
    for (LaunchArg& a : args)
      if (a.buffer) {
        if (!a.buffer->empty()) std::memcpy(a.buffer->data(), c.mems[m], a.buffer->size());
        ++m;
      }
    timing.timedMs.clear();
    for (unsigned i = 0; cfg.timedRuns > 0 && i < cfg.timedRuns + 1; ++i) {
      double ms = 0;
      upload();
      if ((r = launch(ms)) != ZE_RESULT_SUCCESS) return fail(error, zeErr("zeCommandListAppendLaunchKernel", r));
      if (i > 0) timing.timedMs.push_back(ms);
    }
    return true;
  }

private:
  // Destroys, in reverse order, whatever run() created.
  struct Cleanup {
    explicit Cleanup(const ZeApi& a) : api(a) {}
    Cleanup(const Cleanup&) = delete;
    Cleanup& operator=(const Cleanup&) = delete;
    const ZeApi& api;
    ze_context_handle_t ctx = nullptr;
    ze_module_handle_t module = nullptr;
    ze_kernel_handle_t kernel = nullptr;
    ze_command_list_handle_t list = nullptr;
    ze_event_pool_handle_t pool = nullptr;
    ze_event_handle_t event = nullptr;
    ze_device_handle_t device = nullptr;
    std::vector<void*> mems;
    ~Cleanup() {
      if (event) api.eventDestroy(event);
      if (pool) api.eventPoolDestroy(pool);
      if (list) api.commandListDestroy(list);
      for (void* p : mems) api.memFree(ctx, p);
      if (kernel) api.kernelDestroy(kernel);
      if (module) api.moduleDestroy(module);
      if (ctx) api.contextDestroy(ctx);
    }
  };
  static bool fail(std::string* error, std::string msg) {
    if (error) *error = std::move(msg);
    return false;
  }
  ZeApi api_;  // the entry points: the loader, or a test double
  ZeDevice dev_;
};

}  // namespace

std::vector<DeviceInfo> listLevelZeroDevicesWith(const ZeApi& api, std::string* error) {
  std::vector<DeviceInfo> r;
  for (ZeDevice& d : enumerate(api, error)) r.push_back(d.info);
  return r;
}

std::unique_ptr<Runtime> createLevelZeroRuntimeWith(const ZeApi& api, unsigned index, std::string* error) {
  std::vector<ZeDevice> ds = enumerate(api, error);
  if (ds.empty()) return nullptr;
  if (index >= ds.size()) {
    if (error) *error = "Level Zero device " + std::to_string(index) + " does not exist (" + std::to_string(ds.size()) + " found)";
    return nullptr;
  }
  return std::make_unique<LevelZeroRuntime>(api, ds[index]);
}

std::vector<DeviceInfo> listLevelZeroDevices(std::string* error) {
  const ZeApi* api = realApi(error);
  return api ? listLevelZeroDevicesWith(*api, error) : std::vector<DeviceInfo>{};
}

std::unique_ptr<Runtime> createLevelZeroRuntime(unsigned index, std::string* error) {
  const ZeApi* api = realApi(error);
  return api ? createLevelZeroRuntimeWith(*api, index, error) : nullptr;
}

}  // namespace xtc::driver::runtime
