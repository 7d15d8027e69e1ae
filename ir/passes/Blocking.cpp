// The `blocking` pass (pvc, dg2): decides the hardware blocks of every subgroup-level tile and
// tile_mma. Contract (docs/passes.md, "blocking"):
//   - every 2-D global tile gets `inner_blocks = [rows, cols]`: the footprint of one 2D block message,
//     the largest one the target table lists (ir/targets, measured shapes only) for its element size
//     and role — plain for what feeds tile_mma's A or any non-mma use, VNNI for what feeds B;
//   - every tile.load_tile gets the message parameters as attributes (elem_bits, block_w, block_h,
//     array_len, vnni); lower-xe issues one message per footprint, row-major over the tile;
//   - a load no measured 2D block message fits (f32 tiles, 16-wide A tiles, every load on dg2, which
//     has no 2D block IO) gets `per_lane = true` instead: one lane.load per register, in the layout
//     its consumer needs (correct at any size, but one memory access per element);
//   - every tile.tile_mma gets `dpas = [m, n, k]`, the DPAS block from the target table; an f32 one
//     (no DPAS) gets `fma = true` and is computed with FMAs by lower-xe (LowerXeFma.cpp);
//   - a load used only by a tile.transpose gets the target's transposed d32 message (32-bit data, or
//     16-bit pairs) with transpose = true: the transpose is folded (XeTranspose.h);
//   - 8/16-bit tiles take 2D messages only when every column offset of their class is provably a
//     whole dword (multiple of 4/2 elements, reference §2.5; a transposed d32 message over 16-bit pairs
//     would otherwise silently read the pair to the left), else their loads go per lane, and their
//     stores and prefetches get `per_lane = true` (lower-xe then issues no 2D message for them);
//   - tiles connected through update_tile_offset and scf.for/scf.if carry one type, so they are
//     blocked as one class; loops are never unrolled.
// Vectors keep their subgroup shape: their split into blocks is what the lane layouts (layout
// assignment) say, register bit by register bit.
#include "ir/Module.h"
#include "ir/passes/PadColumns.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/XeCommon.h"
#include "ir/passes/XeTranspose.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <unordered_map>

namespace xtc::passes {

using ir::Attribute;
using ir::ElemKind;
using ir::Operation;
using ir::Type;
using ir::Value;

namespace {

// Transposed: the load's only user is a tile.transpose (XeTranspose.h), folded into a transposed
// d32 message when the table has one.
enum class Role { None, A, B, Plain, Transposed };
const char* roleName(Role r) {
  return r == Role::A ? "A operand" : r == Role::B ? "B operand" : r == Role::Transposed ? "transposed" : "plain";
}

struct BlockingError {};

class KernelBlocking {
public:
  KernelBlocking(Operation* kernel, const targets::Target& t, DiagnosticEngine& d) : kernel_(kernel), t_(t), diags_(d) {}
  void run();

private:
  [[noreturn]] void fail(const Operation& op, const std::string& msg) {
    diags_.error(op.loc(), "blocking: " + msg);
    throw BlockingError{};
  }
  Value* find(Value* v) {
    auto it = parent_.find(v);
    if (it == parent_.end() || it->second == v) return v;
    return it->second = find(it->second);
  }
  void unite(Value* a, Value* b) {
    if (!a->type().isTile() || !b->type().isTile()) return;
    Value *ra = find(a), *rb = find(b);
    if (ra != rb) parent_[ra] = rb;
  }
  std::optional<xe::Message> chooseMessage(const Type& tile, Role role);

