// The `order-transpose` pass: makes column-major tiles and transposes explicit and cheap (contract in
// docs/passes.md, "order-transpose").
//
// 0. A memref parameter with strides (a column-major matrix, dense: ir::denseMemRefOrder) becomes at
//    the kernel's entry a memref.transpose to the dense row-major memref of its transposed view, and
//    every use reads that view: memref.dim the permuted dimension, init_tile the same base with the
//    logical shape and strides written out (step 1 turns them into the transposed row-major view).
//    After this no pass after order-transpose sees a memref with strides.
// 1. A tile<RxC, order = [0, 1]> over column-major memory is, physically, a row-major CxR tile of the
//    transposed view (RFC appendix 1). Every such tile becomes that row-major tile: init_tile takes the
//    swapped offsets with explicit swapped shape/strides operands, update_tile_offset swaps its deltas,
//    a load becomes load + tile.transpose {strategy = "load"} (blocking folds it into a transposed 2D
//    block load where the target has one), a store becomes tile.transpose {strategy = "register"} +
//    store. At workgroup level the tile keeps a wg_map only if the swapped wg_map gives every subgroup
//    exactly the transpose of its blocks; otherwise the tile is left for the run after wg-distribute,
//    unless it is only prefetched: then it gets a wg_map of the view sized for 2D prefetches
//    (remapPrefetchWebs).
// 2. Every tile.transpose gets `strategy`: "load" (operand is a single-use load_tile and the target
//    can transpose that element width in a 2D block load), "register" (each subgroup already holds the
//    transposed data: RFC appendix 2.3), or "slm" (subgroups must exchange data; wg-distribute goes
//    through shared local memory). "load" covers 16-bit elements too (pairs moved as 32-bit, seed 000).
//    Before choosing "slm" for a transpose of a load, the pass tries the
//    appendix 2.3 optimization: re-map the loaded tile to a wg_map under which the transpose is local.
#include "ir/passes/OrderTranspose.h"

#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/WgDistributeMap.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace xtc::passes {

using ir::Attribute;
using ir::AttrKind;
using ir::Builder;
using ir::Operation;
using ir::Type;
using ir::Value;
using ir::WgMap;

namespace {

std::shared_ptr<const Attribute> mapAttr(const WgMap& m) { return std::make_shared<const Attribute>(Attribute::wgMap(m)); }

std::vector<int64_t> swap2(const std::vector<int64_t>& v) { return {v[1], v[0]}; }

// True if, for every subgroup, the blocks of `t` (shape transposed of `orig`) are exactly the
// transposes of the blocks of `orig`, in the same order.
bool transposesBlocks(const SgDistribution& orig, const SgDistribution& t) {
  if (t.blockShape() != swap2(orig.blockShape()) || t.numBlocks() != orig.numBlocks() || t.numSubgroups() != orig.numSubgroups())
    return false;
  for (int64_t s = 0; s < orig.numSubgroups(); ++s) {
    auto o = orig.blockOffsets(s), n = t.blockOffsets(s);
    std::set<std::vector<int64_t>> a, b;
    for (auto& x : o) a.insert(swap2(x));
    for (auto& x : n) b.insert(x);
    if (a != b) return false;
  }
  return true;
}

bool isColumnMajorTile(const Type& t) {
  return t.isTile() && t.rank() == 2 && t.tileInfo().order == std::vector<int64_t>{0, 1};
}

class OrderTranspose {
public:
  OrderTranspose(Operation* kernel, DiagnosticEngine& diags, const targets::Target& target)
      : kernel_(kernel), diags_(diags), target_(target) {}
  bool run() {
    viewStridedMemRefs();
    if (failed_) return false;
    rewriteColumnMajorTiles();
    if (failed_) return false;
    chooseStrategies();
    return !failed_;
  }

private:
  void error(const SourceLoc& loc, const std::string& msg) {
    diags_.error(loc, "order-transpose: " + msg);
    failed_ = true;
  }

  // The row-major type of a column-major tile type, or nullopt if it cannot be expressed here.
  std::optional<Type> physicalType(const Type& t) {
    ir::TileInfo info = t.tileInfo();
    info.order.clear();
    if (auto m = wgMapOf(t)) {
      WgMap swapped{swap2(m->sgLayout), swap2(m->sgData)};
      SgDistribution orig(t.shape(), *m), phys(swap2(t.shape()), swapped);
      if (!SgDistribution::check(phys.shape(), swapped).empty() || !transposesBlocks(orig, phys)) return std::nullopt;
      info.wgMap = mapAttr(swapped);
    }
    return Type::tile(swap2(t.shape()), t.elem(), info);
  }

