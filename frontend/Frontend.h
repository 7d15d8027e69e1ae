// The .xt frontend's public entry points: source text -> AST (for --emit=ast) -> checked tile IR.
// No ANTLR type appears here; the generated parser stays inside frontend/.
#pragma once

#include "ir/Operation.h"
#include "ir/support/Diagnostics.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace xtc::frontend {

struct FrontendOptions {
  // Maximum nesting of brackets/blocks (and, scaled, of the parse tree). Deeper input is rejected
  // with a diagnostic instead of overflowing the parser's stack.
  unsigned maxNesting = 256;
  // If set, receives the id (from frontend/Diagnostics.def) of every diagnostic reported, in order.
  // Used by the diagnostic registry test.
  std::vector<std::string>* emittedDiagIds = nullptr;
};

// Parses, checks and lowers `fileName` to a `builtin.module` of tile IR. The text is read through
// diags.sources() (the caller registers it with addFile/addBuffer first). Returns null if any error
// was reported (diagnostics are in `diags`).
std::unique_ptr<ir::Operation> compileToTileIR(const std::string& fileName, DiagnosticEngine& diags,
                                               const FrontendOptions& opts = {});

// Parses `fileName` and returns its AST as indented text; with `check`, also runs semantic analysis
// (so types appear in the dump). Returns false if an error was reported.
bool dumpAst(const std::string& fileName, DiagnosticEngine& diags, std::string* out,
             const FrontendOptions& opts = {}, bool check = true);

// Every diagnostic id of the frontend (the registry in frontend/Diagnostics.def), in order.
std::vector<std::string> allDiagnosticIds();

}  // namespace xtc::frontend
