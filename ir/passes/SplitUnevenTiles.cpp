// The `split-uneven-tiles` pass (pvc/dg2, Xe path, before split-accumulators): straight-line code of
// the kernel body whose 2-D tiles or vectors are not a power of two in some dimension (24x16, 8x48)
// becomes one copy per power-of-two slice (24 = 16 + 8 rows, 48 = 32 + 16 columns), each slice a
// whole number of DPAS M rows (8) and of subgroup-wide columns (docs/passes.md, "split-uneven-tiles").
//
// Why: the later passes' linear layouts (ir/layout) are powers of two in each dimension, so such a
// kernel took the portable path (no DPAS, no 2D block messages). split-accumulators cuts a K loop's
// accumulator; this pass does the same for the ops outside any loop: a group of ops connected by
// uneven values (element-wise tiles, a loopless tile_mma, broadcasts, reductions) is rewritten into
// its slices, one slice's ops after another when the group's memory accesses allow it (only one
// slice live: op by op spilled on dg2), else op by op, each op replaced in place by its slices, so
// the order of memory accesses is kept. A reduction along a sliced dimension reduces each slice and
// combines the partial results with one arith op.
//
// Conservative: a group that touches a loop, an `if`, a block argument or an op it does not know
// stays whole (split-accumulators handles the loop's accumulator; anything else keeps the portable
// path with the later pass's reason); nothing is reported here.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/OpRegistry.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/TileSlices.h"
#include "ir/targets/Target.h"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

namespace xtc::passes {

using ir::Attribute;
using ir::AttrKind;
using ir::Operation;
using ir::Type;
using ir::Value;

namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;  // (offset, size) along one dimension

bool isPow2(int64_t n) { return n > 0 && std::has_single_bit(static_cast<uint64_t>(n)); }

// A vector or tile with a static dimension that is not a power of two.
bool uneven(const Value* v) {
  const Type& t = v->type();
  if (!(t.isVector() || t.isTile()) || !t.hasStaticShape()) return false;
  return std::any_of(t.shape().begin(), t.shape().end(), [](int64_t d) { return !isPow2(d); });
}

const Attribute* splat(const Operation& op) {
  const Attribute* a = op.attr("value");
  if (!op.is("arith.constant") || !a || !a->isa(AttrKind::Dense)) return nullptr;
  return (a->denseIsFloat() ? a->denseFloats().size() : a->denseInts().size()) == 1 ? a : nullptr;
}

bool elementwise(const Operation& op) {
  if (op.is("arith.constant") || op.numResults() != 1 || op.numRegions() != 0) return false;
  if (op.dialect() != "arith" && op.dialect() != "math") return false;
  if (op.numOperands() == 0 || !op.result()->type().isVector()) return false;
  for (Value* v : op.operands())
    if (!v->type().isVector() || v->type().shape() != op.result()->type().shape()) return false;
  return true;
}

// A dimension of an operand or result: -1 when it is not sliced with the op (a reduced or broadcast
// dimension of size 1, the K of a tile_mma), else the op's iteration dimension it follows.
using DimMap = std::array<int, 2>;
using Index = std::array<size_t, 2>;        // a range index per dimension
using Copy = std::pair<Operation*, Index>;  // one slice of an op, by its iteration range indices

class GroupSplitter {
public:
  GroupSplitter(ir::Block& body, const targets::Target& t) : body_(body), t_(t) {
    for (const auto& d : t_.dpas) minRows_ = std::max<int64_t>(minRows_, d.m);
  }

  void run() {
    std::vector<Operation*> ops = body_.opsSnapshot();
    std::map<Operation*, size_t> index;
    for (size_t i = 0; i < ops.size(); ++i) index[ops[i]] = i;
    std::vector<size_t> parent(ops.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](size_t i) {
      while (parent[i] != i) i = parent[i] = parent[parent[i]];
      return i;
    };
    std::vector<bool> touches(ops.size(), false);
    for (size_t i = 0; i < ops.size(); ++i) {
      for (Value* v : ops[i]->operands())
        if (uneven(v)) touches[i] = true;
      for (Value* r : ops[i]->results()) {
        if (!uneven(r)) continue;
        touches[i] = true;
        for (const ir::Use& u : r->uses())
          if (auto it = index.find(u.user); it != index.end()) parent[find(it->second)] = find(i);
      }
    }
    std::map<size_t, std::vector<Operation*>> groups;  // in block order
    for (size_t i = 0; i < ops.size(); ++i)
      if (touches[i]) groups[find(i)].push_back(ops[i]);
    for (auto& [root, group] : groups) {
      (void)root;
      if (analyse(group)) rewrite(group);
    }
  }

private:
  // --- union-find over (value, dimension) ---
  using Node = std::pair<Value*, int>;
  Node findNode(Node n) {
    auto it = nodeParent_.find(n);
    if (it == nodeParent_.end()) {
      nodeParent_[n] = n;
      return n;
    }
    if (it->second == n) return n;
    Node root = findNode(it->second);
    nodeParent_[n] = root;
    return root;
  }
  void join(Node a, Node b) {
    Node ra = findNode(a), rb = findNode(b);
    if (ra != rb) nodeParent_[ra] = rb;
  }

