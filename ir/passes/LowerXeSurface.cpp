// lower-xe, pvc: the surface rules of the 2D block messages (reference §2.5: width 64 bytes to 2^24,
// height 1 to 2^24 rows, pitch >= width and a multiple of 16 bytes, base 64-byte aligned). A
// message whose surface breaks one is undefined on the hardware, and for a dynamic memref only the
// run time knows its sizes (a bf16 matrix of 16 columns has 32-byte rows; one of 129 columns a
// 258-byte pitch). So, for a tile whose surface is its whole dense memref (the surface lower-xe
// builds: width = pitch = columns x element bytes, height = rows):
//  - known at compile time (static dims): the 2D messages, or the per-lane accesses when a rule fails
//    (also without --surface-fallback, which only adds the run-time checks below);
//  - else a loop holding such messages is versioned (lowerForSurfaces): an interior loop with the 2D
//    messages as before, unguarded, over every iteration when the rules hold for every surface the
//    loop's messages use and over none otherwise, then an edge loop with the per-lane accesses over
//    the rest (all or nothing: the rules depend on the memrefs alone, not on the iteration). The hot
//    loop is the loop of before; the condition is the same in every subgroup (kernel arguments
//    only), so a loop with a barrier is versioned too;
//  - a message outside such a loop gets a subgroup-uniform scf.if: the 2D messages, else the per-lane
//    loads (zero or `padding` outside the memref) or stores (clipped at its bounds); a prefetch only
//    in the 2D arm (a hint: none where the rules fail, in the edge loop neither).
// The per-lane loads (surfaceLaneLoadValue) read each register at its row and column clamped into
// the memref, without a branch, and mask the padding in (`in_bounds` lane.loads).
// The base alignment stays the caller's (the launcher stub refuses a misaligned buffer:
// XTC_STUB_ERROR_BAD_ALIGNMENT, docs/stubs.md), so a static memref's rules are proven at compile time
// and its kernel is unchanged. A view (an explicit shape other than its memref's: `shape = [M, K],
// strides = [lda, 1]`) is checked the same way by default, with or without --surface-fallback
// (viewSurfaceRule): its pitch is a scalar no stub can check. Its per-lane accesses keep to the view.
#include "ir/passes/LowerXeKernel.h"
#include "ir/passes/PadColumns.h"

#include <algorithm>

