// The `lower-xe` pass (pvc; dg2 for DPAS only): blocked, layout-assigned, resolved subgroup-level
// tile IR -> lane-level IR with `xe.*` hardware ops (ir/ops/XeOps.h). Contract (docs/passes.md,
// "lower-xe"):
//   - a tile becomes its offsets (one index per memref dim); a vector with lane layout L becomes the
//     lane's vector<R x T>, register r = L's register r;
//   - tile.load_tile -> one xe.load_2d per message of its blocking, every parameter explicit (surface
//     width = cols * element bytes, height = rows, pitch = width, x/y = element/row coordinates);
//     out-of-bounds rows/columns are zero-filled by the hardware, a non-zero `padding` is applied with
//     one select per register; a `per_lane` load -> one lane.load per register (any padding);
//   - tile.tile_mma -> one xe.dpas per (m, n, k) DPAS block, K innermost, operands gathered from the
//     registers the DPAS layouts name;
//   - tile.store_tile -> one xe.store_2d per message when a store shape of the target table
//     (blockStores: one block, subgroup-wide) tiles the value and its lane layout holds each message
//     as the message's layout (register i = row i, lane = column); the hardware drops what falls
//     outside the surface (the memref), which is the clipping. Any other store, or one blocking marked
//     `per_lane` (columns not provably whole dwords) -> one lane.store per register (clipped at the
//     memref bounds); tile.atomic_rmw -> one lane.atomic per register
//     (LowerXeAtomic.cpp);
//   - tile.prefetch_tile -> xe.prefetch_2d messages of the tallest table prefetch shape
//     (blockPrefetches) that tiles the tile, unless blocking marked it `per_lane`; otherwise per-lane
//     xe.prefetch_1d of every 64-byte line;
//   - tile.convert_layout runs the plan resolve-layouts recorded (register permutation or shuffles);
//     tile.transpose emits nothing (LowerXeTranspose.cpp);
//   - scf.for/scf.if keep their structure (the K loop is never unrolled); a tile yielded by scf.if is
//     its offsets, over the one surface all branches share;
//   - kernel attributes sg_size, wg_size, target, and build_options = "-ze-opt-large-register-file"
//     when a loop's register estimate does not fit the default file (RegisterBudget.h, reference §7).
#include "ir/passes/LowerXeKernel.h"
#include "ir/passes/PadColumns.h"

#include "ir/passes/Bf16Arith.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <unordered_map>