  Value* transpose(Builder& b, Value* v, const Type& resultType, const char* strategy) {
    return b.create("tile.transpose", {v}, {resultType},
                    {{"permutation", Attribute::intArray({1, 0})}, {"strategy", Attribute::string(strategy)}})
        ->result();
  }

  // The vector type holding a loaded/stored physical tile.
  static Type vectorOf(const Type& tile, const Type& like) {
    return Type::vector(tile.shape(), like.elem(), tile.tileInfo().wgMap);
  }

  // Replaces init_tile `op` by one with `operands` (r offsets, r sizes, r strides after the source).
  static void replaceInitTile(Builder& b, Operation* op, const std::vector<Value*>& operands, int64_t r) {
    ir::AttrMap attrs = op->attrs();
    attrs["segments"] = Attribute::intArray({r, r, r});
    Operation* n = b.create(op->name(), operands, {op->result()->type()}, attrs);
    n->result()->setNameHint(op->result()->nameHint());
    op->result()->replaceAllUsesWith(n->result());
    op->erase();
  }

  void rewriteInitTile(Operation* op) {
    Builder b;
    b.setInsertionPoint(op);
    b.setLoc(op->loc());
    std::vector<int64_t> seg = op->attr("segments") ? op->attr("segments")->getIntArray()
                                                    : std::vector<int64_t>{op->numOperands() - 1, 0, 0};
    Value* src = op->operand(0);
    // The tile covers the source's two innermost dimensions (r >= 2 for a 2-D tile): they swap; outer
    // dimensions keep their offsets, sizes and strides.
    const int64_t r = seg[0];
    if (r < 2) return error(op->loc(), "a column-major tile needs a source of rank 2 or more");
    auto swapLast = [r](std::vector<Value*> v) {
      std::swap(v[r - 2], v[r - 1]);
      return v;
    };
    auto operandsAt = [&](int64_t first) {
      std::vector<Value*> v;
      for (int64_t i = 0; i < r; ++i) v.push_back(op->operand(static_cast<unsigned>(first + i)));
      return v;
    };
    std::vector<Value*> operands{src};
    for (Value* v : swapLast(operandsAt(1))) operands.push_back(v);
    if (seg[1] == r) {
      // shape [.., M, N] and strides [.., 1, ld] of the logical view -> [.., N, M] and [.., ld, 1].
      for (Value* v : swapLast(operandsAt(1 + r))) operands.push_back(v);
      for (Value* v : swapLast(operandsAt(1 + 2 * r))) operands.push_back(v);
    } else {
      const Type& mt = src->type();
      bool ok = mt.isMemRef() && mt.hasStaticShape() && static_cast<int64_t>(mt.strides().size()) == r && mt.strides()[r - 2] == 1;
      for (int64_t i = 0; ok && i < r; ++i) ok = mt.strides()[i] != ir::kDynamic;
      if (!ok)
        return error(op->loc(), fmt::format("tile with order = [0, 1] needs a column-major source (strides = [1, N]) or explicit "
                                            "shape and strides; got {}",
                                            mt.str()));
      std::vector<int64_t> dims;  // the physical order: the two innermost swapped
      for (int64_t i = 0; i < r; ++i) dims.push_back(i < r - 2 ? i : 2 * r - 3 - i);
      for (int64_t i : dims) operands.push_back(b.constantIndex(mt.shape()[i]));
      for (int64_t i : dims) operands.push_back(b.constantIndex(mt.strides()[i]));
    }
    replaceInitTile(b, op, operands, r);
  }

  std::string paramName(unsigned i) const {
    const Attribute* names = kernel_->attr("arg_names");
    if (names && names->kind() == AttrKind::Array && i < names->getArray().size() &&
        names->getArray()[i].kind() == AttrKind::String)
      return names->getArray()[i].getString();
    return fmt::format("#{}", i);
  }