  // The iteration dimensions of `op`'s operand `i` (operand) or result `i`, and whether `op` is a
  // kind this pass slices. Iteration dims: the result's (the stored value's for store_tile, the
  // tile's for prefetch_tile, the operand's for a reduction).
  std::optional<DimMap> operandMap(const Operation& op, unsigned i) const {
    if (op.is("tile.tile_mma")) {
      if (i == 0) return DimMap{0, -1};
      if (i == 1) return DimMap{-1, 1};
      return DimMap{0, 1};
    }
    if (op.is("tile.transpose")) return DimMap{1, 0};
    if (op.is("tile.broadcast")) {
      int64_t d = op.attr("dims")->getIntArray()[0];
      return d == 0 ? DimMap{-1, 1} : DimMap{0, -1};
    }
    if (op.is("tile.update_tile_offset") && i > 0) return std::nullopt;  // an index offset
    if (op.is("tile.init_tile")) return std::nullopt;                    // memref, offsets, sizes
    return DimMap{0, 1};
  }
  static DimMap resultMap(const Operation& op) {
    if (op.is("tile.reduction")) {
      DimMap m{0, 1};
      for (int64_t d : op.attr("dims")->getIntArray()) m[d] = -1;
      return m;
    }
    return DimMap{0, 1};
  }
  // The value whose dimensions are the op's iteration dimensions.
  static Value* iterationValue(Operation& op) {
    if (op.is("tile.store_tile")) return op.operand(0);
    if (op.is("tile.prefetch_tile") || op.is("tile.reduction")) return op.operand(0);
    return op.result();
  }

  // Whether `op` is a kind this pass can slice, with its attributes in the supported forms.
  bool supported(const Operation& op) const {
    if (op.numRegions() || op.parentBlock() != &body_) return false;
    if (op.is("tile.init_tile")) {
      const Type& t = op.result()->type();
      const ir::TileInfo& info = t.tileInfo();
      bool plainOrder = info.order.empty() || info.order == std::vector<int64_t>{1, 0};
      return t.rank() == 2 && op.operand(0)->type().isMemRef() && plainOrder && !info.wgMap && !info.layout &&
             !info.scattered && info.innerBlocks.empty() && offsetOperand(op, 0);
    }
    if (op.is("tile.load_tile") || op.is("tile.store_tile") || op.is("tile.prefetch_tile") ||
        op.is("tile.update_tile_offset") || op.is("tile.tile_mma"))
      return true;
    if (op.is("tile.transpose")) return op.attr("permutation")->getIntArray() == std::vector<int64_t>{1, 0};
    if (op.is("tile.broadcast")) {
      const std::vector<int64_t>& dims = op.attr("dims")->getIntArray();
      return dims.size() == 1 && op.operand(0)->type().shape()[dims[0]] == 1;
    }
    if (op.is("tile.reduction")) {
      if (op.hasAttr("reduction_size")) return false;
      const Attribute* kind = op.attr("kind");
      return kind && !combineOp(kind->getString(), op.result()->type().elem()).empty();
    }
    if (op.is("arith.constant")) return splat(op) != nullptr;
    return elementwise(op);
  }

  // The 1-based operand of an init_tile's offset along tile dimension d (its memref's last two).
  static std::optional<unsigned> offsetOperand(const Operation& init, int d) {
    int64_t r = init.operand(0)->type().rank();
    if (const Attribute* s = init.attr("segments")) r = s->getIntArray().at(0);
    if (r < 2) return std::nullopt;
    return static_cast<unsigned>(1 + r - 2 + d);
  }

