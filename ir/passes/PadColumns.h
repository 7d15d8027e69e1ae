// The `pad-columns` pass (pvc/dg2, Xe path, first of the slicing passes): tile widths that are
// neither a multiple nor a divisor of the subgroup size (24 or 12 on pvc's 16 lanes, 12 or 20 on
// dg2's 8) are padded, and the stores clamped to the real width (docs/passes.md, "pad-columns").
#pragma once

#include "ir/Operation.h"

namespace xtc::passes {

// Whether `init` is a tile.init_tile whose explicit shape clamps a dimension of its memref to the
// tile's real extent (`shape [dim(C, 0), min(dim(C, 1), n + 24)]`, written by pad-columns for a
// padded tile that is stored): blocking accesses such a tile per lane, and lower-xe masks those
// accesses at the clamped shape (the padded rows or columns belong to a neighbouring tile).
bool isClampedInit(const ir::Operation& init);

}  // namespace xtc::passes
