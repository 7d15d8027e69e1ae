// tile.transpose on the pvc/dg2 path; see XeTranspose.h.
#include "ir/passes/XeTranspose.h"

namespace xtc::passes::xe {

ir::Operation* foldedTranspose(const ir::Operation& load) {
  if (!load.is("tile.load_tile") || load.numResults() != 1) return nullptr;
  const auto& uses = load.result()->uses();
  if (uses.size() != 1 || !uses.front().user->is("tile.transpose")) return nullptr;
  ir::Operation* tr = uses.front().user;
  return tr->result()->type().rank() == 2 ? tr : nullptr;
}

std::optional<Message> transposedLoadMessage(const targets::Target& t, const ir::Type& tile) {
  if (!t.has2dBlockIO || tile.rank() != 2) return std::nullopt;
  const int bits = static_cast<int>(ir::elemBits(tile.elem()));
  if (bits != 32 && bits != 16) return std::nullopt;  // d8 in quadruples: no probe, not modelled here
  std::optional<Message> best;
  for (const targets::BlockShape& s : t.blockLoads) {
    if (!s.transpose || s.elemBits != 32 || s.arrayLength != 1) continue;
    Message m;
    m.elemBits = 32;
    m.width = static_cast<int>(s.width);
    m.height = static_cast<int>(s.height);
    m.transpose = true;
    m.dataBits = bits == 32 ? 0 : bits;
    if (tile.shape()[0] % m.rows() != 0 || tile.shape()[1] % m.cols() != 0) continue;
    if (!best || m.rows() * m.cols() > best->rows() * best->cols()) best = m;
  }
  return best;
}

layout::Expected<layout::LinearLayout> transposedLayout(const layout::LinearLayout& l) { return l.transposeTensor(); }

}  // namespace xtc::passes::xe
