// The diagnostics set-up shared by the subcommands that read one input file (compile, run): a source
// manager, an engine printing to stderr with --color, --error-limit and -Werror applied, and the
// input file loaded into the source manager (so diagnostics can quote its lines).
#pragma once

#include "driver/Commands.h"
#include "ir/support/Diagnostics.h"

#include <iostream>
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
};

}  // namespace xtc::driver
