// Internal to backends/spirv: a whole DPAS K loop as ONE inline-vISA statement (pvc, --xe-codegen=visa;
// issue #13, reference §11). Per-op asm statements cannot reach the loop floor: IGC rebuilds every
// message header and copies loop-carried accumulators around each statement. Inside one statement the
// headers are built once before the loop, only their x/y dwords are bumped per iteration, the
// accumulators stay in one vISA variable, and block loads that tile a larger legal message are merged
// into it (gemm_bf16: 16 loads -> 3 per K step). docs/hardware.md, "The whole K loop in one asm
// block", states the match rule; a loop that does not match is emitted op by op as before.
#pragma once

#include "backends/spirv/XeBuiltins.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class BranchInst;
}

namespace xtc::backend {

// Emits the scf.for `op` as one inline-vISA loop and sets its results, if the loop matches (see the
// .cpp); nullopt (nothing emitted) when it does not, with the reason in `missed` when given
// (`--remarks`). `loopId` makes the vISA names and labels unique in the kernel.
std::optional<std::string> emitVisaLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId,
                                        std::string* missed = nullptr);

// Marks the loop whose back edge is `latch` "do not unroll" (llvm.loop.unroll.disable, which
// llvm-spirv writes as the SPIR-V DontUnroll loop control): a loop around a whole-loop asm statement
// must stay rolled, since every copy of the statement would define its vISA labels again.
void keepLoopRolled(llvm::BranchInst& latch);

// The hardware instructions a whole-loop asm text must leave in the ISA (each raw_sends message with
// its header shape, each dpas): for --verify-isa. Empty for any other asm text.
std::vector<isa::HardwareCall> visaLoopHardwareCalls(const std::string& asmText);

}  // namespace xtc::backend
