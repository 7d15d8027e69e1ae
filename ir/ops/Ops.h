// Registration of every op of the catalogue in docs/ir.md (builtin, xtc, scf, arith, math, vector,
// gpu, memref, tile) with its traits and verifier. `xe.*` ops are registered by the lowering passes
// through the same ir/OpRegistry.h registerOp.
#pragma once

namespace xtc::ir {

// Registers every op above. Idempotent and thread-safe; call before verifying or running passes.
void registerAllOps();

}  // namespace xtc::ir
