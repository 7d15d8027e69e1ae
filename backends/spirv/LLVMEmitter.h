// Internal to backends/spirv: builds the LLVM module (spir64, typed pointers) for a lane-level xtc
// module. Every IR vector is scalarized into one LLVM value per register; hardware operands (DPAS,
// 2D block IO) and the loop-carried values that come from them are whole LLVM vectors.
#pragma once

#include "backends/spirv/SpirvBackend.h"
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
                                             XeCodegen codegen, llvm::LLVMContext& ctx, DiagnosticEngine& diags);

}  // namespace xtc::backend
