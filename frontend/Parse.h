// Internal: source text -> AST. Validates UTF-8, lexes with the generated ANTLR lexer, rejects
// invalid characters and too-deep nesting before parsing, parses, and builds the AST (AstBuilder).
// The ANTLR types stay in Parse.cpp.
#pragma once

#include "frontend/Ast.h"
#include "frontend/Diag.h"
#include "frontend/Frontend.h"

#include <memory>
#include <string>

namespace xtc::frontend {

// Returns null if an error was reported.
std::unique_ptr<File> parseFile(const std::string& fileName, Reporter& rep, const FrontendOptions& opts);

}  // namespace xtc::frontend
