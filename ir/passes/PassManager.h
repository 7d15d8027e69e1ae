// Passes, the pass registry and the pass manager. A pass transforms a `builtin.module` in place;
// pipelines are lists of registered pass names (`--passes=a,b,c`). The manager can verify the IR
// after every pass, print it before/after chosen passes and time each pass.
//
// Registering a pass: write `void registerMyPass()` that calls registerPass("my-pass", factory), and
// add a call to it in registerAllPasses() (ir/passes/Passes.cpp). Registration is explicit because
// static initialisers in a static library are dropped by the linker when nothing references them.
#pragma once

#include "ir/Operation.h"
#include "ir/Printer.h"
#include "ir/support/Diagnostics.h"
#include "ir/targets/Target.h"

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace xtc::passes {

struct PassContext {
  DiagnosticEngine& diags;
  const targets::Target* target;  // null when no target is chosen
  // The backend may write inline vISA (not --xe-codegen=builtins). lower-xe's merged dg2 block guard
  // takes a kernel's exp, division and lane reductions only then: its block arm is one statement,
  // where IGC's expansions of them do not run out of flags (LowerXeBlockRead.cpp mergeBlockGuards).
  bool inlineVisa = true;
  // emulate-xe: a 2D block message whose surface breaks a rule of reference §2.5 (undefined on the
  // hardware) reads, or writes, a poison value instead (--poison-bad-surfaces), so a test shows
  // whether such a message ran.
  bool poisonBadSurfaces = false;
  // lower-xe (pvc): a 2D block message whose surface rules (reference §2.5) only the run time can
  // check gets a per-lane fallback (--surface-fallback; LowerXeSurface.cpp). Off: the rules are
  // the caller's, as the launcher stub checks them.
  bool surfaceFallback = false;
};

class Pass {
public:
  virtual ~Pass();
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Transforms `module` (a builtin.module). Returns false on failure, after reporting to ctx.diags.
  virtual bool run(ir::Operation* module, PassContext& ctx) = 0;
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

// Registers a pass under `name` (replaces an earlier registration of the same name).
void registerPass(std::string name, PassFactory factory);
// A new instance of the pass `name`, or null if none is registered.
std::unique_ptr<Pass> createPass(std::string_view name);
bool isPassRegistered(std::string_view name);
// Every registered pass name, sorted.
std::vector<std::string> registeredPasses();
// Registers every pass of ir/passes (idempotent). Defined in ir/passes/Passes.cpp.
void registerAllPasses();

// The default pipeline for a target: the passes of the DESIGN.md pipeline that are registered so
// far, in pipeline order.
std::vector<std::string> defaultPipeline(const targets::Target& target);
// The passes of the Xe path (DPAS, 2D block IO) after select-lowering, in order
// (ir/passes/SelectLowering.cpp runs them as its trial).
std::vector<std::string> xeLoweringPasses();
// "a,b,,c" -> {"a", "b", "c"} (whitespace around names trimmed, empty names dropped).
std::vector<std::string> splitPipeline(std::string_view text);

struct PassManagerOptions {
  bool verifyEach = true;                 // run the verifier after every pass
  std::vector<std::string> printBefore;   // pass names
  std::vector<std::string> printAfter;
  bool printBeforeAll = false;
  bool printAfterAll = false;
  bool timePasses = false;
  ir::PrintOptions printOptions;
  std::ostream* irStream = nullptr;       // where --print-* goes; null = std::cerr
  std::ostream* timingStream = nullptr;   // where --time-passes goes; null = std::cerr
};

class PassManager {
public:
  explicit PassManager(PassContext ctx, PassManagerOptions opts = {});
  ~PassManager();

  void addPass(std::unique_ptr<Pass> pass);
  // Adds the named passes. An unknown name is reported (at `where`, usually no location) and
  // nothing is added; returns false then.
  bool addPipeline(const std::vector<std::string>& names, const SourceLoc& where = {});
  size_t size() const { return passes_.size(); }

  // Runs every pass in order. Stops and returns false at the first pass that fails or leaves
  // invalid IR (when verifyEach).
  bool run(ir::Operation* module);

private:
  void printIR(const char* when, const std::string& pass, const ir::Operation* module);
  PassContext ctx_;
  PassManagerOptions opts_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

}  // namespace xtc::passes
