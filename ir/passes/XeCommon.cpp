// Helpers shared by the pvc/dg2 passes; see XeCommon.h.
#include "ir/passes/XeCommon.h"

#include <fmt/format.h>

namespace xtc::passes::xe {

using ir::Attribute;

std::optional<Message> messageOf(const ir::Operation& load) {
  if (!load.hasAttr("block_w") || !load.hasAttr("block_h")) return std::nullopt;
  Message m;
  m.elemBits = static_cast<int>(load.intAttr("elem_bits", 16));
  m.width = static_cast<int>(load.intAttr("block_w", 16));
  m.height = static_cast<int>(load.intAttr("block_h", 8));
  m.arrayLength = static_cast<int>(load.intAttr("array_len", 1));
  m.vnni = load.boolAttr("vnni");
  m.transpose = load.boolAttr("transpose");
  if (m.transpose && load.numOperands() > 0 && load.operand(0)->type().isTile())
    if (int bits = static_cast<int>(ir::elemBits(load.operand(0)->type().elem())); bits != m.elemBits) m.dataBits = bits;
  return m;
}

void setMessageAttrs(ir::Operation& load, const Message& m) {
  load.setAttr("elem_bits", Attribute::integer(m.elemBits));
  load.setAttr("block_w", Attribute::integer(m.width));
  load.setAttr("block_h", Attribute::integer(m.height));
  load.setAttr("array_len", Attribute::integer(m.arrayLength));
  load.setAttr("vnni", Attribute::boolean(m.vnni));
  if (m.transpose) load.setAttr("transpose", Attribute::boolean(true));
}

std::vector<std::pair<int64_t, int64_t>> messageOrigins(int64_t rows, int64_t cols, int64_t fr, int64_t fc) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (int64_t i = 0; i < rows; i += fr)
    for (int64_t j = 0; j < cols; j += fc) r.emplace_back(i, j);
  return r;
}

static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

layout::Expected<layout::LinearLayout> tileLoadLayout(const Message& m, int64_t rows, int64_t cols, int S) {
  if (!isPow2(rows) || !isPow2(cols))
    return layout::Error{fmt::format("tile {}x{} is not a power-of-two shape", rows, cols)};
  if (rows % m.rows() != 0 || cols % m.cols() != 0)
    return layout::Error{fmt::format("tile {}x{} is not a whole number of {}x{} messages", rows, cols, m.rows(), m.cols())};
  auto block = layout::blockLoadLayout(m.blockLoad(), S);
  if (!block) return layout::Error{block.error()};
  // A transposed message's layout describes the transposed block; in the tile's coordinates it is
  // the tensor transpose of that.
  auto read = m.transpose ? block->layout.transposeTensor() : layout::Expected<layout::LinearLayout>(block->layout);
  if (!read) return read;
  auto grown = read->resizeOutDim("dim0", static_cast<int32_t>(rows));
  if (!grown) return grown;
  grown = grown->resizeOutDim("dim1", static_cast<int32_t>(cols));
  if (!grown) return grown;
  // Message index q = qr * (cols / fc) + qc: its low bits step along columns, then rows.
  std::vector<std::vector<int32_t>> bases;
  for (int64_t c = m.cols(); c < cols; c *= 2) bases.push_back({0, static_cast<int32_t>(c)});
  for (int64_t r = m.rows(); r < rows; r *= 2) bases.push_back({static_cast<int32_t>(r), 0});
  if (bases.empty()) return grown;
  return grown->appendBases("register", bases);
}

std::optional<layout::Target> layoutTarget(const targets::Target& t) {
  if (t.kind == targets::TargetKind::Pvc) return layout::Target::Pvc;
  if (t.kind == targets::TargetKind::Dg2) return layout::Target::Dg2;
  return std::nullopt;
}

std::optional<layout::ElemType> layoutElem(ir::ElemKind k) {
  switch (k) {
    case ir::ElemKind::BF16: return layout::ElemType::BF16;
    case ir::ElemKind::F16: return layout::ElemType::F16;
    case ir::ElemKind::TF32: return layout::ElemType::TF32;
    case ir::ElemKind::I8: return layout::ElemType::I8;
    default: return std::nullopt;
  }
}

layout::Expected<layout::LinearLayout> dpasOperandLayout(const targets::Target& t, ir::ElemKind in,
                                                         layout::Operand which, int64_t rows, int64_t cols) {
  auto lt = layoutTarget(t);
  auto le = layoutElem(in);
  if (!lt || !le) return layout::Error{fmt::format("no DPAS for {} on target {}", ir::elemName(in), t.name)};
  auto shape = layout::dpasShape(*lt, *le);
  if (!shape) return layout::Error{shape.error()};
  int64_t br = which == layout::Operand::A ? shape->m : which == layout::Operand::B ? shape->k : shape->m;
  int64_t bc = which == layout::Operand::A ? shape->k : shape->n;
  // A and C of fewer rows than a DPAS block: the DPAS of that many rows when the target has one for
  // this type (pvc and dg2 bf16/f16: 1, 2, 4 rows; reference §4, dg2 f16 probed: dpas_dg2_f16_m*.ir).
  if (which != layout::Operand::B && rows < br && isPow2(rows) && cols % bc == 0 && isPow2(cols / bc)) {
    bool has = false;
    for (const auto& d : t.dpas) has = has || (d.aType == ir::elemName(in) && d.m == rows);
    if (has) {
      auto hw = layout::dpasLayout(*lt, *le, which, 1, static_cast<int>(cols / bc), static_cast<int>(rows));
      if (!hw) return layout::Error{hw.error()};
      return hw->layout;
    }
  }
  if (rows % br != 0 || cols % bc != 0 || !isPow2(rows / br) || !isPow2(cols / bc))
    return layout::Error{fmt::format("operand {}x{} is not a power-of-two number of {}x{} DPAS blocks", rows, cols, br, bc)};
  auto hw = layout::dpasLayout(*lt, *le, which, static_cast<int>(rows / br), static_cast<int>(cols / bc));
  if (!hw) return layout::Error{hw.error()};
  return hw->layout;
}

std::optional<std::vector<int64_t>> dpasBlockOf(const ir::Operation& mma) {
  const Attribute* a = mma.attr("dpas");
  if (!a || !a->isa(ir::AttrKind::Array)) return std::nullopt;
  std::vector<int64_t> v = a->getIntArray();
  if (v.size() != 3) return std::nullopt;
  return v;
}

int64_t registersOf(const layout::LinearLayout& l) { return l.inDimSize("register"); }

}  // namespace xtc::passes::xe
