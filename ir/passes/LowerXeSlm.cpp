// lower-xe, shared local memory: gpu.slm_alloc and the tiles over its buffers. No 2D block message
// addresses SLM (those take global surfaces only), so blocking marks SLM loads per lane. Two ways:
//
// Panels (block messages). A buffer whose every access is a load or store of a tile with the lane
// layout "lane = column, registers = rows and whole S-column blocks" (the DPAS A, B and C layouts,
// the cooperative 2D-load layouts), at a column offset that is a multiple of S and provably inside
// the buffer, is stored in column panels S wide: element (r, c) of a R x C buffer lives at flat
// element (c / S) * R * S + r * S + c % S of a rank-1 buffer. One register is then S contiguous
// elements and the registers of a tile's consecutive rows within a panel are consecutive, so up to 8
// registers go in one subgroup block message (xe.block_read / xe.block_write: register i of lane l =
// element start + i * S + l; the measured SLM block forms of docs/hardware.md). A message's lanes
// touch S contiguous elements, so there are no bank conflicts to swizzle away. A buffer with a
// `swizzle` never takes panels (the swizzle is applied to every access or none, below).
//
// VNNI panels. A DPAS B operand of 16-bit data packs rows 2i and 2i+1 of a column into one dword
// (reference §4); read from row-major panels, every operand costs IGC 2 movs per register to
// interleave them, in every subgroup that reads it (RFC 2.4: 64 per K step). A 16-bit buffer whose
// loads all feed tile_mma as B, and whose accesses pair rows (register 1 = row + 1, even rows
// otherwise, even row offsets), stores its panels with rows 2i and 2i+1 interleaved: element (r, c)
// at (c / S) * R * S + (r / 2) * 2S + 2 (c % S) + r % 2, accessed with 32-bit block messages
// (elem_bits = 32: register 2i + h of lane l = element start + 2 (i S + l) + h). A 32-bit read of
// 8 registers is then the DPAS B operand as is, and the interleave happens once, in the store of
// the (thinner, cooperative) tile that fills the buffer.
//
// Per lane (the rest). Every access is one lane op per register at the element the lane layout puts
// there (the measured per-lane SLM forms of reference §6, `load.slm`/`store.slm`), so a load produces
// directly the layout its consumer wants (a DPAS operand, say) and a store takes whatever layout its
// value has: the layout change that an SLM round trip is stays visible in the IR as the
// store/barrier/load sequence. A buffer's `swizzle` (docs/passes.md, wg-distribute) is applied to
// every access through SlmSwizzle.h, the arithmetic lower-generic uses, with the bounds check of the
// unswizzled element moved into the lane op's mask.
#include "ir/passes/LowerXeKernel.h"
#include "ir/passes/SlmSwizzle.h"

#include <algorithm>

