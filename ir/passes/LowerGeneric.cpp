// lower-generic: subgroup-level tile IR -> lane-level IR for the generic target (see LowerGeneric.h
// and docs/passes.md). Each kernel body is rebuilt op by op into a fresh copy, because the type
// conversion is 1:N: a tile becomes one index value per memref dimension (its offsets), a subgroup
// vector<R x C x T> becomes the lane's vector<V x T> of registers in the cooperative-matrix layout.
// scf.for/scf.if are kept (the K loop is never unrolled); only the work inside one tile is unrolled.
// Checks reported as "internal error" repeat what the op verifiers guarantee (every input is verified
// before the passes run).
#include "ir/passes/LowerGeneric.h"

#include "ir/Module.h"
#include "ir/ops/LaneOps.h"
#include "ir/passes/Bf16Arith.h"
#include "ir/passes/LoweredValues.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/RegisterBudget.h"
#include "ir/passes/SlmSwizzle.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <map>

namespace xtc::passes {

using ir::Attribute;
using ir::AttrKind;
using ir::ElemKind;
using ir::Operation;
using ir::Type;
using ir::Value;

std::optional<CoopLayout> coopLayout(const std::vector<int64_t>& shape, int64_t S, std::string* why) {
  if (shape.empty() || shape.size() > 2) {
    *why = fmt::format("only rank-1 and rank-2 subgroup tiles are supported, got rank {}", shape.size());
    return std::nullopt;
  }
  CoopLayout l;
  l.S = S;
  l.rows = shape.size() == 2 ? shape[0] : 1;
  l.cols = shape.back();
  if (l.rows <= 0 || l.cols <= 0) {
    *why = "the subgroup tile must have a static, non-empty shape";
    return std::nullopt;
  }
  l.pcols = l.cols;
  if (l.cols % S != 0 && S % l.cols != 0) {
    if (l.cols > S) {
      l.pcols = (l.cols + S - 1) / S * S;
    } else {
      l.pcols = 1;
      while (l.pcols < l.cols) l.pcols *= 2;
    }
  }
  l.I = std::min(l.pcols, S);
  l.g = S / l.I;
  l.ru = (l.rows + l.g - 1) / l.g;
  l.kb = l.pcols / l.I;
  return l;
}

namespace {

struct LowerError {};  // thrown after a diagnostic, caught per kernel

// A lowered tile: the memref it views and its offsets (one index value per memref dimension).
struct TileState {
  Value* mem = nullptr;
  Type type;                  // the subgroup-level tile type
  std::vector<Value*> offs;   // new (lane-level) index values; for a scattered tile one register
                              // vector of element offsets into its 1-D memref, in the tile's layout
  bool scattered = false;
  std::vector<int64_t> swizzle;  // an SLM buffer's [B, M, S] (gpu.slm_alloc's `swizzle`), else empty
};

class KernelLowering {
public:
  KernelLowering(Operation* kernel, const targets::Target& target, DiagnosticEngine& diags)
      : kernel_(kernel), S_(target.subgroupSize), target_(target), diags_(diags) {}

  void run();

private:
  [[noreturn]] void fail(const Operation& op, const std::string& msg) {
    diags_.error(op.loc(), msg);
    throw LowerError{};
  }

  CoopLayout layoutOf(const Type& t, const Operation& op) {
    std::string why;
    auto l = coopLayout(t.shape(), S_, &why);
    if (!l) fail(op, "lower-generic: " + why);
    return *l;
  }
  Type laneVectorType(const Type& t, const Operation& op) {
    return Type::vector({layoutOf(t, op).numRegs()}, t.elem());
  }
  // Prologue values (top of the kernel body, dominating everything).
  Value* cIndex(int64_t v) {
    auto it = constIndex_.find(v);
    if (it != constIndex_.end()) return it->second;
    Value* c = pro_.constantIndex(v);
    constIndex_[v] = c;
    return c;
  }
  Value* laneRow(const CoopLayout& l) { return laneDerived(l.I, true); }   // p / I
  Value* laneCol(const CoopLayout& l) { return laneDerived(l.I, false); }  // p % I
  Value* laneDerived(int64_t I, bool row);
  Value* add(Value* a, Value* b) { return b_.create("arith.addi", {a, b}, {Type::index()})->result(); }

  // The memref index of element (r, c) of a tile (r, c are lane-level index values).
  std::vector<Value*> elementIndex(const TileState& t, Value* r, Value* c);
  // Row and column (relative to the tile) of register (u, w) of this lane, plus the mask for the tail.
  void regPosition(const CoopLayout& l, int64_t u, int64_t w, Value** r, Value** c, Value** mask);
  // Whether this lane's column of column block w is a real one (nullptr: every lane's is).
  Value* colMask(const CoopLayout& l, int64_t w);
  // The index operands of lane.load/store/atomic for register (u, w) of this lane: one index per
  // memref dimension, then the mask if there is one (the tail, and the bounds of a swizzled buffer).
  std::vector<Value*> accessOperands(const TileState& t, const CoopLayout& l, int64_t u, int64_t w);
  // Applies an SLM buffer's swizzle to in-bounds indices `idx`; ANDs the bounds check into `*mask`.
  void swizzleIndex(const TileState& t, std::vector<Value*>& idx, Value** mask);
  Value* indexOp(const char* name, Value* a, int64_t c) {
    return b_.create(name, {a, cIndex(c)}, {Type::index()})->result();
  }

  void lowerBlock(ir::Block& from);
  void lowerOp(Operation& op);
  void lowerInitTile(Operation& op);
  bool isDenseView(const Operation& op, const std::vector<int64_t>& seg);
  void lowerUpdateOffset(Operation& op);
  void lowerScatteredInit(Operation& op);
  void lowerGatherScatter(Operation& op);
  void lowerLoadTile(Operation& op);
  void lowerStoreTile(Operation& op);
  void lowerAtomic(Operation& op);
  void lowerSlmAlloc(Operation& op);
  void lowerMma(Operation& op);
  void lowerReduction(Operation& op);
  void lowerBroadcast(Operation& op);
  void lowerTranspose(Operation& op);
  // Register-level data movement between two subgroup values: destination element (r, c) is source
  // element `from(r, c)` (nullopt: don't care). Returns the destination's registers.
  using ElementMap = std::function<std::pair<int64_t, int64_t>(int64_t, int64_t)>;
  std::vector<Value*> moveElements(const std::vector<Value*>& src, const CoopLayout& ls, const CoopLayout& ld,
                                   ElemKind ek, const ElementMap& from);
  // A per-lane index value whose value in lane p is table[p] (-1 = any value); cached per table.
  Value* laneTable(std::vector<int64_t> table);
  Value* combine(const std::string& kind, ElemKind ek, Value* a, Value* b);
  Value* identity(const std::string& kind, ElemKind ek);
  Value* reduceLanes(const std::string& kind, ElemKind ek, Value* v, int64_t firstMask);
  void lowerFor(Operation& op);
  void lowerIf(Operation& op);
  void lowerElementwise(Operation& op);
  std::vector<Value*> extractAll(Value* vec, int64_t n);

