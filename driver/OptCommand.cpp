// `xtc opt FILE`: run (parts of) the pass pipeline and print the IR.
// Not built yet: the command exists (so --help documents it) and exits 2 saying so.
#include "driver/Commands.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <vector>

namespace xtc::driver {

namespace {
struct OptOptions {
  std::string input;
  std::vector<std::string> passes;
  std::vector<std::string> printAfter;
  bool printAfterAll = false;
  std::string target = "pvc";
  std::string output = "-";
};
}  // namespace

void registerOptCommand(CLI::App& root, const GlobalOptions& /*global*/, ExitStatus& status) {
  auto opts = std::make_shared<OptOptions>();
  CLI::App* cmd = root.add_subcommand("opt", "Run compiler passes and print the IR (not implemented yet)");
  cmd->add_option("input", opts->input, "Kernel source (.xt) or IR text (.ir)")->required();
  cmd->add_option("--passes", opts->passes, "Comma-separated pass list")->delimiter(',');
  cmd->add_option("--print-after", opts->printAfter, "Print the IR after pass NAME")->delimiter(',');
  cmd->add_flag("--print-after-all", opts->printAfterAll, "Print the IR after every pass");
  cmd->add_option("--target", opts->target, "Target: pvc, dg2 or generic")
      ->check(CLI::IsMember({"pvc", "dg2", "generic"}));
  cmd->add_option("-o,--output", opts->output, "Output file (default: standard output)");
  // The callback owns `opts`: CLI11 keeps pointers into it until parsing ends.
  cmd->callback([opts, &status] { status.code = notImplemented("opt"); });
}

}  // namespace xtc::driver
