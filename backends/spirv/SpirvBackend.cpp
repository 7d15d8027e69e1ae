// The SPIR-V backend driver: emits the LLVM module (LLVMEmitter.cpp), optimizes it with LLVM's new
// pass manager, puts basic blocks in reverse post-order, translates it in process with the
// SPIRV-LLVM-Translator and validates the binary with SPIRV-Tools.
#include "backends/spirv/SpirvBackend.h"

#include "backends/spirv/LLVMEmitter.h"
#include "backends/spirv/ValidationTwin.h"
#include "backends/spirv/VisaLanes.h"
#include "backends/spirv/VisaLoop.h"
#include "backends/spirv/XeBuiltins.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <spirv-tools/libspirv.hpp>

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace xtc::backend {

namespace {

// -O2's function simplification without vectorization or loop rotation/unrolling: the vectorizers
// would form vectors of arbitrary width, which SPIR-V without extensions (and spirv-val) rejects (the
// device compiler vectorizes across lanes anyway); loop rotation: see below.
constexpr const char* kPipeline =
    "function(sroa,early-cse,instcombine,simplifycfg,gvn,instcombine,loop-mssa(licm),simplifycfg,adce)";

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
  // The scalar clean-up of -O2 without its loop transformations. Loop rotation guards the loop with
  // a zero-trip test whose exit merges the initial and the final loop-carried values; with DPAS
  // accumulators carried as vectors IGC then copied and spilled 128 registers on that path (gemm_bf16:
  // "spilled around 109", 4566 instructions; without rotation 644 and no spills). Unrolling is left
  // to IGC. The pipeline is fixed text, so the output stays deterministic.
  llvm::ModulePassManager mpm;
  if (llvm::Error e = pb.parsePassPipeline(mpm, kPipeline)) llvm::report_fatal_error(std::move(e));
  mpm.run(m, mam);
}

// lower-xe's surface-fallback edge loops gather every element of a K step (in_bounds lane.loads,
// tagged `xtc.gather` by the emitter) before the step's first DPAS, in the order of the tiles: all
// of A, then all of B. IGC keeps that order, so every gathered operand is live at once next to the
// accumulators (gemm_bf16: 128 accumulator GRFs + 96 operand GRFs in 256, "spilled around 108").
// Here each DPAS call, in block order, gets the side-effect-free instructions and tagged loads its
// operands are computed from moved down to just before it, so an operand is gathered where it is
// first used. Only in a block whose only writes are none (no store, no call but DPAS builtins and
// intrinsics without memory effects): a load moved past nothing that writes memory reads the same.
bool movableInto(const llvm::Instruction& i) {
  if (llvm::isa<llvm::PHINode>(i) || i.isTerminator()) return false;
  if (const auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i)) return ld->getMetadata("xtc.gather") && !ld->isVolatile();
  if (const auto* c = llvm::dyn_cast<llvm::CallInst>(&i))
    return c->getCalledFunction() && c->getCalledFunction()->isIntrinsic() && c->doesNotAccessMemory();
  return !i.mayHaveSideEffects() && !i.mayReadFromMemory();
}

bool isDpasCall(const llvm::Instruction& i) {
  const auto* c = llvm::dyn_cast<llvm::CallInst>(&i);
  return c && c->getCalledFunction() && c->getCalledFunction()->getName().contains("_matrix_mad_");
}

void sinkGathers(llvm::Module& m) {
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f) {
      bool gathers = false, writes = false;
      for (llvm::Instruction& i : bb) {
        if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i); ld && ld->getMetadata("xtc.gather")) gathers = true;
        if (i.mayWriteToMemory() && !isDpasCall(i)) writes = true;
      }
      if (!gathers || writes) continue;
      std::vector<llvm::Instruction*> calls;
      for (llvm::Instruction& i : bb)
        if (isDpasCall(i)) calls.push_back(&i);
      std::set<llvm::Instruction*> placed;
      for (llvm::Instruction* call : calls) {
        // The operand DAG inside the block, not placed yet.
        std::set<llvm::Instruction*> dag;
        std::vector<llvm::Instruction*> work{call};
        while (!work.empty()) {
          llvm::Instruction* i = work.back();
          work.pop_back();
          for (llvm::Value* o : i->operands()) {
            auto* oi = llvm::dyn_cast<llvm::Instruction>(o);
            if (!oi || oi->getParent() != &bb || placed.count(oi) || dag.count(oi) || !movableInto(*oi)) continue;
            dag.insert(oi);
            work.push_back(oi);
          }
        }
        // Keep in place whatever an instruction before the call outside the DAG uses (and, through
        // it, its operands).
        for (bool changed = true; changed;) {
          changed = false;
          for (llvm::Instruction* i : std::vector<llvm::Instruction*>(dag.begin(), dag.end())) {
            bool stays = llvm::any_of(i->users(), [&](llvm::User* u) {
              auto* ui = llvm::cast<llvm::Instruction>(u);
              return ui != call && ui->getParent() == &bb && !dag.count(ui) && ui->comesBefore(call);
            });
            if (stays) {
              dag.erase(i);
              changed = true;
            }
          }
        }
        std::vector<llvm::Instruction*> order;
        for (llvm::Instruction& i : bb) {
          if (&i == call) break;
          if (dag.count(&i)) order.push_back(&i);
        }
        for (llvm::Instruction* i : order) i->moveBefore(call);
        placed.insert(order.begin(), order.end());
        placed.insert(call);
      }
    }
  // The tag is the emitter's note to this step only: the module translated is the one of before.
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (i.getMetadata("xtc.gather")) i.setMetadata("xtc.gather", nullptr);
}

