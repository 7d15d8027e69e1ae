// The `pad-columns` pass (pvc/dg2, Xe path, before split-uneven-tiles and split-accumulators).
//
// Why: the Xe passes hold a subgroup value in a linear layout (ir/layout), a power of two in each
// dimension, and cut other sizes into power-of-two slices of whole subgroups (48 = 32 + 16 columns
// on pvc). A width that is no whole number of subgroups (24 or 12 columns on pvc's 16 lanes, whose
// DPAS is 16 wide; 12 on dg2's 8) has no such cut, and those kernels took the portable path: no
// DPAS, no 2D block messages (a GEMM with an 8x24 C tile on pvc, an element-wise 8x12 tile).
//
// What: every tile and vector dimension tied to such a width (one class of dimensions per
// union-find: an element-wise op ties its operands and result, a load or store its value and tile,
// tile_mma N of B and C, a transpose swaps, loop-carried values their init, block argument, yield and
// result) becomes the next multiple of the subgroup size (24 -> 32 on pvc) or, below it, the next
// power of two (12 -> 16, 6 -> 8). The padded rows or columns are don't-care values:
//  - a load of a padded tile reads further (elements of a neighbouring tile, or the zero padding
//    outside the memref): harmless, since nothing reads them into a real element;
//  - what could carry them into a real element is refused (the class is left as it is, and the later
//    pass's refusal stays the portable path's reason): the K of a tile_mma, the reduced dimension of
//    a reduction, ops this pass does not know, scattered, SLM and explicitly shaped tiles;
//  - a store (only of a tile that comes straight from an init_tile and is only loaded, stored and
//    prefetched) must not write them: its init_tile gets an explicit shape that clamps the padded
//    dimension at the real extent, `shape [dim(C, 0), min(dim(C, 1), n + 24)]` with the memref's
//    strides, so its tile-level meaning is exactly the store of the real elements (the interpreter
//    drops the rest as out of bounds). Blocking accesses such a tile per lane (isClampedInit), and
//    lower-xe masks the per-lane accesses at that shape; a 2D block store clipped there would need
//    a surface 48 bytes wide for an f16 tile of 24 columns at column 0, below the 64 of reference
//    §2.5.
// Also padded (to the next power of two): the N of accumulators that share a K loop with another,
// when it is a whole number of subgroups but no power of two (24 on dg2): split-accumulators cannot
// cut several accumulators of one loop.
// A kernel without such a width is left byte for byte as it was.
#include "ir/passes/PadColumns.h"

#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/passes/PassManager.h"
#include "ir/targets/Target.h"

#include <array>
#include <bit>
#include <map>
#include <optional>
#include <set>

