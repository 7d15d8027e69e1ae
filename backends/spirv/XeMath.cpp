// f32 exp and division written out as IGC's own expansions (XeMath.h says why).
#include "backends/spirv/XeMath.h"

#include <bit>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace xtc::backend {
namespace {

// A readnone OpenCL builtin on floats (same attributes as the emitter's builtins, so LLVM may CSE it).
llvm::Value* callFloatBuiltin(llvm::IRBuilderBase& b, llvm::Module& m, const std::string& mangled,
                              std::vector<llvm::Value*> args) {
  llvm::Type* f32 = b.getFloatTy();
  llvm::Function* f = m.getFunction(mangled);
  if (!f) {
    auto* fty = llvm::FunctionType::get(f32, std::vector<llvm::Type*>(args.size(), f32), false);
    f = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, mangled, m);
    f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr(llvm::Attribute::WillReturn);
    f->addFnAttr(llvm::Attribute::ReadNone);
  }
  llvm::CallInst* c = b.CreateCall(f, args);
  c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  return c;
}

llvm::Constant* bitsF32(llvm::IRBuilderBase& b, uint32_t bits) {
  return llvm::ConstantFP::get(b.getFloatTy(), std::bit_cast<float>(bits));
}

}  // namespace

llvm::Value* emitXeExpF32(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* x) {
  using namespace xemath;
  llvm::Value* log2e = bitsF32(b, kLog2E);
  llvm::Value* k = callFloatBuiltin(b, m, "_Z5truncf", {b.CreateFMul(x, log2e)});
  k = callFloatBuiltin(b, m, "_Z4fmaxff", {k, llvm::ConstantFP::get(b.getFloatTy(), -kMaxK)});
  k = callFloatBuiltin(b, m, "_Z4fminff", {k, llvm::ConstantFP::get(b.getFloatTy(), kMaxK)});
  llvm::Value* r = callFloatBuiltin(b, m, "_Z3fmafff", {k, bitsF32(b, kMinusLn2Hi), x});
  r = callFloatBuiltin(b, m, "_Z3fmafff", {k, bitsF32(b, kMinusLn2Lo), r});
  llvm::Value* twoK = callFloatBuiltin(b, m, "_Z11native_exp2f", {k});
  llvm::Value* expR = callFloatBuiltin(b, m, "_Z11native_exp2f", {b.CreateFMul(r, log2e)});
  return b.CreateFMul(twoK, expR);
}

llvm::Value* emitXeDivF32(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* x, llvm::Value* y) {
  using namespace xemath;
  llvm::Value* e = b.CreateAnd(b.CreateBitCast(y, b.getInt32Ty()), b.getInt32(kExpMask));
  llvm::Value* s = b.CreateSelect(b.CreateICmpEQ(e, b.getInt32(0)), bitsF32(b, kTwoTo32),
                                  llvm::ConstantFP::get(b.getFloatTy(), 1.0));
  s = b.CreateSelect(b.CreateICmpUGE(e, b.getInt32(kBigExp)), bitsF32(b, kTwoToM32), s);
  llvm::Value* inv = callFloatBuiltin(b, m, "_Z12native_recipf", {b.CreateFMul(y, s)});
  return b.CreateFMul(b.CreateFMul(inv, x), s);
}

}  // namespace xtc::backend
