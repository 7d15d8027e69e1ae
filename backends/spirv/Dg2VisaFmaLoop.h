// Internal to backends/spirv: dg2's interior f32 FMA GEMM K loop (no DPAS for f32: sg_gemm_f32,
// gemm_splitk, gemm_acc, gemm_bt; lower-xe's 1D block reads and lane reads, "dg2 block reads" in
// docs/passes.md) as ONE inline-vISA statement (--xe-codegen=visa; issue #11). Op by op, IGC spends a
// sync, header copies and a goto per step around its builtins; in one statement each row is read
// (LSC, transposed, SIMD1; gemm_bt's B^T rows by SIMD8 untyped reads, one row per lane) into
// registers the mads read directly: one `mad (M1, 8)` per lane.fma, its broadcast A element a scalar
// region <0;1,0> of the A row's register, its B element the B row's (or lane read's) register, the
// accumulator in place (tied outputs); one 64-bit add per message address (docs/hardware.md, "dg2:
// inline vISA"; the forms measured by tests/isa/measure/dg2-visa.sh, fmacase and fmabtcase). The DPAS
// counterpart is Dg2VisaLoop.h, pvc's VisaLoop.h (whose matcher takes the same FMA form). A loop that
// does not match is emitted op by op as before.
#pragma once

#include "backends/spirv/XeBuiltins.h"

#include <optional>
#include <string>

namespace xtc::backend {

// Emits the dg2 scf.for `op` as one inline-vISA statement and sets its results, if it matches (see
// the .cpp); nullopt (nothing emitted) when it does not. `loopId` makes vISA names unique.
std::optional<std::string> emitDg2VisaFmaLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId);

}  // namespace xtc::backend
