// The `wg-distribute` pass: rewrites workgroup-level tile IR (tiles and vectors whose types carry a
// wg_map) into subgroup-level tile IR in which every value is what one subgroup owns. The contract is in
// docs/passes.md ("wg-distribute"); the ownership rules are in WgDistributeMap.h.
//
// A workgroup-level value becomes one subgroup-level value per block the subgroup owns (round-robin
// assignment gives several blocks; the order is WgDistributeMap's block numbering). Ops on such values
// are repeated per block; loop-carried and if-yielded values are expanded the same way (1:N).
// All subgroup-id math is emitted once at the kernel entry (the "prologue") so it dominates every use and
// canonicalize can fold it; per-use code only adds the prologue offsets to the user's offsets.
// Data that must move between subgroups (convert_layout, non-local reduction/transpose/broadcast) goes
// through a shared-local-memory buffer allocated in the prologue, bracketed by barriers; exchanges
// larger than the SLM left run in rounds over slabs of the buffer (exchange()).
#include "ir/passes/WgDistribute.h"

#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/layout/ConversionPlan.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/WgDistributeMap.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace xtc::passes {

using ir::Attribute;
using ir::AttrKind;
using ir::Block;
using ir::Builder;
using ir::ElemKind;
using ir::Operation;
using ir::Type;
using ir::Value;
using ir::WgMap;

namespace {

// The type of one subgroup block of a workgroup-level tile/vector type.
Type blockType(const Type& t, const std::vector<int64_t>& blockShape) {
  if (t.isTile()) {
    ir::TileInfo info = t.tileInfo();
    info.wgMap = nullptr;
    return Type::tile(blockShape, t.elem(), info);
  }
  return Type::vector(blockShape, t.elem());
}

bool touchesWg(Operation* op) {
  bool found = false;
  op->walk([&](Operation* o) {
    for (Value* v : o->operands())
      if (v && wgMapOf(v->type())) found = true;
    for (Value* v : o->results())
      if (wgMapOf(v->type())) found = true;
    for (unsigned r = 0; r < o->numRegions(); ++r)
      for (unsigned b = 0; b < o->region(r).numBlocks(); ++b)
        for (Value* a : o->region(r).block(b).arguments())
          if (wgMapOf(a->type())) found = true;
  });
  return found;
}

std::string mapStr(const WgMap& m) { return Attribute::wgMap(m).str(); }

int64_t slmElemBytes(ElemKind k) { return std::max<unsigned>(8, ir::elemBits(k)) / 8; }

// A 2-element vector with `a` at position `d` and `b` at the other position.
template <typename T>
std::vector<T> byDim(int64_t d, T a, T b) {
  return d == 0 ? std::vector<T>{a, b} : std::vector<T>{b, a};
}

class KernelDistributor {
public:
  KernelDistributor(Operation* kernel, DiagnosticEngine& diags, const targets::Target& target)
      : kernel_(kernel), diags_(diags), target_(target) {}
  bool run();

private:
  // ----- diagnostics -----
  void error(const SourceLoc& loc, const std::string& msg) {
    diags_.error(loc, "wg-distribute: " + msg);
    failed_ = true;
  }
  static SourceLoc locOf(Value* v) {
    if (v->definingOp()) return v->definingOp()->loc();
    Operation* p = v->ownerBlock()->parentOp();
    return p ? p->loc() : SourceLoc{};
  }

  // ----- value mapping -----
  bool isDist(Value* v) const { return dist_.count(v) != 0; }
  Value* one(Value* v) const { return map_.lookup(v); }
  const std::vector<Value*>& blocks(Value* v) const { return dist_.at(v); }
  SgDistribution distOf(Value* v) const { return SgDistribution(v->type().shape(), *wgMapOf(v->type())); }
  std::vector<Type> flatTypes(Value* v) const {
    auto m = wgMapOf(v->type());
    if (!m) return {v->type()};
    SgDistribution d = distOf(v);
    return std::vector<Type>(d.numBlocks(), blockType(v->type(), d.blockShape()));
  }
  std::vector<Value*> flatValues(Value* v) const { return isDist(v) ? blocks(v) : std::vector<Value*>{one(v)}; }
  // Records the new values of `old` (a run of `flat` starting at `pos`); returns the next position.
  size_t bind(Value* old, const std::vector<Value*>& flat, size_t pos) {
    if (wgMapOf(old->type())) {
      size_t n = static_cast<size_t>(distOf(old).numBlocks());
      dist_[old] = std::vector<Value*>(flat.begin() + pos, flat.begin() + pos + n);
      return pos + n;
    }
    map_.values[old] = flat[pos];
    return pos + 1;
  }

  // ----- prologue and index math -----
  Builder& pro() {
    pro_.setInsertionPoint(proEnd_);
    pro_.setLoc(kernel_->loc());
    return pro_;
  }
  Value* cst(int64_t v) {
    auto it = consts_.find(v);
    if (it != consts_.end()) return it->second;
    return consts_[v] = pro().constantIndex(v);
  }
  static bool constOf(Value* v, int64_t* out) {
    Operation* d = v->definingOp();
    if (!d || !d->is("arith.constant") || !v->type().isIndex()) return false;
    const Attribute* a = d->attr("value");
    if (!a || !a->isa(AttrKind::Int)) return false;
    *out = a->getInt();
    return true;
  }
  Value* bin(Builder& b, const char* name, Value* x, Value* y) {
    return b.create(name, {x, y}, {Type::index()})->result();
  }
  Value* add(Builder& b, Value* x, Value* y) {
    int64_t cx = 0, cy = 0;
    bool kx = constOf(x, &cx), ky = constOf(y, &cy);
    if (kx && ky) return cst(cx + cy);
    if (kx && cx == 0) return y;
    if (ky && cy == 0) return x;
    return bin(b, "arith.addi", x, y);
  }
  Value* mulc(Builder& b, Value* x, int64_t c) {
    int64_t cx = 0;
    if (constOf(x, &cx)) return cst(cx * c);
    if (c == 1) return x;
    if (c == 0) return cst(0);
    return bin(b, "arith.muli", x, cst(c));
  }
  Value* divc(Builder& b, Value* x, int64_t c) {
    int64_t cx = 0;
    if (constOf(x, &cx)) return cst(cx / c);
    if (c == 1) return x;
    return bin(b, "arith.divui", x, cst(c));
  }
  Value* remc(Builder& b, Value* x, int64_t c) {
    int64_t cx = 0;
    if (constOf(x, &cx)) return cst(cx % c);
    if (c == 1) return cst(0);
    return bin(b, "arith.remui", x, cst(c));
  }
  const std::vector<Value*>& sgCoords(const std::vector<int64_t>& layout) {
    auto it = coords_.find(layout);
    if (it != coords_.end()) return it->second;
    std::vector<Value*> c(layout.size());
    Value* rest = sgId_;
    for (size_t i = layout.size(); i-- > 0;) {
      if (i == 0) {
        c[i] = layout[i] == 1 ? cst(0) : rest;
      } else {
        c[i] = remc(pro(), rest, layout[i]);
        rest = divc(pro(), rest, layout[i]);
      }
    }
    return coords_[layout] = c;
  }
  // Per-dimension offset (prologue values) of block `block` of the calling subgroup.
  const std::vector<Value*>& blockOffsets(const SgDistribution& d, int64_t block) {
    auto key = std::make_tuple(d.shape(), d.map().sgLayout, d.map().sgData, block);
    auto it = offsets_.find(key);
    if (it != offsets_.end()) return it->second;
    const std::vector<Value*>& s = sgCoords(d.map().sgLayout);
    std::vector<int64_t> k = d.blockIndex(block);
    std::vector<Value*> off;
    for (size_t i = 0; i < d.rank(); ++i) {
      int64_t w = d.shape()[i], l = d.map().sgLayout[i], dd = d.map().sgData[i], round = l * dd;
      if (dd == w) {  // the whole dimension: every subgroup starts at 0
        off.push_back(cst(0));
        continue;
      }
      Value* base = mulc(pro(), s[i], dd);
      if (round > w) base = remc(pro(), base, w);  // wrap-around: replicas share a block
      off.push_back(round < w ? add(pro(), base, cst(k[i] * round)) : base);
    }
    return offsets_[key] = off;
  }
  // i1 "this subgroup is the primary replica" (null when nothing is replicated).
  Value* primaryCond(const SgDistribution& d) {
    if (!d.isReplicated()) return nullptr;
    auto key = std::make_tuple(d.shape(), d.map().sgLayout, d.map().sgData, int64_t(-1));
    auto it = offsets_.find(key);
    if (it != offsets_.end()) return it->second[0];
    const std::vector<Value*>& s = sgCoords(d.map().sgLayout);
    std::vector<int64_t> rep = d.replicasPerDim();
    Value* cond = nullptr;
    for (size_t i = 0; i < d.rank(); ++i) {
      if (rep[i] == 1) continue;
      Value* c = pro().create("arith.cmpi", {s[i], cst(d.shape()[i] / d.map().sgData[i])}, {Type::scalar(ElemKind::I1)},
                              {{"predicate", Attribute::enumValue("cmpi", "ult")}})->result();
      cond = cond ? pro().create("arith.andi", {cond, c}, {Type::scalar(ElemKind::I1)})->result() : c;
    }
    offsets_[key] = {cond};
    return cond;
  }

