// The `split-accumulators` pass (pvc/dg2, first pass of the Xe path, before blocking): a K loop whose
// accumulators plus the operands of one K step do not fit the large register file (RegisterBudget.h)
// becomes several loops over the same K range, each computing one rectangular slice of the
// accumulator and loading only the operand slices it needs (docs/passes.md, "split-accumulators").
// An accumulator whose M or N is not a power of two (24 = 16 + 8 rows) is cut into power-of-two
// slices the same way, kept in the one loop when that fits: the later passes' linear layouts are
// powers of two in each dimension. So is a K step that is not (48 = 32 + 16): A's and B's tiles are
// cut along K in the one loop and each slice's tile_mma becomes a chain over the K ranges. On a
// target without 2D block IO (dg2), a loop that no slicing with block-readable B fits walks K by
// half its step instead when it can (halfStep, halveK).
//
// Why: the kernel's wg_map fixes each subgroup's C tile; when its f32 accumulators alone fill the file
// (a 32x64 tile on dg2's 8 lanes of 32-byte registers is all 256), ocloc spills thousands of registers
// every K step. Reloading A (or B) once per slice costs far less than that spill traffic.
//
// Legal because the loop body only reads memory: a body with a store, scatter, atomic or SLM
// allocation is left alone. Loads, index math and tile_mma repeat harmlessly; the kernel's prefetches
// and barriers stay in the first slice loop only (dropRepeatedHints says why). Slices of one accumulator are independent (C[i][j]
// depends on row i of A and column j of B only), and the code after the loop that uses the
// accumulator is repeated per slice, so it must work on slices: element-wise ops whose other
// operands are splats, loads or broadcast rows/columns (each slice loads and broadcasts its part),
// store_tile, and reductions along a whole dimension (RFC 2.2's row sums: each slice reduces its
// part, and the partial results combine with one arith op, so that slices keep whole rows). Before
// blocking, because slicing tiles and vectors at subgroup tile level is a change of shapes and
// offsets only; blocking then picks the messages and DPAS blocks of each slice.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/OpRegistry.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/RegisterBudget.h"
#include "ir/passes/TileSlices.h"
#include "ir/targets/Target.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
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

// One operand of tile_mma traced back to the loop-carried tile it is loaded from: iterArg --load-->
// (--transpose-->)* the mma operand.
struct OperandChain {
  unsigned iter = 0;                 // iteration-value index of the tile
  Operation* load = nullptr;         // tile.load_tile
  std::vector<Operation*> transposes;
  Operation* init = nullptr;         // the tile.init_tile giving the tile's initial value
  int tileDim(int mmaDim) const { return transposes.size() % 2 ? 1 - mmaDim : mmaDim; }
};

struct Plan {
  Operation* loop = nullptr;
  Operation* mma = nullptr;
  unsigned acc = 0;  // iteration-value index of the accumulator
  OperandChain a, b;
  std::vector<Operation*> epilogue;  // ops after the loop that use the accumulator, in block order
  std::vector<Operation*> between;   // the other ops up to the last of them (pure: moved before the loop)
  std::vector<Operation*> sliced;    // ops after the loop made again per slice (a bias load, its broadcast)
  std::map<Operation*, int> reductions;  // epilogue reductions of the accumulator -> the reduced dimension
  // Epilogue stores inside an `scf.if` (no results, no else branch) -> the if: each slice stores under
  // a copy of it (conditionalStores).
  std::map<Operation*, Operation*> condStores;
  std::vector<Operation*> condIfs;   // those ifs, erased with the epilogue
  bool wholeRows = false;            // a reduction along N is used by more than stores: every slice has all rows (pm = 1)
  bool wholeCols = false;            // likewise along M: every slice has all columns (pn = 1)
  // The slices: each row range (offset, size) along M with each column range along N.
  std::vector<std::pair<int64_t, int64_t>> rows, cols;
  // The one-loop form's ranges of the K step (one when it is a power of two): each slice's tile_mma
  // becomes a chain of tile_mmas over them, on A and B tiles cut along K.
  SliceRanges ks;
  bool oneLoop = false;  // the slices share the loop (power-of-two pieces), else a loop per slice
  int64_t halfStep = 0;  // > 0: no slices; the loop walks K by this step, half its own (halveK)
  size_t count() const { return rows.size() * cols.size(); }
};

// `n` equal ranges of `total`.
std::vector<std::pair<int64_t, int64_t>> equalRanges(int64_t total, int64_t n) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (int64_t i = 0; i < n; ++i) r.emplace_back(i * (total / n), total / n);
  return r;
}

bool isElementwise(const Operation& op) {
  if (op.numResults() != 1 || op.numRegions() != 0 || !op.result()->type().isVector()) return false;
  if (op.dialect() != "arith" && op.dialect() != "math") return false;
  for (Value* v : op.operands())
    if (!v->type().isVector() || v->type().shape() != op.result()->type().shape()) return false;
  return true;
}

const Attribute* splatValue(const Value* v) {
  const Operation* d = v->definingOp();
  if (!d || !d->is("arith.constant")) return nullptr;
  const Attribute* a = d->attr("value");
  if (!a || !a->isa(AttrKind::Dense)) return nullptr;
  return (a->denseIsFloat() ? a->denseFloats().size() : a->denseInts().size()) == 1 ? a : nullptr;
}

// The 1-based operand index of an init_tile's offset along tile dimension d (the two innermost).
std::optional<unsigned> offsetOperand(const Operation& init, int d) {
  const Type& mt = init.operand(0)->type();
  if (!mt.isMemRef() || init.result()->type().rank() != 2) return std::nullopt;
  int64_t r = mt.rank();
  if (const Attribute* s = init.attr("segments")) r = s->getIntArray().at(0);
  if (r < 2) return std::nullopt;
  return static_cast<unsigned>(1 + r - 2 + d);
}

class Splitter {
public:
  Splitter(Operation* kernel, const targets::Target& t, DiagnosticEngine& diags) : kernel_(kernel), t_(t), diags_(diags) {}

  // False when an error was reported.
  bool ok() const { return ok_; }