namespace xtc::passes::lowerxe {

namespace {

// What the panel plan needs to know of a tile-level index: bounds [lo, hi] and a power of two it is a
// multiple of; nullopt when it does not follow from constants, subgroup/lane ids, loop bounds and
// + * / % of those (then the buffer stays per lane).
struct IndexFacts {
  int64_t lo, hi, align;
};
constexpr int64_t kLarge = int64_t(1) << 40;

int64_t pow2Divisor(int64_t c) { return c == 0 ? kLarge : (c & -c); }

std::optional<IndexFacts> indexFacts(const Value* v, int64_t subgroups, int64_t lanes, int depth = 0) {
  if (depth > 64) return std::nullopt;
  auto rec = [&](const Value* x) { return indexFacts(x, subgroups, lanes, depth + 1); };
  if (v->isBlockArgument()) {
    // A loop's induction variable: [lb, ub - 1], stepping from lb.
    const Operation* loop = v->ownerBlock()->parentOp();
    if (!loop || !loop->is("scf.for") || v->index() != 0) return std::nullopt;
    auto lb = rec(loop->operand(0)), ub = rec(loop->operand(1)), st = rec(loop->operand(2));
    if (!lb || !ub || !st || st->lo < 1) return std::nullopt;
    return IndexFacts{lb->lo, std::max(lb->lo, ub->hi - 1), std::min(lb->align, st->align)};
  }
  const Operation* op = v->definingOp();
  if (op->is("arith.constant")) {
    const Attribute* a = op->attr("value");
    if (!a || !a->isa(AttrKind::Int) || a->getInt() < 0 || a->getInt() > kLarge) return std::nullopt;
    return IndexFacts{a->getInt(), a->getInt(), pow2Divisor(a->getInt())};
  }
  if (op->is("gpu.subgroup_id")) return IndexFacts{0, subgroups - 1, 1};
  if (op->is("gpu.lane_id")) return IndexFacts{0, lanes - 1, 1};
  if (op->numOperands() != 2 || !v->type().isIndex()) return std::nullopt;
  auto a = rec(op->operand(0)), b = rec(op->operand(1));
  if (!a || !b) return std::nullopt;
  std::optional<IndexFacts> r;
  if (op->is("arith.addi")) r = IndexFacts{a->lo + b->lo, a->hi + b->hi, std::min(a->align, b->align)};
  if (op->is("arith.muli") && (b->hi == 0 || a->hi <= kLarge / b->hi))
    r = IndexFacts{a->lo * b->lo, a->hi * b->hi, std::min(kLarge, a->align * b->align)};
  bool byConstant = b->lo == b->hi && b->lo > 0;  // the operands are never negative: signed = unsigned
  if ((op->is("arith.divui") || op->is("arith.divsi")) && byConstant)
    r = IndexFacts{a->lo / b->lo, a->hi / b->lo, a->align % b->lo == 0 ? a->align / b->lo : 1};
  if ((op->is("arith.remui") || op->is("arith.remsi")) && byConstant)
    r = a->hi < b->lo ? *a : IndexFacts{0, b->lo - 1, std::min(a->align, pow2Divisor(b->lo))};
  if (!r || r->hi > kLarge) return std::nullopt;
  // A multiple of `align`: the bounds are too (x % 128 with x a multiple of 32 is at most 96).
  if (r->align < kLarge) r->lo = (r->lo + r->align - 1) / r->align * r->align, r->hi = r->hi / r->align * r->align;
  return r;
}

// The block messages' access unit: 32 bits (a row pair of 16-bit elements) on VNNI panels.
ir::AttrMap unitAttrs(const SlmPanels& p) {
  if (p.pairs == 1) return {};
  return {{"elem_bits", Attribute::integer(32)}};
}

}  // namespace

std::optional<SlmPanels> KernelLowerXe::planSlmPanels(const Operation& alloc) {
  const Type& t = alloc.result()->type();
  int64_t bits = ir::elemBits(t.elem());
  if (alloc.attr("swizzle") || t.rank() != 2 || !t.hasStaticShape() || (bits != 16 && bits != 32) || t.shape()[1] % S_)
    return std::nullopt;
  // Panels S wide: the DPAS A (8x16) and B (16x16) blocks of a tile are then contiguous. Wider
  // panels would make a cooperative 4x32 store one message instead of two, but split every DPAS
  // operand over two reads (measured on RFC 2.4: 2 writes fewer, 130 movs more per K step).
  SlmPanels p{t.shape()[0], t.shape()[1], S_};
  int64_t subgroups = kernel_->intAttr("num_subgroups", 1);
  // VNNI panels (above): 16-bit data, and every access pairs rows.
  bool pairs = bits == 16 && p.rows % 2 == 0;
  // One access: the tile's lane layout and offsets must give whole registers of S contiguous elements.
  auto fits = [&](const Operation& init, const Type& vec) {
    const layout::LinearLayout* l = ir::vectorLinearLayout(vec);
    const Type& tile = init.result()->type();
    if (!l || l->inDimSize("lane") != S_ || tile.rank() != 2 || xe::registersOf(*l) * S_ != tile.numElements() ||
        tile.shape()[1] % S_)
      return false;
    for (int b = 0; b < l->inDimBits("lane"); ++b)
      if (l->basis("lane", b) != std::vector<int32_t>{0, int32_t(1) << b}) return false;
    for (int b = 0; b < l->inDimBits("register"); ++b)
      if (l->basis("register", b).size() != 2 || l->basis("register", b)[1] % S_ != 0) return false;
    auto row = indexFacts(init.operand(1), subgroups, S_), col = indexFacts(init.operand(2), subgroups, S_);
    if (!row || !col || col->align % S_ || row->hi + tile.shape()[0] > p.rows || col->hi + tile.shape()[1] > p.cols)
      return false;
    // Rows in pairs: register 2i + 1 is the row after register 2i's, every pair starts at an even row.
    bool paired = row->align % 2 == 0 && l->inDimBits("register") > 0 &&
                  l->basis("register", 0) == std::vector<int32_t>{1, 0};
    for (int b = 1; paired && b < l->inDimBits("register"); ++b) paired = l->basis("register", b)[0] % 2 == 0;
    pairs = pairs && paired;
    return true;
  };
  // A load feeds only DPAS B operands (tile_mma operand 1, not the FMA lowering).
  auto onlyB = [](const Operation& load) {
    for (const ir::Use& u : load.result()->uses())
      if (!u.user->is("tile.tile_mma") || u.index != 1 || u.user->hasAttr("fma")) return false;
    return true;
  };
  // IGC issues a load's block messages back to back, so its whole result is live at once (per-lane
  // loads it interleaves with their uses). Measured on RFC 2.2: its 8x256 f32 rows (128 GRF) next to
  // the 128-GRF accumulator spilled 16 GRF through block reads, none per lane. A buffer with a load of
  // more than a quarter of the register file stays per lane.
  int64_t maxLoadBytes = int64_t(std::max(t_.grfCount, t_.grfCountLarge)) * t_.grfBytes / 4;
  for (const ir::Use& u : alloc.result()->uses()) {
    const Operation& init = *u.user;
    if (!init.is("tile.init_tile") || u.index != 0 || init.numOperands() != 3) return std::nullopt;
    for (const ir::Use& a : init.result()->uses()) {
      bool load = a.user->is("tile.load_tile") && a.index == 0, store = a.user->is("tile.store_tile") && a.index == 1;
      if (!(load && fits(init, a.user->result()->type())) && !(store && fits(init, a.user->operand(0)->type())))
        return std::nullopt;
      if (load && a.user->result()->type().numElements() * bits / 8 > maxLoadBytes) return std::nullopt;
      if (load && !onlyB(*a.user)) pairs = false;
    }
  }
  if (pairs) p.pairs = 2;
  return p;
}

std::vector<std::pair<int64_t, std::vector<int64_t>>> KernelLowerXe::panelMessages(const layout::LinearLayout& l,
                                                                                     const SlmPanels& p) {
  // Each access unit's (P = p.pairs registers: one row, or a row pair of VNNI panels) first element
  // relative to the tile's (panel-aligned) origin, in memory order; runs of units P * S elements
  // apart become messages of 8, 4, 2 or 1 units. A register's column part is a multiple of S, so
  // its S lanes stay inside one panel row.
  int64_t P = p.pairs;
  std::vector<std::pair<int64_t, int64_t>> at;
  for (int64_t u = 0; u < xe::registersOf(l) / P; ++u) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(u * P), 0});
    at.push_back({(c[1] / p.panel) * p.rows * p.panel + c[0] * p.panel + P * (c[1] % p.panel), u});
  }
  std::sort(at.begin(), at.end());
  std::vector<std::pair<int64_t, std::vector<int64_t>>> msgs;
  for (size_t i = 0; i < at.size();) {
    size_t run = 1;
    while (i + run < at.size() && run < 8 && at[i + run].first == at[i + run - 1].first + P * S_) ++run;
    size_t n = 1;
    while (2 * n <= run) n *= 2;
    std::vector<int64_t> regs;
    for (size_t k = 0; k < n; ++k)
      for (int64_t h = 0; h < P; ++h) regs.push_back(at[i + k].second * P + h);
    msgs.push_back({at[i].first, regs});
    i += n;
  }
  return msgs;
}

