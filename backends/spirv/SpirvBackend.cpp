// The SPIR-V backend driver: emits the LLVM module (LLVMEmitter.cpp), optimizes it with LLVM's new
// pass manager, puts basic blocks in reverse post-order, translates it in process with the
// SPIRV-LLVM-Translator and validates the binary with SPIRV-Tools.
#include "backends/spirv/SpirvBackend.h"

#include "backends/spirv/LLVMEmitter.h"
#include "backends/spirv/XeBuiltins.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <spirv-tools/libspirv.hpp>

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <sstream>

namespace xtc::backend {

namespace {

// -O2 without vectorization: the vectorizers would form vectors of arbitrary width, which SPIR-V
// without extensions (and spirv-val) rejects; the device compiler vectorizes across lanes anyway.
void optimize(llvm::Module& m, int optLevel) {
  if (optLevel <= 0) return;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = false;
  pto.SLPVectorization = false;
  pto.LoopInterleaving = false;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(nullptr, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(m, mam);
}

// llvm-spirv-15 writes blocks in LLVM's order, and SPIR-V requires every block to appear after its
// dominator (the reference §11: after -O2 a loop exit came before the loop body and spirv-val rejected
// the module). Reverse post-order respects dominance; unreachable blocks (none after -O2) go last.
void orderBlocks(llvm::Module& m) {
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    llvm::ReversePostOrderTraversal<llvm::Function*> rpo(&f);
    llvm::BasicBlock* prev = nullptr;
    for (llvm::BasicBlock* bb : rpo) {
      if (prev) bb->moveAfter(prev);
      prev = bb;
    }
  }
}

// SPIR-V extensions by name, as LLVMSPIRVExtensions.inc lists them.
const std::map<std::string, SPIRV::ExtensionID>& extensionIds() {
  static const std::map<std::string, SPIRV::ExtensionID> ids = {
#define EXT(X) {#X, SPIRV::ExtensionID::X},
#include <LLVMSPIRVLib/LLVMSPIRVExtensions.inc>
#undef EXT
  };
  return ids;
}

std::unique_ptr<llvm::Module> buildModule(const ir::Operation& module, const BackendOptions& options,
                                          llvm::LLVMContext& ctx, DiagnosticEngine& diags) {
  if (!options.target) {
    diags.error(module.loc(), "internal error: the SPIR-V backend needs a target");
    return nullptr;
  }
  // llvm-spirv-15 asserts on opaque pointers for real kernels (reference §11).
  ctx.setOpaquePointers(false);
  std::unique_ptr<llvm::Module> m = emitLLVMModule(module, *options.target, ctx, diags);
  if (!m) return nullptr;
  optimize(*m, options.optLevel);
  orderBlocks(*m);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os)) {
    diags.error(module.loc(), "internal error: LLVM IR is invalid after optimization: " + os.str());
    return nullptr;
  }
  return m;
}

}  // namespace

bool emitLLVMText(const ir::Operation& module, const BackendOptions& options, DiagnosticEngine& diags,
                  std::string& out) {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = buildModule(module, options, ctx, diags);
  if (!m) return false;
  out.clear();
  llvm::raw_string_ostream os(out);
  m->print(os, nullptr);
  os.flush();
  return true;
}

bool emitSpirv(const ir::Operation& module, const BackendOptions& options, DiagnosticEngine& diags,
               std::vector<uint32_t>& out) {
  out.clear();
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = buildModule(module, options, ctx, diags);
  if (!m) return false;
  if (options.hardwareCalls) *options.hardwareCalls = listHardwareCalls(*m);
  if (!options.renameBuiltinForTesting.empty()) {
    size_t eq = options.renameBuiltinForTesting.find('=');
    std::string from = options.renameBuiltinForTesting.substr(0, eq);
    if (eq == std::string::npos ||
        !renameBuiltinForTesting(*m, from, options.renameBuiltinForTesting.substr(eq + 1))) {
      diags.error(module.loc(), fmt::format("--rename-builtin-for-testing: the module declares no builtin '{}'", from));
      return false;
    }
  }

  // SPIR-V 1.4 at most (ocloc exits silently on 1.6, reference §11); only the target's extensions.
  SPIRV::TranslatorOpts::ExtensionsStatusMap exts;
  for (const std::string& e : options.target->spirvExtensions) {
    auto it = extensionIds().find(e);
    if (it == extensionIds().end()) {
      diags.error(module.loc(), fmt::format("internal error: SPIR-V extension '{}' of target '{}' is unknown to "
                                            "the translator",
                                            e, options.target->name));
      return false;
    }
    exts[it->second] = true;
  }
  SPIRV::TranslatorOpts topts(SPIRV::VersionNumber::SPIRV_1_4, exts);
  std::ostringstream bin;
  std::string err;
  if (!llvm::writeSpirv(m.get(), topts, bin, err)) {
    diags.error(module.loc(), "SPIR-V translation failed: " + err);
    return false;
  }
  std::string bytes = bin.str();
  if (bytes.size() % 4 != 0 || bytes.empty()) {
    diags.error(module.loc(), "internal error: the translator produced a truncated SPIR-V binary");
    return false;
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (options.validate) {
    std::string why;
    if (!validateSpirv(words, &why)) {
      diags.error(module.loc(), "internal error: the generated SPIR-V does not validate: " + why);
      return false;
    }
  }
  out = std::move(words);
  return true;
}

bool validateSpirv(const std::vector<uint32_t>& words, std::string* error) {
  // The environment `spirv-val` uses without flags, so the in-process check and the tests agree.
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_6);
  std::string msgs;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* m) {
    msgs += fmt::format("{}(word {})", m, pos.index);
    msgs += '\n';
  });
  bool ok = tools.Validate(words);
  if (!ok && error) *error = msgs.empty() ? "invalid SPIR-V" : msgs;
  return ok;
}

bool disassembleSpirv(const std::vector<uint32_t>& words, std::string& out, std::string* error) {
  spvtools::SpirvTools tools(SPV_ENV_UNIVERSAL_1_6);
  std::string msgs;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
    msgs += m;
    msgs += '\n';
  });
  if (!tools.Disassemble(words, &out, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT)) {
    if (error) *error = msgs.empty() ? "cannot disassemble" : msgs;
    return false;
  }
  return true;
}

}  // namespace xtc::backend
