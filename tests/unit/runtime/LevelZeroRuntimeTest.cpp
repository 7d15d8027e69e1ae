// The Level Zero runtime of `xtc run` over a test double of the Level Zero API (FakeLevelZero below):
// there is no Intel GPU here, so this is how everything up to the driver calls is tested — device
// enumeration, the module build (SPIR-V bytes, build flags such as the large register file, the build
// log on failure), kernel arguments in ABI form (buffer pointers, scalar bytes), group size and count,
// buffer upload and read-back, re-upload before timed runs, kernel times from timestamps, and that
// every object created is destroyed. What the real driver does with these calls is not tested.
#include "driver/runtime/LevelZeroRuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace xtc::driver::runtime;

namespace {

// The test double: records what the runtime passes and plays a tiny device whose one kernel computes
// out[i] = 2 * in[i] + n for the ABI-style arguments (in, i64 n, out) and then bumps in[i] by 1 (so a
// missing re-upload before a timed run would show in the results).
struct FakeLevelZero {
  ze_result_t initResult = ZE_RESULT_SUCCESS;
  ze_result_t moduleResult = ZE_RESULT_SUCCESS;
  std::string buildLog;
  // Recorded.
  std::vector<uint8_t> spirv;
  ze_module_format_t format{};
  std::string buildFlags, kernelName;
  uint32_t groupSize[3] = {0, 0, 0};
  ze_group_count_t groups{};
  std::map<uint32_t, std::vector<uint8_t>> argBytes;
  std::vector<size_t> allocSizes;
  int launches = 0;
  std::map<std::string, int> created, destroyed;
};
FakeLevelZero* fake = nullptr;

template <class H>
H handle(uintptr_t v) {
  return reinterpret_cast<H>(v);
}

ze_result_t fInit(ze_init_flags_t) { return fake->initResult; }
ze_result_t fDriverGet(uint32_t* n, ze_driver_handle_t* d) {
  if (d) d[0] = handle<ze_driver_handle_t>(0x10);
  *n = 1;
  return ZE_RESULT_SUCCESS;
}
ze_result_t fDeviceGet(ze_driver_handle_t, uint32_t* n, ze_device_handle_t* d) {
  if (d) d[0] = handle<ze_device_handle_t>(0x20);
  *n = 1;
  return ZE_RESULT_SUCCESS;
}
ze_result_t fDeviceGetProperties(ze_device_handle_t, ze_device_properties_t* p) {
  p->type = ZE_DEVICE_TYPE_GPU;
  std::strncpy(p->name, "Fake Xe GPU (test double)", sizeof p->name - 1);
  p->timerResolution = 2;  // ns per tick
  return ZE_RESULT_SUCCESS;
}
ze_result_t fDeviceGetComputeProperties(ze_device_handle_t, ze_device_compute_properties_t* p) {
  p->maxSharedLocalMemory = 128 * 1024;
  return ZE_RESULT_SUCCESS;
}
ze_result_t fContextCreate(ze_driver_handle_t, const ze_context_desc_t*, ze_context_handle_t* c) {
  ++fake->created["context"];
  *c = handle<ze_context_handle_t>(0x30);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fContextDestroy(ze_context_handle_t) { return ++fake->destroyed["context"], ZE_RESULT_SUCCESS; }
ze_result_t fModuleCreate(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t* d, ze_module_handle_t* m,
                          ze_module_build_log_handle_t* log) {
  fake->spirv.assign(d->pInputModule, d->pInputModule + d->inputSize);
  fake->format = d->format;
  fake->buildFlags = d->pBuildFlags ? d->pBuildFlags : "(null)";
  if (log) *log = handle<ze_module_build_log_handle_t>(0x40), ++fake->created["log"];
  if (fake->moduleResult != ZE_RESULT_SUCCESS) return fake->moduleResult;
  ++fake->created["module"];
  *m = handle<ze_module_handle_t>(0x50);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fModuleDestroy(ze_module_handle_t) { return ++fake->destroyed["module"], ZE_RESULT_SUCCESS; }
ze_result_t fBuildLogGetString(ze_module_build_log_handle_t, size_t* n, char* text) {
  if (text) std::memcpy(text, fake->buildLog.c_str(), *n);
  else *n = fake->buildLog.size() + 1;
  return ZE_RESULT_SUCCESS;
}
ze_result_t fBuildLogDestroy(ze_module_build_log_handle_t) { return ++fake->destroyed["log"], ZE_RESULT_SUCCESS; }
ze_result_t fKernelCreate(ze_module_handle_t, const ze_kernel_desc_t* d, ze_kernel_handle_t* k) {
  fake->kernelName = d->pKernelName;
  ++fake->created["kernel"];
  *k = handle<ze_kernel_handle_t>(0x60);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fKernelDestroy(ze_kernel_handle_t) { return ++fake->destroyed["kernel"], ZE_RESULT_SUCCESS; }
ze_result_t fKernelSetGroupSize(ze_kernel_handle_t, uint32_t x, uint32_t y, uint32_t z) {
  fake->groupSize[0] = x, fake->groupSize[1] = y, fake->groupSize[2] = z;
  return ZE_RESULT_SUCCESS;
}
ze_result_t fMemAllocShared(ze_context_handle_t, const ze_device_mem_alloc_desc_t*, const ze_host_mem_alloc_desc_t*, size_t size,
                            size_t, ze_device_handle_t, void** p) {
  fake->allocSizes.push_back(size);
  ++fake->created["mem"];
  *p = std::calloc(size, 1);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fMemFree(ze_context_handle_t, void* p) {
  std::free(p);
  return ++fake->destroyed["mem"], ZE_RESULT_SUCCESS;
}
ze_result_t fKernelSetArgumentValue(ze_kernel_handle_t, uint32_t i, size_t size, const void* v) {
  const auto* b = static_cast<const uint8_t*>(v);
  fake->argBytes[i].assign(b, b + size);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fListCreateImmediate(ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t*, ze_command_list_handle_t* l) {
  ++fake->created["list"];
  *l = handle<ze_command_list_handle_t>(0x70);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fListDestroy(ze_command_list_handle_t) { return ++fake->destroyed["list"], ZE_RESULT_SUCCESS; }
ze_result_t fEventPoolCreate(ze_context_handle_t, const ze_event_pool_desc_t*, uint32_t, ze_device_handle_t*, ze_event_pool_handle_t* p) {
  ++fake->created["pool"];
  *p = handle<ze_event_pool_handle_t>(0x80);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fEventPoolDestroy(ze_event_pool_handle_t) { return ++fake->destroyed["pool"], ZE_RESULT_SUCCESS; }
ze_result_t fEventCreate(ze_event_pool_handle_t, const ze_event_desc_t*, ze_event_handle_t* e) {
  ++fake->created["event"];
  *e = handle<ze_event_handle_t>(0x90);
  return ZE_RESULT_SUCCESS;
}
ze_result_t fEventDestroy(ze_event_handle_t) { return ++fake->destroyed["event"], ZE_RESULT_SUCCESS; }
ze_result_t fEventHostReset(ze_event_handle_t) { return ZE_RESULT_SUCCESS; }
ze_result_t fEventHostSynchronize(ze_event_handle_t, uint64_t) { return ZE_RESULT_SUCCESS; }
ze_result_t fLaunch(ze_command_list_handle_t, ze_kernel_handle_t, const ze_group_count_t* g, ze_event_handle_t, uint32_t,
                    ze_event_handle_t*) {
  fake->groups = *g;
  ++fake->launches;
  float* in = nullptr;
  float* out = nullptr;
  int64_t n = 0;
  std::memcpy(&in, fake->argBytes.at(0).data(), sizeof in);
  std::memcpy(&n, fake->argBytes.at(1).data(), sizeof n);
  std::memcpy(&out, fake->argBytes.at(2).data(), sizeof out);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = 2 * in[i] + static_cast<float>(n);
    in[i] += 1;
  }
  return ZE_RESULT_SUCCESS;
}
ze_result_t fTimestamp(ze_event_handle_t, ze_kernel_timestamp_result_t* ts) {
  ts->global.kernelStart = 1000;
  ts->global.kernelEnd = 1000 + 500u * static_cast<uint64_t>(fake->launches);  // launch i: 500 i ticks of 2 ns
  return ZE_RESULT_SUCCESS;
}

ZeApi fakeApi() {
  ZeApi a;
  a.init = fInit;
  a.driverGet = fDriverGet;
  a.deviceGet = fDeviceGet;
  a.deviceGetProperties = fDeviceGetProperties;
  a.deviceGetComputeProperties = fDeviceGetComputeProperties;
  a.contextCreate = fContextCreate;
  a.contextDestroy = fContextDestroy;
  a.moduleCreate = fModuleCreate;
  a.moduleDestroy = fModuleDestroy;
  a.moduleBuildLogGetString = fBuildLogGetString;
  a.moduleBuildLogDestroy = fBuildLogDestroy;
  a.kernelCreate = fKernelCreate;
  a.kernelDestroy = fKernelDestroy;
  a.kernelSetGroupSize = fKernelSetGroupSize;
  a.kernelSetArgumentValue = fKernelSetArgumentValue;
  a.memAllocShared = fMemAllocShared;
  a.memFree = fMemFree;
  a.commandListCreateImmediate = fListCreateImmediate;
  a.commandListDestroy = fListDestroy;
  a.commandListAppendLaunchKernel = fLaunch;
  a.eventPoolCreate = fEventPoolCreate;
  a.eventPoolDestroy = fEventPoolDestroy;
  a.eventCreate = fEventCreate;
  a.eventDestroy = fEventDestroy;
  a.eventHostReset = fEventHostReset;
  a.eventHostSynchronize = fEventHostSynchronize;
  a.eventQueryKernelTimestamp = fTimestamp;
  return a;
}

class LevelZeroRuntimeTest : public ::testing::Test {
protected:
  void SetUp() override { fake = &state; }
  void TearDown() override { fake = nullptr; }
  FakeLevelZero state;
};

std::vector<uint8_t> floats(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST_F(LevelZeroRuntimeTest, EnumeratesTheDeviceWithItsSlmSize) {
  std::string err;
  std::vector<DeviceInfo> ds = listLevelZeroDevicesWith(fakeApi(), &err);
  ASSERT_EQ(ds.size(), 1u) << err;
  EXPECT_EQ(ds[0].runtime, "level-zero");
  EXPECT_EQ(ds[0].name, "Fake Xe GPU (test double)");
  EXPECT_TRUE(ds[0].isGpu);
  EXPECT_TRUE(ds[0].intelXe);
  EXPECT_EQ(ds[0].localMemBytes, 128u * 1024);
  EXPECT_EQ(createLevelZeroRuntimeWith(fakeApi(), 1, &err), nullptr);
  EXPECT_EQ(err, "Level Zero device 1 does not exist (1 found)");
}

TEST_F(LevelZeroRuntimeTest, NoDriverNamesWhatWasLookedFor) {
  state.initResult = ZE_RESULT_ERROR_UNINITIALIZED;
  std::string err;
  EXPECT_EQ(createLevelZeroRuntimeWith(fakeApi(), 0, &err), nullptr);
  EXPECT_EQ(err, "no Level Zero driver (zeInit returned 0x78000001; an Intel GPU and its level-zero driver package are needed)");
}

TEST_F(LevelZeroRuntimeTest, LaunchMarshalsArgumentsBuildFlagsAndGroups) {
  std::string err;
  std::unique_ptr<Runtime> rt = createLevelZeroRuntimeWith(fakeApi(), 0, &err);
  ASSERT_NE(rt, nullptr) << err;
  std::vector<uint32_t> spirv{0x07230203u, 0x00010400u, 0xdeadbeefu};
  std::vector<uint8_t> in = floats({1.5f, -2.0f, 3.25f, 0.5f, 7.0f});
  std::vector<uint8_t> out = floats({9, 9, 9, 9, 9});
  std::vector<LaunchArg> args{LaunchArg::buf(in), LaunchArg::value<int64_t>(5), LaunchArg::buf(out)};
  LaunchConfig cfg;
  cfg.local = {16, 1, 1};
  cfg.global = {32, 3, 1};
  cfg.buildOptions = "-ze-opt-large-register-file";
  cfg.timedRuns = 3;
  LaunchTiming t;
  ASSERT_TRUE(rt->run(spirv, "axpn", args, cfg, t, &err)) << err;

  // The module: the SPIR-V words as bytes, the build options in Level Zero's spelling as they are.
  EXPECT_EQ(state.format, ZE_MODULE_FORMAT_IL_SPIRV);
  ASSERT_EQ(state.spirv.size(), 12u);
  EXPECT_EQ(std::memcmp(state.spirv.data(), spirv.data(), 12), 0);
  EXPECT_EQ(state.buildFlags, "-ze-opt-large-register-file");
  EXPECT_EQ(state.kernelName, "axpn");
  // Group size = the workgroup, group count = global / local per dimension.
  EXPECT_EQ(state.groupSize[0], 16u);
  EXPECT_EQ(state.groupSize[1], 1u);
  EXPECT_EQ(state.groupSize[2], 1u);
  EXPECT_EQ(state.groups.groupCountX, 2u);
  EXPECT_EQ(state.groups.groupCountY, 3u);
  EXPECT_EQ(state.groups.groupCountZ, 1u);
  // Arguments: buffers as a pointer to a shared allocation of their size; the scalar's 8 bytes.
  EXPECT_EQ(state.argBytes.at(0).size(), sizeof(void*));
  EXPECT_EQ(state.argBytes.at(2).size(), sizeof(void*));
  ASSERT_EQ(state.argBytes.at(1).size(), 8u);
  int64_t n = 0;
  std::memcpy(&n, state.argBytes.at(1).data(), 8);
  EXPECT_EQ(n, 5);
  EXPECT_EQ(state.allocSizes, (std::vector<size_t>{20, 20}));
  // Read back after the first launch (out = 2 in + 5; in bumped by the kernel once). The timed runs
  // re-upload the inputs first, so they do not change what was read back.
  std::vector<float> o(5), i(5);
  std::memcpy(o.data(), out.data(), 20);
  std::memcpy(i.data(), in.data(), 20);
  EXPECT_EQ(o, (std::vector<float>{8.0f, 1.0f, 11.5f, 6.0f, 19.0f}));
  EXPECT_EQ(i, (std::vector<float>{2.5f, -1.0f, 4.25f, 1.5f, 8.0f}));
  // One result run, one warm-up, three timed: 500 * launch index ticks of 2 ns.
  EXPECT_EQ(state.launches, 5);
  EXPECT_DOUBLE_EQ(t.firstMs, 500 * 2 * 1e-6);
  ASSERT_EQ(t.timedMs.size(), 3u);
  EXPECT_DOUBLE_EQ(t.timedMs[0], 1500 * 2 * 1e-6);
  EXPECT_DOUBLE_EQ(t.timedMs[2], 2500 * 2 * 1e-6);
  // Everything created was destroyed.
  EXPECT_EQ(state.created, state.destroyed);
  EXPECT_EQ(state.created["mem"], 2);
}

TEST_F(LevelZeroRuntimeTest, BuildFailureReportsTheLogAndCleansUp) {
  state.moduleResult = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
  state.buildLog = "error: fake build failure at line 3";
  std::string err;
  std::unique_ptr<Runtime> rt = createLevelZeroRuntimeWith(fakeApi(), 0, &err);
  ASSERT_NE(rt, nullptr) << err;
  std::vector<uint8_t> empty;
  std::vector<LaunchArg> args{LaunchArg::buf(empty)};
  LaunchConfig cfg;
  LaunchTiming t;
  EXPECT_FALSE(rt->run({0x07230203u}, "k", args, cfg, t, &err));
  EXPECT_EQ(state.buildFlags, "");  // no build_options: no flags
  EXPECT_NE(err.find("zeModuleCreate failed with Level Zero error 0x70000004"), std::string::npos) << err;
  EXPECT_NE(err.find("error: fake build failure at line 3"), std::string::npos) << err;
  EXPECT_EQ(state.launches, 0);
  EXPECT_EQ(state.created, state.destroyed);
}

TEST_F(LevelZeroRuntimeTest, EmptyBufferGetsOneByte) {
  std::string err;
  std::unique_ptr<Runtime> rt = createLevelZeroRuntimeWith(fakeApi(), 0, &err);
  ASSERT_NE(rt, nullptr) << err;
  std::vector<uint8_t> in, out(4);
  std::vector<LaunchArg> args{LaunchArg::buf(in), LaunchArg::value<int64_t>(0), LaunchArg::buf(out)};
  LaunchConfig cfg;
  LaunchTiming t;
  ASSERT_TRUE(rt->run({0x07230203u}, "axpn", args, cfg, t, &err)) << err;
  EXPECT_EQ(state.allocSizes, (std::vector<size_t>{1, 4}));
  EXPECT_EQ(state.created, state.destroyed);
}

}  // namespace
