// The kernel's launch region (docs/ir.md: index math from the parameters ending in `xtc.grid`)
// translated to C statements the host stub evaluates before every launch. Semantics follow the IR
// (and the reference interpreter): integers wrap to their width, `divsi` rounds toward zero,
// `ceildivsi`/`floordivsi` round up/down, `x / -1` wraps, a zero divisor or an out-of-range shift
// amount is an error of the launch (XTC_STUB_ERROR_LAUNCH_RULE) instead of C undefined behaviour.
#pragma once

#include "backends/stub/StubModel.h"

#include <array>
#include <set>
#include <string>

namespace xtc::backend::stub {

struct LaunchRuleC {
  // Statements (indented by two spaces) computing the grid; a failing helper returns
  // XTC_STUB_ERROR_LAUNCH_RULE from the enclosing function.
  std::string statements;
  std::array<std::string, 3> grid;    // C expressions (int64_t) of the three grid values
  std::array<std::string, 3> pretty;  // readable forms for comments, e.g. "ceildiv(C_dim0, 256)"
  std::set<std::string> helpers;      // names of the static helpers the statements call
};

// Translates `model`'s launch region. Errors (an op or type the host cannot evaluate) go to `diags`
// at the op.
bool translateLaunchRule(const KernelModel& model, DiagnosticEngine& diags, LaunchRuleC& out);

// C definitions of the named helpers (and of the helpers they call), in a fixed order.
std::string launchHelperDefinitions(const std::set<std::string>& helpers);

}  // namespace xtc::backend::stub
