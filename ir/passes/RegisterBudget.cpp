// The register budget of a loop (see RegisterBudget.h).
#include "ir/passes/RegisterBudget.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

namespace xtc::passes {

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }
}  // namespace

int64_t vectorRegisters(const ir::Type& t, const targets::Target& target) {
  if (!t.isVector() || t.numElements() <= 0) return 0;
  int64_t bytes = t.numElements() * std::max<int64_t>(1, ir::elemBits(t.elem()) / 8);
  return ceilDiv(bytes, target.grfBytes);
}

bool loadIsPerLane(const ir::Operation& load, const targets::Target& target, bool portable) {
  if (load.is("tile.load_gather") || portable) return true;
  if (const ir::Attribute* p = load.attr("per_lane"); p && p->isa(ir::AttrKind::Bool)) return p->getBool();
  if (load.hasAttr("elem_bits")) return false;  // blocked: 2D block messages
  return target.blockLoads.empty();
}

int64_t loadRegisters(const ir::Operation& load, const targets::Target& target, bool portable) {
  const ir::Type& t = load.result()->type();
  if (!t.isVector() || t.numElements() <= 0) return 0;
  if (!loadIsPerLane(load, target, portable)) return vectorRegisters(t, target);
  // One lane.load per register of the lane; each fills a dword slot (more for 8-byte elements) of
  // every lane: S x 4 bytes, one GRF on pvc and dg2.
  int64_t slot = std::max<int64_t>(4, ir::elemBits(t.elem()) / 8);
  return ceilDiv(t.numElements(), target.subgroupSize) * ceilDiv(target.subgroupSize * slot, target.grfBytes);
}

LoopRegisters estimateLoopRegisters(const ir::Operation& forOp, const targets::Target& target, bool portable) {
  LoopRegisters r;
  if (!target.grfBytes || !target.subgroupSize) return r;
  for (unsigned i = 3; i < forOp.numOperands(); ++i) r.carried += vectorRegisters(forOp.operand(i)->type(), target);
  const_cast<ir::Operation&>(forOp).walk([&](ir::Operation* op) {
    if (op != &forOp && (op->is("tile.load_tile") || op->is("tile.load_gather")))
      r.operands += loadRegisters(*op, target, portable);
  });
  r.epilogue = estimateEpilogueRegisters(forOp, target, portable);
  return r;
}

namespace {

// GRFs live at the worst point of `ops` (one block's ops in order, numbered from 1; position 0 is
// the op before them, `head`, or nothing). A value is live from its definition to its last use (a use
// inside an op's regions is a use by that op). `seeds` are live from position 0. With `all`, every
// vector value the ops define or read counts; without, only the values computed from a seed and the
// other vector operands of the ops that compute them (an epilogue: what the loop's results need).
// A loaded value takes what its load fills; a broadcast no more than its operand (it is read through
// a register region that repeats the row or column, not copied); splat constants are immediates. An
// op with regions adds the worst point of its regions' straight-line code (`all` only).
BudgetPeak peakLiveRegisters(const std::vector<ir::Operation*>& ops, const ir::Operation* head,
                             const std::vector<ir::Value*>& seeds, bool all, const targets::Target& target,
                             bool portable) {
  std::map<const ir::Operation*, int64_t> pos;
  for (size_t i = 0; i < ops.size(); ++i) pos[ops[i]] = static_cast<int64_t>(i + 1);
  auto position = [&](ir::Operation* user) -> int64_t {
    for (ir::Operation* o = user; o; o = o->parentOp()) {
      auto it = pos.find(o);
      if (it != pos.end()) return it->second;
      if (head && o == head) return 0;
    }
    return -1;
  };
  std::function<int64_t(const ir::Value*)> valueRegisters = [&](const ir::Value* v) -> int64_t {
    const ir::Operation* d = v->definingOp();
    if (d && (d->is("tile.load_tile") || d->is("tile.load_gather"))) return loadRegisters(*d, target, portable);
    if (d && d->is("tile.broadcast")) return valueRegisters(d->operand(0));
    return vectorRegisters(v->type(), target);
  };
  auto isSplat = [](const ir::Value* v) {
    const ir::Operation* d = v->definingOp();
    return d && d->is("arith.constant");
  };
  struct Live {
    int64_t def, last, grfs;
  };
  std::vector<Live> live;
  std::map<const ir::Value*, bool> counted;
  auto add = [&](ir::Value* v, int64_t def, int64_t grfs) {
    counted[v] = true;
    int64_t last = def;
    for (const ir::Use& u : v->uses()) last = std::max(last, position(u.user));
    live.push_back({def, last, grfs});
  };
  for (ir::Value* v : seeds) add(v, 0, vectorRegisters(v->type(), target));
  std::vector<int64_t> inner(ops.size() + 1, 0);
  for (ir::Operation* op : ops) {
    bool counts = all;
    if (!counts)
      op->walk([&](ir::Operation* o) {
        for (ir::Value* v : o->operands()) counts = counts || counted.count(v);
      });
    if (!counts) continue;
    // The other vector operands it reads (a loaded bias, a broadcast) are live up to it too.
    for (ir::Value* v : op->operands()) {
      if (counted.count(v) || !v->type().isVector() || isSplat(v)) continue;
      ir::Operation* d = v->definingOp();
      add(v, d && pos.count(d) ? pos[d] : 0, valueRegisters(v));
    }
    for (ir::Value* v : op->results())
      if (v->type().isVector() && !(all && isSplat(v))) add(v, pos[op], valueRegisters(v));
    if (all)
      for (unsigned r = 0; r < op->numRegions(); ++r)
        for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) {
          std::vector<ir::Operation*> body;
          for (ir::Operation* o = op->region(r).block(b).front(); o; o = o->nextInBlock()) body.push_back(o);
          inner[pos[op]] = std::max(inner[pos[op]], peakLiveRegisters(body, nullptr, {}, true, target, portable).grfs);
        }
  }
  // Live out of each op: an element-wise result may take the registers of an operand that dies there.
  BudgetPeak most;
  for (int64_t i = 0; i <= static_cast<int64_t>(ops.size()); ++i) {
    int64_t n = inner[i];
    for (const Live& l : live)
      if (l.def <= i && (l.last > i || l.def == i)) n += l.grfs;
    if (n > most.grfs) most = {n, i > 0 ? ops[i - 1] : head};
  }
  return most;
}

}  // namespace