Value* KernelLowerXe::panelBase(const TileState& t, const SlmPanels& p) {
  // (col / S) * R * S + row * S: the flat element of the tile's origin (its column a multiple of S;
  // VNNI panels: its row even, so (row / 2) * 2S is row * S too).
  Value* panel = b_.create("arith.divui", {t.offs[1], cIndex(p.panel)}, {Type::index()})->result();
  Value* a = b_.create("arith.muli", {panel, cIndex(p.rows * p.panel)}, {Type::index()})->result();
  return add(a, b_.create("arith.muli", {t.offs[0], cIndex(p.panel)}, {Type::index()})->result());
}

void KernelLowerXe::lowerSlmBlockLoad(Operation& op, const TileState& t, const SlmPanels& p) {
  const Type& rt = op.result()->type();
  const layout::LinearLayout& l = laneLayout(rt, op);
  ElemKind ek = rt.elem();
  std::vector<Value*> regs(static_cast<size_t>(xe::registersOf(l)));
  Value* base = panelBase(t, p);
  for (auto& [off, group] : panelMessages(l, p)) {
    Type vt = Type::vector({static_cast<int64_t>(group.size())}, ek);
    std::vector<Value*> e = extractAll(b_.create("xe.block_read", {t.mem, addC(base, off)}, {vt}, unitAttrs(p))->result());
    for (size_t k = 0; k < group.size(); ++k) regs[static_cast<size_t>(group[k])] = e[k];
  }
  vals_.set(op.result(), {fromElements(regs, ek)});
}