  void run() {
    // Each loop with the number of loops its original became (split_loops counts the most).
    std::vector<std::pair<Operation*, int64_t*>> work;
    std::vector<std::unique_ptr<int64_t>> counts;
    for (Operation* op : ir::kernelBody(kernel_).opsSnapshot())
      if (op->is("scf.for")) {
        counts.push_back(std::make_unique<int64_t>(1));
        work.emplace_back(op, counts.back().get());
      }
    while (!work.empty()) {
      auto [loop, count] = work.front();
      work.erase(work.begin());
      LoopRegisters est = estimateLoopRegisters(*loop, t_, false);
      bool fits = fitsRegisterFile(est.peak(), t_.grfCountLarge);
      Plan p;
      p.loop = loop;
      std::string why = analyse(p);
      // An accumulator of M or N not a power of two: layout-assignment's linear layouts cannot hold
      // it, so it becomes power-of-two slices; in the one loop when that fits (the slices share
      // the other operand's load), else a loop per slice, each checked again below. When it cannot
      // be sliced, no later pass could lower it: the error says why (select-lowering shows it as
      // the reason for the portable path).
      // A K step that is not a power of two (48 = 32 + 16) likewise: A's and B's tiles are cut along
      // K in the one loop, and each slice's tile_mma becomes a chain over the K ranges.
      bool unevenAcc = p.mma && !powerOfTwoTile(p.mma->result()->type());
      bool unevenK = p.mma && !std::has_single_bit(static_cast<uint64_t>(kStep(p)));
      bool uneven = unevenAcc || unevenK;
      if (uneven && why.empty()) why = unevenSlices(p);
      if (uneven && !why.empty()) {
        const std::vector<int64_t>& c = p.mma->result()->type().shape();
        if (unevenAcc)
          diags_.error(p.mma->loc(), fmt::format("split-accumulators: a {}x{} accumulator is not a power of two in each "
                                                 "dimension and this loop cannot be split into power-of-two slices: {}",
                                                 c[0], c[1], why));
        else
          diags_.error(p.mma->loc(), fmt::format("split-accumulators: the K step {} of this tile_mma is not a power of "
                                                 "two and this loop cannot be cut into power-of-two K ranges: {}",
                                                 kStep(p), why));
        ok_ = false;
        continue;
      }
      if (fits && !uneven) continue;
      // On a target without 2D block IO (dg2) a loop that does not fit walks K by half its step when
      // it can (halfStep) instead of cutting its accumulator into slices narrower than B's block
      // reads (narrowPerLaneB): the same loads per K, no slice. Before an uneven accumulator's rows
      // are cut, so too when its slices could come to that (an 8-bit B: 24x48 i8 K 64 is 24x48
      // K 32, where a K-64 8x16 row loop, which fits, made ocloc spill around its edge loop).
      // Otherwise slices whose B the interior loop still reads by block messages, else any.
      // Only K uneven and the loop too big (and not halved): a register split first (K whole in its
      // loops, which are checked again and cut along K then); when there is none, the K cut alone
      // in this loop (it spills, and lower-xe warns with the reason).
      bool halve = false;
      bool kOnly = uneven && p.rows.size() == 1 && p.cols.size() == 1;
      std::string noSplit;
      if (why.empty()) {
        std::string sliced = uneven ? "" : choose(p, est, true);
        bool narrow = uneven ? narrowPerLaneB(p, t_.subgroupSize) : !sliced.empty();
        if (!fits && !t_.has2dBlockIO && narrow && halfStep(p) > 0) {
          halve = true;
        } else if (!uneven) {
          why = sliced.empty() ? "" : choose(p, est, false);
        } else if (kOnly && !fits) {
          SliceRanges rows = p.rows, cols = p.cols;
          std::string w = choose(p, est, true);
          if (!w.empty()) w = choose(p, est, false);
          if (!w.empty()) {
            noSplit = w;
            p.rows = rows, p.cols = cols;
          }
        }
      }
      if (!why.empty()) {
        // lower-xe's spill warning names the reason (a loop attribute is what survives until there).
        loop->setAttr("no_split", Attribute::string(why));
        continue;
      }
      p.oneLoop = uneven && (fits || !noSplit.empty());
      if (!noSplit.empty()) loop->setAttr("no_split", Attribute::string(noSplit));
      // Too big for one loop: a loop per row range first, each keeping all the columns (their cut,
      // in the one loop when that fits, comes when the slice loop is checked again), so B is not
      // loaded once per slice.
      if (unevenAcc && !p.oneLoop && p.rows.size() > 1) p.cols = {{0, p.mma->result()->type().shape()[1]}};
      if (halve) {
        p.halfStep = halfStep(p);
        const std::vector<int64_t>& c = p.mma->result()->type().shape();
        p.rows = {{0, c[0]}};
        p.cols = {{0, c[1]}};
      }
      std::vector<Operation*> slices = split(p);
      *count += static_cast<int64_t>(slices.size()) - 1;
      // A loop of row ranges, a K-uneven loop's register split, or the loop with the K step halved, is
      // checked again.
      if ((uneven && !p.oneLoop) || halve)
        for (Operation* s : slices) work.emplace_back(s, count);
    }
    int64_t most = 1;
    for (const auto& c : counts) most = std::max(most, *c);
    if (most > 1) kernel_->setAttr("split_loops", Attribute::integer(most));
  }

private:
  // Fills the plan, or says why the loop cannot be split.
  std::string analyse(Plan& p) {
    ir::Block& body = p.loop->region(0).block();
    std::string writes;
    p.loop->walk([&](Operation* op) {
      if (writes.empty() && (op->is("tile.store_tile") || op->is("tile.store_scatter") || op->is("tile.atomic_rmw") ||
                             op->is("gpu.slm_alloc")))
        writes = fmt::format("the loop body writes memory ({} at line {})", op->name(), op->loc().line);
    });
    if (!writes.empty()) return writes;
    Operation* yield = body.terminator();
    for (Operation* op : body.opsSnapshot()) {
      // A tile_mma without C (`acc + tile_mma(a, b)`) accumulates nothing loop-carried itself.
      if (!op->is("tile.tile_mma") || op->numOperands() < 3) continue;
      Value* c = op->operand(2);
      if (!c->isBlockArgument() || c->ownerBlock() != &body || c->index() == 0) continue;
      if (p.mma) return "the loop carries more than one accumulator";
      p.mma = op;
      p.acc = c->index() - 1;
    }
    if (!p.mma) return "no tile_mma accumulates into a loop-carried value";
    Value* accArg = body.argument(p.acc + 1);
    if (accArg->uses().size() != 1 || p.mma->result()->uses().size() != 1 ||
        p.mma->result()->uses()[0].user != yield || p.mma->result()->uses()[0].index != p.acc)
      return "the accumulator is used by other ops inside the loop";
    if (p.mma->result()->type().rank() != 2) return "the accumulator is not a 2-D tile";
    if (std::string w = trace(p, 0, p.a); !w.empty()) return w;
    if (std::string w = trace(p, 1, p.b); !w.empty()) return w;
    if (p.a.iter == p.b.iter) return "A and B are loaded from the same tile";
    if (std::string w = initSliceable(p.loop->operand(3 + p.acc)); !w.empty()) return w;
    return epilogue(p);
  }

  static bool powerOfTwoTile(const Type& t) {
    for (int64_t d : t.shape())
      if (!std::has_single_bit(static_cast<uint64_t>(d))) return false;
    return true;
  }

  // An accumulator whose M or N is not a power of two: p.rows and p.cols become its power-of-two
  // ranges of whole DPAS blocks (24 = 16 + 8 rows), or the reason there are none.
  std::string unevenSlices(Plan& p) {
    const std::vector<int64_t>& c = p.mma->result()->type().shape();
    int64_t k = kStep(p);
    auto ranges = [](int64_t n, int64_t unit) {
      return std::has_single_bit(static_cast<uint64_t>(n)) ? SliceRanges{{0, n}} : powerOfTwoRanges(n, unit);
    };
    p.rows = ranges(c[0], rowUnit(p));
    p.cols = ranges(c[1], t_.subgroupSize);
    p.ks = ranges(k, kUnit(p));
    if (p.rows.empty() || p.cols.empty())
      return fmt::format("it is not a whole number of {}x{} blocks", rowUnit(p), t_.subgroupSize);
    if (p.ks.empty()) return fmt::format("its K step {} is not a whole number of {}-element DPAS K blocks", k, kUnit(p));
    if (p.wholeRows && p.rows.size() > 1)
      return fmt::format("its reduction along dimension 1 after the loop is used whole, so every slice would need all {} rows", c[0]);
    if (p.wholeCols && p.cols.size() > 1)
      return fmt::format("its reduction along dimension 0 after the loop is used whole, so every slice would need all {} columns",
                         c[1]);
    return "";
  }

  static int64_t kStep(const Plan& p) { return p.mma->operand(0)->type().shape()[1]; }

  // The target's DPAS shapes that take the tile_mma's A, B and C types (none: the FMA path).
  std::vector<const targets::DpasShape*> dpasShapes(const Plan& p) const {
    const Type& a = p.mma->operand(0)->type();
    const Type& b = p.mma->operand(1)->type();
    const Type& c = p.mma->result()->type();
    std::vector<const targets::DpasShape*> out;
    for (const targets::DpasShape& d : t_.dpas)
      if (d.aType == ir::elemName(a.elem()) && d.bType == ir::elemName(b.elem()) && d.accType == ir::elemName(c.elem()))
        out.push_back(&d);
    return out;
  }

  // The K depth of the DPAS that takes the tile_mma's types (16 for f16 and bf16, 32 for i8), or 0.
  int64_t dpasK(const Plan& p) const {
    int64_t dk = 0;
    for (const targets::DpasShape* d : dpasShapes(p)) dk = std::max<int64_t>(dk, d->k);
    return dk;
  }

  // The K granule of a cut along K: the DPAS K depth, 8 for the FMA types (an f32 block message is
  // at least 8 elements wide).
  int64_t kUnit(const Plan& p) const {
    int64_t dk = dpasK(p);
    return dk ? dk : 8;
  }

