// The SPIR-V backend: lane-level IR (docs/passes.md, "Lane level") -> LLVM IR for spir64 with the
// OpenCL kernel ABI of docs/abi.md -> LLVM optimization -> basic blocks in reverse post-order ->
// SPIR-V (SPIRV-LLVM-Translator, in process) -> SPIRV-Tools validation (in process).
// Nothing in this header mentions LLVM: the driver and tests use it without LLVM headers.
#pragma once

#include "backends/isa/IsaVerifier.h"
#include "ir/Operation.h"
#include "ir/targets/Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xtc::backend {

// How xe.* ops reach the hardware on pvc (--xe-codegen): inline vISA (SPV_INTEL_inline_assembly)
// where the builtins cannot express an instruction, or the builtins only, with per-lane fallbacks
// for the 2D store and prefetch (the comparison baseline). docs/hardware.md, "Inline vISA".
enum class XeCodegen { Visa, Builtins };

struct BackendOptions {
  const targets::Target* target = nullptr;  // required: subgroup size and SPIR-V extensions
  int optLevel = 2;                         // 0: no LLVM optimization; otherwise the -O2 pipeline
  bool validate = true;                     // run SPIRV-Tools validation on the produced binary
  XeCodegen xeCodegen = XeCodegen::Visa;    // pvc only; other targets never emit inline vISA
  // --verify-isa (emitSpirv only): receives every hardware builtin call of the module (XeBuiltins.h).
  std::vector<isa::HardwareCall>* hardwareCalls = nullptr;
  // Test double for --verify-isa: "FROM=TO" renames builtin FROM after the calls were listed.
  std::string renameBuiltinForTesting;
};

// The LLVM IR that would be translated (after optimization and block ordering), as text.
// Errors (an op the backend cannot lower, a missing kernel attribute) go to `diags` at the op.
bool emitLLVMText(const ir::Operation& module, const BackendOptions& options, DiagnosticEngine& diags,
                  std::string& out);

// The SPIR-V binary of every kernel of the lane-level module. On failure `out` is left empty.
bool emitSpirv(const ir::Operation& module, const BackendOptions& options, DiagnosticEngine& diags,
               std::vector<uint32_t>& out);

// SPIR-V binary -> assembly text in spirv-dis's form (for --emit=spirv-asm).
bool disassembleSpirv(const std::vector<uint32_t>& words, std::string& out, std::string* error);

// SPIRV-Tools validation (the same rules as `spirv-val` without flags); false with the validator's
// messages in `error`.
bool validateSpirv(const std::vector<uint32_t>& words, std::string* error);

}  // namespace xtc::backend
