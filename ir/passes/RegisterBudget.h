// The register budget of a loop (docs/passes.md, "Register budget"): how many GRFs one subgroup keeps
// live in a loop, estimated at subgroup tile level, and whether that fits a register file. Shared by
// split-accumulators (which splits a loop until it fits), lower-xe and lower-generic (which choose the
// large register file and warn about the loops that still do not fit), so the three cannot disagree.
//
// The estimate is what the loop keeps live across one iteration, in whole GRFs of the subgroup:
//   carried  = the loop-carried vectors (the accumulators): elements x element bytes / GRF bytes;
//   operands = every value loaded in one iteration (the operands of one K step): a 2D block load its
//              bytes / GRF bytes; a per-lane load one GRF per register of the lane (each lane.load
//              fills a dword slot of every lane, whatever the element size: S x 4 bytes = one GRF on
//              pvc and dg2), elements / S of them.
// Address math, counters, message headers and temporaries are the fixed reserve kRegisterReserve.
// The code after a loop (its epilogue) counts too: the accumulators it takes over stay live there
// next to what it computes from them (RFC 2.2: C + a broadcast bias, then its store and row sums), so
// `epilogue` is the most registers live out of the loop or of any op after it, the same units (a
// value from the loop's vector results onwards is live from its definition to its last use; splat
// constants are immediates).
#pragma once

#include "ir/Operation.h"
#include "ir/support/Diagnostics.h"
#include "ir/targets/Target.h"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace xtc::passes {

// GRFs left for addresses, the loop counter, message headers and temporaries. Calibrated with ocloc
// (IGC 1.0.12504) on bf16 GEMM loops, K step 32, large file: pvc's 32x64 subgroup tile (carried 128 +
// operands 96 = 224, 2D loads) does not spill; on dg2 (per-lane loads) 32x8 and 16x16 (192 and 160)
// do not, 32x16 and 16x32 (256) spill ~20; default file: an 8x32x16 f16 loop (112) spills 39.
inline constexpr int64_t kRegisterReserve = 32;

struct LoopRegisters {
  int64_t carried = 0;   // GRFs of the loop-carried vectors
  int64_t operands = 0;  // GRFs of the values loaded in one iteration
  int64_t epilogue = 0;  // GRFs live out of the worst op after the loop (its vector results and their uses)
  int64_t total() const { return carried + operands; }
  int64_t peak() const { return total() > epilogue ? total() : epilogue; }
};

// The most GRFs live at one point of straight-line code, and the op after which they are (null when
// nothing is live).
struct BudgetPeak {
  int64_t grfs = 0;
  const ir::Operation* at = nullptr;
};

// GRFs of a subgroup value of vector type `t` (whole registers).
int64_t vectorRegisters(const ir::Type& t, const targets::Target& target);

// Whether `load` (tile.load_tile or tile.load_gather) becomes per-lane loads: a gather always, a
// blocked load when blocking said so (`per_lane`), an unblocked one (before blocking, or on the
// portable path: `portable`) when the target has no 2D block loads or the path does not use them.
bool loadIsPerLane(const ir::Operation& load, const targets::Target& target, bool portable);

// GRFs the result of one load takes (see the top of the file).
int64_t loadRegisters(const ir::Operation& load, const targets::Target& target, bool portable);

// The estimate for `forOp` (an scf.for at subgroup tile level; nested regions of its body count too;
// `epilogue` from the ops after it in its block).
LoopRegisters estimateLoopRegisters(const ir::Operation& forOp, const targets::Target& target, bool portable);

// Whether `grfs` fit a file of `fileSize` registers with the reserve left over.
inline bool fitsRegisterFile(int64_t grfs, int64_t fileSize) { return grfs + kRegisterReserve <= fileSize; }

// GRFs live at the worst op after `forOp` in its block, counting the vector values from its results
// onwards (the `epilogue` of estimateLoopRegisters).
int64_t estimateEpilogueRegisters(const ir::Operation& forOp, const targets::Target& target, bool portable);

// The worst point of a kernel without a loop: `ops` are its body's ops at subgroup tile level, in
// order; every vector value is live from its definition to its last use, counted as in the epilogue
// (a load what it fills, a broadcast its operand, splats nothing), and an op with regions (an
// scf.if) adds the worst point of its regions.
BudgetPeak estimateStraightLineRegisters(const std::vector<ir::Operation*>& ops, const targets::Target& target,
                                         bool portable);

// estimateStraightLineRegisters of a kernel body's ops (as lower-xe and lower-generic hold them while
// they rebuild the body), or nothing when any of them holds a loop (the loops' estimates decide then).
BudgetPeak straightLineRegisters(const std::vector<std::unique_ptr<ir::Operation>>& ops,
                                 const targets::Target& target, bool portable);

// What lower-xe and lower-generic do with their kernel's worst loop (the largest peak estimate; null
// when the kernel has no loop): ask for the large register file (build_options) when the loop or its
// epilogue does not fit the default one, and warn at the loop when the loop does not fit the large
// one either, naming the estimate and the cause (split-accumulators' `no_split` reason on the loop,
// when it left one). A kernel with no loop is judged by `straightLine` the same way (the warning at
// its worst op).
void applyRegisterBudget(ir::Operation* kernel, const ir::Operation* worstLoop, const LoopRegisters& worst,
                         const BudgetPeak& straightLine, const targets::Target& target, DiagnosticEngine& diags,
                         std::string_view pass);

}  // namespace xtc::passes
