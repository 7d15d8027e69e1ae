// Internal to backends/spirv: a per-lane load or store (lane.load / lane.store, masked or not) of
// 32- or 64-bit data (f32, i32, i64, index) on global memory with one index to check (the others
// constants inside static extents), on pvc in vISA mode, as ONE inline-vISA statement that computes
// the lane's predicate -- the bounds check index <u extent and the mask -- and sends one predicated
// LSC message: `(P) lsc_load.ugm (M1, 16) DST:d32|d64 flat[ADDR]:a64` into a destination that holds
// the padding, `(P) lsc_store.ugm (M1, 16) flat[ADDR]:a64 DATA:d32|d64`. A lane whose predicate is
// off sends nothing: it neither reads nor writes (the padding stays in its register).
//
// Why: the portable form (a branch around a plain load or store) becomes IGC `goto`/`join` regions,
// and IGC 1.0.12504 cannot pass an LLVM i1 to inline vISA as a predicate (the "cr" constraint makes
// IGC drop the statement without a word: it promotes the i1 to i8 first, measured); passed as a
// word, the mask costs IGC a `sel` and the statement a `cmp` per message, more than the branch (45
// instructions against 42 for examples/gather_scatter.xt, measured). So the predicate is computed
// inside the statement from the values the mask is computed from (36 instructions).
// docs/hardware.md, "Predicated per-lane messages".
//
// The mask must be a conjunction (`and i1`) of compares the statement can make (leafCompare in the
// .cpp); anything else keeps the portable form (the caller's). Every text this file writes has its
// probe, tests/isa/builtins/visa_lane_predicated.ir (the sends predicated, no goto or join).
#pragma once

#include "ir/Type.h"

#include <llvm/IR/IRBuilder.h>

#include <optional>

namespace xtc::backend {

struct LaneMessage {
  bool store = false;
  ir::ElemKind elem = ir::ElemKind::F32;  // f32 / i32 (d32 messages), i64 / index (d64)
  llvm::Value* address = nullptr;        // i64: the byte address of the lane's element
  llvm::Value* index = nullptr;          // i64: the element index, checked index <u dim
  llvm::Value* dim = nullptr;            // i64: the memref's extent
  llvm::Value* mask = nullptr;           // i1
  llvm::Value* data = nullptr;           // store: the value stored; load: the padding
};

// Emits the statement at the builder's insertion point: a load returns the lane's value (the padding
// where the predicate is off), a store returns null. std::nullopt (nothing emitted): not this form --
// an element type without a d32/d64 message, or a mask that is not a conjunction of supported compares.
std::optional<llvm::Value*> emitPredicatedLaneMessage(llvm::IRBuilder<>& b, const LaneMessage& m);

// A store of `data` (f32/i32: d32, i64/index: d64, f16/bf16/i16: d16u32, i8: d8u32, the value
// zero-extended to a dword) to the lane's byte `address` where the i32 `maskWord` is
// not 0: one inline-vISA statement, `cmp.ne` of the word into a predicate and ONE predicated
// `lsc_store.ugm`; a lane whose word is 0 writes nothing (its address may be anything). For stores
// whose bounds test the caller has made a bit mask (LLVMEmitter.cpp, lane.store {in_bounds}): the
// i1 form above needs a conjunction of compares the statement can make, and 64-bit unsigned
// bounds tests are not among them. std::nullopt for another element type (nothing emitted).
std::optional<llvm::Value*> emitMaskedLaneStore(llvm::IRBuilder<>& b, ir::ElemKind elem, llvm::Value* address,
                                                llvm::Value* maskWord, llvm::Value* data);

// Rewrites, after -O2, each of emitMaskedLaneStore's statements whose data is register r of a vector
// of 32-bit elements (`extractelement <N x float|i32> %v, r`, r a constant) to take the whole vector
// and store its register r through an alias at byte offset 64 r (pvc: one GRF per 16-lane dword
// register). Why: IGC copies an extracted element into a variable of its own for an inline-vISA
// input, and hoists the copies: the per-lane stores of a 32x64 f32 C tile after the edge loop copied
// all 128 accumulator registers before the first store and spilled (gemm_bf16 with
// --surface-fallback: "spilled around 27" + 43 scratch sends). A whole vector is passed as its own
// variable, with no copy (as the 2D stores' data). Returns the number of statements rewritten.
unsigned storeRegistersFromVectors(llvm::Module& m);

// The ISA line an emitted statement must leave (--verify-isa, XeBuiltins.cpp): a predicated
// `send.ugm (16|M0)` of its message; std::nullopt for text this file did not write.
std::optional<std::string> predicatedLanePattern(const std::string& asmText);

}  // namespace xtc::backend
