// The IR verifier: checks a whole op tree against the op registry (ir/OpRegistry.h, filled by
// ir/ops registerAllOps) and the structural rules of docs/ir.md ("Verifier rules"): every op is
// registered, has its number of regions and passes its op verifier; terminators come last in their
// block; every operand is defined before its use in the same block or in an enclosing block (SSA
// dominance; block arguments count as defined at the block's start); module and kernel conventions
// of ir/Module.h. Each error is reported at the op's location as "'op.name' op message".
#pragma once

#include "ir/Operation.h"
#include "ir/support/Diagnostics.h"

namespace xtc::ir {

// Returns false if any error was reported.
bool verify(const Operation& op, DiagnosticEngine& diags);

}  // namespace xtc::ir
