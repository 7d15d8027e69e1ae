// Internal to backends/spirv: dg2's interior DPAS K loop (lower-xe's 1D block reads, "dg2 block
// reads" in docs/passes.md) as ONE inline-vISA statement (--xe-codegen=visa; issues #10/#11). The
// builtins cost IGC a copy of every A row and a rebuilt address per message; in one statement the
// A rows are read (LSC, transposed, SIMD1) straight into the DPAS A registers, each B row slot is one
// packing mov, and each message address is one 64-bit add per step (docs/hardware.md, "dg2: inline
// vISA, and the whole K loop as one statement"; the form measured by tests/isa/measure/dg2-visa.sh).
// A loop that does not match is emitted op by op as before. pvc's counterpart is VisaLoop.h.
#pragma once

#include "backends/spirv/XeBuiltins.h"

#include <optional>
#include <string>

namespace xtc::backend {

// Emits the dg2 scf.for `op` as one inline-vISA statement and sets its results, if it matches (see
// the .cpp); nullopt (nothing emitted) when it does not, with the reason in `missed` when given
// (`--remarks`). `loopId` makes vISA names unique.
std::optional<std::string> emitDg2VisaLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId,
                                           std::string* missed = nullptr);

}  // namespace xtc::backend