namespace xtc::passes {

namespace lowerxe {

const layout::LinearLayout& KernelLowerXe::laneLayout(const Type& t, const Operation& op) {
  const layout::LinearLayout* l = ir::vectorLinearLayout(t);
  if (!l) fail(op, fmt::format("vector {} has no lane layout (run layout-assignment first)", t.str()));
  // Lanes may replicate (zero lane bases, e.g. a row reduction's result); registers may not.
  int zeroLanes = 0;
  for (int b = 0; b < l->inDimBits("lane"); ++b)
    zeroLanes += l->basis("lane", b) == std::vector<int32_t>(l->basis("lane", b).size(), 0);
  if (l->inDimSize("lane") != S_ || !l->isSurjective() || l->rank() != l->totalInBits() - zeroLanes ||
      l->outDimSize("dim0") * l->outDimSize("dim1") != t.numElements())
    fail(op, fmt::format("the lane layout of {} is not one register set per lane of a {}-lane subgroup; not "
                         "implemented yet",
                         t.str(), S_));
  return *l;
}

std::vector<Value*> KernelLowerXe::extractAll(Value* vec) {
  std::vector<Value*> r;
  Type et = Type::scalar(vec->type().elem());
  for (int64_t i = 0; i < vec->type().shape()[0]; ++i)
    r.push_back(b_.create("vector.extract", {vec}, {et}, {{"index", Attribute::integer(i)}})->result());
  return r;
}

Surface KernelLowerXe::surface(Operation& init, const TileState& t) {
  const Type& mt = init.operand(0)->type();
  if (mt.rank() != 2 || !mt.strides().empty() || mt.memSpace() != ir::MemSpace::Global)
    fail(init, fmt::format("2D block loads from {} (not a dense rank-2 global memref) are not implemented yet", mt.str()));
  int64_t eb = ir::elemBits(mt.elem()) / 8;
  Type i32 = Type::scalar(ElemKind::I32);
  std::vector<int64_t> seg = init.attr("segments") ? init.attr("segments")->getIntArray() : std::vector<int64_t>{2, 0, 0};
  Surface s;
  s.base = baseAddress(t.mem);
  Value *rows, *cols, *stride;
  if (seg[1] == 2) {
    // Explicit shape and strides: the surface is what they describe; the inner stride must be 1.
    Operation* inner = init.operand(6)->definingOp();
    const Attribute* one = inner && inner->is("arith.constant") ? inner->attr("value") : nullptr;
    if (!one || !one->isa(AttrKind::Int) || one->getInt() != 1)
      fail(init, "2D block loads need a unit inner stride (a constant 1); other strides are not implemented yet");
    rows = vals_.get1(init.operand(3), init);
    cols = vals_.get1(init.operand(4), init);
    stride = vals_.get1(init.operand(5), init);
  } else {
    // Dense row-major: the surface is the whole memref, pitch = row bytes.
    rows = b_.create("memref.dim", {t.mem}, {Type::index()}, {{"index", Attribute::integer(0)}})->result();
    cols = b_.create("memref.dim", {t.mem}, {Type::index()}, {{"index", Attribute::integer(1)}})->result();
    stride = cols;
  }
  auto bytes = [&](Value* v) {
    return b_.create("arith.convert", {b_.create("arith.muli", {v, cIndex(eb)}, {Type::index()})->result()}, {i32})->result();
  };
  s.width = bytes(cols);
  s.pitch = stride == cols ? s.width : bytes(stride);
  s.height = b_.create("arith.convert", {rows}, {i32})->result();
  return s;
}

std::vector<Value*> KernelLowerXe::laneCoords(const layout::LinearLayout& l, const Operation& op) {
  std::string key = l.print();
  auto it = laneCoordCache_.find(key);
  if (it != laneCoordCache_.end()) return it->second;
  std::vector<Value*> r;
  int lb = l.inDimBits("lane");
  for (int d = 0; d < 2; ++d) {
    // xor of the lane bases equals their sum when they use disjoint bits; checked here.
    int32_t used = 0;
    Value* acc = nullptr;
    for (int b = 0; b < lb; ++b) {
      int32_t v = l.basis("lane", b)[static_cast<size_t>(d)];
      if (v == 0) continue;
      if (used & v) fail(op, "a lane layout whose lane bits overlap in one coordinate is not implemented yet");
      used |= v;
      Value* bit = pro_.create("arith.andi", {pro_.create("arith.shrui", {laneId_, cIndex(b)}, {Type::index()})->result(), cIndex(1)},
                               {Type::index()})
                       ->result();
      Value* term = v == 1 ? bit : pro_.create("arith.muli", {bit, cIndex(v)}, {Type::index()})->result();
      acc = acc ? pro_.create("arith.addi", {acc, term}, {Type::index()})->result() : term;
    }
    // Registers must not touch the lane's bits either, so row/col = register part + lane part.
    for (int b = 0; b < l.inDimBits("register"); ++b)
      if (l.basis("register", b)[static_cast<size_t>(d)] & used)
        fail(op, "a lane layout whose register and lane bits overlap is not implemented yet");
    r.push_back(acc ? acc : cIndex(0));
  }
  laneCoordCache_[key] = r;
  return r;
}

void KernelLowerXe::lowerInitTile(Operation& op) {
  const Type& tt = op.result()->type();
  const ir::TileInfo& info = tt.tileInfo();
  if (info.wgMap) fail(op, "expects subgroup-level IR, but this tile has a wg_map (run wg-distribute first)");
  if (info.scattered) fail(op, "scattered tiles are not implemented yet");
  Value* src = op.operand(0);
  if (!src->type().isMemRef()) fail(op, "tiles over raw addresses are not implemented yet");
  if (src->type().rank() != 2 || tt.rank() != 2) fail(op, "only rank-2 tiles of rank-2 memrefs are implemented yet");
  TileState s;
  s.mem = vals_.get1(src, op);
  s.type = tt;
  for (unsigned i = 1; i <= 2; ++i) s.offs.push_back(vals_.get1(op.operand(i), op));
  if (info.space == ir::MemSpace::Global) s.surf = surface(op, s);  // SLM: per-lane accesses (LowerXeSlm.cpp)
  s.denseSurface = denseInit(op);
  const Attribute* seg = op.attr("segments");
  if (info.space == ir::MemSpace::Global && !s.denseSurface && seg && seg->getIntArray().at(1) == 2) {
    // An explicit view (surface() checked the unit inner stride): the 2D messages address it through
    // their surface; per-lane accesses through viewAccess.
    s.viewRows = vals_.get1(op.operand(3), op);
    s.viewCols = vals_.get1(op.operand(4), op);
    s.viewStride = vals_.get1(op.operand(5), op);
    if (!isMemRefDim(op.operand(5), src, 1)) {
      Value*& flat = flatMemRefs_[s.mem];
      if (!flat) {
        const Type& mt = s.mem->type();
        int64_t rows = mt.shape()[0], cols = mt.shape()[1];
        int64_t n = rows == ir::kDynamic || cols == ir::kDynamic ? ir::kDynamic : rows * cols;
        flat = pro_.create("memref.flatten", {s.mem}, {Type::memref({n}, mt.elem(), mt.memSpace())})->result();
        if (!s.mem->nameHint().empty()) flat->setNameHint(s.mem->nameHint() + "_flat");
      }
      s.viewFlat = flat;
    }
  }
  s.clamped = isClampedInit(op);
  // pvc checks a view's surface rules (LowerXeSurface.cpp): built after its surface when needed.
  if (s.viewRows && !s.clamped && t_.kind == targets::TargetKind::Pvc) s.viewAnchor = s.surf.height->definingOp();
  vals_.setTile(op.result(), s);
}

Value* KernelLowerXe::viewAccess(const TileState& t, std::vector<Value*>& idx, Value** mask) {
  if (!t.viewRows) return t.mem;
  // Unsigned compares: a negative row or column is outside the view too.
  Value* in = andI1(cmpIndex("ult", idx[0], t.viewRows), cmpIndex("ult", idx[1], t.viewCols));
  *mask = *mask ? andI1(*mask, in) : in;
  if (!t.viewFlat) return t.mem;  // the view's rows are the memref's: same (row, col)
  idx = {add(indexOp("arith.muli", idx[0], t.viewStride), idx[1])};
  return t.viewFlat;
}

bool KernelLowerXe::isMemRefDim(Value* v, Value* mem, int64_t d) {
  // memref.dim d of `mem`, or a constant equal to its static dimension d.
  const Operation* o = v->definingOp();
  if (o && o->is("memref.dim") && o->operand(0) == mem && o->intAttr("index", -1) == d) return true;
  int64_t n = mem->type().shape()[static_cast<size_t>(d)];
  const Attribute* a = o && o->is("arith.constant") ? o->attr("value") : nullptr;
  return n != ir::kDynamic && a && a->isa(AttrKind::Int) && a->getInt() == n;
}

bool KernelLowerXe::denseInit(Operation& op) const {
  // The surface is the whole dense memref: no explicit shape, or the one the front end writes
  // (memref.dim 0 and 1 of the same memref, strides dim 1 and a constant 1; a static dim is its
  // constant, e.g. softmax's memref<?x64xf32>).
  Value* src = op.operand(0);
  const ir::TileInfo& info = op.result()->type().tileInfo();
  if (!src->type().isMemRef() || src->type().rank() != 2) return false;
  auto isDim = [&](Value* v, int64_t d) { return isMemRefDim(v, src, d); };
  auto isOne = [](Value* v) {
    const Operation* o = v->definingOp();
    const Attribute* a = o && o->is("arith.constant") ? o->attr("value") : nullptr;
    return a && a->isa(AttrKind::Int) && a->getInt() == 1;
  };
  const Attribute* seg = op.attr("segments");
  bool explicitShape = seg && seg->getIntArray().at(1) == 2;
  return info.space == ir::MemSpace::Global && src->type().isMemRef() && src->type().strides().empty() &&
         (!explicitShape || (seg->getIntArray().at(2) == 2 && isDim(op.operand(3), 0) && isDim(op.operand(4), 1) &&
                             isDim(op.operand(5), 1) && isOne(op.operand(6))));
}

void KernelLowerXe::lowerUpdateOffset(Operation& op) {
  TileState s = vals_.tile(op.operand(0), op);
  if (op.numOperands() != 3) fail(op, "scattered tile offsets are not implemented yet");
  for (unsigned i = 0; i < 2; ++i) s.offs[i] = add(s.offs[i], vals_.get1(op.operand(1 + i), op));
  vals_.setTile(op.result(), s);
}

void KernelLowerXe::lowerPerLaneLoad(Operation& op) {
  // dg2: row block reads when the layout and (at run time) the memref allow (LowerXeBlockRead.cpp).
  if (lowerBlockReadLoad(op, [&] { return perLaneLoadValue(op); })) return;
  vals_.set(op.result(), {perLaneLoadValue(op)});
}

Value* KernelLowerXe::perLaneLoadValue(Operation& op) {
  // One lane.load per register at the element the layout puts there, `padding` outside the memref.
  const TileState& t = vals_.tile(op.operand(0), op);
  const Type& rt = op.result()->type();
  const layout::LinearLayout& l = laneLayout(rt, op);
  std::vector<Value*> lane = laneCoords(l, op);
  ElemKind ek = rt.elem();
  ir::AttrMap attrs;
  if (const Attribute* p = op.attr("padding")) {
    double v = p->isa(AttrKind::Float) ? p->getFloat() : static_cast<double>(p->getInt());
    attrs["padding"] = ir::isFloatElem(ek) ? Attribute::floating(v, ek) : Attribute::integer(static_cast<int64_t>(v), ek);
  }
  std::vector<Value*> regs;
  for (int64_t r = 0; r < xe::registersOf(l); ++r) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r), 0});
    Value* row = add(t.offs[0], addC(lane[0], c[0]));
    Value* col = add(t.offs[1], addC(lane[1], c[1]));
    std::vector<Value*> idx{row, col};
    Value* mask = nullptr;
    swizzleSlm(t, idx, &mask);
    Value* mem = viewAccess(t, idx, &mask);
    std::vector<Value*> operands{mem};
    operands.insert(operands.end(), idx.begin(), idx.end());
    if (mask) operands.push_back(mask);
    regs.push_back(b_.create("lane.load", operands, {Type::scalar(ek)}, attrs)->result());
  }
  return fromElements(regs, ek);
}