  void viewStridedMemRefs() {
    ir::Block& body = ir::kernelBody(kernel_);
    Operation* first = body.front();  // the views go before it, in parameter order
    for (Value* p : body.arguments()) {
      const Type mt = p->type();
      if (!mt.isMemRef() || mt.strides().empty()) continue;
      std::optional<std::vector<int64_t>> order = ir::denseMemRefOrder(mt);
      if (!order || mt.memSpace() != ir::MemSpace::Global)
        return error(kernel_->loc(), fmt::format("parameter '{}' has type {}, whose strides are not a dense layout (the front "
                                                 "end accepts only dense row- or column-major strides)",
                                                 paramName(p->index()), mt.str()));
      const auto r = static_cast<size_t>(mt.rank());
      bool identity = true;
      for (size_t i = 0; i < r; ++i) identity = identity && (*order)[i] == static_cast<int64_t>(i);
      std::vector<int64_t> shape, pos(r);  // pos[d]: where logical dimension d sits in the view
      for (size_t i = 0; i < r; ++i) {
        shape.push_back(mt.shape()[static_cast<size_t>((*order)[i])]);
        pos[static_cast<size_t>((*order)[i])] = static_cast<int64_t>(i);
      }
      // The pass runs twice (before and after wg-distribute): the first run's view is reused.
      Value* view = nullptr;
      for (const ir::Use& u : p->uses())
        if (u.user->is("memref.transpose") && u.user->parentBlock() == &body) view = u.user->result();
      if (!view) {
        Builder b;
        b.setInsertionPoint(first);
        b.setLoc(kernel_->loc());
        view = b.create("memref.transpose", {p}, {Type::memref(shape, mt.elem(), mt.memSpace())},
                        {{"permutation", Attribute::intArray(*order)}})
                   ->result();
        view->setNameHint(p->nameHint());
      }
      // Only the body's uses: the launch region (xtc.grid) is evaluated on the host with the
      // parameter's own logical dims.
      auto inBody = [&](Operation* o) {
        while (o && o->parentBlock() && o->parentBlock() != &body) o = o->parentOp();
        return o && o->parentBlock() == &body;
      };
      std::vector<Operation*> users;
      for (const ir::Use& u : p->uses())
        if (u.user != view->definingOp() && inBody(u.user)) users.push_back(u.user);
      for (Operation* op : users) {
        if (identity) {
          // A dense row-major view of a row-major memref: any use reads it unchanged.
          for (unsigned i = 0; i < op->numOperands(); ++i)
            if (op->operand(i) == p) op->setOperand(i, view);
        } else if (op->is("memref.dim")) {
          op->setOperand(0, view);
          op->setAttr("index", Attribute::integer(pos[static_cast<size_t>(op->intAttr("index", 0))]));
        } else if (op->is("tile.init_tile") && op->operand(0) == p && !op->result()->type().tileInfo().scattered) {
          viewInitTile(op, view, *order, pos);
        } else {
          return error(op->loc(), fmt::format("'{}' on a memref with strides ({}) is not supported", op->name(), mt.str()));
        }
      }
    }
  }

  // init_tile over a strided memref `p` -> over `view` (same base address) with p's shape and strides
  // as explicit operands, unless it has them already.
  void viewInitTile(Operation* op, Value* view, const std::vector<int64_t>& order, const std::vector<int64_t>& pos) {
    const Type mt = op->operand(0)->type();
    std::vector<int64_t> seg = op->attr("segments") ? op->attr("segments")->getIntArray()
                                                    : std::vector<int64_t>{op->numOperands() - 1, 0, 0};
    op->setOperand(0, view);
    if (seg[1] != 0) return;  // already explicit
    const int64_t r = mt.rank();
    if (seg[0] != r) return error(op->loc(), "internal error: order-transpose: init_tile needs one offset per memref dimension");
    Builder b;
    b.setInsertionPoint(op);
    b.setLoc(op->loc());
    std::vector<Value*> dims;
    for (int64_t d = 0; d < r; ++d) {
      int64_t n = mt.shape()[static_cast<size_t>(d)];
      dims.push_back(n != ir::kDynamic ? b.constantIndex(n)
                                       : b.create("memref.dim", {view}, {Type::index()},
                                                  {{"index", Attribute::integer(pos[static_cast<size_t>(d)])}})
                                             ->result());
    }
    // Dense strides in the memref's order, fastest dimension first: static ones as constants, a
    // dynamic one the product of the next faster dimension's stride and size.
    std::vector<int64_t> dense = ir::denseStrides(mt.shape(), order);
    std::vector<Value*> strides(static_cast<size_t>(r));
    for (int64_t i = r; i-- > 0;) {
      auto d = static_cast<size_t>(order[static_cast<size_t>(i)]);
      if (dense[d] != ir::kDynamic) {
        strides[d] = b.constantIndex(dense[d]);
      } else {
        auto f = static_cast<size_t>(order[static_cast<size_t>(i + 1)]);
        strides[d] = b.create("arith.muli", {strides[f], dims[f]}, {Type::index()})->result();
      }
    }
    std::vector<Value*> operands(op->operands().begin(), op->operands().end());
    for (Value* v : dims) operands.push_back(v);
    for (Value* v : strides) operands.push_back(v);
    replaceInitTile(b, op, operands, r);
  }