namespace xtc::passes::lowerxe {

namespace {

constexpr int64_t kMaxSurface = int64_t(1) << 24;  // largest width (bytes) and height (rows), §2.5

bool isGlobalTile(const Value* v) { return v->type().isTile() && v->type().tileInfo().space == ir::MemSpace::Global; }

// Whether `v` is the same in every subgroup of a workgroup: made of the kernel's arguments,
// constants, memref dims and group ids by integer arithmetic (a view's shape from the subgroup id
// is not).
bool workgroupUniform(const Value* v, const Operation* kernel, int depth = 0) {
  if (depth > 32) return false;
  if (v->isBlockArgument()) return v->ownerBlock()->parentOp() == kernel;
  const Operation* o = v->definingOp();
  if (!o || o->numRegions() != 0) return false;
  if (o->is("arith.constant") || o->is("gpu.group_id") || o->is("gpu.num_groups")) return true;
  if (!(o->is("memref.dim") || o->name().rfind("arith.", 0) == 0)) return false;
  for (unsigned i = 0; i < o->numOperands(); ++i)
    if (!workgroupUniform(o->operand(i), kernel, depth + 1)) return false;
  return true;
}

}  // namespace

KernelLowerXe::SurfaceRule KernelLowerXe::surfaceRule(const TileState& t, bool build) {
  if (t_.kind != targets::TargetKind::Pvc) return {true, nullptr};
  // A clamped tile (pad-columns) is checked by its memref's rules: its width is at most the
  // memref's and provably at least 64 bytes, its pitch the memref's (clampedSurfaceLegal).
  if (!(t.denseSurface || t.clamped)) return t.viewRows ? viewSurfaceRule(t, build) : SurfaceRule{true, nullptr};
  const Type& mt = t.mem->type();
  int64_t eb = ir::elemBits(mt.elem()) / 8;
  auto key = std::make_pair(static_cast<const Value*>(t.mem), eb);
  if (auto it = surfaceRules_.find(key); it != surfaceRules_.end()) return it->second;
  // Width = pitch = columns x eb bytes: a multiple of 16 (which makes it >= width's multiple of 4)
  // and in [64, 2^24]; rows in [1, 2^24]. Each part is folded when its dim is static; the rest is
  // built once in the prologue (the memref is a kernel argument), as unsigned range compares.
  int64_t rows = mt.shape()[0], cols = mt.shape()[1];
  bool staticFails = (cols != ir::kDynamic && ((cols * eb) % 16 != 0 || cols * eb < 64 || cols * eb > kMaxSurface)) ||
                     (rows != ir::kDynamic && (rows < 1 || rows > kMaxSurface));
  SurfaceRule r{!staticFails, nullptr};
  // A batch's matrix (memref.slice, batch-slice) starts index x (its elements) bytes into its memref,
  // whose base the stub checks: 64-byte aligned only when that product is, which no launch check
  // can promise, so the kernel checks it with or without --surface-fallback (not when every level's
  // matrix size is a static multiple of 64 bytes).
  bool checkAlignment = !staticFails && !sliceStaticallyAligned(t.mem);
  // Without --surface-fallback a dynamic dim is the caller's (the launcher stub checks it), but a
  // static one that breaks a rule still takes the per-lane accesses: no input makes it legal.
  bool checkDims = surfaceFallback_ && (cols == ir::kDynamic || rows == ir::kDynamic);
  if (staticFails || (!checkDims && !checkAlignment)) return surfaceRules_[key] = r;
  Type idx = Type::index(), i1 = Type::scalar(ElemKind::I1);
  auto cmp = [&](const char* pred, Value* a, Value* b) {
    return pro_.create("arith.cmpi", {a, b}, {i1}, {{"predicate", Attribute::enumValue("cmpi", pred)}})->result();
  };
  auto also = [&](Value* c) { r.ok = r.ok ? pro_.create("arith.andi", {r.ok, c}, {i1})->result() : c; };
  auto dim = [&](int64_t d) { return pro_.create("memref.dim", {t.mem}, {idx}, {{"index", Attribute::integer(d)}})->result(); };
  if (checkAlignment) also(sliceAligned(t));
  if (checkDims && cols == ir::kDynamic) {
    Value* w = pro_.create("arith.muli", {dim(1), cIndex(eb)}, {idx})->result();
    also(cmp("eq", pro_.create("arith.andi", {w, cIndex(15)}, {idx})->result(), cIndex(0)));
    also(cmp("ule", pro_.create("arith.subi", {w, cIndex(64)}, {idx})->result(), cIndex(kMaxSurface - 64)));
  }
  if (checkDims && rows == ir::kDynamic)
    also(cmp("ule", pro_.create("arith.subi", {dim(0), cIndex(1)}, {idx})->result(), cIndex(kMaxSurface - 1)));
  r.known.reset();
  return surfaceRules_[key] = r;
}

KernelLowerXe::SurfaceRule KernelLowerXe::viewSurfaceRule(const TileState& t, bool build) {
  // The message's surface (surface()): base = the memref's base, which is also the view's element
  // (0, 0) (an init_tile's offsets index the view; a view never starts inside its memref), so the
  // 64-byte alignment is the memref's, which the stub checks (XTC_STUB_ERROR_BAD_ALIGNMENT); width =
  // view columns x eb, height = view rows, pitch = row stride x eb. The view's columns, not its
  // memref's, are the surface's: the 2D messages zero-fill and clip at them. Rules in elements, so
  // no product can wrap: columns x eb a multiple of 4 and in [64, 2^24]; rows in [1, 2^24]; stride x
  // eb a multiple of 16, >= the width and (conservatively, the pitch operand is i32 and bounded like
  // the width) at most 2^24. The stride's row-alignment rule is what breaks a padded leading
  // dimension (f16 lda = K + 1: 2K + 2 bytes).
  int64_t eb = ir::elemBits(t.mem->type().elem()) / 8;
  auto constOf = [](Value* v) -> std::optional<int64_t> {
    const Operation* o = v->definingOp();
    const Attribute* a = o && o->is("arith.constant") ? o->attr("value") : nullptr;
    if (a && a->isa(AttrKind::Int)) return a->getInt();
    return std::nullopt;
  };
  std::optional<int64_t> rows = constOf(t.viewRows), cols = constOf(t.viewCols), stride = constOf(t.viewStride);
  // Static parts first: any that fails decides (per lane, no input makes it legal).
  int64_t minCols = (64 + eb - 1) / eb, maxCols = kMaxSurface / eb;
  auto within = [](std::optional<int64_t> v, int64_t lo, int64_t hi) { return *v >= lo && *v <= hi; };
  bool fails = (cols && ((*cols * eb) % 4 != 0 || !within(cols, minCols, maxCols))) || (rows && !within(rows, 1, kMaxSurface)) ||
               (stride && ((*stride * eb) % 16 != 0 || !within(stride, 0, maxCols))) || (cols && stride && *stride < *cols);
  if (fails) return {false, nullptr};
  if (rows && cols && stride) return {true, nullptr};
  if (!build) return {};
  const void* where = t.viewAnchor ? static_cast<const void*>(t.viewAnchor) : static_cast<const void*>(b_.block());
  auto key = std::make_tuple(static_cast<const Value*>(t.viewRows), static_cast<const Value*>(t.viewCols),
                             static_cast<const Value*>(t.viewStride), eb, where);
  if (auto it = viewRules_.find(key); it != viewRules_.end()) return it->second;
  // Built right after the view's surface (defined wherever the tile is used), or where
  // lowerForSurfaces asks for a view it traced to an init_tile in the loop (before the loop).
  ir::Builder vb = b_;
  if (t.viewAnchor) vb.setInsertionPointAfter(t.viewAnchor);
  Type idx = Type::index(), i1 = Type::scalar(ElemKind::I1);
  auto cmp = [&](const char* pred, Value* a, Value* b) {
    return vb.create("arith.cmpi", {a, b}, {i1}, {{"predicate", Attribute::enumValue("cmpi", pred)}})->result();
  };
  SurfaceRule r;
  auto also = [&](Value* c) { r.ok = r.ok ? vb.create("arith.andi", {r.ok, c}, {i1})->result() : c; };
  auto lowBitsZero = [&](Value* v, int64_t mask) {
    if (mask) also(cmp("eq", vb.create("arith.andi", {v, cIndex(mask)}, {idx})->result(), cIndex(0)));
  };
  auto range = [&](Value* v, int64_t lo, int64_t hi) {  // lo <= v <= hi, unsigned: v - lo <=u hi - lo
    also(cmp("ule", lo ? vb.create("arith.subi", {v, cIndex(lo)}, {idx})->result() : v, cIndex(hi - lo)));
  };
  if (!cols) {
    lowBitsZero(t.viewCols, eb < 4 ? 4 / eb - 1 : 0);
    range(t.viewCols, minCols, maxCols);
  }
  if (!rows) range(t.viewRows, 1, kMaxSurface);
  if (!stride) {
    lowBitsZero(t.viewStride, eb < 16 ? 16 / eb - 1 : 0);
    range(t.viewStride, 0, maxCols);
  }
  if (!cols || !stride) also(cmp("ule", t.viewCols, t.viewStride));
  return viewRules_[key] = r;
}

bool KernelLowerXe::sliceStaticallyAligned(const Value* mem) {
  // Each level of slicing moves the base by index x the slice's elements x their bytes: a multiple of
  // 64 when the static extents' part of that product is (a dynamic extent only multiplies it).
  for (const Operation* def = mem->definingOp(); def && def->is("memref.slice"); def = def->operand(0)->definingOp()) {
    const Type& mt = def->result()->type();
    int64_t bytes = ir::elemBits(mt.elem()) / 8;
    for (int64_t d : mt.shape())
      if (d != ir::kDynamic) bytes *= d;
    if (bytes % 64 != 0) return false;
  }
  return true;
}

Value* KernelLowerXe::sliceAligned(const TileState& t) {
  Value* base = baseAddress(t.mem);
  Type idx = Type::index();
  Value* low = pro_.create("arith.andi", {pro_.create("arith.convert", {base}, {idx})->result(), cIndex(63)}, {idx})->result();
  return pro_.create("arith.cmpi", {low, cIndex(0)}, {Type::scalar(ElemKind::I1)}, {{"predicate", Attribute::enumValue("cmpi", "eq")}})
      ->result();
}

KernelLowerXe::Choice KernelLowerXe::surfaceChoice(const TileState& t, Value** guard) {
  // Inside a versioned loop the mode decides what the rules do not: no condition is built there.
  SurfaceRule r = surfaceRule(t, surfaceMode_ == SurfaceMode::Guard);
  if (r.known) return *r.known ? Choice::Block : Choice::PerLane;
  if (surfaceMode_ == SurfaceMode::Block) return Choice::Block;
  if (surfaceMode_ == SurfaceMode::PerLane) return Choice::PerLane;
  *guard = r.ok;
  return Choice::Guarded;
}

std::optional<TileState> KernelLowerXe::traceTile(Value* v, const Operation& user) {
  if (vals_.hasTile(v)) return vals_.tile(v, user);
  Operation* def = v->definingOp();
  if (def && def->is("tile.update_tile_offset")) return traceTile(def->operand(0), user);
  if (def && def->is("tile.init_tile")) {
    Value* src = def->operand(0);
    if (!vals_.has(src)) return std::nullopt;
    TileState s;
    s.mem = vals_.get1(src, user);
    s.type = v->type();
    if (denseInit(*def)) {
      s.denseSurface = true;
      return s;
    }
    // An explicit view whose shape and row stride are defined before the loop (a clamped one is
    // left untraced, as before: its rules are its memref's).
    const Attribute* seg = def->attr("segments");
    if (!seg || seg->getIntArray().at(1) != 2 || isClampedInit(*def) || !src->type().isMemRef() ||
        v->type().tileInfo().space != ir::MemSpace::Global)
      return std::nullopt;
    for (unsigned i = 3; i <= 5; ++i)
      if (!vals_.has(def->operand(i))) return std::nullopt;
    s.viewRows = vals_.get1(def->operand(3), user);
    s.viewCols = vals_.get1(def->operand(4), user);
    s.viewStride = vals_.get1(def->operand(5), user);
    return s;
  }
  if (def && def->is("scf.if") && def->numRegions() > 0 && def->region(0).numBlocks() == 1)
    return traceTile(def->region(0).block().terminator()->operand(v->index()), user);  // the first branch's (lowerIf)
  if (!def && v->isBlockArgument() && v->index() > 0) {
    Operation* loop = v->ownerBlock()->parentOp();
    if (loop && loop->is("scf.for")) return traceTile(loop->operand(3 + v->index() - 1), user);
  }
  return std::nullopt;
}

KernelLowerXe::MemDims& KernelLowerXe::surfaceDims(const TileState& t) {
  auto [it, added] = memDims_.try_emplace(t.mem);
  MemDims& d = it->second;
  if (!added) return d;
  Type idx = Type::index(), i1 = Type::scalar(ElemKind::I1);
  // In the prologue (the memref is a kernel argument): its extents, last row and column, and
  // whether it has an element at all (clamping needs one to clamp to).
  auto dim = [&](int64_t k) { return pro_.create("memref.dim", {t.mem}, {idx}, {{"index", Attribute::integer(k)}})->result(); };
  auto ne = [&](Value* v) {
    return pro_.create("arith.cmpi", {v, cIndex(0)}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "ne")}})->result();
  };
  d.rows = dim(0);
  d.cols = dim(1);
  auto last = [&](Value* extent) {  // extent - 1 as i32 (the clamp's bound)
    Value* l = pro_.create("arith.subi", {extent, cIndex(1)}, {idx})->result();
    return pro_.create("arith.convert", {l}, {Type::scalar(ElemKind::I32)})->result();
  };
  d.lastRow = last(d.rows);
  d.lastCol = last(d.cols);
  // Static extents fold: no test when both are positive (nonEmpty stays null), padding only when
  // one is 0 (emptyStatic).
  const std::vector<int64_t>& shape = t.mem->type().shape();
  bool rowsStatic = shape[0] != ir::kDynamic, colsStatic = shape[1] != ir::kDynamic;
  d.emptyStatic = (rowsStatic && shape[0] == 0) || (colsStatic && shape[1] == 0);
  if (!rowsStatic && !colsStatic) d.nonEmpty = pro_.create("arith.andi", {ne(d.rows), ne(d.cols)}, {i1})->result();
  else if (!rowsStatic) d.nonEmpty = ne(d.rows);
  else if (!colsStatic) d.nonEmpty = ne(d.cols);
  if (d.nonEmpty) {
    // An empty memref clamps every index to 0: the backend reads that from a constant of its own
    // (no element to read; its buffer may be one byte), and the masks are false.
    Type i32 = Type::scalar(ElemKind::I32);
    Value* zero = pro_.constantInt(0, ElemKind::I32);
    d.lastRow = pro_.create("arith.select", {d.nonEmpty, d.lastRow, zero}, {i32})->result();
    d.lastCol = pro_.create("arith.select", {d.nonEmpty, d.lastCol, zero}, {i32})->result();
  }
  return d;
}

