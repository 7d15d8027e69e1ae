// The `resolve-layouts` pass (pvc, dg2): decides how each tile.convert_layout between two linear lane
// layouts is carried out, with ir/layout/ConversionPlan.h. Contract (docs/passes.md,
// "resolve-layouts"):
//   - identical layouts (the same map): the conversion is removed;
//   - a register permutation inside each work-item: the op stays, with `plan = "permute"` and
//     `permutation = [source register of each destination register]`;
//   - subgroup shuffles: `plan = "shuffle"`, `src_regs` and `src_lanes` (flattened [register][lane]
//     tables: destination register r of lane l comes from register src_regs[r*S+l] of lane
//     src_lanes[r*S+l]), and `shuffles` = the planner's instruction count; a register permutation
//     that differs per lane is such a plan with every source lane the lane itself (`shuffles = 0`);
//   - anything needing shared local memory: an error ("not implemented yet").
// lower-xe implements exactly the plan recorded here and does no layout reasoning of its own.
#include "ir/Module.h"
#include "ir/layout/ConversionPlan.h"
#include "ir/ops/XeOps.h"
#include "ir/passes/PassManager.h"

#include <fmt/format.h>

namespace xtc::passes {

using ir::Attribute;
using ir::Operation;

namespace {

class ResolveLayoutsPass : public Pass {
public:
  std::string name() const override { return "resolve-layouts"; }
  std::string description() const override {
    return "pvc/dg2: resolve each convert_layout into nothing, a register permutation or shuffles";
  }
  bool run(Operation* module, PassContext& ctx) override {
    ir::registerXeOps();
    bool ok = true;
    std::vector<Operation*> converts;
    module->walk([&](Operation* op) {
      if (op->is("tile.convert_layout")) converts.push_back(op);
    });
    for (Operation* op : converts) {
      const layout::LinearLayout* src = ir::vectorLinearLayout(op->operand(0)->type());
      const layout::LinearLayout* dst = ir::vectorLinearLayout(op->result()->type());
      if (!src || !dst) {
        ctx.diags.error(op->loc(), "resolve-layouts: both sides of the conversion need linear lane layouts "
                                   "(run layout-assignment first)");
        ok = false;
        continue;
      }
      layout::ConversionOptions opts;
      opts.elemBytes = static_cast<int>(std::max(1u, ir::elemBits(op->result()->type().elem()) / 8));
      if (ctx.target) opts.banks.banks = static_cast<int>(ctx.target->slmBanks);
      auto plan = layout::planConversion(*src, *dst, opts);
      if (!plan) {
        ctx.diags.error(op->loc(), "resolve-layouts: " + plan.error());
        ok = false;
        continue;
      }
      switch (plan->kind) {
        case layout::ConversionKind::Identity:
          op->result()->replaceAllUsesWith(op->operand(0));
          op->erase();
          break;
        case layout::ConversionKind::RegisterPermutation:
          if (!plan->laneDependentRegisters) {
            op->setAttr("plan", Attribute::string("permute"));
            op->setAttr("permutation", Attribute::intArray(std::vector<int64_t>(plan->registerPermutation.begin(),
                                                                                plan->registerPermutation.end())));
            break;
          }
          // Each lane keeps its own elements but takes them from other registers than lane 0 does:
          // a shuffle plan whose every source lane is the lane itself, which lower-xe carries out with
          // selects on the lane's bits and no cross-lane move (diagonalShuffles, LowerXeTranspose.cpp).
          [[fallthrough]];
        case layout::ConversionKind::Shuffle: {
          std::vector<int64_t> regs, lanes;
          for (const auto& row : plan->sources)
            for (const layout::LaneSource& s : row) {
              regs.push_back(s.reg);
              lanes.push_back(s.lane);
            }
          op->setAttr("plan", Attribute::string("shuffle"));
          op->setAttr("src_regs", Attribute::intArray(regs));
          op->setAttr("src_lanes", Attribute::intArray(lanes));
          op->setAttr("shuffles", Attribute::integer(plan->shuffleCount));
          break;
        }
        case layout::ConversionKind::SharedMemory:
          ctx.diags.error(op->loc(), "resolve-layouts: this conversion needs shared local memory, which is not "
                                     "implemented yet on pvc/dg2");
          ok = false;
          break;
      }
    }
    return ok;
  }
};

}  // namespace

void registerResolveLayoutsPass() {
  registerPass("resolve-layouts", [] { return std::make_unique<ResolveLayoutsPass>(); });
}

}  // namespace xtc::passes
