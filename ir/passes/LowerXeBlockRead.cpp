// lower-xe, dg2 tile loads through subgroup block reads. dg2 has no 2D block messages (reference §2),
// so blocking marks its global tile loads `per_lane`; one lane.load per register is one gather
// message per register. When the lane layout puts S consecutive slots of a row in the S lanes (lane j
// = columns c + q j .. c + q j + q - 1 of a row: the DPAS A layout with q = 2 for 16-bit data and
// q = 4 for 8-bit data, the DPAS B and C layouts and the row-major f32 layouts with q = 1), each row's
// registers are whole slots of one contiguous run of memory: xe.block_read (elem_bits = 32 for q > 1)
// reads up to 8 slot registers of a row (16 of 8-bit slots) in one oword block message
// (tests/isa/builtins/block_read_dg2_global_d{8,16,32}.ir, block_io_dg2_global_f32.ir).
//
// The oword block read has no bounds check and ignores the low four address bits, so it is legal only
// when the whole tile is inside the memref and every message starts 16-byte aligned, which is known
// only at run time (the memref's base and row pitch, the tile's offsets). Two forms:
//  - a loop (the K loop) whose such loads read loop-carried tiles that the yield advances by
//    constant offsets is versioned (lowerForVersioned): before it, the number of leading iterations
//    in which every such tile is inside its memref and aligned (closed form: the offsets are affine
//    in the iteration) splits it into an interior loop, where these loads are block reads with no
//    guard, and an edge loop over the rest, where they are the per-lane loads (zero fill, any
//    alignment). No fallback code stays in the hot loop; the edge loop runs the last iterations
//    when K is not a multiple of the step, and the whole K range in workgroups whose tiles cross the
//    M or N edge (or with a misaligned memref); a loop with a barrier only where the IR proves the
//    interior count the same in the whole workgroup (staticInterior);
//  - any other such load becomes a subgroup-uniform scf.if (tile inside && aligned) -> block reads,
//    else the per-lane loads; in a kernel without a loop whose rest is memory ops, plain
//    arithmetic and f32 exp/division/add-max lane reductions, the guards become one
//    (mergeBlockGuards: no scf.if results to copy into).
// Both conditions are subgroup-uniform (no lane id in them), so the convergent block read runs with
// every lane. The base/pitch alignment is computed once per memref in the prologue. Message start
// columns (relative to the tile) must be multiples of 16 bytes, checked here; a layout that does not
// split into such messages keeps the per-lane loads alone. A kernel whose K loop split-accumulators
// cut into slice loops (`split_loops`) gets one interior/edge pair per slice loop, each with its own
// interior count: the slices' M/N offsets differ, so a slice inside the matrix keeps its block reads
// when another slice of the subgroup crosses the edge.
#include "ir/passes/LowerXeKernel.h"

#include "ir/OpRegistry.h"
#include "ir/passes/IndexBounds.h"

#include <algorithm>
#include <functional>
#include <set>

namespace xtc::passes::lowerxe {

namespace {

// The guard builders' small pieces (compactCondition, rangeCondition, lowerForVersioned).
Value* binary(ir::Builder& b, const char* name, Value* x, Value* y) { return b.create(name, {x, y}, {x->type()})->result(); }
Value* convertI32(ir::Builder& b, Value* v) { return b.create("arith.convert", {v}, {Type::scalar(ElemKind::I32)})->result(); }
// The OR of the distinct values (null for none).
Value* orDistinct(ir::Builder& b, const std::vector<Value*>& vs) {
  Value* r = nullptr;
  std::set<Value*> seen;
  for (Value* v : vs)
    if (seen.insert(v).second) r = r ? binary(b, "arith.ori", r, v) : v;
  return r;
}
std::optional<int64_t> intConstant(const Value* v) {
  const Operation* d = v->definingOp();
  const Attribute* a = d && d->is("arith.constant") ? d->attr("value") : nullptr;
  return a && a->isa(AttrKind::Int) ? std::optional<int64_t>(a->getInt()) : std::nullopt;
}
// g and k when `v` is gpu.group_id * 2^k (either operand order, k <= 30; g itself: k = 0).
std::optional<std::pair<Value*, int>> groupIdTimesPowerOfTwo(Value* v) {
  Operation* d = v->definingOp();
  if (d && d->is("gpu.group_id")) return std::pair<Value*, int>{v, 0};
  if (!d || !d->is("arith.muli")) return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    Operation* g = d->operand(i)->definingOp();
    std::optional<int64_t> m = intConstant(d->operand(1 - i));
    if (!g || !g->is("gpu.group_id") || !m) continue;
    for (int k = 0; k <= 30; ++k)
      if (*m == int64_t(1) << k) return std::pair<Value*, int>{d->operand(i), k};
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<KernelLowerXe::RowRead>> KernelLowerXe::planRowReads(const layout::LinearLayout& l, ElemKind ek) {
  // 16-bit data (f16/bf16 GEMM operands): 16-bit slots of one element or 32-bit slots of two
  // (elem_bits = 32); 32-bit data (f32, i32): 32-bit slots of one element; 8-bit data (i8 GEMM
  // operands): 8-bit slots of one element (the uchar reads, 2 to 16 slots: one slot is 8 bytes, no
  // oword message) or 32-bit slots of four (the A rows). All proven (docs/hardware.md); 64-bit data
  // needs other builtins (not probed).
  int64_t bits = ir::elemBits(ek);
  if (bits != 8 && bits != 16 && bits != 32) return std::nullopt;
  // The lane part must be (0, q j): the slot width q from lane 1, checked for every lane bit.
  int lb = l.inDimBits("lane");
  if ((int64_t(1) << lb) != S_ || lb == 0) return std::nullopt;
  int64_t q = l.basis("lane", 0)[1];
  if (q != 1 && q * bits != 32) return std::nullopt;
  for (int b = 0; b < lb; ++b)
    if (l.basis("lane", b) != std::vector<int32_t>{0, static_cast<int32_t>(q << b)}) return std::nullopt;
  // Lane 0's element of every register, by (row, column).
  std::map<std::pair<int64_t, int64_t>, int64_t> at;
  int64_t regs = xe::registersOf(l);
  for (int64_t r = 0; r < regs; ++r) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r), 0});
    at[{c[0], c[1]}] = r;
  }
  // Per row from the left: a message starts at the first column not yet read and takes as many whole
  // slots (q registers each, S q columns apart) as are there, a power of two of at most 8 (16 of
  // 8-bit slots), at least 2 of 8-bit slots (a whole oword).
  std::vector<RowRead> plan;
  int64_t eb = bits / 8, run = S_ * q;
  int64_t minSlots = q * bits == 8 ? 2 : 1, maxSlots = q * bits == 8 ? 16 : 8;
  while (!at.empty()) {
    auto [row, col] = at.begin()->first;
    if ((col * eb) % 16 != 0) return std::nullopt;
    auto slotRegs = [&](int64_t i) -> std::optional<std::vector<int64_t>> {
      std::vector<int64_t> rs;
      for (int64_t s = 0; s < q; ++s) {
        auto it = at.find({row, col + i * run + s});
        if (it == at.end()) return std::nullopt;
        rs.push_back(it->second);
      }
      return rs;
    };
    int64_t n = 0;
    while (n < maxSlots && slotRegs(n)) ++n;
    while (n & (n - 1)) --n;  // the forms: 1, 2, 4, 8 (16) slots
    if (n < minSlots) return std::nullopt;
    RowRead m{row, col, q, n, {}};
    for (int64_t i = 0; i < n * q; ++i) {
      auto it = at.find({row, col + i / q * run + i % q});
      m.regs.push_back(it->second);
      at.erase(it);
    }
    plan.push_back(std::move(m));
  }
  return plan;
}