  // Emits `body` under `scf.if cond` (directly when cond is null).
  void guarded(Builder& b, Value* cond, const std::function<void(Builder&)>& body) {
    if (!cond) return body(b);
    Operation* ifOp = b.create("scf.if", {cond}, {}, {}, 2);
    Builder tb(&ifOp->region(0).addBlock());
    tb.setLoc(b.loc());
    body(tb);
    tb.create("scf.yield", {}, {});
    Builder eb(&ifOp->region(1).addBlock());
    eb.setLoc(b.loc());
    eb.create("scf.yield", {}, {});
  }

  // ----- shared local memory -----
  static int64_t slmBytes(const std::vector<int64_t>& shape, ElemKind elem) {
    int64_t bytes = slmElemBytes(elem);
    for (int64_t d : shape) bytes *= d;
    return bytes;
  }
  // The pass's exchange buffers are shared by shape and element type: every exchange ends with a
  // barrier after its last read, so a later exchange (or loop iteration) may reuse the buffer. A new
  // buffer gets the swizzle the ir/layout planner picks for the first exchange's write and read
  // blocks on the target's banks (`swizzle = [B, M, S]`: Swizzle<B,M,S> of the row-major byte offset)
  // when it has fewer bank conflicts than none; a later exchange with other blocks keeps it (correct
  // either way: every access of the buffer goes through the same bijection).
  // The alloc carries the location of the op that first needs it, so later diagnostics about it (e.g. a
  // lowering without SLM support) point at that op's line, not at the kernel.
  Value* slmBuffer(const std::vector<int64_t>& shape, ElemKind elem, const std::vector<int64_t>& writeBlock,
                   const std::vector<int64_t>& readBlock, const SourceLoc& loc) {
    auto key = std::make_pair(shape, elem);
    auto it = slmBuffers_.find(key);
    if (it != slmBuffers_.end()) return it->second;
    slmUsed_ += slmBytes(shape, elem);
    Operation* alloc = pro().create("gpu.slm_alloc", {}, {Type::memref(shape, elem, ir::MemSpace::Slm)});
    alloc->setLoc(loc);
    if (shape.size() == 2 && target_.subgroupSize > 0) {
      auto i32 = [](int64_t v) { return static_cast<int>(std::min<int64_t>(v, 1 << 30)); };
      auto plan = layout::planSlmExchange(i32(shape[0]), i32(shape[1]), static_cast<int>(slmElemBytes(elem)),
                                          {i32(writeBlock[0]), i32(writeBlock[1])}, {i32(readBlock[0]), i32(readBlock[1])},
                                          static_cast<int>(target_.subgroupSize), layout::BankModel{static_cast<int>(target_.slmBanks), 4});
      if (plan && plan->swizzle.bits > 0 &&
          std::max(plan->storeConflictWays, plan->loadConflictWays) < std::max(plan->unswizzledStoreWays, plan->unswizzledLoadWays))
        alloc->setAttr("swizzle", Attribute::intArray({plan->swizzle.bits, plan->swizzle.base, plan->swizzle.shift}));
    }
    return slmBuffers_[key] = alloc->result();
  }
  bool slmFits(const std::vector<int64_t>& shape, ElemKind elem) const {
    return slmBuffers_.count({shape, elem}) || slmUsed_ + slmBytes(shape, elem) <= static_cast<int64_t>(target_.slmBytes);
  }
  Value* slmTile(Builder& b, Value* buf, const std::vector<Value*>& offs, const std::vector<int64_t>& shape) {
    ir::TileInfo info;
    info.space = ir::MemSpace::Slm;
    std::vector<Value*> operands{buf};
    operands.insert(operands.end(), offs.begin(), offs.end());
    return b.create("tile.init_tile", operands, {Type::tile(shape, buf->type().elem(), info)},
                    {{"segments", Attribute::intArray({static_cast<int64_t>(offs.size()), 0, 0})}})
        ->result();
  }
  void barrier(Builder& b) { b.create("gpu.barrier", {}, {}); }

