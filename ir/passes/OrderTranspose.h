// The `order-transpose` pass: column-major (order = [0, 1]) tiles and explicit tile.transpose ops made
// explicit and cheap. The contract is in docs/passes.md ("order-transpose").
#pragma once

#include "ir/Operation.h"
#include "ir/support/Diagnostics.h"
#include "ir/targets/Target.h"

namespace xtc::passes {

// Rewrites order = [0, 1] tiles into row-major tiles over the transposed (physical) view plus explicit
// tile.transpose ops, and gives every tile.transpose a `strategy` attribute ("load", "register" or
// "slm"). Returns false after reporting diagnostics.
bool runOrderTranspose(ir::Operation* module, DiagnosticEngine& diags, const targets::Target& target);

// Registers the pass as "order-transpose" (called by registerAllPasses()).
void registerOrderTransposePass();

}  // namespace xtc::passes