  // The M granule of a cut into uneven row ranges: the fewest rows a DPAS of the tile_mma's types
  // takes (1 where the short forms exist: 3 rows = 2 + 1, 12 = 8 + 4), else minRows().
  int64_t rowUnit(const Plan& p) const {
    int64_t m = 0;
    for (const targets::DpasShape* d : dpasShapes(p)) m = m ? std::min<int64_t>(m, d->m) : d->m;
    return m ? m : minRows();
  }

  int64_t minRows() const {
    int64_t m = 1;
    for (const auto& d : t_.dpas) m = std::max<int64_t>(m, d.m);
    return m;
  }

  // The GRFs of the packed DPAS copy of operand `which` (0 = A, 1 = B) when it is loaded per lane:
  // loaded into dword slots, then packed, both live (0 for a 2D block load).
  int64_t packedRegisters(const Plan& p, int which) const {
    const OperandChain& ch = which == 0 ? p.a : p.b;
    return loadIsPerLane(*ch.load, t_, false) ? vectorRegisters(p.mma->operand(which)->type(), t_) : 0;
  }

  // Whether a slice `w` columns wide leaves B per lane even in the interior loop: on a target
  // without 2D block IO (dg2) B's rows are read by oword block messages, at least 16 bytes of a row
  // (docs/passes.md "dg2 block reads"), so an 8-bit B slice narrower than 16 columns is gathered
  // byte by byte in every loop (i8 8x8 slices: 64 gathers per K step of 64, ~1500 instructions).
  bool narrowPerLaneB(const Plan& p, int64_t w) const {
    return !t_.has2dBlockIO && p.b.transposes.empty() && w * (ir::elemBits(p.mma->operand(1)->type().elem()) / 8) < 16;
  }

  // The step the loop's K walk can take instead of its own, half of it, or 0 when it cannot
  // (halveK). The K loop of a plain GEMM (a constant step S; the body only loads A and B for the
  // tile_mma, advances them by S along K and prefetches them; the counter unused) computes the same
  // with step S / 2 over the same K range, each operand tile half as deep: the same elements are
  // loaded, in two steps, and added in the same order per element (K blocks ascending). S / 2 must
  // be a whole number of the DPAS K of the operands' types.
  int64_t halfStep(const Plan& p) const {
    ir::Block& body = p.loop->region(0).block();
    std::optional<int64_t> step = constantInt(p.loop->operand(2));
    if (!step || *step <= 0 || *step % 2 || body.argument(0)->hasUses() || p.loop->numOperands() != 6) return 0;
    if (kStep(p) != *step) return 0;
    int64_t dk = dpasK(p);
    if (!dk || (*step / 2) % dk) return 0;
    // Each operand advances by S along its K dimension and by 0 along the other.
    for (const OperandChain* ch : {&p.a, &p.b}) {
      int kd = ch->tileDim(ch == &p.a ? 1 : 0);
      Operation* u = body.terminator()->operand(ch->iter)->definingOp();
      if (!u || !u->is("tile.update_tile_offset")) return 0;
      std::optional<int64_t> dK = constantInt(u->operand(1 + kd)), dO = constantInt(u->operand(2 - kd));
      if (!dK || *dK != *step || !dO || *dO != 0) return 0;
    }
    for (auto& o : body.opList()) {
      Operation* op = o.get();
      bool chain = op == p.a.load || op == p.b.load || op == p.mma ||
                   std::find(p.a.transposes.begin(), p.a.transposes.end(), op) != p.a.transposes.end() ||
                   std::find(p.b.transposes.begin(), p.b.transposes.end(), op) != p.b.transposes.end() ||
                   op == body.terminator()->operand(p.a.iter)->definingOp() ||
                   op == body.terminator()->operand(p.b.iter)->definingOp();
      bool ownPrefetch = op->is("tile.prefetch_tile") &&
                         (op->operand(0) == body.argument(p.a.iter + 1) || op->operand(0) == body.argument(p.b.iter + 1));
      if (!chain && !ownPrefetch && !op->is("arith.constant") && !op->is("scf.yield")) return 0;
    }
    return *step / 2;
  }

  static std::optional<int64_t> constantInt(const Value* v) {
    const Operation* d = v->definingOp();
    const Attribute* a = d && d->is("arith.constant") ? d->attr("value") : nullptr;
    if (!a || !a->isa(AttrKind::Int)) return std::nullopt;
    return a->getInt();
  }

  // Traces mma operand `which` (0 = A, 1 = B) back to a loop-carried tile.
  std::string trace(Plan& p, int which, OperandChain& ch) {
    ir::Block& body = p.loop->region(0).block();
    const char* name = which == 0 ? "A" : "B";
    Value* v = p.mma->operand(which);
    for (;;) {
      Operation* d = v->definingOp();
      if (!d || d->parentBlock() != &body || v->uses().size() != 1)
        return fmt::format("operand {} of the tile_mma is not loaded in the loop for it alone", name);
      if (d->is("tile.transpose")) {
        ch.transposes.push_back(d);
        v = d->operand(0);
        continue;
      }
      if (!d->is("tile.load_tile")) return fmt::format("operand {} of the tile_mma comes from {}", name, d->name());
      ch.load = d;
      break;
    }
    Value* t = ch.load->operand(0);
    if (!t->isBlockArgument() || t->ownerBlock() != &body || t->index() == 0)
      return fmt::format("the tile of operand {} is not a loop iteration value", name);
    ch.iter = t->index() - 1;
    // The tile may be loaded (this load only), prefetched and advanced; its advanced value is yielded
    // and the loop's final value of it is unused.
    for (const ir::Use& u : t->uses()) {
      Operation* user = u.user;
      if (user == ch.load || user->is("tile.prefetch_tile")) continue;
      if (user->is("tile.update_tile_offset") && u.index == 0 && user->result()->uses().size() == 1 &&
          user->result()->uses()[0].user == body.terminator() && user->result()->uses()[0].index == ch.iter)
        continue;
      return fmt::format("the tile of operand {} has another use in the loop ({})", name, user->name());
    }
    if (p.loop->result(ch.iter)->hasUses()) return fmt::format("the tile of operand {} is used after the loop", name);
    ch.init = p.loop->operand(3 + ch.iter)->definingOp();
    if (!ch.init || !ch.init->is("tile.init_tile") || !offsetOperand(*ch.init, 0))
      return fmt::format("the tile of operand {} does not start from an init_tile of a memref", name);
    return "";
  }

  // The accumulator's initial value: a splat constant, or a load of a tile from an init_tile.
  static std::string initSliceable(Value* v) {
    if (splatValue(v)) return "";
    Operation* d = v->definingOp();
    if (d && d->is("tile.load_tile") && d->operand(0)->definingOp() && d->operand(0)->definingOp()->is("tile.init_tile") &&
        offsetOperand(*d->operand(0)->definingOp(), 0))
      return "";
    return "the accumulator's initial value is neither a splat constant nor a load of an init_tile";
  }

