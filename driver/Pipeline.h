// The compilation pipeline shared by `xtc compile` and `xtc run`: source (.xt through the frontend,
// or .ir text through the IR parser) -> the target's pass pipeline -> SPIR-V backend.
#pragma once

#include "backends/isa/IsaVerifier.h"
#include "ir/Operation.h"
#include "ir/passes/PassManager.h"
#include "ir/support/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xtc::driver {

// The help of the flags `xtc compile` and `xtc run` share.
inline constexpr const char* kSurfaceFallbackHelp =
    "pvc: a 2D block message whose surface rules (pitch a multiple of 16 bytes, rows 64 bytes to 2^24, 1 to 2^24 "
    "rows) only the run time can check gets a per-lane fallback: its loop runs as an interior loop (the 2D messages, "
    "when the rules hold) and an edge loop (per-lane), other messages under a guard; the launcher stub then checks "
    "only the base alignment";
inline constexpr const char* kPoisonBadSurfacesHelp =
    "With --emulate-xe (given, or chosen by xtc run): a 2D block load/store whose surface breaks a rule of the "
    "hardware (base 64-byte aligned, width 64 bytes to 2^24, pitch a multiple of 16 bytes and >= width) reads or "
    "writes a poison value instead (to test that the kernel never sends one)";

struct CompileOptions {
  std::string target = "generic";  // pvc | dg2 | generic
  bool emulateXe = false;          // pvc/dg2 SPIR-V with portable definitions of the Xe builtins
  // With emulateXe: false keeps the 1-D subgroup block reads/writes as Intel's block builtins (for a
  // device that has them, e.g. the CPU runtime), so only DPAS and the 2D messages are emulated.
  bool emulateBlockIo = true;
  // With emulateXe: a 2D block message whose surface breaks a rule of reference §2.5 reads/writes a
  // poison value (PassContext::poisonBadSurfaces; --poison-bad-surfaces).
  bool poisonBadSurfaces = false;
  // pvc: per-lane fallbacks for 2D block messages whose surface rules only the run time can check
  // (PassContext::surfaceFallback; --surface-fallback).
  bool surfaceFallback = false;
  std::string xeCodegen = "visa";  // pvc: visa (inline vISA where builtins fall short) | builtins
  int optLevel = 2;                // LLVM optimization: 0 or 2
  bool runBackend = true;          // false: stop after the passes (--emit=ir)
  bool wantLLVM = false;           // also fill CompileResult::llvmText
  passes::PassManagerOptions passOptions;  // --print-after, --time-passes, verify after each pass
  // --verify-isa (pvc/dg2, with runBackend): ocloc compiles and disassembles the SPIR-V and every
  // hardware call must have left its instruction (backends/isa/IsaVerifier.h, docs/hardware.md).
  bool verifyIsa = false;
  std::string renameBuiltinForTesting;  // hidden test double: "FROM=TO" misspells a builtin
  // Shared local memory per workgroup to compile for instead of the target table's (0: the table's):
  // `xtc run` passes its device's size, `xtc compile --slm-size` a chosen one. slmOrigin says where
  // it came from in diagnostics.
  unsigned slmBytes = 0;
  std::string slmOrigin;
};

// What the launcher, `xtc run` and stubs need to know about one kernel (docs/abi.md).
struct KernelInfo {
  std::string name;
  std::vector<std::string> argNames;  // the .xt parameter names, in order
  std::vector<int64_t> wgSize;        // work-items per workgroup, [x, y, z]
  int64_t sgSize = 0;                 // required subgroup size
};

struct CompileResult {
  std::vector<uint32_t> spirv;            // empty unless runBackend
  std::string llvmText;                   // only with wantLLVM
  std::unique_ptr<ir::Operation> module;  // the IR after the pass pipeline
  std::vector<KernelInfo> kernels;
  std::vector<isa::HardwareCall> hardwareCalls;  // with verifyIsa
  std::string internalError;  // set (and false returned) when --verify-isa finds a dropped call: exit 3
};

// The pass names the pipeline runs for `target` (registered passes only).
std::vector<std::string> targetPipeline(const std::string& target);

// Compiles `path` (.ir: IR text, anything else: .xt source). The file is read through
// diags.sources() unless it is registered there already. Returns false after reporting errors.
bool compileFile(const std::string& path, const CompileOptions& options, DiagnosticEngine& diags,
                 CompileResult& result);

// The same from an already built tile-IR module (tests, `xtc run` on IR).
bool compileModule(std::unique_ptr<ir::Operation> module, const CompileOptions& options, DiagnosticEngine& diags,
                   CompileResult& result);

}  // namespace xtc::driver
