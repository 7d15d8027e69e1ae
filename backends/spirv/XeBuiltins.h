// Internal to backends/spirv: emission of the `xe.*` hardware ops (ir/ops/XeOps.h) as the Intel
// builtins measured in shared/INTEL_XE_REFERENCE.md. IGC drops unknown builtins silently (reference,
// "The first rule"), so this file emits only forms that an ISA test in tests/isa/builtins proves; any
// other form is an error ("not implemented yet"), never a guess.
#pragma once

#include "ir/Operation.h"
#include "ir/targets/Target.h"

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class Module;
class Value;
}  // namespace llvm

namespace xtc::backend {

// What the kernel emitter (LLVMEmitter.cpp) lends to the xe emitter: the module, the insertion point
// (through `builder`, an llvm::IRBuilder<>* cast to void* so this header needs no LLVM), and the
// scalarized values of IR operands (one llvm::Value per register).
struct XeEmitContext {
  llvm::Module& module;
  void* builder;  // llvm::IRBuilder<>*
  const targets::Target& target;
  std::function<const std::vector<llvm::Value*>&(ir::Value*)> get;
  std::function<void(ir::Value*, std::vector<llvm::Value*>)> set;
  std::function<llvm::Value*(ir::Value*)> memrefPointer;  // a memref parameter's global pointer
};

// Emits one xe.* op. Returns "" on success, else the error to report at the op.
std::string emitXeOp(const ir::Operation& op, XeEmitContext& ctx);

}  // namespace xtc::backend