  // The ops after the loop that use the accumulator: element-wise ones (their other operands
  // sliceable: see `sliceable`) ending in store_tile to an init_tile, and whole-dimension reductions,
  // whose slices' partial results combine (so a reduction along N keeps whole rows in every slice,
  // one along M whole columns). Each slice's copy runs right after its loop, so only one slice of the
  // accumulator is ever live: the ops between the loop and the last of them must be pure (they move
  // before the loop) and must not use a reduction's result (complete only after the last slice), and
  // the stored memref must not be one the loop or the epilogue reads (distinct memref arguments are
  // taken not to overlap, as everywhere in xtc; a store to A or B itself would be seen by the next
  // slice loop).
  std::string epilogue(Plan& p) {
    std::set<Value*> derived{p.loop->result(p.acc)};
    std::set<Value*> read, reduced;
    p.loop->walk([&](Operation* op) {
      if (op->is("tile.load_tile") || op->is("tile.prefetch_tile") || op->is("tile.load_gather"))
        if (Operation* init = op->operand(0)->definingOp(); init && init->is("tile.init_tile")) read.insert(init->operand(0));
    });
    for (unsigned i = 3; i < p.loop->numOperands(); ++i)
      if (Operation* init = p.loop->operand(i)->definingOp(); init && init->is("tile.init_tile")) read.insert(init->operand(0));
    after_.clear();
    for (Operation* op = p.loop->nextInBlock(); op; op = op->nextInBlock()) op->walk([&](Operation* o) { after_.insert(o); });
    std::vector<Operation*> others;
    std::vector<Operation*> stores;
    for (Operation* op = p.loop->nextInBlock(); op; op = op->nextInBlock()) {
      bool uses = false;
      op->walk([&](Operation* o) {
        for (Value* v : o->operands()) uses = uses || derived.count(v);
      });
      if (!uses && op->is("tile.store_tile") && reduced.count(op->operand(0)) && !reduced.count(op->operand(1))) {
        // A store of a reduction of the accumulator: made per group of slices, once the group's
        // partial results are combined (see `reduction`).
        Operation* init = op->operand(1)->definingOp();
        if (!init || !init->is("tile.init_tile") || !offsetOperand(*init, 0) || read.count(init->operand(0))) {
          others.push_back(op);
          continue;
        }
        stores.push_back(init);
      } else if (!uses) {
        others.push_back(op);
        continue;
      } else if (op->is("tile.store_tile") && derived.count(op->operand(0)) && !derived.count(op->operand(1))) {
        if (std::string w = accumulatorStore(*op, read, stores); !w.empty()) return w;
      } else if (op->is("tile.reduction") && derived.count(op->operand(0))) {
        if (std::string w = reduction(p, *op); !w.empty()) return w;
        reduced.insert(op->result());
      } else if (op->is("scf.if")) {
        p.between.insert(p.between.end(), others.begin(), others.end());
        others.clear();
        if (std::string w = conditionalStores(p, *op, derived, read, stores); !w.empty()) return w;
        continue;
      } else {
        if (std::string w = elementwiseStep(p, *op, derived, "after the loop"); !w.empty()) return w;
      }
      p.epilogue.push_back(op);
      p.between.insert(p.between.end(), others.begin(), others.end());
      others.clear();
    }
    for (Value* v : derived)
      for (const ir::Use& u : v->uses())
        if (std::find(p.epilogue.begin(), p.epilogue.end(), u.user) == p.epilogue.end())
          return fmt::format("the accumulator is used by {} after the loop", u.user->name());
    // A reduction used by more than such stores is complete only after the last slice: its slices
    // must span the reduced dimension whole.
    for (auto& [red, d] : p.reductions)
      for (const ir::Use& u : red->result()->uses())
        if (std::find(p.epilogue.begin(), p.epilogue.end(), u.user) == p.epilogue.end()) (d == 1 ? p.wholeRows : p.wholeCols) = true;
    // The sliced ops are made again per slice: only the epilogue (or another sliced op) may use them,
    // and what they load must not be what the epilogue stores.
    for (Operation* op : p.sliced) {
      for (const ir::Use& u : op->result()->uses())
        if (std::find(p.epilogue.begin(), p.epilogue.end(), u.user) == p.epilogue.end() &&
            std::find(p.sliced.begin(), p.sliced.end(), u.user) == p.sliced.end())
          return fmt::format("{} after the loop is also used by {}", op->name(), u.user->name());
      // A load of the very rectangle a store writes is safe: every slice loads and stores the same
      // slice of it, and slices are disjoint, so no slice reads what another wrote (C = relu(C + A·B)
      // + C, as the accumulator's own initial load from C). Any other rectangle of that memref could
      // overlap an earlier slice's store.
      if (op->is("tile.load_tile"))
        for (Operation* st : stores)
          if (Operation* ld = op->operand(0)->definingOp(); st->operand(0) == ld->operand(0) && !sameRectangle(*ld, *st))
            return "the epilogue loads another rectangle of the memref it stores the accumulator to";
    }
    std::erase_if(p.between, [&](Operation* op) { return std::find(p.sliced.begin(), p.sliced.end(), op) != p.sliced.end(); });
    for (Operation* op : p.between) {
      bool pure = op->numRegions() == 0 && (op->dialect() == "arith" || op->dialect() == "math" ||
                                            op->is("memref.dim") || op->is("memref.slice") || op->is("tile.init_tile") || op->is("gpu.group_id") ||
                                            op->is("gpu.subgroup_id") || op->is("gpu.lane_id"));
      if (!pure) return fmt::format("{} runs between the loop and the accumulator's last use", op->name());
      for (Value* v : op->operands())
        if (reduced.count(v)) return fmt::format("{} uses a reduction of the accumulator before its last use", op->name());
    }
    std::vector<Operation*> inOrder;  // program order, so split() erases users before what they use
    for (Operation* op = p.loop->nextInBlock(); op; op = op->nextInBlock())
      if (std::find(p.sliced.begin(), p.sliced.end(), op) != p.sliced.end()) inOrder.push_back(op);
    p.sliced = inOrder;
    return "";
  }

  // A store of (a value derived from) the accumulator: to an init_tile over a memref the loop does
  // not read; its init joins `stores`.
  static std::string accumulatorStore(const Operation& st, const std::set<Value*>& read, std::vector<Operation*>& stores) {
    Operation* init = st.operand(1)->definingOp();
    if (!init || !init->is("tile.init_tile") || !offsetOperand(*init, 0))
      return "the accumulator is stored to a tile that does not come from an init_tile";
    if (read.count(init->operand(0))) return "the accumulator is stored to a memref the loop reads";
    stores.push_back(init);
    return "";
  }

  // An element-wise epilogue op of the accumulator (`where` it is, for the reason): its other
  // operands must be sliceable; its result is derived too.
  std::string elementwiseStep(Plan& p, Operation& op, std::set<Value*>& derived, const char* where) {
    if (!isElementwise(op)) return fmt::format("the accumulator is used by {} {}", op.name(), where);
    for (Value* v : op.operands())
      if (!derived.count(v) && !sliceable(p, v))
        return fmt::format("{} after the loop combines the accumulator with a value that is not a splat, a load "
                           "or a broadcast of one",
                           op.name());
    derived.insert(op.result());
    return "";
  }

  // An `scf.if` after the loop whose branch stores the accumulator (`if m < lim { store_tile(acc as
  // bf16, init_tile C[m, n]) }`, gsel): no results, no else branch, a condition that is not the
  // accumulator's. Its element-wise ops join the epilogue (computed per slice, unconditionally: they
  // are pure), its ops that do not use the accumulator (the stored tile's init_tile, memref dims,
  // index math) move before the loop with the other pure ops, and each slice stores its part under a
  // copy of the if. Anything else in the branch keeps the loop whole, as before.
  std::string conditionalStores(Plan& p, Operation& ifOp, std::set<Value*>& derived, const std::set<Value*>& read,
                                std::vector<Operation*>& stores) {
    if (ifOp.numResults() != 0 || derived.count(ifOp.operand(0)) ||
        (ifOp.numRegions() > 1 && !ifOp.region(1).empty() && ifOp.region(1).block().front() != ifOp.region(1).block().terminator()))
      return "the accumulator is used by scf.if after the loop";
    ir::Block& then = ifOp.region(0).block();
    for (Operation* o : then.opsSnapshot()) {
      if (o == then.terminator()) continue;
      bool uses = false;
      o->walk([&](Operation* n) {
        for (Value* v : n->operands()) uses = uses || derived.count(v);
      });
      if (!uses) {
        p.between.push_back(o);  // must be pure (checked with the others): it moves before the loop
        continue;
      }
      if (o->is("tile.store_tile") && derived.count(o->operand(0)) && !derived.count(o->operand(1))) {
        if (std::string w = accumulatorStore(*o, read, stores); !w.empty()) return w;
        p.condStores[o] = &ifOp;
      } else if (std::string w = elementwiseStep(p, *o, derived, "in an scf.if after the loop"); !w.empty()) {
        return w;
      }
      p.epilogue.push_back(o);
    }
    p.condIfs.push_back(&ifOp);
    return "";
  }

  // Whether two init_tiles name the same rectangle: the same op, or the same operands, type and
  // attributes.
  static bool sameRectangle(const Operation& a, const Operation& b) {
    return &a == &b || (a.operands() == b.operands() && a.result()->type() == b.result()->type() && a.attrs() == b.attrs());
  }