// llvm-spirv-15 cannot translate `freeze` ("InvalidInstruction"), which instcombine adds when it
// rewrites a urem (X urem Y -> X u< Y ? X : X - Y on a frozen X: the emulated dg2 block reads of
// bias_relu's one-row bias). SPIR-V has no poison, so a value and its frozen copy are the same value
// on the device: each freeze is replaced by its operand.
void dropFreezes(llvm::Module& m) {
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : llvm::make_early_inc_range(bb))
        if (auto* fr = llvm::dyn_cast<llvm::FreezeInst>(&i)) {
          fr->replaceAllUsesWith(fr->getOperand(0));
          fr->eraseFromParent();
        }
}

// instcombine folds trunc(extractelement <8 x i32> v, j) into extractelement(bitcast v to <32 x i8>,
// 4 j) (little-endian byte j of the element); SPIR-V vectors have 2, 3, 4, 8 or 16 components, so a
// wider bitcast vector fails validation (an i32 -> i8 `as` of a 16x32 tile on pvc, whose 2D block
// loads give <8 x i32> per 8 rows: kernel-sweep, #11). Each extract from such a bitcast of wider
// integers is turned back into the scalar form: the source element, shifted and truncated.
bool legalComponentCount(unsigned n) { return n == 2 || n == 3 || n == 4 || n == 8 || n == 16; }

void scalarizeWideBitcasts(llvm::Module& m) {
  std::vector<llvm::BitCastInst*> casts;  // collected first: the rewrite erases their users
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (auto* bc = llvm::dyn_cast<llvm::BitCastInst>(&i)) casts.push_back(bc);
  for (llvm::BitCastInst* bc : casts) {
    auto* dt = llvm::dyn_cast<llvm::FixedVectorType>(bc->getType());
    auto* st = llvm::dyn_cast<llvm::FixedVectorType>(bc->getOperand(0)->getType());
    if (!dt || !st || legalComponentCount(dt->getNumElements())) continue;
    llvm::Type* de = dt->getElementType();
    unsigned db = static_cast<unsigned>(de->getPrimitiveSizeInBits());
    unsigned sb = static_cast<unsigned>(st->getElementType()->getPrimitiveSizeInBits());
    if (!st->getElementType()->isIntegerTy() || db == 0 || sb % db != 0) continue;  // validation reports it
    bool onlyConstExtracts = llvm::all_of(bc->users(), [](llvm::User* u) {
      auto* ee = llvm::dyn_cast<llvm::ExtractElementInst>(u);
      return ee && llvm::isa<llvm::ConstantInt>(ee->getIndexOperand());
    });
    if (!onlyConstExtracts) continue;
    unsigned ratio = sb / db;
    for (llvm::User* u : llvm::make_early_inc_range(bc->users())) {
      auto* ee = llvm::cast<llvm::ExtractElementInst>(u);
      uint64_t k = llvm::cast<llvm::ConstantInt>(ee->getIndexOperand())->getZExtValue();
      llvm::IRBuilder<> b(ee);
      llvm::Value* w = b.CreateExtractElement(bc->getOperand(0), b.getInt64(k / ratio));
      if (k % ratio) w = b.CreateLShr(w, static_cast<uint64_t>((k % ratio) * db));
      llvm::Value* r = b.CreateTrunc(w, b.getIntNTy(db));
      if (!de->isIntegerTy()) r = b.CreateBitCast(r, de);
      ee->replaceAllUsesWith(r);
      ee->eraseFromParent();
    }
    bc->eraseFromParent();
  }
}

