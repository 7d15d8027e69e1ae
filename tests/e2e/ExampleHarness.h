// Shared helpers of the example e2e tests (ExamplesGemmTest.cpp, ExamplesInterpTest.cpp): load an
// examples/*.xt through the frontend (tile IR for the reference interpreter), compile it with the real
// `xtc compile --target generic` (or pvc/dg2 emulated, see compileExampleFor) and spirv-val, run it
// on the CPU OpenCL device with the kernel ABI (docs/abi.md), and build seeded random, never-zero inputs.
#pragma once

#include "ir/Operation.h"
#include "ir/interpret/Interpreter.h"
#include "ir/support/Diagnostics.h"

#include <array>
#include <functional>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace xtc::e2e {

// An example's tile IR as the frontend produces it (owns the diagnostics it was built with).
struct TileKernel {
  SourceManager sources;
  std::ostringstream diagText;
  std::unique_ptr<DiagnosticEngine> diags;
  std::unique_ptr<ir::Operation> module;
  ir::Operation* kernel = nullptr;
};

// Parses examples/<file> (or <file> relative to the source tree if it contains a '/') into `out`.
// False with the diagnostics in `error`.
bool loadExample(const std::string& file, TileKernel& out, std::string* error);

// Runs `xtc compile examples/<file> --target <target>` (same path rule; "pvc" adds --emulate-xe: the
// real Xe lowering with every hardware op emulated; "dg2" --emulate-xe=except-block-io: DPAS
// emulated, the 1-D block reads and writes kept for the CPU device's subgroup block IO), checks the binary with
// spirv-val and reads its words. False with the failing step in `error`.
bool compileExampleFor(const std::string& file, std::vector<uint32_t>& spirv, std::string* error,
                           const std::string& target = "generic");

// Lanes per subgroup of a target: 8 on dg2, else 16.
inline int64_t targetLanes(const std::string& target) { return target == "dg2" ? 8 : 16; }

// Runs the reference interpreter on `args` (buffers updated in place). False with the diagnostics.
bool interpret(const ir::Operation& kernel, interp::KernelArgs& args, std::string* error);

// Launches the SPIR-V kernel `name` with the ABI arguments derived from the tile kernel's parameter
// types and `args` (buffers are copied in and read back into `args`). `grid` is in workgroups,
// `wgSize` in work-items (the kernel's wg_size).
bool runOnDevice(const std::vector<uint32_t>& spirv, const ir::Operation& kernel, interp::KernelArgs& args,
                 const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& wgSize, std::string* error);

// An example loaded through the frontend and compiled with `xtc compile --target T` (+ spirv-val).
struct PreparedExample {
  std::string failure;  // empty when both steps worked
  TileKernel tile;
  std::vector<uint32_t> spirv;
};

// Loads and compiles examples/<file> once per process (cached); callers assert `failure` is empty (a
// failure in a suite setup would show up as "skipped" in ctest).
const PreparedExample& prepareExample(const std::string& file, const std::string& target = "generic");

// Runs `file` on copies of `args` in the interpreter and on the device, compiled for `target`
// (workgroups of lanes x `subgroups` work-items, after checking the launch rule gives `grid`), then compares argument
// `out` element by element: `expect(e, &ref, &tol)` gives element e's exact value and tolerance; the
// device and the interpreter must each be within tol of it and within 2 * tol of each other. Reports
// the first mismatches as test failures; returns the device's arguments. Without `interpreter` only
// the device runs (sizes the interpreter would take minutes on).
interp::KernelArgs runAndCheck(const std::string& file, const interp::KernelArgs& args, size_t out,
                               const std::array<int64_t, 3>& grid, int64_t subgroups,
                               const std::function<void(int64_t, double*, double*)>& expect, bool interpreter = true,
                               const std::string& target = "generic");

// A buffer of `shape` with values drawn uniformly from +-[lo, hi] (random sign), rounded to `elem`;
// never zero (a draw that rounds to zero is replaced by the type's rounding of `hi`).
interp::Buffer randomBuffer(ir::ElemKind elem, std::vector<int64_t> shape, unsigned seed, double lo, double hi);

// A buffer of `shape` with every element `v` (NaN marks elements a kernel must write).
interp::Buffer filledBuffer(ir::ElemKind elem, std::vector<int64_t> shape, double v);

}  // namespace xtc::e2e