int64_t estimateEpilogueRegisters(const ir::Operation& forOp, const targets::Target& target, bool portable) {
  if (!target.grfBytes || !target.subgroupSize) return 0;
  std::vector<ir::Operation*> ops;
  for (ir::Operation* op = forOp.nextInBlock(); op; op = op->nextInBlock()) ops.push_back(op);
  // The loop's vector results start the chain.
  std::vector<ir::Value*> seeds;
  for (ir::Value* v : forOp.results())
    if (v->type().isVector() && v->hasUses()) seeds.push_back(v);
  return peakLiveRegisters(ops, &forOp, seeds, false, target, portable).grfs;
}

BudgetPeak estimateStraightLineRegisters(const std::vector<ir::Operation*>& ops, const targets::Target& target,
                                         bool portable) {
  if (!target.grfBytes || !target.subgroupSize) return {};
  return peakLiveRegisters(ops, nullptr, {}, true, target, portable);
}

BudgetPeak straightLineRegisters(const std::vector<std::unique_ptr<ir::Operation>>& ops,
                                 const targets::Target& target, bool portable) {
  std::vector<ir::Operation*> list;
  bool loop = false;
  for (const auto& op : ops) {
    list.push_back(op.get());
    op->walk([&](ir::Operation* o) { loop = loop || o->is("scf.for"); });
  }
  return loop ? BudgetPeak{} : estimateStraightLineRegisters(list, target, portable);
}

void applyRegisterBudget(ir::Operation* kernel, const ir::Operation* worstLoop, const LoopRegisters& worst,
                         const BudgetPeak& straightLine, const targets::Target& target, DiagnosticEngine& diags,
                         std::string_view pass) {
  if (!target.grfCountLarge) return;
  if (!worstLoop) {
    // No loop: the straight-line code's worst point decides (a loopless 32x32 f32 tile on dg2 is 128
    // registers: 319 spills in the default file, none in the large one).
    if (!straightLine.at || fitsRegisterFile(straightLine.grfs, target.grfCount)) return;
    kernel->setAttr("build_options", ir::Attribute::string("-ze-opt-large-register-file"));
    if (fitsRegisterFile(straightLine.grfs, target.grfCountLarge)) return;
    diags.warning(straightLine.at->loc(),
                  fmt::format("{}: the kernel keeps about {} registers live per subgroup here (it has no loop); {} "
                              "has {} with the large register file, {} of them needed for addresses and "
                              "temporaries, so the kernel will spill registers: use smaller tiles per subgroup "
                              "for {}",
                              pass, straightLine.grfs, target.name, target.grfCountLarge, kRegisterReserve,
                              target.name));
    return;
  }
  if (!fitsRegisterFile(worst.peak(), target.grfCount))
    kernel->setAttr("build_options", ir::Attribute::string("-ze-opt-large-register-file"));
  if (fitsRegisterFile(worst.total(), target.grfCountLarge)) return;
  std::string cause;
  if (const ir::Attribute* why = worstLoop->attr("no_split"); why && why->isa(ir::AttrKind::String))
    cause = "it cannot be split into loops over accumulator slices: " + why->getString() + "; ";
  diags.warning(worstLoop->loc(),
                fmt::format("{}: this loop keeps about {} registers live per subgroup ({} carried, {} loaded per "
                            "iteration); {} has {} with the large register file, {} of them needed for addresses "
                            "and temporaries, so the kernel will spill registers: {}use a smaller sg_data for {}",
                            pass, worst.total(), worst.carried, worst.operands, target.name, target.grfCountLarge,
                            kRegisterReserve, cause, target.name));
}

}  // namespace xtc::passes