std::optional<std::vector<KernelLowerXe::RowRead>> KernelLowerXe::planLaneReads(const layout::LinearLayout& l, ElemKind ek) {
  // 32-bit data in dwords, 16-bit data in pairs and 8-bit data in quadruples (elem_bits = 32: the
  // same dword loads, unpacked; an i8 B^T's quadruples are the i8 DPAS's VNNI B dwords): the probed
  // untyped surface reads of 1, 2, 4 or 8 dwords per lane (tests/isa/builtins/lane_read_dg2_{f32,d8}.ir;
  // d8 = 8 dwords). Registers 0 .. 2^b - 1 must be
  // columns 0 .. 2^b - 1 of the lane's row (bases (0, 1), (0, 2), ...) and every other register and
  // lane basis must leave those column bits alone, so each aligned run of 2^b registers is 2^b
  // consecutive elements of one row in every lane.
  int64_t bits = ir::elemBits(ek);
  if (bits != 8 && bits != 16 && bits != 32) return std::nullopt;
  int64_t P = 32 / bits;
  int rb = l.inDimBits("register"), b = 0;
  while (b < rb && l.basis("register", b) == std::vector<int32_t>{0, int32_t(1) << b}) ++b;
  int64_t run = int64_t(1) << b;
  if (run < P) return std::nullopt;
  auto clear = [&](const std::vector<int32_t>& v) { return (v[1] & (run - 1)) == 0; };
  for (int i = b; i < rb; ++i)
    if (!clear(l.basis("register", i))) return std::nullopt;
  for (int i = 0; i < l.inDimBits("lane"); ++i)
    if (!clear(l.basis("lane", i))) return std::nullopt;
  // Elements per load: at most 8 dwords, which IGC sends as two `xyzw` reads into one 8-register
  // variable; as two 4-dword loads it copied every register of a DPAS B^T operand (RFC 2.3 1342 ->
  // 1022 instructions per K step on dg2, measured on hand-edited LLVM).
  int64_t per = std::min(run, 8 * P);
  std::vector<RowRead> plan;
  for (int64_t r0 = 0; r0 < xe::registersOf(l); r0 += per) {
    std::vector<int32_t> c = l.apply(std::vector<int32_t>{static_cast<int32_t>(r0), 0});
    RowRead m{c[0], c[1], P, per / P, {}, true};
    for (int64_t i = 0; i < per; ++i) m.regs.push_back(r0 + i);
    plan.push_back(std::move(m));
  }
  return plan;
}

Value* KernelLowerXe::surfaceLowBits(const TileState& t) {
  // (base | row pitch in bytes) & 15, once per memref in the prologue (loop-invariant).
  auto it = surfaceLowBits_.find(t.mem);
  if (it != surfaceLowBits_.end()) return it->second;
  int64_t eb = ir::elemBits(t.type.elem()) / 8;
  Type idx = Type::index();
  Value* base = pro_.create("arith.convert", {t.surf.base}, {idx})->result();
  Value* cols = pro_.create("memref.dim", {t.mem}, {idx}, {{"index", Attribute::integer(1)}})->result();
  Value* pitch = pro_.create("arith.muli", {cols, cIndex(eb)}, {idx})->result();
  return surfaceLowBits_[t.mem] = pro_.create("arith.andi", {pro_.create("arith.ori", {base, pitch}, {idx})->result(), cIndex(15)}, {idx})->result();
}

