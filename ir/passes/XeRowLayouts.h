// Lane layouts for the pvc/dg2 row ops (tile.reduction, tile.broadcast) and the FMA tile_mma (f32,
// no DPAS), shared by layout-assignment (which records them on the types) and lower-xe (which
// relies on them), so the two cannot drift apart. Contract: docs/passes.md, "layout-assignment".
#pragma once

#include "ir/layout/LinearLayout.h"

#include <cstdint>
#include <vector>

namespace xtc::passes::xe {

// The layout of a 2-D value with dimension `d` collapsed to size 1 (or to size / group), and which
// register bits survive.
// Register bases along `d` are dropped (their registers are combined in-lane by a reduction, or
// repeat the same register in a broadcast); lane bases along `d` become 0 (those lanes hold the same
// value: a replicated layout). Every basis must lie along one dimension (else an error).
struct Projection {
  layout::LinearLayout layout;
  std::vector<int> droppedRegBits;  // register bits of the full layout that run along `d`
  std::vector<int> reducedLaneBits;  // lane bits of the full layout that run along `d`
  // Register of the projected layout that holds what register `r` of the full layout holds.
  int32_t projectRegister(int32_t r) const;
};
// With `group` < the size of `d` (a reduction with reduction_size = group), only the bases below
// `group` along d are combined; the others select the group and are divided by it (dimension d of the
// result has size / group elements). Every basis along d must be below group or a multiple of it.
layout::Expected<Projection> projectLayout(const layout::LinearLayout& full, int d, int64_t group = 0);

// The lane layout of a per-lane rows x cols value (powers of two): lanes run along the columns
// (adjacent lanes, adjacent addresses); with fewer than S columns the remaining lane bits take the
// low rows, and with fewer than S elements the lane bits left over replicate the value (zero bases). Registers: the remaining rows, then the column groups of S. For
// cols >= S this is the DPAS C pattern (register i = row i, lane = column) repeated over the value.
layout::Expected<layout::LinearLayout> rowMajorLaneLayout(int64_t rows, int64_t cols, int S);

// The lane layout of an FMA tile_mma's B or C (rows x cols, powers of two): rowMajorLaneLayout when
// cols >= S; with fewer columns than lanes, lanes run along the columns and the remaining lane bits
// replicate (zero bases: lane l and l + cols hold the same elements) with every row in registers, so
// each lane still owns whole columns and C(m, n) += A(m, k) * B(k, n) stays in-lane (the replicas
// compute the same values: N < S wastes S / N of the lanes, but needs no shuffle).
layout::Expected<layout::LinearLayout> fmaLaneLayout(int64_t rows, int64_t cols, int S);

// The layout a broadcast along `d` produces when no consumer asks for one: the operand's layout
// with one register bit per doubling of dimension `d` (registers repeat the operand's).
layout::Expected<layout::LinearLayout> broadcastLayout(const layout::LinearLayout& operand, int d, int64_t size);

}  // namespace xtc::passes::xe
