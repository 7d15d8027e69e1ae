// `xtc compile FILE`: .xt source to an output chosen by --emit. Structure: read the input, run the
// frontend, then one case per emit kind in runCompile's switch (the backend adds its kinds there).
//   --emit=ast       the AST as indented text (after semantic checks, with types)
//   --emit=tile-ir   the tile IR from the frontend, verified, as IR text
//   --emit=ir        the IR after the target's pass pipeline (lane level for generic)
//   --emit=llvm      the LLVM IR the SPIR-V backend translates (after -O2 and block ordering)
//   --emit=spirv     (default) the SPIR-V binary, validated; -o defaults to the input with .spv
//   --emit=spirv-asm the SPIR-V binary disassembled (spirv-dis form)
// --stub NAME (with --emit=spirv) also writes the host launcher NAME.h / NAME.c (docs/stubs.md).
// The last four run driver/Pipeline (input .xt, or .ir text); --target defaults to generic (any
// OpenCL device with subgroups). Identical input gives byte-identical output.
// Diagnostics go to stderr; on any error the exit code is 1 and no output file is written (the
// output is written atomically through OutputFile).
#include "driver/CommandDiagnostics.h"
#include "driver/Commands.h"
#include "driver/Pipeline.h"
#include "driver/StubOutput.h"

#include "backends/spirv/SpirvBackend.h"
#include "frontend/Frontend.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "ir/ops/Ops.h"
#include "ir/support/Diagnostics.h"
#include "ir/support/OutputFile.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

