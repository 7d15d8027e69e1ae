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

int64_t estimateEpilogueRegisters(const ir::Operation& forOp, const targets::Target& target, bool portable) {
  if (!target.grfBytes || !target.subgroupSize) return 0;
  // The ops after the loop, numbered from 1 (the loop is 0); a use inside an op's regions is a use
  // by that op.
  std::map<const ir::Operation*, int64_t> pos;
  std::vector<ir::Operation*> ops;
  for (ir::Operation* op = forOp.nextInBlock(); op; op = op->nextInBlock()) {
    ops.push_back(op);
    pos[op] = static_cast<int64_t>(ops.size());
  }
  auto position = [&](ir::Operation* user) -> int64_t {
    for (ir::Operation* o = user; o; o = o->parentOp()) {
      auto it = pos.find(o);
      if (it != pos.end()) return it->second;
      if (o == &forOp) return 0;
    }
    return -1;
  };
  // Each counted value: [definition, last use] and its GRFs. The loop's vector results start the
  // chain; an op after the loop counts when one of its operands is counted.
  // A loaded value takes what its load fills; a broadcast no more than its operand (it is read
  // through a register region that repeats the row or column, not copied).
  std::function<int64_t(const ir::Value*)> valueRegisters = [&](const ir::Value* v) -> int64_t {
    const ir::Operation* d = v->definingOp();
    if (d && (d->is("tile.load_tile") || d->is("tile.load_gather"))) return loadRegisters(*d, target, portable);
    if (d && d->is("tile.broadcast")) return valueRegisters(d->operand(0));
    return vectorRegisters(v->type(), target);
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
  for (ir::Value* v : forOp.results())
    if (v->type().isVector() && v->hasUses()) add(v, 0, vectorRegisters(v->type(), target));
  for (ir::Operation* op : ops) {
    bool fromLoop = false;
    op->walk([&](ir::Operation* o) {
      for (ir::Value* v : o->operands()) fromLoop = fromLoop || counted.count(v);
    });
    if (!fromLoop) continue;
    // The other vector operands it reads (a loaded bias, a broadcast) are live up to it too.
    for (ir::Value* v : op->operands()) {
      if (counted.count(v) || !v->type().isVector()) continue;
      ir::Operation* d = v->definingOp();
      if (d && d->is("arith.constant")) continue;  // splats: immediates, not registers
      add(v, d && pos.count(d) ? pos[d] : 0, valueRegisters(v));
    }
    for (ir::Value* v : op->results())
      if (v->type().isVector()) add(v, pos[op], valueRegisters(v));
  }
  // Live out of each op: an element-wise result may take the registers of an operand that dies there.
  int64_t most = 0;
  for (int64_t i = 0; i <= static_cast<int64_t>(ops.size()); ++i) {
    int64_t n = 0;
    for (const Live& l : live)
      if (l.def <= i && (l.last > i || l.def == i)) n += l.grfs;
    most = std::max(most, n);
  }
  return most;
}

void applyRegisterBudget(ir::Operation* kernel, const ir::Operation* worstLoop, const LoopRegisters& worst,
                         const targets::Target& target, DiagnosticEngine& diags, std::string_view pass) {
  if (!target.grfCountLarge || !worstLoop) return;
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
