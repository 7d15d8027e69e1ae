// `xtc opt FILE`: read IR text (.ir) or compile a kernel source (anything else) to tile IR, verify it, run a
// pass pipeline and print the resulting IR.
// Every error goes through the diagnostics engine (exit 1); the output file is written atomically
// and only when everything succeeded.
#include "driver/CommandDiagnostics.h"
#include "driver/Commands.h"

#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "ir/ops/Ops.h"
#include "ir/passes/PassManager.h"
#include "ir/support/Diagnostics.h"
#include "ir/targets/Target.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <vector>

namespace xtc::driver {

namespace {

struct OptOptions {
  std::string input;
  std::vector<std::string> passes;
  bool passesGiven = false;
  std::vector<std::string> printAfter;
  std::vector<std::string> printBefore;
  bool printAfterAll = false;
  bool printBeforeAll = false;
  bool timePasses = false;
  bool printLocs = false;
  bool verifyEach = true;
  bool listPasses = false;
  std::string target = "pvc";
  std::string output = "-";
  unsigned slmSize = 0;  // --slm-size: SLM per workgroup instead of the target table's (as xtc compile)
};

int listPasses() {
  for (const std::string& n : passes::registeredPasses()) {
    auto p = passes::createPass(n);
    std::cout << "  " << n << std::string(n.size() < 22 ? 22 - n.size() : 1, ' ') << p->description() << "\n";
  }
  return 0;
}

int runOpt(const OptOptions& o, const GlobalOptions& global) {
  ir::registerAllOps();
  passes::registerAllPasses();
  if (o.listPasses) return listPasses();
  if (o.input.empty()) {
    std::cerr << "xtc: error: opt: an input file is required\nRun with --help for more information.\n";
    return 2;
  }

  CommandDiagnostics cmd(global);
  DiagnosticEngine& diags = cmd.diags;
  auto fail = [&] { return cmd.fail(); };

  const targets::Target* target = targets::findTarget(o.target);
  targets::Target withSlm{};  // the target with another SLM size (--slm-size)
  if (o.slmSize > 0) {
    withSlm = *target;
    withSlm.slmBytes = o.slmSize;
    withSlm.slmOrigin = "--slm-size";
    target = &withSlm;
  }
  bool fromSource = !CommandDiagnostics::isIRText(o.input);
  std::unique_ptr<ir::Operation> module = cmd.loadModule(o.input);
  if (!module) return fail();
  // --verify-each=false also skips verifying the input, so IR that uses ops this binary does not
  // register can still be parsed and printed.
  if (o.verifyEach && !ir::verify(*module, diags)) return fail();

  std::vector<std::string> pipeline;
  // A kernel source without --passes runs the target's whole pipeline (`xtc opt k.xt
  // --print-after-all` shows every pass); IR text without --passes is only verified and printed.
  std::vector<std::string> requested = o.passes;
  if (!o.passesGiven && fromSource) requested = {"default"};
  for (const std::string& p : requested) {
    if (p == "default") {
      auto d = passes::defaultPipeline(*target);
      pipeline.insert(pipeline.end(), d.begin(), d.end());
    } else {
      for (auto& n : passes::splitPipeline(p)) pipeline.push_back(n);
    }
  }

  passes::PassManagerOptions pmo;
  pmo.verifyEach = o.verifyEach;
  pmo.printAfter = o.printAfter;
  pmo.printBefore = o.printBefore;
  pmo.printAfterAll = o.printAfterAll;
  pmo.printBeforeAll = o.printBeforeAll;
  pmo.timePasses = o.timePasses;
  pmo.printOptions.locations = o.printLocs;
  passes::PassContext ctx{diags, target};
  passes::PassManager pm(ctx, pmo);
  if (!pm.addPipeline(pipeline)) return fail();
  for (const std::string& n : o.printAfter)
    if (!passes::isPassRegistered(n)) diags.error(SourceLoc{}, "--print-after: unknown pass '" + n + "'");
  for (const std::string& n : o.printBefore)
    if (!passes::isPassRegistered(n)) diags.error(SourceLoc{}, "--print-before: unknown pass '" + n + "'");
  if (diags.hasErrors()) return fail();
  if (!pm.run(module.get())) return fail();

  ir::PrintOptions po;
  po.locations = o.printLocs;
  if (!cmd.writeText(o.output, ir::printToString(*module, po))) return fail();
  diags.flush();
  return diags.hasErrors() ? 1 : 0;
}

}  // namespace

void registerOptCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status) {
  auto opts = std::make_shared<OptOptions>();
  CLI::App* cmd = root.add_subcommand("opt", "Run compiler passes on IR text (.ir) or a kernel (.xt) and print the IR");
  cmd->add_option("input", opts->input, "IR text (.ir) or kernel source (.xt)");
  CLI::Option* passes =
      cmd->add_option("--passes", opts->passes,
                      "Comma-separated pass list, run in order; 'default' stands for the target's default pipeline "
                      "(when not given: the default pipeline for .xt input, no passes for .ir input)")
          ->delimiter(',');
  cmd->add_option("--print-after", opts->printAfter, "Print the IR (to stderr) after pass NAME")->delimiter(',');
  cmd->add_option("--print-before", opts->printBefore, "Print the IR (to stderr) before pass NAME")->delimiter(',');
  cmd->add_flag("--print-after-all", opts->printAfterAll, "Print the IR (to stderr) after every pass");
  cmd->add_flag("--print-before-all", opts->printBeforeAll, "Print the IR (to stderr) before every pass");
  cmd->add_flag("--time-passes", opts->timePasses, "Print a table of pass times to stderr");
  cmd->add_flag("--print-locs", opts->printLocs, "Print source locations (loc(\"file\":line:col))");
  cmd->add_option("--verify-each", opts->verifyEach, "Verify the input and the IR after every pass (true|false)")->capture_default_str();
  cmd->add_flag("--list-passes", opts->listPasses, "List the registered passes and exit");
  cmd->add_option("--target", opts->target, "Target: pvc, dg2 or generic")
      ->check(CLI::IsMember({"pvc", "dg2", "generic"}))
      ->capture_default_str();
  cmd->add_option("--slm-size", opts->slmSize,
                  "BYTES: shared local memory per workgroup to compile for instead of the target's (as xtc compile "
                  "--slm-size)")
      ->check(CLI::Range(1u, 1u << 30));
  cmd->add_option("-o,--output", opts->output, "Output file (default: standard output)");
  // The callback owns `opts`: CLI11 keeps pointers into it until parsing ends.
  cmd->callback([opts, passes, &global, &status] {
    opts->passesGiven = passes->count() > 0;
    status.code = runOpt(*opts, global);
  });
}

}  // namespace xtc::driver
