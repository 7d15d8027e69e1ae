// What dg2's whole-K-loop statements share (Dg2VisaCommon.h).
#include "backends/spirv/Dg2VisaCommon.h"

#include "backends/spirv/LoopCoords.h"

#include <map>
#include <string>

namespace xtc::backend {

llvm::Value* hoistInvariant(const ir::Value* v, const ir::Operation& loop, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  auto hoist = [&](const ir::Value* x) { return hoistInvariant(x, loop, ctx, b); };
  llvm::Type* ty = b.getIntNTy(static_cast<unsigned>(v->type().elem() == ir::ElemKind::Index ? 64 : ir::elemBits(v->type().elem())));
  if (definedOutside(v, loop)) {
    llvm::Value* x = ctx.get(const_cast<ir::Value*>(v)).at(0);
    return x->getType() == ty || ty->isIntegerTy(1) ? x : b.CreateSExtOrTrunc(x, ty);
  }
  if (std::optional<int64_t> c = constInt(v)) return llvm::ConstantInt::get(ty, static_cast<uint64_t>(*c));
  const ir::Operation* d = v->definingOp();
  llvm::Value* x = hoist(d->operand(0));
  if (d->is("arith.convert")) return x->getType()->isIntegerTy(1) ? b.CreateZExt(x, ty) : b.CreateSExtOrTrunc(x, ty);
  llvm::Value* y = hoist(d->operand(1));
  if (d->is("arith.select")) return b.CreateSelect(x, y, hoist(d->operand(2)));
  if (d->is("arith.cmpi")) {
    static const std::map<std::string, llvm::CmpInst::Predicate> preds = {
        {"eq", llvm::CmpInst::ICMP_EQ},   {"ne", llvm::CmpInst::ICMP_NE},   {"slt", llvm::CmpInst::ICMP_SLT},
        {"sle", llvm::CmpInst::ICMP_SLE}, {"sgt", llvm::CmpInst::ICMP_SGT}, {"sge", llvm::CmpInst::ICMP_SGE},
        {"ult", llvm::CmpInst::ICMP_ULT}, {"ule", llvm::CmpInst::ICMP_ULE}, {"ugt", llvm::CmpInst::ICMP_UGT},
        {"uge", llvm::CmpInst::ICMP_UGE}};
    return b.CreateICmp(preds.at(d->attr("predicate")->getString()), x, y);
  }
  llvm::Instruction::BinaryOps bo = d->is("arith.addi")    ? llvm::Instruction::Add
                                    : d->is("arith.subi")  ? llvm::Instruction::Sub
                                    : d->is("arith.muli")  ? llvm::Instruction::Mul
                                    : d->is("arith.andi")  ? llvm::Instruction::And
                                    : d->is("arith.ori")   ? llvm::Instruction::Or
                                    : d->is("arith.remui") ? llvm::Instruction::URem
                                                           : llvm::Instruction::UDiv;
  return b.CreateBinOp(bo, x, y);
}

}  // namespace xtc::backend