void KernelLowerXe::lowerLoadTile(Operation& op) {
  if (const TileState& t = vals_.tile(op.operand(0), op); slmPanels_.count(t.mem))
    return lowerSlmBlockLoad(op, t, slmPanels_.at(t.mem));  // LowerXeSlm.cpp
  if (op.boolAttr("per_lane")) return lowerPerLaneLoad(op);
  const TileState& t = vals_.tile(op.operand(0), op);
  auto m = xe::messageOf(op);
  if (!m) fail(op, "the load is not blocked (run blocking first)");
  // The hardware fills out-of-bounds elements with zeros; another padding value needs a select.
  const Attribute* pad = op.attr("padding");
  if (pad && (pad->isa(AttrKind::Float) ? pad->getFloat() == 0.0 : pad->getInt() == 0)) pad = nullptr;
  const Type& rt = op.result()->type();
  const layout::LinearLayout& l = laneLayout(rt, op);
  int64_t rows = rt.shape()[0], cols = rt.shape()[1];
  if (need(xe::tileLoadLayout(*m, rows, cols, static_cast<int>(S_)), op) != l)
    fail(op, "internal error: the load's layout is not the layout of its messages");
  // pvc: the 2D messages only where the surface keeps the rules of reference §2.5, else (or in the
  // arm a run-time guard takes when they fail) the per-lane loads (LowerXeSurface.cpp).
  Value* guard = nullptr;
  Choice choice = surfaceChoice(t, &guard);
  if (choice == Choice::PerLane) return vals_.set(op.result(), {surfaceLaneLoadValue(op)});
  int64_t perMsg = m->rows() * m->cols() / S_;
  std::vector<std::pair<int64_t, int64_t>> origins = xe::messageOrigins(rows, cols, m->rows(), m->cols());
  // Messages [first, last) (each perMsg registers, in order), all by default.
  auto blockValue = [&](size_t first = 0, size_t last = SIZE_MAX) -> Value* {
    const Surface& s = t.surf;
    ElemKind ek = rt.elem();
    ir::AttrMap attrs{{"elem_bits", Attribute::integer(m->elemBits)}, {"block_w", Attribute::integer(m->width)},
                      {"block_h", Attribute::integer(m->height)},     {"array_len", Attribute::integer(m->arrayLength)},
                      {"vnni", Attribute::boolean(m->vnni)},          {"transpose", Attribute::boolean(m->transpose)}};
    std::vector<Value*> regs;
    last = std::min(last, origins.size());
    for (size_t i = first; i < last; ++i) {
      auto [r0, c0] = origins[i];
      Value* x = toI32(transposedX(*m, addC(t.offs[1], c0)));
      Value* y = toI32(addC(t.offs[0], r0));
      Value* v = b_.create("xe.load_2d", {s.base, s.width, s.height, s.pitch, x, y}, {Type::vector({perMsg}, ek)}, attrs)
                     ->result();
      for (Value* e : extractAll(v)) regs.push_back(e);
    }
    if (pad) {
      // Register r holds element (row, col) = the layout's register part + lane part; outside the
      // surface (row >= height, col >= width / element bytes) it becomes the padding value.
      std::vector<Value*> lane = laneCoords(l, op);
      int64_t eb = ir::elemBits(ek) / 8;
      Value* h = b_.create("arith.convert", {s.height}, {Type::index()})->result();
      Value* w = b_.create("arith.divui", {b_.create("arith.convert", {s.width}, {Type::index()})->result(), cIndex(eb)},
                           {Type::index()})
                     ->result();
      double pv = pad->isa(AttrKind::Float) ? pad->getFloat() : static_cast<double>(pad->getInt());
      Value* pc = ir::isFloatElem(ek) ? b_.constantFloat(pv, ek) : b_.constantInt(static_cast<int64_t>(pv), ek);
      Type i1 = Type::scalar(ElemKind::I1);
      auto ult = [&](Value* a, Value* bnd) {
        return b_.create("arith.cmpi", {a, bnd}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "ult")}})->result();
      };
      for (size_t r = 0; r < regs.size(); ++r) {
        std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(first * perMsg + r), 0});
        Value* row = add(t.offs[0], addC(lane[0], c[0]));
        Value* col = add(t.offs[1], addC(lane[1], c[1]));
        Value* in = b_.create("arith.andi", {ult(row, h), ult(col, w)}, {i1})->result();
        regs[r] = b_.create("arith.select", {in, regs[r], pc}, {Type::scalar(ek)})->result();
      }
    }
    return fromElements(regs, ek);
  };
  if (choice == Choice::Block) return vals_.set(op.result(), {blockValue()});
  // Only a tile of at least half the default register file is cut (below, smaller guarded loads
  // did not spill, and each cut costs the 2D path a branch and a message header).
  int64_t grfs = xe::registersOf(l) * (ir::elemBits(rt.elem()) / 8) * S_ / std::max<int64_t>(1, t_.grfBytes);
  if (!t.denseSurface || t.viewRows || origins.size() < 2 || 2 * grfs < static_cast<int64_t>(t_.grfCount)) {
    Operation* ifOp = guardedIf(guard, laneType(rt, op), [&] { return blockValue(); }, [&] { return surfaceLaneLoadValue(op); });
    return vals_.set(op.result(), {ifOp->result(0)});
  }
  // A whole memref's large guarded load: one guard per message, each yielding that message's
  // registers (its per-lane arm gathers the same ones). Why: one guard yielding the whole tile merged
  // the arms' results in registers of their own, IGC copying each message's result into them, and
  // spilled (bias_relu_32x32: 64 GRFs merged, 46 spills with --surface-fallback; the per-lane arm
  // alone, a static bad memref: none; cut: none).
  std::vector<Value*> regs;
  Type chunk = Type::vector({perMsg}, rt.elem());
  for (size_t i = 0; i < origins.size(); ++i) {
    auto lo = static_cast<int64_t>(i) * perMsg;
    Operation* ifOp = guardedIf(guard, chunk, [&] { return blockValue(i, i + 1); }, [&] { return surfaceLaneLoadValue(op, lo, lo + perMsg); });
    for (Value* e : extractAll(ifOp->result(0))) regs.push_back(e);
  }
  vals_.set(op.result(), {fromElements(regs, rt.elem())});
}