  // A reduction of the accumulator after the loop: one dimension, all of it, a kind whose partial
  // results combine with one arith op. Reduced along N (d = 1), the slices of one row band (the same
  // im) combine into the band's rows of the result; along M, those of one column band. Stores of the
  // result to an init_tile are made per band as soon as its last slice is done (RFC 2.2: each
  // band's row sums into SLM), so only one band's partial result is live; any other use needs the
  // whole result, and then every slice spans the reduced dimension (one band).
  static std::string reduction(Plan& p, const Operation& op) {
    const Attribute* dims = op.attr("dims");
    const Type& t = op.operand(0)->type();
    if (!dims || dims->getIntArray().size() != 1 || t.rank() != 2)
      return "the accumulator is reduced along more than one dimension after the loop";
    int64_t d = dims->getIntArray()[0];
    if (op.result()->type().shape()[d] != 1) return "the accumulator is reduced in groups after the loop";
    const Attribute* kind = op.attr("kind");
    if (!kind || combineOp(kind->getString(), t.elem()).empty())
      return "the accumulator's reduction after the loop has no combining op for its partial results";
    p.reductions[const_cast<Operation*>(&op)] = static_cast<int>(d);
    return "";
  }

  // Whether `v`, an operand of an element-wise epilogue op not derived from the accumulator, can be
  // sliced like it: a splat constant; a load of an init_tile after the loop (each slice loads its
  // rectangle); a broadcast after the loop of one row or column of a sliceable value (each slice
  // broadcasts the part of it over its rectangle). The ops after the loop go in p.sliced.
  bool sliceable(Plan& p, Value* v) {
    if (splatValue(v)) return true;
    Operation* d = v->definingOp();
    if (!d || !after_.count(d) || v->type().rank() != 2 || d->numResults() != 1) return false;
    if (d->is("tile.load_tile")) {
      Operation* init = d->operand(0)->definingOp();
      if (!init || !init->is("tile.init_tile") || !offsetOperand(*init, 0)) return false;
    } else if (d->is("tile.broadcast")) {
      const Attribute* dims = d->attr("dims");
      if (!dims || dims->getIntArray().size() != 1) return false;
      int64_t bd = dims->getIntArray()[0];
      if (d->operand(0)->type().rank() != 2 || d->operand(0)->type().shape()[bd] != 1 || !sliceable(p, d->operand(0)))
        return false;
    } else {
      return false;
    }
    if (std::find(p.sliced.begin(), p.sliced.end(), d) == p.sliced.end()) p.sliced.push_back(d);
    return true;
  }

  // The split with the fewest loaded registers per K step whose slice loop fits the large file. With
  // `blockReadable`, only slices whose B rows a target without 2D block IO can still read by block
  // messages in the interior loop (narrowPerLaneB).
  std::string choose(Plan& p, const LoopRegisters& est, bool blockReadable) {
    const std::vector<int64_t>& c = p.mma->result()->type().shape();
    int64_t minRows = this->minRows();
    int64_t minCols = t_.subgroupSize;
    int64_t aRegs = loadRegisters(*p.a.load, t_, false), bRegs = loadRegisters(*p.b.load, t_, false);
    int64_t other = est.operands - aRegs - bRegs;
    int64_t aPacked = packedRegisters(p, 0), bPacked = packedRegisters(p, 1);
    int64_t accRegs = vectorRegisters(p.mma->result()->type(), t_);
    int64_t carriedOther = est.carried - accRegs;
    std::optional<std::tuple<int64_t, int64_t, int64_t, int64_t>> best;  // cost, loops, -pn, pm
    int64_t smallest = -1;
    bool bandRefused = false;  // a slicing of whole DPAS blocks refused only for its reduction bands
    for (int64_t pm = 1; c[0] % pm == 0 && c[0] / pm >= minRows && (c[0] / pm) % minRows == 0 && (pm == 1 || !p.wholeRows);
         pm *= 2)
      for (int64_t pn = 1; c[1] % pn == 0 && c[1] / pn >= minCols && (c[1] / pn) % minCols == 0 && (pn == 1 || !p.wholeCols);
           pn *= 2) {
        if (pm * pn == 1) continue;
        if (blockReadable && narrowPerLaneB(p, c[1] / pn)) continue;
        // A band's partial reduction stays live across the band's other loops: reduced along N, one
        // register per row, replicated over the lanes (along M, a row of every band). ocloc spills it
        // around those loops unless the band is one DPAS M block high (RFC 2.2 on dg2, 16x16 and
        // 16x8 slices: 32 scratch messages per loop; 8x16: none), so bands carrying one are no
        // higher (or, along M, no wider than the subgroup).
        int64_t partial = 0;
        bool bandTooBig = false;
        for (auto& [red, d] : p.reductions) {
          partial += d == 1 ? c[0] / pm : vectorRegisters(red->result()->type().withShape({1, c[1]}), t_);
          bandTooBig = bandTooBig || (d == 1 ? pn > 1 && c[0] / pm > minRows : pm > 1 && c[1] / pn > minCols);
        }
        if (bandTooBig) {
          bandRefused = true;
          continue;
        }
        // The slice loop, and its epilogue: the epilogue's values are slices too. A per-lane operand
        // is loaded into dword slots and packed again for DPAS: both copies are live.
        int64_t slice = carriedOther + other + ceilDiv(accRegs, pm * pn) + ceilDiv(aRegs + aPacked, pm) +
                        ceilDiv(bRegs + bPacked, pn) + partial;
        slice = std::max(slice, ceilDiv(est.epilogue, pm * pn));
        if (smallest < 0 || slice < smallest) smallest = slice;
        if (!fitsRegisterFile(slice, t_.grfCountLarge)) continue;
        auto key = std::make_tuple(pn * aRegs + pm * bRegs + pm * pn * other, pm * pn, -pn, pm);
        if (!best || key < *best) best = key;
      }
    if (!best && smallest < 0 && bandRefused) {
      // Every slicing of whole DPAS blocks was refused for its reduction bands alone: a band can be
      // made one DPAS M block high (or one subgroup wide) unless the reduced dimension must stay
      // whole, so a reduction's result is used whole (wholeRows or wholeCols).
      if (p.wholeRows)
        return fmt::format("its rows are reduced after the loop and the sums are used whole, so every slice keeps all "
                           "{} rows; slices of fewer columns would carry partial sums for those {} rows across their "
                           "loops, and more than {} spill",
                           c[0], c[0], minRows);
      return fmt::format("its columns are reduced after the loop and the results are used whole, so every slice keeps "
                         "all {} columns; slices of fewer rows would carry partial results for those {} columns across "
                         "their loops, and more than {} spill",
                         c[1], c[1], minCols);
    }
    if (!best)
      return smallest < 0 ? "its accumulator has no slice of whole DPAS blocks"
                          : fmt::format("even its smallest slices keep {} registers live", smallest);
    p.rows = equalRanges(c[0], std::get<3>(*best));
    p.cols = equalRanges(c[1], -std::get<2>(*best));
    return "";
  }

  static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

  // A new init_tile for the rectangle [r0, r0 + h) x [c0, c0 + w) of `init`'s tile, after `init`.
  Value* sliceInit(Operation* init, int64_t r0, int64_t h, int64_t c0, int64_t w) {
    // After the slices made before (so they read in slice order).
    Operation*& last = lastSlice_[init];
    ir::Builder b;
    b.setInsertionPointAfter(last ? last : init);
    b.setLoc(init->loc());
    std::vector<Value*> ops = init->operands();
    for (int d = 0; d < 2; ++d) {
      int64_t o = d == 0 ? r0 : c0;
      if (!o) continue;
      unsigned i = *offsetOperand(*init, d);
      ops[i] = b.create("arith.addi", {ops[i], b.constantIndex(o)}, {Type::index()})->result();
    }
    Type t = init->result()->type().withShape({h, w});
    last = b.create("tile.init_tile", ops, {t}, init->attrs());
    return last->result();
  }