Value* KernelLowerXe::alignedSurface(const TileState& t) {
  auto it = alignedSurface_.find(t.mem);
  if (it != alignedSurface_.end()) return it->second;
  Value* low = surfaceLowBits(t);
  Value* ok = pro_.create("arith.cmpi", {low, cIndex(0)}, {Type::scalar(ElemKind::I1)}, {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
  return alignedSurface_[t.mem] = ok;
}

std::optional<std::vector<KernelLowerXe::RowRead>> KernelLowerXe::readPlan(const TileState& t, const Type& rt, const Operation& op) {
  const Type& mt = t.mem->type();
  if (t_.kind != targets::TargetKind::Dg2 || !t.denseSurface || mt.rank() != 2 || !mt.strides().empty() ||
      mt.memSpace() != ir::MemSpace::Global)
    return std::nullopt;
  const layout::LinearLayout& l = laneLayout(rt, op);
  if (std::optional<std::vector<RowRead>> rows = planRowReads(l, rt.elem())) return rows;
  return planLaneReads(l, rt.elem());
}

Value* KernelLowerXe::rowReads(const TileState& t, const Type& rt, const std::vector<RowRead>& plan, const Operation& op) {
  ElemKind ek = rt.elem();
  std::vector<Value*> regs(static_cast<size_t>(laneType(rt, op).shape()[0]), nullptr);
  for (const RowRead& m : plan) {
    // Slots of two 16-bit elements are the 32-bit form (elem_bits = 32, ir/ops/XeOps.h).
    ir::AttrMap attrs;
    if (m.q > 1) attrs["elem_bits"] = Attribute::integer(m.q * ir::elemBits(ek));
    Value* v = nullptr;
    if (m.perLane) {
      // The lane's own row and column: the register part, the lane part (prologue values), the tile's offsets.
      std::vector<Value*> lane = laneCoords(laneLayout(rt, op), op);
      Value* row = add(t.offs[0], addC(lane[0], m.row));
      Value* col = add(t.offs[1], addC(lane[1], m.col));
      v = b_.create("xe.lane_read", {t.mem, row, col}, {Type::vector({m.n * m.q}, ek)}, attrs)->result();
    } else {
      v = b_.create("xe.block_read", {t.mem, addC(t.offs[0], m.row), addC(t.offs[1], m.col)}, {Type::vector({m.n * m.q}, ek)}, attrs)
              ->result();
    }
    std::vector<Value*> e = extractAll(v);
    for (size_t i = 0; i < e.size(); ++i) regs[static_cast<size_t>(m.regs[i])] = e[i];
  }
  return fromElements(regs, ek);
}

Value* KernelLowerXe::blockGuard(const TileState& t, const Type& vt) {
  // Rows [r0, r0 + R) and columns [c0, c0 + C) inside the memref (unsigned: a "negative" offset fails
  // r0 < rows), the column offset a multiple of 16 bytes, base and pitch aligned.
  int64_t eb = ir::elemBits(vt.elem()) / 8;
  Type idx = Type::index();
  auto cmp = [&](const char* pred, Value* a, Value* b) { return cmpIndex(pred, a, b); };
  auto both = [&](Value* a, Value* b) { return andI1(a, b); };
  Value* ok = alignedSurface(t);
  for (int d = 0; d < 2; ++d) {
    Value* dim = b_.create("memref.dim", {t.mem}, {idx}, {{"index", Attribute::integer(d)}})->result();
    ok = both(ok, both(cmp("ult", t.offs[d], dim), cmp("ule", addC(t.offs[d], vt.shape()[d]), dim)));
  }
  Value* low = b_.create("arith.andi", {t.offs[1], cIndex(16 / eb - 1)}, {idx})->result();
  return both(ok, cmp("eq", low, cIndex(0)));
}

Value* KernelLowerXe::compactGuard(const TileState& t, const Type& vt) {
  // Rows [r0, r0 + R) and columns [c0, c0 + C) inside the memref, the column offset a multiple of 16
  // bytes, base and pitch aligned: one compare, bits == 0, where bits ORs (compactCondition)
  //  - the low bits of base | pitch (surfaceLowBits) and of the column offset's bytes, as
  //    xe.oword_align_bits: the oword messages' alignment, which a backend moving the block path by
  //    LSC messages (element-aligned: dg2's block statement, Dg2VisaBlock.h) takes as 0;
  //  - a test that r0 and c0 are below 2^30 (a "negative" one fails it), so the ends r0 + R and
  //    c0 + C (tile sizes, far below 2^30) are exact in 32 bits and below 2^31;
  //  - per dimension the sign bit of i32(size) - i32(end). It is clear only when end <= size: where
  //    the size's low 32 bits are below the end, the difference wraps to 2^31 or more (the end is
  //    below 2^31); where they are not, end <= size mod 2^32 <= size. A size whose low half is below
  //    the end but which is larger (2^32 rows or more) takes the per-lane arm: correct, slower.
  //    end <= size also gives r0 < size (R >= 1).
  // On dg2 every 64-bit unsigned compare is 3 `cmp`s, and the conjunction of a compare per check
  // moved flags through GRFs: with the guards merged (mergeBlockGuards, which builds one such
  // compare from every guard's parts) sg_bias_relu's block path 197 -> 189 instructions, bias_relu
  // 216 -> 206, transpose 190 -> 180. Which guards take it is mergeBlockGuards' choice (softmax's
  // compact load guards spilled: 38 spills, measured).
  int64_t eb = ir::elemBits(vt.elem()) / 8;
  Type idx = Type::index();
  auto op = [&](const char* name, Value* a, Value* b) { return b_.create(name, {a, b}, {a->type()})->result(); };
  // i32(a + b) as i32(a) + i32(b) (equal mod 2^32): the guard then reads no 64-bit sum of offsets,
  // which mergeBlockGuards sinks into the arms when nothing else before them reads it (bias_relu's
  // row 16 g0 + 8 sg: its high half, IGC's `addc` carry and a shift and an add, was computed above the
  // branch for the per-lane arm alone; 129 -> 126 on the block path).
  std::function<Value*(Value*)> i32Of = [&](Value* v) -> Value* {
    Operation* d = v->definingOp();
    if (d && d->is("arith.addi") && v->type().elem() == ElemKind::Index)
      return op("arith.addi", i32Of(d->operand(0)), i32Of(d->operand(1)));
    return toI32(v);
  };
  CompactParts parts;
  Value* low = op("arith.ori", surfaceLowBits(t), op("arith.andi", t.offs[1], cIndex(16 / eb - 1)));
  parts.align = b_.create("xe.oword_align_bits", {low}, {idx})->result();
  for (int d = 0; d < 2; ++d) {
    parts.offsets.push_back(t.offs[d]);
    parts.units.push_back(vt.shape()[1 - d] * eb);
    Value* dim = b_.create("memref.dim", {t.mem}, {idx}, {{"index", Attribute::integer(d)}})->result();
    Value* end = op("arith.addi", i32Of(t.offs[d]), pro_.constantInt(vt.shape()[d], ElemKind::I32));
    parts.diffs.push_back(op("arith.subi", toI32(dim), end));
  }
  compactParts_.push_back(parts);
  return compactCondition(b_, {&compactParts_.back()});
}

Value* KernelLowerXe::rangeCondition(ir::Builder& b, const std::vector<const CompactParts*>& parts) {
  // The merged guard as ONE unsigned compare of 32-bit bits, X < 2^s, where X ORs
  //  - the ORed differences shifted right by 31 - s: below 2^s iff their OR's sign bit is clear, i.e.
  //    iff every difference's is (the ends exact as below, compactGuard's sign argument);
  //  - the group id g of every offset g * 2^k + c (k <= 30, c a constant or an index whose range
  //    IndexBounds proves inside [0, 2^k)): below 2^s iff every such g's low half is;
  //  - the low half of every other offset (plain: bias_relu's bias row 0 is a constant, so none there).
  // With the high halves of those g and plain offsets and the alignment bits tested == 0 apart (their
  // OR, one more compare: a group id's high half is 0 to IGC, the bits 0 in a block statement, so it
  // folds away where it matters), the compare gives every g < 2^s and plain offset < 2^s, so with
  // s = 30 - (the largest k) every offset is below 2^(s + k) <= 2^30: the ends exact in 32 bits and
  // below 2^31, as compactCondition's form needs. Against that form (g >> (30 - k) == 0 per k, the
  // sign bit >> 31, the ORs == 0) this drops the shifts of the group ids (one per distinct k) and
  // folds the sign's shift into the compare's range: sg_bias_relu, bias_relu and transpose's block
  // paths 2 instructions fewer each (docs/performance.md).
  // It narrows what is promised: g < 2^s where compactCondition took g < 2^(30 - k), the plain offsets
  // below 2^s where it took 2^30. Only tiles that cannot be inside a memref under the 4 GiB ABI
  // (docs/abi.md: all of a memref's elements in one allocation below 4 GiB) fall outside: an inside
  // tile's last element is at least offset x unit bytes from the base and below 2^32 (units:
  // CompactParts), so an offset the range drops, at least 2^(s + k) (plain: 2^s), is impossible when
  // 2^(s + k) x unit >= 2^32. That is checked for every offset; where it fails (8x32 f32 tiles at rows
  // g0 and columns 64 g1: s = 24, and 2^24 rows of 128 bytes are 2^31) the guard keeps
  // compactCondition's form. tests/unit/passes/MergedGuardTest.cpp checks both directions against the
  // tiles' exact bounds, and "inside" for every inside tile of memrefs below 4 GiB.
  auto op = [&](const char* name, Value* x, Value* y) { return binary(b, name, x, y); };
  auto i32 = [&](Value* v) { return convertI32(b, v); };
  auto orAll = [&](const std::vector<Value*>& vs) { return orDistinct(b, vs); };
  auto constOf = [](Value* v) { return intConstant(v); };
  auto scaled = [](Value* v) { return groupIdTimesPowerOfTwo(v); };
  // ... or g * 2^k + c with c in [0, 2^k): then v < 2^(s + k) iff g < 2^s (and no wrap in 64 bits
  // while g is below 2^32, which the high half's test gives). bias_relu's row 16 g0 + 8 sg (sg < 2).
  auto groupTerm = [&](Value* v) -> std::optional<std::pair<Value*, int>> {
    if (auto gk = scaled(v)) return gk;
    Operation* d = v->definingOp();
    if (!d || !d->is("arith.addi")) return std::nullopt;
    for (unsigned i = 0; i < 2; ++i) {
      std::optional<std::pair<Value*, int>> gk = scaled(d->operand(i));
      std::optional<IndexRange> c = indexRange(d->operand(1 - i));
      if (gk && c && c->lo >= 0 && c->hi < (int64_t(1) << gk->second)) return gk;
    }
    return std::nullopt;
  };
  struct Term {
    Value* offset;
    std::optional<std::pair<Value*, int>> gk;
    int64_t unit;
  };
  std::vector<Term> terms;
  std::vector<Value*> aligns, diffs;
  int kmax = 0;
  for (const CompactParts* p : parts) {
    if (p->units.size() != p->offsets.size()) return nullptr;
    aligns.push_back(p->align);
    diffs.insert(diffs.end(), p->diffs.begin(), p->diffs.end());
    for (size_t i = 0; i < p->offsets.size(); ++i) {
      Term t{p->offsets[i], groupTerm(p->offsets[i]), p->units[i]};
      if (t.gk) kmax = std::max(kmax, t.gk->second);
      terms.push_back(t);
    }
  }
  int s = 30 - kmax;
  for (const Term& t : terms) {
    // A constant offset is its own range: nothing to test (c < 2^s) or no such guard (else).
    if (std::optional<int64_t> c = constOf(t.offset); c && !t.gk) {
      if (*c < 0 || *c >= (int64_t(1) << s)) return nullptr;
      continue;
    }
    int e = s + (t.gk ? t.gk->second : 0);  // the smallest offset the range drops is 2^e
    if (t.unit < (int64_t(1) << (32 - e))) return nullptr;
  }
  std::vector<Value*> low, wide;
  for (const Term& t : terms) {
    if (!t.gk && constOf(t.offset)) continue;
    Value* v = t.gk ? t.gk->first : t.offset;
    low.push_back(v);
    wide.push_back(v);
  }
  // X, in the order the compare reads best: the sign part first.
  Value* x = op("arith.shrui", orAll(diffs), pro_.constantInt(31 - s, ElemKind::I32));
  std::set<Value*> seen;
  for (Value* v : low)
    if (seen.insert(v).second) x = op("arith.ori", x, i32(v));
  Value* h = i32(orAll(aligns));
  if (Value* w = orAll(wide)) h = op("arith.ori", h, i32(op("arith.shrui", w, cIndex(32))));
  auto cmp = [&](const char* pred, Value* a, Value* c) {
    return b.create("arith.cmpi", {a, c}, {Type::scalar(ElemKind::I1)}, {{"predicate", Attribute::enumValue("cmpi", pred)}})->result();
  };
  Value* inRange = cmp("ult", x, pro_.constantInt(int64_t(1) << s, ElemKind::I32));
  return b.create("arith.andi", {inRange, cmp("eq", h, pro_.constantInt(0, ElemKind::I32))}, {Type::scalar(ElemKind::I1)})->result();
}

Value* KernelLowerXe::compactCondition(ir::Builder& b, const std::vector<const CompactParts*>& parts) {
  // One compare for any number of compact guards (one guard's, or every merged guard's: their
  // conjunction). Each check only asks for some bits to be 0, so ORing the checks' bits keeps the
  // conjunction exact; a false "inside" would run unguarded block messages out of bounds. The
  // parts of all guards are ORed before their shifts:
  //  - every guard's alignment bits are 0 iff their OR is; they are below 16 (4 bits of surfaceLowBits
  //    or of the column's bytes), so the i32 conversion keeps them;
  //  - every offset is below 2^30 iff the OR O of the offsets is (each offset's set bits are O's, and
  //    an OR of values below 2^30 is below 2^30), iff the low half of O shifted right by 30 and the
  //    high half of O are 0: one 32-bit shift for all tiles (an i64 shift is several 32-bit
  //    instructions on dg2);
  //  - an offset g * 2^k (k <= 30) of a group id g stays out of O and is tested on g: g >> (30 - k)
  //    == 0 iff its low half is 0 and g's high half is 0 (a shift by 30 - k <= 30 moves no bit of
  //    the high half into the low one). Then g < 2^(30 - k), so g * 2^k does not wrap and is below
  //    2^30; conversely g * 2^k < 2^30 without a wrap gives g < 2^(30 - k) (a wrapped product only
  //    makes a false "outside"). IGC knows a group id is a 32-bit payload field: one `shr` per such
  //    offset and nothing for its high half, where the 64-bit product's high half cost a `shr`, an
  //    OR and a shift (sg_bias_relu 127 -> 125 on the block path, transpose 133 -> 131, measured);
  //  - the high halves of O and of every such g are 0 iff the high half of their OR is: one shift;
  //  - every difference's sign bit is clear iff the sign bit of their OR is: one `>> 31` for all.
  // tests/unit/passes/MergedGuardTest.cpp evaluates the merged condition of each loopless example
  // against its tiles' exact bounds at ids and sizes around 2^30, 2^31 and 2^32.
  if (Value* c = rangeCondition(b, parts)) return c;
  auto op = [&](const char* name, Value* x, Value* y) { return binary(b, name, x, y); };
  auto i32 = [&](Value* v) { return convertI32(b, v); };
  auto orAll = [&](const std::vector<Value*>& vs) { return orDistinct(b, vs); };
  std::vector<Value*> aligns, offsets, highs, diffs, groups;
  std::set<Value*> seen;
  for (const CompactParts* p : parts) {
    aligns.push_back(p->align);
    for (Value* o : p->offsets) {
      if (!seen.insert(o).second) continue;
      if (std::optional<std::pair<Value*, int>> gk = groupIdTimesPowerOfTwo(o)) {
        highs.push_back(i32(op("arith.shrui", gk->first, cIndex(30 - gk->second))));
        groups.push_back(gk->first);
      } else {
        offsets.push_back(o);
      }
    }
    diffs.insert(diffs.end(), p->diffs.begin(), p->diffs.end());
  }
  Value* all = orAll(offsets);
  if (all) highs.push_back(op("arith.shrui", i32(all), pro_.constantInt(30, ElemKind::I32)));
  std::vector<Value*> wide = groups;
  if (all) wide.push_back(all);
  if (Value* w = orAll(wide)) highs.push_back(i32(op("arith.shrui", w, cIndex(32))));
  Value* bits = i32(orAll(aligns));
  for (Value* h : highs) bits = op("arith.ori", bits, h);
  bits = op("arith.ori", bits, op("arith.shrui", orAll(diffs), pro_.constantInt(31, ElemKind::I32)));
  return b.create("arith.cmpi", {bits, pro_.constantInt(0, ElemKind::I32)}, {Type::scalar(ElemKind::I1)},
                  {{"predicate", Attribute::enumValue("cmpi", "eq")}})
      ->result();
}

bool KernelLowerXe::lowerBlockReadLoad(Operation& op, const std::function<Value*()>& perLane) {
  // Inside a versioned loop (lowerForVersioned): block reads alone, or the per-lane loads alone.
  auto forced = blockMode_.find(&op);
  if (forced != blockMode_.end() && !forced->second) return false;
  const TileState& t = vals_.tile(op.operand(0), op);
  const Type& rt = op.result()->type();
  std::optional<std::vector<RowRead>> plan = readPlan(t, rt, op);
  if (!plan) return false;
  if (forced != blockMode_.end()) {
    vals_.set(op.result(), {rowReads(t, rt, *plan, op)});
    return true;
  }
  Value* guard = blockGuard(t, rt);
  compactGuards_.push_back(compactGuard(t, rt));
  Operation* ifOp = guardedIf(guard, laneType(rt, op), [&] { return rowReads(t, rt, *plan, op); }, perLane);
  guards_.push_back(ifOp);
  vals_.set(op.result(), {ifOp->result(0)});
  return true;
}

bool KernelLowerXe::holdsBarrier(Operation& loop) {
  bool found = false;
  loop.walk([&](Operation* o) { found = found || o->is("gpu.barrier"); });
  return found;
}

bool KernelLowerXe::lowerForVersioned(Operation& op) {
  if (t_.kind != targets::TargetKind::Dg2) return false;
  auto constOf = [](Value* v) { return intConstant(v); };
  std::optional<int64_t> step = constOf(op.operand(2));
  if (!step || *step <= 0) return false;
  // A loop with a barrier is versioned only where the interior count is the same in every subgroup
  // of the workgroup: else the subgroups would meet the barrier at different call sites (one in its
  // interior loop, another in its edge loop), which a workgroup barrier does not allow. That holds
  // when the IR proves every walk inside its static memref and aligned in every iteration of every
  // subgroup (staticInterior): the count is then the trip count or 0 on the memrefs' base alignment
  // alone, a kernel argument's. Slice loops of a kernel where one has a barrier (RFC 2.5's first) all
  // take that rule. Otherwise the loop stays whole, its loads per lane (a guarded block read would
  // put the fallback in the loop).
  bool barrier = op.hasAttr("split") ? sliceBarrier_ : holdsBarrier(op);
  auto wholeLoop = [&]() {
    op.walk([&](Operation* o) {
      if (o->is("tile.load_tile")) blockMode_[o] = false;
    });
    return false;
  };
  // The walks: per-lane loads of the body from a loop-carried tile that the yield advances by
  // constant, non-negative offsets (or keeps), whose layout and memref allow row block reads.
  struct Walk {
    Operation* load;
    TileState init;  // the tile the loop starts from
    int64_t delta[2];
  };
  std::vector<Walk> walks;
  ir::Block& body = op.region(0).block();
  Operation* yield = body.terminator();
  for (auto& o : body.opList()) {
    if (!o->is("tile.load_tile") || !o->boolAttr("per_lane")) continue;
    Value* tv = o->operand(0);
    if (!tv->isBlockArgument() || tv->ownerBlock() != &body || tv->index() == 0) continue;
    unsigned j = tv->index() - 1;
    Value* next = yield->operand(j);
    Walk w{o.get(), vals_.tile(op.operand(3 + j), op), {0, 0}};
    if (next != tv) {
      Operation* u = next->definingOp();
      if (!u || !u->is("tile.update_tile_offset") || u->operand(0) != tv) continue;
      std::optional<int64_t> d0 = constOf(u->operand(1)), d1 = constOf(u->operand(2));
      if (!d0 || !d1) continue;
      w.delta[0] = *d0;
      w.delta[1] = *d1;
    }
    int64_t eb = ir::elemBits(o->result()->type().elem()) / 8;
    if (w.delta[0] < 0 || w.delta[1] < 0 || (w.delta[1] * eb) % 16 != 0 || !readPlan(w.init, o->result()->type(), *o))
      continue;
    walks.push_back(w);
  }
  if (walks.empty()) return barrier ? wholeLoop() : false;
  // Iteration i sees offsets init + i * delta. Every walk's tile is inside its memref for
  // i < floor((dim - R - init) / delta) + 1 (delta > 0), or for all i or none (delta = 0); the
  // alignment of base, pitch and first column holds for all i or none (delta * bytes is a multiple
  // of 16). The interior count is the least of these and the trip count, 0 unless every
  // loop-invariant part holds.
  Type idx = Type::index(), i1 = Type::scalar(ElemKind::I1);
  auto bin = [&](const char* name, Value* a, Value* b) { return indexOp(name, a, b); };
  auto cmp = [&](const char* pred, Value* a, Value* b) { return cmpIndex(pred, a, b); };
  Value* lb = vals_.get1(op.operand(0), op);
  Value* ub = vals_.get1(op.operand(1), op);
  std::vector<Operation*> walkLoads;
  for (const Walk& w : walks) walkLoads.push_back(w.load);
  Value* n = nullptr;
  Value* ok = nullptr;
  auto also = [&](Value* c) { ok = ok ? andI1(ok, c) : c; };
  std::optional<std::vector<Carried>> carriedTiles;
  if (barrier) {
    std::vector<StaticWalk> sw;
    for (const Walk& w : walks) sw.push_back({w.load, w.init, {w.delta[0], w.delta[1]}});
    std::optional<int64_t> trips = staticInterior(op, sw);
    if (!trips) return wholeLoop();
    // Non-walk loads stay per lane, as in a loop that stays whole.
    op.walk([&](Operation* o) {
      if (o->is("tile.load_tile") && std::find(walkLoads.begin(), walkLoads.end(), o) == walkLoads.end()) blockMode_[o] = false;
    });
    n = cIndex(*trips);
    for (const Walk& w : walks) also(alignedSurface(w.init));
    carriedTiles = narrowable(op, walkLoads);
    if (carriedTiles && !staticFits31(op, *carriedTiles, *trips)) carriedTiles.reset();
  } else {
    n = bin("arith.maxsi", bin("arith.ceildivsi", bin("arith.subi", ub, lb), cIndex(*step)), cIndex(0));
  }
  for (const Walk& w : walks) {
    if (barrier) break;
    const TileState& t = w.init;
    const Type& rt = w.load->result()->type();
    int64_t eb = ir::elemBits(rt.elem()) / 8;
    also(alignedSurface(t));
    also(cmp("eq", b_.create("arith.andi", {t.offs[1], cIndex(16 / eb - 1)}, {idx})->result(), cIndex(0)));
    for (int d = 0; d < 2; ++d) {
      Value* dim = b_.create("memref.dim", {t.mem}, {idx}, {{"index", Attribute::integer(d)}})->result();
      Value* room = bin("arith.subi", bin("arith.subi", dim, cIndex(rt.shape()[d])), t.offs[d]);
      also(cmp("sge", t.offs[d], cIndex(0)));
      if (w.delta[d] == 0) also(cmp("sge", room, cIndex(0)));
      else n = bin("arith.minsi", n, bin("arith.maxsi", bin("arith.addi", bin("arith.floordivsi", room, cIndex(w.delta[d])), cIndex(1)), cIndex(0)));
    }
  }
  if (!barrier) {
    carriedTiles = narrowable(op, walkLoads);
    if (carriedTiles) also(fits31(*carriedTiles, lb, *step, n));
  }
  Value* interior = b_.create("arith.select", {ok, n, cIndex(0)}, {idx})->result();
  Value* mid = bin("arith.addi", lb, bin("arith.muli", interior, cIndex(*step)));
  mid->setNameHint("interior_end");
  for (const Walk& w : walks) blockMode_[w.load] = true;
  Operation* inner = vals_.rebuildFor(op, b_, [this](ir::Block& blk) { lowerBlock(blk); }, lb, mid);
  if (carriedTiles) inner->setAttr("index_bits", Attribute::integer(32));
  for (const Walk& w : walks) blockMode_[w.load] = false;
  std::vector<Value*> carried = inner->results();
  vals_.rebuildFor(op, b_, [this](ir::Block& blk) { lowerBlock(blk); }, mid, ub, &carried);
  for (const Walk& w : walks) blockMode_.erase(w.load);
  kernel_->setAttr("edge_loops", Attribute::integer(kernel_->intAttr("edge_loops", 0) + 1));
  return true;
}

std::optional<std::vector<KernelLowerXe::Carried>> KernelLowerXe::narrowable(Operation& op, const std::vector<Operation*>& walks) {
  // The interior loop counts in 32 bits (index_bits = 32, backends/spirv emitFor) only if every index
  // it carries is a tile offset the yield steps by a constant >= 0 (its range follows from the
  // count), and its only tile loads are the walks (so every block message in it is a walk's, whose
  // byte offsets fits31 bounds): no other carried index, no store, no guarded block read.
  ir::Block& body = op.region(0).block();
  Operation* yield = body.terminator();
  std::vector<Carried> out;
  for (unsigned a = 1; a < body.numArguments(); ++a) {
    Value* tv = body.argument(a);
    const Type& t = tv->type();
    if (!t.isTile()) {
      // The backend narrows every index the loop carries; only tile offsets are bounded here.
      if (t.isIndex()) return std::nullopt;
      continue;
    }
    Carried c{vals_.tile(op.operand(2 + a), op), {0, 0}, nullptr};
    for (Operation* w : walks)
      if (w->operand(0) == tv) c.load = w;
    if (c.init.offs.size() != 2) return std::nullopt;
    Value* next = yield->operand(a - 1);
    if (Operation* f = next->definingOp(); f && f->is("scf.if") && f->parentOp() == &op) {
      // A tile stepped only when an scf.if of the body holds (RFC 2.5's L2 prefetch tiles, every
      // fourth step): its then-branch's constant step >= 0 bounds it per iteration (the else-branch
      // keeps it), so the count bounds it as an unconditional step would.
      unsigned r = 0;
      while (f->result(r) != next) ++r;
      if (f->numRegions() != 2 || f->region(0).numBlocks() != 1 || f->region(1).numBlocks() != 1) return std::nullopt;
      Operation* thenYield = f->region(0).block().terminator();
      Operation* elseYield = f->region(1).block().terminator();
      if (!thenYield || !elseYield || elseYield->operand(r) != tv) return std::nullopt;
      next = thenYield->operand(r);
    }
    if (next != tv) {
      Operation* u = next->definingOp();
      if (!u || !u->is("tile.update_tile_offset") || u->operand(0) != tv) return std::nullopt;
      for (int d = 0; d < 2; ++d) {
        const Operation* k = u->operand(1 + d)->definingOp();
        const Attribute* v = k && k->is("arith.constant") ? k->attr("value") : nullptr;
        if (!v || !v->isa(AttrKind::Int) || v->getInt() < 0) return std::nullopt;
        c.delta[d] = v->getInt();
      }
    }
    out.push_back(c);
  }
  size_t loads = 0;
  bool other = false;
  op.walk([&](Operation* o) {
    if (o->is("tile.load_tile")) ++loads;
    other = other || o->is("tile.store_tile") || (o != &op && o->is("scf.for"));
  });
  if (other || loads != walks.size()) return std::nullopt;
  return out;
}

Value* KernelLowerXe::fits31(const std::vector<Carried>& carried, Value* lb, int64_t step, Value* n) {
  // Iteration i in [0, n] (n: the one after the last, which the loop yields) sees the counter
  // lb + i * step and each carried offset init + i * delta: all in [0, 2^31) iff each start is and
  // n <= (2^31 - 1 - start) / delta, divisions of values already known in range (no overflow). A
  // walk's byte offsets R * pitch + C * bytes (the origins the backend carries, docs/hardware.md
  // "Walked origins") are below R_n * pitch + C_n * bytes with R_n, C_n the offsets at i = n; pitch
  // < 2^31 keeps that product in 64 bits. A counter, offset or byte offset that would reach 2^31
  // (a matrix of 2^31 elements or more, read to its end) fails this: the i64 edge loop runs it.
  Type idx = Type::index(), i1 = Type::scalar(ElemKind::I1);
  const int64_t lim = (int64_t(1) << 31) - 1;
  auto bin = [&](const char* name, Value* a, Value* b) { return indexOp(name, a, b); };
  auto cmp = [&](const char* pred, Value* a, Value* b) { return cmpIndex(pred, a, b); };
  Value* ok = nullptr;
  auto also = [&](Value* c) { ok = ok ? andI1(ok, c) : c; };
  auto walk = [&](Value* start, int64_t delta) {
    also(cmp("ule", start, cIndex(lim)));  // unsigned: a negative start fails
    if (delta > 0) also(cmp("sle", n, bin("arith.divsi", bin("arith.subi", cIndex(lim), start), cIndex(delta))));
  };
  walk(lb, step);
  for (const Carried& c : carried) {
    for (int d = 0; d < 2; ++d) walk(c.init.offs[d], c.delta[d]);
    if (!c.load) continue;
    int64_t eb = ir::elemBits(c.load->result()->type().elem()) / 8;
    Value* cols = b_.create("memref.dim", {c.init.mem}, {idx}, {{"index", Attribute::integer(1)}})->result();
    Value* pitch = bin("arith.muli", cols, cIndex(eb));
    auto last = [&](int d) { return bin("arith.addi", c.init.offs[d], bin("arith.muli", n, cIndex(c.delta[d]))); };
    also(cmp("ule", pitch, cIndex(lim)));
    also(cmp("sle", bin("arith.addi", bin("arith.muli", last(0), pitch), bin("arith.muli", last(1), cIndex(eb))), cIndex(lim)));
  }
  return ok;
}

std::optional<int64_t> KernelLowerXe::staticInterior(Operation& op, const std::vector<StaticWalk>& walks) {
  // Constant bounds and, for every walk, offsets whose ranges (IndexBounds.h: the static grid and
  // subgroup count bound the ids) keep the tile inside its static memref from the first iteration
  // to the last, with a first column a multiple of 16 bytes. The trip count, or nullopt.
  auto constant = [&](unsigned i) -> std::optional<int64_t> {
    std::optional<IndexRange> r = indexRange(vals_.get1(op.operand(i), op));
    if (!r || r->lo != r->hi) return std::nullopt;
    return r->lo;
  };
  std::optional<int64_t> lb = constant(0), ub = constant(1), step = constant(2);
  if (!lb || !ub || !step || *step <= 0 || *lb < 0) return std::nullopt;
  int64_t trips = std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
  for (const StaticWalk& w : walks) {
    const Type& mt = w.init.mem->type();
    const Type& rt = w.load->result()->type();
    int64_t eb = ir::elemBits(rt.elem()) / 8;
    for (int d = 0; d < 2; ++d) {
      std::optional<IndexRange> r = indexRange(w.init.offs[d]);
      int64_t dim = mt.shape()[static_cast<size_t>(d)];
      if (!r || r->lo < 0 || dim == ir::kDynamic) return std::nullopt;
      // In 128 bits: the trip count and the step come from the program (ranges below 2^62).
      if (trips > 0 && __int128(r->hi) + __int128(trips - 1) * w.delta[d] + rt.shape()[d] > dim) return std::nullopt;
    }
    std::optional<IndexRange> c = indexRange(w.init.offs[1]);
    if ((c->multiple % 16) * eb % 16 != 0) return std::nullopt;
  }
  return trips;
}

bool KernelLowerXe::staticFits31(Operation& op, const std::vector<Carried>& carried, int64_t trips) {
  // fits31's bounds from the ranges instead of run-time compares: the counter, every carried
  // offset and every walk's byte offset below 2^31 in iterations 0 .. trips.
  const int64_t lim = (int64_t(1) << 31) - 1;
  std::optional<IndexRange> ub = indexRange(vals_.get1(op.operand(1), op));
  if (!ub || ub->hi > lim) return false;
  for (const Carried& c : carried) {
    int64_t last[2];
    for (int d = 0; d < 2; ++d) {
      std::optional<IndexRange> r = indexRange(c.init.offs[d]);
      if (!r || r->lo < 0) return false;
      __int128 end = __int128(r->hi) + __int128(trips) * c.delta[d];
      if (end > lim) return false;
      last[d] = static_cast<int64_t>(end);
    }
    if (!c.load) continue;
    const Type& mt = c.init.mem->type();
    int64_t eb = ir::elemBits(c.load->result()->type().elem()) / 8;
    if (mt.shape()[1] == ir::kDynamic) return false;
    int64_t pitch = mt.shape()[1] * eb;
    if (pitch > lim || last[0] > lim / std::max<int64_t>(pitch, 1) || last[0] * pitch + last[1] * eb > lim) return false;
  }
  return true;
}

bool KernelLowerXe::lowerBlockWriteStore(Operation& op, const TileState& t, const layout::LinearLayout& l,
                                         const std::vector<Value*>& regs) {
  // The reads' row plan is the writes' too (one oword block write per contiguous row part); the same
  // guard, with the per-lane stores (clipped at the memref bounds) as the fallback.
  const Type& vt = op.operand(0)->type();
  if (ir::elemBits(vt.elem()) == 8) return false;  // no 8-bit block write is proven (uchar: reads only)
  std::optional<std::vector<RowRead>> plan = readPlan(t, vt, op);
  if (!plan || std::any_of(plan->begin(), plan->end(), [](const RowRead& m) { return m.perLane; })) return false;  // no lane write
  Value* guard = blockGuard(t, vt);
  compactGuards_.push_back(compactGuard(t, vt));
  auto blockWrites = [&]() -> Value* {
    for (const RowRead& m : *plan) {
      std::vector<Value*> part;
      for (int64_t r : m.regs) part.push_back(regs[static_cast<size_t>(r)]);
      ir::AttrMap attrs;
      if (m.q > 1) attrs["elem_bits"] = Attribute::integer(m.q * ir::elemBits(vt.elem()));
      b_.create("xe.block_write", {fromElements(part, vt.elem()), t.mem, addC(t.offs[0], m.row), addC(t.offs[1], m.col)}, {}, attrs);
    }
    return nullptr;
  };
  guards_.push_back(
      guardedIf(guard, std::nullopt, blockWrites, [&]() -> Value* {
            perLaneWrites("lane.store", t, l, regs, {}, op);
            return nullptr;
          }));
  return true;
}

void KernelLowerXe::mergeBlockGuards(ir::Block& body) {
  // Each guard's arms meet in an scf.if result, which IGC copies into the merged registers on the
  // block path (sg_bias_relu dg2: 328 instructions on the block path with 3 guards, 270 with one,
  // docs/performance.md "dg2 loopless floors"). So a kernel without a loop whose guards all sit in
  // its body gets one: every guard's condition is computed first, and the rest of the body (from the
  // first guard on) is emitted twice under their conjunction, once with every guard's block arm,
  // once with every fallback arm. The conditions are subgroup-uniform, so the arms stay convergent;
  // Only a rest of memory ops and plain arithmetic merged until issue 11: IGC expands exp and the f32
  // division with predicated instructions, and under the merged branch softmax's ran out of flag
  // registers (2247 instructions on the block path, ~330 flag moves through GRFs, against 1939 with
  // a guard per tile); a loop, a barrier (subgroups of a workgroup could take different arms) or
  // another cross-lane op keeps the guards.
  // Guards that stay one per tile in a kernel without a loop: a store's takes the compact form
  // (softmax's Y store: 1937 -> 1931 on the block path), a load's keeps blockGuard (softmax's X loads
  // with compact guards spilled). A kernel with a loop keeps blockGuard for all: there the compact
  // store guards moved the loops by -15 to +2 per K step with IGC's register allocation.
  // An f32 exp, division or add/max lane reduction (softmax's row work) merges too since issue 11:
  // in vISA mode the merged block arm is then one inline-vISA statement (backends/spirv/
  // Dg2VisaBlock.cpp writes them out there), where IGC's expansions, which ran out of flags, do not
  // run (softmax 1440 -> 731 on the block path); the fallback arm keeps them. With
  // --xe-codegen=builtins (PassContext::inlineVisa false) IGC expands them under the merged branch
  // (softmax 2216 merged, 1924 per tile): the guards stay one per tile there.
  auto f32Row = [&](const Operation* x) {
    if (!inlineVisa_) return false;
    const std::string& n = x->name();
    bool f32 = x->numResults() == 1 && x->result()->type().elem() == ElemKind::F32;
    const Attribute* k = x->attr("kind");
    return f32 && (n == "math.exp" || n == "arith.divf" ||
                   (n == "lane.reduce" && k && (k->getString() == "add" || k->getString() == "max")));
  };
  auto perTile = [&]() {
    bool loop = false;
    body.parentOp()->walk([&](Operation* x) { loop = loop || x->is("scf.for"); });
    for (size_t i = 0; i < guards_.size() && !loop; ++i)
      if (guards_[i]->numResults() == 0) guards_[i]->setOperand(0, compactGuards_[i]);
  };
  if (guards_.size() < 2) return perTile();
  Operation* term = body.terminator();
  Operation* first = guards_.front();
  std::set<const Operation*> guards(guards_.begin(), guards_.end());
  bool plain = term && term->numOperands() == 0;
  for (Operation* g : guards_) plain = plain && g->parentBlock() == &body;
  for (Operation* o = first; plain && o && o != term; o = o->nextInBlock())
    o->walk([&](Operation* x) {
      const std::string& n = x->name();
      bool arith = (n.rfind("arith.", 0) == 0 && n != "arith.remf" && (n != "arith.divf" || f32Row(x))) || n == "xe.oword_align_bits";
      plain = plain && (arith || f32Row(x) || n.rfind("vector.", 0) == 0 || n == "lane.load" || n == "lane.store" ||
                        n == "xe.block_read" || n == "xe.block_write" || n == "xe.lane_read" || n == "memref.dim" || n == "scf.yield" ||
                        (n == "scf.if" && guards.count(x)));
    });
  if (!plain) return perTile();
  // The conditions' ops after the first guard (their backward slice there): pure, and none of them a
  // guard's result, else the guards stay as they are.
  std::set<const Operation*> rest, slice;
  for (Operation* o = first; o && o != term; o = o->nextInBlock()) rest.insert(o);
  std::vector<Value*> work;
  for (Value* c : compactGuards_) work.push_back(c);
  while (!work.empty()) {
    Operation* d = work.back()->definingOp();
    work.pop_back();
    if (!d || !rest.count(d) || slice.count(d)) continue;
    const ir::OpInfo* info = ir::findOp(d->name());
    if (guards.count(d) || !info || !info->traits.pure) return perTile();
    slice.insert(d);
    for (Value* v : d->operands()) work.push_back(v);
  }
  for (Operation* o : body.opsSnapshot())
    if (slice.count(o)) o->moveBefore(first);
  // Merged, the guards' conjunction is one compact condition built from all their parts (one shift
  // of the ORed offsets, one of the ORed differences: compactCondition); the per-guard conditions and
  // blockGuard's ops go in the next canonicalize.
  ir::Builder b(&body);
  b.setInsertionPoint(first);
  b.setLoc(first->loc());
  std::vector<const CompactParts*> parts;
  for (const CompactParts& p : compactParts_) parts.push_back(&p);
  Value* all = compactCondition(b, parts);
  Operation* merged = b.create("scf.if", {all}, {}, {}, 2);
  std::vector<Operation*> moved;
  for (Operation* o = first; o && o != term; o = o->nextInBlock()) moved.push_back(o);
  for (unsigned arm = 0; arm < 2; ++arm) {
    ir::Block& into = merged->region(arm).addBlock();
    ir::IRMapping map;
    for (Operation* o : moved) {
      if (!guards.count(o)) {
        into.push_back(o->clone(map));
        continue;
      }
      ir::Block& from = o->region(arm).block();
      for (auto& x : from.opList())
        if (x.get() != from.terminator()) into.push_back(x->clone(map));
      for (unsigned i = 0; i < o->numResults(); ++i) map.values[o->result(i)] = map.lookup(from.terminator()->operand(i));
    }
    ir::Builder(&into).create("scf.yield", {}, {});
  }
  for (Operation* o : moved) o->dropAllReferences();
  for (auto it = moved.rbegin(); it != moved.rend(); ++it) (*it)->erase();
  // A tile offset that is a sum (bias_relu's row 16 g0 + 8 sg), which the guard reads as 32-bit
  // parts (compactGuard), goes into each arm that reads it when nothing before the branch does: above
  // the branch IGC computed it as a 64-bit add and its high half for the per-lane arm (3 instructions
  // on the block path: 129 -> 126; IGC does not sink it), where the block statement takes its low
  // half (LLVM narrows the truncated add). Only such offsets: moving the lane coordinates into the
  // arm too broke transpose's statement match (169, measured). Latest first (dead ops erased on the
  // way), so an operand's op goes after its users did and lands before them at the arm's start.
  auto inBlock = [](Operation* user, const ir::Block* blk) {
    for (Operation* a = user; a; a = a->parentOp())
      if (a->parentBlock() == blk) return true;
    return false;
  };
  std::set<Value*> sums;
  for (const CompactParts& p : compactParts_)
    for (Value* o : p.offsets)
      if (o->definingOp() && o->definingOp()->is("arith.addi") && o->type() == Type::index()) sums.insert(o);
  std::vector<Operation*> before;
  for (Operation* o = body.front(); o && o != merged; o = o->nextInBlock()) before.push_back(o);
  for (auto it = before.rbegin(); it != before.rend(); ++it) {
    Operation* o = *it;
    // The guards' own conditions are dead now (canonicalize drops them later): they must not keep an
    // offset above the branch. Constants stay (the prologue's anchor is one, LowerXe.cpp erases it).
    const ir::OpInfo* info = ir::findOp(o->name());
    bool dead = info && info->traits.pure && !o->is("arith.constant") && o->numRegions() == 0 && o->numResults() > 0;
    for (Value* r : o->results()) dead = dead && !r->hasUses();
    if (dead) {
      o->erase();
      continue;
    }
    // (An op without a result, e.g. a prefetch before the guard, is no such offset.)
    if (o->numResults() != 1 || !sums.count(o->result())) continue;
    bool inside = true;
    for (const ir::Use& u : o->result()->uses()) inside = inside && merged->isAncestorOf(u.user);
    if (!inside) continue;
    for (unsigned arm = 0; arm < 2; ++arm) {
      ir::Block* blk = &merged->region(arm).block();
      bool used = false;
      for (const ir::Use& u : o->result()->uses()) used = used || inBlock(u.user, blk);
      if (!used) continue;
      ir::IRMapping none;
      Operation* c = blk->push_front(o->clone(none));
      o->result()->replaceUsesWithIf(c->result(), [&](const ir::Use& u) { return inBlock(u.user, blk); });
    }
    o->erase();
  }
  guards_.clear();
  compactGuards_.clear();
  compactParts_.clear();
}

}  // namespace xtc::passes::lowerxe
