// IR generation: the checked AST (after Sema) -> a `builtin.module` of tile IR per docs/ir.md.
// Variables become SSA values (name hints = variable names); variables assigned inside `for` become
// scf.for iter args and results, inside `if`/`else` scf.if results. Every op carries the source
// location of the construct it came from.
#pragma once

#include "frontend/Ast.h"
#include "ir/Operation.h"

#include <memory>

namespace xtc::frontend {

// `file` must have passed checkFile without errors.
std::unique_ptr<ir::Operation> generateIR(const File& file);

}  // namespace xtc::frontend