Operation* KernelLowerXe::guardedIf(Value* guard, const std::optional<Type>& result, const std::function<Value*()>& block,
                                    const std::function<Value*()>& fallback) {
  std::vector<Type> types;
  if (result) types.push_back(*result);
  Operation* ifOp = b_.create("scf.if", {guard}, types, {}, 2);
  ir::Builder saved = b_;
  for (unsigned arm = 0; arm < 2; ++arm) {
    b_.setInsertionPointToEnd(&ifOp->region(arm).addBlock());
    Value* v = (arm == 0 ? block : fallback)();
    b_.create("scf.yield", v ? std::vector<Value*>{v} : std::vector<Value*>{}, {});
  }
  b_ = saved;
  return ifOp;
}

void KernelLowerXe::lowerPrefetch(Operation& op) {
  // The 2D block prefetch is inline vISA only (reference §3); the measured per-lane prefetch (§1)
  // covers the tile instead: each 64-byte line of each row is one dword prefetch, lines spread over
  // the lanes. A line outside the surface prefetches the base instead (never an invalid address).
  const TileState& t = vals_.tile(op.operand(0), op);
  const Surface& s = t.surf;
  int64_t rows = t.type.shape()[0], cols = t.type.shape()[1], eb = ir::elemBits(t.type.elem()) / 8;
  int64_t perRow = (cols * eb + 63) / 64, lines = rows * perRow;
  int64_t locality = 3;
  if (const Attribute* a = op.attr("locality"))
    locality = a->isa(AttrKind::Int) ? a->getInt() : a->isa(AttrKind::Enum) ? std::atoll(a->getString().c_str()) : 3;
  int64_t cache = locality >= 2 ? 4 : 2;  // 4: L1 and L3 cached; 2: L3 only (reference §1)
  // pvc: the 2D prefetches only where the surface keeps the rules (LowerXeSurface.cpp), as the loads.
  auto perLane = [&]() {
    // The line's row, column bytes and offset in 32 bits, as the surface's height, width and pitch
    // are: with row < height and column bytes < width (compared after truncation) the offset is below
    // height * pitch, inside the buffer (below 4 GiB: docs/abi.md), whatever the untruncated row was;
    // a wrapped row prefetches another line of the surface, never an invalid address. In 64 bits each
    // lane's row * pitch was a mul/mach pair and each compare 3 `cmp`s on dg2 (RFC 2.5's first slice
    // loop, 15 prefetches a step).
    Type i1 = Type::scalar(ElemKind::I1), i32 = Type::scalar(ElemKind::I32), i64 = Type::scalar(ElemKind::I64);
    auto ult = [&](Value* a, Value* bnd) {
      return b_.create("arith.cmpi", {a, bnd}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "ult")}})->result();
    };
    auto bin = [&](const char* n, Value* a, Value* c) { return b_.create(n, {a, c}, {a->type()})->result(); };
    auto c32 = [&](int64_t v) { return pro_.constantInt(v, ElemKind::I32); };
    Value* row0 = toI32(t.offs[0]);
    Value* col0 = bin("arith.muli", toI32(t.offs[1]), c32(eb));
    Value *r0 = nullptr, *sum0 = nullptr, *colOk0 = nullptr;  // the first group's
    auto prefetchAt = [&](Value* sum, Value* ok) {  // sum: the line's row * pitch + column bytes
      Value* off = bin("arith.andi", sum, c32(~int64_t(3)));
      off = b_.create("arith.select", {ok, off, c32(0)}, {i32})->result();
      // Zero-extended (arith.convert widens signed; LLVM folds the mask into a zext).
      Value* wide = bin("arith.andi", b_.create("arith.convert", {off}, {i64})->result(), pro_.constantInt(0xffffffff, ElemKind::I64));
      b_.create("xe.prefetch_1d", {bin("arith.addi", s.base, wide)}, {}, {{"cache", Attribute::integer(cache)}});
    };
    for (int64_t first = 0; first < lines; first += S_) {
      if (first % perRow == 0 && r0) {
        // Line lane + first is row r0 + first / perRow at the first group's column (perRow divides
        // first): its row is the first group's plus a constant, its offset the first group's plus that
        // constant times the pitch (the same mod 2^32), its column bound the first group's; no lane
        // parts of its own; lanes past the last line only when the group is the last, partial one.
        // (RFC 2.5's L2 tiles, 8 and 4 groups of 4 lines per row: per group in the dg2 statement 4
        // instructions and 3 loop-invariant registers fewer, no row * pitch product.)
        Value* r = bin("arith.addi", r0, c32(first / perRow));
        Value* ok = b_.create("arith.andi", {ult(r, s.height), colOk0}, {i1})->result();
        if (first + S_ > lines) ok = b_.create("arith.andi", {ult(addC(laneId_, first), cIndex(lines)), ok}, {i1})->result();
        prefetchAt(bin("arith.addi", sum0, bin("arith.muli", s.pitch, c32(first / perRow))), ok);
        continue;
      }
      Value* line = addC(laneId_, first);
      Value* row = toI32(bin("arith.divui", line, cIndex(perRow)));
      Value* part = toI32(bin("arith.remui", line, cIndex(perRow)));
      Value* r = bin("arith.addi", row0, row);
      Value* colBytes = bin("arith.addi", col0, bin("arith.muli", part, c32(64)));
      Value* inRows = b_.create("arith.andi", {ult(line, cIndex(lines)), ult(r, s.height)}, {i1})->result();
      Value* colOk = ult(colBytes, s.width);
      Value* ok = b_.create("arith.andi", {inRows, colOk}, {i1})->result();
      Value* sum = bin("arith.addi", bin("arith.muli", r, s.pitch), colBytes);
      if (first == 0) std::tie(r0, sum0, colOk0) = std::tuple(r, sum, colOk);
      prefetchAt(sum, ok);
    }
  };
  // Blocking's `per_lane`: columns not provably whole dwords (no 2D message may start there).
  if (!op.boolAttr("per_lane") && prefetchBlocks(t, cache, false)) {
    Value* guard = nullptr;
    Choice choice = surfaceChoice(t, &guard);
    if (choice == Choice::Block) {
      prefetchBlocks(t, cache);
      return;
    }
    // Where the surface breaks a rule (an edge loop, a guard's fallback arm) nothing is prefetched:
    // a prefetch is only a hint, and the per-lane lines cost registers and instructions in the
    // loop that already gathers every element (LowerXeSurface.cpp).
    if (choice == Choice::PerLane) return;
    if (choice == Choice::Guarded) {
      guardedIf(
          guard, std::nullopt, [&]() -> Value* {
            prefetchBlocks(t, cache);
            return nullptr;
          },
          []() -> Value* { return nullptr; });
      return;
    }
  }
  perLane();
}

