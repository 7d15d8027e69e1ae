// Host launcher stubs: the lowered module (kernel signatures, launch regions, wg_size, sg_size,
// target, build_options) plus the SPIR-V words -> NAME.h / NAME.c, plain C99 that also compiles as
// C++. The generated API, its error codes and its threading rules are documented in docs/stubs.md;
// the kernel ABI it follows is the one of docs/abi.md. No LLVM here: only the IR and target tables.
#pragma once

#include "ir/Operation.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xtc::backend {

struct StubOptions {
  // Prefix of every generated symbol and the base of the file names (NAME.h, NAME.c). Must be a C
  // identifier (isValidStubName).
  std::string name;
  // Shown in the files' banner (e.g. "gemm.xt"); nothing else from the environment (no paths,
  // dates or versions) goes into the text, so the output is deterministic.
  std::string sourceName;
};

struct StubFiles {
  std::string header;  // NAME.h
  std::string source;  // NAME.c (includes "NAME.h")
};

// The stub-specific error codes returned by generated launch functions (next to the runtime's own
// codes). Their values are fixed: they are part of the generated API and of docs/stubs.md. They lie
// in a range that neither OpenCL (negative codes) nor Level Zero (0x70000000 + ...) uses.
enum class StubError : int32_t {
  NullBuffer = 0x7E000001,      // a buffer argument is null
  NegativeSize = 0x7E000002,    // a size (dynamic dimension) argument is negative
  SizeOverflow = 0x7E000003,    // a buffer's byte size does not fit in 64 bits / size_t
  BufferTooSmall = 0x7E000004,  // a buffer is smaller than its memref type with these sizes needs
  BadPitch = 0x7E000005,        // a row pitch the 2D block IO cannot take (pvc: multiple of 16 bytes)
  LaunchRule = 0x7E000006,      // the launch rule divides by zero / shifts out of range here
  NegativeGrid = 0x7E000007,    // the launch rule gives a negative number of workgroups
  GridTooLarge = 0x7E000008,    // the grid does not fit the runtime's launch parameters
  BadAlignment = 0x7E000009,    // a buffer base the 2D block IO cannot take (pvc: 64-byte aligned)
  BadWidth = 0x7E00000A,        // rows the 2D block IO cannot take (pvc: 64 bytes to 2^24)
};

// A kernel's build_options (written in Level Zero's spelling by the lowering) in the spelling Intel's
// OpenCL GPU driver takes (-ze-opt-large-register-file -> -cl-intel-256-GRF-per-thread); other
// words pass through. Used by the stub and by `xtc run`.
std::string openclBuildOptions(const std::string& levelZeroOptions);

// True if `name` can prefix C symbols: [A-Za-z_][A-Za-z0-9_]*, not a C/C++ keyword, not reserved
// (`__x`, `_X`).
bool isValidStubName(std::string_view name);

// Generates both files for every kernel of `module` (a `builtin.module` after lowering: each kernel
// needs `wg_size` and `sg_size`). Errors (a launch-rule op the host cannot evaluate, a parameter type
// without a host ABI, a missing attribute, a bad name) go to `diags` at the kernel or op; on any error
// returns false and leaves `out` empty.
bool generateStub(const ir::Operation& module, const std::vector<uint32_t>& spirv, const StubOptions& options,
                  DiagnosticEngine& diags, StubFiles& out);

}  // namespace xtc::backend
