// The error-code table of generated stubs (see ErrorNames.h). The OpenCL and Level Zero entries
// list the codes defined by the cl.h / ze_api.h headers of Debian 12 (OpenCL 3.0, Level Zero 1.4);
// a code missing here prints as "unknown error code N".
#include "backends/stub/ErrorNames.h"

#include "backends/stub/StubGenerator.h"

#include <algorithm>

namespace xtc::backend::stub {

std::vector<ErrorName> stubErrorNames() {
  auto c = [](StubError e) { return static_cast<int64_t>(e); };
  return {
      {c(StubError::NullBuffer), "XTC_STUB_ERROR_NULL_BUFFER", "a buffer argument is null"},
      {c(StubError::NegativeSize), "XTC_STUB_ERROR_NEGATIVE_SIZE", "a size argument is negative"},
      {c(StubError::SizeOverflow), "XTC_STUB_ERROR_SIZE_OVERFLOW",
       "a buffer's size in bytes (or the global size) overflows 64 bits / size_t"},
      {c(StubError::BufferTooSmall), "XTC_STUB_ERROR_BUFFER_TOO_SMALL",
       "a buffer is smaller than its memref type needs with these sizes"},
      {c(StubError::BadPitch), "XTC_STUB_ERROR_BAD_PITCH",
       "a row pitch the 2D block IO cannot take (pvc: rows must be a multiple of 16 bytes)"},
      {c(StubError::LaunchRule), "XTC_STUB_ERROR_LAUNCH_RULE",
       "the kernel's launch rule divides by zero or shifts out of range with these arguments"},
      {c(StubError::NegativeGrid), "XTC_STUB_ERROR_NEGATIVE_GRID",
       "the kernel's launch rule gives a negative number of workgroups"},
      {c(StubError::GridTooLarge), "XTC_STUB_ERROR_GRID_TOO_LARGE",
       "the grid is larger than the runtime can launch"},
  };
}

const std::vector<ErrorName>& allErrorNames() {
  static const std::vector<ErrorName> all = [] {
    std::vector<ErrorName> v = {
      {0, "SUCCESS", "success (CL_SUCCESS / ZE_RESULT_SUCCESS)"},
      {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED", ""},
      {-71, "CL_INVALID_SPEC_ID", ""},
      {-70, "CL_INVALID_DEVICE_QUEUE", ""},
      {-69, "CL_INVALID_PIPE_SIZE", ""},
      {-68, "CL_INVALID_DEVICE_PARTITION_COUNT", ""},
      {-67, "CL_INVALID_LINKER_OPTIONS", ""},
      {-66, "CL_INVALID_COMPILER_OPTIONS", ""},
      {-65, "CL_INVALID_IMAGE_DESCRIPTOR", ""},
      {-64, "CL_INVALID_PROPERTY", ""},
      {-63, "CL_INVALID_GLOBAL_WORK_SIZE", ""},
      {-62, "CL_INVALID_MIP_LEVEL", ""},
      {-61, "CL_INVALID_BUFFER_SIZE", ""},
      {-60, "CL_INVALID_GL_OBJECT", ""},
      {-59, "CL_INVALID_OPERATION", ""},
      {-58, "CL_INVALID_EVENT", ""},
      {-57, "CL_INVALID_EVENT_WAIT_LIST", ""},
      {-56, "CL_INVALID_GLOBAL_OFFSET", ""},
      {-55, "CL_INVALID_WORK_ITEM_SIZE", ""},
      {-54, "CL_INVALID_WORK_GROUP_SIZE", "the device rejects the kernel's workgroup size"},
      {-53, "CL_INVALID_WORK_DIMENSION", ""},
      {-52, "CL_INVALID_KERNEL_ARGS", ""},
      {-51, "CL_INVALID_ARG_SIZE", ""},
      {-50, "CL_INVALID_ARG_VALUE", ""},
      {-49, "CL_INVALID_ARG_INDEX", ""},
      {-48, "CL_INVALID_KERNEL", ""},
      {-47, "CL_INVALID_KERNEL_DEFINITION", ""},
      {-46, "CL_INVALID_KERNEL_NAME", "the SPIR-V has no kernel of this name"},
      {-45, "CL_INVALID_PROGRAM_EXECUTABLE", ""},
      {-44, "CL_INVALID_PROGRAM", ""},
      {-43, "CL_INVALID_BUILD_OPTIONS", ""},
      {-42, "CL_INVALID_BINARY", ""},
      {-41, "CL_INVALID_SAMPLER", ""},
      {-40, "CL_INVALID_IMAGE_SIZE", ""},
      {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", ""},
      {-38, "CL_INVALID_MEM_OBJECT", "a buffer argument is not a valid cl_mem"},
      {-37, "CL_INVALID_HOST_PTR", ""},
      {-36, "CL_INVALID_COMMAND_QUEUE", "the command queue is null or invalid"},
      {-35, "CL_INVALID_QUEUE_PROPERTIES", ""},
      {-34, "CL_INVALID_CONTEXT", ""},
      {-33, "CL_INVALID_DEVICE", ""},
      {-32, "CL_INVALID_PLATFORM", ""},
      {-31, "CL_INVALID_DEVICE_TYPE", ""},
      {-30, "CL_INVALID_VALUE", "an invalid value was passed to OpenCL"},
      {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE", ""},
      {-18, "CL_DEVICE_PARTITION_FAILED", ""},
      {-17, "CL_LINK_PROGRAM_FAILURE", ""},
      {-16, "CL_LINKER_NOT_AVAILABLE", ""},
      {-15, "CL_COMPILE_PROGRAM_FAILURE", ""},
      {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST", ""},
      {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET", ""},
      {-12, "CL_MAP_FAILURE", ""},
      {-11, "CL_BUILD_PROGRAM_FAILURE", "the program build failed (see NAME_build_log)"},
      {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED", ""},
      {-9, "CL_IMAGE_FORMAT_MISMATCH", ""},
      {-8, "CL_MEM_COPY_OVERLAP", ""},
      {-7, "CL_PROFILING_INFO_NOT_AVAILABLE", ""},
      {-6, "CL_OUT_OF_HOST_MEMORY", "out of host memory"},
      {-5, "CL_OUT_OF_RESOURCES", ""},
      {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE", ""},
      {-3, "CL_COMPILER_NOT_AVAILABLE", ""},
      {-2, "CL_DEVICE_NOT_AVAILABLE", ""},
      {-1, "CL_DEVICE_NOT_FOUND", ""},
      {1, "ZE_RESULT_NOT_READY", ""},
      {0x70000001, "ZE_RESULT_ERROR_DEVICE_LOST", ""},
      {0x70000002, "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY", "out of host memory"},
      {0x70000003, "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", ""},
      {0x70000004, "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE", "the module build failed (see NAME_build_log)"},
      {0x70000005, "ZE_RESULT_ERROR_MODULE_LINK_FAILURE", ""},
      {0x70000006, "ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET", ""},
      {0x70000007, "ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE", ""},
      {0x70010000, "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS", ""},
      {0x70010001, "ZE_RESULT_ERROR_NOT_AVAILABLE", ""},
      {0x70020000, "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE", ""},
      {0x70020001, "ZE_RESULT_WARNING_DROPPED_DATA", ""},
      {0x78000001, "ZE_RESULT_ERROR_UNINITIALIZED", "Level Zero is not initialized (zeInit failed or was not called; no driver?)"},
      {0x78000002, "ZE_RESULT_ERROR_UNSUPPORTED_VERSION", ""},
      {0x78000003, "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE", ""},
      {0x78000004, "ZE_RESULT_ERROR_INVALID_ARGUMENT", ""},
      {0x78000005, "ZE_RESULT_ERROR_INVALID_NULL_HANDLE", "a context, device or command list handle is null"},
      {0x78000006, "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE", ""},
      {0x78000007, "ZE_RESULT_ERROR_INVALID_NULL_POINTER", ""},
      {0x78000008, "ZE_RESULT_ERROR_INVALID_SIZE", ""},
      {0x78000009, "ZE_RESULT_ERROR_UNSUPPORTED_SIZE", ""},
      {0x7800000a, "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT", ""},
      {0x7800000b, "ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT", ""},
      {0x7800000c, "ZE_RESULT_ERROR_INVALID_ENUMERATION", ""},
      {0x7800000d, "ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION", ""},
      {0x7800000e, "ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT", ""},
      {0x7800000f, "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY", ""},
      {0x78000010, "ZE_RESULT_ERROR_INVALID_GLOBAL_NAME", ""},
      {0x78000011, "ZE_RESULT_ERROR_INVALID_KERNEL_NAME", ""},
      {0x78000012, "ZE_RESULT_ERROR_INVALID_FUNCTION_NAME", ""},
      {0x78000013, "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION", ""},
      {0x78000014, "ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION", ""},
      {0x78000015, "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX", ""},
      {0x78000016, "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE", ""},
      {0x78000017, "ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE", ""},
      {0x78000018, "ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED", ""},
      {0x78000019, "ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE", ""},
      {0x7800001a, "ZE_RESULT_ERROR_OVERLAPPING_REGIONS", ""},
      {0x7800001b, "ZE_RESULT_WARNING_ACTION_REQUIRED", ""},
      {0x7ff00001, "ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX", ""},
      {0x7ff00002, "ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE", ""},
      {0x7ff00003, "ZE_RESULT_EXP_ERROR_REMOTE_DEVICE", ""},
      {0x7ffffffe, "ZE_RESULT_ERROR_UNKNOWN", ""},
    };
    for (ErrorName& e : stubErrorNames()) v.push_back(e);
    std::sort(v.begin(), v.end(), [](const ErrorName& a, const ErrorName& b) { return a.code < b.code; });
    return v;
  }();
  return all;
}

}  // namespace xtc::backend::stub
