// Semantic analysis of the .xt AST: resolves names, types and attribute definitions; checks every
// op's operands, shapes and element types, the RFC's wg_map rules (fit of each wg_map to its shape,
// derived wg_maps of tile_mma, reduction, broadcast and transpose, explicit convert_layout before a
// store with another wg_map), tile order against the memory layout and one subgroup count per
// kernel. Annotates the AST (Expr::type, Expr::res, Stmt::carried, Kernel::numSubgroups) for IRGen.
// Reports as many errors as it sensibly can: a failed subexpression does not cascade.
#pragma once

#include "frontend/Ast.h"
#include "frontend/Diag.h"

namespace xtc::frontend {

// Returns false if any error was reported.
bool checkFile(File& file, Reporter& rep);

}  // namespace xtc::frontend
