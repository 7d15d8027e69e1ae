// The `wg-distribute` pass: workgroup-level tile IR -> subgroup-level tile IR by the wg_maps (XeTile
// RFC). The contract is in docs/passes.md ("wg-distribute").
#pragma once

#include "ir/Operation.h"
#include "ir/support/Diagnostics.h"
#include "ir/targets/Target.h"

namespace xtc::passes {

// Distributes every kernel of `module`. Returns false after reporting diagnostics (the module is then
// left unchanged for kernels that failed). Kernels without any wg_map are left as they are.
bool runWgDistribute(ir::Operation* module, DiagnosticEngine& diags, const targets::Target& target);

// Registers the pass as "wg-distribute" (called by registerAllPasses()).
void registerWgDistributePass();

}  // namespace xtc::passes