namespace xtc::passes {

using ir::Attribute;
using ir::AttrKind;
using ir::Operation;
using ir::Type;
using ir::Value;

bool isClampedInit(const Operation& init) {
  if (!init.is("tile.init_tile")) return false;
  const Attribute* seg = init.attr("segments");
  if (!seg || seg->getIntArray().size() != 3 || seg->getIntArray()[1] != 2) return false;
  unsigned shapeAt = static_cast<unsigned>(1 + seg->getIntArray()[0]);
  for (unsigned d = 0; d < 2; ++d) {
    const Operation* def = init.operand(shapeAt + d)->definingOp();
    if (def && def->is("arith.minsi")) return true;
  }
  return false;
}

namespace {

std::optional<int64_t> constOf(const Value* v) {
  const Operation* o = v->definingOp();
  const Attribute* a = o && o->is("arith.constant") ? o->attr("value") : nullptr;
  if (!a || !a->isa(AttrKind::Int)) return std::nullopt;
  return a->getInt();
}

// v >= 0 in every execution: ids, dims, non-negative constants, and sums, products and unsigned
// quotients of such values, loop counters from such a start by a positive constant step.
bool nonNegative(const Value* v, int depth = 0) {
  if (depth > 16) return false;
  if (auto c = constOf(v)) return *c >= 0;
  if (v->isBlockArgument()) {
    const Operation* loop = v->ownerBlock()->parentOp();
    if (!loop || !loop->is("scf.for") || v->index() != 0) return false;
    auto step = constOf(loop->operand(2));
    return step && *step > 0 && nonNegative(loop->operand(0), depth + 1);
  }
  const Operation* d = v->definingOp();
  if (!d) return false;
  const std::string& n = d->name();
  if (n == "gpu.group_id" || n == "gpu.subgroup_id" || n == "gpu.lane_id" || n == "memref.dim") return true;
  if (n == "arith.addi" || n == "arith.muli" || n == "arith.divui" || n == "arith.remui" || n == "arith.ceildivsi")
    return nonNegative(d->operand(0), depth + 1) && nonNegative(d->operand(1), depth + 1);
  return false;
}

}  // namespace

bool clampedSurfaceLegal(const Operation& init) {
  if (!isClampedInit(init)) return false;
  const Type& mt = init.operand(0)->type();
  int64_t eb = ir::elemBits(mt.elem()) / 8;
  for (unsigned d = 0; d < 2; ++d) {
    const Operation* min = init.operand(3 + d)->definingOp();
    if (!min || !min->is("arith.minsi")) continue;
    const Operation* end = min->operand(1)->definingOp();
    if (!end || !end->is("arith.addi") || !nonNegative(end->operand(0))) return false;
    auto real = constOf(end->operand(1));
    if (!real || *real < 1) return false;
    if (d == 1 && (*real * eb < 64 || (*real * eb) % 4 != 0)) return false;
  }
  return true;
}

namespace {

bool tensorish(const Value* v) { return v->type().isVector() || v->type().isTile(); }
bool rank2(const Value* v) { return tensorish(v) && v->type().rank() == 2 && v->type().hasStaticShape(); }

const Attribute* splatAttr(const Operation& op) {
  const Attribute* a = op.attr("value");
  if (!op.is("arith.constant") || !a || !a->isa(AttrKind::Dense)) return nullptr;
  return (a->denseIsFloat() ? a->denseFloats().size() : a->denseInts().size()) == 1 ? a : nullptr;
}

class Padder {
public:
  Padder(Operation* kernel, int64_t S) : kernel_(kernel), S_(S) {}

  void run() {
    kernel_->walk([&](Operation* o) { tie(*o); });
    // The classes to pad and their new sizes.
    std::map<Node, int64_t> padded;  // class root -> padded size
    std::set<Node> poisonedRoots, columnRoots;
    for (const Node& n : poisoned_) poisonedRoots.insert(find(n));
    for (const Node& n : nodes_)
      if (n.second == 1) columnRoots.insert(find(n));
    // The N of accumulators that share a K loop with another (SwiGLU's gate and up projections):
    // split-accumulators cuts one accumulator per loop into power-of-two slices, not several, so a
    // width that is a whole number of subgroups but no power of two (24 on dg2's 8 lanes) left such
    // loops to the portable path. Padded to the next power of two, they need no cut.
    std::set<Node> sharedAccRoots;
    kernel_->walk([&](Operation* loop) {
      if (!loop->is("scf.for")) return;
      const ir::Block& body = loop->region(0).block();
      std::vector<Operation*> accs;
      for (const auto& o : body.opList())
        if (o->is("tile.tile_mma") && o->numOperands() > 2 && o->operand(2)->isBlockArgument() &&
            o->operand(2)->ownerBlock() == &body && rank2(o->result()))
          accs.push_back(o.get());
      if (accs.size() > 1)
        for (Operation* m : accs) sharedAccRoots.insert(find({m->result(), 1}));
    });
    for (const Node& root : columnRoots) {
      if (poisonedRoots.count(root)) continue;
      int64_t c = size(root);
      if (sharedAccRoots.count(root) && c % S_ == 0 && !std::has_single_bit(static_cast<uint64_t>(c))) {
        padded[root] = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(c)));
        continue;
      }
      if (c % S_ == 0 || S_ % c == 0) continue;
      padded[root] = c > S_ ? (c + S_ - 1) / S_ * S_ : static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(c)));
    }
    if (padded.empty()) return;
    auto newSize = [&](Value* v, int d) {
      auto it = padded.find(find({v, d}));
      return it == padded.end() ? v->type().shape()[static_cast<size_t>(d)] : it->second;
    };
    // Clamp the stores' tiles first (their real sizes are read from the types), then retype.
    for (Operation* init : storedInits_) {
      Value* t = init->result();
      std::vector<int64_t> shape{newSize(t, 0), newSize(t, 1)};
      if (shape != t->type().shape()) clamp(*init, shape);
    }
    std::vector<Value*> values;
    kernel_->walk([&](Operation* o) {
      for (Value* r : o->results()) values.push_back(r);
      for (unsigned i = 0; i < o->numRegions(); ++i)
        for (unsigned b = 0; b < o->region(i).numBlocks(); ++b)
          for (Value* a : o->region(i).block(b).arguments()) values.push_back(a);
    });
    for (Value* v : values) {
      if (!rank2(v) || !nodes_.count({v, 0})) continue;
      std::vector<int64_t> shape{newSize(v, 0), newSize(v, 1)};
      if (shape == v->type().shape()) continue;
      Type t = v->type().withShape(shape);
      v->setType(t);
      if (Operation* def = v->definingOp(); def && def->is("arith.constant")) {
        const Attribute* a = splatAttr(*def);  // tie() refused any other constant
        def->setAttr("value", a->denseIsFloat() ? Attribute::denseFloat(t, a->denseFloats()) : Attribute::denseInt(t, a->denseInts()));
      }
    }
  }