// The 2D block stores of a store_tile (see the contract at the top), or false when its value is not
// laid out as whole store messages.
bool KernelLowerXe::storeBlocks(Operation& op, const TileState& t, const layout::LinearLayout& l,
                                const std::vector<Value*>& regs, bool emit) {
  const Type& vt = op.operand(0)->type();
  int64_t rows = vt.shape()[0], cols = vt.shape()[1], bits = ir::elemBits(vt.elem());
  const targets::BlockShape* shape = nullptr;
  for (const targets::BlockShape& s : t_.blockStores)
    if (s.elemBits == bits && s.width == S_ && s.arrayLength == 1 && rows % s.height == 0 && cols % S_ == 0 &&
        (!shape || s.height > shape->height))
      shape = &s;
  if (!shape) return false;
  int64_t h = shape->height;
  xe::Message m;
  m.elemBits = static_cast<int>(bits);
  m.width = static_cast<int>(S_);
  m.height = static_cast<int>(h);
  auto one = xe::tileLoadLayout(m, h, S_, static_cast<int>(S_));
  if (!one) return false;
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::vector<int32_t>>> blocks;
  for (auto [r0, c0] : xe::messageOrigins(rows, cols, h, S_)) {
    auto idx = gatherBlock(l, *one, r0, c0);
    if (!idx) return false;
    blocks.push_back({{r0, c0}, *idx});
  }
  if (!emit) return true;
  const Surface& s = t.surf;
  ir::AttrMap attrs{{"elem_bits", Attribute::integer(bits)}, {"block_w", Attribute::integer(S_)},
                    {"block_h", Attribute::integer(h)},       {"array_len", Attribute::integer(1)},
                    {"vnni", Attribute::boolean(false)},      {"transpose", Attribute::boolean(false)}};
  for (auto& [origin, idx] : blocks) {
    std::vector<Value*> v;
    for (int32_t i : idx) v.push_back(regs[static_cast<size_t>(i)]);
    Value* x = toI32(addC(t.offs[1], origin.second));
    Value* y = toI32(addC(t.offs[0], origin.first));
    b_.create("xe.store_2d", {s.base, s.width, s.height, s.pitch, x, y, fromElements(v, vt.elem())}, {}, attrs);
  }
  return true;
}

// 2D block prefetches of a prefetch_tile (see the contract at the top), or false when no prefetch
// shape of the table tiles it. A prefetch has no result, so any shape covering the tile will do.
bool KernelLowerXe::prefetchBlocks(const TileState& t, int64_t cache, bool emit) {
  int64_t rows = t.type.shape()[0], cols = t.type.shape()[1], bits = ir::elemBits(t.type.elem());
  const targets::BlockShape* shape = nullptr;
  for (const targets::BlockShape& s : t_.blockPrefetches)
    if (s.elemBits == bits && !s.vnni && !s.transpose && rows % s.height == 0 && cols % (s.width * s.arrayLength) == 0 &&
        (!shape || s.height > shape->height))
      shape = &s;
  if (!shape) return false;
  if (!emit) return true;
  int64_t w = shape->width, h = shape->height, blocks = shape->arrayLength;
  const Surface& s = t.surf;
  ir::AttrMap attrs{{"elem_bits", Attribute::integer(bits)}, {"block_w", Attribute::integer(w)},
                    {"block_h", Attribute::integer(h)},       {"array_len", Attribute::integer(blocks)},
                    {"vnni", Attribute::boolean(false)},      {"transpose", Attribute::boolean(false)},
                    // L1 policy; L3 always caches (the vISA emitter writes .ca.ca or .uc.ca).
                    {"cache", Attribute::enumValue("cache", cache == 4 ? "cached" : "uncached")}};
  for (auto [r0, c0] : xe::messageOrigins(rows, cols, h, w * blocks)) {
    Value* x = toI32(addC(t.offs[1], c0));
    Value* y = toI32(addC(t.offs[0], r0));
    b_.create("xe.prefetch_2d", {s.base, s.width, s.height, s.pitch, x, y}, {}, attrs);
  }
  return true;
}

void KernelLowerXe::lowerStoreTile(Operation& op) {
  const TileState& t = vals_.tile(op.operand(1), op);
  const Type& vt = op.operand(0)->type();
  const layout::LinearLayout& l = laneLayout(vt, op);
  std::vector<Value*> regs = extractAll(vals_.get1(op.operand(0), op));
  if (t.type.tileInfo().space == ir::MemSpace::Slm) return lowerSlmStore(op, t, l, regs);
  // blocking's `per_lane`: columns not provably whole dwords
  if (!op.boolAttr("per_lane") && storeBlocks(op, t, l, regs, false)) {
    // pvc: the 2D stores only where the surface keeps the rules (LowerXeSurface.cpp), as the loads;
    // the per-lane stores clip at the memref bounds, as the 2D stores at the (dense) surface's.
    Value* guard = nullptr;
    Choice choice = surfaceChoice(t, &guard);
    if (choice == Choice::Block) {
      storeBlocks(op, t, l, regs);
      return;
    }
    if (choice == Choice::Guarded) {
      guardedIf(
          guard, std::nullopt, [&]() -> Value* {
            storeBlocks(op, t, l, regs);
            return nullptr;
          },
          [&]() -> Value* {
            surfaceLaneStores(op, t, l, regs);
            return nullptr;
          });
      return;
    }
    // An edge loop's stores (a store in a versioned K loop), or a static memref that breaks a rule:
    // the branch-free stores with the option (without it, the static case keeps its form).
    if (surfaceFallback_) return surfaceLaneStores(op, t, l, regs);
  }
  if (lowerBlockWriteStore(op, t, l, regs)) return;  // dg2 row block writes (LowerXeBlockRead.cpp)
  // A store with no 2D form (an i8 tile: pvc has no d8 2D store; blocking's per_lane) is per lane
  // with or without the option; with it, in the branch-free form of the fallback's (same clipping).
  if (surfaceFallback_ && t_.kind == targets::TargetKind::Pvc) return surfaceLaneStores(op, t, l, regs);
  perLaneWrites("lane.store", t, l, regs, {}, op);
}