Value* KernelLowerXe::surfaceLaneLoadValue(Operation& op, int64_t lo, int64_t hi) {
  // Why not perLaneLoadValue's checked lane.loads: each is a branch around a gather with two 64-bit
  // bounds compares of its own, which IGC makes a goto/join region per register with its flags
  // saved to registers (sg_gemm_f16's edge loop 1187 instructions for 40 registers; gemm_bf16's
  // spilled 571 times). Here each register is an unchecked gather at its clamped (row, col)
  // (`in_bounds`) and the padding selected in by the mask of the unclamped indices; no branch.
  const TileState& t = vals_.tile(op.operand(0), op);
  // Only whole dense memrefs have surface rules here (surfaceRule); a view keeps viewAccess's form.
  if (!t.denseSurface || t.viewRows) return perLaneLoadValue(op);  // never chunked (lowerLoadTile)
  const Type& rt = op.result()->type();
  const layout::LinearLayout& l = laneLayout(rt, op);
  ElemKind ek = rt.elem();
  Type idx = Type::index(), i1 = Type::scalar(ElemKind::I1);
  MemDims& d = surfaceDims(t);
  ir::AttrMap attrs{{"in_bounds", Attribute::boolean(true)}};
  Value* padValue = nullptr;
  {
    double v = 0;
    if (const Attribute* p = op.attr("padding")) v = p->isa(AttrKind::Float) ? p->getFloat() : static_cast<double>(p->getInt());
    attrs["padding"] = ir::isFloatElem(ek) ? Attribute::floating(v, ek) : Attribute::integer(static_cast<int64_t>(v), ek);
    padValue = ir::isFloatElem(ek) ? b_.constantFloat(v, ek) : b_.constantInt(static_cast<int64_t>(v), ek);
  }
  int64_t n = xe::registersOf(l);
  if (hi < 0) hi = n;
  if (d.emptyStatic) return fromElements(std::vector<Value*>(static_cast<size_t>(hi - lo), padValue), ek);
  // A row's clamp and compare are shared by the row's registers, a column's by the column's.
  std::vector<Value*> lane = laneCoords(l, op);
  std::map<int32_t, std::pair<Value*, Value*>> rowAt, colAt;  // register part -> (clamped, inside)
  auto coord = [&](std::map<int32_t, std::pair<Value*, Value*>>& at, int32_t c, Value* off, Value* ln, Value* extent,
                   Value* last) {
    auto [i, fresh] = at.try_emplace(c);
    if (fresh) {
      // Clamped in 32 bits (extents are below 2^32: docs/abi.md), zero-extended back: any value up
      // to `last` is inside, and the 64-bit compare decides the padding. (A 64-bit min is three
      // compares and two selects on pvc.)
      Value* x = add(off, addC(ln, c));
      Value* m = b_.create("arith.minui", {toI32(x), last}, {Type::scalar(ElemKind::I32)})->result();
      Value* wide = b_.create("arith.convert", {m}, {idx})->result();  // signed: the mask makes it unsigned
      i->second = {b_.create("arith.andi", {wide, cIndex(0xffffffff)}, {idx})->result(), cmpIndex("ult", x, extent)};
    }
    return i->second;
  };
  std::vector<Value*> regs;
  for (int64_t r = lo; r < hi; ++r) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r), 0});
    auto [row, rowIn] = coord(rowAt, c[0], t.offs[0], lane[0], d.rows, d.lastRow);
    auto [col, colIn] = coord(colAt, c[1], t.offs[1], lane[1], d.cols, d.lastCol);
    regs.push_back(b_.create("lane.load", {t.mem, row, col, andI1(rowIn, colIn)}, {Type::scalar(ek)}, attrs)->result());
  }
  return fromElements(regs, ek);
}

