// A small OpenCL host for the e2e tests: finds the Intel CPU OpenCL device (the PyPI runtime that
// tests/CMakeLists.txt points OCL_ICD_VENDORS at), builds a SPIR-V module, launches one kernel with
// the xtc kernel ABI (docs/abi.md) and reads every buffer back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace xtc::e2e {

// One kernel argument: a buffer (copied in, read back after the launch) or an i64 scalar.
struct KernelArg {
  std::vector<uint8_t>* buffer = nullptr;
  int64_t scalar = 0;
  static KernelArg buf(std::vector<uint8_t>& b) { return {&b, 0}; }
  static KernelArg i64(int64_t v) { return {nullptr, v}; }
};

// Raw bytes of a float vector and back (buffers are untyped at this level).
std::vector<uint8_t> toBytes(const std::vector<float>& v);
std::vector<float> toFloats(const std::vector<uint8_t>& b);

// Runs `kernel` of `spirv` over global size `global` (work-items) with workgroups of `local`.
// Returns false with a message (an OpenCL error, or no device) in `error`.
bool runKernel(const std::vector<uint32_t>& spirv, const std::string& kernel, std::vector<KernelArg>& args,
               const size_t global[3], const size_t local[3], std::string* error);

}  // namespace xtc::e2e
