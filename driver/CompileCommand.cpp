// `xtc compile FILE -o OUT`: .xt source to SPIR-V (and, with --stub, a host launcher). Today it reads
// the input through the SourceManager and reports unreadable files; the frontend does not exist yet,
// so it then stops with exit code 2 and writes nothing.
#include "driver/Commands.h"

#include "ir/support/Diagnostics.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace xtc::driver {

namespace {

struct CompileOptions {
  std::string input;
  std::string output;
  std::string target = "pvc";
  std::string stub;
  bool emulateXe = false;
};

int runCompile(const CompileOptions& opts, const GlobalOptions& global) {
  SourceManager sources;
  DiagnosticEngine diags(sources, std::cerr);
  configureDiagnostics(diags, global);

  std::string error;
  if (!sources.addFile(opts.input, &error)) {
    diags.error(SourceLoc{}, error);
    diags.flush();
    return 1;
  }
  diags.error(SourceLoc{}, "compilation of .xt is not implemented yet");
  diags.flush();
  return 2;
}

}  // namespace

void registerCompileCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status) {
  auto opts = std::make_shared<CompileOptions>();
  CLI::App* cmd = root.add_subcommand("compile", "Compile a kernel file (.xt) to SPIR-V");
  cmd->add_option("input", opts->input, "Kernel source file (.xt)")->required();
  cmd->add_option("-o,--output", opts->output, "Output SPIR-V file (default: input with .spv)");
  cmd->add_option("--target", opts->target, "Target: pvc, dg2 or generic")
      ->check(CLI::IsMember({"pvc", "dg2", "generic"}))
      ->capture_default_str();
  cmd->add_option("--stub", opts->stub, "Also write host launcher stub NAME.h / NAME.c");
  cmd->add_flag("--emulate-xe", opts->emulateXe,
                "Define the Xe hardware builtins with portable code (runs pvc SPIR-V on any OpenCL device)");
  // The callback owns `opts`: CLI11 keeps pointers into it until parsing ends.
  cmd->callback([opts, &global, &status] { status.code = runCompile(*opts, global); });
}

}  // namespace xtc::driver
