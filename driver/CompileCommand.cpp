// `xtc compile FILE`: .xt source to an output chosen by --emit. Structure: read the input, run the
// frontend, then one case per emit kind in runCompile's switch (the backend adds its kinds there).
//   --emit=ast       the AST as indented text (after semantic checks, with types)
//   --emit=tile-ir   the tile IR from the frontend, verified, as IR text
//   --emit=spirv     (default) not implemented yet: exits 2 after the frontend's checks
// Diagnostics go to stderr; on any error the exit code is 1 and no output file is written (the
// output is written atomically through OutputFile).
#include "driver/Commands.h"

#include "frontend/Frontend.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "ir/ops/Ops.h"
#include "ir/support/Diagnostics.h"
#include "ir/support/OutputFile.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace xtc::driver {

namespace {

enum class EmitKind { Ast, TileIR, Spirv };

struct CompileOptions {
  std::string input;
  std::string output;
  std::string target = "pvc";
  std::string stub;
  std::string emit = "spirv";
  bool emulateXe = false;
  bool printLocs = false;
};

// Writes text to `path` ("-" = stdout) atomically; reports a failure through diags.
bool writeText(const std::string& path, const std::string& text, DiagnosticEngine& diags) {
  OutputFile out(path);
  if (!out.ok()) {
    diags.error(SourceLoc{}, out.error());
    return false;
  }
  out.write(text);
  return out.keepIf(diags);
}

int runCompile(const CompileOptions& opts, const GlobalOptions& global) {
  SourceManager sources;
  DiagnosticEngine diags(sources, std::cerr);
  configureDiagnostics(diags, global);
  auto fail = [&] {
    diags.flush();
    return 1;
  };

  EmitKind emit = opts.emit == "ast" ? EmitKind::Ast : opts.emit == "tile-ir" ? EmitKind::TileIR : EmitKind::Spirv;
  std::string error;
  if (!sources.addFile(opts.input, &error)) {
    diags.error(SourceLoc{}, error);
    return fail();
  }
  // Text outputs go to stdout unless -o is given.
  std::string textOut = opts.output.empty() ? "-" : opts.output;

  switch (emit) {
    case EmitKind::Ast: {
      std::string text;
      if (!frontend::dumpAst(opts.input, diags, &text)) return fail();
      if (!writeText(textOut, text, diags)) return fail();
      diags.flush();
      return 0;
    }
    case EmitKind::TileIR: {
      auto module = frontend::compileToTileIR(opts.input, diags);
      if (!module) return fail();
      ir::registerAllOps();
      // The frontend's output must verify; if it does not, that is a bug in xtc, not in the input.
      if (!ir::verify(*module, diags)) {
        diags.error(SourceLoc{}, "internal error: the frontend produced IR that does not verify");
        diags.flush();
        return 3;
      }
      ir::PrintOptions po;
      po.locations = opts.printLocs;
      if (!writeText(textOut, ir::printToString(*module, po), diags)) return fail();
      diags.flush();
      return 0;
    }
    case EmitKind::Spirv: {
      auto module = frontend::compileToTileIR(opts.input, diags);
      if (!module) return fail();
      diags.error(SourceLoc{}, "--emit=spirv: code generation is not implemented yet (use --emit=tile-ir or --emit=ast)");
      diags.flush();
      return 2;
    }
  }
  return 3;
}

}  // namespace

void registerCompileCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status) {
  auto opts = std::make_shared<CompileOptions>();
  CLI::App* cmd = root.add_subcommand("compile", "Compile a kernel file (.xt) to SPIR-V");
  cmd->add_option("input", opts->input, "Kernel source file (.xt)")->required();
  cmd->add_option("-o,--output", opts->output,
                  "Output file (default for --emit=ast/tile-ir: standard output; '-' is standard output)");
  cmd->add_option("--emit", opts->emit, "What to produce: ast, tile-ir or spirv")
      ->check(CLI::IsMember({"ast", "tile-ir", "spirv"}))
      ->capture_default_str();
  cmd->add_flag("--print-locs", opts->printLocs, "With --emit=tile-ir: print each op's source location");
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
