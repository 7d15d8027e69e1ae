// The validation twin of a module with inline vISA (see ValidationTwin.h). The twin differs from the
// real module only where an asm call was: same operands, same result type, same position, so every
// other instruction, type, decoration and the control flow are validated exactly as emitted. Not
// validated: the OpAsmTargetINTEL/OpAsmINTEL/OpAsmCallINTEL instructions themselves and the vISA text
// (IGC parses it; each form has an ISA probe in tests/isa/builtins/visa_*.ir).
#include "backends/spirv/ValidationTwin.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <fmt/format.h>


namespace xtc::backend {

bool usesInlineAsm(const llvm::Module& m) {
  for (const llvm::Function& f : m)
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& i : bb)
        if (const auto* c = llvm::dyn_cast<llvm::CallInst>(&i); c && c->isInlineAsm()) return true;
  return false;
}

std::unique_ptr<llvm::Module> makeValidationTwin(const llvm::Module& m) {
  std::unique_ptr<llvm::Module> twin = llvm::CloneModule(m);
  std::vector<llvm::CallInst*> asmCalls;
  for (llvm::Function& f : *twin)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (auto* c = llvm::dyn_cast<llvm::CallInst>(&i); c && c->isInlineAsm()) asmCalls.push_back(c);
  unsigned n = 0;
  for (llvm::CallInst* c : asmCalls) {
    // One declaration per call (numbered in program order: deterministic).
    llvm::Function* stand = llvm::Function::Create(c->getFunctionType(), llvm::Function::ExternalLinkage,
                                                   fmt::format("xtc_inline_asm_{}", n++), *twin);
    stand->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    std::vector<llvm::Value*> args(c->arg_begin(), c->arg_end());
    llvm::CallInst* r = llvm::CallInst::Create(stand, args, "", c);
    r->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    c->replaceAllUsesWith(r);
    c->eraseFromParent();
  }
  return twin;
}

}  // namespace xtc::backend
