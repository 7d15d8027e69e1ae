// Workgroup-local buffers and atomics for the SPIR-V backend (see EmitMemory.h).
//
// Atomics use only core SPIR-V: integer kinds are LLVM atomicrmw instructions (OpAtomicIAdd, ...,
// OpAtomicExchange), and the float kinds (addf, maxf, minf) a compare-exchange loop on the value's
// bits (OpAtomicCompareExchange). The CPU OpenCL runtime has cl_ext_float_atomics, but the `generic`
// target promises core SPIR-V only, and OpAtomicFAddEXT would need SPV_EXT_shader_atomic_float_add in
// every target's extension list plus an ISA test of what IGC makes of it; the loop needs neither.
// All atomics are relaxed (monotonic): split-K needs each update to be indivisible, not ordered.
#include "backends/spirv/EmitMemory.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include <fmt/format.h>

namespace xtc::backend {

using ir::ElemKind;

std::vector<llvm::Constant*> emitSlmPool(llvm::Module& m, const std::vector<int64_t>& sizes, const std::string& name) {
  constexpr unsigned kLocal = 3;  // OpenCL's local address space: SPIR-V Workgroup storage
  constexpr int64_t kAlign = 64;  // a cache line: every SLM block message's alignment and more
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (int64_t s : sizes) {
    offsets.push_back(total);
    total += (s + kAlign - 1) / kAlign * kAlign;
  }
  if (sizes.empty()) return {};
  llvm::Type* i8 = llvm::Type::getInt8Ty(m.getContext());
  auto* arrayType = llvm::ArrayType::get(i8, static_cast<uint64_t>(total));
  // Undefined contents, as a `__local` array's: a Workgroup variable cannot have an initializer.
  auto* g = new llvm::GlobalVariable(m, arrayType, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::UndefValue::get(arrayType), name, nullptr,
                                     llvm::GlobalValue::NotThreadLocal, kLocal);
  g->setAlignment(llvm::Align(kAlign));
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Local);
  std::vector<llvm::Constant*> out;
  llvm::Type* i64 = llvm::Type::getInt64Ty(m.getContext());
  for (int64_t o : offsets)
    out.push_back(llvm::ConstantExpr::getInBoundsGetElementPtr(
        arrayType, g, llvm::ArrayRef<llvm::Constant*>{llvm::ConstantInt::get(i64, 0), llvm::ConstantInt::get(i64, static_cast<uint64_t>(o))}));
  return out;
}

namespace {

// The integer type of the same width as `elem` for atomics on its bits; null when SPIR-V has no
// atomics of that width (only 32 and 64 bits).
llvm::IntegerType* atomicBits(llvm::IRBuilder<>& b, ElemKind elem) {
  switch (elem) {
    case ElemKind::I32:
    case ElemKind::F32: return b.getInt32Ty();
    case ElemKind::I64:
    case ElemKind::Index:
    case ElemKind::F64: return b.getInt64Ty();
    default: return nullptr;
  }
}

// old = *ptr; *ptr = f(old, value), retried until no other work-item changed *ptr in between.
llvm::Value* casLoop(llvm::IRBuilder<>& b, llvm::IntegerType* bits, llvm::Value* ptr, llvm::Value* value,
                     const std::string& kind) {
  llvm::Type* ft = value->getType();
  auto* iptr = b.CreatePointerCast(ptr, bits->getPointerTo(ptr->getType()->getPointerAddressSpace()));
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b.getContext();
  llvm::LoadInst* first = b.CreateLoad(bits, iptr);  // a guess; the exchange checks it
  first->setAlignment(llvm::Align(bits->getBitWidth() / 8));
  llvm::BasicBlock* entry = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx, "atomic.cas", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "atomic.done", fn);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* expected = b.CreatePHI(bits, 2);
  expected->addIncoming(first, entry);
  llvm::Value* cur = b.CreateBitCast(expected, ft);
  llvm::Value* next = kind == "addf"   ? b.CreateFAdd(cur, value)
                      : kind == "maxf" ? b.CreateMaxNum(cur, value)
                                       : b.CreateMinNum(cur, value);
  auto* pair = b.CreateAtomicCmpXchg(iptr, expected, b.CreateBitCast(next, bits), llvm::MaybeAlign(),
                                     llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  llvm::Value* seen = b.CreateExtractValue(pair, 0);
  expected->addIncoming(seen, b.GetInsertBlock());
  b.CreateCondBr(b.CreateExtractValue(pair, 1), done, loop);
  b.SetInsertPoint(done);
  return b.CreateBitCast(expected, ft);
}

}  // namespace

std::string emitAtomicRmw(llvm::IRBuilder<>& b, const std::string& kind, ElemKind elem, llvm::Value* ptr,
                          llvm::Value* value, llvm::Value** old) {
  llvm::IntegerType* bits = atomicBits(b, elem);
  if (!bits)
    return fmt::format("atomic_rmw on {} is not implemented yet in the SPIR-V backend (SPIR-V atomics are 32 or 64 bits)",
                       ir::elemName(elem));
  bool isFloat = ir::isFloatElem(elem);
  if (kind == "addf" || kind == "maxf" || kind == "minf") {
    *old = casLoop(b, bits, ptr, value, kind);
    return "";
  }
  using Op = llvm::AtomicRMWInst::BinOp;
  Op op;
  if (kind == "addi") op = Op::Add;
  else if (kind == "maxs") op = Op::Max;
  else if (kind == "mins") op = Op::Min;
  else if (kind == "and") op = Op::And;
  else if (kind == "or") op = Op::Or;
  else if (kind == "xor") op = Op::Xor;
  else if (kind == "assign") op = Op::Xchg;
  else return fmt::format("atomic kind '{}' is not implemented yet in the SPIR-V backend", kind);
  // A float exchange moves the bits: integer atomics are core SPIR-V for every kind.
  llvm::Value* p = isFloat ? b.CreatePointerCast(ptr, bits->getPointerTo(ptr->getType()->getPointerAddressSpace())) : ptr;
  llvm::Value* v = isFloat ? b.CreateBitCast(value, bits) : value;
  llvm::Value* r = b.CreateAtomicRMW(op, p, v, llvm::MaybeAlign(), llvm::AtomicOrdering::Monotonic);
  *old = isFloat ? b.CreateBitCast(r, value->getType()) : r;
  return "";
}

}  // namespace xtc::backend
