// The IR text printer: writes ops in the one text format of docs/ir.md ("Text format"), which
// ir/Parser.h reads back so that print(parse(print(m))) == print(m) byte for byte.
// Value names: name hints are sanitised ([A-Za-z0-9_], never starting with a digit) and uniquified
// per kernel (`%acc`, `%acc_1`); values without a hint are numbered `%0, %1, ...` per kernel.
#pragma once

#include "ir/Operation.h"

#include <iosfwd>
#include <string>

namespace xtc::ir {

struct PrintOptions {
  bool locations = false;  // append `loc("file":line:col)` to ops that have a valid location
};

void printOp(std::ostream& os, const Operation& op, const PrintOptions& opts = {});
std::string printToString(const Operation& op, const PrintOptions& opts = {});

// The text of a string as a quoted IR string literal (same escapes as string attributes).
std::string quoteString(const std::string& s);
// True if `s` can be printed bare as an attribute name or a kernel symbol ([A-Za-z_][A-Za-z0-9_.$]*).
bool isBareIdentifier(std::string_view s);

}  // namespace xtc::ir
