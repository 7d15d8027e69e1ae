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
  // s = 2^(32 - k) for k < 32, 1 for 32 <= k <= 129, 2^(129 - k) above (k = y's exponent field): the
  // bits 1.0 - e + clamp(e, 32 << 23, 129 << 23), integer max/min (sel with a condition modifier on
  // the ISA, no flag register) and one add3.
  llvm::Value* e = b.CreateAnd(b.CreateBitCast(y, b.getInt32Ty()), b.getInt32(kExpMask));
  llvm::Value* lo = b.getInt32(kScaleLoExp);
  llvm::Value* hi = b.getInt32(kScaleHiExp);
  llvm::Value* g = b.CreateSelect(b.CreateICmpUGT(e, lo), e, lo);
  g = b.CreateSelect(b.CreateICmpULT(g, hi), g, hi);
  llvm::Value* bits = b.CreateAdd(b.CreateSub(b.getInt32(kOneBits), e), g);
  llvm::Value* s = b.CreateBitCast(bits, b.getFloatTy());
  llvm::Value* inv = callFloatBuiltin(b, m, "_Z12native_recipf", {b.CreateFMul(y, s)});
  return b.CreateFMul(b.CreateFMul(inv, x), s);
}

}  // namespace xtc::backend