  // One block access of an exchange: `shape` at `offs` (prologue values). Every offset is a multiple
  // of the block's size along its dimension, so a block never straddles two slabs (see exchange()).
  struct SlmAccess {
    std::vector<Value*> offs;
    std::vector<int64_t> shape;
    Value* value = nullptr;  // the block written (writes only)
  };
  // Whether access `a` lies in round `r`'s slab: statically known (cond null, result in `known`) or an
  // i1 prologue value.
  struct InRound {
    bool known = true;
    bool yes = false;
    Value* cond = nullptr;
  };
  InRound inRound(const SlmAccess& a, size_t dim, int64_t slab, int64_t rounds, int64_t r) {
    if (rounds == 1) return {true, true, nullptr};
    Value* q = divc(pro(), a.offs[dim], slab);
    int64_t cq = 0;
    if (constOf(q, &cq)) return {true, cq == r, nullptr};
    Value* c = pro().create("arith.cmpi", {q, cst(r)}, {Type::scalar(ElemKind::I1)},
                            {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
    return {false, false, c};
  }

  // Moves blocks between subgroups through a row-major SLM buffer of `shape`: the primary replicas
  // (`storeCond`) write `writes`, barrier, every subgroup reads `reads`, barrier (a later exchange or
  // loop iteration may rewrite the buffer). When `shape` does not fit the SLM left, the exchange runs
  // in rounds over equal slabs of one dimension (the fewest rounds that fit): round r writes and reads
  // only the blocks inside slab r, through a buffer of the slab's size. Slab sizes are multiples of
  // every access's block size, so no block is split. Returns the blocks read, in the order of `reads`.
  std::vector<Value*> exchange(Builder& b, const std::vector<int64_t>& shape, ElemKind elem, Value* storeCond,
                               const std::vector<SlmAccess>& writes, const std::vector<SlmAccess>& reads,
                               const SourceLoc& loc, const std::string& what) {
    size_t dim = 0;
    int64_t slab = shape[0];
    if (!slmFits(shape, elem)) {
      int64_t bestRounds = 0, smallest = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t g = 1;
        for (const auto* list : {&writes, &reads})
          for (const SlmAccess& a : *list) g = std::lcm(g, a.shape[d]);
        for (int64_t s = g; s < shape[d]; s += g) {
          if (shape[d] % s != 0) continue;
          std::vector<int64_t> ss = shape;
          ss[d] = s;
          if (!smallest || slmBytes(ss, elem) < smallest) smallest = slmBytes(ss, elem);
          int64_t rounds = shape[d] / s;
          if (slmFits(ss, elem) && (!bestRounds || rounds < bestRounds)) {
            bestRounds = rounds;
            dim = d;
            slab = s;
          }
        }
      }
      if (!bestRounds) {
        // Reported at the op; the whole buffer is still allocated so the caller's code stays well formed.
        int64_t full = slmBytes(shape, elem);
        if (smallest)
          error(loc, fmt::format("{} needs {} bytes of shared local memory ({} in rounds of its smallest slab), which brings "
                                 "the kernel to {} bytes; {}",
                                 what, full, smallest, slmUsed_ + smallest, targets::slmLimitText(target_)));
        else
          error(loc, fmt::format("{} needs {} bytes of shared local memory, which brings the kernel to {} bytes; {}", what,
                                 full, slmUsed_ + full, targets::slmLimitText(target_)));
      }
    }
    int64_t rounds = shape[dim] / slab;
    std::vector<int64_t> slabShape = shape;
    slabShape[dim] = slab;
    Value* buf = slmBuffer(slabShape, elem, writes.front().shape, reads.front().shape, loc);
    auto local = [&](const SlmAccess& a) {
      std::vector<Value*> o = a.offs;
      if (rounds > 1) o[dim] = remc(pro(), o[dim], slab);
      return o;
    };
    std::vector<Value*> results(reads.size(), nullptr);
    for (int64_t r = 0; r < rounds; ++r) {
      std::vector<std::pair<const SlmAccess*, InRound>> ws;
      for (const SlmAccess& a : writes) {
        InRound in = inRound(a, dim, slab, rounds, r);
        if (!in.known || in.yes) ws.emplace_back(&a, in);
      }
      if (!ws.empty())
        guarded(b, storeCond, [&](Builder& g) {
          for (auto& [a, in] : ws)
            guarded(g, in.cond, [&](Builder& gg) { gg.create("tile.store_tile", {a->value, slmTile(gg, buf, local(*a), a->shape)}, {}); });
        });
      barrier(b);
      for (size_t i = 0; i < reads.size(); ++i) {
        const SlmAccess& a = reads[i];
        InRound in = inRound(a, dim, slab, rounds, r);
        Type vt = Type::vector(a.shape, elem);
        auto load = [&](Builder& lb) { return lb.create("tile.load_tile", {slmTile(lb, buf, local(a), a.shape)}, {vt})->result(); };
        if (in.known) {
          if (in.yes) results[i] = load(b);
          continue;
        }
        if (!results[i]) {  // the value before the round that holds the block (never read)
          Attribute zero = ir::isFloatElem(elem) ? Attribute::denseFloat(vt, {0.0}) : Attribute::denseInt(vt, {0});
          results[i] = b.create("arith.constant", {}, {vt}, {{"value", zero}})->result();
        }
        Operation* ifOp = b.create("scf.if", {in.cond}, {vt}, {}, 2);
        Builder tb(&ifOp->region(0).addBlock());
        tb.setLoc(b.loc());
        tb.create("scf.yield", {load(tb)}, {});
        Builder eb(&ifOp->region(1).addBlock());
        eb.setLoc(b.loc());
        eb.create("scf.yield", {results[i]}, {});
        results[i] = ifOp->result();
      }
      barrier(b);
    }
    return results;
  }

  // For every block j of `out`, the block of `in` with offset need(outOffset) and shape needShape,
  // if every subgroup holds it, at the same block number for every subgroup.
  std::optional<std::vector<int64_t>> matchBlocks(
      const SgDistribution& in, const SgDistribution& out, const std::vector<int64_t>& needShape,
      const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& need) {
    if (in.blockShape() != needShape || in.numSubgroups() != out.numSubgroups()) return std::nullopt;
    std::vector<int64_t> match;
    for (int64_t s = 0; s < out.numSubgroups(); ++s) {
      auto inOffs = in.blockOffsets(s);
      for (int64_t j = 0; j < out.numBlocks(); ++j) {
        std::vector<int64_t> want = need(out.blockOffset(s, j));
        int64_t found = -1;
        for (size_t i = 0; i < inOffs.size(); ++i)
          if (inOffs[i] == want) found = static_cast<int64_t>(i);
        if (found < 0) return std::nullopt;
        if (s == 0) match.push_back(found);
        else if (match[j] != found) return std::nullopt;
      }
    }
    return match;
  }

  // ----- conversion -----
  void convertBlock(Block& old, Builder& b);
  void convertOp(Operation* op, Builder& b);
  void cloneOp(Operation* op, Builder& b) { b.insert(op->clone(map_)); }
  void convertFor(Operation* op, Builder& b);
  void convertIf(Operation* op, Builder& b);
  void convertYield(Operation* op, Builder& b);
  void convertInitTile(Operation* op, Builder& b);
  void convertPerBlock(Operation* op, Builder& b, const SgDistribution& d, Value* guardCond);
  void convertReplicatedAtomic(Operation* op, Builder& b, const SgDistribution& d);
  void convertMma(Operation* op, Builder& b);
  void convertTranspose(Operation* op, Builder& b);
  void convertReduction(Operation* op, Builder& b);
  void convertBroadcast(Operation* op, Builder& b);
  void convertConvertLayout(Operation* op, Builder& b);
  void convertConstant(Operation* op, Builder& b);
  bool requireSame(Operation* op, Value* v, const SgDistribution& d, const char* role);

  Operation* kernel_;
  DiagnosticEngine& diags_;
  const targets::Target& target_;
  bool failed_ = false;
  ir::IRMapping map_;
  std::unordered_map<const Value*, std::vector<Value*>> dist_;
  Builder pro_;
  Operation* proEnd_ = nullptr;
  Value* sgId_ = nullptr;
  std::map<int64_t, Value*> consts_;
  std::map<std::vector<int64_t>, std::vector<Value*>> coords_;
  std::map<std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>, int64_t>, std::vector<Value*>> offsets_;
  int64_t slmUsed_ = 0;
  std::map<std::pair<std::vector<int64_t>, ElemKind>, Value*> slmBuffers_;
};

bool KernelDistributor::run() {
  Block& body = ir::kernelBody(kernel_);
  // 1. Every wg_map must follow the RFC's rules, and all must agree on the subgroup count.
  int64_t numSg = 0;
  Value* firstMapped = nullptr;
  auto checkValue = [&](Value* v) {
    auto m = wgMapOf(v->type());
    if (!m) return;
    std::string why = SgDistribution::check(v->type().shape(), *m);
    if (!why.empty()) {
      error(locOf(v), fmt::format("invalid {} for {}: {}", mapStr(*m), v->type().str(), why));
      return;
    }
    if (!numSg) {
      numSg = m->numSubgroups();
      firstMapped = v;
    } else if (m->numSubgroups() != numSg) {
      diags_.error(locOf(v), fmt::format("wg-distribute: {} uses {} subgroups, but the kernel uses {}", mapStr(*m),
                                         m->numSubgroups(), numSg))
          .note(locOf(firstMapped), fmt::format("{} subgroups from {} here", numSg, mapStr(*wgMapOf(firstMapped->type()))));
      failed_ = true;
    }
  };
  for (Value* a : body.arguments()) checkValue(a);
  for (Operation* top : body.opsSnapshot())
    top->walk([&](Operation* o) {
      for (Value* r : o->results()) checkValue(r);
      for (unsigned r = 0; r < o->numRegions(); ++r)
        for (unsigned bi = 0; bi < o->region(r).numBlocks(); ++bi)
          for (Value* a : o->region(r).block(bi).arguments()) checkValue(a);
      if (o->is("gpu.slm_alloc")) {
        int64_t bytes = slmElemBytes(o->result()->type().elem());
        for (int64_t d : o->result()->type().shape()) bytes *= d;
        slmUsed_ += bytes;
        if (slmUsed_ > static_cast<int64_t>(target_.slmBytes))
          error(o->loc(), fmt::format("this shared local memory buffer brings the kernel to {} bytes; {}", slmUsed_,
                                      targets::slmLimitText(target_)));
      }
    });
  if (failed_) return false;
  if (!numSg) return true;  // already subgroup level
  if (const Attribute* a = kernel_->attr("num_subgroups"); a && a->isa(AttrKind::Int) && a->getInt() != numSg) {
    diags_.error(kernel_->loc(), fmt::format("wg-distribute: kernel has num_subgroups = {}, but its wg_maps use {}", a->getInt(), numSg))
        .note(locOf(firstMapped), fmt::format("{} here", mapStr(*wgMapOf(firstMapped->type()))));
    return false;
  }

  // 2. Build the new body in a detached holder; on failure the kernel stays as it was.
  auto holder = Operation::create("xtc.kernel_body", kernel_->loc(), {}, {}, {}, 1);
  Block& nb = holder->region(0).addBlock();
  for (Value* a : body.arguments()) map_.values[a] = nb.addArgument(a->type());
  Builder b(&nb);
  b.setLoc(kernel_->loc());
  sgId_ = b.create("gpu.subgroup_id", {}, {Type::index()})->result();
  sgId_->setNameHint("sg_id");
  // A marker that stays at the end of the prologue while the body is appended after it.
  proEnd_ = b.create("xtc.prologue_end", {}, {});
  convertBlock(body, b);
  if (failed_) return false;
  proEnd_->erase();

  // 3. Swap the bodies.
  std::vector<Operation*> oldOps = body.opsSnapshot();
  for (Operation* o : oldOps) o->dropAllReferences();
  for (auto it = oldOps.rbegin(); it != oldOps.rend(); ++it) (*it)->erase();
  for (Operation* o : nb.opsSnapshot()) body.push_back(o->remove());
  for (unsigned i = 0; i < nb.numArguments(); ++i) nb.argument(i)->replaceAllUsesWith(body.argument(i));
  kernel_->setAttr("num_subgroups", Attribute::integer(numSg));
  return true;
}

void KernelDistributor::convertBlock(Block& old, Builder& b) {
  for (Operation* op : old.opsSnapshot()) {
    convertOp(op, b);
    if (failed_) return;
  }
}

bool KernelDistributor::requireSame(Operation* op, Value* v, const SgDistribution& d, const char* role) {
  if (!wgMapOf(v->type()) || !isDist(v)) {
    error(op->loc(), fmt::format("{} of '{}' has no wg_map ({}) but the op is distributed by {}", role, op->name(),
                                 v->type().str(), mapStr(d.map())));
    return false;
  }
  SgDistribution dv = distOf(v);
  if (!dv.sameOwnership(d)) {
    diags_.error(op->loc(), fmt::format("wg-distribute: {} of '{}' is distributed by {} but the op by {}; insert a convert_layout",
                                        role, op->name(), mapStr(dv.map()), mapStr(d.map())))
        .note(locOf(v), "the operand is defined here");
    failed_ = true;
    return false;
  }
  return true;
}

void KernelDistributor::convertOp(Operation* op, Builder& b) {
  b.setLoc(op->loc());
  const std::string& n = op->name();
  if (n == "scf.for") return convertFor(op, b);
  if (n == "scf.if") return convertIf(op, b);
  if (n == "scf.yield") return convertYield(op, b);
  if (!touchesWg(op)) return cloneOp(op, b);
  if (op->numRegions() != 0) return error(op->loc(), fmt::format("'{}' with regions on workgroup-level values is not supported", n));
  if (n == "tile.init_tile") return convertInitTile(op, b);
  if (n == "tile.tile_mma") return convertMma(op, b);
  if (n == "tile.transpose") return convertTranspose(op, b);
  if (n == "tile.reduction") return convertReduction(op, b);
  if (n == "tile.broadcast") return convertBroadcast(op, b);
  if (n == "tile.convert_layout") return convertConvertLayout(op, b);
  if (n == "arith.constant") return convertConstant(op, b);
  if (n == "tile.load_tile" || n == "tile.prefetch_tile" || n == "tile.update_tile_offset" || n == "tile.load_gather")
    return convertPerBlock(op, b, distOf(op->operand(0)), nullptr);
  if (n == "tile.store_tile" || n == "tile.store_scatter") {
    SgDistribution d = distOf(op->operand(op->numOperands() - 1));
    return convertPerBlock(op, b, d, primaryCond(d));
  }
  if (n == "tile.atomic_rmw") {
    SgDistribution d = distOf(op->operand(1));
    if (d.isReplicated() && op->result()->hasUses()) return convertReplicatedAtomic(op, b, d);
    return convertPerBlock(op, b, d, primaryCond(d));
  }
  if (op->dialect() == "arith" || op->dialect() == "math" || n == "vector.splat") {
    for (Value* r : op->results())
      if (!wgMapOf(r->type())) return error(op->loc(), fmt::format("'{}' mixes workgroup-level operands with a result without wg_map", n));
    return convertPerBlock(op, b, distOf(op->result(0)), nullptr);
  }
  error(op->loc(), fmt::format("'{}' on workgroup-level values is not supported", n));
}

// Ops whose operands and results all follow one distribution `d`: repeated once per block. Operands
// without wg_map (scalars, the deltas of update_tile_offset) are shared by every copy.
void KernelDistributor::convertPerBlock(Operation* op, Builder& b, const SgDistribution& d, Value* guardCond) {
  bool anyDistOperand = false;
  for (unsigned i = 0; i < op->numOperands(); ++i) {
    Value* v = op->operand(i);
    if (!wgMapOf(v->type())) continue;
    if (!requireSame(op, v, d, fmt::format("operand {}", i).c_str())) return;
    anyDistOperand = true;
  }
  for (Value* r : op->results()) {
    if (!wgMapOf(r->type()))
      return error(op->loc(), fmt::format("result of '{}' has no wg_map ({}) but its operands are distributed (give it theirs: {})",
                                          op->name(), r->type().str(), mapStr(d.map())));
    if (!SgDistribution(r->type().shape(), *wgMapOf(r->type())).sameOwnership(d))
      return error(op->loc(), fmt::format("result of '{}' is distributed by {} but its operands by {}; insert a convert_layout after it",
                                          op->name(), mapStr(*wgMapOf(r->type())), mapStr(d.map())));
  }
  std::vector<std::vector<Value*>> results(op->numResults());
  guarded(b, guardCond, [&](Builder& g) {
    // Without distributed operands (vector.splat) one op serves every block.
    int64_t copies = anyDistOperand ? d.numBlocks() : 1;
    for (int64_t blk = 0; blk < copies; ++blk) {
      std::vector<Value*> operands;
      for (Value* v : op->operands()) operands.push_back(wgMapOf(v->type()) ? blocks(v)[blk] : one(v));
      std::vector<Type> types;
      for (Value* r : op->results()) types.push_back(blockType(r->type(), d.blockShape()));
      Operation* c = g.create(op->name(), operands, types, op->attrs());
      for (unsigned i = 0; i < c->numResults(); ++i) {
        c->result(i)->setNameHint(op->result(i)->nameHint());
        results[i].push_back(c->result(i));
      }
    }
  });
  if (guardCond && op->numResults() != 0)  // atomics on replicated tiles without uses: results are dead
    return;
  for (unsigned i = 0; i < op->numResults(); ++i) {
    if (results[i].size() == 1 && d.numBlocks() > 1) results[i].assign(d.numBlocks(), results[i][0]);
    dist_[op->result(i)] = results[i];
  }
}

// An atomic_rmw on a replicated tile whose old values are used: only the primary replica may run the
// atomics (once per element), so its old values are yielded out of the guard (the other replicas yield
// zeros) and exchanged through SLM: the primary writes them, every replica reads its blocks.
void KernelDistributor::convertReplicatedAtomic(Operation* op, Builder& b, const SgDistribution& d) {
  Value* res = op->result();
  for (Value* v : {op->operand(0), op->operand(1)})
    if (!requireSame(op, v, d, v == op->operand(0) ? "the value" : "the tile")) return;
  if (!wgMapOf(res->type()) || !SgDistribution(res->type().shape(), *wgMapOf(res->type())).sameOwnership(d))
    return error(op->loc(), fmt::format("result of '{}' must be distributed like its tile ({})", op->name(), mapStr(d.map())));
  Type bt = blockType(res->type(), d.blockShape());
  Value* cond = primaryCond(d);
  Operation* ifOp = b.create("scf.if", {cond}, std::vector<Type>(d.numBlocks(), bt), {}, 2);
  Builder tb(&ifOp->region(0).addBlock());
  tb.setLoc(op->loc());
  std::vector<Value*> old;
  for (int64_t blk = 0; blk < d.numBlocks(); ++blk)
    old.push_back(tb.create(op->name(), {blocks(op->operand(0))[blk], blocks(op->operand(1))[blk]}, {bt}, op->attrs())->result());
  tb.create("scf.yield", old, {});
  Builder eb(&ifOp->region(1).addBlock());
  eb.setLoc(op->loc());
  Attribute zero = ir::isFloatElem(bt.elem()) ? Attribute::denseFloat(bt, {0.0}) : Attribute::denseInt(bt, {0});
  Value* z = eb.create("arith.constant", {}, {bt}, {{"value", zero}})->result();
  eb.create("scf.yield", std::vector<Value*>(d.numBlocks(), z), {});
  std::vector<SlmAccess> writes, reads;
  for (int64_t blk = 0; blk < d.numBlocks(); ++blk) {
    writes.push_back({blockOffsets(d, blk), d.blockShape(), ifOp->result(blk)});
    reads.push_back({blockOffsets(d, blk), d.blockShape()});
  }
  std::vector<Value*> results = exchange(b, res->type().shape(), bt.elem(), cond, writes, reads, op->loc(), "this atomic_rmw's old values");
  for (Value* r : results) r->setNameHint(res->nameHint());
  dist_[res] = results;
}

void KernelDistributor::convertInitTile(Operation* op, Builder& b) {
  Value* res = op->result();
  SgDistribution d = distOf(res);
  Type bt = blockType(res->type(), d.blockShape());
  std::vector<int64_t> segs = op->attr("segments") ? op->attr("segments")->getIntArray() : std::vector<int64_t>{};
  std::vector<Value*> results;
  if (res->type().tileInfo().scattered) {
    // The per-element offsets vector is itself distributed; each block takes its own offsets.
    Value* offv = op->operand(1);
    if (!requireSame(op, offv, d, "offsets")) return;
    for (int64_t blk = 0; blk < d.numBlocks(); ++blk) {
      std::vector<Value*> operands;
      for (Value* v : op->operands()) operands.push_back(v == offv ? blocks(v)[blk] : one(v));
      results.push_back(b.create(op->name(), operands, {bt}, op->attrs())->result());
    }
  } else {
    if (segs.empty() || segs[0] < static_cast<int64_t>(d.rank()))
      return error(op->loc(), fmt::format("init_tile needs at least {} offsets (segments attribute)", d.rank()));
    int64_t nOff = segs[0];
    for (int64_t blk = 0; blk < d.numBlocks(); ++blk) {
      std::vector<Value*> operands;
      for (Value* v : op->operands()) operands.push_back(one(v));
      const std::vector<Value*>& offs = blockOffsets(d, blk);
      // The tile's dimensions are the innermost ones of the source (high-dimensional memrefs).
      for (size_t i = 0; i < d.rank(); ++i) {
        size_t idx = 1 + nOff - d.rank() + i;
        operands[idx] = add(b, operands[idx], offs[i]);
      }
      results.push_back(b.create(op->name(), operands, {bt}, op->attrs())->result());
    }
  }
  for (Value* r : results) r->setNameHint(res->nameHint());
  dist_[res] = results;
}

void KernelDistributor::convertMma(Operation* op, Builder& b) {
  Value *a = op->operand(0), *bb = op->operand(1), *res = op->result();
  Value* c = op->numOperands() > 2 ? op->operand(2) : nullptr;
  for (Value* v : {a, bb, res})
    if (!wgMapOf(v->type()) || v->type().rank() != 2)
      return error(op->loc(), "tile_mma at workgroup level needs 2-D operands and result that all carry a wg_map");
  SgDistribution dA = distOf(a), dB = distOf(bb), dC = distOf(res);
  if (c && !requireSame(op, c, dC, "the accumulator")) return;
  int64_t k = a->type().shape()[1];
  auto per = dC.blocksPerDim();
  // The RFC's derived rule: same sg_layout; A = [sg_data_m, K] by rows, B = [K, sg_data_n] by columns.
  bool ok = dA.map().sgLayout == dC.map().sgLayout && dB.map().sgLayout == dC.map().sgLayout &&
            dA.blockShape() == std::vector<int64_t>{dC.blockShape()[0], k} &&
            dB.blockShape() == std::vector<int64_t>{k, dC.blockShape()[1]} && dA.numBlocks() == per[0] && dB.numBlocks() == per[1];
  for (int64_t s = 0; ok && s < dC.numSubgroups(); ++s)
    for (int64_t i = 0; ok && i < per[0]; ++i)
      for (int64_t j = 0; ok && j < per[1]; ++j) {
        auto oc = dC.blockOffset(s, i * per[1] + j);
        ok = dA.blockOffset(s, i) == std::vector<int64_t>{oc[0], 0} && dB.blockOffset(s, j) == std::vector<int64_t>{0, oc[1]};
      }
  if (!ok) {
    WgMap wa{dC.map().sgLayout, {dC.blockShape()[0], k}}, wb{dC.map().sgLayout, {k, dC.blockShape()[1]}};
    diags_.error(op->loc(), fmt::format("wg-distribute: tile_mma operands do not follow the wg_maps derived from the result's {}: "
                                        "A needs {} (has {}), B needs {} (has {})",
                                        mapStr(dC.map()), mapStr(wa), mapStr(dA.map()), mapStr(wb), mapStr(dB.map())))
        .note(locOf(a), "A is defined here")
        .note(locOf(bb), "B is defined here");
    failed_ = true;
    return;
  }
  Type bt = blockType(res->type(), dC.blockShape());
  std::vector<Value*> results;
  for (int64_t i = 0; i < per[0]; ++i)
    for (int64_t j = 0; j < per[1]; ++j) {
      std::vector<Value*> operands{blocks(a)[i], blocks(bb)[j]};
      if (c) operands.push_back(blocks(c)[i * per[1] + j]);
      Value* r = b.create(op->name(), operands, {bt}, op->attrs())->result();
      r->setNameHint(res->nameHint());
      results.push_back(r);
    }
  dist_[res] = results;
}

void KernelDistributor::convertTranspose(Operation* op, Builder& b) {
  Value *x = op->operand(0), *res = op->result();
  if (!isDist(x) || !wgMapOf(res->type()) || res->type().rank() != 2)
    return error(op->loc(), "transpose at workgroup level needs a 2-D operand and result that both carry a wg_map");
  SgDistribution in = distOf(x), out = distOf(res);
  const auto& ob = out.blockShape();
  std::vector<int64_t> need{ob[1], ob[0]};
  auto swap2 = [](const std::vector<int64_t>& o) { return std::vector<int64_t>{o[1], o[0]}; };
  ir::AttrMap attrs = op->attrs();
  attrs.erase("strategy");
  Type bt = blockType(res->type(), ob);
  std::vector<Value*> results;
  if (auto m = matchBlocks(in, out, need, swap2)) {
    // Every subgroup already holds the transposed data: an in-register transpose per block.
    attrs["strategy"] = Attribute::string("register");
    for (int64_t j = 0; j < out.numBlocks(); ++j)
      results.push_back(b.create(op->name(), {blocks(x)[(*m)[j]]}, {bt}, attrs)->result());
  } else {
    // Through SLM: the input is stored row-major; each output block reads its transposed source block.
    std::vector<SlmAccess> writes, reads;
    for (int64_t i = 0; i < in.numBlocks(); ++i) writes.push_back({blockOffsets(in, i), in.blockShape(), blocks(x)[i]});
    for (int64_t j = 0; j < out.numBlocks(); ++j) {
      const auto& o = blockOffsets(out, j);
      reads.push_back({{o[1], o[0]}, need});
    }
    std::vector<Value*> vs = exchange(b, x->type().shape(), x->type().elem(), primaryCond(in), writes, reads, op->loc(), "this transpose");
    attrs["strategy"] = Attribute::string("register");
    for (Value* v : vs) results.push_back(b.create(op->name(), {v}, {bt}, attrs)->result());
  }
  for (Value* r : results) r->setNameHint(res->nameHint());
  dist_[res] = results;
}

void KernelDistributor::convertReduction(Operation* op, Builder& b) {
  Value *x = op->operand(0), *res = op->result();
  std::vector<int64_t> dims = op->attr("dims") ? op->attr("dims")->getIntArray() : std::vector<int64_t>{};
  if (!isDist(x) || !wgMapOf(res->type()) || x->type().rank() != 2 || dims.size() != 1 || dims[0] < 0 || dims[0] > 1)
    return error(op->loc(), "reduction at workgroup level needs a 2-D operand and result with wg_maps and one reduced dimension");
  int64_t d = dims[0], o = 1 - d;
  int64_t n = x->type().shape()[d] / res->type().shape()[d];
  SgDistribution in = distOf(x), out = distOf(res);
  const auto &ib = in.blockShape(), &ob = out.blockShape();
  ir::AttrMap base = op->attrs();
  base.erase("reduction_size");
  auto reduce = [&](Builder& bb, Value* v, int64_t size, const std::vector<int64_t>& shape) {
    ir::AttrMap attrs = base;
    if (size != v->type().shape()[d]) attrs["reduction_size"] = Attribute::integer(size);
    return bb.create(op->name(), {v}, {Type::vector(shape, v->type().elem())}, attrs)->result();
  };
  std::vector<Value*> results;
  auto m = matchBlocks(in, out, byDim(d, ob[d] * n, ob[o]),
                       [&](const std::vector<int64_t>& off) { return byDim(d, off[d] * n, off[o]); });
  if (m) {
    for (int64_t j = 0; j < out.numBlocks(); ++j) results.push_back(reduce(b, blocks(x)[(*m)[j]], n, ob));
  } else {
    // Partial results through SLM: each block reduces groups of `unit` rows (gcd of its rows and the
    // reduction size, so groups never straddle blocks or outputs); the buffer row along `d` is the
    // group's index; readers finish the reduction over the partials of their output block.
    int64_t unit = std::gcd(ib[d], n);                  // input rows per partial row
    int64_t groupsPerBlock = ib[d] / unit;             // partial rows per input block
    std::vector<int64_t> bufShape = byDim(d, x->type().shape()[d] / unit, x->type().shape()[o]);
    std::vector<SlmAccess> writes, reads;
    for (int64_t i = 0; i < in.numBlocks(); ++i) {
      Value* partial = reduce(b, blocks(x)[i], unit, byDim(d, groupsPerBlock, ib[o]));
      const auto& io = blockOffsets(in, i);
      writes.push_back({byDim(d, divc(pro(), io[d], unit), io[o]), byDim(d, groupsPerBlock, ib[o]), partial});
    }
    int64_t rowsPerOut = n / unit;  // partial rows that make one output row
    for (int64_t j = 0; j < out.numBlocks(); ++j) {
      const auto& oo = blockOffsets(out, j);
      reads.push_back({byDim(d, mulc(pro(), oo[d], rowsPerOut), oo[o]), byDim(d, ob[d] * rowsPerOut, ob[o])});
    }
    for (Value* v : exchange(b, bufShape, x->type().elem(), primaryCond(in), writes, reads, op->loc(), "this cross-subgroup reduction"))
      results.push_back(rowsPerOut == 1 ? v : reduce(b, v, rowsPerOut, ob));
  }
  for (Value* r : results) r->setNameHint(res->nameHint());
  dist_[res] = results;
}

void KernelDistributor::convertBroadcast(Operation* op, Builder& b) {
  Value *x = op->operand(0), *res = op->result();
  std::vector<int64_t> dims = op->attr("dims") ? op->attr("dims")->getIntArray() : std::vector<int64_t>{};
  if (!isDist(x) || !wgMapOf(res->type()) || x->type().rank() != 2 || dims.size() != 1 || dims[0] < 0 || dims[0] > 1)
    return error(op->loc(), "broadcast at workgroup level needs a 2-D operand and result with wg_maps and one broadcast dimension");
  int64_t d = dims[0], o = 1 - d;
  int64_t m = res->type().shape()[d] / x->type().shape()[d];
  SgDistribution in = distOf(x), out = distOf(res);
  const auto& ob = out.blockShape();
  int64_t inRows, size;  // input rows per output block, and the subgroup-level broadcast_size
  if (ob[d] % m == 0) {
    inRows = ob[d] / m;
    size = m;
  } else if (m % ob[d] == 0) {
    inRows = 1;
    size = ob[d];
  } else {
    return error(op->loc(), fmt::format("broadcast by {} into blocks of {} ({}) is not implemented yet", m, ob[d], mapStr(out.map())));
  }
  ir::AttrMap attrs = op->attrs();
  attrs["broadcast_size"] = Attribute::integer(size);
  Type bt = blockType(res->type(), ob);
  std::vector<Value*> results;
  auto mm = matchBlocks(in, out, byDim(d, inRows, ob[o]),
                        [&](const std::vector<int64_t>& off) { return byDim(d, off[d] / m, off[o]); });
  if (mm) {
    for (int64_t j = 0; j < out.numBlocks(); ++j)
      results.push_back(b.create(op->name(), {blocks(x)[(*mm)[j]]}, {bt}, attrs)->result());
  } else {
    std::vector<SlmAccess> writes, reads;
    for (int64_t i = 0; i < in.numBlocks(); ++i) writes.push_back({blockOffsets(in, i), in.blockShape(), blocks(x)[i]});
    for (int64_t j = 0; j < out.numBlocks(); ++j) {
      const auto& oo = blockOffsets(out, j);
      reads.push_back({byDim(d, divc(pro(), oo[d], m), oo[o]), byDim(d, inRows, ob[o])});
    }
    for (Value* v : exchange(b, x->type().shape(), x->type().elem(), primaryCond(in), writes, reads, op->loc(), "this broadcast"))
      results.push_back(b.create(op->name(), {v}, {bt}, attrs)->result());
  }
  for (Value* r : results) r->setNameHint(res->nameHint());
  dist_[res] = results;
}

void KernelDistributor::convertConvertLayout(Operation* op, Builder& b) {
  Value *x = op->operand(0), *res = op->result();
  if (!isDist(x) || !wgMapOf(res->type()) || x->type().shape() != res->type().shape())
    return error(op->loc(), "convert_layout at workgroup level needs an operand and result of one shape that both carry a wg_map");
  SgDistribution in = distOf(x), out = distOf(res);
  if (auto m = matchBlocks(in, out, out.blockShape(), [](const std::vector<int64_t>& off) { return off; })) {
    std::vector<Value*> results;
    for (int64_t j = 0; j < out.numBlocks(); ++j) results.push_back(blocks(x)[(*m)[j]]);
    dist_[res] = results;
    return;
  }
  std::vector<SlmAccess> writes, reads;
  for (int64_t i = 0; i < in.numBlocks(); ++i) writes.push_back({blockOffsets(in, i), in.blockShape(), blocks(x)[i]});
  for (int64_t j = 0; j < out.numBlocks(); ++j) reads.push_back({blockOffsets(out, j), out.blockShape()});
  std::vector<Value*> results =
      exchange(b, x->type().shape(), x->type().elem(), primaryCond(in), writes, reads, op->loc(), "this convert_layout");
  for (Value* v : results) v->setNameHint(res->nameHint());
  dist_[res] = results;
}

// A splat constant is the same splat for every block. A non-splat constant differs per block position:
// each distinct block content becomes one constant, and a block picks its content by its offsets (a
// chain of scf.if on the prologue offsets; blocks whose offsets are constants pick directly).
void KernelDistributor::convertConstant(Operation* op, Builder& b) {
  Value* res = op->result();
  SgDistribution d = distOf(res);
  const Attribute* v = op->attr("value");
  if (!v || !v->isa(AttrKind::Dense)) return error(op->loc(), "a constant with a wg_map needs a dense value");
  Type bt = blockType(res->type(), d.blockShape());
  const bool fl = v->denseIsFloat();
  ir::AttrMap attrs = op->attrs();
  auto constantOf = [&](Builder& cb, const Attribute& value) {
    attrs["value"] = value;
    Value* c = cb.create(op->name(), {}, {bt}, attrs)->result();
    c->setNameHint(res->nameHint());
    return c;
  };
  if (v->isSplat()) {
    Value* c = constantOf(b, fl ? Attribute::denseFloat(bt, v->denseFloats()) : Attribute::denseInt(bt, v->denseInts()));
    dist_[res] = std::vector<Value*>(d.numBlocks(), c);
    return;
  }
  // Every block position of the tile (row-major over the positions of each dimension) and its content.
  const std::vector<int64_t>& shape = d.shape();
  const std::vector<int64_t>& bs = d.blockShape();
  const size_t rank = shape.size();
  std::vector<int64_t> perDim(rank);
  int64_t positions = 1, blockElems = 1;
  for (size_t i = 0; i < rank; ++i) {
    perDim[i] = shape[i] / bs[i];
    positions *= perDim[i];
    blockElems *= bs[i];
  }
  std::vector<std::vector<int64_t>> posOffsets;
  std::map<std::vector<double>, Value*> byFloats;
  std::map<std::vector<int64_t>, Value*> byInts;
  std::vector<Value*> posValue;
  for (int64_t p = 0; p < positions; ++p) {
    std::vector<int64_t> off(rank);
    for (size_t i = rank, rest = static_cast<size_t>(p); i-- > 0;) {
      off[i] = static_cast<int64_t>(rest % static_cast<size_t>(perDim[i])) * bs[i];
      rest /= static_cast<size_t>(perDim[i]);
    }
    posOffsets.push_back(off);
    // Flat indices of the block's elements in the whole constant, row-major.
    std::vector<int64_t> idx;
    for (int64_t e = 0; e < blockElems; ++e) {
      int64_t flat = 0;
      for (size_t i = 0, rest = static_cast<size_t>(e), stride = static_cast<size_t>(blockElems); i < rank; ++i) {
        stride /= static_cast<size_t>(bs[i]);
        flat = flat * shape[i] + off[i] + static_cast<int64_t>(rest / stride);
        rest %= stride;
      }
      idx.push_back(flat);
    }
    if (fl) {
      std::vector<double> vals;
      for (int64_t f : idx) vals.push_back(v->denseFloats()[static_cast<size_t>(f)]);
      Value*& c = byFloats[vals];
      if (!c) c = constantOf(b, Attribute::denseFloat(bt, vals));
      posValue.push_back(c);
    } else {
      std::vector<int64_t> vals;
      for (int64_t f : idx) vals.push_back(v->denseInts()[static_cast<size_t>(f)]);
      Value*& c = byInts[vals];
      if (!c) c = constantOf(b, Attribute::denseInt(bt, vals));
      posValue.push_back(c);
    }
  }
  std::vector<Value*> results;
  for (int64_t blk = 0; blk < d.numBlocks(); ++blk) {
    const std::vector<Value*>& offs = blockOffsets(d, blk);
    Value* cur = nullptr;
    for (int64_t p = 0; p < positions; ++p) {
      // Does this block sit at position p? Known when its offsets are constants.
      Value* cond = nullptr;
      bool never = false;
      for (size_t i = 0; i < rank && !never; ++i) {
        int64_t c = 0;
        if (constOf(offs[i], &c)) {
          never = c != posOffsets[p][i];
          continue;
        }
        Value* eq = pro().create("arith.cmpi", {offs[i], cst(posOffsets[p][i])}, {Type::scalar(ElemKind::I1)},
                                 {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
        cond = cond ? pro().create("arith.andi", {cond, eq}, {Type::scalar(ElemKind::I1)})->result() : eq;
      }
      if (never || posValue[p] == cur) continue;
      if (!cur || !cond) {  // the first candidate, or a certain match
        cur = posValue[p];
        continue;
      }
      Operation* ifOp = b.create("scf.if", {cond}, {bt}, {}, 2);
      Builder tb(&ifOp->region(0).addBlock());
      tb.setLoc(op->loc());
      tb.create("scf.yield", {posValue[p]}, {});
      Builder eb(&ifOp->region(1).addBlock());
      eb.setLoc(op->loc());
      eb.create("scf.yield", {cur}, {});
      cur = ifOp->result();
    }
    results.push_back(cur);
  }
  dist_[res] = results;
}

void KernelDistributor::convertFor(Operation* op, Builder& b) {
  std::vector<Value*> operands;
  std::vector<Type> types;
  for (unsigned i = 0; i < op->numOperands(); ++i) {
    for (Value* v : flatValues(op->operand(i))) operands.push_back(v);
  }
  for (Value* r : op->results())
    for (const Type& t : flatTypes(r)) types.push_back(t);
  Operation* nf = b.create(op->name(), operands, types, op->attrs(), 1);
  Block& ob = op->region(0).block();
  Block& nbk = nf->region(0).addBlock();
  std::vector<Value*> args;
  for (Value* a : ob.arguments())
    for (const Type& t : flatTypes(a)) args.push_back(nbk.addArgument(t));
  size_t pos = 0;
  for (Value* a : ob.arguments()) pos = bind(a, args, pos);
  for (unsigned i = 0; i < ob.numArguments(); ++i)
    for (Value* na : (isDist(ob.argument(i)) ? blocks(ob.argument(i)) : std::vector<Value*>{one(ob.argument(i))}))
      na->setNameHint(ob.argument(i)->nameHint());
  pos = 0;
  std::vector<Value*> res = nf->results();
  for (Value* r : op->results()) pos = bind(r, res, pos);
  Builder inner(&nbk);
  convertBlock(ob, inner);
}

void KernelDistributor::convertIf(Operation* op, Builder& b) {
  std::vector<Type> types;
  for (Value* r : op->results())
    for (const Type& t : flatTypes(r)) types.push_back(t);
  Operation* ni = b.create(op->name(), {one(op->operand(0))}, types, op->attrs(), op->numRegions());
  for (unsigned r = 0; r < op->numRegions(); ++r) {
    if (op->region(r).empty()) continue;
    Builder inner(&ni->region(r).addBlock());
    convertBlock(op->region(r).block(), inner);
    if (failed_) return;
  }
  size_t pos = 0;
  std::vector<Value*> res = ni->results();
  for (Value* r : op->results()) pos = bind(r, res, pos);
}

void KernelDistributor::convertYield(Operation* op, Builder& b) {
  std::vector<Value*> operands;
  for (Value* v : op->operands())
    for (Value* f : flatValues(v)) operands.push_back(f);
  b.create(op->name(), operands, {}, op->attrs());
}

}  // namespace

bool runWgDistribute(ir::Operation* module, DiagnosticEngine& diags, const targets::Target& target) {
  bool ok = true;
  for (Operation* k : ir::moduleKernels(module)) {
    KernelDistributor kd(k, diags, target);
    if (!kd.run()) ok = false;
  }
  return ok;
}

namespace {
class WgDistributePass : public Pass {
public:
  std::string name() const override { return "wg-distribute"; }
  std::string description() const override {
    return "distribute workgroup-level tiles and vectors (wg_map) to subgroups: per-subgroup offsets, round-robin blocks, "
           "replicas, SLM exchanges";
  }
  bool run(ir::Operation* module, PassContext& ctx) override {
    // Only the SLM size is read from the target; without one, the most restrictive table applies.
    const targets::Target* t = ctx.target ? ctx.target : targets::findTarget("generic");
    return runWgDistribute(module, ctx.diags, *t);
  }
};
}  // namespace

void registerWgDistributePass() {
  registerPass("wg-distribute", [] { return std::make_unique<WgDistributePass>(); });
}

}  // namespace xtc::passes
