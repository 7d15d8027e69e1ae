// The bounds of an index from how the IR computes it, unit-tested in tests/unit/passes/IndexBoundsTest.cpp:
// indexRange, the interval [lo, hi] and a known divisor of v, where the kernel's static grid and
// subgroup count bound its ids. lower-xe uses it to prove a K loop's tiles inside static memrefs and
// aligned in every iteration of every subgroup of every workgroup, so a loop with a barrier can take
// block reads with a condition the whole workgroup shares (LowerXeBlockRead.cpp).
#pragma once

#include "ir/Operation.h"

#include <optional>

namespace xtc::passes {

// lo <= v <= hi, and v is a multiple of `multiple` (0: v is 0), in every execution.
struct IndexRange {
  int64_t lo, hi, multiple;
};
// The range of `v`, or nullopt when the IR does not bound it (a dynamic extent, a grid size that is
// not a constant, a loaded value, a block argument, a product or sum past 2^62 in magnitude).
std::optional<IndexRange> indexRange(const ir::Value* v);

}  // namespace xtc::passes