void KernelLowerXe::lowerSlmAlloc(Operation& op) {
  ir::AttrMap attrs = op.attrs();
  attrs.erase("swizzle");
  if (std::optional<SlmPanels> p = planSlmPanels(op)) {
    const Type& t = op.result()->type();
    Type flat = Type::memref({p->rows * p->cols}, t.elem(), ir::MemSpace::Slm);
    Value* r = b_.create(op.name(), {}, {flat}, attrs)->result();
    r->setNameHint(op.result()->nameHint());
    slmPanels_[r] = *p;
    vals_.set(op.result(), {r});
    return;
  }
  std::string error;
  std::vector<int64_t> sw = slmSwizzleOf(op, &error);
  if (!error.empty()) fail(op, error);
  Value* r = b_.create(op.name(), {}, {op.result()->type()}, attrs)->result();
  r->setNameHint(op.result()->nameHint());
  if (!sw.empty()) slmSwizzle_[r] = sw;
  vals_.set(op.result(), {r});
}

void KernelLowerXe::swizzleSlm(const TileState& t, std::vector<Value*>& idx, Value** mask) {
  auto it = slmSwizzle_.find(t.mem);
  if (it == slmSwizzle_.end()) return;
  swizzleSlmIndex(b_, it->second, t.mem->type().shape(), idx, mask, [this](int64_t v) { return cIndex(v); });
}

void KernelLowerXe::lowerSlmStore(Operation& op, const TileState& t, const layout::LinearLayout& l,
                                  const std::vector<Value*>& regs) {
  if (auto it = slmPanels_.find(t.mem); it != slmPanels_.end()) {
    Value* base = panelBase(t, it->second);
    for (auto& [off, group] : panelMessages(l, it->second)) {
      std::vector<Value*> part;
      for (int64_t r : group) part.push_back(regs[static_cast<size_t>(r)]);
      b_.create("xe.block_write", {fromElements(part, regs[0]->type().elem()), t.mem, addC(base, off)}, {},
                unitAttrs(it->second));
    }
    return;
  }
  std::vector<Value*> lane = laneCoords(l, op);
  // A replicated layout (zero lane bases) stores from the lanes whose replica bits are 0 only: the
  // replicas hold the same value, and one writer per element keeps the interpreter's race check quiet.
  int64_t replicaBits = 0;
  for (int b = 0; b < l.inDimBits("lane"); ++b)
    if (l.basis("lane", b) == std::vector<int32_t>{0, 0}) replicaBits |= int64_t(1) << b;
  Value* replica = nullptr;
  if (replicaBits)
    replica = pro_.create("arith.cmpi", {pro_.create("arith.andi", {laneId_, cIndex(replicaBits)}, {Type::index()})->result(), cIndex(0)},
                          {Type::scalar(ElemKind::I1)}, {{"predicate", Attribute::enumValue("cmpi", "eq")}})
                  ->result();
  for (int64_t r = 0; r < static_cast<int64_t>(regs.size()); ++r) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r), 0});
    std::vector<Value*> idx{add(t.offs[0], addC(lane[0], c[0])), add(t.offs[1], addC(lane[1], c[1]))};
    Value* mask = replica;
    swizzleSlm(t, idx, &mask);
    std::vector<Value*> operands{regs[static_cast<size_t>(r)], t.mem, idx[0], idx[1]};
    if (mask) operands.push_back(mask);
    b_.create("lane.store", operands, {});
  }
}

}  // namespace xtc::passes::lowerxe
