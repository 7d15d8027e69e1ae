// Helpers shared by the passes that cut tiles into power-of-two slices (split-accumulators,
// split-uneven-tiles): the later passes' linear layouts are powers of two in each dimension, so a
// 24-row tile becomes 16 + 8 rows, and partial reductions of slices combine with one arith op.
#pragma once

#include "ir/Type.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xtc::passes {

// (offset, size) ranges along one dimension.
using SliceRanges = std::vector<std::pair<int64_t, int64_t>>;

// `total` as power-of-two ranges, largest first, each a multiple of `unit` (a power of two):
// 24 = 16 + 8, 48 = 32 + 16. Empty when `total` is not a multiple of `unit`.
SliceRanges powerOfTwoRanges(int64_t total, int64_t unit);

// The arith op that combines two partial results of a reduction of `kind` (those of two slices), or
// "" when there is none (a float and, or, xor; an unknown kind).
std::string combineOp(const std::string& kind, ir::ElemKind elem);

}  // namespace xtc::passes
