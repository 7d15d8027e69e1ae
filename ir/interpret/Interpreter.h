// The reference interpreter: executes a kernel's IR on the host, exactly and deterministically.
//
// Levels. A kernel whose tiles/vectors carry `wg_map` is executed at *workgroup level*: each value is
// a whole workgroup tile or vector and the body runs once per workgroup (wg_map only distributes
// work, so it is ignored for semantics; gpu.barrier is a no-op there). Without any wg_map the kernel
// is *subgroup level*: the body runs once per subgroup of every workgroup, subgroups of a workgroup
// share SLM and synchronize at gpu.barrier (they run one at a time, each up to its next barrier, so
// runs are reproducible; an SLM element read in the same barrier interval in which another subgroup
// wrote it is reported as a race). *Lane-level* IR (after lower-generic: lane.* ops, kernel
// target "generic") runs the sg_size lanes of each subgroup in lockstep: every value holds one entry
// per lane, and lane-divergent scf.if / scf.for run per lane under an active-lane mask; the pvc
// lowering's xe.* ops run there too (ExecXe.cpp). A tile over an i64 address reads the kernel buffer
// that address points into.
//
// Arithmetic. Float values are held exactly as doubles and every op rounds its result once to the
// element type (round-to-nearest-even); for +,-,*,/ this equals IEEE arithmetic in that type.
// tile_mma accumulates in f32 (i32 for integer inputs) in k order, then converts to the result type.
// Reductions accumulate in f64 (i64) and round once. Out-of-bounds tile reads give the padding value,
// out-of-bounds tile writes are dropped; an access the tile bounds allow but that falls outside the
// actual buffer (a lying explicit shape, SLM overflow) is an error at the op's location.
#pragma once

#include "ir/Operation.h"
#include "ir/interpret/Buffer.h"

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace xtc::interp {

// A scalar kernel argument: integers (and index) in `i`, floats in `f`.
struct ScalarArg {
  ir::ElemKind elem = ir::ElemKind::Index;
  int64_t i = 0;
  double f = 0.0;
  static ScalarArg integer(int64_t v, ir::ElemKind k = ir::ElemKind::Index) { return {k, v, 0.0}; }
  static ScalarArg floating(double v, ir::ElemKind k = ir::ElemKind::F32) { return {k, 0, v}; }
};

// One kernel parameter's value: a buffer for a memref (its shape gives the dynamic dims; the kernel
// writes into it), a scalar otherwise.
struct KernelArg {
  bool isBuffer = false;
  Buffer buffer;
  ScalarArg scalar;
  static KernelArg fromBuffer(Buffer b) { KernelArg a; a.isBuffer = true; a.buffer = std::move(b); return a; }
  static KernelArg fromScalar(ScalarArg s) { KernelArg a; a.scalar = s; return a; }
};

// One entry per kernel parameter, in order.
struct KernelArgs {
  std::vector<KernelArg> args;
};

struct RunOptions {
  // Subgroup-level IR: subgroups per workgroup. 0 = from the kernel (wg_size / sg_size, or a
  // `num_subgroups` attribute), else 1.
  int64_t numSubgroups = 0;
  // gpu.subgroup_size. 0 = the kernel's sg_size attribute (gpu.subgroup_size fails without one).
  int64_t subgroupSize = 0;
  // Runs only these workgroups' grid instead of the launch region's (tests).
  std::optional<std::array<int64_t, 3>> grid;
  // Runs only these workgroups of the grid (in this order; the grid itself, group ids and counts,
  // stays the launch region's). Empty: every workgroup. Buffers with a WriteLog record workgroup
  // n of this list as writer n + 1.
  std::vector<std::array<int64_t, 3>> onlyWorkgroups;
  // Count work without doing it: tile_mma produces zeros instead of computing (for --bench's FLOP
  // count on big problems).
  bool countOnly = false;
  bool detectSlmRaces = true;
};

// What a run did (summed over every workgroup and subgroup).
struct RunStats {
  int64_t workgroups = 0;
  int64_t subgroupsPerWorkgroup = 0;
  bool workgroupLevel = false;
  bool laneLevel = false;  // lane-level IR (after lower-generic), lanes run in lockstep
  int64_t opsExecuted = 0;
  int64_t mmaFlops = 0;  // 2*M*N*K per tile_mma
};

// An error inside the interpreter, at an op's location (converted to a diagnostic by runKernel).
struct InterpError : std::runtime_error {
  SourceLoc loc;
  InterpError(SourceLoc l, const std::string& msg) : std::runtime_error(msg), loc(std::move(l)) {}
};

// Checks that `args` fit the kernel's parameters (count, buffer vs scalar, element types, ranks,
// static dims). Errors point at the kernel.
bool checkKernelArgs(const ir::Operation& kernel, const KernelArgs& args, DiagnosticEngine& diags);

// Evaluates the kernel's launch region: the number of workgroups in x, y, z. Throws InterpError.
std::array<int64_t, 3> evaluateLaunchGrid(const ir::Operation& kernel, const KernelArgs& args);

// Runs the kernel on `args` (buffers are updated in place). False after reporting an error.
bool runKernel(const ir::Operation& kernel, KernelArgs& args, DiagnosticEngine& diags, const RunOptions& options = {},
               RunStats* stats = nullptr);

}  // namespace xtc::interp
