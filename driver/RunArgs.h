// Kernel arguments for `xtc run`: naming the sizes of dynamic dimensions, filling inputs (seeded
// random values or .npy files) and packing them per the kernel ABI (docs/abi.md).
//
// A dynamic dimension `d` of memref parameter `P` can be given, in order of precedence, as
//   --arg P=1024x512   the whole shape of P (static dims must match)
//   --arg P_dim1=512   one dimension (the names the ABI gives the size arguments)
//   --arg M=1024       a GEMM size: a memref read as tile_mma's A operand has dims (M, K), B has
//                      (K, N), and the memref C the products are stored to (or read as the
//                      accumulator) has (M, N)
//   --input P=p.npy    the file's shape
// Scalars are given by name: --arg alpha=0.5.
#pragma once

#include "driver/runtime/Runtime.h"
#include "ir/Operation.h"
#include "ir/interpret/Interpreter.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace xtc::driver {

struct RunArgRequest {
  std::vector<std::string> args;    // NAME=VALUE
  std::vector<std::string> inputs;  // NAME=file.npy
  uint64_t seed = 1;
};

// The symbolic size names (M, N, K) of each memref parameter's dims, inferred from tile_mma.
std::map<unsigned, std::vector<std::string>> symbolicDimNames(const ir::Operation& kernel);

// Builds the interpreter arguments. `boundSizes` receives NAME -> value of every size name used.
bool buildKernelArgs(const ir::Operation& kernel, const RunArgRequest& req, DiagnosticEngine& diags,
                     interp::KernelArgs& out, std::map<std::string, int64_t>& boundSizes);

// A memref parameter with strides (column-major: ir::denseMemRefOrder) holds its elements in that
// order: its buffer is in memory order, while a .npy file is in logical (row-major) order. These
// convert a buffer of the parameter's logical shape between the two (a copy; the identity for
// row-major memrefs).
interp::Buffer toMemoryOrder(const interp::Buffer& logical, const ir::Type& memref);
interp::Buffer fromMemoryOrder(const interp::Buffer& memory, const ir::Type& memref);

// Packs the arguments per the ABI; buffers point into `args` (which must outlive the result).
std::vector<runtime::LaunchArg> abiArgs(const ir::Operation& kernel, interp::KernelArgs& args);

}  // namespace xtc::driver