void KernelLowerXe::surfaceLaneStores(Operation& op, const TileState& t, const layout::LinearLayout& l,
                                      const std::vector<Value*>& regs) {
  // Why not perLaneWrites' checked lane.stores: each is a branch around a scatter with two 64-bit
  // bounds compares of its own, a goto/join region per register on pvc. Here each register is one
  // lane.store {in_bounds} whose mask is the bounds test itself (row <u rows && col <u cols, a
  // row's compare shared by its registers, a column's by its): the indices are inside wherever the
  // mask is on, so the backend writes without a bounds check, on pvc as one predicated scatter
  // (VisaLanes.h); a masked-off lane writes nothing, nowhere (no clamped address is written).
  // A view's accesses keep viewAccess's form; a replicated layout (writes from some lanes only)
  // keeps perLaneWrites' lane mask.
  bool replicated = false;
  for (int b = 0; b < l.inDimBits("lane"); ++b) replicated = replicated || l.basis("lane", b) == std::vector<int32_t>{0, 0};
  if (!t.denseSurface || t.viewRows || replicated) {
    perLaneWrites("lane.store", t, l, regs, {}, op);
    return;
  }
  MemDims& d = surfaceDims(t);
  if (d.emptyStatic) return;  // a static extent of 0: nothing to write
  std::vector<Value*> lane = laneCoords(l, op);
  std::map<int32_t, std::pair<Value*, Value*>> rowAt, colAt;  // register part -> (index, inside)
  auto coord = [&](std::map<int32_t, std::pair<Value*, Value*>>& at, int32_t c, Value* off, Value* ln, Value* extent) {
    auto [i, fresh] = at.try_emplace(c);
    if (fresh) {
      Value* x = add(off, addC(ln, c));
      i->second = {x, cmpIndex("ult", x, extent)};
    }
    return i->second;
  };
  ir::AttrMap attrs{{"in_bounds", Attribute::boolean(true)}};
  for (int64_t r = 0; r < static_cast<int64_t>(regs.size()); ++r) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r), 0});
    auto [row, rowIn] = coord(rowAt, c[0], t.offs[0], lane[0], d.rows);
    auto [col, colIn] = coord(colAt, c[1], t.offs[1], lane[1], d.cols);
    b_.create("lane.store", {regs[static_cast<size_t>(r)], t.mem, row, col, andI1(rowIn, colIn)}, {}, attrs);
  }
}