std::optional<std::vector<int32_t>> KernelLowerXe::gatherBlock(const layout::LinearLayout& big,
                                                               const layout::LinearLayout& one, int64_t r0, int64_t c0) {
  std::map<std::pair<int32_t, int32_t>, int32_t> at0;
  for (int32_t r = 0; r < big.inDimSize("register"); ++r) {
    auto c = big.apply(std::vector<int32_t>{r, 0});
    at0[{c[0], c[1]}] = r;
  }
  std::vector<int32_t> regs;
  for (int32_t i = 0; i < one.inDimSize("register"); ++i) {
    auto c = one.apply(std::vector<int32_t>{i, 0});
    auto it = at0.find({static_cast<int32_t>(c[0] + r0), static_cast<int32_t>(c[1] + c0)});
    if (it == at0.end()) return std::nullopt;
    for (int32_t lane = 0; lane < S_; ++lane) {
      auto cb = big.apply(std::vector<int32_t>{it->second, lane});
      auto co = one.apply(std::vector<int32_t>{i, lane});
      if (cb[0] != co[0] + r0 || cb[1] != co[1] + c0) return std::nullopt;
    }
    regs.push_back(it->second);
  }
  return regs;
}

void KernelLowerXe::lowerMma(Operation& op) {
  auto blk = xe::dpasBlockOf(op);
  if (!blk) fail(op, "the tile_mma is not blocked (run blocking first)");
  int64_t bm = (*blk)[0], bn = (*blk)[1], bk = (*blk)[2];
  const Type& at = op.operand(0)->type();
  const Type& bt = op.operand(1)->type();
  const Type& ct = op.result()->type();
  int64_t M = at.shape()[0], K = at.shape()[1], N = bt.shape()[1];
  ElemKind in = at.elem(), acc = ct.elem();
  const layout::LinearLayout& la = laneLayout(at, op);
  const layout::LinearLayout& lb = laneLayout(bt, op);
  const layout::LinearLayout& lc = laneLayout(ct, op);
  auto a1 = need(xe::dpasOperandLayout(t_, in, layout::Operand::A, bm, bk), op);
  auto b1 = need(xe::dpasOperandLayout(t_, in, layout::Operand::B, bk, bn), op);
  auto c1 = need(xe::dpasOperandLayout(t_, in, layout::Operand::C, bm, bn), op);
  // Registers of the block at (r0, c0) of a big layout, in the order of the one-block layout; every
  // lane must agree, or the operand is not in DPAS layout.
  auto gather = [&](const layout::LinearLayout& big, const layout::LinearLayout& one, int64_t r0, int64_t c0) {
    auto regs = gatherBlock(big, one, r0, c0);
    if (!regs) fail(op, "internal error: an operand is not in its DPAS layout");
    return *regs;
  };
  std::vector<Value*> A = extractAll(vals_.get1(op.operand(0), op));
  std::vector<Value*> B = extractAll(vals_.get1(op.operand(1), op));
  std::vector<Value*> C;
  if (op.numOperands() == 3) C = extractAll(vals_.get1(op.operand(2), op));
  else {
    Value* zero = pro_.constantFloat(0.0, acc);
    C.assign(static_cast<size_t>(xe::registersOf(lc)), zero);
  }
  auto pick = [&](const std::vector<Value*>& from, const std::vector<int32_t>& idx, ElemKind k) {
    std::vector<Value*> v;
    for (int32_t i : idx) v.push_back(from[static_cast<size_t>(i)]);
    return fromElements(v, k);
  };
  ir::AttrMap attrs{{"a_type", Attribute::string(std::string(ir::elemName(in)))},
                    {"b_type", Attribute::string(std::string(ir::elemName(bt.elem())))},
                    {"acc_type", Attribute::string(std::string(ir::elemName(acc)))},
                    {"m", Attribute::integer(bm)},
                    {"n", Attribute::integer(bn)},
                    {"k", Attribute::integer(bk)}};
  for (int64_t mi = 0; mi < M; mi += bm)
    for (int64_t ni = 0; ni < N; ni += bn) {
      std::vector<int32_t> cregs = gather(lc, c1, mi, ni);
      Value* cv = pick(C, cregs, acc);
      for (int64_t ki = 0; ki < K; ki += bk) {
        Value* av = pick(A, gather(la, a1, mi, ki), in);
        Value* bv = pick(B, gather(lb, b1, ki, ni), bt.elem());
        cv = b_.create("xe.dpas", {cv, av, bv}, {cv->type()}, attrs)->result();
      }
      std::vector<Value*> out = extractAll(cv);
      for (size_t i = 0; i < cregs.size(); ++i) C[static_cast<size_t>(cregs[i])] = out[i];
    }
  vals_.set(op.result(), {fromElements(C, acc)});
}

void KernelLowerXe::lowerConvert(Operation& op) {
  const Attribute* plan = op.attr("plan");
  if (!plan || !plan->isa(AttrKind::String)) fail(op, "convert_layout without a plan (run resolve-layouts first)");
  std::vector<Value*> src = extractAll(vals_.get1(op.operand(0), op));
  ElemKind k = op.result()->type().elem();
  std::vector<Value*> dst;
  if (plan->getString() == "permute") {
    for (int64_t s : op.attr("permutation")->getIntArray()) dst.push_back(src.at(static_cast<size_t>(s)));
  } else if (plan->getString() == "shuffle") {
    std::vector<int64_t> regs = op.attr("src_regs")->getIntArray(), lanes = op.attr("src_lanes")->getIntArray();
    int64_t R = static_cast<int64_t>(regs.size()) / S_;
    // Lane-dependent source registers (a transpose in registers): three phases, LowerXeTranspose.cpp.
    std::optional<std::vector<Value*>> diag = diagonalShuffles(op, src, regs, lanes, k);
    if (diag) dst = *diag;
    for (int64_t r = 0; !diag && r < R; ++r) {
      // The source lane is linear in the lane bits plus a constant (the planner's map is linear):
      // src(l) = src(0) ^ xor over set bits b of l of (src(2^b) ^ src(0)); checked for every lane.
      auto at = [&](const std::vector<int64_t>& v, int64_t l) { return v[static_cast<size_t>(r * S_ + l)]; };
      int64_t sreg = at(regs, 0);
      bool varying = false;
      for (int64_t l = 0; l < S_; ++l) varying |= at(regs, l) != sreg;
      if (varying) {  // e.g. a transpose in registers (LowerXeTranspose.cpp)
        dst.push_back(shuffleVaryingRegister(op, src, regs, lanes, r, k));
        continue;
      }
      std::vector<int64_t> row(lanes.begin() + r * S_, lanes.begin() + (r + 1) * S_);
      bool identity = true;
      for (int64_t l = 0; l < S_; ++l) identity &= row[static_cast<size_t>(l)] == l;
      if (identity) {
        dst.push_back(src.at(static_cast<size_t>(sreg)));
        continue;
      }
      Value* srcLane = laneAffine(op, row, "source lane");
      dst.push_back(b_.create("lane.shuffle", {src.at(static_cast<size_t>(sreg)), srcLane}, {Type::scalar(k)})->result());
    }
  } else {
    fail(op, fmt::format("unknown conversion plan '{}'", plan->getString()));
  }
  vals_.set(op.result(), {fromElements(dst, k)});
}

