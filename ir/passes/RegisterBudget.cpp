// The register budget of a loop (see RegisterBudget.h).
#include "ir/passes/RegisterBudget.h"

#include <fmt/format.h>

#include <algorithm>

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
  return r;
}

void applyRegisterBudget(ir::Operation* kernel, const ir::Operation* worstLoop, const LoopRegisters& worst,
                         const targets::Target& target, DiagnosticEngine& diags, std::string_view pass) {
  if (!target.grfCountLarge || !worstLoop) return;
  if (!fitsRegisterFile(worst.total(), target.grfCount))
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
