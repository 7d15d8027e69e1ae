// Internal to backends/spirv: the memory forms the lane level adds to plain loads and stores —
// workgroup-local buffers (gpu.slm_alloc) and atomic read-modify-writes (lane.atomic). LLVMEmitter.cpp
// calls these from its op dispatch; docs/abi.md ("Shared local memory", "Atomics") describes the result.
#pragma once

#include "ir/Type.h"

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <string>
#include <vector>

namespace xtc::backend {

// The kernel's gpu.slm_alloc buffers as ONE module-scope addrspace(3) (Workgroup) byte array named
// `name` -- the way OpenCL C compiles a `__local` array declared in a kernel: the runtime sizes it
// from the module, so no kernel argument and no launch parameter is needed -- each buffer at its own
// 64-byte aligned offset (`sizes`: bytes per buffer, in program order). One array, not one per
// buffer: IGC 1.0.12504 places a second 64 KiB Workgroup variable at the address of the first
// (its offsets wrap at 64 KiB; measured: two [32768 x half] arrays both at SLM 0x10000000, one
// [65536 x half] array's element 32768 at 0x10010000; docs/abi.md "Shared local memory"), which
// would make RFC 2.4's A and B ring buffers alias. Returns a pointer to each buffer's first byte
// (constant expressions), empty when `sizes` is.
std::vector<llvm::Constant*> emitSlmPool(llvm::Module& m, const std::vector<int64_t>& sizes, const std::string& name);

// An atomic read-modify-write of the element at `ptr` (a global pointer) with `value`, `kind` an
// atomic<...> kind of tile.atomic_rmw; sets `*old` to the element's previous value. Returns "" or an
// error for kinds and types the backend does not emit.
std::string emitAtomicRmw(llvm::IRBuilder<>& b, const std::string& kind, ir::ElemKind elem, llvm::Value* ptr,
                          llvm::Value* value, llvm::Value** old);

}  // namespace xtc::backend
