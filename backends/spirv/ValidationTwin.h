// Internal to backends/spirv: validation of modules with inline vISA. Debian's spirv-val (SPIRV-Tools
// 2023.1) rejects every module that uses SPV_INTEL_inline_assembly: llvm-spirv-15 writes
// OpAsmTargetINTEL without a result type, the form IGC reads, and the validator reports its result
// as an undefined ID (reference §3). So such a module is validated through its twin: a copy in
// which every inline-asm call is a call to a declared function of the same type (docs/hardware.md,
// "What is validated").
#pragma once

#include <memory>

namespace llvm {
class Module;
}

namespace xtc::backend {

// True when some call in `m` calls inline assembly.
bool usesInlineAsm(const llvm::Module& m);

// The twin of `m` (inline-asm calls replaced, see above). Make it before translating `m`: the
// translator rewrites the module it translates.
std::unique_ptr<llvm::Module> makeValidationTwin(const llvm::Module& m);

}  // namespace xtc::backend