  // The slice of the accumulator's initial value or of an epilogue constant (checked by
  // initSliceable / epilogue), at b's insertion point.
  Value* sliceValue(ir::Builder& b, Value* v, int64_t r0, int64_t h, int64_t c0, int64_t w) {
    Type t = v->type().withShape({h, w});
    if (const Attribute* s = splatValue(v)) {
      Attribute a = s->denseIsFloat() ? Attribute::denseFloat(t, s->denseFloats()) : Attribute::denseInt(t, s->denseInts());
      return b.create("arith.constant", {}, {t}, {{"value", a}})->result();
    }
    Operation* d = v->definingOp();
    if (d->is("tile.broadcast")) {
      // The broadcast row (dims [0]) or column (dims [1]) over the slice's columns or rows.
      int64_t bd = d->attr("dims")->getIntArray()[0];
      Value* in = bd == 0 ? sliceValue(b, d->operand(0), 0, 1, c0, w) : sliceValue(b, d->operand(0), r0, h, 0, 1);
      ir::AttrMap attrs = d->attrs();
      if (attrs.count("broadcast_size")) attrs["broadcast_size"] = Attribute::integer(bd == 0 ? h : w);
      return b.create("tile.broadcast", {in}, {t}, attrs)->result();
    }
    Value* tile = sliceInit(d->operand(0)->definingOp(), r0, h, c0, w);
    return b.create("tile.load_tile", {tile}, {t}, d->attrs())->result();
  }

  // Makes the slices (a loop each, or p.oneLoop: all in p.loop) and each slice's epilogue; returns
  // the loops.
  std::vector<Operation*> split(Plan& p) {
    Operation* loop = p.loop;
    for (Operation* op : p.between) op->moveBefore(loop);
    int64_t k = p.halfStep ? p.halfStep : kStep(p);
    ir::Block& body = loop->region(0).block();
    std::vector<Operation*> slices;
    std::vector<Value*> fused = p.oneLoop ? fuse(p) : std::vector<Value*>{};
    // One loop: every slice's epilogue after it, in slice order.
    ir::Builder after;
    after.setInsertionPointAfter(loop);
    // An epilogue reduction and its band (im along N, in along M) -> its result over the band's slices so far.
    std::map<std::pair<Operation*, int64_t>, Value*> combined;
    for (size_t im = 0; im < p.rows.size(); ++im)
      for (size_t in = 0; in < p.cols.size(); ++in) {
        auto [r0, h] = p.rows[im];
        auto [c0, w] = p.cols[in];
        ir::Builder b = after;
        Value* accResult = nullptr;
        if (p.oneLoop) {
          accResult = fused[im * p.cols.size() + in];
        } else {
          b.setInsertionPoint(loop);
          b.setLoc(loop->loc());
          Value* accInit = sliceValue(b, loop->operand(3 + p.acc), r0, h, c0, w);
          ir::IRMapping map;
          Operation* s = b.insert(loop->clone(map));
          if (!p.halfStep)
            s->setAttr("split", Attribute::intArray({static_cast<int64_t>(slices.size()), static_cast<int64_t>(p.count())}));
          s->removeAttr("no_split");
          // The accumulator: initial value, iteration value, mma result, loop result.
          Type accT = p.mma->result()->type().withShape({h, w});
          s->setOperand(3 + p.acc, accInit);
          map.lookup(body.argument(p.acc + 1))->setType(accT);
          map.lookup(p.mma->result())->setType(accT);
          s->result(p.acc)->setType(accT);
          // A: rows [r0, r0 + h) of its K columns; B: columns [c0, c0 + w) of its K rows.
          retypeOperand(p, p.a, map, s, 0, r0, h, k);
          retypeOperand(p, p.b, map, s, 1, c0, w, k);
          if (p.halfStep) halveK(p, map, s);
          slices.push_back(s);
          accResult = s->result(p.acc);
        }
        // The epilogue of this slice, right after its loop.
        std::map<Value*, Value*> vals{{loop->result(p.acc), accResult}};
        for (Operation* op : p.epilogue) {
          b.setLoc(op->loc());
          if (op->is("tile.reduction")) {
            // This slice's partial result, combined with those of the band's slices before it.
            int64_t d = p.reductions.at(op);
            Type rt = op->result()->type().withShape(d == 1 ? std::vector<int64_t>{h, 1} : std::vector<int64_t>{1, w});
            Value* r = b.create(op->name(), {vals[op->operand(0)]}, {rt}, op->attrs())->result();
            Value*& all = combined[{op, d == 1 ? im : in}];
            all = all ? b.create(combineOp(op->attr("kind")->getString(), rt.elem()), {all, r}, {rt})->result() : r;
            continue;
          }
          if (op->is("tile.store_tile") && !vals.count(op->operand(0))) {
            // A store of a reduction: the band's part, after the band's last slice.
            Operation* red = op->operand(0)->definingOp();
            int64_t d = p.reductions.at(red);
            if (d == 1 ? in + 1 != p.cols.size() : im + 1 != p.rows.size()) continue;
            Operation* init = op->operand(1)->definingOp();
            Value* tile = d == 1 ? sliceInit(init, r0, h, 0, 1) : sliceInit(init, 0, 1, c0, w);
            b.create(op->name(), {combined.at({red, d == 1 ? im : in}), tile}, {}, op->attrs());
            continue;
          }
          if (auto c = p.condStores.find(op); c != p.condStores.end()) {
            Operation* orig = c->second;
            Operation* n = b.create("scf.if", {orig->operand(0)}, {}, orig->attrs(), orig->numRegions());
            ir::Builder tb(&n->region(0).addBlock());
            tb.setLoc(op->loc());
            tb.create(op->name(), {vals[op->operand(0)], sliceInit(op->operand(1)->definingOp(), r0, h, c0, w)}, {}, op->attrs());
            tb.create("scf.yield", {}, {});
            if (orig->numRegions() > 1 && !orig->region(1).empty()) {
              ir::Builder eb(&n->region(1).addBlock());
              eb.setLoc(op->loc());
              eb.create("scf.yield", {}, {});
            }
            continue;
          }
          std::vector<Value*> ops;
          for (Value* v : op->operands()) {
            if (vals.count(v)) ops.push_back(vals[v]);
            else if (op->is("tile.store_tile")) ops.push_back(sliceInit(v->definingOp(), r0, h, c0, w));
            else ops.push_back(sliceValue(b, v, r0, h, c0, w));
          }
          std::vector<Type> types;
          for (Value* r : op->results()) types.push_back(r->type().withShape({h, w}));
          Operation* n = b.create(op->name(), ops, types, op->attrs());
          for (unsigned i = 0; i < op->numResults(); ++i) vals[op->result(i)] = n->result(i);
        }
      }
    // A reduction used by more than stores spans one band (wholeRows / wholeCols): band 0 is all.
    for (auto& [key, all] : combined) {
      all->setNameHint(key.first->result()->nameHint());
      for (const ir::Use& u : key.first->result()->uses())
        if (std::find(p.epilogue.begin(), p.epilogue.end(), u.user) == p.epilogue.end()) {
          key.first->result()->replaceAllUsesWith(all);
          break;
        }
    }
    // The loop's other results are the same in every slice loop: the first one's.
    if (!p.oneLoop)
      for (unsigned i = 0; i < loop->numResults(); ++i)
        if (i != p.acc) loop->result(i)->replaceAllUsesWith(slices[0]->result(i));
    // Ops only the original used, each before the ops it uses (a load of C for C += A·B, then its tile).
    std::vector<Operation*> dead{p.a.init, p.b.init};
    if (Operation* d = loop->operand(3 + p.acc)->definingOp()) {
      dead.push_back(d);
      if (d->is("tile.load_tile")) dead.push_back(d->operand(0)->definingOp());
    }
    for (Operation* op : p.epilogue) {
      if (op->is("tile.store_tile")) dead.push_back(op->operand(1)->definingOp());
      for (Value* v : op->operands())
        if (splatValue(v)) dead.push_back(v->definingOp());
    }
    for (Operation* op : p.sliced)
      if (op->is("tile.load_tile")) dead.push_back(op->operand(0)->definingOp());
    for (auto it = p.epilogue.rbegin(); it != p.epilogue.rend(); ++it) (*it)->erase();
    for (auto it = p.sliced.rbegin(); it != p.sliced.rend(); ++it) (*it)->erase();
    for (Operation* op : p.condIfs) op->erase();  // left holding their yields
    if (p.oneLoop) {
      unfuse(p);
      slices.push_back(loop);
    } else {
      loop->erase();
    }
    for (size_t i = 1; i < slices.size(); ++i) dropRepeatedHints(slices[i], p);
    std::set<Operation*> erased;
    for (Operation* d : dead) {
      if (!d || erased.count(d)) continue;
      bool used = false;
      for (Value* r : d->results()) used = used || r->hasUses();
      if (used) continue;
      erased.insert(d);
      forgetSlices(d);
      d->erase();
    }
    return slices;
  }