namespace xtc::driver {

namespace {

enum class EmitKind { Ast, TileIR, IR, LLVM, Spirv, SpirvAsm };

struct CompileCommandOptions {
  std::string input;
  std::string output;
  std::string target = "generic";
  int optLevel = 2;
  std::string stub;
  std::string stubDir;
  std::string emit = "spirv";
  std::string emulateXe;  // --emulate-xe[=all|except-block-io]; "" without the flag
  bool poisonBadSurfaces = false;
  bool surfaceFallback = false;
  std::string xeCodegen = "visa";
  bool printLocs = false;
  bool verifyIsa = false;
  std::string renameBuiltinForTesting;
  unsigned slmSize = 0;  // --slm-size: SLM per workgroup instead of the target table's
};

int runCompile(const CompileCommandOptions& opts, const GlobalOptions& global) {
  CommandDiagnostics cmd(global);
  DiagnosticEngine& diags = cmd.diags;
  auto fail = [&] { return cmd.fail(); };

  EmitKind emit = opts.emit == "ast"         ? EmitKind::Ast
                 : opts.emit == "tile-ir"   ? EmitKind::TileIR
                 : opts.emit == "ir"        ? EmitKind::IR
                 : opts.emit == "llvm"      ? EmitKind::LLVM
                 : opts.emit == "spirv-asm" ? EmitKind::SpirvAsm
                                            : EmitKind::Spirv;
  if (!cmd.loadInput(opts.input)) return fail();
  // Text outputs go to stdout unless -o is given; the binary next to the input by default
  // (k.xt -> k.spv), never to a terminal.
  std::string textOut = opts.output.empty() ? "-" : opts.output;
  std::string spirvOut = opts.output;
  if (spirvOut.empty()) {
    size_t dot = opts.input.find_last_of('.');
    size_t slash = opts.input.find_last_of('/');
    spirvOut = (dot != std::string::npos && (slash == std::string::npos || dot > slash) ? opts.input.substr(0, dot) : opts.input) +
               ".spv";
  }
  // An output onto the input would replace the kernel's source by what it compiles to (`-o k.xt`,
  // or an input named k.spv with the default output), as C compilers refuse too.
  if (std::string out = emit == EmitKind::Spirv ? spirvOut : textOut; out != "-") {
    std::error_code ec;
    if (std::filesystem::equivalent(opts.input, out, ec)) {
      diags.error(SourceLoc{}, "the output file '" + out + "' is the input file (choose another with -o)");
      return fail();
    }
  }
  if (!opts.stub.empty() && (emit != EmitKind::Spirv || !checkStubName(opts.stub, diags))) {
    if (emit != EmitKind::Spirv) diags.error(SourceLoc{}, "--stub needs --emit=spirv (the stub embeds the SPIR-V binary)");
    return fail();
  }

  switch (emit) {
    case EmitKind::Ast: {
      std::string text;
      if (!frontend::dumpAst(opts.input, diags, &text)) return fail();
      if (!cmd.writeText(textOut, text)) return fail();
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
      if (!cmd.writeText(textOut, ir::printToString(*module, po))) return fail();
      diags.flush();
      return 0;
    }
    case EmitKind::IR:
    case EmitKind::LLVM:
    case EmitKind::Spirv:
    case EmitKind::SpirvAsm: {
      CompileOptions co;
      co.target = opts.target;
      co.emulateXe = !opts.emulateXe.empty();
      co.emulateBlockIo = opts.emulateXe != "except-block-io";
      co.poisonBadSurfaces = opts.poisonBadSurfaces;
      co.surfaceFallback = opts.surfaceFallback;
      co.xeCodegen = opts.xeCodegen;
      co.optLevel = opts.optLevel;
      co.runBackend = emit == EmitKind::Spirv || emit == EmitKind::SpirvAsm;
      co.wantLLVM = emit == EmitKind::LLVM;
      co.passOptions.printOptions.locations = opts.printLocs;
      co.verifyIsa = opts.verifyIsa;
      co.renameBuiltinForTesting = opts.renameBuiltinForTesting;
      co.slmBytes = opts.slmSize;
      CompileResult result;
      if (!compileFile(opts.input, co, diags, result)) {
        if (result.internalError.empty()) return fail();
        diags.flush();
        std::cerr << "xtc: internal error: " << result.internalError << "\n";
        return 3;
      }
      std::string text;
      if (emit == EmitKind::IR) {
        text = ir::printToString(*result.module, co.passOptions.printOptions);
      } else if (emit == EmitKind::LLVM) {
        text = result.llvmText;
      } else if (emit == EmitKind::SpirvAsm) {
        std::string why;
        if (!backend::disassembleSpirv(result.spirv, text, &why)) {
          diags.error(SourceLoc{}, "internal error: cannot disassemble the SPIR-V: " + why);
          return fail();
        }
      } else {
        const std::string& path = spirvOut;
        if (!opts.stub.empty()) {  // binary + NAME.h + NAME.c, all or nothing (driver/StubOutput.h)
          if (!writeSpirvWithStub(path, result, StubRequest{opts.stub, opts.stubDir, opts.input}, diags)) return fail();
          diags.flush();
          return 0;
        }
        std::string bytes(reinterpret_cast<const char*>(result.spirv.data()), result.spirv.size() * 4);
        if (!cmd.writeText(path, bytes)) return fail();
        diags.flush();
        return 0;
      }
      if (!cmd.writeText(textOut, text)) return fail();
      diags.flush();
      return 0;
    }
  }
  return 3;
}

}  // namespace

void registerCompileCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status) {
  auto opts = std::make_shared<CompileCommandOptions>();
  CLI::App* cmd = root.add_subcommand("compile", "Compile a kernel file (.xt) to SPIR-V");
  cmd->add_option("input", opts->input, "Kernel source file (.xt)")->required();
  cmd->add_option("-o,--output", opts->output,
                  "Output file (default for --emit=ast/tile-ir: standard output; '-' is standard output)");
  cmd->add_option("--emit", opts->emit, "What to produce: ast, tile-ir, ir, llvm, spirv or spirv-asm")
      ->check(CLI::IsMember({"ast", "tile-ir", "ir", "llvm", "spirv", "spirv-asm"}))
      ->capture_default_str();
  cmd->add_option("-O", opts->optLevel, "LLVM optimization level of the SPIR-V backend: -O0 or -O2")
      ->check(CLI::IsMember({0, 2}))
      ->capture_default_str();
  cmd->add_flag("--print-locs", opts->printLocs, "With --emit=tile-ir: print each op's source location");
  cmd->add_option("--target", opts->target,
                  "Target: pvc, dg2 or generic (default: generic, which runs on any OpenCL device with subgroups)")
      ->check(CLI::IsMember({"pvc", "dg2", "generic"}))
      ->capture_default_str();
  cmd->add_option("--slm-size", opts->slmSize,
                  "BYTES: shared local memory per workgroup to compile for instead of the target's (generic: the portable "
                  "32 KiB; give a device's size to use more)")
      ->check(CLI::Range(1u, 1u << 30));
  cmd->add_option("--stub", opts->stub,
                  "Also write the host launcher stub NAME.h / NAME.c (next to the .spv, or in --stub-dir)");
  cmd->add_option("--stub-dir", opts->stubDir, "Folder for the --stub files (default: the folder of the .spv)");
  cmd->add_flag("--emulate-xe{all}", opts->emulateXe,
                "Define the Xe hardware builtins with portable code (runs pvc SPIR-V on any OpenCL device); "
                "=except-block-io keeps the 1-D subgroup block reads/writes as Intel's builtins (a device with "
                "cl_intel_subgroups block IO runs them)")
      ->check(CLI::IsMember({"all", "except-block-io"}));
  cmd->add_flag("--surface-fallback", opts->surfaceFallback,
                kSurfaceFallbackHelp);
  cmd->add_flag("--poison-bad-surfaces", opts->poisonBadSurfaces,
                kPoisonBadSurfacesHelp);
  cmd->add_flag("--verify-isa", opts->verifyIsa,
                "pvc/dg2: compile the SPIR-V with ocloc and check that every hardware call left its instruction");
  cmd->add_option("--xe-codegen", opts->xeCodegen,
                  "pvc: visa (2D stores and prefetches as inline vISA) or builtins (builtins only, per-lane stores)")
      ->check(CLI::IsMember({"visa", "builtins"}))
      ->capture_default_str();
  cmd->add_option("--rename-builtin-for-testing", opts->renameBuiltinForTesting,
                  "Test double for --verify-isa: FROM=TO misspells builtin FROM in the emitted module")
      ->group("");
  // The callback owns `opts`: CLI11 keeps pointers into it until parsing ends.
  cmd->callback([opts, &global, &status] { status.code = runCompile(*opts, global); });
}

}  // namespace xtc::driver
