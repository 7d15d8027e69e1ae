// The Level Zero implementation of runtime::Runtime (see Runtime.h), through the ze_loader.
// On a machine without an Intel GPU driver, zeInit fails and the runtime reports it cleanly.
#pragma once

#include "driver/runtime/Runtime.h"

#include <level_zero/ze_api.h>

namespace xtc::driver::runtime {

// The Level Zero entry points the runtime calls, the real loader's by default. Unit tests construct
// the runtime over a test double of these (tests/unit/runtime/LevelZeroRuntimeTest.cpp): there is no
// Intel GPU here, so that is how the path up to the driver calls is tested.
struct ZeApi {
  decltype(&::zeCommandListAppendLaunchKernel) commandListAppendLaunchKernel = ::zeCommandListAppendLaunchKernel;
  decltype(&::zeCommandListCreateImmediate) commandListCreateImmediate = ::zeCommandListCreateImmediate;
  decltype(&::zeCommandListDestroy) commandListDestroy = ::zeCommandListDestroy;
  decltype(&::zeContextCreate) contextCreate = ::zeContextCreate;
  decltype(&::zeContextDestroy) contextDestroy = ::zeContextDestroy;
  decltype(&::zeDeviceGet) deviceGet = ::zeDeviceGet;
  decltype(&::zeDeviceGetComputeProperties) deviceGetComputeProperties = ::zeDeviceGetComputeProperties;
  decltype(&::zeDeviceGetProperties) deviceGetProperties = ::zeDeviceGetProperties;
  decltype(&::zeDriverGet) driverGet = ::zeDriverGet;
  decltype(&::zeEventCreate) eventCreate = ::zeEventCreate;
  decltype(&::zeEventDestroy) eventDestroy = ::zeEventDestroy;
  decltype(&::zeEventHostReset) eventHostReset = ::zeEventHostReset;
  decltype(&::zeEventHostSynchronize) eventHostSynchronize = ::zeEventHostSynchronize;
  decltype(&::zeEventPoolCreate) eventPoolCreate = ::zeEventPoolCreate;
  decltype(&::zeEventPoolDestroy) eventPoolDestroy = ::zeEventPoolDestroy;
  decltype(&::zeEventQueryKernelTimestamp) eventQueryKernelTimestamp = ::zeEventQueryKernelTimestamp;
  decltype(&::zeInit) init = ::zeInit;
  decltype(&::zeKernelCreate) kernelCreate = ::zeKernelCreate;
  decltype(&::zeKernelDestroy) kernelDestroy = ::zeKernelDestroy;
  decltype(&::zeKernelSetArgumentValue) kernelSetArgumentValue = ::zeKernelSetArgumentValue;
  decltype(&::zeKernelSetGroupSize) kernelSetGroupSize = ::zeKernelSetGroupSize;
  decltype(&::zeMemAllocShared) memAllocShared = ::zeMemAllocShared;
  decltype(&::zeMemFree) memFree = ::zeMemFree;
  decltype(&::zeModuleBuildLogDestroy) moduleBuildLogDestroy = ::zeModuleBuildLogDestroy;
  decltype(&::zeModuleBuildLogGetString) moduleBuildLogGetString = ::zeModuleBuildLogGetString;
  decltype(&::zeModuleCreate) moduleCreate = ::zeModuleCreate;
  decltype(&::zeModuleDestroy) moduleDestroy = ::zeModuleDestroy;
};

// As createLevelZeroRuntime / listLevelZeroDevices, through `api` (kept by the runtime).
std::unique_ptr<Runtime> createLevelZeroRuntimeWith(const ZeApi& api, unsigned index, std::string* error);
std::vector<DeviceInfo> listLevelZeroDevicesWith(const ZeApi& api, std::string* error);

}  // namespace xtc::driver::runtime