bool KernelLowerXe::lowerForSurfaces(Operation& op) {
  // Views are checked by default, whole memrefs with --surface-fallback, and batch slices' alignment
  // by default (surfaceRule knows the rest).
  if (t_.kind != targets::TargetKind::Pvc || surfaceMode_ != SurfaceMode::Guard) return false;
  // The loop's global 2D messages (at any depth; those blocking left per lane send none) and the
  // rules of their surfaces, ANDed; each memref's (view's) condition is one value (surfaceRule's cache).
  std::vector<Value*> conds;
  bool traced = true, uniform = true;
  op.walk([&](Operation* o) {
    if (o == &op || !traced) return;
    unsigned tileOperand = o->is("tile.store_tile") ? 1 : 0;
    if (!(o->is("tile.load_tile") || o->is("tile.store_tile") || o->is("tile.prefetch_tile")) || o->boolAttr("per_lane") ||
        !isGlobalTile(o->operand(tileOperand)))
      return;
    std::optional<TileState> t = traceTile(o->operand(tileOperand), *o);
    if (!t) {
      traced = false;
      return;
    }
    SurfaceRule r = surfaceRule(*t);
    if (!r.known && std::find(conds.begin(), conds.end(), r.ok) == conds.end()) conds.push_back(r.ok);
    if (!r.known && t->viewRows)
      for (Value* v : {t->viewRows, t->viewCols, t->viewStride}) uniform = uniform && workgroupUniform(v, kernel_);
  });
  // Untraced: the messages keep their own guards in the loop (correct; not expected from the front end).
  // So do those of a loop with a barrier whose view's condition may differ between the subgroups of a
  // workgroup: split at different iterations, its subgroups would meet different barriers.
  if (!traced || conds.empty() || (!uniform && holdsBarrier(op))) return false;
  Value* ok = conds[0];
  for (size_t i = 1; i < conds.size(); ++i) ok = andI1(ok, conds[i]);
  Value* lb = vals_.get1(op.operand(0), op);
  Value* ub = vals_.get1(op.operand(1), op);
  Value* mid = b_.create("arith.select", {ok, ub, lb}, {Type::index()})->result();
  mid->setNameHint("interior_end");
  surfaceMode_ = SurfaceMode::Block;
  Operation* inner = vals_.rebuildFor(op, b_, [this](ir::Block& blk) { lowerBlock(blk); }, lb, mid);
  surfaceMode_ = SurfaceMode::PerLane;
  std::vector<Value*> carried = inner->results();
  vals_.rebuildFor(op, b_, [this](ir::Block& blk) { lowerBlock(blk); }, mid, ub, &carried);
  surfaceMode_ = SurfaceMode::Guard;
  kernel_->setAttr("edge_loops", Attribute::integer(kernel_->intAttr("edge_loops", 0) + 1));
  return true;
}

}  // namespace xtc::passes::lowerxe