// SimplifyCFG turns an scf.if that yields a vector (a nested `if ... else if` on a scalar) into a
// select of the two vectors on the scalar i1; LLVM allows that, but SPIR-V before 1.4 wants the
// condition of a vector OpSelect to be a vector of as many components, and spirv-val rejected the
// module (an i32 2x16 tile on pvc: kernel-sweep's control flow, #11). The condition is splat.
void splatSelectConditions(llvm::Module& m) {
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(&i))
          if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(sel->getType()); vt && !sel->getCondition()->getType()->isVectorTy()) {
            llvm::IRBuilder<> b(sel);
            sel->setCondition(b.CreateVectorSplat(vt->getNumElements(), sel->getCondition()));
          }
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

// The translator's binary as words; false with its message (or a truncation) in `err`.
bool translate(llvm::Module& m, const SPIRV::TranslatorOpts& opts, std::vector<uint32_t>& words, std::string& err) {
  std::ostringstream bin;
  if (!llvm::writeSpirv(&m, opts, bin, err)) return false;
  std::string bytes = bin.str();
  if (bytes.size() % 4 != 0 || bytes.empty()) {
    err = "internal error: the translator produced a truncated SPIR-V binary";
    return false;
  }
  words.assign(bytes.size() / 4, 0);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return true;
}

std::unique_ptr<llvm::Module> buildModule(const ir::Operation& module, const BackendOptions& options,
                                          llvm::LLVMContext& ctx, DiagnosticEngine& diags) {
  if (!options.target) {
    diags.error(module.loc(), "internal error: the SPIR-V backend needs a target");
    return nullptr;
  }
  // A target without 64-bit floats: say so at the first op that uses one (ocloc would only report
  // "backend compiler failed build").
  if (!options.target->hasFp64) {
    const ir::Operation* bad = nullptr;
    auto usesF64 = [](const ir::Type& t) { return t.elem() == ir::ElemKind::F64; };
    const_cast<ir::Operation&>(module).walk([&](ir::Operation* op) {
      if (bad) return;
      for (size_t i = 0; i < op->numResults() && !bad; ++i)
        if (usesF64(op->result(i)->type())) bad = op;
      for (size_t i = 0; i < op->numOperands() && !bad; ++i)
        if (usesF64(op->operand(i)->type())) bad = op;
    });
    if (bad) {
      diags.error(bad->loc(), fmt::format("target '{}' has no 64-bit floating point (f64); use f32",
                                          options.target->name));
      return nullptr;
    }
  }
  // llvm-spirv-15 asserts on opaque pointers for real kernels (reference §11).
  ctx.setOpaquePointers(false);
  std::unique_ptr<llvm::Module> m = emitLLVMModule(module, *options.target, options.xeCodegen, ctx, diags);
  if (!m) return nullptr;
  optimize(*m, options.optLevel);
  sinkGathers(*m);
  storeRegistersFromVectors(*m);  // VisaLanes.h
  dropFreezes(*m);
  scalarizeWideBitcasts(*m);
  splatSelectConditions(*m);
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
  if (options.hardwareCalls) {
    *options.hardwareCalls = listHardwareCalls(*m);
    // A whole-loop asm statement (VisaLoop.h) holds many messages and dpas: each is checked on its own.
    for (const llvm::Function& f : *m)
      for (const llvm::BasicBlock& bb : f)
        for (const llvm::Instruction& i : bb)
          if (const auto* c = llvm::dyn_cast<llvm::CallInst>(&i))
            if (const auto* a = llvm::dyn_cast<llvm::InlineAsm>(c->getCalledOperand()))
              for (isa::HardwareCall& hc : visaLoopHardwareCalls(a->getAsmString()))
                options.hardwareCalls->push_back(std::move(hc));
  }
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
  std::unique_ptr<llvm::Module> twin = options.validate && usesInlineAsm(*m) ? makeValidationTwin(*m) : nullptr;
  std::string err;
  std::vector<uint32_t> words;
  if (!translate(*m, topts, words, err)) {
    diags.error(module.loc(), "SPIR-V translation failed: " + err);
    return false;
  }
  if (options.validate) {
    // With inline vISA, spirv-val cannot read the module itself (ValidationTwin.h): its twin is
    // validated instead, never nothing.
    std::string why;
    if (twin) {
      exts[SPIRV::ExtensionID::SPV_INTEL_inline_assembly] = false;
      std::vector<uint32_t> twinWords;
      if (!translate(*twin, SPIRV::TranslatorOpts(SPIRV::VersionNumber::SPIRV_1_4, exts), twinWords, err)) {
        diags.error(module.loc(), "internal error: SPIR-V translation of the validation twin failed: " + err);
        return false;
      }
      if (!validateSpirv(twinWords, &why)) {
        diags.error(module.loc(), "internal error: the generated SPIR-V (its validation twin: inline vISA calls as "
                                  "calls of declared functions) does not validate: " + why);
        return false;
      }
    } else if (!validateSpirv(words, &why)) {
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
