// Internal to backends/spirv: emission of the `xe.*` hardware ops (ir/ops/XeOps.h) as the Intel
// builtins measured in shared/INTEL_XE_REFERENCE.md. IGC drops unknown builtins silently (reference,
// "The first rule"), so this file emits only forms that an ISA test in tests/isa/builtins proves; any
// other form is an error ("not implemented yet"), never a guess.
#pragma once

#include "backends/isa/IsaVerifier.h"
#include "ir/Operation.h"
#include "ir/targets/Target.h"

#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Module;
class PHINode;
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
  // The address of the element at `idx` (one index per dim, row-major with the memref's own dims).
  std::function<llvm::Value*(ir::Value*, const std::vector<llvm::Value*>&)> elementPointer;
  struct VisaHeaders* headers;  // the 2D message headers in scope (VisaEmitter.h); null: build per message
  // Extent `d` of a memref (its row pitch in elements for d = 1 of a dense 2-D memref).
  std::function<llvm::Value*(ir::Value*, unsigned)> memrefDim = nullptr;
  struct BlockAddresses* blockAddresses = nullptr;  // dg2 global block messages' row pointers; null: none kept
};

// The row pointers of dg2's global block messages (XeBuiltins.cpp, blockMessageAddress), kept by the
// kernel emitter across ops: row `r` of a tile at (row, col) is the tile's origin plus r * pitch (a
// loop-invariant offset), so the messages of one tile cost one add each, not a 64-bit
// (row * pitch + col) * bytes each. Keyed by (memref, the row and column index values without their
// constant parts, the LLVM block the pointer was made in, r; r = 0 is the origin); a pointer is reused
// only in the block that made it, where it dominates.
struct BlockAddresses {
  using Key = std::tuple<const ir::Value*, const ir::Value*, const ir::Value*, const llvm::BasicBlock*, int64_t>;
  std::map<Key, llvm::Value*> rows;     // from a carried origin: i8 pointers
  std::map<Key, llvm::Value*> offsets;  // in a kernel without a loop: i32 byte offsets from the base
  std::optional<bool> kernelLoops;      // whether the kernel has a loop (blockMessageAddress' form)
  // The origins of the tiles the loops being emitted walk (LoopOrigins), by (memref, row and column
  // offsets): the phi of the origin's byte offset from the memref's base; it dominates the loop body.
  std::map<std::tuple<const ir::Value*, const ir::Value*, const ir::Value*>, llvm::Value*> carried;
  int loopStatements = 0;  // dg2 whole-loop statements emitted so far in the kernel (Dg2Statement::lane)
};

// dg2: the origins of the tiles a loop walks, carried around it. A tile whose row offset the
// loop steps by a constant (the induction variable, or an offset the body yields as itself + c:
// update_tile_offset; its column loop-invariant or stepped too) has its origin's byte offset
// R * pitch + C * bytes made once before the loop and advanced by the step's bytes each iteration
// (one add), instead of recomputed in the body: there R * pitch, with R walking (B's row in a K
// loop), is a 64-bit multiply each step (IGC's mul/mach pairs on dg2). A tile walking only along its
// row (A) keeps its origin in the body in a 64-bit loop: C * bytes is a shift, no dearer than the
// carried add; a 32-bit loop (narrow) carries it too (there the zero-extended column's shift costs
// two instructions). An offset, not a pointer: through a pointer phi IGC no longer sees the
// kernel argument and gives up its stateful (32-bit offset) messages for a64 ones (measured:
// sg_gemm_f16 174 -> 313 instructions per K step). The kernel emitter calls beginLoopOrigins at the
// end of the preheader (the initial offsets and steps), enterLoopOrigins in the loop header (the
// phis), endLoopOrigins at the end of the latch (the advance); blockMessageAddress uses the phis in
// between.
struct LoopOrigins {
  struct Walk {
    std::tuple<const ir::Value*, const ir::Value*, const ir::Value*> key;  // BlockAddresses::carried
    llvm::Value* init;   // the origin's offset when the loop starts (i64 bytes; i32 if narrow)
    llvm::Value* step;   // bytes one iteration adds
    llvm::PHINode* phi;  // the origin's offset in the body
  };
  std::vector<Walk> walks;
  bool narrow = false;  // 32-bit offsets: the loop's index_bits = 32 (its byte offsets fit, lower-xe)
};
LoopOrigins beginLoopOrigins(const ir::Operation& loop, XeEmitContext& ctx, bool narrow);
void enterLoopOrigins(LoopOrigins& origins, llvm::BasicBlock* preheader, XeEmitContext& ctx);
void endLoopOrigins(LoopOrigins& origins, llvm::BasicBlock* latch, XeEmitContext& ctx);

// Emits one xe.* op. Returns "" on success, else the error to report at the op.
std::string emitXeOp(const ir::Operation& op, XeEmitContext& ctx);

// The ISA instruction (ECMAScript regex over one disassembly line) that a hardware builtin leaves,
// for every builtin name the SPIR-V backend can emit (this file's and LLVMEmitter.cpp's); "" for a
// builtin without an instruction of its own (shuffles, reductions: only the absence of `calla`
// proves them); nullopt for a name that is not a hardware builtin (OpenCL id and math functions).
std::optional<std::string> hardwareCallPattern(const std::string& builtin);

// Every call of a hardware builtin in `m` (after optimization), counted in and outside loops, sorted
// by name: what --verify-isa checks in the disassembly (backends/isa).
std::vector<isa::HardwareCall> listHardwareCalls(const llvm::Module& m);

// Test double for --verify-isa's negative test: renames the declared function `from` to `to` in `m`
// (a "misspelled builtin"). Returns false if `m` declares no `from`.
bool renameBuiltinForTesting(llvm::Module& m, const std::string& from, const std::string& to);

}  // namespace xtc::backend