void KernelLowerXe::lowerElementwise(Operation& op) {
  std::vector<Value*> operands;
  for (Value* v : op.operands()) operands.push_back(vals_.get1(v, op));
  std::vector<Type> results;
  for (Value* r : op.results()) {
    if (r->type().isTile()) fail(op, fmt::format("'{}' on tiles is not supported", op.name()));
    results.push_back(r->type().isVector() ? laneType(r->type(), op) : r->type());
  }
  for (Value* v : op.operands())
    if (v->type().isVector() && op.numResults() == 1 && op.result()->type().isVector() &&
        ir::vectorLinearLayout(v->type()) && *ir::vectorLinearLayout(v->type()) != laneLayout(op.result()->type(), op))
      fail(op, "internal error: element-wise operands in different layouts");
  ir::AttrMap attrs = op.attrs();
  if (op.is("arith.constant") && op.result()->type().isVector()) {
    const Attribute& v = *op.attr("value");
    if (v.kind() != AttrKind::Dense || !v.isSplat()) fail(op, "non-splat vector constants are not implemented yet");
    attrs["value"] = v.denseIsFloat() ? Attribute::denseFloat(results[0], v.denseFloats())
                                      : Attribute::denseInt(results[0], v.denseInts());
  }
  // No bf16 ALU on pvc/dg2 either: bf16 arithmetic runs in f32, one rounding per op (Bf16Arith.h).
  std::vector<Value*> rs = createElementwise(b_, op, operands, results, attrs);
  for (unsigned i = 0; i < op.numResults(); ++i) vals_.set(op.result(i), {rs[i]});
}

void KernelLowerXe::lowerFor(Operation& op) {
  // What the loop keeps live (RegisterBudget.h), estimated on the blocked tile-level loop.
  LoopRegisters est = estimateLoopRegisters(op, t_, false);
  if (auto it = topEpilogue_.find(&op); it != topEpilogue_.end()) est.epilogue = it->second;
  // The worst loop by its own estimate (the warning names it); the file choice also covers the
  // largest epilogue of any loop.
  int64_t epilogue = std::max(worstLoopRegs_.epilogue, est.epilogue);
  if (!worstLoop_ || est.total() > worstLoopRegs_.total()) {
    worstLoopRegs_ = est;
    worstLoop_ = &op;
  }
  worstLoopRegs_.epilogue = epilogue;
  // dg2: a loop walking tiles that block reads can read becomes an interior and an edge loop; pvc:
  // one whose 2D messages' surfaces only the run time can check (LowerXeSurface.cpp).
  if (lowerForVersioned(op) || lowerForSurfaces(op)) return;
  vals_.rebuildFor(op, b_, [this](ir::Block& body) { lowerBlock(body); });
}

void KernelLowerXe::lowerIf(Operation& op) {
  // A yielded tile becomes its offsets; its surface (base, width, height, pitch) is taken from the
  // first branch, so every branch must yield a tile of that same surface (defined before the if).
  vals_.rebuildIf(
      op, b_, [&](Value* r) { return std::vector<Type>{r->type().isVector() ? laneType(r->type(), op) : r->type()}; },
      [this](ir::Block& body) { lowerBlock(body); });
  for (Value* r : op.results()) {
    if (!r->type().isTile()) continue;
    const Surface* first = nullptr;
    for (unsigned i = 0; i < op.numRegions(); ++i) {
      if (op.region(i).empty()) continue;
      const Surface& s = vals_.tile(op.region(i).block().terminator()->operand(r->index()), op).surf;
      if (!first) first = &s;
      else if (s.base != first->base || s.width != first->width || s.height != first->height || s.pitch != first->pitch)
        fail(op, "the branches of this scf.if yield tiles of different surfaces (init_tile inside a branch); not "
                 "implemented yet");
    }
  }
}

void KernelLowerXe::lowerOp(Operation& op) {
  b_.setLoc(op.loc());
  pro_.setLoc(op.loc());
  const std::string& n = op.name();
  if (n == "tile.init_tile") return lowerInitTile(op);
  if (n == "tile.update_tile_offset") return lowerUpdateOffset(op);
  if (n == "tile.load_tile") return lowerLoadTile(op);
  if (n == "tile.store_tile") return lowerStoreTile(op);
  if (n == "tile.atomic_rmw") return lowerAtomic(op);
  if (n == "tile.tile_mma") return op.hasAttr("fma") ? lowerFmaMma(op) : lowerMma(op);
  if (n == "tile.reduction") return lowerReduction(op);
  if (n == "tile.broadcast") return lowerBroadcast(op);
  if (n == "tile.convert_layout") return lowerConvert(op);
  if (n == "tile.transpose") return lowerTranspose(op);
  if (n == "tile.prefetch_tile") return lowerPrefetch(op);
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
  if (n == "memref.slice") return lowerMemRefSlice(op);
  if (op.dialect() == "tile") fail(op, fmt::format("'{}' is not implemented yet on pvc/dg2", n));
  if (op.numRegions() != 0) fail(op, fmt::format("'{}' with regions is not supported", n));
  if (op.is("gpu.slm_alloc")) return lowerSlmAlloc(op);
  lowerElementwise(op);
}

Value* KernelLowerXe::prologueValue(Value* v, const Operation& user) {
  if (auto it = prologueValues_.find(v); it != prologueValues_.end()) return it->second;
  if (v->isBlockArgument() && v->ownerBlock() == &ir::kernelBody(kernel_)) return vals_.get1(v, user);  // a parameter
  Operation* def = v->definingOp();
  if (!def || def->numRegions() != 0 || !(def->dialect() == "arith" || def->dialect() == "gpu" || def->is("memref.dim")))
    fail(user, "internal error: a batch index lower-xe cannot compute in the prologue (batch-slice takes only those)");
  std::vector<Value*> operands;
  for (Value* o : def->operands()) operands.push_back(prologueValue(o, user));
  std::vector<Type> types;
  for (Value* r : def->results()) types.push_back(r->type());
  Operation* copy = pro_.create(def->name(), operands, types, def->attrs());
  return prologueValues_[v] = copy->result(v->index());
}

