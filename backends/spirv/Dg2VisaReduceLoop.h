// Internal to backends/spirv: dg2's interior row-sum loop (row_sum: lower-xe's 1D block reads of 8
// rows per step, each row's elements summed in-lane and over the 8 lanes, the 8 row sums added into
// a running sum; "dg2 block reads" in docs/passes.md) as ONE inline-vISA statement (--xe-codegen=visa;
// issue #11). Op by op, IGC reduces each row over the lanes by its own halving tree and adds the 8
// row sums one register each; in one statement each lane reads its own row (SIMD8 A64 untyped reads
// of 4 dwords, as gemm_bt's B^T), so a row's sum is a tree over registers (SIMD16 pairs, no lane
// crossing) and the running sum is one SIMD8 add, row r in lane r (docs/hardware.md "dg2: row_sum's
// loop as one statement"). A loop that does not match is emitted op by op as before.
#pragma once

#include "backends/spirv/XeBuiltins.h"

#include <optional>
#include <string>

namespace xtc::backend {

// Emits the dg2 scf.for `op` as one inline-vISA statement and sets its results, if it matches (see
// the .cpp); nullopt (nothing emitted) when it does not. `loopId` makes vISA names unique.
std::optional<std::string> emitDg2VisaReduceLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId);

}  // namespace xtc::backend