  // `d` (an init_tile a slice loop no longer uses) is about to be erased: lastSlice_ must not keep it,
  // as a key (a later op allocated at its address would inherit its slices) nor as the place to put
  // the next slice of its init (a second-level split erases the first level's slice inits: i8 24x48
  // on dg2, rows 16 + 8, then each row loop cut again by columns). Without an entry, the next slice
  // of that init goes right after it, which its operands dominate.
  void forgetSlices(Operation* d) {
    lastSlice_.erase(d);
    for (auto& [init, last] : lastSlice_)
      if (last == d) last = nullptr;
  }

  // The tile shape of rows (A, mmaDim 0) or columns (B, mmaDim 1) [o, o + len) of an operand's
  // K range [k0, k0 + kl), and that rectangle's offset in the tile.
  static std::tuple<std::vector<int64_t>, int64_t, int64_t> operandSlice(const OperandChain& ch, int mmaDim, int64_t o,
                                                                         int64_t len, int64_t k0, int64_t kl) {
    std::vector<int64_t> mmaShape = mmaDim == 0 ? std::vector<int64_t>{len, kl} : std::vector<int64_t>{kl, len};
    int td = ch.tileDim(mmaDim);
    std::vector<int64_t> tileShape = td == mmaDim ? mmaShape : std::vector<int64_t>{mmaShape[1], mmaShape[0]};
    return {tileShape, td == 0 ? o : k0, td == 1 ? o : k0};
  }

  // The one-loop form (p.oneLoop): p.loop gets a loop-carried tile per range of A's rows (B's
  // columns) and of K when there is more than one, loaded, prefetched and advanced as the whole tile
  // was, and an accumulator per slice with its own tile_mma, a chain of them over the K ranges.
  // Returns each slice's loop result, in slice order. The whole accumulator and the sliced tiles stay
  // until unfuse removes them.
  std::vector<Value*> fuse(Plan& p) {
    Operation* loop = p.loop;
    ir::Block& body = loop->region(0).block();
    Operation* yield = body.terminator();
    // Per range of operand `which` and range of K (K innermost), the value its tile_mma reads.
    auto pieces = [&](const OperandChain& ch, int which, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
      std::vector<Value*> vals;
      if (ranges.size() == 1 && p.ks.size() == 1) return std::vector<Value*>{p.mma->operand(which)};
      Value* arg = body.argument(ch.iter + 1);
      std::vector<Operation*> users;
      for (const ir::Use& u : arg->uses()) users.push_back(u.user);
      for (auto [o, len] : ranges)
       for (auto [k0, kl] : p.ks) {
        auto [shape, r0, c0] = operandSlice(ch, which, o, len, k0, kl);
        Type tt = arg->type().withShape(shape);
        loop->addOperand(sliceInit(ch.init, r0, shape[0], c0, shape[1]));
        Value* sliceArg = body.addArgument(tt);
        sliceArg->setNameHint(arg->nameHint());
        loop->addResult(tt)->setNameHint(loop->result(ch.iter)->nameHint());
        ir::IRMapping map;
        map.values[arg] = sliceArg;
        // The load, prefetches and advance of the tile, each right before the original.
        for (Operation* u : users) {
          ir::Builder b;
          b.setInsertionPoint(u);
          Operation* n = b.insert(u->clone(map));
          if (n->numResults()) {
            n->result()->setType(n->result()->type().withShape(shape));
            map.values[u->result()] = n->result();
          }
        }
        std::vector<int64_t> cur = shape;
        for (auto it = ch.transposes.rbegin(); it != ch.transposes.rend(); ++it) {
          cur = {cur[1], cur[0]};
          ir::Builder b;
          b.setInsertionPoint(*it);
          Operation* n = b.insert((*it)->clone(map));
          n->result()->setType(n->result()->type().withShape(cur));
          map.values[(*it)->result()] = n->result();
        }
        yield->addOperand(map.lookup(yield->operand(ch.iter)));
        vals.push_back(map.lookup(p.mma->operand(which)));
      }
      return vals;
    };
    std::vector<Value*> as = pieces(p.a, 0, p.rows), bs = pieces(p.b, 1, p.cols);
    std::vector<Value*> results;
    ir::Builder before;
    before.setInsertionPoint(loop);
    before.setLoc(loop->loc());
    ir::Builder inside;
    inside.setInsertionPoint(p.mma);
    inside.setLoc(p.mma->loc());
    for (size_t im = 0; im < p.rows.size(); ++im)
      for (size_t in = 0; in < p.cols.size(); ++in) {
        auto [r0, h] = p.rows[im];
        auto [c0, w] = p.cols[in];
        Type accT = p.mma->result()->type().withShape({h, w});
        loop->addOperand(sliceValue(before, loop->operand(3 + p.acc), r0, h, c0, w));
        Value* accArg = body.addArgument(accT);
        accArg->setNameHint(body.argument(p.acc + 1)->nameHint());
        results.push_back(loop->addResult(accT));
        results.back()->setNameHint(loop->result(p.acc)->nameHint());
        // Piece (range r, K range kk) of an operand: all of it when it was not cut.
        auto piece = [&](const std::vector<Value*>& v, size_t r, size_t kk) {
          return v.size() == 1 ? v[0] : v[r * p.ks.size() + kk];
        };
        Value* acc = accArg;
        for (size_t kk = 0; kk < p.ks.size(); ++kk)
          acc = inside.create(p.mma->name(), {piece(as, im, kk), piece(bs, in, kk), acc}, {accT}, p.mma->attrs())->result();
        yield->addOperand(acc);
      }
    return results;
  }

  // Removes from the one loop what fuse replaced: the whole accumulator and its tile_mma, and each
  // sliced operand's tile with its load, transposes, prefetches and advance (every use of the loop
  // result is gone: the accumulator's epilogue is erased, the tiles' results were unused).
  void unfuse(Plan& p) {
    Operation* loop = p.loop;
    ir::Block& body = loop->region(0).block();
    std::vector<unsigned> gone{p.acc};
    if (p.rows.size() > 1 || p.ks.size() > 1) gone.push_back(p.a.iter);
    if (p.cols.size() > 1 || p.ks.size() > 1) gone.push_back(p.b.iter);
    std::sort(gone.rbegin(), gone.rend());
    for (unsigned i : gone) body.terminator()->eraseOperand(i);
    p.mma->erase();
    for (const OperandChain* ch : {&p.a, &p.b}) {
      if ((ch == &p.a ? p.rows : p.cols).size() == 1 && p.ks.size() == 1) continue;
      for (Operation* t : ch->transposes) t->erase();
      Value* arg = body.argument(ch->iter + 1);
      while (!arg->uses().empty()) arg->uses().back().user->erase();
    }
    for (unsigned i : gone) {
      body.eraseArgument(i + 1);
      loop->eraseOperand(3 + i);
      loop->eraseResult(i);
    }
  }

