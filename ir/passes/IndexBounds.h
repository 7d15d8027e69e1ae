// An upper bound on a non-negative index, from how it is computed: the number of bits B such that
// 0 <= v < 2^B holds for every execution, or nothing when the IR does not show it (a loaded value,
// a block argument, a subtraction, a negative constant). lower-xe's block-read guards use it to drop
// the `offset < size` half of a bounds check whose `offset + extent <= size` half already implies it
// (an offset known non-negative and far from overflow); unit test tests/unit/passes/IndexBoundsTest.cpp.
#pragma once

#include "ir/Operation.h"

#include <optional>

namespace xtc::passes {

// Bits of an upper bound of `v` (0 <= v < 2^bits), at most 63, or nullopt.
std::optional<int> unsignedBits(const ir::Value* v);

}  // namespace xtc::passes
