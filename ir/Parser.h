// The IR text parser: a hand-written recursive-descent reader of the text format of docs/ir.md
// ("Text format" and "Grammar"), the inverse of ir/Printer.h. Errors are reported through the
// diagnostics engine as `file:line:col: error: ...` with the source line and a caret; parsing stops at
// the first error. Garbage input never crashes the parser (nesting depth is limited).
#pragma once

#include "ir/Operation.h"
#include "ir/support/Diagnostics.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xtc::ir {

// Parses a whole file. The result is a `builtin.module`: either the file's single top-level
// `builtin.module` op, or a new module holding the file's top-level ops (so hand-written tests may
// omit the wrapper). Returns null on error (diagnostics reported). `text` is registered with
// diags.sources() under `fileName` unless a buffer of that name is registered already.
std::unique_ptr<Operation> parseModule(const std::string& fileName, std::string_view text, DiagnosticEngine& diags);

// Parses one type (e.g. "tile<8x16xf16>"), the whole string. On failure returns nullopt and, if
// `error` is not null, sets it to the message.
std::optional<Type> parseType(std::string_view text, std::string* error);
// Parses one attribute, the whole string; as parseType.
std::optional<Attribute> parseAttribute(std::string_view text, std::string* error);

// Enum attributes (`name<value>`) are only accepted for registered enum names, so a typo such as
// `reduse<add>` is a parse error rather than a silently new enum. The parser pre-registers
// cmpi, cmpf, reduce, atomic, locality and cache; passes that add enums (e.g. for xe.* ops) register
// theirs. An empty `values` list accepts any identifier-like value.
void registerEnumAttr(const std::string& name, std::vector<std::string> values);
// The allowed values of a registered enum, or null when `name` is not registered.
const std::vector<std::string>* findEnumAttr(std::string_view name);

// Maximum nesting of regions, types and attributes the parser accepts (deeper input is an error).
inline constexpr int kMaxParseDepth = 200;

}  // namespace xtc::ir
