// The `xtc` subcommands. Each lives in its own file (CompileCommand.cpp, RunCommand.cpp,
// OptCommand.cpp, LayoutCommand.cpp) and registers itself on the root CLI11 app; main.cpp only
// wires them together. A subcommand's callback stores its exit code in `ExitStatus::code`:
// 0 ok, 1 error in the user's input, 2 usage error, 3 internal error.
#pragma once

#include <string>

namespace CLI { class App; }
namespace xtc { class DiagnosticEngine; }

namespace xtc::driver {

struct ExitStatus {
  int code = 0;
};

// Options every subcommand shares (set on the root app before the subcommand runs).
struct GlobalOptions {
  std::string color = "auto";   // --color=auto|always|never
  unsigned errorLimit = 20;     // --error-limit=N (0 = unlimited)
  bool warningsAsErrors = false;// -Werror
  bool remarks = false;         // --remarks
  bool verbose = false;         // -v
};

// Applies --color, --error-limit, -Werror and --remarks to a diagnostics engine (driver/Common.cpp).
void configureDiagnostics(DiagnosticEngine& diags, const GlobalOptions& global);

// For subcommands that do not exist yet: prints `xtc: error: 'xtc NAME' is not implemented yet`
// on stderr and returns 2 (store it in ExitStatus::code).
int notImplemented(const std::string& subcommand);

void registerCompileCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status);
void registerRunCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status);
void registerOptCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status);
void registerLayoutCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status);

}  // namespace xtc::driver