  Operation* kernel_;
  int64_t S_;
  const targets::Target& target_;
  DiagnosticEngine& diags_;
  ir::Builder b_;    // main insertion point
  ir::Builder pro_;  // prologue: before the anchor op at the top of the body
  Value* laneId_ = nullptr;
  std::map<int64_t, Value*> constIndex_;
  std::map<std::pair<int64_t, bool>, Value*> laneDerived_;
  std::map<std::pair<int64_t, int64_t>, Value*> colMasks_;  // (I, cols - w*I) -> p % I < it
  std::map<std::vector<int64_t>, Value*> laneTables_;
  std::map<const Value*, std::vector<int64_t>> slmSwizzle_;  // lowered gpu.slm_alloc -> [B, M, S]
  LoopRegisters worstLoopRegs_;           // the largest register estimate over the kernel's loops
  const Operation* worstLoop_ = nullptr;  // its loop
  std::map<const Operation*, int64_t> topEpilogue_;  // the epilogue estimate of each loop of the body
  Value* proZero_ = nullptr;  // index 0 usable inside the prologue
  LoweredValues<TileState> vals_{[this](const Operation& op, const std::string& msg) { fail(op, "lower-generic: " + msg); }};
};

Value* KernelLowering::laneDerived(int64_t I, bool row) {
  auto key = std::make_pair(I, row);
  auto it = laneDerived_.find(key);
  if (it != laneDerived_.end()) return it->second;
  Value* v;
  if (row)
    v = I == S_ ? cIndex(0) : pro_.create("arith.divui", {laneId_, cIndex(I)}, {Type::index()})->result();
  else
    v = I == S_ ? laneId_ : pro_.create("arith.remui", {laneId_, cIndex(I)}, {Type::index()})->result();
  laneDerived_[key] = v;
  return v;
}

std::vector<Value*> KernelLowering::elementIndex(const TileState& t, Value* r, Value* c) {
  std::vector<Value*> idx = t.offs;
  size_t n = idx.size();
  if (t.type.rank() == 2) {
    idx[n - 2] = add(idx[n - 2], r);
    idx[n - 1] = add(idx[n - 1], c);
  } else {
    idx[n - 1] = add(idx[n - 1], c);
  }
  return idx;
}

void KernelLowering::regPosition(const CoopLayout& l, int64_t u, int64_t w, Value** r, Value** c, Value** mask) {
  // row = p / I + u*g, col = p % I + w*I (both relative to the tile origin).
  Value* lr = laneRow(l);
  Value* lc = laneCol(l);
  *r = l.g == 1 ? cIndex(u) : (u == 0 ? lr : add(lr, cIndex(u * l.g)));
  *c = w == 0 ? lc : add(lc, cIndex(w * l.I));
  *mask = nullptr;
  // Only the last register row can fall into the masked tail (row >= rows).
  if (l.rowMasked() && u == l.ru - 1)
    *mask = b_.create("arith.cmpi", {*r, cIndex(l.rows)}, {Type::scalar(ElemKind::I1)},
                      {{"predicate", Attribute::enumValue("cmpi", "ult")}})
                ->result();
  // Only the last column block holds padded columns (col >= cols).
  if (Value* cm = colMask(l, w)) *mask = *mask ? b_.create("arith.andi", {*mask, cm}, {Type::scalar(ElemKind::I1)})->result() : cm;
}

Value* KernelLowering::colMask(const CoopLayout& l, int64_t w) {
  if (!l.colMasked() || w != l.kb - 1) return nullptr;
  // p % I + w*I < cols, i.e. p % I < cols - w*I: a prologue value per (I, bound).
  int64_t bound = l.cols - w * l.I;
  auto key = std::make_pair(l.I, bound);
  if (auto it = colMasks_.find(key); it != colMasks_.end()) return it->second;
  Value* m = pro_.create("arith.cmpi", {laneCol(l), cIndex(bound)}, {Type::scalar(ElemKind::I1)},
                         {{"predicate", Attribute::enumValue("cmpi", "ult")}})->result();
  return colMasks_[key] = m;
}

std::vector<Value*> KernelLowering::extractAll(Value* vec, int64_t n) {
  std::vector<Value*> r;
  Type et = Type::scalar(vec->type().elem());
  for (int64_t i = 0; i < n; ++i)
    r.push_back(b_.create("vector.extract", {vec}, {et}, {{"index", Attribute::integer(i)}})->result());
  return r;
}

// ----- ops ----------------------------------------------------------------------------------------

namespace {

// `v` is the size of dimension `d` of memref `mem`: `memref.dim %mem {index = d}` or, for a static
// dimension, a constant of that value.
bool isDimOf(Value* v, Value* mem, int64_t d) {
  Operation* def = v->definingOp();
  if (!def) return false;
  if (def->is("memref.dim")) return def->operand(0) == mem && def->intAttr("index", -1) == d;
  int64_t size = mem->type().shape()[static_cast<size_t>(d)];
  const Attribute* a = def->attr("value");
  return def->is("arith.constant") && size != ir::kDynamic && a && a->isa(AttrKind::Int) && a->getInt() == size;
}

// A load's padding in the element's own kind (an integer memref gets an integer padding).
Attribute paddingAttr(const Attribute& p, ElemKind ek) {
  if (ir::isFloatElem(ek)) return Attribute::floating(p.isa(AttrKind::Float) ? p.getFloat() : static_cast<double>(p.getInt()), ek);
  return Attribute::integer(p.isa(AttrKind::Int) ? p.getInt() : static_cast<int64_t>(p.getFloat()), ek);
}

bool isConstant(Value* v, int64_t c) {
  Operation* def = v->definingOp();
  const Attribute* a = def && def->is("arith.constant") ? def->attr("value") : nullptr;
  return a && a->isa(AttrKind::Int) && a->getInt() == c;
}

// `v` is the dense row-major stride of dimension `d` of `mem`: 1 for the last, else the product of the
// sizes after d, as a constant (static sizes) or as order-transpose writes it for a batch of
// column-major matrices (memref<?x?x?xf32, strides = [?, 1, ?]>: stride(d) = stride(d + 1) * dim(d + 1),
// with dims of either kind; docs/passes.md, order-transpose).
bool isRowMajorStride(Value* v, Value* mem, int64_t d, int depth = 0) {
  const std::vector<int64_t>& shape = mem->type().shape();
  const auto r = static_cast<int64_t>(shape.size());
  if (d == r - 1) return isConstant(v, 1);
  int64_t product = 1;
  for (int64_t i = d + 1; i < r && product != ir::kDynamic; ++i)
    product = shape[static_cast<size_t>(i)] == ir::kDynamic ? ir::kDynamic : product * shape[static_cast<size_t>(i)];
  if (product != ir::kDynamic && isConstant(v, product)) return true;
  if (d == r - 2 && isDimOf(v, mem, r - 1)) return true;
  Operation* def = v->definingOp();
  if (!def || !def->is("arith.muli") || depth > 8) return false;
  for (unsigned i = 0; i < 2; ++i)
    if (isDimOf(def->operand(1 - i), mem, d + 1) && isRowMajorStride(def->operand(i), mem, d + 1, depth + 1)) return true;
  return false;
}

}  // namespace

// The frontend spells out the shape and strides of a memref tile (`init_tile A[m, 0]` gets
// shape = [dim(A, 0), dim(A, 1)], strides = [dim(A, 1), 1]). That view is the memref itself, which
// is all lane.load/lane.store address; any other view is rejected.
bool KernelLowering::isDenseView(const Operation& op, const std::vector<int64_t>& seg) {
  Value* mem = op.operand(0);
  int64_t r = mem->type().rank();
  if (seg[1] != r || seg[2] != r) return false;
  unsigned shapeAt = static_cast<unsigned>(1 + seg[0]), strideAt = static_cast<unsigned>(1 + seg[0] + seg[1]);
  for (int64_t d = 0; d < r; ++d)
    if (!isDimOf(op.operand(shapeAt + static_cast<unsigned>(d)), mem, d)) return false;
  // Row-major strides: the last is 1, each other the product of the sizes of the dimensions after it.
  for (int64_t d = 0; d < r; ++d)
    if (!isRowMajorStride(op.operand(strideAt + static_cast<unsigned>(d)), mem, d)) return false;
  return true;
}

void KernelLowering::lowerInitTile(Operation& op) {
  const Type& tt = op.result()->type();
  const ir::TileInfo& info = tt.tileInfo();
  if (info.wgMap)
    fail(op, "lower-generic expects subgroup-level IR, but this tile has a wg_map (run the wg_map distribution first)");
  if (info.scattered) return lowerScatteredInit(op);
  if (!info.order.empty() && info.order != std::vector<int64_t>{1, 0})
    fail(op, "lower-generic: tiles with order = [0, 1] are not implemented yet (the order/transpose pass makes "
             "them row-major)");
  Value* src = op.operand(0);
  if (!src->type().isMemRef()) fail(op, "lower-generic: tiles over raw addresses are not implemented yet");
  if (info.space != src->type().memSpace())
    fail(op, "lower-generic: an SLM tile needs an SLM memref (gpu.slm_alloc), a global tile a global one");
  const Type& mt = src->type();
  if (!mt.strides().empty()) fail(op, "lower-generic: strided memrefs are not implemented yet");
  std::vector<int64_t> seg = op.attr("segments") ? op.attr("segments")->getIntArray() : std::vector<int64_t>{};
  int64_t nOffsets = seg.empty() ? static_cast<int64_t>(op.numOperands()) - 1 : seg[0];
  if (!seg.empty() && (seg[1] != 0 || seg[2] != 0) && !isDenseView(op, seg))
    fail(op, "lower-generic: init_tile with a shape or strides other than the memref's own (dense row-major) is "
             "not implemented yet");
  if (nOffsets != mt.rank())
    fail(op, fmt::format("internal error: lower-generic: init_tile needs one offset per memref dimension ({}), got {}", mt.rank(),
                         nOffsets));
  if (tt.rank() > mt.rank()) fail(op, "internal error: lower-generic: the tile has more dimensions than its memref");
  layoutOf(tt, op);  // rejects shapes without a layout here, at the tile's definition
  TileState s;
  s.mem = vals_.get1(src, op);
  s.type = tt;
  if (auto sw = slmSwizzle_.find(s.mem); sw != slmSwizzle_.end()) s.swizzle = sw->second;
  for (int64_t i = 0; i < nOffsets; ++i) s.offs.push_back(vals_.get1(op.operand(static_cast<unsigned>(1 + i)), op));
  vals_.setTile(op.result(), s);
}

// A scattered tile (gather/scatter): a 1-D memref and one offset per element, held in the tile's own
// layout, so element k's offset sits in the lane and register that hold element k of the data.
void KernelLowering::lowerScatteredInit(Operation& op) {
  const Type& tt = op.result()->type();
  Value* src = op.operand(0);
  if (tt.tileInfo().space != ir::MemSpace::Global) fail(op, "lower-generic: scattered SLM tiles are not implemented yet");
  if (!src->type().isMemRef() || src->type().rank() != 1 || !src->type().strides().empty())
    fail(op, "lower-generic: a scattered tile needs a dense 1-D memref");
  if (op.numOperands() != 2 || op.operand(1)->type().shape() != tt.shape())
    fail(op, "internal error: lower-generic: a scattered tile takes one index vector of its shape");
  layoutOf(tt, op);
  TileState s;
  s.mem = vals_.get1(src, op);
  s.type = tt;
  s.offs = {vals_.get1(op.operand(1), op)};
  s.scattered = true;
  vals_.setTile(op.result(), s);
}

// load_gather / store_scatter: per register, one lane.load / lane.store at the lane's own offset,
// masked by the lane's mask bit (and by the layout's tail); lane.load/store drop out-of-range offsets.
void KernelLowering::lowerGatherScatter(Operation& op) {
  bool gather = op.is("tile.load_gather");
  const TileState& t = vals_.tile(op.operand(gather ? 0 : 2), op);
  if (!t.scattered) fail(op, fmt::format("internal error: lower-generic: '{}' needs a scattered tile", op.name()));
  CoopLayout l = layoutOf(t.type, op);
  ElemKind ek = t.type.elem();
  Type i1 = Type::scalar(ElemKind::I1);
  std::vector<Value*> offs = extractAll(t.offs[0], l.numRegs());
  std::vector<Value*> mask = extractAll(vals_.get1(op.operand(1), op), l.numRegs());
  std::vector<Value*> vals = gather ? std::vector<Value*>{} : extractAll(vals_.get1(op.operand(0), op), l.numRegs());
  ir::AttrMap attrs;
  if (gather)
    if (const Attribute* p = op.attr("padding")) attrs["padding"] = paddingAttr(*p, ek);
  std::vector<Value*> regs(static_cast<size_t>(l.numRegs()));
  for (int64_t w = 0; w < l.kb; ++w)
    for (int64_t u = 0; u < l.ru; ++u) {
      size_t k = static_cast<size_t>(l.reg(u, w));
      Value *r, *c, *tail;
      regPosition(l, u, w, &r, &c, &tail);
      Value* m = tail ? b_.create("arith.andi", {mask[k], tail}, {i1})->result() : mask[k];
      if (gather)
        regs[k] = b_.create("lane.load", {t.mem, offs[k], m}, {Type::scalar(ek)}, attrs)->result();
      else
        b_.create("lane.store", {vals[k], t.mem, offs[k], m}, {});
    }
  if (gather) vals_.set(op.result(), {b_.create("vector.from_elements", regs, {Type::vector({l.numRegs()}, ek)})->result()});
}

void KernelLowering::lowerUpdateOffset(Operation& op) {
  TileState s = vals_.tile(op.operand(0), op);
  unsigned nd = op.numOperands() - 1;
  if (s.scattered) {
    if (nd != 1 || op.operand(1)->type().shape() != s.type.shape())
      fail(op, "internal error: lower-generic: a scattered tile's offsets move by one index vector of its shape");
    s.offs[0] = b_.create("arith.addi", {s.offs[0], vals_.get1(op.operand(1), op)}, {s.offs[0]->type()})->result();
    vals_.setTile(op.result(), s);
    return;
  }
  if (nd > s.offs.size()) fail(op, "internal error: lower-generic: too many offsets for the tile's memref");
  // The deltas apply to the last `nd` dimensions (the tile's own dims).
  size_t first = s.offs.size() - nd;
  for (unsigned i = 0; i < nd; ++i) s.offs[first + i] = add(s.offs[first + i], vals_.get1(op.operand(1 + i), op));
  vals_.setTile(op.result(), s);
}

void KernelLowering::lowerLoadTile(Operation& op) {
  const TileState& t = vals_.tile(op.operand(0), op);
  CoopLayout l = layoutOf(t.type, op);
  ElemKind ek = t.type.elem();
  ir::AttrMap attrs;
  if (const Attribute* p = op.attr("padding")) attrs["padding"] = paddingAttr(*p, ek);
  std::vector<Value*> regs(static_cast<size_t>(l.numRegs()));
  for (int64_t w = 0; w < l.kb; ++w)
    for (int64_t u = 0; u < l.ru; ++u) {
      std::vector<Value*> operands{t.mem};
      for (Value* i : accessOperands(t, l, u, w)) operands.push_back(i);
      regs[static_cast<size_t>(l.reg(u, w))] =
          b_.create("lane.load", operands, {Type::scalar(ek)}, attrs)->result();
    }
  Value* v = b_.create("vector.from_elements", regs, {Type::vector({l.numRegs()}, ek)})->result();
  vals_.set(op.result(), {v});
}

void KernelLowering::lowerStoreTile(Operation& op) {
  const TileState& t = vals_.tile(op.operand(1), op);
  CoopLayout l = layoutOf(t.type, op);
  if (op.operand(0)->type().shape() != t.type.shape())
    fail(op, "internal error: lower-generic: store_tile value and tile shapes differ");
  std::vector<Value*> regs = extractAll(vals_.get1(op.operand(0), op), l.numRegs());
  for (int64_t w = 0; w < l.kb; ++w)
    for (int64_t u = 0; u < l.ru; ++u) {
      std::vector<Value*> operands{regs[static_cast<size_t>(l.reg(u, w))], t.mem};
      for (Value* i : accessOperands(t, l, u, w)) operands.push_back(i);
      b_.create("lane.store", operands, {});
    }
}

// atomic_rmw: one lane.atomic per register, at the register's element, with the store's masking (the
// layout's tail does nothing); the old values come back in the value's layout.
void KernelLowering::lowerAtomic(Operation& op) {
  const TileState& t = vals_.tile(op.operand(1), op);
  if (t.scattered) fail(op, "lower-generic: atomic_rmw on scattered tiles is not implemented yet");
  if (t.type.tileInfo().space != ir::MemSpace::Global)
    fail(op, "lower-generic: atomic_rmw on SLM tiles is not implemented yet");
  CoopLayout l = layoutOf(t.type, op);
  ElemKind ek = t.type.elem();
  std::vector<Value*> vals = extractAll(vals_.get1(op.operand(0), op), l.numRegs());
  std::vector<Value*> old(static_cast<size_t>(l.numRegs()));
  for (int64_t w = 0; w < l.kb; ++w)
    for (int64_t u = 0; u < l.ru; ++u) {
      size_t k = static_cast<size_t>(l.reg(u, w));
      std::vector<Value*> operands{vals[k], t.mem};
      for (Value* i : accessOperands(t, l, u, w)) operands.push_back(i);
      old[k] = b_.create("lane.atomic", operands, {Type::scalar(ek)}, {{"kind", *op.attr("kind")}})->result();
    }
  vals_.set(op.result(), {b_.create("vector.from_elements", old, {Type::vector({l.numRegs()}, ek)})->result()});
}

// gpu.slm_alloc stays a (workgroup-local) memref; its swizzle is applied to every address of the
// buffer by swizzleIndex, so the lane-level alloc no longer carries it.
void KernelLowering::lowerSlmAlloc(Operation& op) {
  ir::AttrMap attrs = op.attrs();
  attrs.erase("swizzle");
  std::string error;
  std::vector<int64_t> sw = slmSwizzleOf(op, &error);  // SlmSwizzle.h, shared with lower-xe
  if (!error.empty()) fail(op, "lower-generic: " + error);
  Value* r = b_.create(op.name(), {}, {op.result()->type()}, attrs)->result();
  r->setNameHint(op.result()->nameHint());
  if (!sw.empty()) slmSwizzle_[r] = sw;
  vals_.set(op.result(), {r});
}

std::vector<Value*> KernelLowering::accessOperands(const TileState& t, const CoopLayout& l, int64_t u, int64_t w) {
  Value *r, *c, *mask;
  regPosition(l, u, w, &r, &c, &mask);
  std::vector<Value*> idx = elementIndex(t, r, c);
  if (!t.swizzle.empty()) swizzleIndex(t, idx, &mask);
  if (mask) idx.push_back(mask);
  return idx;
}

// The swizzle arithmetic is SlmSwizzle.h's (shared with lower-xe); the bounds check moves into the mask.
void KernelLowering::swizzleIndex(const TileState& t, std::vector<Value*>& idx, Value** mask) {
  swizzleSlmIndex(b_, t.swizzle, t.mem->type().shape(), idx, mask, [this](int64_t v) { return cIndex(v); });
}

void KernelLowering::lowerMma(Operation& op) {
  const Type& at = op.operand(0)->type();
  const Type& bt = op.operand(1)->type();
  const Type& rt = op.result()->type();
  if (at.rank() != 2 || bt.rank() != 2 || rt.rank() != 2) fail(op, "internal error: lower-generic: tile_mma needs rank-2 operands");
  int64_t M = at.shape()[0], K = at.shape()[1], N = bt.shape()[1];
  if (bt.shape()[0] != K || rt.shape()[0] != M || rt.shape()[1] != N)
    fail(op, "internal error: lower-generic: tile_mma operand shapes do not agree");
  ElemKind acc = rt.elem();
  bool isInt = !ir::isFloatElem(at.elem());
  for (const Type* t : {&at, &bt})
    if (ir::isFloatElem(t->elem()) == isInt || t->elem() == ElemKind::TF32 || t->elem() == ElemKind::I1 ||
        t->elem() == ElemKind::Index)
      fail(op, fmt::format("lower-generic: tile_mma on {} x {} inputs is not implemented yet", ir::elemName(at.elem()),
                           ir::elemName(bt.elem())));
  if (ir::isFloatElem(acc) == isInt || (isInt && acc != ElemKind::I32))
    fail(op, fmt::format("lower-generic: tile_mma accumulating {} inputs in {} is not implemented yet",
                         ir::elemName(at.elem()), ir::elemName(acc)));
  CoopLayout la = layoutOf(at, op), lb = layoutOf(bt, op), lc = layoutOf(rt, op);
  // Floats accumulate in f32 (like the interpreter: f16/bf16 products are exact in f32, a narrower
  // accumulator is rounded once at the end); integers in i32, wrapping (i8/i16 inputs sign-extended).
  ElemKind work = isInt ? ElemKind::I32 : ElemKind::F32;
  Type wt = Type::scalar(work);
  auto widen = [&](std::vector<Value*> regs, ElemKind from) {
    if (from == work) return regs;
    for (Value*& v : regs) v = b_.create("arith.convert", {v}, {wt})->result();
    return regs;
  };
  std::vector<Value*> a = widen(extractAll(vals_.get1(op.operand(0), op), la.numRegs()), at.elem());
  std::vector<Value*> bregs = widen(extractAll(vals_.get1(op.operand(1), op), lb.numRegs()), bt.elem());
  std::vector<Value*> c;
  if (op.numOperands() == 3) {
    c = widen(extractAll(vals_.get1(op.operand(2), op), lc.numRegs()), op.operand(2)->type().elem());
  } else {
    Value* zero = isInt ? pro_.constantInt(0, work) : pro_.constantFloat(0.0, work);
    c.assign(static_cast<size_t>(lc.numRegs()), zero);
  }
  auto madd = [&](Value* x, Value* y, Value* acc) {
    if (!isInt) return b_.create("lane.fma", {x, y, acc}, {wt})->result();
    Value* prod = b_.create("arith.muli", {x, y}, {wt})->result();
    return b_.create("arith.addi", {acc, prod}, {wt})->result();
  };
  if (lc.g > 1 || lb.g > 1) {
    // N < S: C's lanes hold several rows (g > 1), so neither operand element is uniform. Per k, A's
    // column k and B's row k are moved into C's layout (element (m, n) of C's register gets A(m, k)
    // and B(k, n)), then multiplied and added register by register.
    for (int64_t k = 0; k < K; ++k) {
      std::vector<Value*> ak = moveElements(a, la, lc, work, [k](int64_t r, int64_t) { return std::make_pair(r, k); });
      std::vector<Value*> bk = moveElements(bregs, lb, lc, work, [k](int64_t, int64_t c) { return std::make_pair(k, c); });
      for (size_t i = 0; i < c.size(); ++i) c[i] = madd(ak[i], bk[i], c[i]);
    }
    if (acc != work)
      for (Value*& v : c) v = b_.create("arith.convert", {v}, {Type::scalar(acc)})->result();
    vals_.set(op.result(), {b_.create("vector.from_elements", c, {Type::vector({lc.numRegs()}, acc)})->result()});
    return;
  }
  // N >= S (padded to a multiple of S; the padded columns of B are the load's padding and those of
  // C are never stored): B and C have one lane per column (g == 1), so B's column n and C's column n live in
  // the same lane and register rows are matrix rows: B(k, w) is register k + w*K, C(m, w) is m + w*M.
  // C(m, n) += A(m, k) * B(k, n) for k ascending: A(m, k) is broadcast from the lane that owns it
  // (a uniform lane and register), B and C are this lane's own registers.
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) {
      Value* src = a[static_cast<size_t>(la.ownerReg(m, k))];
      Value* av = b_.create("lane.broadcast", {src, cIndex(la.ownerLane(m, k))}, {wt})->result();
      for (int64_t w = 0; w < lc.kb; ++w) {
        size_t ci = static_cast<size_t>(lc.reg(m, w));
        c[ci] = madd(av, bregs[static_cast<size_t>(lb.reg(k, w))], c[ci]);
      }
    }
  if (acc != work)
    for (Value*& v : c) v = b_.create("arith.convert", {v}, {Type::scalar(acc)})->result();
  vals_.set(op.result(), {b_.create("vector.from_elements", c, {Type::vector({lc.numRegs()}, acc)})->result()});
}

// ----- reductions and broadcasts within a subgroup tile ------------------------------------------------

Value* KernelLowering::combine(const std::string& kind, ElemKind ek, Value* a, Value* b) {
  bool f = ir::isFloatElem(ek);
  std::string name;
  if (kind == "add") name = f ? "arith.addf" : "arith.addi";
  else if (kind == "mul") name = f ? "arith.mulf" : "arith.muli";
  else if (kind == "max") name = f ? "arith.maxf" : "arith.maxsi";
  else if (kind == "min") name = f ? "arith.minf" : "arith.minsi";
  else if (kind == "and") name = "arith.andi";
  else if (kind == "or") name = "arith.ori";
  else name = "arith.xori";
  return b_.create(name, {a, b}, {Type::scalar(ek)})->result();
}

// The neutral element, for register slots of the masked tail. max/min use the most negative/positive
// finite value (the IR text has no infinity).
Value* KernelLowering::identity(const std::string& kind, ElemKind ek) {
  if (ir::isFloatElem(ek)) {
    double big = ek == ElemKind::F16 ? 65504.0 : ek == ElemKind::BF16 ? 3.3895313892515355e38
                 : ek == ElemKind::F64 ? 1.7976931348623157e308 : 3.4028234663852886e38;
    double v = kind == "add" ? 0.0 : kind == "mul" ? 1.0 : kind == "max" ? -big : big;
    return pro_.constantFloat(v, ek);
  }
  unsigned bits = ek == ElemKind::Index ? 64 : ir::elemBits(ek);
  int64_t minV = bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
  int64_t maxV = bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
  int64_t v = kind == "add" || kind == "or" || kind == "xor" ? 0 : kind == "mul" ? 1 : kind == "and" ? -1
              : kind == "max" ? minV : maxV;
  return pro_.constantInt(v, ek);
}

// Combines `v` over the lanes whose ids differ only in the bits >= firstMask (a power of two): after
// the xor-shuffle steps firstMask, 2*firstMask, ..., S/2 every such lane holds the same total. Over
// all lanes (firstMask 1) one lane.reduce where the backend has it (sub_group_reduce_*: IGC's tree
// of uniform ops, not log2(S) shuffles, each a register-indirect move, and combines).
Value* KernelLowering::reduceLanes(const std::string& kind, ElemKind ek, Value* v, int64_t firstMask) {
  if (firstMask == 1 && ir::laneReduceLowers(kind, ek))
    return b_.create("lane.reduce", {v}, {Type::scalar(ek)}, {{"kind", Attribute::enumValue("reduce", kind)}})->result();
  for (int64_t m = firstMask; m < S_; m *= 2) {
    Value* src = b_.create("arith.xori", {laneId_, cIndex(m)}, {Type::index()})->result();
    Value* other = b_.create("lane.shuffle", {v, src}, {Type::scalar(ek)})->result();
    v = combine(kind, ek, v, other);
  }
  return v;
}

void KernelLowering::lowerReduction(Operation& op) {
  const Type& st = op.operand(0)->type();
  const Type& rt = op.result()->type();
  std::vector<int64_t> dims = op.attr("dims") ? op.attr("dims")->getIntArray() : std::vector<int64_t>{};
  if (st.rank() != 2 || dims.size() != 1) fail(op, "lower-generic: only reductions of one dimension of a rank-2 vector are implemented");
  std::string kind = op.attr("kind")->getString();
  // bf16, and f16 sums and products, are reduced in f32 and rounded once at the end, as the
  // interpreter does (ir::reductionElem); every other type in its own.
  ElemKind ek = ir::reductionElem(kind, st.elem());
  CoopLayout ls = layoutOf(st, op), lr = layoutOf(rt, op);
  std::vector<Value*> src = extractAll(vals_.get1(op.operand(0), op), ls.numRegs());
  if (ek != st.elem())
    for (Value*& v : src) v = b_.create("arith.convert", {v}, {Type::scalar(ek)})->result();
  auto result = [&](std::vector<Value*> out) {
    if (ek != st.elem())
      for (Value*& v : out) v = b_.create("arith.convert", {v}, {Type::scalar(st.elem())})->result();
    vals_.set(op.result(), {b_.create("vector.from_elements", out, {Type::vector({lr.numRegs()}, st.elem())})->result()});
  };
  int64_t d = dims[0], n = st.shape()[static_cast<size_t>(d)] / rt.shape()[static_cast<size_t>(d)];
  if (rt.shape()[static_cast<size_t>(d)] != 1) {
    // reduction_size n < the dimension: result element x along d combines source elements x*n ..
    // x*n + n - 1. Each of the n terms is moved into the result's layout, then combined in order.
    if (op.intAttr("reduction_size", n) != n) fail(op, "internal error: lower-generic: reduction_size does not match the shapes");
    std::vector<Value*> out;
    for (int64_t t = 0; t < n; ++t) {
      std::vector<Value*> term = moveElements(src, ls, lr, ek, [&](int64_t r, int64_t c) {
        return d == 0 ? std::make_pair(r * n + t, c) : std::make_pair(r, c * n + t);
      });
      if (out.empty()) out = term;
      else
        for (size_t i = 0; i < out.size(); ++i) out[i] = combine(kind, ek, out[i], term[i]);
    }
    return result(out);
  }
  Value* lrow = laneRow(ls);
  std::vector<Value*> out(static_cast<size_t>(lr.numRegs()));
  if (dims[0] == 1) {
    // Each row: combine this lane's columns of it (identity where the lane does not hold the row),
    // then all 16 lanes; every lane ends with the row total. Result R x 1: lane p holds rows p + 16u.
    std::vector<Value*> totals;
    for (int64_t r = 0; r < ls.rows; ++r) {
      // A padded column (the last column block's) holds no element: the identity instead.
      auto term = [&](int64_t w) {
        Value* v = src[static_cast<size_t>(ls.reg(r / ls.g, w))];
        if (Value* cm = colMask(ls, w)) v = b_.create("arith.select", {cm, v, identity(kind, ek)}, {Type::scalar(ek)})->result();
        return v;
      };
      Value* part = term(0);
      for (int64_t w = 1; w < ls.kb; ++w) part = combine(kind, ek, part, term(w));
      if (ls.g > 1) {
        Value* mine = b_.create("arith.cmpi", {lrow, cIndex(r % ls.g)}, {Type::scalar(ElemKind::I1)},
                                {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
        part = b_.create("arith.select", {mine, part, identity(kind, ek)}, {Type::scalar(ek)})->result();
      }
      totals.push_back(reduceLanes(kind, ek, part, 1));
    }
    // Register u of lane p is row 16u + p: pick it among the (uniform) totals by lane id.
    for (int64_t u = 0; u < lr.numRegs(); ++u) {
      Value* v = totals[static_cast<size_t>(std::min(u * S_, lr.rows - 1))];
      for (int64_t q = 1; q < S_ && u * S_ + q < lr.rows; ++q) {
        Value* is = b_.create("arith.cmpi", {laneId_, cIndex(q)}, {Type::scalar(ElemKind::I1)},
                              {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
        v = b_.create("arith.select", {is, totals[static_cast<size_t>(u * S_ + q)], v}, {Type::scalar(ek)})->result();
      }
      out[static_cast<size_t>(u)] = v;
    }
  } else {
    // Rows: this lane's rows of each of its columns, then the lanes sharing the column (ids equal
    // modulo I). Result 1 x C has the same lanes per column, one register per column block.
    for (int64_t w = 0; w < ls.kb; ++w) {
      Value* part = nullptr;
      for (int64_t u = 0; u < ls.ru; ++u) {
        Value* v = src[static_cast<size_t>(ls.reg(u, w))];
        if (ls.rowMasked() && u == ls.ru - 1) {
          Value *r, *c, *mask;
          regPosition(ls, u, w, &r, &c, &mask);
          v = b_.create("arith.select", {mask, v, identity(kind, ek)}, {Type::scalar(ek)})->result();
        }
        part = part ? combine(kind, ek, part, v) : v;
      }
      out[static_cast<size_t>(lr.reg(0, w))] = ls.g > 1 ? reduceLanes(kind, ek, part, ls.I) : part;
    }
  }
  result(out);
}

void KernelLowering::lowerBroadcast(Operation& op) {
  const Type& st = op.operand(0)->type();
  const Type& rt = op.result()->type();
  std::vector<int64_t> dims = op.attr("dims") ? op.attr("dims")->getIntArray() : std::vector<int64_t>{};
  if (st.rank() != 2 || dims.size() != 1) fail(op, "lower-generic: only broadcasts along one dimension of a rank-2 vector are implemented");
  ElemKind ek = st.elem();
  Type et = Type::scalar(ek);
  CoopLayout ls = layoutOf(st, op), ld = layoutOf(rt, op);
  std::vector<Value*> src = extractAll(vals_.get1(op.operand(0), op), ls.numRegs());
  int64_t d = dims[0], srcDim = st.shape()[static_cast<size_t>(d)];
  if (srcDim != 1) {
    // wg-distribute's broadcast_size n: destination row (column) x is source row (column) x / n.
    int64_t n = rt.shape()[static_cast<size_t>(d)] / srcDim;
    if (op.hasAttr("broadcast_size") && op.intAttr("broadcast_size", 0) != n)
      fail(op, "internal error: lower-generic: broadcast_size does not match the operand and result shapes");
    std::vector<Value*> out = moveElements(src, ls, ld, ek, [&](int64_t r, int64_t c) {
      return d == 0 ? std::make_pair(r / n, c) : std::make_pair(r, c / n);
    });
    vals_.set(op.result(), {b_.create("vector.from_elements", out, {Type::vector({ld.numRegs()}, ek)})->result()});
    return;
  }
  // A source dimension of 1 (broadcast_size, if given, is the result's size): the one row or column.
  std::vector<Value*> out(static_cast<size_t>(ld.numRegs()));
  for (int64_t w = 0; w < ld.kb; ++w)
    for (int64_t u = 0; u < ld.ru; ++u) {
      Value* v;
      if (dims[0] == 1) {
        // R x 1 -> R x C: element (r, c) = src(r, 0), held by lane r % 16, register r / 16. This
        // lane's row is u*g + p/I; all g rows of step u fall in one 16-row block (g divides 16).
        int64_t base = u * ld.g;
        Value* s = src[static_cast<size_t>(base / S_)];
        if (ld.g == 1) {
          v = b_.create("lane.broadcast", {s, cIndex(base % S_)}, {et})->result();
        } else {
          Value* lane = base % S_ == 0 ? laneRow(ld) : add(laneRow(ld), cIndex(base % S_));
          v = b_.create("lane.shuffle", {s, lane}, {et})->result();
        }
      } else {
        // 1 x C -> R x C: element (r, c) = src(0, c). With one lane per column (C >= 16) it is this
        // lane's register w; otherwise it sits in lane c (row 0 of the source's first row group).
        v = ld.g == 1 ? src[static_cast<size_t>(w)]
                      : b_.create("lane.shuffle", {src[0], laneCol(ld)}, {et})->result();
      }
      out[static_cast<size_t>(ld.reg(u, w))] = v;
    }
  vals_.set(op.result(), {b_.create("vector.from_elements", out, {Type::vector({ld.numRegs()}, ek)})->result()});
}

// ----- data movement between layouts (transpose, broadcast_size) -------------------------------

Value* KernelLowering::laneTable(std::vector<int64_t> t) {
  auto known = [&](size_t p) { return t[p] >= 0; };
  // Prologue constants: cIndex(0) is the prologue's anchor, so a prologue op cannot use it.
  auto pIndex = [&](int64_t c) {
    if (c != 0) return cIndex(c);
    if (!proZero_) proZero_ = pro_.constantIndex(0);
    return proZero_;
  };
  auto it = laneTables_.find(t);
  if (it != laneTables_.end()) return it->second;
  Value* v = nullptr;
  // Affine in (p % a, p / a) for a power-of-two a: identity, constants, transposed lane grids. The
  // coefficients come from pairs of known entries that differ in one coordinate only.
  for (int64_t a = 1; a <= S_ && !v; a *= 2) {
    int64_t x = 0, y = 0, z = 0, p0 = -1;
    for (int64_t p = 0; p < S_; ++p) {
      if (!known(static_cast<size_t>(p))) continue;
      if (p0 < 0) p0 = p;
      for (int64_t q = p + 1; q < S_; ++q) {
        if (!known(static_cast<size_t>(q))) continue;
        int64_t dt = t[static_cast<size_t>(q)] - t[static_cast<size_t>(p)];
        if (q / a == p / a && (q % a - p % a) != 0 && dt % (q % a - p % a) == 0) x = dt / (q % a - p % a);
        if (q % a == p % a && (q / a - p / a) != 0 && dt % (q / a - p / a) == 0) y = dt / (q / a - p / a);
      }
    }
    if (p0 >= 0) z = t[static_cast<size_t>(p0)] - (p0 % a) * x - (p0 / a) * y;
    bool ok = true;
    for (int64_t p = 0; p < S_ && ok; ++p)
      ok = !known(static_cast<size_t>(p)) || t[static_cast<size_t>(p)] == (p % a) * x + (p / a) * y + z;
    if (!ok) continue;
    auto formula = std::vector<int64_t>{-2, a, x, y, z};  // a cache key no table can equal
    if (auto f = laneTables_.find(formula); f != laneTables_.end()) {
      v = f->second;
      break;
    }
    Value* acc = nullptr;
    auto term = [&](Value* base, int64_t k) {
      if (k == 0) return;
      Value* m = k == 1 ? base : pro_.create("arith.muli", {base, pIndex(k)}, {Type::index()})->result();
      acc = acc ? pro_.create("arith.addi", {acc, m}, {Type::index()})->result() : m;
    };
    if (a > 1) term(laneDerived(a, false), x);
    if (a < S_) term(a == 1 ? laneId_ : laneDerived(a, true), y);
    if (z != 0 || !acc) acc = acc ? pro_.create("arith.addi", {acc, pIndex(z)}, {Type::index()})->result() : pIndex(z);
    v = acc;
    laneTables_[formula] = v;
  }
  if (!v) {
    // Any other table: a select chain on the lane id.
    Type i1 = Type::scalar(ElemKind::I1);
    v = pIndex(known(0) ? t[0] : 0);
    for (int64_t p = 1; p < S_; ++p) {
      if (!known(static_cast<size_t>(p))) continue;
      Value* is = pro_.create("arith.cmpi", {laneId_, pIndex(p)}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
      v = pro_.create("arith.select", {is, pIndex(t[static_cast<size_t>(p)]), v}, {Type::index()})->result();
    }
  }
  laneTables_[t] = v;
  return v;
}

std::vector<Value*> KernelLowering::moveElements(const std::vector<Value*>& src, const CoopLayout& ls,
                                                 const CoopLayout& ld, ElemKind ek, const ElementMap& from) {
  Type et = Type::scalar(ek);
  std::vector<Value*> out(static_cast<size_t>(ld.numRegs()));
  for (int64_t w = 0; w < ld.kb; ++w)
    for (int64_t u = 0; u < ld.ru; ++u) {
      // Per lane: the source register and lane of this destination register's element.
      std::map<int64_t, std::vector<int64_t>> groups;  // source register -> source lane per lane (-1: not in group)
      std::vector<int64_t> groupOf(static_cast<size_t>(S_), -1);
      for (int64_t p = 0; p < S_; ++p) {
        int64_t r = p / ld.I + u * ld.g, c = p % ld.I + w * ld.I;
        if (r >= ld.rows || c >= ld.cols) continue;  // the masked tail: any value
        auto [sr, sc] = from(r, c);
        int64_t q = ls.ownerReg(sr, sc);
        auto& g = groups[q];
        if (g.empty()) g.assign(static_cast<size_t>(S_), -1);
        g[static_cast<size_t>(p)] = ls.ownerLane(sr, sc);
        groupOf[static_cast<size_t>(p)] = q;
      }
      if (groups.empty()) {
        out[static_cast<size_t>(ld.reg(u, w))] = src[0];
        continue;
      }
      Value* acc = nullptr;
      Value* gid = groups.size() > 1 ? laneTable(groupOf) : nullptr;
      for (auto& [q, lanes] : groups) {
        bool identity = true, uniform = true;
        int64_t first = -1;
        for (int64_t p = 0; p < S_; ++p) {
          int64_t l = lanes[static_cast<size_t>(p)];
          if (l < 0) continue;
          identity = identity && l == p;
          if (first < 0) first = l;
          uniform = uniform && l == first;
        }
        Value* s = src[static_cast<size_t>(q)];
        Value* v = identity ? s
                   : uniform ? b_.create("lane.broadcast", {s, cIndex(first)}, {et})->result()
                             : b_.create("lane.shuffle", {s, laneTable(lanes)}, {et})->result();
        if (!acc) {
          acc = v;
          continue;
        }
        Value* mine = b_.create("arith.cmpi", {gid, cIndex(q)}, {Type::scalar(ElemKind::I1)},
                                {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
        acc = b_.create("arith.select", {mine, v, acc}, {et})->result();
      }
      out[static_cast<size_t>(ld.reg(u, w))] = acc;
    }
  return out;
}

void KernelLowering::lowerTranspose(Operation& op) {
  const Type& st = op.operand(0)->type();
  const Type& rt = op.result()->type();
  std::vector<int64_t> perm = op.attr("permutation") ? op.attr("permutation")->getIntArray() : std::vector<int64_t>{1, 0};
  if (st.rank() != 2 || perm != std::vector<int64_t>{1, 0})
    fail(op, "lower-generic: only transposes of rank-2 vectors are implemented");
  CoopLayout ls = layoutOf(st, op), ld = layoutOf(rt, op);
  std::vector<Value*> src = extractAll(vals_.get1(op.operand(0), op), ls.numRegs());
  std::vector<Value*> out = moveElements(src, ls, ld, st.elem(), [](int64_t r, int64_t c) { return std::make_pair(c, r); });
  vals_.set(op.result(), {b_.create("vector.from_elements", out, {Type::vector({ld.numRegs()}, st.elem())})->result()});
}

void KernelLowering::lowerElementwise(Operation& op) {
  std::vector<Value*> operands;
  for (Value* v : op.operands()) operands.push_back(vals_.get1(v, op));
  std::vector<Type> results;
  for (Value* r : op.results()) {
    if (r->type().isTile()) fail(op, fmt::format("lower-generic: '{}' on tiles is not supported", op.name()));
    results.push_back(r->type().isVector() ? laneVectorType(r->type(), op) : r->type());
  }
  // Operands of one element-wise op have one shape, hence one layout: registers line up.
  for (size_t i = 0; i < op.numOperands(); ++i)
    if (op.operand(static_cast<unsigned>(i))->type().isVector() && op.numResults() == 1 &&
        op.result()->type().isVector() &&
        op.operand(static_cast<unsigned>(i))->type().shape() != op.result()->type().shape())
      fail(op, fmt::format("lower-generic: '{}' mixes vector shapes", op.name()));
  ir::AttrMap attrs = op.attrs();
  if (op.is("arith.constant") && op.result()->type().isVector()) {
    const Attribute& v = *op.attr("value");
    if (v.kind() != AttrKind::Dense || !v.isSplat())
      fail(op, "lower-generic: non-splat vector constants are not implemented yet");
    attrs["value"] = v.denseIsFloat() ? Attribute::denseFloat(results[0], v.denseFloats())
                                      : Attribute::denseInt(results[0], v.denseInts());
  }
  // bf16 arithmetic runs in f32, one rounding per op (Bf16Arith.h).
  std::vector<Value*> rs = createElementwise(b_, op, operands, results, attrs);
  for (unsigned i = 0; i < op.numResults(); ++i) vals_.set(op.result(i), {rs[i]});
}

void KernelLowering::lowerFor(Operation& op) {
  // What the loop keeps live (RegisterBudget.h; every load is per lane here).
  LoopRegisters est = estimateLoopRegisters(op, target_, true);
  if (auto it = topEpilogue_.find(&op); it != topEpilogue_.end()) est.epilogue = it->second;
  // The worst loop by its own estimate (the warning names it); the file choice also covers the
  // largest epilogue of any loop.
  int64_t epilogue = std::max(worstLoopRegs_.epilogue, est.epilogue);
  if (!worstLoop_ || est.total() > worstLoopRegs_.total()) {
    worstLoopRegs_ = est;
    worstLoop_ = &op;
  }
  worstLoopRegs_.epilogue = epilogue;
  vals_.rebuildFor(op, b_, [this](ir::Block& body) { lowerBlock(body); });
}

void KernelLowering::lowerIf(Operation& op) {
  vals_.rebuildIf(
      op, b_, [&](Value* r) { return std::vector<Type>{r->type().isVector() ? laneVectorType(r->type(), op) : r->type()}; },
      [this](ir::Block& body) { lowerBlock(body); });
}

void KernelLowering::lowerOp(Operation& op) {
  b_.setLoc(op.loc());
  pro_.setLoc(op.loc());
  const std::string& n = op.name();
  if (n == "tile.init_tile") return lowerInitTile(op);
  if (n == "tile.update_tile_offset") return lowerUpdateOffset(op);
  if (n == "tile.load_tile") return lowerLoadTile(op);
  if (n == "tile.store_tile") return lowerStoreTile(op);
  if (n == "tile.tile_mma") return lowerMma(op);
  if (n == "tile.load_gather" || n == "tile.store_scatter") return lowerGatherScatter(op);
  if (n == "tile.atomic_rmw") return lowerAtomic(op);
  if (n == "gpu.slm_alloc") return lowerSlmAlloc(op);
  if (n == "tile.prefetch_tile") return;  // a cache hint; the generic target has no prefetch to emit
  if (n == "tile.reduction") return lowerReduction(op);
  if (n == "tile.broadcast") return lowerBroadcast(op);
  if (n == "tile.transpose") return lowerTranspose(op);
  if (n == "tile.convert_layout" && op.operand(0)->type().shape() == op.result()->type().shape()) {
    // Subgroup level: the cooperative-matrix layout is a function of the shape, so nothing moves.
    vals_.set(op.result(), {vals_.get1(op.operand(0), op)});
    return;
  }
  if (n == "scf.for") return lowerFor(op);
  if (n == "scf.if") return lowerIf(op);
  if (n == "scf.yield" || n == "xtc.return") {
    b_.create(n, vals_.flatten(op.operands(), op), {}, op.attrs());
    return;
  }
  if (n == "memref.transpose") {
    // A strided parameter's row-major view (order-transpose): in the prologue, where the surfaces
    // and base addresses of the memrefs it gives are computed.
    vals_.set(op.result(), {pro_.create(n, {vals_.get1(op.operand(0), op)}, {op.result()->type()}, op.attrs())->result()});
    return;
  }
  if (op.dialect() == "tile")
    fail(op, fmt::format("lower-generic: '{}' is not implemented yet", n));
  if (op.numRegions() != 0) fail(op, fmt::format("lower-generic: '{}' with regions is not supported", n));
  // arith, math, vector.splat, gpu ids, memref.dim, barrier: per lane, registers in lock step.
  lowerElementwise(op);
}

void KernelLowering::lowerBlock(ir::Block& from) {
  for (auto& op : from.opList()) lowerOp(*op);
}

void KernelLowering::run() {
  ir::Block& body = ir::kernelBody(kernel_);
  // Detach the old ops; the block (and its arguments, the kernel parameters) stays.
  std::vector<std::unique_ptr<Operation>> old;
  // The epilogues of the body's loops are measured while the ops after them are still in the block.
  for (Operation* op : body.opsSnapshot())
    if (op->is("scf.for")) topEpilogue_[op] = estimateEpilogueRegisters(*op, target_, true);
  for (Operation* op : body.opsSnapshot()) old.push_back(op->remove());
  for (Value* a : body.arguments()) vals_.set(a, {a});

  b_.setInsertionPointToEnd(&body);
  b_.setLoc(kernel_->loc());
  laneId_ = b_.create("gpu.lane_id", {}, {Type::index()})->result();
  laneId_->setNameHint("lane");
  // The anchor: prologue values (constants, lane-derived indices) are inserted right before it.
  Value* zero = b_.constantIndex(0);
  constIndex_[0] = zero;
  pro_.setInsertionPoint(zero->definingOp());
  pro_.setLoc(kernel_->loc());

  struct Cleanup {
    std::vector<std::unique_ptr<Operation>>& ops;
    ~Cleanup() {
      for (auto& o : ops) o->dropAllReferences();
      ops.clear();
    }
  } cleanup{old};
  BudgetPeak straightLine = straightLineRegisters(old, target_, true);
  for (auto& op : old) lowerOp(*op);

  int64_t nsg = kernel_->intAttr("num_subgroups", 1);
  if (nsg < 1) fail(*kernel_, "lower-generic: `num_subgroups` must be at least 1");
  kernel_->setAttr("sg_size", Attribute::integer(S_));
  kernel_->setAttr("wg_size", Attribute::intArray({nsg * S_, 1, 1}));
  kernel_->setAttr("target", Attribute::string(target_.name));
  // pvc/dg2 portable kernels: lower-xe's rule (RegisterBudget.h) — the large register file when the
  // worst loop does not fit the default one (rfc_2_2's 32x64 f32 accumulator is all 128 registers of
  // pvc's default file), a warning when it does not fit the large one either.
  applyRegisterBudget(kernel_, worstLoop_, worstLoopRegs_, straightLine, target_, diags_, "lower-generic");
}

}  // namespace

bool lowerGeneric(ir::Operation* module, const targets::Target& target, DiagnosticEngine& diags) {
  ir::registerLaneOps();
  bool ok = true;
  for (Operation* k : ir::moduleKernels(module)) {
    // A kernel that carries a target is lane level already (e.g. hand-written lane-level IR).
    if (const Attribute* t = k->attr("target")) {
      if (t->isa(AttrKind::String) && t->getString() == target.name) continue;
      diags.error(k->loc(), fmt::format("lower-generic: kernel '{}' is already lowered for target {}",
                                        ir::kernelName(k), t->str()));
      ok = false;
      continue;
    }
    ok = lowerGenericKernel(k, target, diags) && ok;
  }
  return ok;
}

bool lowerGenericKernel(ir::Operation* kernel, const targets::Target& target, DiagnosticEngine& diags) {
  ir::registerLaneOps();
  try {
    KernelLowering(kernel, target, diags).run();
  } catch (const LowerError&) {
    return false;
  }
  return true;
}

namespace {

class LowerGenericPass : public Pass {
public:
  std::string name() const override { return "lower-generic"; }
  std::string description() const override {
    return "subgroup-level tile ops -> lane-level IR for the generic target (cooperative-matrix layout, FMA)";
  }
  bool run(ir::Operation* module, PassContext& ctx) override {
    const targets::Target* t = ctx.target ? ctx.target : targets::findTarget("generic");
    return lowerGeneric(module, *t, ctx.diags);
  }
};

}  // namespace

void registerLowerGenericPass() {
  registerPass("lower-generic", [] { return std::make_unique<LowerGenericPass>(); });
}

}  // namespace xtc::passes
