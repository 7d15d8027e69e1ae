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
//    loads (zero or `padding` outside the memref), stores (clipped at its bounds) or prefetches.
// The base alignment stays the caller's (the launcher stub refuses a misaligned buffer:
// XTC_STUB_ERROR_BAD_ALIGNMENT, docs/stubs.md), so a static memref's rules are proven at compile time
// and its kernel is unchanged. A tile with an explicit shape other than its memref's keeps its 2D
// messages unchecked (its view's rules are not derived here; its per-lane accesses keep to the view).
#include "ir/passes/LowerXeKernel.h"

#include <algorithm>

namespace xtc::passes::lowerxe {

namespace {

constexpr int64_t kMaxSurface = int64_t(1) << 24;  // largest width (bytes) and height (rows), §2.5

bool isGlobalTile(const Value* v) { return v->type().isTile() && v->type().tileInfo().space == ir::MemSpace::Global; }

}  // namespace

KernelLowerXe::SurfaceRule KernelLowerXe::surfaceRule(const TileState& t) {
  if (t_.kind != targets::TargetKind::Pvc || !t.denseSurface) return {true, nullptr};
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
  // Without --surface-fallback a dynamic dim is the caller's (the launcher stub checks it), but a
  // static one that breaks a rule still takes the per-lane accesses: no input makes it legal.
  if (staticFails || !surfaceFallback_ || (cols != ir::kDynamic && rows != ir::kDynamic)) return surfaceRules_[key] = r;
  Type idx = Type::index(), i1 = Type::scalar(ElemKind::I1);
  auto cmp = [&](const char* pred, Value* a, Value* b) {
    return pro_.create("arith.cmpi", {a, b}, {i1}, {{"predicate", Attribute::enumValue("cmpi", pred)}})->result();
  };
  auto also = [&](Value* c) { r.ok = r.ok ? pro_.create("arith.andi", {r.ok, c}, {i1})->result() : c; };
  auto dim = [&](int64_t d) { return pro_.create("memref.dim", {t.mem}, {idx}, {{"index", Attribute::integer(d)}})->result(); };
  if (cols == ir::kDynamic) {
    Value* w = pro_.create("arith.muli", {dim(1), cIndex(eb)}, {idx})->result();
    also(cmp("eq", pro_.create("arith.andi", {w, cIndex(15)}, {idx})->result(), cIndex(0)));
    also(cmp("ule", pro_.create("arith.subi", {w, cIndex(64)}, {idx})->result(), cIndex(kMaxSurface - 64)));
  }
  if (rows == ir::kDynamic)
    also(cmp("ule", pro_.create("arith.subi", {dim(0), cIndex(1)}, {idx})->result(), cIndex(kMaxSurface - 1)));
  r.known.reset();
  return surfaceRules_[key] = r;
}

KernelLowerXe::Choice KernelLowerXe::surfaceChoice(const TileState& t, Value** guard) {
  SurfaceRule r = surfaceRule(t);
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
    if (!vals_.has(src) || !denseInit(*def)) return std::nullopt;
    TileState s;
    s.mem = vals_.get1(src, user);
    s.type = v->type();
    s.denseSurface = true;
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

bool KernelLowerXe::lowerForSurfaces(Operation& op) {
  if (!surfaceFallback_ || t_.kind != targets::TargetKind::Pvc || surfaceMode_ != SurfaceMode::Guard) return false;
  // The loop's global 2D messages (at any depth; those blocking left per lane send none) and the
  // rules of their surfaces, ANDed; each memref's condition is one value (surfaceRule's cache).
  std::vector<Value*> conds;
  bool traced = true;
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
  });
  // Untraced: the messages keep their own guards in the loop (correct; not expected from the front end).
  if (!traced || conds.empty()) return false;
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