  // Slice loops after the first: the prefetches of tiles other than the sliced operands' and the
  // barriers go, and then whatever only fed them (the prefetch tiles' advances, an scf.if left with
  // nothing but those, its condition). The first slice loop walks every K step, so it issues the
  // kernel's prefetches once per step as the unsplit loop did; a prefetch of the slice's own A or B
  // tile names different lines in every slice loop and stays. Barriers: the loop writes no memory
  // (analyse), so a barrier in it only orders writes made before the loop, which the first slice
  // loop's barriers already order before every later slice loop; every subgroup runs the same
  // slice loops, so each still meets the same barriers, the same number of times.
  void dropRepeatedHints(Operation* s, const Plan& p) {
    ir::Block& body = s->region(0).block();
    std::vector<Operation*> hints;
    bool nestedLoop = false;
    s->walk([&](Operation* op) {
      if (op == s) return;
      if (op->is("gpu.barrier") || (op->is("tile.prefetch_tile") && op->operand(0) != body.argument(p.a.iter + 1) &&
                                    op->operand(0) != body.argument(p.b.iter + 1)))
        hints.push_back(op);
      nestedLoop = nestedLoop || (op->numRegions() && !op->is("scf.if"));
    });
    for (Operation* op : hints) op->erase();
    if (!nestedLoop) dropDeadValues(s);
  }

  // Removes from loop `s` (whose body holds no loop) the loop-carried values, scf.if results and pure
  // ops that no effect and no used result of `s` depends on.
  static void dropDeadValues(Operation* s) {
    ir::Block& body = s->region(0).block();
    std::set<Value*> live;
    std::set<Operation*> liveOps;
    std::vector<Value*> work;
    auto markOp = [&](Operation* op) {
      for (; op != s && liveOps.insert(op).second; op = op->parentOp())
        for (Value* v : op->operands()) work.push_back(v);
    };
    s->walk([&](Operation* op) {
      if (op == s || op->is("scf.yield") || op->is("scf.if")) return;
      const ir::OpInfo* info = ir::findOp(op->name());
      if (!info || !info->traits.pure) markOp(op);
    });
    for (unsigned i = 0; i < s->numResults(); ++i)
      if (s->result(i)->hasUses()) work.push_back(body.terminator()->operand(i));
    while (!work.empty()) {
      Value* v = work.back();
      work.pop_back();
      if (!live.insert(v).second) continue;
      Operation* d = v->definingOp();
      if (v->isBlockArgument()) {
        if (v->ownerBlock() == &body && v->index() > 0) work.push_back(body.terminator()->operand(v->index() - 1));
      } else if (d && d->is("scf.if") && s->isAncestorOf(d)) {
        for (unsigned r = 0; r < d->numRegions(); ++r)
          if (!d->region(r).empty()) work.push_back(d->region(r).block().terminator()->operand(v->index()));
        markOp(d);
      } else if (d && s->isAncestorOf(d)) {
        markOp(d);
      }
    }
    // The yields first (they are the dead values' last uses), then the dead ops, users before
    // definitions, then the dead results and arguments.
    std::vector<unsigned> deadCarried;
    for (unsigned i = s->numResults(); i-- > 0;)
      if (!live.count(body.argument(i + 1)) && !s->result(i)->hasUses()) deadCarried.push_back(i);
    for (unsigned i : deadCarried) body.terminator()->eraseOperand(i);
    std::vector<std::pair<Operation*, unsigned>> deadIfResults;
    s->walk([&](Operation* op) {
      if (!op->is("scf.if") || !liveOps.count(op)) return;
      for (unsigned i = op->numResults(); i-- > 0;)
        if (!live.count(op->result(i))) {
          deadIfResults.emplace_back(op, i);
          for (unsigned r = 0; r < op->numRegions(); ++r)
            if (!op->region(r).empty()) op->region(r).block().terminator()->eraseOperand(i);
        }
    });
    eraseDeadOps(body, liveOps);
    for (auto& [op, i] : deadIfResults) op->eraseResult(i);
    for (unsigned i : deadCarried) {
      body.eraseArgument(i + 1);
      s->eraseOperand(3 + i);
      s->eraseResult(i);
    }
  }

  static void eraseDeadOps(ir::Block& b, const std::set<Operation*>& liveOps) {
    std::vector<Operation*> ops = b.opsSnapshot();
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      Operation* op = *it;
      if (op->is("scf.yield")) continue;
      if (!liveOps.count(op)) {
        op->erase();
        continue;
      }
      for (unsigned r = 0; r < op->numRegions(); ++r)
        for (unsigned i = 0; i < op->region(r).numBlocks(); ++i) eraseDeadOps(op->region(r).block(i), liveOps);
    }
  }

  // The slice loop `s` loads rows (A, mmaDim 0) or columns (B, mmaDim 1) [o, o + len) of the operand:
  // its tile starts at a sliced init_tile and every value of the chain changes shape.
  void retypeOperand(const Plan& p, const OperandChain& ch, ir::IRMapping& map, Operation* s, int mmaDim, int64_t o,
                     int64_t len, int64_t k) {
    auto [tileShape, r0, c0] = operandSlice(ch, mmaDim, o, len, 0, k);
    s->setOperand(3 + ch.iter, sliceInit(ch.init, r0, tileShape[0], c0, tileShape[1]));
    ir::Block& body = p.loop->region(0).block();
    Value* arg = body.argument(ch.iter + 1);
    Type tt = arg->type().withShape(tileShape);
    map.lookup(arg)->setType(tt);
    s->result(ch.iter)->setType(tt);
    for (const ir::Use& u : arg->uses())
      if (u.user->is("tile.update_tile_offset")) map.lookup(u.user->result())->setType(tt);
    map.lookup(ch.load->result())->setType(ch.load->result()->type().withShape(tileShape));
    std::vector<int64_t> cur = tileShape;
    for (auto it = ch.transposes.rbegin(); it != ch.transposes.rend(); ++it) {
      cur = {cur[1], cur[0]};
      map.lookup((*it)->result())->setType((*it)->result()->type().withShape(cur));
    }
  }

  // The loop `s` (a copy of p.loop, operand tiles already p.halfStep deep) walks K by p.halfStep:
  // its step, each operand's advance along K, and its upper bound, rounded up so that it runs
  // exactly twice the original's iterations: the original's last step loads S columns of A past
  // its lower bound's last multiple of S, which may hold data (a K range ending before the memref's
  // edge), and so does the new loop's last pair of steps.
  void halveK(const Plan& p, ir::IRMapping& map, Operation* s) {
    ir::Builder b;
    b.setInsertionPoint(s);
    b.setLoc(s->loc());
    int64_t step = 2 * p.halfStep;
    Value* half = b.constantIndex(p.halfStep);
    s->setOperand(2, half);
    ir::Block& body = p.loop->region(0).block();
    for (const OperandChain* ch : {&p.a, &p.b}) {
      int kd = ch->tileDim(ch == &p.a ? 1 : 0);
      map.lookup(body.terminator()->operand(ch->iter))->definingOp()->setOperand(1 + kd, half);
    }
    Value* lb = s->operand(0);
    Value* ub = s->operand(1);
    std::optional<int64_t> l = constantInt(lb), u = constantInt(ub);
    if (l && u) {
      int64_t n = *u > *l ? (*u - *l + step - 1) / step : 0;
      if (*l + n * step != *u) s->setOperand(1, b.constantIndex(*l + n * step));
      return;
    }
    Type idx = Type::index();
    Value* trips = b.create("arith.ceildivsi", {b.create("arith.subi", {ub, lb}, {idx})->result(), b.constantIndex(step)},
                            {idx})->result();
    s->setOperand(1, b.create("arith.addi", {lb, b.create("arith.muli", {trips, b.constantIndex(step)}, {idx})->result()},
                              {idx})->result());
  }

  Operation* kernel_;
  const targets::Target& t_;
  DiagnosticEngine& diags_;
  bool ok_ = true;
  std::map<Operation*, Operation*> lastSlice_;  // init_tile -> the last slice made of it
  std::set<Operation*> after_;                  // the ops after the loop being analysed
};

class SplitAccumulatorsPass : public Pass {
public:
  std::string name() const override { return "split-accumulators"; }
  std::string description() const override {
    return "pvc/dg2: a K loop whose accumulators and operands overflow the register file -> one loop per accumulator slice";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target || !ctx.target->grfCountLarge) return true;  // generic: no register file to fit
    bool ok = true;
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered
      Splitter s(k, *ctx.target, ctx.diags);
      s.run();
      ok = s.ok() && ok;
    }
    return ok;
  }
};

}  // namespace

void registerSplitAccumulatorsPass() {
  registerPass("split-accumulators", [] { return std::make_unique<SplitAccumulatorsPass>(); });
}

}  // namespace xtc::passes
