// The diagnostics set-up shared by the subcommands that read one input file (compile, run, opt): a
// source manager, an engine printing to stderr with --color, --error-limit and -Werror applied, the
// input file loaded into the source manager (so diagnostics can quote its lines) and turned into a
// module (.ir: IR text; anything else: a kernel source, as driver/Pipeline's compileFile does).
#pragma once

#include "driver/Commands.h"
#include "frontend/Frontend.h"
#include "ir/Operation.h"
#include "ir/Parser.h"
#include "ir/support/Diagnostics.h"
#include "ir/support/OutputFile.h"

#include <iostream>
#include <memory>
#include <string>

namespace xtc::driver {

struct CommandDiagnostics {
  SourceManager sources;
  DiagnosticEngine diags{sources, std::cerr};

  explicit CommandDiagnostics(const GlobalOptions& global) { configureDiagnostics(diags, global); }

  // Prints what was reported and returns the exit code of an error in the user's input.
  int fail() {
    diags.flush();
    return 1;
  }

  // Loads `path` into `sources`; an unreadable file is an error (no location) and returns false.
  bool loadInput(const std::string& path) {
    std::string error;
    if (sources.addFile(path, &error)) return true;
    diags.error(SourceLoc{}, error);
    return false;
  }

  // Loads `path` and parses it (.ir) or compiles it to tile IR; nullptr after reporting errors.
  // Not verified: the caller decides (opt --verify-each=false skips it).
  std::unique_ptr<ir::Operation> loadModule(const std::string& path) {
    if (!loadInput(path)) return nullptr;
    if (isIRText(path)) return ir::parseModule(path, *sources.text(path), diags);
    return frontend::compileToTileIR(path, diags);
  }

  // Writes text to `path` ("-" = stdout) atomically (nothing is left behind on failure); reports a
  // failure through `diags`.
  bool writeText(const std::string& path, const std::string& text) {
    OutputFile out(path);
    if (!out.ok()) {
      diags.error(SourceLoc{}, out.error());
      return false;
    }
    out.write(text);
    return out.keepIf(diags);
  }

  static bool isIRText(const std::string& path) { return path.size() >= 3 && path.compare(path.size() - 3, 3, ".ir") == 0; }
};

}  // namespace xtc::driver
