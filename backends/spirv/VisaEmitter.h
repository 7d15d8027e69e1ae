// Internal to backends/spirv: the xe.* ops that IGC 1.0.12504 has no builtin for (2D block store,
// 2D block prefetch), emitted as inline vISA through SPV_INTEL_inline_assembly (reference §3, §9) or,
// with --xe-codegen=builtins, as the portable per-lane forms the builtins path can express; and, in
// vISA mode, the d16 16x8x2 load as two 1x16x8 loads whose results are DPAS A operands as they are,
// and the f32 lane.reduce add and max where every lane is on (visaReduceF32, below). Every
// vISA text this file writes has a probe in tests/isa/builtins/visa_*.ir that compiles it through
// xtc and checks the instruction and its decoded block shape.
#pragma once

#include "backends/spirv/SpirvBackend.h"
#include "backends/spirv/XeBuiltins.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class IRBuilderBase;
class Value;
class BasicBlock;
class PHINode;
}  // namespace llvm

namespace xtc::backend {

// Emits `op` if it is one of this file's ops: "" on success, an error text otherwise; nullopt when
// the op is not handled here (the caller goes on to XeBuiltins.cpp).
std::optional<std::string> emitVisaOp(const ir::Operation& op, XeEmitContext& ctx, XeCodegen mode);

// The 2D block message headers of the per-op vISA messages (pvc, vISA mode). A header (one GRF:
// base, width-1, height-1, pitch-1, x, y, block shape; reference §2.1) is built once per surface and
// block shape and carried as an SSA value (an i32 per lane: 16 lanes x 4 bytes = the GRF); each
// message copies the current one, sets the coordinates that differ from the ones it holds and sends
// it with raw_sends, and the copy becomes the current header (IGC coalesces the copy when the old one
// dies there, so a message costs its coordinate movs only). Loops carry the headers their messages
// use as phis (built before the loop when the surface is defined outside it), ifs merge them; without
// this, IGC builds all seven header fields for every lsc_*_block2d statement (~7 movs per message:
// row_sum's K loop 104 -> 93 instructions per step, measured; 91 with its x stepped in the header).
struct VisaHeaders {
  struct Slot {
    llvm::Value *base, *width, *height, *pitch;  // the surface as the message's operands give it
    uint32_t shape;                              // header dword 7: (w-1) | (h-1) << 8 | (blocks-1) << 16
    llvm::Value* header;                         // the current header
    llvm::Value *x = nullptr, *y = nullptr;      // the coordinates it holds (null: unknown)
    // Set by prepareLoopHeaders for the loop about to be emitted: a coordinate every message of the
    // slot in the loop uses, set before the loop (so still held in and after it), else null.
    llvm::Value *loopX = nullptr, *loopY = nullptr;
    // Set by prepareLoopHeaders for a message sent once per iteration whose coordinate moves by a
    // constant per iteration (LoopCoords.h): set before the loop to its first value and advanced by
    // the step after each send (one add on the header dword; 0: never written again), so the message
    // writes no coordinate. nullopt: the message writes it when it differs (x/y above).
    std::optional<int64_t> stepX = std::nullopt, stepY = std::nullopt;
    // The message in a loop this header belongs to (null: shared by the surface's messages in
    // straight-line code). In a loop each message has its own carried header: IGC keeps one header
    // updated in place, but copies a header chained through several messages twice per step.
    const ir::Operation* op = nullptr;
  };
  std::vector<Slot> slots;  // in creation order (deterministic output)
  // The header's 64-bit base as ONE qword mov into a uq alias of the header (else two dword movs):
  // only in a kernel without loops. There it saves a mov per header (softmax pvc 664 -> 662,
  // sg_bias_relu 82 -> 79); in RFC 2.5 (loops) IGC then spilled 112 registers, even with only the
  // headers outside its loops in this form (issue 11, measured again in session 17).
  bool qwordBase = false;
};

// Before a loop is emitted op by op: builds (at the insertion point, the preheader) a header for each
// per-op message in `loop` whose surface is defined outside the loop, with the coordinates that are
// the same in every iteration already set (loopX/loopY), and those that move by a known step set to
// their first value (stepX/stepY).
void prepareLoopHeaders(const ir::Operation& loop, XeEmitContext& ctx, XeCodegen mode);

// An f32 lane.reduce add or max (`kind`: the vISA op, "add" or "max") over the subgroup's `lanes`
// lanes (16 on pvc, 8 on dg2) as one inline-vISA statement (vISA mode): the tree IGC's
// sub_group_reduce_add/max expands to (the upper half of the lanes combined with the lower, then
// halves again down to 1 lane, NoMask; the same order, so the same results), the result broadcast
// to every lane, without the builtin's first step: a NoMask mov of the identity (0, or -inf for
// max) into a copy of the source, which a masked copy then fills, so that lanes disabled by
// divergent control flow do not count (row_sum: 8 movs per step; softmax's row maxima: 8). Only
// where every lane is enabled and has computed `x`, and only for a result that arithmetic reads:
// the result is per lane, where IGC knows the builtin's is uniform (LLVMEmitter.cpp, emitReduce).
// Probes visa_reduce_add_f32.ir, visa_reduce_max_f32.ir (pvc) and visa_reduce_dg2_add_f32.ir; the
// text is run by tests/isa/measure/visa_reduce.py (golden xe/visa-reduce.test).
llvm::Value* visaReduceF32(llvm::IRBuilderBase& b, llvm::Value* x, int lanes, std::string_view kind);

}  // namespace xtc::backend
