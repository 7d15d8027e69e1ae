// Internal to backends/spirv: builds the LLVM module (spir64, typed pointers) for a lane-level xtc
// module. Every IR vector is scalarized into one LLVM value per register, so the LLVM IR has no
// vector types (spirv-val accepts only 2/3/4/8/16-element vectors without extensions).
#pragma once

#include "ir/Operation.h"
#include "ir/targets/Target.h"

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace xtc::backend {

// Returns null after reporting every problem to `diags`. The context must use typed pointers.
std::unique_ptr<llvm::Module> emitLLVMModule(const ir::Operation& module, const targets::Target& target,
                                             llvm::LLVMContext& ctx, DiagnosticEngine& diags);

}  // namespace xtc::backend