  Operation* kernel_;
  const targets::Target& t_;
  DiagnosticEngine& diags_;
  std::unordered_map<Value*, Value*> parent_;
};

// True when `v` (an index) is a multiple of `n` (2 or 4) for every execution: such constants, products
// with such a factor, sums and differences of such values, and loop induction variables with such a
// start and step. Anything else (divisions, remainders, parameters, lane ids) is not known to be.
bool provablyMultiple(Value* v, int64_t n, int depth = 0) {
  if (depth > 32) return false;
  if (ir::Operation* d = v->definingOp()) {
    if (d->is("arith.constant")) {
      const Attribute* a = d->attr("value");
      return a && a->kind() == ir::AttrKind::Int && a->getInt() % n == 0;
    }
    if (d->is("arith.muli"))
      return provablyMultiple(d->operand(0), n, depth + 1) || provablyMultiple(d->operand(1), n, depth + 1);
    if (d->is("arith.addi") || d->is("arith.subi"))
      return provablyMultiple(d->operand(0), n, depth + 1) && provablyMultiple(d->operand(1), n, depth + 1);
    return false;
  }
  // A block argument: scf.for's induction variable (argument 0 of its body; operands lb, ub, step).
  ir::Operation* owner = v->ownerBlock() ? v->ownerBlock()->parentOp() : nullptr;
  if (owner && owner->is("scf.for") && v == owner->region(0).block().argument(0))
    return provablyMultiple(owner->operand(0), n, depth + 1) && provablyMultiple(owner->operand(2), n, depth + 1);
  return false;
}

std::optional<xe::Message> KernelBlocking::chooseMessage(const Type& tile, Role role) {
  if (!t_.has2dBlockIO) return std::nullopt;
  if (role == Role::Transposed) return xe::transposedLoadMessage(t_, tile);
  unsigned bits = ir::elemBits(tile.elem());
  int64_t rows = tile.shape()[0], cols = tile.shape()[1];
  const targets::BlockShape* best = nullptr;
  for (const targets::BlockShape& s : t_.blockLoads) {
    // A DPAS B operand is read VNNI; an f32 B feeds FMAs (no f32 DPAS), which take it in plain rows.
    if (s.elemBits != bits || s.transpose || s.vnni != (role == Role::B && bits != 32)) continue;
    // A d32 message narrower than the subgroup (8 wide: two rows per register) puts lanes along rows
    // too; only an f32 A operand (FMA, broadcast from any lane) takes that layout without shuffles.
    if (bits == 32 && s.width < t_.subgroupSize && role != Role::A) continue;
    int64_t fr = s.height, fc = int64_t(s.width) * s.arrayLength;
    if (rows % fr != 0 || cols % fc != 0) continue;
    // The array-length-2 reads of 16x1 d16 blocks pad each block to a register; the layout of such a
    // load is not modelled (ir/layout), so only footprints of whole 64-byte rows are taken.
    if (s.arrayLength > 1 && int64_t(s.width) * s.height * s.elemBits / 8 % 64 != 0) continue;
    if (!best || fr * fc > int64_t(best->height) * best->width * best->arrayLength) best = &s;
  }
  // An f32 A operand (only an FMA tile_mma reads one: no f32 DPAS) may be in any layout: when a
  // transposed d32 message covers more of it than the best plain one (16x8: one transposed 8x16
  // against two plain 8x8), that one reads it, with lanes along its rows (M) and registers along K,
  // from which lower-xe broadcasts each A(m, k).
  if (role == Role::A && bits == 32)
    if (auto tr = xe::transposedLoadMessage(t_, tile);
        tr && (!best || tr->rows() * tr->cols() > int64_t(best->height) * best->width * best->arrayLength))
      return tr;
  if (!best) return std::nullopt;
  xe::Message m;
  m.elemBits = static_cast<int>(best->elemBits);
  m.width = static_cast<int>(best->width);
  m.height = static_cast<int>(best->height);
  m.arrayLength = static_cast<int>(best->arrayLength);
  m.vnni = best->vnni;
  return m;
}

void KernelBlocking::run() {
  std::vector<Operation*> loads, stores, prefetches, mmas, tileDefs, updates;
  for (Operation* op : ir::kernelBody(kernel_).opsSnapshot()) op->walk([&](Operation* o) {
      const std::string& n = o->name();
      if (n == "tile.load_tile") loads.push_back(o);
      // An atomic_rmw writes its tile per lane like a store that is no 2D message (LowerXeAtomic.cpp).
      else if (n == "tile.store_tile" || n == "tile.atomic_rmw") stores.push_back(o);
      else if (n == "tile.prefetch_tile") prefetches.push_back(o);
      else if (n == "tile.tile_mma") mmas.push_back(o);
      else if (n == "tile.init_tile") tileDefs.push_back(o);
      else if (n == "tile.update_tile_offset") {
        unite(o->operand(0), o->result());
        updates.push_back(o);
      }
      else if (n == "scf.for") {
        ir::Block& b = o->region(0).block();
        for (unsigned i = 3; i < o->numOperands(); ++i) {
          unite(o->operand(i), b.argument(i - 2));
          unite(o->operand(i), o->result(i - 3));
          unite(o->operand(i), b.terminator()->operand(i - 3));
        }
      } else if (n == "scf.if") {
        for (unsigned r = 0; r < o->numRegions(); ++r)
          if (!o->region(r).empty())
            for (unsigned i = 0; i < o->numResults(); ++i) unite(o->result(i), o->region(r).block().terminator()->operand(i));
      } else if (o->dialect() == "tile" && n != "tile.convert_layout") {
        for (Value* v : o->operands())
          if (v->type().isTile()) fail(*o, fmt::format("'{}' is not implemented yet on pvc/dg2", n));
      }
    });

  for (Operation* pf : prefetches)
    if (pf->operand(0)->type().tileInfo().space == ir::MemSpace::Slm) fail(*pf, "an SLM tile cannot be prefetched");
  // Roles per class, from what each load's value feeds.
  std::map<Value*, Role> role;
  std::map<Value*, Operation*> roleOp;
  std::vector<Value*> classOrder;  // program order, so the first error reported is deterministic
  for (Operation* ld : loads) {
    const Type& tt = ld->operand(0)->type();
    const ir::TileInfo& info = tt.tileInfo();
    if (info.wgMap) fail(*ld, "expects subgroup-level IR, but this tile has a wg_map (run wg-distribute first)");
    if (tt.rank() != 2) fail(*ld, fmt::format("rank-{} tiles are not implemented yet", tt.rank()));
    if (info.scattered) fail(*ld, "internal error: a load_tile of a scattered tile (the verifier allows load_gather only)");
    if (!info.order.empty() && info.order != std::vector<int64_t>{1, 0})
      fail(*ld, "tiles with order = [0, 1] are not implemented yet (order-transpose makes them row-major)");
    Role r = Role::Plain;
    bool first = true;
    for (const ir::Use& u : ld->result()->uses()) {
      Role ur = u.user->is("tile.tile_mma") && u.index == 0 ? Role::A
                : u.user->is("tile.tile_mma") && u.index == 1 ? Role::B
                                                             : Role::Plain;
      if (!first && ur != r)
        fail(*ld, fmt::format("the loaded value is used both as {} and as {}; loading it once per use is not "
                              "implemented yet",
                              roleName(r), roleName(ur)));
      r = ur;
      first = false;
    }
    if (xe::foldedTranspose(*ld)) r = Role::Transposed;
    Value* cls = find(ld->operand(0));
    auto it = role.find(cls);
    if (it != role.end() && it->second != r)
      fail(*ld, fmt::format("this tile is loaded as {} here but as {} elsewhere; not implemented yet", roleName(r),
                            roleName(it->second)));
    if (!role.count(cls)) classOrder.push_back(cls);
    role[cls] = r;
    roleOp[cls] = ld;
  }

  // One message per class; the same footprint for every value of the class.
  // Classes no 2D block message fits (or all classes on a target without 2D block IO) are loaded per
  // lane: one element per register, in the layout its consumer wants (layout-assignment); their
  // block is one register row of the subgroup.
  std::map<Value*, xe::Message> msg;
  std::map<Value*, std::vector<int64_t>> blocks;
  // A 2D block message starts at a whole dword: x (the column) must be a multiple of 2 for 16-bit and
  // of 4 for 8-bit data (reference §2.5), and a transposed d32 message over 16-bit pairs addresses
  // x / 2. A class's columns are all such multiples when every init_tile of it starts at one and every
  // update_tile_offset moves by one (tiles flow only through these, scf.for and scf.if, which the
  // classes already join); otherwise its loads go per lane (correct at any offset).
  auto columnsAligned = [&](Value* cls) {
    int64_t n = 32 / std::max<int64_t>(8, ir::elemBits(cls->type().elem()));
    if (n <= 1) return true;
    for (Operation* o : tileDefs)
      if (find(o->result()) == cls && (o->numOperands() < 3 || !provablyMultiple(o->operand(2), n))) return false;
    for (Operation* o : updates)
      if (find(o->result()) == cls && (o->numOperands() != 3 || !provablyMultiple(o->operand(2), n))) return false;
    return true;
  };
  // A tile pad-columns clamped (a padded tile that is stored) is accessed per lane, masked by
  // lower-xe at the clamped shape, unless that shape is provably a legal 2D surface (its width 64
  // bytes or more: an f32 tile of 24 columns; not one of 12, 48 bytes at column 0; PadColumns.h).
  auto clamped = [&](Value* cls) {
    for (Operation* o : tileDefs)
      if (find(o->result()) == cls && isClampedInit(*o) && !clampedSurfaceLegal(*o)) return true;
    return false;
  };
  auto blockAccess = [&](Value* cls) { return columnsAligned(cls) && !clamped(cls); };
  for (Value* cls : classOrder) {
    // SLM tiles have no 2D block message (global surfaces only): per lane (LowerXeSlm.cpp).
    if (!blockAccess(cls) || cls->type().tileInfo().space == ir::MemSpace::Slm) {
      blocks[cls] = {1, std::min<int64_t>(t_.subgroupSize, cls->type().shape()[1])};
      continue;
    }
    if (auto m = chooseMessage(cls->type(), role[cls])) {
      msg[cls] = *m;
      blocks[cls] = {m->rows(), m->cols()};
    } else {
      blocks[cls] = {1, std::min<int64_t>(t_.subgroupSize, cls->type().shape()[1])};
    }
  }
  // Tiles that are only stored or atomically updated (or prefetched) take the DPAS C block: one
  // register row per lane.
  for (Operation* st : stores) {
    Value* cls = find(st->operand(1));
    if (blocks.count(cls)) continue;
    const Type& tt = st->operand(1)->type();
    if (tt.rank() != 2) fail(*st, fmt::format("rank-{} tiles are not implemented yet", tt.rank()));
    if (tt.tileInfo().wgMap) fail(*st, "expects subgroup-level IR, but this tile has a wg_map (run wg-distribute first)");
    int64_t br = std::min<int64_t>(8, tt.shape()[0]), bc = std::min<int64_t>(t_.subgroupSize, tt.shape()[1]);
    if (tt.shape()[0] % br != 0 || tt.shape()[1] % bc != 0)
      fail(*st, fmt::format("a {}x{} store is not a whole number of {}x{} blocks; not implemented yet", tt.shape()[0],
                            tt.shape()[1], br, bc));
    blocks[cls] = {br, bc};
  }

  // Retype every tile value of a blocked class.
  auto retype = [&](Value* v) {
    if (!v->type().isTile()) return;
    auto it = blocks.find(find(v));
    if (it == blocks.end()) return;
    ir::TileInfo info = v->type().tileInfo();
    info.innerBlocks = it->second;
    v->setType(v->type().withTileInfo(info));
  };
  ir::kernelBody(kernel_).parentOp()->walk([&](Operation* o) {
    for (Value* r : o->results()) retype(r);
    for (unsigned i = 0; i < o->numRegions(); ++i)
      for (unsigned b = 0; b < o->region(i).numBlocks(); ++b)
        for (Value* a : o->region(i).block(b).arguments()) retype(a);
  });
  // 2D stores and prefetches start at a whole dword too (reference §2.5: the x rule is the loads'):
  // one of an 8/16-bit tile whose columns are not provably whole dwords gets `per_lane = true`, and
  // lower-xe stores or prefetches it per lane instead of with a 2D message at an odd column.
  for (Operation* st : stores)
    if (st->is("tile.store_tile") && !blockAccess(find(st->operand(1)))) st->setAttr("per_lane", Attribute::boolean(true));
  for (Operation* pf : prefetches)
    if (!blockAccess(find(pf->operand(0)))) pf->setAttr("per_lane", Attribute::boolean(true));
  for (Operation* ld : loads) {
    auto it = msg.find(find(ld->operand(0)));
    if (it != msg.end()) xe::setMessageAttrs(*ld, it->second);
    else ld->setAttr("per_lane", Attribute::boolean(true));
  }

  for (Operation* mma : mmas) {
    const Type& a = mma->operand(0)->type();
    const Type& b = mma->operand(1)->type();
    const Type& c = mma->result()->type();
    int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
    std::string in(ir::elemName(a.elem())), acc(ir::elemName(c.elem()));
    const targets::DpasShape* best = nullptr;
    for (const targets::DpasShape& d : t_.dpas)
      if (d.aType == in && d.bType == std::string(ir::elemName(b.elem())) && d.accType == acc && M % d.m == 0 &&
          N % d.n == 0 && K % d.k == 0 && (!best || d.m > best->m))
        best = &d;
    if (!best && a.elem() == ElemKind::F32 && b.elem() == ElemKind::F32 && c.elem() == ElemKind::F32) {
      // f32 has no DPAS (tf32 would round the inputs): lower-xe computes it with FMAs instead.
      mma->setAttr("fma", Attribute::boolean(true));
      continue;
    }
    if (!best)
      fail(*mma, fmt::format("no DPAS of target '{}' computes {}x{}x{} with {} inputs and {} accumulation", t_.name, M,
                             N, K, in, acc));
    mma->setAttr("dpas", Attribute::intArray({best->m, best->n, best->k}));
  }
}

class BlockingPass : public Pass {
public:
  std::string name() const override { return "blocking"; }
  std::string description() const override {
    return "pvc/dg2: choose 2D block messages per tile and DPAS blocks per tile_mma (target table)";
  }
  bool run(Operation* module, PassContext& ctx) override {
    if (!ctx.target || !ctx.target->hasDpas) {
      ctx.diags.error(module->loc(), fmt::format("blocking: target '{}' has no DPAS; it is lowered by lower-generic",
                                                 ctx.target ? ctx.target->name : std::string("(none)")));
      return false;
    }
    bool ok = true;
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered (lane-level input)
      try {
        KernelBlocking(k, *ctx.target, ctx.diags).run();
      } catch (const BlockingError&) {
        ok = false;
      }
    }
    return ok;
  }
};

}  // namespace

void registerBlockingPass() {
  registerPass("blocking", [] { return std::make_unique<BlockingPass>(); });
}

}  // namespace xtc::passes