  void rewriteColumnMajorTiles() {
    // Decide per type, so every value of a loop-carried chain changes together.
    std::vector<Value*> values;
    kernel_->walk([&](Operation* o) {
      for (Value* r : o->results())
        if (isColumnMajorTile(r->type())) values.push_back(r);
      for (unsigned r = 0; r < o->numRegions(); ++r)
        for (unsigned bi = 0; bi < o->region(r).numBlocks(); ++bi)
          for (Value* a : o->region(r).block(bi).arguments())
            if (isColumnMajorTile(a->type())) values.push_back(a);
    });
    std::map<Value*, Type> prefetchTypes = remapPrefetchWebs(values);
    std::vector<Operation*> users;
    std::set<Operation*> seen;
    for (Value* v : values) {
      auto it = prefetchTypes.find(v);
      auto pt = it != prefetchTypes.end() ? std::optional<Type>(it->second) : physicalType(v->type());
      if (!pt) continue;  // wg_map not expressible transposed: handled after wg-distribute
      v->setType(*pt);
      if (v->definingOp() && seen.insert(v->definingOp()).second) users.push_back(v->definingOp());
      for (const ir::Use& u : v->uses())
        if (seen.insert(u.user).second) users.push_back(u.user);
    }
    for (Operation* op : users) {
      if (failed_) return;
      Builder b;
      b.setLoc(op->loc());
      const std::string& n = op->name();
      if (n == "tile.init_tile") {
        rewriteInitTile(op);
      } else if (n == "tile.update_tile_offset" && op->numOperands() == 3) {
        Value *a = op->operand(1), *c = op->operand(2);
        op->setOperand(1, c);
        op->setOperand(2, a);
      } else if (n == "tile.load_tile") {
        Value* old = op->result();
        Type logical = old->type();
        b.setInsertionPointAfter(op);
        old->setType(vectorOf(op->operand(0)->type(), logical));
        Value* t = transpose(b, old, logical, "load");
        old->replaceUsesWithIf(t, [&](const ir::Use& u) { return u.user != t->definingOp(); });
      } else if (n == "tile.store_tile" || n == "tile.atomic_rmw") {
        b.setInsertionPoint(op);
        Value* v = op->operand(0);
        op->setOperand(0, transpose(b, v, vectorOf(op->operand(1)->type(), v->type()), "register"));
        if (n == "tile.atomic_rmw") {
          Value* old = op->result();
          Type logical = old->type();
          b.setInsertionPointAfter(op);
          old->setType(vectorOf(op->operand(1)->type(), logical));
          Value* t = transpose(b, old, logical, "register");
          old->replaceUsesWithIf(t, [&](const ir::Use& u) { return u.user != t->definingOp(); });
        }
      } else if (n == "tile.prefetch_tile" || n == "scf.for" || n == "scf.yield" || n == "scf.if") {
        // Prefetch reads the same memory either way; control flow carries the new type as is.
      } else {
        error(op->loc(), fmt::format("'{}' on a column-major tile is not supported", n));
      }
    }
  }