  // Fills the axis classes and their ranges; false when the group stays whole.
  bool analyse(const std::vector<Operation*>& group) {
    nodeParent_.clear();
    ranges_.clear();
    inGroup_ = std::set<Operation*>(group.begin(), group.end());
    std::vector<Node> outside;  // dimensions of vectors the group uses whole
    for (Operation* op : group) {
      if (!supported(*op)) return false;
      for (Value* r : op->results()) {
        if (r->type().isShaped() && r->type().rank() != 2) return false;
        if (uneven(r))
          for (const ir::Use& u : r->uses())
            if (!inGroup_.count(u.user)) return false;  // nested in a region, or a terminator
      }
      Value* it = iterationValue(*op);
      for (unsigned i = 0; i < op->numOperands(); ++i) {
        Value* v = op->operand(i);
        std::optional<DimMap> m = operandMap(*op, i);
        if (!m) continue;
        if (v->type().rank() != 2) return false;
        Operation* d = v->definingOp();
        bool mine = d && inGroup_.count(d);
        if (!mine && uneven(v)) return false;  // a block argument
        for (int e = 0; e < 2; ++e) {
          if (!mine) outside.push_back({v, e});
          if ((*m)[e] >= 0) join({v, e}, {it, (*m)[e]});
          else findNode({v, e});
        }
      }
      DimMap rm = resultMap(*op);
      if (op->numResults() == 1 && op->result() != it)
        for (int e = 0; e < 2; ++e) {
          if (rm[e] >= 0) join({op->result(), e}, {it, rm[e]});
          else findNode({op->result(), e});
        }
      if (op->numResults() == 1)
        for (int e = 0; e < 2; ++e) findNode({op->result(), e});
    }
    // Each class: one size; a multiple of 8 rows where it is a row dimension, of the subgroup size
    // where it is a column dimension.
    std::map<Node, std::pair<int64_t, int64_t>> sizeUnit;
    for (auto& [n, p] : nodeParent_) {
      (void)p;
      Node root = findNode(n);
      int64_t size = n.first->type().shape()[n.second];
      int64_t unit = n.second == 0 ? minRows_ : t_.subgroupSize;
      auto [it, fresh] = sizeUnit.try_emplace(root, size, unit);
      if (!fresh) {
        if (it->second.first != size) return false;
        it->second.second = std::max(it->second.second, unit);
      }
    }
    for (auto& [root, su] : sizeUnit) {
      auto [size, unit] = su;
      ranges_[root] = isPow2(size) ? Ranges{{0, size}} : powerOfTwoRanges(size, unit);
      if (ranges_[root].empty()) return false;
    }
    for (const Node& n : outside)
      if (ranges_.at(findNode(n)).size() != 1) return false;
    // The K of a tile_mma is not cut (that would need a chain of partial products).
    for (Operation* op : group)
      if (op->is("tile.tile_mma") && ranges_.at(findNode({op->operand(0), 1})).size() != 1) return false;
    return true;
  }

  const Ranges& rangesOf(Value* v, int d) { return ranges_.at(findNode({v, d})); }

  // The slice of in-group value `v` at per-dimension range indices `idx`.
  Value* sliceOf(Value* v, Index idx) {
    Operation* d = v->definingOp();
    if (!d || !inGroup_.count(d)) return v;
    return slices_.at({v, idx[0], idx[1]});
  }

  Type sliceType(Value* v, Index idx) {
    return v->type().withShape({rangesOf(v, 0)[idx[0]].second, rangesOf(v, 1)[idx[1]].second});
  }

  // --- the order of the slices ---

  static Index project(const DimMap& m, Index idx) {
    return {m[0] >= 0 ? idx[m[0]] : 0, m[1] >= 0 ? idx[m[1]] : 0};
  }

  // Op by op: every slice of an op where the op was (always legal: the accesses keep their order).
  std::vector<Copy> opMajor(const std::vector<Operation*>& group) {
    std::vector<Copy> seq;
    for (Operation* op : group) {
      Value* it = iterationValue(*op);
      for (size_t i0 = 0; i0 < rangesOf(it, 0).size(); ++i0)
        for (size_t i1 = 0; i1 < rangesOf(it, 1).size(); ++i1) seq.push_back({op, {i0, i1}});
    }
    return seq;
  }

