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