  // A column-major tile that only prefetches (its web: init_tile, update_tile_offset, prefetch_tile,
  // loops and ifs that carry it) and whose wg_map does not transpose block by block would be
  // distributed with its order: each subgroup then prefetches the transpose of its logical block,
  // which for the RFC's maps is a few bytes wide (#mp_b_pfh's 8 x 32 f16 block is 32 rows of 16
  // bytes in memory: no 2D message, per-lane prefetches, and the pvc loop statement refuses the
  // loop). A prefetch is a hint and any wg_map of the same subgroup count prefetches the same
  // tile, so such a web gets the physical row-major tile with a wg_map chosen for 2D prefetches:
  // among the maps that cover it exactly with its subgroup count, one whose block has rows of a
  // multiple of 32 bytes, the fewest 32-row x 64-byte pieces, then the widest rows (256 x 32 f16
  // over 32 subgroups: [32, 1] x [8, 32], one d16 2x16x8 message each, as the row-major B's
  // #mp_b_pfh gives). Values not in such a web are not in the result.
  std::map<Value*, Type> remapPrefetchWebs(const std::vector<Value*>& values) {
    std::map<Value*, Type> out;
    for (Value* v : values) {
      const Type& t = v->type();
      auto m = wgMapOf(t);
      if (out.count(v) || !m || physicalType(t)) continue;
      auto web = tileWeb(v, nullptr, true);
      if (!web) continue;
      std::vector<int64_t> shape = swap2(t.shape());
      int64_t n = m->numSubgroups(), eb = std::max<int64_t>(1, ir::elemBits(t.elem()) / 8);
      std::optional<WgMap> best;
      std::pair<int64_t, int64_t> bestCost{};
      for (int64_t l0 = 1; l0 <= n; ++l0) {
        if (n % l0 || shape[0] % l0 || shape[1] % (n / l0)) continue;
        WgMap cand{{l0, n / l0}, {shape[0] / l0, shape[1] / (n / l0)}};
        int64_t rows = cand.sgData[0], bytes = cand.sgData[1] * eb;
        if (bytes % 32 != 0 || !SgDistribution::check(shape, cand).empty()) continue;
        std::pair<int64_t, int64_t> cost{((bytes + 63) / 64) * ((rows + 31) / 32), -bytes};
        if (!best || cost < bestCost) {
          best = cand;
          bestCost = cost;
        }
      }
      if (!best) continue;
      ir::TileInfo info = t.tileInfo();
      info.order.clear();
      info.wgMap = mapAttr(*best);
      Type pt = Type::tile(shape, t.elem(), info);
      for (Value* w : *web) out.emplace(w, pt);
    }
    return out;
  }

  bool canFoldIntoLoad(Value* operand) {
    Operation* d = operand->definingOp();
    if (!d || !d->is("tile.load_tile") || operand->uses().size() != 1) return false;
    // 32-bit elements directly; 16-bit ones in pairs, moved as dwords by the same d32 message (seed
    // 000; for a DPAS B operand that is the VNNI layout, reference §2.3).
    unsigned bits = ir::elemBits(operand->type().elem());
    for (const auto& s : target_.blockLoads)
      if (s.transpose && s.elemBits == 32 && (bits == 32 || bits == 16)) return true;
    return false;
  }

  // The tile values that must change wg_map together with `tile`, the operand of `load`: `tile`
  // itself, the update_tile_offset chain through it, and the scf.for init operands, iter args, yields
  // and results that carry it (RFC appendix 2.3 re-maps a loop-carried tile). Null when a value of the
  // web has another user than `load`, update_tile_offset, prefetch_tile (a hint: any wg_map prefetches
  // the same tile) and loops, or is defined by something other than init_tile / update_tile_offset /
  // a loop.
  //
  // With `throughIf`, scf.if results and yields carry the web too (RFC 2.5's L2 prefetch tiles
  // advance inside an scf.if).
  std::optional<std::vector<Value*>> tileWeb(Value* tile, Operation* load, bool throughIf = false) {
    std::vector<Value*> web, work{tile};
    std::set<Value*> seen{tile};
    auto add = [&](Value* v) {
      if (seen.insert(v).second) work.push_back(v);
    };
    // The loop-carried value number `i` of `loop`: init operand, iter arg, yielded value, result.
    auto carried = [&](Operation* loop, unsigned i) {
      add(loop->operand(3 + i));
      ir::Block& body = loop->region(0).block();
      add(body.argument(1 + i));
      add(body.back()->operand(i));
      add(loop->result(i));
    };
    // Result `i` of an scf.if and what each of its regions yields in its place.
    auto yielded = [&](Operation* ifOp, unsigned i) {
      add(ifOp->result(i));
      for (unsigned r = 0; r < ifOp->numRegions(); ++r)
        if (ifOp->region(r).numBlocks() == 1) add(ifOp->region(r).block().back()->operand(i));
    };
    while (!work.empty()) {
      Value* v = work.back();
      work.pop_back();
      web.push_back(v);
      if (Operation* d = v->definingOp()) {
        if (d->is("tile.update_tile_offset")) add(d->operand(0));
        else if (d->is("scf.for")) carried(d, v->index());
        else if (throughIf && d->is("scf.if")) yielded(d, v->index());
        else if (!d->is("tile.init_tile")) return std::nullopt;
      } else {
        Operation* p = v->ownerBlock()->parentOp();
        if (!p || !p->is("scf.for") || v->index() == 0) return std::nullopt;
        carried(p, v->index() - 1);
      }
      for (const ir::Use& u : v->uses()) {
        Operation* o = u.user;
        if (o == load || o->is("tile.prefetch_tile")) continue;
        if (o->is("tile.update_tile_offset") && u.index == 0) add(o->result());
        else if (o->is("scf.for") && u.index >= 3) carried(o, u.index - 3);
        else if (o->is("scf.yield") && o->parentOp() && o->parentOp()->is("scf.for")) carried(o->parentOp(), u.index);
        else if (throughIf && o->is("scf.yield") && o->parentOp() && o->parentOp()->is("scf.if")) yielded(o->parentOp(), u.index);
        else return std::nullopt;
      }
    }
    return web;
  }

