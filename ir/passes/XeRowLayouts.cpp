// Layouts of the pvc/dg2 row ops and the FMA tile_mma; see XeRowLayouts.h.
#include "ir/passes/XeRowLayouts.h"

#include <fmt/format.h>

namespace xtc::passes::xe {

using layout::Error;
using layout::Expected;
using layout::InDim;
using layout::LinearLayout;

int32_t Projection::projectRegister(int32_t r) const {
  int32_t out = 0;
  int pos = 0;
  for (int b = 0; b < 31 && (r >> b) != 0; ++b) {
    bool dropped = false;
    for (int x : droppedRegBits) dropped |= x == b;
    if (dropped) continue;
    if (r >> b & 1) out |= int32_t(1) << pos;
    ++pos;
  }
  return out;
}

Expected<Projection> projectLayout(const LinearLayout& full, int d, int64_t group) {
  if (full.outDims().size() != 2 || d < 0 || d > 1) return Error{"row ops need a rank-2 lane layout"};
  const int64_t size = full.outDims()[static_cast<size_t>(d)].size;
  if (group <= 0) group = size;
  if (size % group != 0) return Error{fmt::format("internal error: a group of {} does not divide dimension size {}", group, size)};
  Projection p;
  std::vector<InDim> ins;
  for (const InDim& in : full.inDims()) {
    InDim out{in.name, {}};
    for (size_t b = 0; b < in.bases.size(); ++b) {
      std::vector<int32_t> v = in.bases[b];
      bool along = v[static_cast<size_t>(d)] != 0, across = v[static_cast<size_t>(1 - d)] != 0;
      if (along && across)
        return Error{fmt::format("a {} bit of layout {} runs along both dimensions; not implemented yet", in.name,
                                 full.print())};
      int32_t& x = v[static_cast<size_t>(d)];
      if (along && x >= group) {  // selects the group: kept, in units of groups
        if (x % group != 0)
          return Error{fmt::format("a {} bit of layout {} straddles groups of {}; not implemented yet", in.name,
                                   full.print(), group)};
        x = static_cast<int32_t>(x / group);
        along = false;
      }
      if (!along) {
        out.bases.push_back(v);
        continue;
      }
      if (in.name == "register") {
        p.droppedRegBits.push_back(static_cast<int>(b));
        continue;
      }
      if (in.name != "lane") return Error{fmt::format("in dim '{}' of layout {} is not handled", in.name, full.print())};
      p.reducedLaneBits.push_back(static_cast<int>(b));
      x = 0;
      out.bases.push_back(v);
    }
    ins.push_back(out);
  }
  std::vector<layout::OutDim> outs = full.outDims();
  outs[static_cast<size_t>(d)].size = static_cast<int32_t>(size / group);
  auto l = LinearLayout::make(ins, outs);
  if (!l) return Error{l.error()};
  p.layout = *l;
  return p;
}

static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Expected<LinearLayout> rowMajorLaneLayout(int64_t rows, int64_t cols, int S) {
  int64_t laneCols = std::min<int64_t>(cols, S), laneRows = S / laneCols;
  if (!isPow2(rows) || !isPow2(cols))
    return Error{fmt::format("a per-lane {}x{} value needs power-of-two sizes; not implemented yet", rows, cols)};
  InDim reg{"register", {}}, lane{"lane", {}};
  for (int64_t c = 1; c < laneCols; c *= 2) lane.bases.push_back({0, static_cast<int32_t>(c)});
  // Fewer elements than lanes: the lane bits past the value replicate it (zero bases).
  for (int64_t r = 1; r < laneRows; r *= 2) lane.bases.push_back({r < rows ? static_cast<int32_t>(r) : 0, 0});
  for (int64_t r = laneRows; r < rows; r *= 2) reg.bases.push_back({static_cast<int32_t>(r), 0});
  for (int64_t c = S; c < cols; c *= 2) reg.bases.push_back({0, static_cast<int32_t>(c)});
  return LinearLayout::make({reg, lane}, {{"dim0", static_cast<int32_t>(rows)}, {"dim1", static_cast<int32_t>(cols)}});
}

Expected<LinearLayout> fmaLaneLayout(int64_t rows, int64_t cols, int S) {
  if (cols >= S) return rowMajorLaneLayout(rows, cols, S);
  if (!isPow2(rows) || !isPow2(cols))
    return Error{fmt::format("an FMA operand {}x{} needs power-of-two sizes; not implemented yet", rows, cols)};
  InDim reg{"register", {}}, lane{"lane", {}};
  for (int64_t c = 1; c < cols; c *= 2) lane.bases.push_back({0, static_cast<int32_t>(c)});
  for (int64_t l = cols; l < S; l *= 2) lane.bases.push_back({0, 0});
  for (int64_t r = 1; r < rows; r *= 2) reg.bases.push_back({static_cast<int32_t>(r), 0});
  return LinearLayout::make({reg, lane}, {{"dim0", static_cast<int32_t>(rows)}, {"dim1", static_cast<int32_t>(cols)}});
}

Expected<LinearLayout> broadcastLayout(const LinearLayout& operand, int d, int64_t size) {
  if (!isPow2(size)) return Error{fmt::format("a broadcast to size {} is not implemented yet (not a power of two)", size)};
  const char* dim = d == 0 ? "dim0" : "dim1";
  if (operand.outDimSize(dim) != 1) return Error{"the broadcast operand must have size 1 along the broadcast dimension"};
  auto grown = operand.resizeOutDim(dim, static_cast<int32_t>(size));
  if (!grown) return grown;
  std::vector<std::vector<int32_t>> bases;
  for (int64_t s = 1; s < size; s *= 2)
    bases.push_back(d == 0 ? std::vector<int32_t>{static_cast<int32_t>(s), 0} : std::vector<int32_t>{0, static_cast<int32_t>(s)});
  if (bases.empty()) return grown;
  return grown->appendBases("register", bases);
}

}  // namespace xtc::passes::xe
