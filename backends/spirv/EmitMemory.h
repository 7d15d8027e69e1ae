// Internal to backends/spirv: the memory forms the lane level adds to plain loads and stores —
// workgroup-local buffers (gpu.slm_alloc) and atomic read-modify-writes (lane.atomic). LLVMEmitter.cpp
// calls these from its op dispatch; docs/abi.md ("Shared local memory", "Atomics") describes the result.
#pragma once

#include "ir/Type.h"

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <string>

namespace xtc::backend {

// A gpu.slm_alloc buffer of `numElements` elements of `elemType` as a module-scope addrspace(3)
// (Workgroup) array named `name`, the way OpenCL C compiles a `__local` array declared in a kernel:
// the runtime sizes it from the module, so no kernel argument and no launch parameter is needed.
// Returns a pointer to its first element.
llvm::Value* emitSlmBuffer(llvm::Module& m, llvm::IRBuilder<>& b, llvm::Type* elemType, int64_t numElements,
                           const std::string& name);

// An atomic read-modify-write of the element at `ptr` (a global pointer) with `value`, `kind` an
// atomic<...> kind of tile.atomic_rmw; sets `*old` to the element's previous value. Returns "" or an
// error for kinds and types the backend does not emit.
std::string emitAtomicRmw(llvm::IRBuilder<>& b, const std::string& kind, ir::ElemKind elem, llvm::Value* ptr,
                          llvm::Value* value, llvm::Value** old);

}  // namespace xtc::backend
