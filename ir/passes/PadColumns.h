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

// Whether a clamped init_tile's surface keeps the rules of reference 2.5 whenever its memref's does
// (which the launcher stub checks, or lower-xe's --surface-fallback guard): each clamped extent is
// min(dim, offset + real) with a provably non-negative offset, so the height is at least 1 and the
// width at least real x element bytes, which must be 64 or more and a multiple of 4 (an f32 tile of
// 24 columns: 96; f32 12 columns, 48, and f16 24 columns, 48, are not); the pitch is the memref's.
// Such a tile keeps 2D block messages on pvc, clipped at the clamped width as at any edge.
bool clampedSurfaceLegal(const ir::Operation& init);

}  // namespace xtc::passes