private:
  using Node = std::pair<Value*, int>;

  Node find(Node n) {
    auto it = parent_.find(n);
    if (it == parent_.end() || it->second == n) return n;
    Node r = find(it->second);
    parent_[n] = r;
    return r;
  }
  void node(Value* v) {
    if (!rank2(v)) return;
    for (int d = 0; d < 2; ++d) {
      nodes_.insert({v, d});
      parent_.emplace(Node{v, d}, Node{v, d});
    }
  }
  void join(Value* a, int da, Value* b, int db) {
    node(a);
    node(b);
    if (!rank2(a) || !rank2(b)) {
      poison(a);
      poison(b);
      return;
    }
    Node ra = find({a, da}), rb = find({b, db});
    if (ra != rb) parent_[ra] = rb;
  }
  void joinAll(Value* a, Value* b) {
    join(a, 0, b, 0);
    join(a, 1, b, 1);
  }
  void poison(Value* v, int d = -1) {
    if (!tensorish(v)) return;
    node(v);
    if (!rank2(v)) return;  // a rank-1 vector never meets a rank-2 class (no op here ties them)
    for (int e = 0; e < 2; ++e)
      if (d < 0 || d == e) poisoned_.push_back({v, e});
  }
  void poisonOp(Operation& op) {
    for (Value* v : op.operands()) poison(v);
    for (Value* v : op.results()) poison(v);
  }
  int64_t size(Node n) const { return n.first->type().shape()[static_cast<size_t>(n.second)]; }

  // The init_tile this pass can pad (and, for a store, clamp): a row-major rank-2 tile of a global
  // rank-2 memref without strides, with no shape but the memref's own (the front end's dense form).
  static bool plainInit(const Operation& op) {
    const Type& t = op.result()->type();
    const ir::TileInfo& info = t.tileInfo();
    Value* src = op.operand(0);
    bool plainOrder = info.order.empty() || info.order == std::vector<int64_t>{1, 0};
    if (t.rank() != 2 || !src->type().isMemRef() || src->type().rank() != 2 || !src->type().strides().empty() ||
        !plainOrder || info.wgMap || info.layout || info.scattered || !info.innerBlocks.empty() ||
        info.space != ir::MemSpace::Global)
      return false;
    const Attribute* seg = op.attr("segments");
    if (!seg) return op.numOperands() == 3;
    const std::vector<int64_t>& s = seg->getIntArray();
    if (s.size() != 3 || s[0] != 2) return false;
    if (s[1] == 0 && s[2] == 0) return true;
    if (s[1] != 2 || s[2] != 2) return false;
    auto isDim = [&](Value* v, int64_t d) {
      const Operation* o = v->definingOp();
      if (o && o->is("memref.dim") && o->operand(0) == src && o->intAttr("index", -1) == d) return true;
      int64_t n = src->type().shape()[static_cast<size_t>(d)];
      return n != ir::kDynamic && constOf(v) == n;
    };
    return isDim(op.operand(3), 0) && isDim(op.operand(4), 1) && isDim(op.operand(5), 1) && constOf(op.operand(6)) == 1;
  }

  void tie(Operation& op) {
    const std::string& n = op.name();
    for (Value* v : op.results()) node(v);
    if (n == "tile.init_tile") {
      if (!plainInit(op)) poison(op.result());
      return;
    }
    if (n == "tile.load_tile") return joinAll(op.operand(0), op.result());
    if (n == "tile.prefetch_tile") return node(op.operand(0));
    if (n == "tile.update_tile_offset") return joinAll(op.operand(0), op.result());
    if (n == "tile.store_tile") {
      joinAll(op.operand(0), op.operand(1));
      // The stored tile must come straight from its init_tile and never move (its clamp is the
      // init_tile's offset + real size): only loads, stores and prefetches use it.
      Operation* init = op.operand(1)->definingOp();
      bool ok = init && init->is("tile.init_tile");
      if (ok)
        for (const ir::Use& u : init->result()->uses())
          ok = ok && (u.user->is("tile.load_tile") || u.user->is("tile.prefetch_tile") ||
                      (u.user->is("tile.store_tile") && u.index == 1));
      if (ok) storedInits_.insert(init);
      else poison(op.operand(1));
      return;
    }
    if (n == "tile.tile_mma") {
      Value *a = op.operand(0), *b = op.operand(1), *r = op.result();
      join(a, 0, r, 0);
      join(b, 1, r, 1);
      if (op.numOperands() == 3) joinAll(op.operand(2), r);
      join(a, 1, b, 0);
      poison(a, 1);  // K: a padded K would add products of the padding
      return;
    }
    if (n == "tile.transpose") {
      const Attribute* p = op.attr("permutation");
      if (p && p->getIntArray() != std::vector<int64_t>{1, 0}) return poisonOp(op);
      join(op.operand(0), 0, op.result(), 1);
      join(op.operand(0), 1, op.result(), 0);
      return;
    }
    if (n == "tile.broadcast" || n == "tile.reduction") {
      const Attribute* dims = op.attr("dims");
      if (!dims || dims->getIntArray().size() != 1 || op.hasAttr("reduction_size") || !rank2(op.operand(0)) ||
          !rank2(op.result()))
        return poisonOp(op);
      int d = static_cast<int>(dims->getIntArray()[0]);
      if (d < 0 || d > 1) return poisonOp(op);
      if (n == "tile.broadcast" && op.operand(0)->type().shape()[static_cast<size_t>(d)] != 1) return poisonOp(op);
      join(op.operand(0), 1 - d, op.result(), 1 - d);
      node(op.operand(0));
      if (n == "tile.reduction") poison(op.operand(0), d);  // the padding would join the reduction
      return;
    }
    if (n == "tile.convert_layout") return joinAll(op.operand(0), op.result());
    if (n == "scf.for") {
      ir::Block& body = op.region(0).block();
      Operation* yield = body.terminator();
      for (unsigned i = 0; i < op.numResults(); ++i) {
        Value* r = op.result(i);
        if (!tensorish(r)) continue;
        joinAll(op.operand(3 + i), r);
        joinAll(body.argument(1 + i), r);
        if (yield) joinAll(yield->operand(i), r);
      }
      return;
    }
    if (n == "scf.if") {
      for (unsigned i = 0; i < op.numResults(); ++i) {
        Value* r = op.result(i);
        if (!tensorish(r)) continue;
        for (unsigned g = 0; g < op.numRegions(); ++g)
          if (op.region(g).numBlocks() == 1 && op.region(g).block().terminator())
            joinAll(op.region(g).block().terminator()->operand(i), r);
          else
            poison(r);
      }
      return;
    }
    if (n == "scf.yield") return;  // its parent ties its operands
    if (n == "arith.constant") {
      if (op.numResults() == 1 && tensorish(op.result()) && !splatAttr(op)) poison(op.result());
      return;
    }
    if (n == "vector.splat") return;
    bool any = false;
    for (Value* v : op.operands()) any = any || tensorish(v);
    for (Value* v : op.results()) any = any || tensorish(v);
    if (!any) return;
    // Element-wise arith/math: every vector operand and result of one shape, tied together.
    bool elementwise = (op.dialect() == "arith" || op.dialect() == "math") && op.numRegions() == 0 &&
                       op.numResults() == 1 && op.result()->type().isVector();
    if (elementwise)
      for (Value* v : op.operands())
        elementwise = elementwise && (!tensorish(v) || (v->type().isVector() && v->type().shape() == op.result()->type().shape()));
    if (!elementwise) return poisonOp(op);
    for (Value* v : op.operands())
      if (tensorish(v)) joinAll(v, op.result());
  }

  // Replaces `init` by one of the padded `shape` whose explicit shape ends each padded dimension at
  // the tile's real extent.
  void clamp(Operation& init, const std::vector<int64_t>& shape) {
    ir::Builder b;
    b.setInsertionPoint(&init);
    b.setLoc(init.loc());
    Value* mem = init.operand(0);
    Type idx = Type::index();
    std::vector<Value*> ops{mem, init.operand(1), init.operand(2)};
    std::array<Value*, 2> dim{};
    for (int d = 0; d < 2; ++d) {
      int64_t n = mem->type().shape()[static_cast<size_t>(d)];
      dim[d] = n != ir::kDynamic ? b.constantIndex(n)
                                 : b.create("memref.dim", {mem}, {idx}, {{"index", Attribute::integer(d)}})->result();
    }
    for (int d = 0; d < 2; ++d) {
      Value* s = dim[d];
      int64_t real = init.result()->type().shape()[static_cast<size_t>(d)];
      if (shape[static_cast<size_t>(d)] != real) {
        Value* end = b.create("arith.addi", {init.operand(1 + d), b.constantIndex(real)}, {idx})->result();
        s = b.create("arith.minsi", {dim[d], end}, {idx})->result();
      }
      ops.push_back(s);
    }
    ops.push_back(dim[1]);
    ops.push_back(b.constantIndex(1));
    ir::AttrMap attrs = init.attrs();
    attrs["segments"] = Attribute::intArray({2, 2, 2});
    Operation* now = b.create("tile.init_tile", ops, {init.result()->type().withShape(shape)}, attrs);
    now->result()->setNameHint(init.result()->nameHint());
    init.result()->replaceAllUsesWith(now->result());
    init.erase();
  }

  Operation* kernel_;
  int64_t S_;
  std::map<Node, Node> parent_;
  std::set<Node> nodes_;
  std::vector<Node> poisoned_;
  std::set<Operation*> storedInits_;
};

class PadColumnsPass : public Pass {
public:
  std::string name() const override { return "pad-columns"; }
  std::string description() const override {
    return "pvc/dg2: tile widths that are neither a multiple nor a divisor of the subgroup size are padded, stores clamped";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target || ctx.target->dpas.empty()) return true;
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered
      Padder(k, ctx.target->subgroupSize).run();
    }
    return true;
  }
};

}  // namespace

void registerPadColumnsPass() {
  registerPass("pad-columns", [] { return std::make_unique<PadColumnsPass>(); });
}

}  // namespace xtc::passes
