// The `lower-generic` pass: subgroup-level tile IR (no wg_map) -> lane-level IR for the generic
// target (any OpenCL device with subgroups; FMA instead of DPAS, per-lane loads instead of 2D block
// IO). Contract and layout: docs/passes.md, sections "lower-generic" and "Lane level".
#pragma once

#include "ir/Operation.h"
#include "ir/targets/Target.h"

#include <cstdint>
#include <optional>
#include <string>

namespace xtc::passes {

// The cooperative-matrix layout (seed 003) of a row-major rows x cols subgroup tile, transposed to
// row-major storage: lanes run along the contiguous dimension (columns), so each lane owns whole
// columns (cols >= S) or a strided set of rows of one column (cols < S). With S lanes:
//   pc = cols padded: itself when it is a multiple or a divisor of S, else the next multiple of S
//        (cols > S: 24 -> 32 on 16 lanes) or the next power of two (cols < S: 12 -> 16, 6 -> 8)
//   I  = min(pc, S)        lanes along a row
//   g  = S / I             row groups                  (lane p: column p % I, first row p / I)
//   ru = ceil(rows / g)    registers per column block  kb = pc / I column blocks
// Register u + w*ru of lane p holds element (p / I + u*g, p % I + w*I); rows >= `rows` and columns
// >= `cols` are the masked tail (padding on load, dropped on store, the identity in a reduction
// along the row). Padding the columns costs idle lanes (24 columns: a quarter of the second block)
// but keeps every rule of the layout: lanes of a column block are columns, registers are rows. For
// widths that need no padding this is ir/layout's coopMatrixLayout(S, cols, rows) with the two
// tensor dims swapped (tinytc's matrices are column-major, ours row-major).
struct CoopLayout {
  int64_t rows = 1, cols = 1, pcols = 1, S = 16, I = 1, g = 1, ru = 1, kb = 1;
  int64_t numRegs() const { return ru * kb; }
  bool masked() const { return rows % g != 0 || pcols != cols; }
  bool rowMasked() const { return rows % g != 0; }
  bool colMasked() const { return pcols != cols; }
  int64_t reg(int64_t u, int64_t w) const { return u + w * ru; }
  int64_t ownerLane(int64_t r, int64_t c) const { return c % I + (r % g) * I; }
  int64_t ownerReg(int64_t r, int64_t c) const { return reg(r / g, c / I); }
};

// The layout of a rank-1 ([cols], as 1 x cols) or rank-2 ([rows, cols]) tile; nullopt with a reason
// when the shape has no such layout.
std::optional<CoopLayout> coopLayout(const std::vector<int64_t>& shape, int64_t subgroupSize, std::string* why);

// Lowers every kernel of `module` that has no `target` attribute yet (kernels lowered for this target
// are left alone, others are an error). Reads the optional kernel attribute `num_subgroups` (subgroups per
// workgroup, default 1; set by the wg_map distribution) and sets `sg_size`, `wg_size` and `target`.
// Errors go to `diags` at the offending op; returns false if there were any.
bool lowerGeneric(ir::Operation* module, const targets::Target& target, DiagnosticEngine& diags);
// The same for one kernel without a `target` attribute (select-lowering lowers kernels one by one).
bool lowerGenericKernel(ir::Operation* kernel, const targets::Target& target, DiagnosticEngine& diags);

// Registers the pass `lower-generic` (called from registerAllPasses).
void registerLowerGenericPass();

}  // namespace xtc::passes