  // RFC appendix 2.3: when the transposed operand is a single-use load of a tile that nothing else
  // reads (see tileWeb: it may be loop-carried and advanced by update_tile_offset), load it with a
  // wg_map under which every subgroup gets the transpose of its output blocks.
  bool remapLoad(Operation* tr) {
    Value* x = tr->operand(0);
    Operation* ld = x->definingOp();
    if (!ld || !ld->is("tile.load_tile") || x->uses().size() != 1) return false;
    auto web = tileWeb(ld->operand(0), ld);
    if (!web) return false;
    auto outMap = wgMapOf(tr->result()->type());
    if (!outMap) return false;
    SgDistribution out(tr->result()->type().shape(), *outMap);
    std::vector<int64_t> shape = x->type().shape(), data = swap2(outMap->sgData);
    int64_t n = outMap->numSubgroups();
    for (int64_t l0 = 1; l0 <= n; ++l0) {
      if (n % l0) continue;
      WgMap cand{{l0, n / l0}, data};
      if (!SgDistribution::check(shape, cand).empty()) continue;
      SgDistribution in(shape, cand);
      if (!transposesBlocks(out, in) && !transposesBlocks(in, out)) continue;
      for (Value* t : *web) {
        ir::TileInfo info = t->type().tileInfo();
        info.wgMap = mapAttr(cand);
        t->setType(t->type().withTileInfo(info));
      }
      x->setType(x->type().withVectorLayout(mapAttr(cand)));
      return true;
    }
    return false;
  }

  void chooseStrategies() {
    std::vector<Operation*> trs;
    kernel_->walk([&](Operation* o) {
      if (o->is("tile.transpose")) trs.push_back(o);
    });
    for (Operation* tr : trs) {
      Value *x = tr->operand(0), *r = tr->result();
      auto mi = wgMapOf(x->type()), mo = wgMapOf(r->type());
      bool local = true;
      if (mi && mo && x->type().rank() == 2) {
        SgDistribution in(x->type().shape(), *mi), out(r->type().shape(), *mo);
        local = SgDistribution::check(in.shape(), *mi).empty() && SgDistribution::check(out.shape(), *mo).empty() &&
                transposesBlocks(in, out);
        if (!local) local = remapLoad(tr);
      }
      const char* strategy = !local ? "slm" : canFoldIntoLoad(x) ? "load" : "register";
      tr->setAttr("strategy", Attribute::string(strategy));
    }
  }

  Operation* kernel_;
  DiagnosticEngine& diags_;
  const targets::Target& target_;
  bool failed_ = false;
};

class OrderTransposePass : public Pass {
public:
  std::string name() const override { return "order-transpose"; }
  std::string description() const override {
    return "make column-major tiles and transposes explicit: transposed loads, in-register transposes or SLM round trips";
  }
  bool run(ir::Operation* module, PassContext& ctx) override {
    // Only the target's transposed block loads are read; without a target none are assumed.
    const targets::Target* t = ctx.target ? ctx.target : targets::findTarget("generic");
    return runOrderTranspose(module, ctx.diags, *t);
  }
};

}  // namespace

bool runOrderTranspose(ir::Operation* module, DiagnosticEngine& diags, const targets::Target& target) {
  bool ok = true;
  for (Operation* k : ir::moduleKernels(module)) {
    OrderTranspose ot(k, diags, target);
    if (!ot.run()) ok = false;
  }
  return ok;
}

void registerOrderTransposePass() {
  registerPass("order-transpose", [] { return std::make_unique<OrderTransposePass>(); });
}

}  // namespace xtc::passes