  // Slice by slice: for each choice of a range per cut dimension, every op's slice of it whose
  // operands are complete (a reduction along a cut dimension after its last partial result). Only
  // one slice's values are live at a time, as in a kernel written for the slice's shape. Empty when
  // some slice would never be made.
  std::vector<Copy> sliceMajor(const std::vector<Operation*>& group) {
    std::vector<Node> cut;  // the cut dimensions' classes, in order of first appearance
    for (Operation* op : group)
      for (int d = 0; d < 2; ++d) {
        Node root = findNode({iterationValue(*op), d});
        if (ranges_.at(root).size() > 1 && std::find(cut.begin(), cut.end(), root) == cut.end()) cut.push_back(root);
      }
    std::set<std::tuple<Value*, size_t, size_t>> ready;
    std::map<std::tuple<Value*, size_t, size_t>, size_t> partials;
    std::set<Copy> made;
    std::vector<Copy> seq;
    std::vector<size_t> sigma(cut.size(), 0);
    for (;;) {
      for (Operation* op : group) {
        Value* it = iterationValue(*op);
        Index idx{0, 0};
        for (int d = 0; d < 2; ++d) {
          auto c = std::find(cut.begin(), cut.end(), findNode({it, d}));
          if (c != cut.end()) idx[d] = sigma[c - cut.begin()];
        }
        if (made.count({op, idx})) continue;
        bool complete = true;
        for (unsigned i = 0; i < op->numOperands(); ++i) {
          std::optional<DimMap> m = operandMap(*op, i);
          Operation* d = op->operand(i)->definingOp();
          if (!m || !d || !inGroup_.count(d)) continue;
          Index vi = project(*m, idx);
          complete = complete && ready.count({op->operand(i), vi[0], vi[1]});
        }
        if (!complete) continue;
        made.insert({op, idx});
        seq.push_back({op, idx});
        if (op->numResults() != 1) continue;
        Index ri = project(resultMap(*op), idx);
        std::tuple<Value*, size_t, size_t> key{op->result(), ri[0], ri[1]};
        size_t needed = 1;
        if (op->is("tile.reduction"))
          for (int64_t d : op->attr("dims")->getIntArray()) needed *= rangesOf(op->operand(0), static_cast<int>(d)).size();
        if (++partials[key] == needed) ready.insert(key);
      }
      size_t k = cut.size();
      while (k > 0 && ++sigma[k - 1] == ranges_.at(cut[k - 1]).size()) sigma[--k] = 0;
      if (k == 0) break;
    }
    return seq.size() == opMajor(group).size() ? seq : std::vector<Copy>{};
  }

  // What a load, store or prefetch accesses: its memref and its tile; nullopt for any other effect.
  struct Access {
    Value* memref;
    Value* tile;
    bool write;
  };
  static std::optional<Access> access(Operation* op) {
    Value* tile = nullptr;
    if (op->is("tile.load_tile") || op->is("tile.prefetch_tile")) tile = op->operand(0);
    else if (op->is("tile.store_tile")) tile = op->operand(1);
    else return std::nullopt;
    Value* t = tile;
    Operation* d = t->definingOp();
    while (d && d->is("tile.update_tile_offset")) d = d->operand(0)->definingOp();
    if (!d || !d->is("tile.init_tile") || !d->operand(0)->type().isMemRef()) return std::nullopt;
    return Access{d->operand(0), tile, op->is("tile.store_tile")};
  }
  static bool pure(const Operation* op) {
    const ir::OpInfo* info = ir::findOp(op->name());
    return op->numRegions() == 0 && info && info->traits.pure;
  }
  // Whether two ops may swap. Distinct memref arguments are taken not to overlap, as everywhere in xtc.
  static bool commute(Operation* a, Operation* b) {
    if (pure(a) || pure(b)) return true;
    std::optional<Access> x = access(a), y = access(b);
    return x && y && (x->memref != y->memref || (!x->write && !y->write));
  }

  // For the slice-by-slice order: makes the group contiguous, moving the ops between its first and
  // last op that do not use its results before it and those that do after it, when every access
  // that changes order commutes, and the group's own accesses to one memref that stores go through
  // one tile (then different slices are disjoint rectangles). False, changing nothing, otherwise.
  bool makeContiguous(const std::vector<Operation*>& group) {
    for (Operation* a : group)
      for (Operation* b : group) {
        if (a == b || pure(a) || pure(b)) continue;
        std::optional<Access> x = access(a), y = access(b);
        if (!x || !y) return false;
        if (x->memref == y->memref && (x->write || y->write) && x->tile != y->tile) return false;
      }
    std::vector<Operation*> span;  // first..last group op
    for (Operation* op = group.front(); op; op = op->nextInBlock()) {
      span.push_back(op);
      if (op == group.back()) break;
    }
    std::set<Value*> fromGroup;
    std::map<Operation*, int> rank;  // 0 moves before the group, 1 the group, 2 after it
    for (Operation* op : span) {
      bool grouped = inGroup_.count(op) > 0, uses = false;
      for (Value* v : op->operands()) uses = uses || fromGroup.count(v);
      if (!grouped && op->numRegions()) return false;
      rank[op] = grouped ? 1 : uses ? 2 : 0;
      if (grouped || uses)
        for (Value* r : op->results()) fromGroup.insert(r);
      if (grouped)
        for (Value* v : op->operands())
          if (Operation* d = v->definingOp(); d && rank.count(d) && rank[d] == 2) return false;
    }
    for (size_t i = 0; i < span.size(); ++i)
      for (size_t j = i + 1; j < span.size(); ++j)
        if (rank[span[i]] > rank[span[j]] && !commute(span[i], span[j])) return false;
    Operation* after = group.back()->nextInBlock();
    for (Operation* op : span) {
      if (rank[op] == 0) op->moveBefore(group.front());
      else if (rank[op] == 2) op->moveBefore(after);
    }
    return true;
  }

