// Test helper shared by the tests that build IR by hand (unit and e2e): one op with one result,
// so hand-built kernels read as expressions (`op1(b, "arith.addi", {x, y}, Type::index())`).
#pragma once

#include "ir/Builder.h"

#include <string>
#include <utility>
#include <vector>

namespace xtc::test {

inline ir::Value* op1(ir::Builder& b, const std::string& name, std::vector<ir::Value*> operands, ir::Type t,
                      ir::AttrMap attrs = {}) {
  return b.create(name, operands, {t}, std::move(attrs))->result();
}

}  // namespace xtc::test
