// xe.* ops -> Intel builtins (see XeBuiltins.h). Every name below is one row of the reference and has
// an ISA test in tests/isa/builtins that compiles it through this emitter and checks the instruction:
//   xe.load_2d  d16 16xHx2 (H = 1, 2, 4, 8)  __builtin_IB_subgroup_block_read_flat_u16_m{H}k16v2   §2.2
//               d16 16x16 VNNI               __builtin_IB_subgroup_block_read_flat_transform_u16_k16 §2.2
//   xe.dpas     pvc bf16 M = 8/4/2/1, f16 M = 8; dg2 bf16 M = 8/4/2/1, f16 M = 8 (mangled, §4)
//   xe.prefetch_1d  pvc  __builtin_IB_lsc_prefetch_global_uint (§1)
// The 2D block builtins take (i64 base, i32 width-1, i32 height-1, i32 pitch-1, <2 x i32> (x, y))
// (§2.1): the IR keeps the real sizes and the minus one happens here.
#include "backends/spirv/XeBuiltins.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <fmt/format.h>

#include <map>

namespace xtc::backend {

namespace {

using ir::ElemKind;

llvm::Function* declare(llvm::Module& m, const std::string& name, llvm::Type* ret, std::vector<llvm::Type*> params,
                        bool convergent) {
  if (llvm::Function* f = m.getFunction(name)) return f;
  llvm::Function* f =
      llvm::Function::Create(llvm::FunctionType::get(ret, params, false), llvm::Function::ExternalLinkage, name, m);
  f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  if (convergent) f->addFnAttr(llvm::Attribute::Convergent);
  return f;
}

llvm::Value* call(llvm::IRBuilder<>& b, llvm::Function* f, std::vector<llvm::Value*> args) {
  llvm::CallInst* c = b.CreateCall(f, args);
  c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  if (f->hasFnAttribute(llvm::Attribute::Convergent)) c->addFnAttr(llvm::Attribute::Convergent);
  return c;
}

// The lane's registers (scalars of the element's LLVM type) as raw bits of `bits` each.
std::vector<llvm::Value*> toBits(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& regs, unsigned bits) {
  std::vector<llvm::Value*> r;
  for (llvm::Value* v : regs) r.push_back(v->getType()->isIntegerTy(bits) ? v : b.CreateBitCast(v, b.getIntNTy(bits)));
  return r;
}

// Packs registers into an LLVM vector (or a scalar for one register) of `elemTy`, reinterpreting
// groups of narrow registers as one wider element when elemTy is wider (little-endian: the lower
// register is the low half, the hardware's VNNI/packed order).
llvm::Value* pack(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& regs, unsigned regBits, llvm::Type* elemTy,
                  unsigned count) {
  std::vector<llvm::Value*> bitsRegs = toBits(b, regs, regBits);
  llvm::Type* regTy = b.getIntNTy(regBits);
  llvm::Value* v = llvm::UndefValue::get(llvm::FixedVectorType::get(regTy, static_cast<unsigned>(bitsRegs.size())));
  for (size_t i = 0; i < bitsRegs.size(); ++i) v = b.CreateInsertElement(v, bitsRegs[i], b.getInt32(static_cast<uint32_t>(i)));
  llvm::Type* target = count == 1 ? elemTy : static_cast<llvm::Type*>(llvm::FixedVectorType::get(elemTy, count));
  if (bitsRegs.size() == 1 && count == 1) return b.CreateBitCast(bitsRegs[0], elemTy);
  return b.CreateBitCast(v, target);
}

// The reverse of pack: `v` (a vector or scalar) -> `n` registers of `regTy` (the IR element's type).
std::vector<llvm::Value*> unpack(llvm::IRBuilder<>& b, llvm::Value* v, unsigned regBits, llvm::Type* regTy, unsigned n) {
  llvm::Type* ity = b.getIntNTy(regBits);
  llvm::Value* asInts = b.CreateBitCast(v, n == 1 ? ity : static_cast<llvm::Type*>(llvm::FixedVectorType::get(ity, n)));
  std::vector<llvm::Value*> r;
  for (unsigned i = 0; i < n; ++i) {
    llvm::Value* e = n == 1 ? asInts : b.CreateExtractElement(asInts, b.getInt32(i));
    r.push_back(e->getType() == regTy ? e : b.CreateBitCast(e, regTy));
  }
  return r;
}

llvm::Type* regTypeOf(llvm::IRBuilder<>& b, ElemKind k) {
  switch (k) {
    case ElemKind::BF16:
    case ElemKind::I16: return b.getInt16Ty();
    case ElemKind::F16: return b.getHalfTy();
    case ElemKind::F32: return b.getFloatTy();
    case ElemKind::I32: return b.getInt32Ty();
    default: return nullptr;
  }
}

bool flag(const ir::Operation& op, const char* n) {
  const ir::Attribute* a = op.attr(n);
  return a && a->isa(ir::AttrKind::Bool) && a->getBool();
}

// The mangled OpenCL DPAS names (reference §4): A is short[m] on pvc (one 16-bit element per lane
// and row), int[m] on dg2 (two K-adjacent elements per lane and row); B is int8 (VNNI pairs); C/D
// float[m].
std::string dpasName(bool bf16, bool pvc, int64_t m) {
  std::string base = bf16 ? "_Z40intel_sub_group_bf16_bf16_matrix_mad_k16" : "_Z38intel_sub_group_f16_f16_matrix_mad_k16";
  char aCode = pvc ? 's' : 'i';
  if (m == 1) return base + fmt::format("{}Dv8_if", aCode);
  if (m == 8 && !pvc) return base + "Dv8_iS_Dv8_f";  // the A type int8 repeats B's: a substitution
  return base + fmt::format("Dv{}_{}Dv8_iDv{}_f", m, aCode, m);
}

std::string emitLoad2d(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  if (ctx.target.kind != targets::TargetKind::Pvc)
    return fmt::format("xe.load_2d on target '{}': 2D block IO exists only on pvc (reference §2.5)", ctx.target.name);
  int64_t bits = op.intAttr("elem_bits", 0), w = op.intAttr("block_w", 0), h = op.intAttr("block_h", 0),
          n = op.intAttr("array_len", 0);
  bool vnni = flag(op, "vnni"), tr = flag(op, "transpose");
  const ir::Type& rt = op.result()->type();
  int64_t regs = rt.shape()[0];
  llvm::Type* regTy = regTypeOf(b, rt.elem());
  std::string name;
  llvm::Type* retTy = nullptr;
  unsigned retBits = 16, retCount = 0;
  if (bits == 16 && !vnni && !tr && w == 16 && n == 2 && (h == 1 || h == 2 || h == 4 || h == 8)) {
    name = fmt::format("__builtin_IB_subgroup_block_read_flat_u16_m{}k16v2", h);
    retCount = static_cast<unsigned>(2 * h);
    retTy = llvm::FixedVectorType::get(b.getInt16Ty(), retCount);
    retBits = 16;
  } else if (bits == 16 && vnni && w == 16 && h == 16 && n == 1) {
    name = "__builtin_IB_subgroup_block_read_flat_transform_u16_k16";
    retCount = 8;
    retTy = llvm::FixedVectorType::get(b.getInt32Ty(), 8);
    retBits = 32;
  } else {
    return fmt::format("xe.load_2d d{} {}x{}x{}{}{} has no builtin proven by an ISA test yet (not implemented yet)",
                       bits, w, h, n, vnni ? " vnni" : "", tr ? " transpose" : "");
  }
  if (!regTy || ir::elemBits(rt.elem()) != 16 || regs * 16 != int64_t(retCount) * retBits)
    return fmt::format("xe.load_2d: result {} does not match the {} response", rt.str(), name);
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Function* f = declare(ctx.module, name, retTy, {b.getInt64Ty(), i32, i32, i32, llvm::FixedVectorType::get(i32, 2)}, true);
  auto minus1 = [&](ir::Value* v) { return b.CreateSub(ctx.get(v).at(0), b.getInt32(1)); };
  llvm::Value* xy = llvm::UndefValue::get(llvm::FixedVectorType::get(i32, 2));
  xy = b.CreateInsertElement(xy, ctx.get(op.operand(4)).at(0), b.getInt32(0));
  xy = b.CreateInsertElement(xy, ctx.get(op.operand(5)).at(0), b.getInt32(1));
  llvm::Value* r = call(b, f, {ctx.get(op.operand(0)).at(0), minus1(op.operand(1)), minus1(op.operand(2)),
                               minus1(op.operand(3)), xy});
  ctx.set(op.result(), unpack(b, r, 16, regTy, static_cast<unsigned>(regs)));
  return "";
}

std::string emitDpas(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  int64_t m = op.intAttr("m", 0), n = op.intAttr("n", 0), k = op.intAttr("k", 0);
  ElemKind in = op.operand(1)->type().elem(), acc = op.operand(0)->type().elem();
  bool pvc = ctx.target.kind == targets::TargetKind::Pvc, dg2 = ctx.target.kind == targets::TargetKind::Dg2;
  bool bf16 = in == ElemKind::BF16, f16 = in == ElemKind::F16;
  if (!(pvc || dg2) || n != ctx.target.subgroupSize || k != 16 || acc != ElemKind::F32 || !(bf16 || f16) ||
      !(m == 8 || (bf16 && (m == 4 || m == 2 || m == 1))))
    return fmt::format("xe.dpas {}x{}x{} {} -> {} on target '{}' has no builtin proven by an ISA test yet (not "
                       "implemented yet)",
                       m, n, k, ir::elemName(in), ir::elemName(acc), ctx.target.name);
  std::string name = dpasName(bf16, pvc, m);
  unsigned aBits = pvc ? 16 : 32;
  llvm::Type* aElem = b.getIntNTy(aBits);
  llvm::Type* aTy = m == 1 ? aElem : static_cast<llvm::Type*>(llvm::FixedVectorType::get(aElem, static_cast<unsigned>(m)));
  llvm::Type* bTy = llvm::FixedVectorType::get(b.getInt32Ty(), 8);
  llvm::Type* cTy = m == 1 ? b.getFloatTy() : static_cast<llvm::Type*>(llvm::FixedVectorType::get(b.getFloatTy(), static_cast<unsigned>(m)));
  llvm::Function* f = declare(ctx.module, name, cTy, {aTy, bTy, cTy}, true);
  llvm::Value* av = pack(b, ctx.get(op.operand(1)), 16, aElem, static_cast<unsigned>(m));
  llvm::Value* bv = pack(b, ctx.get(op.operand(2)), 16, b.getInt32Ty(), 8);
  llvm::Value* cv = pack(b, ctx.get(op.operand(0)), 32, b.getFloatTy(), static_cast<unsigned>(m));
  llvm::Value* r = call(b, f, {av, bv, cv});
  ctx.set(op.result(), unpack(b, r, 32, b.getFloatTy(), static_cast<unsigned>(m)));
  return "";
}

}  // namespace

std::string emitXeOp(const ir::Operation& op, XeEmitContext& ctx) {
  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  const std::string& n = op.name();
  if (n == "xe.base_address") {
    ctx.set(op.result(), {b.CreatePtrToInt(ctx.memrefPointer(op.operand(0)), b.getInt64Ty())});
    return "";
  }
  if (n == "xe.load_2d") return emitLoad2d(op, ctx, b);
  if (n == "xe.prefetch_1d") {
    // §1: void __builtin_IB_lsc_prefetch_global_uint(global uint*, immediate element offset, cache).
    if (ctx.target.kind != targets::TargetKind::Pvc)
      return fmt::format("xe.prefetch_1d on target '{}' has no builtin proven by an ISA test yet", ctx.target.name);
    llvm::Type* ptrTy = llvm::PointerType::get(b.getInt32Ty(), 1);
    llvm::Function* f = declare(ctx.module, "__builtin_IB_lsc_prefetch_global_uint", b.getVoidTy(),
                                {ptrTy, b.getInt32Ty(), b.getInt32Ty()}, false);
    llvm::Value* ptr = b.CreateIntToPtr(ctx.get(op.operand(0)).at(0), ptrTy);
    call(b, f, {ptr, b.getInt32(0), b.getInt32(static_cast<uint32_t>(op.intAttr("cache", 4)))});
    return "";
  }
  if (n == "xe.dpas") return emitDpas(op, ctx, b);
  if (n == "xe.store_2d" || n == "xe.prefetch_2d")
    return fmt::format("'{}' is not implemented yet: IGC 1.0.12504 has no builtin for it, only inline vISA "
                       "(reference §3), which a later issue adds",
                       n);
  return fmt::format("'{}' is not implemented yet in the SPIR-V backend", n);
}

namespace {

// Builtin name -> the ISA line it leaves (reference §1, §2.2, §4, §6; each row proven by a probe
// in tests/isa/builtins). Keep in step with the emitters above and LLVMEmitter.cpp.
const std::map<std::string, std::string>& hardwareTable() {
  static const std::map<std::string, std::string> table = [] {
    std::map<std::string, std::string> t;
    for (int h : {1, 2, 4, 8})
      t[fmt::format("__builtin_IB_subgroup_block_read_flat_u16_m{}k16v2", h)] = R"(load_block2d\.ugm\.d16\.a64)";
    t["__builtin_IB_subgroup_block_read_flat_transform_u16_k16"] = R"(load_block2d\.ugm\.d16v\.a64)";
    for (bool pvc : {true, false})
      for (int m : {8, 4, 2, 1}) {
        t[dpasName(true, pvc, m)] = fmt::format(R"(\bdpas\.8x{} )", m);
        if (m == 8) t[dpasName(false, pvc, m)] = R"(\bdpas\.8x8 )";
      }
    t["__builtin_IB_lsc_prefetch_global_uint"] = R"(send\.ugm \(16\|M0\) +null .*load\.ugm\.d32\.a64)";
    // LLVMEmitter.cpp: the workgroup barrier with its SLM fence. The fence, not sync.bar: IGC drops the
    // barrier itself when the workgroup is one subgroup (tests/isa/builtins/barrier_pvc_2sg.ir).
    t["_Z7barrierj"] = R"(\bfence\.slm\b)";
    return t;
  }();
  return table;
}

}  // namespace

std::optional<std::string> hardwareCallPattern(const std::string& builtin) {
  auto it = hardwareTable().find(builtin);
  if (it != hardwareTable().end()) return it->second;
  for (const char* crossLane : {"sub_group_shuffle", "sub_group_broadcast", "sub_group_reduce_", "intel_sub_group_shuffle"})
    if (builtin.find(crossLane) != std::string::npos) return std::string();
  return std::nullopt;
}

std::vector<isa::HardwareCall> listHardwareCalls(const llvm::Module& m) {
  std::map<std::string, isa::HardwareCall> calls;
  for (const llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    llvm::DominatorTree dt(const_cast<llvm::Function&>(f));
    llvm::LoopInfo loops(dt);
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& i : bb) {
        const auto* c = llvm::dyn_cast<llvm::CallInst>(&i);
        const llvm::Function* callee = c ? c->getCalledFunction() : nullptr;
        if (!callee) continue;
        std::string name = callee->getName().str();
        std::optional<std::string> pattern = hardwareCallPattern(name);
        if (!pattern) continue;
        isa::HardwareCall& hc = calls[name];
        hc.builtin = name;
        hc.isaPattern = *pattern;
        if (loops.getLoopFor(&bb)) ++hc.insideLoops;
        else ++hc.outsideLoops;
      }
  }
  std::vector<isa::HardwareCall> r;
  for (auto& [name, hc] : calls) r.push_back(std::move(hc));
  return r;
}

bool renameBuiltinForTesting(llvm::Module& m, const std::string& from, const std::string& to) {
  llvm::Function* f = m.getFunction(from);
  if (!f || !f->isDeclaration()) return false;
  f->setName(to);
  return true;
}

}  // namespace xtc::backend
