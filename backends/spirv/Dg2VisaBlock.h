// Internal to backends/spirv: the block path of a dg2 kernel without a loop (the then-region of
// lower-xe's guard "inside and aligned": global block reads and lane reads, f32 element-wise ops,
// global block writes, and since issue 11 softmax's row work: exp, division, lane reductions;
// docs/passes.md "dg2 block reads") as ONE inline-vISA statement
// (--xe-codegen=visa; issue #11). Op by op, IGC computes each row's offset as its own product
// (r * pitch), shifts each write's offset to owords and copies every payload register; in one
// statement each message's 64-bit address is the previous row's plus the pitch (one add), the
// element-wise results are computed straight into the write payloads, and the rows move by LSC
// transposed SIMD1 messages (`d32x{8,16,32}t`, measured in tests/isa/measure/dg2-visa.sh `block`).
// A region that does not match is emitted op by op as before.
#pragma once

#include "backends/spirv/XeBuiltins.h"

#include <functional>
#include <optional>
#include <string>

namespace xtc::backend {

// Emits the then-region of the dg2 scf.if `ifOp` (no results) as one inline-vISA statement, if it
// matches (see the .cpp): its scalar index ops first, through `emitScalar` (the kernel emitter's own
// per-op emission), then the statement. nullopt (nothing emitted) when it does not match. `id` makes
// vISA names unique.
std::optional<std::string> emitDg2VisaBlock(const ir::Operation& ifOp, XeEmitContext& ctx, unsigned id,
                                            const std::function<void(const ir::Operation&)>& emitScalar);

// Whether emitDg2VisaBlock emits the then-region of `ifOp` as one statement on `target`.
bool dg2VisaBlockMatches(const ir::Operation& ifOp, const targets::Target& target);

// Whether every value computed from `v` (through scalar arith ops) is only the condition of scf.ifs
// whose then-regions are such statements. Then lower-xe's xe.oword_align_bits `v` is 0: the
// statement's LSC transposed messages need the address aligned to their 4-byte elements only
// (docs/hardware.md "dg2: the block path ... as one statement"), which an f32 row has.
bool onlyGuardsDg2VisaBlocks(const ir::Value* v, const targets::Target& target);

}  // namespace xtc::backend
