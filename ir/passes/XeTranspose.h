// tile.transpose on the pvc/dg2 path (issues #9, #10), shared by blocking, layout-assignment and
// lower-xe. A transpose never moves data by itself: its result is the operand's registers with the
// lane layout's two dimensions swapped (layout::LinearLayout::transposeTensor). The cost is decided
// elsewhere:
//   - folded: the operand is a load used only by the transpose and the target has a transposed d32
//     2D block message for it (32-bit elements, or 16-bit ones moved in pairs as dwords, reference
//     §2.3). Blocking gives the load that message; its layout (lanes along the tile's rows) becomes,
//     transposed, lanes along the columns: the store layout for 32-bit data and the VNNI DPAS B layout
//     for 16-bit data, so no conversion follows;
//   - otherwise whatever layout the transposed registers have is converted where a consumer needs
//     another one (an explicit convert_layout, resolved by resolve-layouts into shuffles).
#pragma once

#include "ir/Operation.h"
#include "ir/passes/XeCommon.h"
#include "ir/targets/Target.h"

#include <optional>

namespace xtc::passes::xe {

// The tile.transpose that is the only user of this tile.load_tile's result, or null.
ir::Operation* foldedTranspose(const ir::Operation& load);

// The largest transposed d32 message of the target table whose footprint (rows x cols of the tile
// as read) tiles `tile`, for 32-bit or 16-bit elements; nullopt when none does.
std::optional<Message> transposedLoadMessage(const targets::Target& t, const ir::Type& tile);

// The lane layout of a transpose's result from its operand's (and back: the map is an involution).
layout::Expected<layout::LinearLayout> transposedLayout(const layout::LinearLayout& l);

}  // namespace xtc::passes::xe

namespace xtc::passes::xe {

// An in-register conversion whose source register differs per lane (a transpose in registers is the
// typical one: element (i, j) moves from register i of lane j to register j of lane i), done in three
// phases instead of one shuffle per source register per destination register (R x R shuffles):
//   1. in each lane, y[r] = x[r ^ F(lane)]: a lane-dependent xor of the register index, one select per
//      register for each lane bit that F moves (log R stages for a transpose, no data crosses lanes);
//   2. per register, w[r] = shuffle(y[r], G(lane) ^ H(r)): at most R shuffles (none where the source
//      lane is the lane itself);
//   3. in each lane, z[r] = w'[r ^ K(lane)] with w'[r] = w[Q(r)]: a register renaming, then selects
//      as in 1.
// F, G, H, K, Q are linear maps over GF(2) (xor), solved from the plan's tables when the plan is
// linear (its value at (0, 0) is (0, 0) and elsewhere the xor of its values at the single bits); the
// derivation is in XeTranspose.cpp. A 16x16 f32 transpose takes 15 shuffles and 128 selects (the
// per-register plan took 256 shuffles and 240 selects).
struct DiagonalPlan {
  int64_t R = 0, S = 0;
  std::vector<int64_t> F, K;  // per lane bit: the register xor of phase 1 / phase 3 (0: no stage)
  std::vector<int64_t> G;     // per lane: phase 2's source lane before the register's xor
  std::vector<int64_t> H;     // per register: phase 2's lane xor
  std::vector<int64_t> Q;     // per register: phase 3's renaming, w'[r] = w[Q[r]]
  int64_t shuffles() const;   // registers whose phase-2 source lane is not the lane itself
  int64_t selects() const;    // R per nonzero entry of F and K
};

// The three-phase plan of a shuffle plan (src_regs/src_lanes tables as resolve-layouts records them,
// index r * S + l, R registers of S lanes), or nullopt when it is not linear or not solvable this way.
std::optional<DiagonalPlan> planDiagonal(const std::vector<int64_t>& regs, const std::vector<int64_t>& lanes, int64_t R,
                                         int64_t S);

// What a plan computes: for each destination (r, l) (index r * S + l) the source register and lane,
// by running the three phases on indices (used to check a plan and by the unit tests).
void simulateDiagonal(const DiagonalPlan& p, std::vector<int64_t>& regs, std::vector<int64_t>& lanes);

}  // namespace xtc::passes::xe
