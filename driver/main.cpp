// Entry point of the `xtc` command: global options, subcommand registration, and the mapping of
// every outcome to an exit code (0 ok, 1 user input error, 2 usage error, 3 internal error).
#include "driver/Commands.h"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#ifndef XTC_VERSION
#define XTC_VERSION "0.0.0"
#endif
#ifndef XTC_GIT_COMMIT
#define XTC_GIT_COMMIT "unknown"
#endif

namespace {

// CLI11 reads single-dash names as one-letter flags, so the compiler-style spellings are rewritten
// to their long forms before parsing: -Werror -> --Werror, -ferror-limit=N -> --error-limit=N.
std::vector<std::string> normalizeArguments(int argc, char** argv) {
  std::vector<std::string> args;
  args.reserve(static_cast<size_t>(argc));
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i > 0 && a == "-Werror") a = "--Werror";
    else if (i > 0 && a.rfind("-ferror-limit=", 0) == 0) a = "--error-limit=" + a.substr(14);
    args.push_back(std::move(a));
  }
  return args;
}

int runXtc(int argc, char** argv) {
  using namespace xtc::driver;
  CLI::App app{"xtc: ahead-of-time compiler for tile kernels (.xt) on Intel GPUs", "xtc"};
  app.set_version_flag("--version", std::string("xtc ") + XTC_VERSION + " (git " + XTC_GIT_COMMIT + ")",
                       "Print the version and exit");
  app.require_subcommand(1);
  app.fallthrough();  // global options are accepted after the subcommand too
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("xtc: error: ") + e.what() + "\nRun with --help for more information.\n";
  });

  GlobalOptions global;
  ExitStatus status;
  app.add_option("--color", global.color, "Colour diagnostics: auto (when stderr is a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_option("--error-limit", global.errorLimit,
                 "Stop after N errors (0 = no limit; also -ferror-limit=N)")
      ->capture_default_str();
  app.add_flag("--Werror", global.warningsAsErrors, "Treat warnings as errors (also -Werror)");
  app.add_flag("--remarks", global.remarks,
               "Report where the fast path was not taken (remark: ...): a kernel on the portable path of pvc/dg2, "
               "a DPAS K loop compiled op by op instead of as one statement, with the reason");
  app.add_flag("-v,--verbose", global.verbose, "Verbose output (stages report what they do as they are written)");
  // Hidden: lets the test suite check that internal errors map to exit code 3.
  app.add_flag_callback("--internal-error-for-testing",
                        [] { throw std::runtime_error("internal error requested by --internal-error-for-testing"); })
      ->group("");

  registerCompileCommand(app, global, status);
  registerRunCommand(app, global, status);
  registerOptCommand(app, global, status);
  registerLayoutCommand(app, global, status);

  std::vector<std::string> args = normalizeArguments(argc, argv);
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::RequiredError& e) {
    // `xtc frobnicate`: CLI11 reports the missing subcommand; name the word it did not know instead.
    std::vector<std::string> rest = app.remaining();
    if (app.get_subcommands().empty() && !rest.empty() && !rest.front().starts_with("-")) {
      std::cerr << "xtc: error: unknown subcommand '" << rest.front()
                << "' (expected compile, run, opt or layout)\nRun with --help for more information.\n";
      return 2;
    }
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::ParseError& e) {
    // --help and --version come here too, with exit code 0.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return status.code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return runXtc(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "xtc: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "xtc: internal error: unknown exception\n";
  }
  return 3;
}
