// Shared by the pvc/dg2 passes (blocking, layout-assignment, resolve-layouts, lower-xe): the 2D block
// message a blocked load uses, the order in which a tile's messages are issued, and the lane layouts
// that follow from both. One place, so the layout a pass assigns and the code lower-xe emits agree.
// Contract: docs/passes.md, sections "blocking" to "lower-xe".
#pragma once

#include "ir/Operation.h"
#include "ir/layout/Layouts.h"
#include "ir/targets/Target.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xtc::passes::xe {

// One 2D block message: access element bits, block width (access elements) and height (rows),
// array length, VNNI / transpose. Its footprint on the tile it reads is height x (width *
// arrayLength) data elements; a transposed d32 message over 16-bit data (dataBits 16: pairs of
// elements moved as one dword, reference §2.3) covers height x (width * 2).
struct Message {
  int elemBits = 16;
  int width = 16;
  int height = 8;
  int arrayLength = 1;
  bool vnni = false;
  bool transpose = false;
  int dataBits = 0;  // the tile's element bits when they differ from elemBits (transposed d32 only)
  int64_t rows() const { return height; }
  int64_t cols() const { return int64_t(width) * arrayLength * (transpose && dataBits ? elemBits / dataBits : 1); }
  layout::BlockLoad blockLoad() const { return {elemBits, width, height, arrayLength, vnni, transpose, dataBits}; }
};

// The attributes a blocked tile.load_tile carries (set by blocking): block_w, block_h, array_len,
// elem_bits, vnni, transpose (dataBits comes from the tile's element type). Nullopt when the op has
// none (not blocked).
std::optional<Message> messageOf(const ir::Operation& load);
void setMessageAttrs(ir::Operation& load, const Message& m);

// Origins (row, col) of the messages covering a rows x cols tile with footprints fr x fc, in issue
// order: row-major over the message grid (the column index varies fastest).
std::vector<std::pair<int64_t, int64_t>> messageOrigins(int64_t rows, int64_t cols, int64_t fr, int64_t fc);

// The lane layout of a whole rows x cols tile loaded message by message in messageOrigins order:
// registers of message q are q * (registers per message) + the message's own registers. For a
// transposed message it is the layout of the tile as read (not of its transpose). Error text
// when a size is not a power of two or the message layout is not modelled.
layout::Expected<layout::LinearLayout> tileLoadLayout(const Message& m, int64_t rows, int64_t cols, int S);

// The DPAS operand layout (A, B or C) of an operand tile of rows x cols, repeated over the DPAS block.
layout::Expected<layout::LinearLayout> dpasOperandLayout(const targets::Target& t, ir::ElemKind in,
                                                         layout::Operand which, int64_t rows, int64_t cols);

// The layout/target enums of ir/layout for an IR target and element kind.
std::optional<layout::Target> layoutTarget(const targets::Target& t);
std::optional<layout::ElemType> layoutElem(ir::ElemKind k);

// The DPAS block (m, n, k) blocking chose for a tile_mma (attribute `dpas = [m, n, k]`).
std::optional<std::vector<int64_t>> dpasBlockOf(const ir::Operation& mma);

// Registers per lane (the `register` in-dim size) of a lane layout.
int64_t registersOf(const layout::LinearLayout& l);

}  // namespace xtc::passes::xe
