// `xtc run FILE`: compile, launch on a device, check against the reference interpreter, time.
// Not built yet: the command exists (so --help documents it) and exits 2 saying so.
#include "driver/Commands.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <vector>

namespace xtc::driver {

namespace {
struct RunOptions {
  std::string input;
  std::vector<std::string> args;
  bool check = false;
  unsigned bench = 0;
  std::string runtime = "opencl";
  std::string target = "generic";
  unsigned seed = 1;
};
}  // namespace

void registerRunCommand(CLI::App& root, const GlobalOptions& /*global*/, ExitStatus& status) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = root.add_subcommand("run", "Compile a kernel and run it on a device (not implemented yet)");
  cmd->add_option("input", opts->input, "Kernel source file (.xt)")->required();
  cmd->add_option("--arg", opts->args, "Runtime size NAME=VALUE (repeatable)");
  cmd->add_flag("--check", opts->check, "Compare the results with the reference interpreter");
  cmd->add_option("--bench", opts->bench, "Time N launches and report the median");
  cmd->add_option("--runtime", opts->runtime, "level-zero or opencl")
      ->check(CLI::IsMember({"level-zero", "opencl"}));
  cmd->add_option("--target", opts->target, "Target: pvc, dg2 or generic")
      ->check(CLI::IsMember({"pvc", "dg2", "generic"}));
  cmd->add_option("--seed", opts->seed, "Seed for the random inputs");
  // The callback owns `opts`: CLI11 keeps pointers into it until parsing ends.
  cmd->callback([opts, &status] { status.code = notImplemented("run"); });
}

}  // namespace xtc::driver