  void rewrite(const std::vector<Operation*>& group) {
    slices_.clear();
    std::vector<Copy> seq = sliceMajor(group);
    Operation* at = nullptr;  // where every slice goes, or null: each where its op is
    if (!seq.empty() && makeContiguous(group)) at = group.front();
    else seq = opMajor(group);
    for (auto& [op, idx] : seq) {
      ir::Builder b;
      b.setInsertionPoint(at ? at : op);
      b.setLoc(op->loc());
      Value* it = iterationValue(*op);
      std::pair<int64_t, int64_t> row = rangesOf(it, 0)[idx[0]], col = rangesOf(it, 1)[idx[1]];
      std::vector<Value*> ops;
      for (unsigned i = 0; i < op->numOperands(); ++i) {
        Value* v = op->operand(i);
        std::optional<DimMap> m = operandMap(*op, i);
        ops.push_back(m ? sliceOf(v, project(*m, idx)) : v);
      }
      if (op->is("tile.init_tile"))
        for (int d = 0; d < 2; ++d)
          if (int64_t o = (d == 0 ? row : col).first) {
            unsigned k = *offsetOperand(*op, d);
            ops[k] = b.create("arith.addi", {ops[k], b.constantIndex(o)}, {Type::index()})->result();
          }
      Index ri = project(resultMap(*op), idx);
      ir::AttrMap attrs = op->attrs();
      if (const Attribute* s = splat(*op)) {
        Type t = sliceType(op->result(), ri);
        attrs["value"] = s->denseIsFloat() ? Attribute::denseFloat(t, s->denseFloats()) : Attribute::denseInt(t, s->denseInts());
      }
      if (op->is("tile.broadcast") && attrs.count("broadcast_size")) {
        int64_t d = op->attr("dims")->getIntArray()[0];
        attrs["broadcast_size"] = Attribute::integer(sliceType(op->result(), ri).shape()[d]);
      }
      std::vector<Type> types;
      for (Value* r : op->results()) types.push_back(sliceType(r, ri));
      Operation* n = b.create(op->name(), ops, types, attrs);
      if (op->numResults() == 0) continue;
      Value* r = n->result();
      r->setNameHint(op->result()->nameHint());
      auto [found, fresh] = slices_.try_emplace({op->result(), ri[0], ri[1]}, r);
      if (!fresh) {
        // A reduction's partial result, combined with those of the slices before it.
        Value* all = b.create(combineOp(op->attr("kind")->getString(), r->type().elem()), {found->second, r}, {r->type()})->result();
        all->setNameHint(op->result()->nameHint());
        found->second = all;
      }
    }
    // A result that is whole (a reduction along every cut dimension) replaces the original for
    // its users outside the group.
    for (Operation* op : group)
      if (op->numResults() == 1 && rangesOf(op->result(), 0).size() == 1 && rangesOf(op->result(), 1).size() == 1)
        op->result()->replaceAllUsesWith(slices_.at({op->result(), 0, 0}));
    for (auto it = group.rbegin(); it != group.rend(); ++it) (*it)->erase();
  }

  ir::Block& body_;
  const targets::Target& t_;
  int64_t minRows_ = 1;
  std::map<Node, Node> nodeParent_;
  std::map<Node, Ranges> ranges_;  // class root -> its ranges
  std::set<Operation*> inGroup_;
  std::map<std::tuple<Value*, size_t, size_t>, Value*> slices_;
};

class SplitUnevenTilesPass : public Pass {
public:
  std::string name() const override { return "split-uneven-tiles"; }
  std::string description() const override {
    return "pvc/dg2: straight-line tiles and vectors not a power of two (24x16) -> power-of-two slices (16x16 + 8x16)";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target || ctx.target->kind == targets::TargetKind::Generic) return true;  // no linear layouts there
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered
      GroupSplitter(ir::kernelBody(k), *ctx.target).run();
    }
    return true;
  }
};

}  // namespace

void registerSplitUnevenTilesPass() {
  registerPass("split-uneven-tiles", [] { return std::make_unique<SplitUnevenTilesPass>(); });
}

}  // namespace xtc::passes