void KernelLowerXe::lowerMemRefSlice(Operation& op) {
  // In the prologue, once per (memref, index): the surfaces, bases and dims lower-xe builds there
  // per memref (surfaceRule, baseAddress, memDims_) then refer to a value defined before them.
  Value* mem = vals_.get1(op.operand(0), op);
  Value* index = prologueValue(op.operand(1), op);
  Value*& slice = slices_[{mem, index}];
  if (!slice) slice = pro_.create("memref.slice", {mem, index}, {op.result()->type()}, op.attrs())->result();
  slice->setNameHint(op.result()->nameHint());
  vals_.set(op.result(), {slice});
}

void KernelLowerXe::lowerBlock(ir::Block& from) {
  for (auto& op : from.opList()) lowerOp(*op);
}

void KernelLowerXe::markViewOnlyMemRefs(ir::Block& body, const std::vector<std::unique_ptr<Operation>>& ops) {
  // A memref parameter whose every global init_tile is a view (not clamped) has no 2D message on its
  // own surface: each view checks its rules in the kernel (LowerXeSurface.cpp), so the stub need not
  // check the memref's row pitch and width, which say nothing about the views (a buffer of M rows of
  // lda elements, lda = K + 1; docs/stubs.md). Any other use as an init_tile (or a transposed view)
  // keeps the check. `view_memrefs` lists the parameter indices; absent when there is none.
  std::map<const Value*, bool> viewOnly;
  std::function<void(Operation&)> visit = [&](Operation& op) {
    bool init = op.is("tile.init_tile") && op.numOperands() > 0 && op.operand(0)->type().isMemRef();
    if (init || op.is("memref.transpose")) {
      Value* m = op.operand(0);
      const Attribute* seg = op.attr("segments");
      bool view = init && op.result()->type().tileInfo().space == ir::MemSpace::Global && !denseInit(op) &&
                  !isClampedInit(op) && seg && seg->getIntArray().at(1) == 2 && m->type().strides().empty();
      auto [it, fresh] = viewOnly.try_emplace(m, view);
      if (!fresh) it->second = it->second && view;
    }
    for (unsigned r = 0; r < op.numRegions(); ++r)
      for (unsigned b = 0; b < op.region(r).numBlocks(); ++b)
        for (auto& o : op.region(r).block(b).opList()) visit(*o);
  };
  for (auto& op : ops) visit(*op);
  std::vector<int64_t> params;
  for (unsigned i = 0; i < body.numArguments(); ++i)
    if (auto it = viewOnly.find(body.argument(i)); it != viewOnly.end() && it->second) params.push_back(i);
  if (!params.empty()) kernel_->setAttr("view_memrefs", Attribute::intArray(params));
}

void KernelLowerXe::run() {
  ir::registerXeOps();
  ir::Block& body = ir::kernelBody(kernel_);
  std::vector<std::unique_ptr<Operation>> old;
  // The epilogues of the body's loops are measured while the ops after them are still in the block.
  for (Operation* op : body.opsSnapshot())
    if (op->is("scf.for")) topEpilogue_[op] = estimateEpilogueRegisters(*op, t_, false);
  for (Operation* op : body.opsSnapshot()) old.push_back(op->remove());
  for (auto& op : old) sliceBarrier_ = sliceBarrier_ || (op->is("scf.for") && op->hasAttr("split") && holdsBarrier(*op));
  for (Value* a : body.arguments()) vals_.set(a, {a});
  // The launcher stub leaves the pitch and width rules to such a kernel (docs/stubs.md).
  if (surfaceFallback_ && t_.kind == targets::TargetKind::Pvc) kernel_->setAttr("surface_fallback", Attribute::boolean(true));
  if (t_.kind == targets::TargetKind::Pvc) markViewOnlyMemRefs(body, old);
  b_.setInsertionPointToEnd(&body);
  b_.setLoc(kernel_->loc());
  laneId_ = b_.create("gpu.lane_id", {}, {Type::index()})->result();
  laneId_->setNameHint("lane");
  // Prologue values (constants, lane-derived indices, surfaces) go before this anchor, which is not
  // itself a cached constant (a prologue op may not use it) and is erased at the end.
  Operation* anchor = b_.constantIndex(0)->definingOp();
  pro_.setInsertionPoint(anchor);
  pro_.setLoc(kernel_->loc());
  struct Cleanup {
    std::vector<std::unique_ptr<Operation>>& ops;
    ~Cleanup() {
      for (auto& o : ops) o->dropAllReferences();
      ops.clear();
    }
  } cleanup{old};
  BudgetPeak straightLine = straightLineRegisters(old, t_, false);
  for (auto& op : old) lowerOp(*op);
  mergeBlockGuards(body);  // dg2 (LowerXeBlockRead.cpp); before the anchor goes: it adds constants
  anchor->erase();

  int64_t nsg = kernel_->intAttr("num_subgroups", 1);
  if (nsg < 1) fail(*kernel_, "`num_subgroups` must be at least 1");
  kernel_->setAttr("sg_size", Attribute::integer(S_));
  kernel_->setAttr("wg_size", Attribute::intArray({nsg * S_, 1, 1}));
  kernel_->setAttr("target", Attribute::string(t_.name));
  // The large register file when the worst loop does not fit the default one (reference §7/§11: a
  // 32x64 f32 accumulator spills in 128), a warning when it does not fit the large one either.
  applyRegisterBudget(kernel_, worstLoop_, worstLoopRegs_, straightLine, t_, diags_, "lower-xe");
}

}  // namespace lowerxe

namespace {
using namespace lowerxe;

class LowerXePass : public Pass {
public:
  std::string name() const override { return "lower-xe"; }
  std::string description() const override {
    return "pvc/dg2: blocked, layout-resolved tile IR -> lane-level IR with xe.* hardware ops";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target || !ctx.target->hasDpas) {
      ctx.diags.error(module->loc(), "lower-xe: needs a target with DPAS (pvc or dg2)");
      return false;
    }
    bool ok = true;
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered (lane-level input)
      try {
        KernelLowerXe(k, *ctx.target, ctx.diags, ctx.inlineVisa, ctx.surfaceFallback).run();
      } catch (const LowerError&) {
        ok = false;
      }
    }
    return ok;
  }
};

}  // namespace

void registerLowerXePass() {
  registerPass("lower-xe", [] { return std::make_unique<LowerXePass>(); });
}

}  // namespace xtc::passes
