// Lane-level xtc IR -> LLVM IR for spir64 (OpenCL kernels, typed pointers), built with IRBuilder.
// The kernel ABI (docs/abi.md): each memref parameter is a global pointer to its element type
// (bf16 as ushort, i1 as uchar) followed by one i64 per dynamic dimension; each scalar parameter is
// one argument of its type (index -> i64, bf16 -> ushort bits). OpenCL builtins are called by their
// Itanium-mangled names; the translator turns them into SPIR-V builtin variables, OpGroup* and
// OpenCL.std instructions.
#include "backends/spirv/LLVMEmitter.h"
#include "backends/spirv/Dg2VisaBlock.h"
#include "backends/spirv/Dg2VisaFmaLoop.h"
#include "backends/spirv/Dg2VisaLoop.h"
#include "backends/spirv/Dg2VisaReduceLoop.h"
#include "backends/spirv/EmitMemory.h"
#include "backends/spirv/VisaEmitter.h"
#include "backends/spirv/VisaLanes.h"
#include "backends/spirv/VisaLoop.h"
#include "backends/spirv/XeBuiltins.h"
#include "backends/spirv/XeMath.h"

#include "ir/Module.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace xtc::backend {

namespace {

using ir::AttrKind;
using ir::ElemKind;

// A memref parameter: its base pointer and one i64 per dimension (constants for static ones).
struct MemRefValue {
  llvm::Value* ptr = nullptr;
  std::vector<llvm::Value*> dims;
  ElemKind elem = ElemKind::F32;
};

// Thrown (and caught in emitLLVMModule) after a diagnostic was reported, to stop emitting a kernel.
struct EmitError {};

class KernelEmitter {
public:
  KernelEmitter(llvm::Module& m, const targets::Target& target, XeCodegen codegen, DiagnosticEngine& diags)
      : m_(m), ctx_(m.getContext()), b_(ctx_), target_(target), codegen_(codegen), diags_(diags) {}

  void emitKernel(ir::Operation* kernel);

private:
  // ----- errors -----
  [[noreturn]] void fail(const ir::Operation& op, const std::string& msg) {
    diags_.error(op.loc(), msg);
    throw EmitError{};
  }

  // ----- types -----
  llvm::Type* regType(ElemKind k, const ir::Operation& where) {
    switch (k) {
      case ElemKind::I1: return b_.getInt1Ty();
      case ElemKind::I8: return b_.getInt8Ty();
      case ElemKind::I16: return b_.getInt16Ty();
      case ElemKind::BF16: return b_.getInt16Ty();  // raw bits: SPIR-V 1.4 has no bfloat type
      case ElemKind::I32: return b_.getInt32Ty();
      case ElemKind::I64:
      case ElemKind::Index: return b_.getInt64Ty();
      case ElemKind::F16: return b_.getHalfTy();
      case ElemKind::F32: return b_.getFloatTy();
      case ElemKind::F64: return b_.getDoubleTy();
      case ElemKind::TF32: break;
    }
    fail(where, fmt::format("element type {} is not supported by the SPIR-V backend (tf32 is a DPAS input format: keep such data in f32 buffers)", ir::elemName(k)));
  }
  // In memory an i1 is one byte.
  llvm::Type* memType(ElemKind k, const ir::Operation& where) {
    return k == ElemKind::I1 ? b_.getInt8Ty() : regType(k, where);
  }
  static bool isFloat(ElemKind k) { return k == ElemKind::F16 || k == ElemKind::F32 || k == ElemKind::F64; }
  static bool isInt(ElemKind k) { return ir::isIntElem(k); }
  // Number of registers an IR value occupies.
  static size_t width(const ir::Type& t) { return t.isVector() ? static_cast<size_t>(t.shape()[0]) : 1; }
  // OpenCL C mangling code of a scalar type (for builtins).
  static const char* mangleCode(ElemKind k) {
    switch (k) {
      case ElemKind::F16: return "Dh";
      case ElemKind::F32: return "f";
      case ElemKind::F64: return "d";
      case ElemKind::I32: return "i";
      case ElemKind::I64:
      case ElemKind::Index: return "l";
      default: return "i";
    }
  }

  // ----- values -----
  const std::vector<llvm::Value*>& get(ir::Value* v, const ir::Operation& user) {
    auto it = vals_.find(v);
    if (it == vals_.end()) fail(user, "SPIR-V backend: operand has no value (is the IR lane level?)");
    return it->second;
  }
  llvm::Value* get1(ir::Value* v, const ir::Operation& user) { return get(v, user).at(0); }
  const MemRefValue& mem(ir::Value* v, const ir::Operation& user) {
    auto it = mems_.find(v);
    if (it == mems_.end()) fail(user, "SPIR-V backend: expected a memref parameter");
    return it->second;
  }
  void set(ir::Value* v, std::vector<llvm::Value*> elems) { vals_[v] = std::move(elems); }

  // ----- builtins -----
  llvm::Function* builtin(const std::string& name, llvm::Type* ret, std::vector<llvm::Type*> params, bool convergent,
                          bool readnone) {
    llvm::FunctionType* fty = llvm::FunctionType::get(ret, params, false);
    llvm::Function* f = m_.getFunction(name);
    if (!f) {
      f = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m_);
      f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
      f->addFnAttr(llvm::Attribute::NoUnwind);
      f->addFnAttr(llvm::Attribute::WillReturn);
      if (convergent) f->addFnAttr(llvm::Attribute::Convergent);
      if (readnone) f->addFnAttr(llvm::Attribute::ReadNone);
    }
    return f;
  }
  llvm::Value* call(llvm::Function* f, std::vector<llvm::Value*> args) {
    llvm::CallInst* c = b_.CreateCall(f, args);
    c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    if (f->hasFnAttribute(llvm::Attribute::Convergent)) c->addFnAttr(llvm::Attribute::Convergent);
    return c;
  }
  // size_t get_xxx(uint dim) / uint get_sub_group_xxx(void), as i64.
  llvm::Value* idBuiltin(const std::string& mangled, int dim) {
    if (dim >= 0) {
      llvm::Function* f = builtin(mangled, b_.getInt64Ty(), {b_.getInt32Ty()}, false, true);
      return call(f, {b_.getInt32(static_cast<uint32_t>(dim))});
    }
    llvm::Function* f = builtin(mangled, b_.getInt32Ty(), {}, false, true);
    return b_.CreateZExt(call(f, {}), b_.getInt64Ty());
  }

  llvm::Value* emitSubgroupId();

  // ----- emission -----
  void emitBlock(const ir::Block& block, std::vector<llvm::Value*>* yielded);
  void emitOp(ir::Operation& op, std::vector<llvm::Value*>* yielded);
  void emitConstant(ir::Operation& op);
  void emitBinary(ir::Operation& op);
  void emitCompare(ir::Operation& op);
  void emitConvert(ir::Operation& op);
  void emitMath(ir::Operation& op);
  void emitId(ir::Operation& op);
  void emitLoad(ir::Operation& op);
  // A lane.load marked in_bounds: the padding where `mask` is off (see the definition).
  llvm::Value* inBoundsPadding(llvm::Value* mask, llvm::Value* val, llvm::Value* pad);
  // A lane.store {in_bounds} as one predicated scatter on pvc; false: not this form (nothing emitted).
  bool maskedLaneStore(const ir::Operation& op, const MemRefValue& m, const std::vector<llvm::Value*>& idx,
                       llvm::Value* mask, llvm::Value* val);
  // The leaves of a mask that is an AND of unsigned range tests `x <u n` of i64 values; false if it is not.
  bool rangeTests(llvm::Value* mask, std::vector<llvm::ICmpInst*>& tests);
  // x as (base, constant k) when it is base + k (an add, or an `or` of disjoint bits); else nulls.
  std::pair<llvm::Value*, llvm::Value*> baseAndConstant(llvm::Value* x);
  // The row offset (idx[d] x the row's stride, i32) of an in_bounds lane.load whose index d is a
  // clamp of base + k, without a multiply of its own; null if it is not one.
  llvm::Value* clampedRowOffset(const MemRefValue& m, const std::vector<llvm::Value*>& idx, size_t d);
  // The base an in_bounds lane.load reads from: the memref's, or a module constant when it is empty.
  llvm::Value* emptyReadBase(const MemRefValue& m);
  llvm::GlobalVariable* emptyRead_ = nullptr;
  void emitStore(ir::Operation& op);
  void emitCrossLane(ir::Operation& op);
  void emitReduce(ir::Operation& op);
  bool allLanesAt(const ir::Operation& op) const;
  void emitFor(ir::Operation& op);
  // --remarks: why the DPAS loop `op` runs op by op (emitFor, after every loop statement declined it).
  void remarkOpByOpLoop(const ir::Operation& op, const std::string& why);
  void emitIf(ir::Operation& op);
  // Loop-carried and merged values as whole LLVM vectors where the IR's registers come from one (see
  // the definition); returns the value to use for each register.
  std::vector<llvm::Value*> vectorizePhis(const std::vector<llvm::PHINode*>& phis);

  llvm::Value* convertScalar(llvm::Value* v, ElemKind from, ElemKind to, const ir::Operation& op);
  llvm::Value* bf16ToF32(llvm::Value* bits);
  llvm::Value* f32ToBf16(llvm::Value* f);
  llvm::Value* toF32Odd(llvm::Value* v, ElemKind from);
  llvm::Value* floatToIntSat(llvm::Value* v, llvm::Type* dst);
  // i1 = every index in [0, dim) (unsigned compare also rejects negative indices), and the mask.
  llvm::Value* inBounds(const MemRefValue& m, const std::vector<llvm::Value*>& idx, llvm::Value* mask);
  llvm::Value* elementPtr(const MemRefValue& m, const std::vector<llvm::Value*>& idx, const ir::Operation& op);
  // A lane.load (data: the padding; returns the value) or lane.store (data: the value; returns
  // non-null) sent as one predicated inline-vISA message (VisaLanes.h), or null: not that form.
  llvm::Value* predicatedLane(const ir::Operation& op, const MemRefValue& m, const std::vector<llvm::Value*>& idx,
                              llvm::Value* mask, llvm::Value* data, bool store);
  // Whether a lane.load from `m` is emitted without a branch: dg2, 8-bit elements (i8, i1) of a global
  // memref (a kernel argument). The load reads the element when it is in bounds and the memref's
  // first byte otherwise (inside every buffer the ABI allows: never NULL, at least one byte,
  // docs/abi.md), and the padding is selected in. Why: the branch form makes every load its own
  // if/else around a one-byte gather whose condition ANDs a row and a column compare that the
  // optimizer shares between loads (a column's test is loop-invariant, a row's shared by its
  // columns); IGC's PreRARematFlag pass (IGC 1.0.12504) clones such shared compares into every
  // branch and checks liveness by walking the CFG for each use of each operand, in time that
  // grows with (branches x blocks). 8-bit DPAS operands loaded per lane take a gather per byte, four
  // per register: the i8 GEMMs with K step 64 on dg2 (split-accumulators' 8x8 slices, 16 loops for a
  // 16x64 tile, 3072 such branches) did not compile in 300 s, and 16x16 took 18 s; branch-free, 6
  // and 0.9 s (docs/hardware.md). Wider elements keep the branch form: their first element may
  // lie past a one-byte buffer, and the same form for them moved five examples' counts by 1-4
  // instructions (IGC's allocation), which the ratchet forbids without a gain to show for it.
  bool flatLaneLoad(const MemRefValue& m) const {
    return target_.kind == targets::TargetKind::Dg2 && (m.elem == ElemKind::I8 || m.elem == ElemKind::I1) &&
           m.ptr->getType()->getPointerAddressSpace() == 1;
  }
  // Integer bits of a value for the 32/64-bit subgroup builtins (narrow types widened to i32).
  llvm::Value* toLaneBits(llvm::Value* v, ElemKind k, ElemKind* carried);
  llvm::Value* fromLaneBits(llvm::Value* v, ElemKind k);

  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const targets::Target& target_;
  XeCodegen codegen_;
  unsigned visaLoops_ = 0;  // whole-loop asm statements emitted (unique vISA names, VisaLoop.h)
  VisaHeaders headers_;     // the 2D message headers in scope (VisaEmitter.h)
  BlockAddresses blockAddresses_;  // dg2 global block messages' row pointers (XeBuiltins.h)
  // f32 exp and division as IGC's expansions written out (XeMath.h): pvc/dg2 in vISA mode only, so
  // --emulate-xe (every CPU run) and generic keep OpenCL's exp and `/`.
  bool igcMathF32(llvm::Type* t) const {
    bool xe = (target_.kind == targets::TargetKind::Pvc && target_.subgroupSize == 16) ||
              (target_.kind == targets::TargetKind::Dg2 && target_.subgroupSize == 8);
    return codegen_ == XeCodegen::Visa && xe && t->isFloatTy();
  }
  VisaHeaders* headersOrNull() { return codegen_ == XeCodegen::Visa ? &headers_ : nullptr; }
  // What the xe emitters (XeBuiltins.h, VisaEmitter.h) see of this emitter at `op` (errors at `op`).
  XeEmitContext xeContext(ir::Operation& op) {
    return XeEmitContext{m_, &b_, target_, [this, &op](ir::Value* v) -> const std::vector<llvm::Value*>& { return get(v, op); },
                         [this](ir::Value* v, std::vector<llvm::Value*> e) { set(v, std::move(e)); },
                         [this, &op](ir::Value* v) { return mem(v, op).ptr; },
                         [this, &op](ir::Value* v, const std::vector<llvm::Value*>& idx) { return elementPtr(mem(v, op), idx, op); },
                         headersOrNull(), [this, &op](ir::Value* v, unsigned d) { return mem(v, op).dims.at(d); },
                         &blockAddresses_};
  }
  llvm::Value* sgId_ = nullptr;  // the subgroup id computed at the kernel's entry (emitSubgroupId)
  bool fullSubgroups_ = false;   // wg_size[0] is a multiple of the subgroup size: no lane starts disabled
  DiagnosticEngine& diags_;
  llvm::Function* fn_ = nullptr;
  std::unordered_map<const ir::Value*, std::vector<llvm::Value*>> vals_;
  std::unordered_map<const ir::Value*, MemRefValue> mems_;
  std::unordered_map<const ir::Operation*, llvm::Constant*> slmBuffers_;  // gpu.slm_alloc -> its pool byte
};

// ----- kernel: signature, metadata, body --------------------------------------------------------------

std::string clTypeName(ElemKind k) {
  switch (k) {
    case ElemKind::I1: return "uchar";
    case ElemKind::I8: return "char";
    case ElemKind::I16: return "short";
    case ElemKind::BF16: return "ushort";
    case ElemKind::I32: return "int";
    case ElemKind::I64:
    case ElemKind::Index: return "long";
    case ElemKind::F16: return "half";
    case ElemKind::F32: return "float";
    case ElemKind::F64: return "double";
    case ElemKind::TF32: return "float";
  }
  return "int";
}

void KernelEmitter::emitKernel(ir::Operation* kernel) {
  const std::string name = ir::kernelName(kernel);
  const ir::Block& body = ir::kernelBody(kernel);

  const ir::Attribute* sg = kernel->attr("sg_size");
  const ir::Attribute* wg = kernel->attr("wg_size");
  if (!sg || !sg->isa(AttrKind::Int) || !wg || !wg->isa(AttrKind::Array) || wg->getArray().size() != 3)
    fail(*kernel, fmt::format("kernel '{}' has no `sg_size`/`wg_size` attributes: it must be lowered for a target "
                              "before code generation",
                              name));
  if (static_cast<unsigned>(sg->getInt()) != target_.subgroupSize)
    fail(*kernel, fmt::format("kernel '{}' requires subgroup size {}, but target '{}' uses {}", name, sg->getInt(),
                              target_.name, target_.subgroupSize));
  std::vector<int64_t> wgSize = wg->getIntArray();
  fullSubgroups_ = wgSize[0] % static_cast<int64_t>(target_.subgroupSize) == 0;
  bool loops = false;
  kernel->walk([&](ir::Operation* o) { loops = loops || o->is("scf.for"); });
  headers_.qwordBase = !loops;

  std::vector<std::string> argNames;
  if (const ir::Attribute* an = kernel->attr("arg_names"))
    for (const ir::Attribute& a : an->getArray()) argNames.push_back(a.isa(AttrKind::String) ? a.getString() : "");

  // On dg2 a memref's dynamic dimension is declared `int2`, not `long`: the same 8 bytes at the same
  // payload offset (the host sets it as the i64, docs/abi.md; little-endian, so element 0 is the low
  // dword), read as an i64 by a bitcast at the entry. IGC emulates 64-bit integer ops on dg2 and
  // copied every `long` argument a fallback arm compares or multiplies, both dwords, before the
  // kernel's first instruction that reads it (a `mov (2|M0)` per dimension on every block path:
  // transpose 90 -> 85, sg_bias_relu 109 -> 103); an `int2` argument it reads in place.
  bool dimPairs = target_.kind == targets::TargetKind::Dg2;
  // The LLVM signature per the ABI, and the OpenCL kernel_arg_* metadata that goes with it.
  std::vector<llvm::Type*> params;
  std::vector<llvm::Metadata*> mdAddr, mdAccess, mdType, mdBase, mdQual, mdName;
  std::vector<std::string> llvmArgNames;
  auto addArg = [&](llvm::Type* t, unsigned addrSpace, const std::string& clType, const std::string& argName) {
    params.push_back(t);
    mdAddr.push_back(llvm::ConstantAsMetadata::get(b_.getInt32(addrSpace)));
    mdAccess.push_back(llvm::MDString::get(ctx_, "none"));
    mdType.push_back(llvm::MDString::get(ctx_, clType));
    mdBase.push_back(llvm::MDString::get(ctx_, clType));
    mdQual.push_back(llvm::MDString::get(ctx_, ""));
    mdName.push_back(llvm::MDString::get(ctx_, argName));
    llvmArgNames.push_back(argName);
  };
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const ir::Type& t = body.argument(i)->type();
    std::string argName = i < argNames.size() && !argNames[i].empty() ? argNames[i] : fmt::format("arg{}", i);
    if (t.isMemRef()) {
      if (t.memSpace() != ir::MemSpace::Global) fail(*kernel, "an SLM memref cannot be a kernel parameter");
      // Strides are dense (ir::denseMemRefOrder) and not passed: a column-major memref is its base
      // and its dims in dimension order like any other (docs/abi.md).
      addArg(llvm::PointerType::get(memType(t.elem(), *kernel), 1), 1, clTypeName(t.elem()) + "*", argName);
      for (int64_t d = 0; d < t.rank(); ++d)
        if (t.shape()[d] == ir::kDynamic) {
          if (dimPairs) addArg(llvm::FixedVectorType::get(b_.getInt32Ty(), 2), 0, "int2", fmt::format("{}_dim{}", argName, d));
          else addArg(b_.getInt64Ty(), 0, "long", fmt::format("{}_dim{}", argName, d));
        }
    } else if (t.isScalar()) {
      llvm::Type* lt = t.elem() == ElemKind::I1 ? b_.getInt8Ty() : regType(t.elem(), *kernel);
      addArg(lt, 0, clTypeName(t.elem()), argName);
    } else {
      fail(*kernel, fmt::format("kernel parameter {} has type {}, which has no lane-level ABI", argName, t.str()));
    }
  }

  llvm::FunctionType* fty = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, m_);
  fn_->setCallingConv(llvm::CallingConv::SPIR_KERNEL);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  auto md = [&](const char* kind, std::vector<llvm::Metadata*>& v) { fn_->setMetadata(kind, llvm::MDNode::get(ctx_, v)); };
  md("kernel_arg_addr_space", mdAddr);
  md("kernel_arg_access_qual", mdAccess);
  md("kernel_arg_type", mdType);
  md("kernel_arg_base_type", mdBase);
  md("kernel_arg_type_qual", mdQual);
  md("kernel_arg_name", mdName);
  std::vector<llvm::Metadata*> sgMd{llvm::ConstantAsMetadata::get(b_.getInt32(static_cast<uint32_t>(sg->getInt())))};
  md("intel_reqd_sub_group_size", sgMd);
  std::vector<llvm::Metadata*> wgMd;
  for (int64_t w : wgSize) wgMd.push_back(llvm::ConstantAsMetadata::get(b_.getInt32(static_cast<uint32_t>(w))));
  md("reqd_work_group_size", wgMd);

  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(entry);

  // The kernel's SLM buffers, in program order, in one pool (emitSlmPool says why).
  std::vector<const ir::Operation*> allocs;
  std::vector<int64_t> bytes;
  kernel->walk([&](ir::Operation* o) {
    if (!o->is("gpu.slm_alloc")) return;
    const ir::Type& t = o->result()->type();
    allocs.push_back(o);
    bytes.push_back(t.numElements() * static_cast<int64_t>(m_.getDataLayout().getTypeAllocSize(memType(t.elem(), *o))));
  });
  std::vector<llvm::Constant*> pool = emitSlmPool(m_, bytes, name + ".slm");
  for (size_t i = 0; i < allocs.size(); ++i) slmBuffers_[allocs[i]] = pool[i];

  // Bind parameters.
  unsigned ai = 0;
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    ir::Value* p = body.argument(i);
    const ir::Type& t = p->type();
    if (t.isMemRef()) {
      MemRefValue mv;
      mv.elem = t.elem();
      mv.ptr = fn_->getArg(ai);
      mv.ptr->setName(llvmArgNames[ai]);
      ++ai;
      for (int64_t d = 0; d < t.rank(); ++d) {
        if (t.shape()[d] == ir::kDynamic) {
          llvm::Argument* a = fn_->getArg(ai);
          a->setName(llvmArgNames[ai]);
          ++ai;
          mv.dims.push_back(a->getType()->isVectorTy() ? b_.CreateBitCast(a, b_.getInt64Ty(), a->getName() + ".q") : a);
        } else {
          mv.dims.push_back(b_.getInt64(static_cast<uint64_t>(t.shape()[d])));
        }
      }
      mems_[p] = mv;
    } else {
      llvm::Argument* a = fn_->getArg(ai);
      a->setName(llvmArgNames[ai]);
      ++ai;
      llvm::Value* v = a;
      if (t.elem() == ElemKind::I1) v = b_.CreateICmpNE(a, b_.getInt8(0));
      set(p, {v});
    }
  }
  sgId_ = nullptr;
  bool usesSgId = false;
  kernel->walk([&](ir::Operation* o) { usesSgId = usesSgId || o->is("gpu.subgroup_id"); });
  if (usesSgId && wgSize[1] == 1 && wgSize[2] == 1 && target_.name != "generic") sgId_ = emitSubgroupId();

  emitBlock(body, nullptr);
}

void KernelEmitter::emitBlock(const ir::Block& block, std::vector<llvm::Value*>* yielded) {
  for (const auto& op : block.opList()) emitOp(*op, yielded);
}

void KernelEmitter::emitOp(ir::Operation& op, std::vector<llvm::Value*>* yielded) {
  const std::string& n = op.name();
  if (n == "xtc.return") {
    b_.CreateRetVoid();
  } else if (n == "scf.yield") {
    if (!yielded) fail(op, "internal error: scf.yield outside of a loop or if");
    for (ir::Value* v : op.operands())
      for (llvm::Value* e : get(v, op)) yielded->push_back(e);
  } else if (n == "arith.constant") {
    emitConstant(op);
  } else if (n == "arith.cmpi" || n == "arith.cmpf") {
    emitCompare(op);
  } else if (n == "arith.convert" || n == "arith.bitcast") {
    emitConvert(op);
  } else if (n == "arith.select") {
    ir::Value* c = op.operand(0);
    const auto& a = get(op.operand(1), op);
    const auto& bb = get(op.operand(2), op);
    const auto& cv = get(c, op);
    std::vector<llvm::Value*> r;
    for (size_t i = 0; i < a.size(); ++i) r.push_back(b_.CreateSelect(cv.size() == 1 ? cv[0] : cv[i], a[i], bb[i]));
    set(op.result(), r);
  } else if (op.dialect() == "arith") {
    emitBinary(op);
  } else if (n == "lane.fma") {
    emitMath(op);
  } else if (op.dialect() == "math") {
    emitMath(op);
  } else if (n == "vector.splat") {
    llvm::Value* s = get1(op.operand(0), op);
    set(op.result(), std::vector<llvm::Value*>(width(op.result()->type()), s));
  } else if (n == "vector.extract") {
    set(op.result(), {get(op.operand(0), op).at(static_cast<size_t>(op.attr("index")->getInt()))});
  } else if (n == "vector.insert") {
    std::vector<llvm::Value*> r = get(op.operand(1), op);
    r.at(static_cast<size_t>(op.attr("index")->getInt())) = get1(op.operand(0), op);
    set(op.result(), r);
  } else if (n == "vector.from_elements") {
    std::vector<llvm::Value*> r;
    for (ir::Value* v : op.operands()) r.push_back(get1(v, op));
    set(op.result(), r);
  } else if (n == "gpu.slm_alloc") {
    // A workgroup-local buffer: a static memref in addrspace(3), at its offset in the kernel's SLM
    // pool (emitSlmPool, EmitMemory.h).
    const ir::Type& t = op.result()->type();
    MemRefValue mv;
    mv.elem = t.elem();
    for (int64_t d : t.shape()) mv.dims.push_back(b_.getInt64(static_cast<uint64_t>(d)));
    auto it = slmBuffers_.find(&op);
    if (it == slmBuffers_.end()) fail(op, "internal error: an SLM buffer outside the kernel's pool");
    mv.ptr = b_.CreatePointerCast(it->second, llvm::PointerType::get(memType(t.elem(), op), 3));
    mems_[op.result()] = mv;
  } else if (op.dialect() == "gpu") {
    emitId(op);
  } else if (n == "memref.transpose") {
    // The same base with the dimensions permuted (order-transpose's row-major view of a strided memref).
    MemRefValue mv = mem(op.operand(0), op);
    std::vector<llvm::Value*> dims;
    for (int64_t d : op.attr("permutation")->getIntArray()) dims.push_back(mv.dims.at(static_cast<size_t>(d)));
    mv.dims = dims;
    mems_[op.result()] = mv;
  } else if (n == "memref.slice") {
    // Matrix i of a dense batch: the base moved on by i times the product of the inner dims (64-bit:
    // a batch may pass 4 GiB), the first dim dropped.
    MemRefValue mv = mem(op.operand(0), op);
    llvm::Value* elems = get1(op.operand(1), op);
    for (size_t d = 1; d < mv.dims.size(); ++d) elems = b_.CreateMul(elems, mv.dims[d]);
    mv.ptr = b_.CreateInBoundsGEP(memType(mv.elem, op), mv.ptr, elems);
    mv.dims.erase(mv.dims.begin());
    mems_[op.result()] = mv;
  } else if (n == "memref.flatten") {
    // The same base, one dimension of rows x cols elements (64-bit, as every dim).
    MemRefValue mv = mem(op.operand(0), op);
    mv.dims = {b_.CreateMul(mv.dims.at(0), mv.dims.at(1))};
    mems_[op.result()] = mv;
  } else if (n == "memref.dim") {
    const MemRefValue& mv = mem(op.operand(0), op);
    int64_t d = op.intAttr("index", -1);
    if (d < 0 || d >= static_cast<int64_t>(mv.dims.size())) fail(op, "internal error: memref.dim index out of range");
    set(op.result(), {mv.dims[static_cast<size_t>(d)]});
  } else if (n == "lane.load") {
    emitLoad(op);
  } else if (n == "lane.store" || n == "lane.atomic") {
    emitStore(op);
  } else if (n == "lane.broadcast" || n == "lane.shuffle") {
    emitCrossLane(op);
  } else if (n == "lane.reduce") {
    emitReduce(op);
  } else if (n == "scf.for") {
    emitFor(op);
  } else if (n == "scf.if") {
    emitIf(op);
  } else if (n == "xe.oword_align_bits") {
    // 0 where only guards of dg2 block statements read it (their LSC messages need no oword
    // alignment; Dg2VisaBlock.h), else its operand.
    bool lsc = codegen_ == XeCodegen::Visa && onlyGuardsDg2VisaBlocks(op.result(), target_);
    set(op.result(), {lsc ? b_.getInt64(0) : get1(op.operand(0), op)});
  } else if (op.dialect() == "xe") {
    // Hardware ops (pvc/dg2): inline vISA (VisaEmitter.cpp) or Intel builtins (XeBuiltins.cpp).
    XeEmitContext xc = xeContext(op);
    std::optional<std::string> visa = emitVisaOp(op, xc, codegen_);
    if (std::string e = visa ? *visa : emitXeOp(op, xc); !e.empty()) fail(op, e);
  } else {
    fail(op, fmt::format("SPIR-V backend: '{}' is not a lane-level op (run the target's lowering first)", n));
  }
}

// ----- constants, arithmetic, conversions -----------------------------------------------------------

void KernelEmitter::emitConstant(ir::Operation& op) {
  const ir::Attribute* a = op.attr("value");
  if (!a) fail(op, "internal error: arith.constant without a value");
  const ir::Type& t = op.result()->type();
  ElemKind k = t.elem();
  llvm::Type* lt = regType(k, op);
  auto scalar = [&](double f, int64_t i, bool isF) -> llvm::Value* {
    if (k == ElemKind::BF16) {
      float x = static_cast<float>(isF ? f : static_cast<double>(i));
      // bf16 constants: round the f32 value to nearest even, keep the upper 16 bits.
      uint32_t u;
      std::memcpy(&u, &x, 4);
      uint32_t r = ((u >> 16) & 1u) + 0x7fffu;
      uint16_t bits = (x != x) ? static_cast<uint16_t>((u >> 16) | 0x40u) : static_cast<uint16_t>((u + r) >> 16);
      return b_.getInt16(bits);
    }
    if (isFloat(k)) return llvm::ConstantFP::get(lt, isF ? f : static_cast<double>(i));
    return llvm::ConstantInt::get(lt, static_cast<uint64_t>(isF ? static_cast<int64_t>(f) : i), true);
  };
  std::vector<llvm::Value*> r;
  size_t w = width(t);
  switch (a->kind()) {
    case AttrKind::Int: r.assign(w, scalar(0, a->getInt(), false)); break;
    case AttrKind::Bool: r.assign(w, scalar(0, a->getBool() ? 1 : 0, false)); break;
    case AttrKind::Float: r.assign(w, scalar(a->getFloat(), 0, true)); break;
    case AttrKind::Dense: {
      bool f = a->denseIsFloat();
      size_t n = f ? a->denseFloats().size() : a->denseInts().size();
      if (n != 1 && n != w) fail(op, "dense constant size does not match its type");
      for (size_t i = 0; i < w; ++i) {
        size_t j = n == 1 ? 0 : i;
        r.push_back(f ? scalar(a->denseFloats()[j], 0, true) : scalar(0, a->denseInts()[j], false));
      }
      break;
    }
    default: fail(op, "internal error: unsupported constant attribute " + a->str());
  }
  set(op.result(), r);
}

void KernelEmitter::emitBinary(ir::Operation& op) {
  const std::string& n = op.name();
  ElemKind k = op.result()->type().elem();
  if (k == ElemKind::BF16)
    fail(op, fmt::format("'{}' on bf16 is not implemented yet in the SPIR-V backend (convert to f32 first)", n));
  auto fmaxmin = [&](const char* name, llvm::Value* x, llvm::Value* y) {
    std::string mangled = fmt::format("_Z4{}{}{}", name, mangleCode(k), mangleCode(k));
    return call(builtin(mangled, x->getType(), {x->getType(), x->getType()}, false, true), {x, y});
  };
  std::vector<llvm::Value*> r;
  const auto& a = get(op.operand(0), op);
  if (n == "arith.negf") {
    for (llvm::Value* x : a) r.push_back(b_.CreateFNeg(x));
    set(op.result(), r);
    return;
  }
  if (op.numOperands() != 2) fail(op, fmt::format("SPIR-V backend: unsupported op '{}'", n));
  const auto& bv = get(op.operand(1), op);
  for (size_t i = 0; i < a.size(); ++i) {
    llvm::Value* x = a[i];
    llvm::Value* y = bv[i];
    llvm::Value* v = nullptr;
    if (n == "arith.addi") v = b_.CreateAdd(x, y);
    else if (n == "arith.subi") v = b_.CreateSub(x, y);
    else if (n == "arith.muli") v = b_.CreateMul(x, y);
    else if (n == "arith.divsi") v = b_.CreateSDiv(x, y);
    else if (n == "arith.divui") v = b_.CreateUDiv(x, y);
    else if (n == "arith.remsi") v = b_.CreateSRem(x, y);
    else if (n == "arith.remui") v = b_.CreateURem(x, y);
    else if (n == "arith.andi") v = b_.CreateAnd(x, y);
    else if (n == "arith.ori") v = b_.CreateOr(x, y);
    else if (n == "arith.xori") v = b_.CreateXor(x, y);
    else if (n == "arith.shli") v = b_.CreateShl(x, y);
    else if (n == "arith.shrsi") v = b_.CreateAShr(x, y);
    else if (n == "arith.shrui") v = b_.CreateLShr(x, y);
    else if (n == "arith.minsi") v = b_.CreateSelect(b_.CreateICmpSLT(x, y), x, y);
    else if (n == "arith.maxsi") v = b_.CreateSelect(b_.CreateICmpSGT(x, y), x, y);
    else if (n == "arith.minui") v = b_.CreateSelect(b_.CreateICmpULT(x, y), x, y);
    else if (n == "arith.maxui") v = b_.CreateSelect(b_.CreateICmpUGT(x, y), x, y);
    else if (n == "arith.ceildivsi" || n == "arith.floordivsi") {
      // Truncating quotient, then one step toward +inf (ceil) or -inf (floor) when the remainder is
      // non-zero and its sign agrees (ceil) or disagrees (floor) with the divisor's.
      llvm::Value* q = b_.CreateSDiv(x, y);
      llvm::Value* rem = b_.CreateSRem(x, y);
      llvm::Value* zero = llvm::ConstantInt::get(x->getType(), 0);
      llvm::Value* nonzero = b_.CreateICmpNE(rem, zero);
      llvm::Value* sameSign = b_.CreateICmpSGE(b_.CreateXor(rem, y), zero);
      if (n == "arith.ceildivsi")
        v = b_.CreateSelect(b_.CreateAnd(nonzero, sameSign), b_.CreateAdd(q, llvm::ConstantInt::get(x->getType(), 1)), q);
      else
        v = b_.CreateSelect(b_.CreateAnd(nonzero, b_.CreateNot(sameSign)),
                            b_.CreateSub(q, llvm::ConstantInt::get(x->getType(), 1)), q);
    }
    else if (n == "arith.addf") v = b_.CreateFAdd(x, y);
    else if (n == "arith.subf") v = b_.CreateFSub(x, y);
    else if (n == "arith.mulf") v = b_.CreateFMul(x, y);
    else if (n == "arith.divf") v = igcMathF32(x->getType()) ? emitXeDivF32(b_, m_, x, y) : b_.CreateFDiv(x, y);
    else if (n == "arith.maxf") v = fmaxmin("fmax", x, y);
    else if (n == "arith.minf") v = fmaxmin("fmin", x, y);
    else fail(op, fmt::format("SPIR-V backend: unsupported op '{}'", n));
    r.push_back(v);
  }
  set(op.result(), r);
}

void KernelEmitter::emitCompare(ir::Operation& op) {
  const ir::Attribute* p = op.attr("predicate");
  if (!p || !p->isa(AttrKind::Enum)) fail(op, "internal error: comparison without a predicate");
  const std::string& pr = p->getString();
  using P = llvm::CmpInst::Predicate;
  static const std::unordered_map<std::string, P> ipreds = {
      {"eq", P::ICMP_EQ},   {"ne", P::ICMP_NE},   {"slt", P::ICMP_SLT}, {"sle", P::ICMP_SLE}, {"sgt", P::ICMP_SGT},
      {"sge", P::ICMP_SGE}, {"ult", P::ICMP_ULT}, {"ule", P::ICMP_ULE}, {"ugt", P::ICMP_UGT}, {"uge", P::ICMP_UGE}};
  static const std::unordered_map<std::string, P> fpreds = {
      {"oeq", P::FCMP_OEQ}, {"one", P::FCMP_ONE}, {"olt", P::FCMP_OLT}, {"ole", P::FCMP_OLE}, {"ogt", P::FCMP_OGT},
      {"oge", P::FCMP_OGE}, {"une", P::FCMP_UNE}, {"ord", P::FCMP_ORD}, {"uno", P::FCMP_UNO}};
  bool isF = op.is("arith.cmpf");
  const auto& table = isF ? fpreds : ipreds;
  auto it = table.find(pr);
  if (it == table.end()) fail(op, "internal error: unknown predicate " + pr);
  ElemKind k = op.operand(0)->type().elem();
  if (isF && k == ElemKind::BF16) fail(op, "arith.cmpf on bf16 is not implemented yet in the SPIR-V backend (convert to f32 first)");
  const auto& a = get(op.operand(0), op);
  const auto& bv = get(op.operand(1), op);
  std::vector<llvm::Value*> r;
  for (size_t i = 0; i < a.size(); ++i) r.push_back(b_.CreateCmp(it->second, a[i], bv[i]));
  set(op.result(), r);
}

llvm::Value* KernelEmitter::bf16ToF32(llvm::Value* bits) {
  return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16), b_.getFloatTy());
}

llvm::Value* KernelEmitter::f32ToBf16(llvm::Value* f) {
  // Round to nearest even on the bits: add 0x7fff plus the lowest kept bit, keep the upper half.
  // NaN stays NaN (quiet bit forced) instead of rounding into infinity.
  llvm::Value* u = b_.CreateBitCast(f, b_.getInt32Ty());
  llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(u, 16), 1);
  llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(u, b_.CreateAdd(lsb, b_.getInt32(0x7fff))), 16);
  llvm::Value* quiet = b_.CreateOr(b_.CreateLShr(u, 16), 0x40);
  llvm::Value* isNan = b_.CreateFCmpUNO(f, f);
  return b_.CreateTrunc(b_.CreateSelect(isNan, quiet, rounded), b_.getInt16Ty());
}

// An i32/i64 (signed) or f64 value rounded to odd into f32: the f32 truncation of the value with its
// last bit set when anything below it was lost. Rounding that to nearest even in bf16 (8 significant
// bits, at least two fewer) is the single rounding of the original value, as the interpreter rounds
// (Numeric.cpp): sitofp or fptrunc followed by f32ToBf16 rounded twice (2^24 + 2^16 + 1 gave 2^24,
// not 2^24 + 2^17). Integers: the magnitude keeps its bits from the leading one down 23 or 24 places
// (the position taken from uitofp's exponent, one too high when that rounded up to a power of two,
// which still keeps 23), the last of them ORed with "a lower bit was set"; then uitofp is exact.
// f64: fptrunc (nearest), stepped one toward zero when it rounded away from zero, then the last bit
// set when inexact (an overflow to inf becomes FLT_MAX | 1, which rounds to inf again).
llvm::Value* KernelEmitter::toF32Odd(llvm::Value* v, ElemKind from) {
  llvm::Type* f32 = b_.getFloatTy();
  llvm::Type* i32 = b_.getInt32Ty();
  if (from == ElemKind::F64) {
    llvm::Value* f = b_.CreateFPTrunc(v, f32);
    llvm::Value* back = b_.CreateFPExt(f, v->getType());
    llvm::Value* inexact = b_.CreateFCmpONE(back, v);
    llvm::Value* zero = llvm::ConstantFP::get(v->getType(), 0.0);
    llvm::Value* away = b_.CreateSelect(b_.CreateFCmpOLT(v, zero), b_.CreateFCmpOLT(back, v), b_.CreateFCmpOGT(back, v));
    llvm::Value* u = b_.CreateBitCast(f, i32);
    u = b_.CreateSelect(b_.CreateAnd(inexact, away), b_.CreateSub(u, b_.getInt32(1)), u);
    u = b_.CreateSelect(inexact, b_.CreateOr(u, 1), u);
    return b_.CreateBitCast(u, f32);
  }
  llvm::Type* it = v->getType();
  llvm::Value* zero = llvm::ConstantInt::get(it, 0);
  llvm::Value* neg = b_.CreateICmpSLT(v, zero);
  llvm::Value* a = b_.CreateSelect(neg, b_.CreateSub(zero, v), v);  // INT_MIN: 2^(w-1) as unsigned
  llvm::Value* e = b_.CreateAnd(b_.CreateLShr(b_.CreateBitCast(b_.CreateUIToFP(a, f32), i32), 23), 0xff);
  llvm::Value* sh = b_.CreateSub(e, b_.getInt32(127 + 23));
  sh = b_.CreateSelect(b_.CreateICmpSGT(sh, b_.getInt32(0)), sh, b_.getInt32(0));
  sh = b_.CreateZExtOrTrunc(sh, it);
  llvm::Value* mask = b_.CreateSub(b_.CreateShl(llvm::ConstantInt::get(it, 1), sh), llvm::ConstantInt::get(it, 1));
  llvm::Value* sticky = b_.CreateZExt(b_.CreateICmpNE(b_.CreateAnd(a, mask), zero), it);
  llvm::Value* r = b_.CreateOr(b_.CreateAnd(a, b_.CreateNot(mask)), b_.CreateShl(sticky, sh));
  llvm::Value* g = b_.CreateUIToFP(r, f32);
  return b_.CreateSelect(neg, b_.CreateFNeg(g), g);
}

// Float to integer saturates and NaN gives 0, the interpreter's arith.convert (docs/run.md): a
// bare fptosi is poison out of range (the CPU device turned 300.0 into -40 as i8 and 3e9 into
// INT_MIN as i32). 2^(w-1) is exact in every float type or, for f16 and w >= 17, rounds to +inf,
// which no finite f16 reaches (so fptosi is in range there). fptosi's value is only selected where
// it is defined.
llvm::Value* KernelEmitter::floatToIntSat(llvm::Value* v, llvm::Type* dst) {
  unsigned w = dst->getIntegerBitWidth();
  double lim = std::ldexp(1.0, static_cast<int>(w) - 1);
  llvm::Value* r = b_.CreateFPToSI(v, dst);
  r = b_.CreateSelect(b_.CreateFCmpOGE(v, llvm::ConstantFP::get(v->getType(), lim)),
                      llvm::ConstantInt::get(dst, llvm::APInt::getSignedMaxValue(w)), r);
  r = b_.CreateSelect(b_.CreateFCmpOLT(v, llvm::ConstantFP::get(v->getType(), -lim)),
                      llvm::ConstantInt::get(dst, llvm::APInt::getSignedMinValue(w)), r);
  return b_.CreateSelect(b_.CreateFCmpUNO(v, v), llvm::ConstantInt::get(dst, 0), r);
}

llvm::Value* KernelEmitter::convertScalar(llvm::Value* v, ElemKind from, ElemKind to, const ir::Operation& op) {
  if (from == to) return v;
  if (from == ElemKind::BF16) return convertScalar(bf16ToF32(v), ElemKind::F32, to, op);
  if (to == ElemKind::BF16) {
    bool wide = from == ElemKind::F64 || (ir::isIntElem(from) && from != ElemKind::I1 && regType(from, op)->getIntegerBitWidth() > 24);
    return f32ToBf16(wide ? toF32Odd(v, from) : convertScalar(v, from, ElemKind::F32, op));
  }
  llvm::Type* dst = regType(to, op);
  bool fFrom = isFloat(from), fTo = isFloat(to);
  if (fFrom && fTo) return b_.CreateFPCast(v, dst);
  if (fFrom && !fTo) {
    if (to == ElemKind::I1) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return floatToIntSat(v, dst);
  }
  if (from == ElemKind::I1) return fTo ? b_.CreateUIToFP(v, dst) : b_.CreateZExt(v, dst);  // unsigned, as MLIR: true is 1
  if (!fFrom && fTo) return b_.CreateSIToFP(v, dst);
  if (to == ElemKind::I1) return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  return b_.CreateSExtOrTrunc(v, dst);
}

void KernelEmitter::emitConvert(ir::Operation& op) {
  ElemKind from = op.operand(0)->type().elem(), to = op.result()->type().elem();
  const auto& a = get(op.operand(0), op);
  std::vector<llvm::Value*> r;
  bool bitcast = op.is("arith.bitcast");
  for (llvm::Value* x : a) {
    if (bitcast) {
      llvm::Type* dst = regType(to, op);
      r.push_back(x->getType() == dst ? x : b_.CreateBitCast(x, dst));
    } else {
      r.push_back(convertScalar(x, from, to, op));
    }
  }
  set(op.result(), r);
}

void KernelEmitter::emitMath(ir::Operation& op) {
  ElemKind k = op.result()->type().elem();
  if (!isFloat(k)) fail(op, fmt::format("'{}' on {} is not implemented yet in the SPIR-V backend (it takes f16, f32 or f64: convert to f32 first)",
                                       op.name(), ir::elemName(k)));
  std::string name = op.is("lane.fma") ? "fma" : op.name().substr(op.name().find('.') + 1);
  static const std::unordered_map<std::string, std::string> clName = {
      {"exp", "exp"},   {"exp2", "exp2"}, {"log", "log"},     {"log2", "log2"}, {"sqrt", "sqrt"},
      {"rsqrt", "rsqrt"}, {"tanh", "tanh"}, {"abs", "fabs"}, {"sin", "sin"},   {"cos", "cos"},
      {"floor", "floor"}, {"ceil", "ceil"}, {"fma", "fma"}};
  auto it = clName.find(name);
  if (it == clName.end()) fail(op, fmt::format("SPIR-V backend: unsupported op '{}'", op.name()));
  unsigned nargs = op.numOperands();
  std::string mangled = fmt::format("_Z{}{}", it->second.size(), it->second);
  for (unsigned i = 0; i < nargs; ++i) mangled += mangleCode(k);
  llvm::Type* t = regType(k, op);
  bool igcExp = name == "exp" && igcMathF32(t);
  llvm::Function* f = igcExp ? nullptr : builtin(mangled, t, std::vector<llvm::Type*>(nargs, t), false, true);
  std::vector<std::vector<llvm::Value*>> args;
  for (unsigned i = 0; i < nargs; ++i) args.push_back(get(op.operand(i), op));
  std::vector<llvm::Value*> r;
  for (size_t e = 0; e < args[0].size(); ++e) {
    std::vector<llvm::Value*> a;
    for (auto& arg : args) a.push_back(arg[e]);
    r.push_back(igcExp ? emitXeExpF32(b_, m_, a[0]) : call(f, a));
  }
  set(op.result(), r);
}

// The subgroup id. On pvc/dg2 with an N x 1 x 1 workgroup it is local_id(0) of lane 0 over the
// subgroup size, computed once at the kernel's entry (where every lane is active, as the broadcast
// needs): IGC dispatches each hardware thread of a 1-D workgroup with S consecutive local ids (the
// CPU device that runs --emulate-xe forms its subgroups the same way: tests/golden/run), and this
// costs the per-thread payload load, a broadcast and a shift, where IGC 1.0.12504's
// get_sub_group_id copies r0 byte by byte (31 movs; tests/isa/builtins/subgroup_id_pvc_wg32.ir).
// Elsewhere the builtin.
llvm::Value* KernelEmitter::emitSubgroupId() {
  llvm::Value* lid = b_.CreateTrunc(idBuiltin("_Z12get_local_idj", 0), b_.getInt32Ty());
  llvm::Function* bc = builtin("_Z19sub_group_broadcastjj", b_.getInt32Ty(), {b_.getInt32Ty(), b_.getInt32Ty()}, true, false);
  unsigned log2S = 0;
  while ((1u << log2S) < target_.subgroupSize) ++log2S;
  return b_.CreateZExt(b_.CreateLShr(call(bc, {lid, b_.getInt32(0)}), b_.getInt32(log2S)), b_.getInt64Ty());
}

void KernelEmitter::emitId(ir::Operation& op) {
  const std::string& n = op.name();
  int dim = static_cast<int>(op.intAttr("dim", 0));
  if (n == "gpu.barrier") {
    // CLK_LOCAL_MEM_FENCE (1): the workgroup barrier also orders SLM accesses.
    llvm::Function* f = builtin("_Z7barrierj", b_.getVoidTy(), {b_.getInt32Ty()}, true, false);
    call(f, {b_.getInt32(1)});
    return;
  }
  llvm::Value* v = nullptr;
  if (n == "gpu.group_id") v = idBuiltin("_Z12get_group_idj", dim);
  else if (n == "gpu.num_groups") v = idBuiltin("_Z14get_num_groupsj", dim);
  else if (n == "gpu.local_id") v = idBuiltin("_Z12get_local_idj", dim);
  else if (n == "gpu.local_size") v = idBuiltin("_Z14get_local_sizej", dim);
  else if (n == "gpu.lane_id") v = idBuiltin("_Z22get_sub_group_local_idv", -1);
  else if (n == "gpu.subgroup_id") v = sgId_ ? sgId_ : idBuiltin("_Z16get_sub_group_idv", -1);
  else if (n == "gpu.num_subgroups") v = idBuiltin("_Z18get_num_sub_groupsv", -1);
  else if (n == "gpu.subgroup_size") v = b_.getInt64(target_.subgroupSize);  // required size, a constant
  else fail(op, fmt::format("SPIR-V backend: '{}' is not implemented yet", n));
  set(op.result(), {v});
}

// ----- memory ----------------------------------------------------------------------------------------

llvm::Value* KernelEmitter::inBounds(const MemRefValue& m, const std::vector<llvm::Value*>& idx, llvm::Value* mask) {
  llvm::Value* ok = mask;
  for (size_t d = 0; d < idx.size(); ++d) {
    llvm::Value* c = b_.CreateICmpULT(idx[d], m.dims[d]);
    ok = ok ? b_.CreateAnd(ok, c) : c;
  }
  return ok ? ok : b_.getTrue();
}

llvm::Value* KernelEmitter::elementPtr(const MemRefValue& m, const std::vector<llvm::Value*>& idx,
                                       const ir::Operation& op) {
  // Dense row-major: ((i0 * d1 + i1) * d2 + i2) ...
  llvm::Value* lin = idx[0];
  for (size_t d = 1; d < idx.size(); ++d) lin = b_.CreateAdd(b_.CreateMul(lin, m.dims[d]), idx[d]);
  return b_.CreateInBoundsGEP(memType(m.elem, op), m.ptr, lin);
}

llvm::Value* KernelEmitter::predicatedLane(const ir::Operation& op, const MemRefValue& m, const std::vector<llvm::Value*>& idx,
                                           llvm::Value* mask, llvm::Value* data, bool store) {
  // pvc (16 lanes: the statement's execution size), vISA mode, global memory, and one index to
  // check: every other one a constant inside its static extent (VisaLanes.h); else the branch form.
  if (target_.kind != targets::TargetKind::Pvc || target_.subgroupSize != 16 || codegen_ != XeCodegen::Visa ||
      m.ptr->getType()->getPointerAddressSpace() != 1)
    return nullptr;
  int checked = -1;
  for (size_t d = 0; d < idx.size(); ++d) {
    auto* i = llvm::dyn_cast<llvm::ConstantInt>(idx[d]);
    auto* n = llvm::dyn_cast<llvm::ConstantInt>(m.dims[d]);
    if (i && n && i->getZExtValue() < n->getZExtValue()) continue;
    if (checked >= 0) return nullptr;
    checked = static_cast<int>(d);
  }
  if (checked < 0) return nullptr;
  llvm::Value* addr = b_.CreatePtrToInt(elementPtr(m, idx, op), b_.getInt64Ty());
  auto c = static_cast<size_t>(checked);
  LaneMessage lm{store, m.elem, addr, idx[c], m.dims[c], mask ? mask : b_.getTrue(), data};
  std::optional<llvm::Value*> r = emitPredicatedLaneMessage(b_, lm);
  if (!r) {
    // Not this form: drop the address (ptrtoint, then its GEP) so the branch form's output is unchanged.
    for (llvm::Value* v = addr; auto* dead = llvm::dyn_cast_or_null<llvm::Instruction>(v);) {
      if (!dead->use_empty()) break;
      v = dead->getNumOperands() ? dead->getOperand(0) : nullptr;
      dead->eraseFromParent();
    }
    return nullptr;
  }
  return store ? addr : *r;  // a store: any non-null value says it was emitted
}

bool KernelEmitter::rangeTests(llvm::Value* mask, std::vector<llvm::ICmpInst*>& tests) {
  std::vector<llvm::Value*> leaves{mask};
  while (!leaves.empty()) {
    llvm::Value* v = leaves.back();
    leaves.pop_back();
    if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(v); bo && bo->getOpcode() == llvm::Instruction::And) {
      leaves.push_back(bo->getOperand(0));
      leaves.push_back(bo->getOperand(1));
      continue;
    }
    auto* c = llvm::dyn_cast<llvm::ICmpInst>(v);
    if (!c || c->getPredicate() != llvm::CmpInst::ICMP_ULT || !c->getOperand(0)->getType()->isIntegerTy(64)) return false;
    tests.push_back(c);
  }
  return true;
}

std::pair<llvm::Value*, llvm::Value*> KernelEmitter::baseAndConstant(llvm::Value* x) {
  // x = base + k: an add of a constant, or an `or` with a constant whose bits the base lacks (how
  // instcombine writes m + k for m a multiple of a power of two).
  auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(x);
  auto* k = bo ? llvm::dyn_cast<llvm::ConstantInt>(bo->getOperand(1)) : nullptr;
  if (!k) return {nullptr, nullptr};
  if (bo->getOpcode() == llvm::Instruction::Add ||
      (bo->getOpcode() == llvm::Instruction::Or && llvm::haveNoCommonBitsSet(bo->getOperand(0), k, m_.getDataLayout())))
    return {bo->getOperand(0), k};
  return {nullptr, nullptr};
}

bool KernelEmitter::maskedLaneStore(const ir::Operation& op, const MemRefValue& m, const std::vector<llvm::Value*>& idx,
                                    llvm::Value* mask, llvm::Value* val) {
  // A lane.store {in_bounds}: its indices are inside the memref wherever the mask is on (lower-xe's
  // surface fallback: the mask is the bounds test). pvc, vISA mode, global memory, 8/16/32/64-bit data and
  // a mask that is an AND of unsigned range tests of i64 values: the tests become one bit mask, as
  // a lane.load's padding (inBoundsPadding), and the store one predicated scatter (VisaLanes.h). The
  // offset is 32-bit (inside a buffer below 4 GiB wherever the mask is on; elsewhere the address is
  // never used). Else the branch form (emitStore), whose own bounds test agrees with the promise.
  if (target_.kind != targets::TargetKind::Pvc || target_.subgroupSize != 16 || codegen_ != XeCodegen::Visa ||
      m.ptr->getType()->getPointerAddressSpace() != 1 ||
      (m.elem != ElemKind::F32 && m.elem != ElemKind::I32 && m.elem != ElemKind::I64 && m.elem != ElemKind::Index &&
       m.elem != ElemKind::F16 && m.elem != ElemKind::BF16 && m.elem != ElemKind::I16 && m.elem != ElemKind::I8))
    return false;
  std::vector<llvm::ICmpInst*> tests;
  if (!rangeTests(mask, tests)) return false;
  llvm::Value* all = nullptr;
  // x <u n as a bit mask, ((x - n) & ~x) >>s 63 (inBoundsPadding); for x = base + k (k a constant:
  // the tile's offset plus a register's row or column) written from the base, (base - (n - k)) &
  // (~base - k): the same value, but with no use of x itself. Why: the rows of a C tile are the rows
  // of the A tile the edge loop gathered (m + k both), and IGC kept those values from before the
  // edge loop alive across it for the stores and spilled them (gemm_bf16: 185 -> 120 spills; the
  // 32-bit offset below, written the same way, 120 -> 43).
  for (llvm::ICmpInst* c : tests) {
    llvm::Value* x = c->getOperand(0);
    llvm::Value* n = c->getOperand(1);
    llvm::Value* t = nullptr;
    if (auto [base, k] = baseAndConstant(x); base)
      t = b_.CreateAShr(b_.CreateAnd(b_.CreateSub(base, b_.CreateSub(n, k)), b_.CreateSub(b_.CreateNot(base), k)), 63);
    else
      t = b_.CreateAShr(b_.CreateAnd(b_.CreateSub(x, n), b_.CreateNot(x)), 63);
    all = all ? b_.CreateAnd(all, t) : t;
  }
  llvm::Type* mt = memType(m.elem, op);
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Value* p = m.ptr;
  size_t rank = idx.size();
  for (size_t d = 0; d + 1 < rank; ++d) {
    llvm::Value* stride = nullptr;
    for (size_t e = d + 1; e < rank; ++e) {
      llvm::Value* n = b_.CreateTrunc(m.dims[e], i32);
      stride = stride ? b_.CreateMul(stride, n) : n;
    }
    // Wrapping i32 products: wherever the mask is on the whole offset is below 2^32, so its value
    // mod 2^32 is the offset.
    llvm::Value* lin = nullptr;
    if (auto [base, k] = baseAndConstant(idx[d]); base)
      lin = b_.CreateAdd(b_.CreateMul(b_.CreateTrunc(base, i32), stride), b_.CreateMul(b_.CreateTrunc(k, i32), stride));
    else
      lin = b_.CreateMul(b_.CreateTrunc(idx[d], i32), stride);
    p = b_.CreateInBoundsGEP(mt, p, b_.CreateZExt(lin, b_.getInt64Ty()));
  }
  llvm::Value* last = b_.CreateZExt(b_.CreateTrunc(idx[rank - 1], i32), b_.getInt64Ty());
  llvm::Value* addr = b_.CreatePtrToInt(b_.CreateInBoundsGEP(mt, p, last), b_.getInt64Ty());
  return emitMaskedLaneStore(b_, m.elem, addr, b_.CreateTrunc(all, i32), val).has_value();
}

llvm::Value* KernelEmitter::clampedRowOffset(const MemRefValue& m, const std::vector<llvm::Value*>& idx, size_t d) {
  // idx[d] = umin(trunc(x), last) zero-extended (lower-xe's clamp, surfaceLaneLoadValue), x = base + k:
  // the offset umin(trunc(x), last) x stride as select(trunc(x) <=u last, base x stride + k x stride,
  // last x stride), the same value mod 2^32. Why: each row's own 32-bit multiply by a run-time stride
  // is a mul + macl on pvc whose result IGC puts in a GRF of its own (a 48-row B tile: 48 GRFs, and
  // the spills of the 128-GRF edge loops); here one multiply per base and one for `last`, shared by
  // the rows, and per row an add of a multiply by a constant, a compare and a select.
  using namespace llvm::PatternMatch;
  llvm::Value *x = nullptr, *last = nullptr;
  auto clamp = m_UMin(m_Trunc(m_Value(x)), m_Value(last));
  if (!match(idx[d], m_c_And(m_SExt(clamp), m_SpecificInt(0xffffffff))) && !match(idx[d], m_ZExt(clamp))) return nullptr;
  auto [base, k] = baseAndConstant(x);
  if (!base) return nullptr;
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Value* stride = nullptr;
  for (size_t e = d + 1; e < m.dims.size(); ++e) {
    llvm::Value* n = b_.CreateTrunc(m.dims[e], i32);
    stride = stride ? b_.CreateMul(stride, n) : n;
  }
  llvm::Value* tx = b_.CreateTrunc(x, i32);
  llvm::Value* at = b_.CreateAdd(b_.CreateMul(b_.CreateTrunc(base, i32), stride), b_.CreateMul(b_.CreateTrunc(k, i32), stride));
  return b_.CreateSelect(b_.CreateICmpULE(tx, last), at, b_.CreateMul(last, stride));
}

llvm::Value* KernelEmitter::emptyReadBase(const MemRefValue& m) {
  // An in_bounds lane.load's indices are inside its memref when it has an element; an empty one
  // (a dim 0) has none to read, and its buffer may be a single byte (docs/abi.md), so the load reads
  // its clamped indices (0, lower-xe's surface fallback makes them) from a module constant of zero
  // bytes instead, and its mask (false: no index is below 0) selects the padding. One uniform select
  // per memref, no branch.
  llvm::Value* nonEmpty = nullptr;
  for (llvm::Value* d : m.dims) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(d); c && !c->isZero()) continue;
    llvm::Value* ne = b_.CreateICmpNE(d, llvm::ConstantInt::get(d->getType(), 0));
    nonEmpty = nonEmpty ? b_.CreateAnd(nonEmpty, ne) : ne;
  }
  if (!nonEmpty) return m.ptr;
  if (!emptyRead_) {
    // 16 bytes: the widest element a lane.load reads (i64, f64, index: 8), aligned for it.
    auto* t = llvm::ArrayType::get(b_.getInt8Ty(), 16);
    emptyRead_ = new llvm::GlobalVariable(m_, t, true, llvm::GlobalValue::InternalLinkage, llvm::ConstantAggregateZero::get(t),
                                          "xtc_empty_read", nullptr, llvm::GlobalValue::NotThreadLocal, 1);
    emptyRead_->setAlignment(llvm::Align(16));
  }
  return b_.CreateSelect(nonEmpty, m.ptr, b_.CreatePointerCast(emptyRead_, m.ptr->getType()));
}

llvm::Value* KernelEmitter::inBoundsPadding(llvm::Value* mask, llvm::Value* val, llvm::Value* pad) {
  // A mask that is an AND of unsigned range tests of i64 indices (x <u n, n a size: below 2^63)
  // applies as a bit mask on the element's bits: x <u n iff x >= 0 and x - n < 0 as signed values,
  // so ((x - n) & ~x) >>s 63 is all ones inside and 0 outside, and the element is ANDed with the
  // leaves' masks (the padding ORed in under the complement). Why: a select on the i1 AND of two
  // compares made IGC keep each compare as a flag, turn both into words with a `sel` each, AND
  // them and save the flag to a register again, ~6 instructions a register of lower-xe's
  // surface-fallback gathers; the mask is one `and` (two for a row and a column test), shared
  // tests computed once. Anything else: a select.
  std::vector<llvm::ICmpInst*> tests;
  if (!rangeTests(mask, tests)) return b_.CreateSelect(mask, val, pad);
  unsigned bits = val->getType()->getPrimitiveSizeInBits();
  if (bits == 0 || bits > 64) return b_.CreateSelect(mask, val, pad);
  llvm::Value* all = nullptr;
  for (llvm::ICmpInst* c : tests) {
    llvm::Value* x = c->getOperand(0);
    llvm::Value* m = b_.CreateAShr(b_.CreateAnd(b_.CreateSub(x, c->getOperand(1)), b_.CreateNot(x)), 63);
    all = all ? b_.CreateAnd(all, m) : m;
  }
  llvm::Type* it = b_.getIntNTy(bits);
  llvm::Value* m = b_.CreateTrunc(all, it);
  llvm::Value* r = b_.CreateAnd(b_.CreateBitCast(val, it), m);
  if (!llvm::isa<llvm::Constant>(pad) || !llvm::cast<llvm::Constant>(pad)->isNullValue())
    r = b_.CreateOr(r, b_.CreateAnd(b_.CreateBitCast(pad, it), b_.CreateNot(m)));
  return b_.CreateBitCast(r, val->getType());
}

void KernelEmitter::emitLoad(ir::Operation& op) {
  const MemRefValue& m = mem(op.operand(0), op);
  size_t rank = m.dims.size();
  std::vector<llvm::Value*> idx;
  for (size_t d = 0; d < rank; ++d) idx.push_back(get1(op.operand(static_cast<unsigned>(1 + d)), op));
  llvm::Value* mask = op.numOperands() == 2 + rank ? get1(op.operand(static_cast<unsigned>(1 + rank)), op) : nullptr;
  llvm::Type* rt = regType(m.elem, op);
  llvm::Value* pad = nullptr;
  const ir::Attribute* p = op.attr("padding");
  double pf = 0;
  int64_t pi = 0;
  if (p && p->isa(AttrKind::Float)) pf = p->getFloat(), pi = static_cast<int64_t>(pf);
  if (p && p->isa(AttrKind::Int)) pi = p->getInt(), pf = static_cast<double>(pi);
  if (m.elem == ElemKind::BF16) {
    pad = f32ToBf16(llvm::ConstantFP::get(b_.getFloatTy(), pf));  // IRBuilder folds it to a constant
  } else if (isFloat(m.elem)) {
    pad = llvm::ConstantFP::get(rt, pf);
  } else {
    pad = llvm::ConstantInt::get(rt, static_cast<uint64_t>(pi), true);
  }

  if (op.boolAttr("in_bounds")) {
    // The producer proved the indices inside the memref (lower-xe's surface fallback clamps them):
    // read the element without a bounds check or branch and select the padding where the mask is
    // off. Inside the memref, the element's offset is below its allocation's size, below 4 GiB
    // (docs/abi.md), so the row offset (row x d1, shared by the row's registers) and the column
    // are 32-bit values: a 64-bit multiply is emulated on pvc (a dozen instructions a row).
    llvm::Type* mt = memType(m.elem, op);
    llvm::Value* p = emptyReadBase(m);
    llvm::Type* i32 = b_.getInt32Ty();
    for (size_t d = 0; d + 1 < rank; ++d) {
      llvm::Value* lin = clampedRowOffset(m, idx, d);
      if (!lin) {
        lin = b_.CreateTrunc(idx[d], i32);
        for (size_t e = d + 1; e < rank; ++e) lin = b_.CreateNUWMul(lin, b_.CreateTrunc(m.dims[e], i32));
      }
      p = b_.CreateInBoundsGEP(mt, p, b_.CreateZExt(lin, b_.getInt64Ty()));
    }
    llvm::Value* last = b_.CreateZExt(b_.CreateTrunc(idx[rank - 1], i32), b_.getInt64Ty());
    llvm::Value* at = b_.CreateInBoundsGEP(mt, p, last);
    // A masked float is read as the integer of its width and masked as that (inBoundsPadding works
    // on the bits anyway), then cast: a load whose only user is a bitcast is replaced by instcombine
    // with a load of the cast's type, which drops the xtc.gather tag (f16 gathers: no sinking, and
    // gemm_cmb_pf_f16_256x256 spilled 141 where its bf16 twin, read as i16 already, spilled none).
    llvm::Type* lt = mask && mt->isFloatingPointTy() ? b_.getIntNTy(mt->getPrimitiveSizeInBits()) : mt;
    if (lt != mt) at = b_.CreateBitCast(at, llvm::PointerType::get(lt, m.ptr->getType()->getPointerAddressSpace()));
    llvm::LoadInst* ld = b_.CreateLoad(lt, at);
    ld->setAlignment(llvm::Align(mt->getPrimitiveSizeInBits() / 8));
    // SpirvBackend.cpp's sinkGathers may move it down to the DPAS that consumes it.
    ld->setMetadata("xtc.gather", llvm::MDNode::get(ctx_, {}));
    llvm::Value* val = m.elem == ElemKind::I1 ? b_.CreateICmpNE(ld, b_.getInt8(0)) : static_cast<llvm::Value*>(ld);
    if (lt != mt) {
      set(op.result(), {b_.CreateBitCast(inBoundsPadding(mask, val, b_.CreateBitCast(pad, lt)), mt)});
      return;
    }
    set(op.result(), {mask ? inBoundsPadding(mask, val, pad) : val});
    return;
  }
  if (llvm::Value* v = predicatedLane(op, m, idx, mask, pad, false)) {
    set(op.result(), {v});
    return;
  }
  llvm::Value* ok = inBounds(m, idx, mask);
  if (flatLaneLoad(m)) {
    // The element when in bounds, else the memref's first byte, and the padding selected in: no
    // branch (see flatLaneLoad).
    llvm::Type* mt = memType(m.elem, op);
    llvm::LoadInst* ld = b_.CreateLoad(mt, b_.CreateSelect(ok, elementPtr(m, idx, op), m.ptr));
    ld->setAlignment(llvm::Align(1));
    llvm::Value* val = m.elem == ElemKind::I1 ? b_.CreateICmpNE(ld, b_.getInt8(0)) : static_cast<llvm::Value*>(ld);
    set(op.result(), {b_.CreateSelect(ok, val, pad)});
    return;
  }
  llvm::BasicBlock* from = b_.GetInsertBlock();
  llvm::BasicBlock* doLoad = llvm::BasicBlock::Create(ctx_, "load", fn_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "load.end", fn_);
  b_.CreateCondBr(ok, doLoad, merge);
  b_.SetInsertPoint(doLoad);
  llvm::Type* mt = memType(m.elem, op);
  llvm::LoadInst* ld = b_.CreateLoad(mt, elementPtr(m, idx, op));
  ld->setAlignment(llvm::Align(mt->getPrimitiveSizeInBits() / 8));
  llvm::Value* val = m.elem == ElemKind::I1 ? b_.CreateICmpNE(ld, b_.getInt8(0)) : static_cast<llvm::Value*>(ld);
  llvm::BasicBlock* loadEnd = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(rt, 2);
  phi->addIncoming(pad, from);
  phi->addIncoming(val, loadEnd);
  set(op.result(), {phi});
}

void KernelEmitter::emitStore(ir::Operation& op) {
  const MemRefValue& m = mem(op.operand(1), op);
  size_t rank = m.dims.size();
  llvm::Value* val = get1(op.operand(0), op);
  std::vector<llvm::Value*> idx;
  for (size_t d = 0; d < rank; ++d) idx.push_back(get1(op.operand(static_cast<unsigned>(2 + d)), op));
  llvm::Value* mask = op.numOperands() == 3 + rank ? get1(op.operand(static_cast<unsigned>(2 + rank)), op) : nullptr;
  if (op.is("lane.store") && op.boolAttr("in_bounds") && mask && maskedLaneStore(op, m, idx, mask, val)) return;
  if (op.is("lane.store") && predicatedLane(op, m, idx, mask, val, true)) return;
  llvm::Value* ok = inBounds(m, idx, mask);
  llvm::BasicBlock* from = b_.GetInsertBlock();
  llvm::BasicBlock* doStore = llvm::BasicBlock::Create(ctx_, "store", fn_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "store.end", fn_);
  b_.CreateCondBr(ok, doStore, merge);
  b_.SetInsertPoint(doStore);
  if (op.is("lane.atomic")) {  // EmitMemory.cpp; a lane that does nothing gets 0 as its old value
    llvm::Value* old = nullptr;
    if (std::string e = emitAtomicRmw(b_, op.attr("kind")->getString(), m.elem, elementPtr(m, idx, op), val, &old); !e.empty())
      fail(op, e);
    llvm::BasicBlock* end = b_.GetInsertBlock();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode* phi = b_.CreatePHI(val->getType(), 2);
    phi->addIncoming(llvm::Constant::getNullValue(val->getType()), from);
    phi->addIncoming(old, end);
    set(op.result(), {phi});
    return;
  }
  llvm::Type* mt = memType(m.elem, op);
  if (m.elem == ElemKind::I1) val = b_.CreateZExt(val, b_.getInt8Ty());
  llvm::StoreInst* st = b_.CreateStore(val, elementPtr(m, idx, op));
  st->setAlignment(llvm::Align(mt->getPrimitiveSizeInBits() / 8));
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
}

// ----- subgroup ops ----------------------------------------------------------------------------------

llvm::Value* KernelEmitter::toLaneBits(llvm::Value* v, ElemKind k, ElemKind* carried) {
  // sub_group_broadcast/shuffle are defined for 32- and 64-bit types (and half with an extension);
  // narrower values travel as the low bits of an int.
  switch (k) {
    case ElemKind::I1:
    case ElemKind::I8:
    case ElemKind::I16:
    case ElemKind::BF16:
      *carried = ElemKind::I32;
      return b_.CreateZExt(v, b_.getInt32Ty());
    case ElemKind::F16:
      *carried = ElemKind::I32;
      return b_.CreateZExt(b_.CreateBitCast(v, b_.getInt16Ty()), b_.getInt32Ty());
    default: *carried = k; return v;
  }
}

llvm::Value* KernelEmitter::fromLaneBits(llvm::Value* v, ElemKind k) {
  switch (k) {
    case ElemKind::I1: return b_.CreateTrunc(v, b_.getInt1Ty());
    case ElemKind::I8: return b_.CreateTrunc(v, b_.getInt8Ty());
    case ElemKind::I16:
    case ElemKind::BF16: return b_.CreateTrunc(v, b_.getInt16Ty());
    case ElemKind::F16: return b_.CreateBitCast(b_.CreateTrunc(v, b_.getInt16Ty()), b_.getHalfTy());
    default: return v;
  }
}

void KernelEmitter::emitCrossLane(ir::Operation& op) {
  ElemKind k = op.result()->type().elem();
  ElemKind carried;
  llvm::Value* x = toLaneBits(get1(op.operand(0), op), k, &carried);
  llvm::Value* lane = b_.CreateTrunc(get1(op.operand(1), op), b_.getInt32Ty());
  // sub_group_broadcast -> OpGroupBroadcast; sub_group_shuffle (cl_khr_subgroup_shuffle) ->
  // OpGroupNonUniformShuffle. Both are convergent: every lane of the subgroup executes them.
  std::string base = op.is("lane.broadcast") ? "sub_group_broadcast" : "sub_group_shuffle";
  std::string mangled = fmt::format("_Z{}{}{}j", base.size(), base, mangleCode(carried));
  llvm::Function* f = builtin(mangled, x->getType(), {x->getType(), b_.getInt32Ty()}, true, false);
  set(op.result(), {fromLaneBits(call(f, {x, lane}), k)});
}

namespace {

// Whether the index `v` is the same in every lane by construction: constants, kernel arguments,
// memref extents and base addresses, group and subgroup ids, sizes and counts, the induction
// variable of a loop whose bounds are, and integer arithmetic of such values. Anything else (a lane id, a loaded or
// loop-carried value) counts as differing between lanes.
bool uniformIndex(const ir::Value* v, int depth = 16) {
  if (depth == 0) return false;
  const ir::Operation* d = v->definingOp();
  if (!d) {
    const ir::Operation* owner = v->ownerBlock()->parentOp();
    if (owner && owner->is("xtc.kernel")) return true;  // a kernel argument
    if (owner && owner->is("scf.for") && v->index() == 0) {
      for (unsigned i = 0; i < 3; ++i)
        if (!uniformIndex(owner->operand(i), depth - 1)) return false;
      return true;
    }
    return false;
  }
  for (const char* n : {"arith.constant", "memref.dim", "xe.base_address", "gpu.group_id", "gpu.num_groups", "gpu.local_size", "gpu.subgroup_id",
                        "gpu.num_subgroups", "gpu.subgroup_size"})
    if (d->is(n)) return true;
  if ((d->dialect() != "arith" && !d->is("xe.oword_align_bits")) || d->numResults() != 1 || !ir::isIntElem(d->result()->type().elem()))
    return false;
  for (const ir::Value* o : d->operands())
    if (!uniformIndex(o, depth - 1)) return false;
  return true;
}

// Whether only arithmetic reads `v`, seen through the vectors it is gathered into and taken out of
// (vector.from_elements, vector.extract).
bool onlyArithmeticReads(const ir::Value* v, int depth = 4) {
  for (const ir::Use& u : v->uses()) {
    if (u.user->dialect() == "arith") continue;
    if (depth == 0 || (!u.user->is("vector.from_elements") && !u.user->is("vector.extract"))) return false;
    if (!onlyArithmeticReads(u.user->result(), depth - 1)) return false;
  }
  return true;
}

}  // namespace

// Whether every lane of the subgroup is enabled at `op` and ran the ops before it: full subgroups,
// and `op` inside no scf.if and only inside loops whose bounds are the same in every lane.
bool KernelEmitter::allLanesAt(const ir::Operation& op) const {
  if (!fullSubgroups_) return false;
  for (const ir::Operation* p = op.parentOp(); p && !p->is("xtc.kernel"); p = p->parentOp()) {
    if (!p->is("scf.for")) return false;
    for (unsigned i = 0; i < 3; ++i)
      if (!uniformIndex(p->operand(i))) return false;
  }
  return true;
}

void KernelEmitter::emitReduce(ir::Operation& op) {
  ElemKind k = op.result()->type().elem();
  const std::string& kind = op.attr("kind")->getString();
  if (kind != "add" && kind != "max" && kind != "min")
    fail(op, fmt::format("lane.reduce kind '{}' is not implemented yet in the SPIR-V backend", kind));
  if (k != ElemKind::F32 && k != ElemKind::F64 && k != ElemKind::F16 && k != ElemKind::I32 && k != ElemKind::I64 &&
      k != ElemKind::Index)
    fail(op, fmt::format("lane.reduce on {} is not implemented yet in the SPIR-V backend", ir::elemName(k)));
  llvm::Value* x = get1(op.operand(0), op);
  // pvc and dg2: the inline-vISA tree of an f32 add or max where every lane is on (VisaEmitter.h,
  // visaReduceF32), if only arithmetic reads the result: its result is per lane where the builtin's
  // is known uniform, and a store of it is then a SIMD16 message where the builtin's was SIMD1 (RFC 2.2's 32 SLM stores of
  // row sums: 76 instructions more in the kernel, 32 movs and 44 syncs, measured), while arithmetic
  // costs the same count 16 wide.
  bool arithUsers = onlyArithmeticReads(op.result());
  bool xe = (target_.kind == targets::TargetKind::Pvc && target_.subgroupSize == 16) ||
            (target_.kind == targets::TargetKind::Dg2 && target_.subgroupSize == 8);
  if (codegen_ == XeCodegen::Visa && xe && k == ElemKind::F32 && (kind == "add" || kind == "max") && arithUsers &&
      allLanesAt(op)) {
    set(op.result(), {visaReduceF32(b_, x, static_cast<int>(target_.subgroupSize), kind)});
    return;
  }
  std::string base = "sub_group_reduce_" + kind;
  std::string mangled = fmt::format("_Z{}{}{}", base.size(), base, mangleCode(k));
  llvm::Function* f = builtin(mangled, x->getType(), {x->getType()}, true, false);
  set(op.result(), {call(f, {x})});
}

// ----- structured control flow -----------------------------------------------------------------------

void KernelEmitter::remarkOpByOpLoop(const ir::Operation& op, const std::string& why) {
  // --remarks: a DPAS loop with block messages that no loop statement took runs op by op (pvc: every
  // 2D header rebuilt each step; several times the statement's instructions). Edge loops (per-lane
  // accesses only) are the slow path by design and get none.
  if (!diags_.remarksEnabled()) return;
  bool dpas = false, block = false;
  for (const auto& o : op.region(0).block().opList()) {
    dpas = dpas || o->is("xe.dpas");
    block = block || o->is("xe.load_2d") || o->is("xe.block_read") || o->is("xe.lane_read");
  }
  if (!dpas || !block) return;
  diags_.remark(op.loc(), why.empty() ? "this DPAS loop is compiled op by op (no loop statement of the target matched it)"
                                      : "this DPAS loop is compiled op by op, not as one vISA statement: " + why);
}

void KernelEmitter::emitFor(ir::Operation& op) {
  // A surface's shared header is not kept across a loop (it would hold a register through the loop,
  // and a K loop at the register limit spills: RFC 2.5); messages in the loop get their own
  // (prepareLoopHeaders), messages after it build the shared one again (VisaEmitter.h).
  std::erase_if(headers_.slots, [](const VisaHeaders::Slot& s) { return !s.op; });
  if (codegen_ == XeCodegen::Visa) {
    // pvc: a DPAS K loop as one inline-vISA statement when it matches (VisaLoop.h), else op by op.
    XeEmitContext xc = xeContext(op);
    // dg2: the interior DPAS K loop of lower-xe's block reads as one statement (Dg2VisaLoop.h).
    std::string missed;
    std::optional<std::string> r = emitVisaLoop(op, xc, visaLoops_, &missed);
    if (!r) r = emitDg2VisaLoop(op, xc, visaLoops_, &missed);
    if (!r) r = emitDg2VisaFmaLoop(op, xc, visaLoops_);  // dg2's f32 FMA K loop (Dg2VisaFmaLoop.h)
    if (!r) r = emitDg2VisaReduceLoop(op, xc, visaLoops_);  // dg2's row-sum loop (Dg2VisaReduceLoop.h)
    if (r) {
      ++visaLoops_;
      if (!r->empty()) fail(op, *r);
      return;
    }
    remarkOpByOpLoop(op, missed);
    prepareLoopHeaders(op, xc, codegen_);
  }
  llvm::Value* lb = get1(op.operand(0), op);
  llvm::Value* ub = get1(op.operand(1), op);
  llvm::Value* step = get1(op.operand(2), op);
  // A step that is not positive is the kernel's error (docs/language.md; the interpreter reports it),
  // but on a device `iv < ub` would then never fail and hang the GPU: a run-time step runs no
  // iteration unless it is positive (one compare and select before the loop; a constant step is
  // checked by the front end and costs nothing).
  if (!llvm::isa<llvm::ConstantInt>(step))
    ub = b_.CreateSelect(b_.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0)), ub, lb);
  std::vector<llvm::Value*> inits;
  std::vector<bool> isIndex;  // which inits are index values (one register each)
  for (unsigned i = 3; i < op.numOperands(); ++i)
    for (llvm::Value* e : get(op.operand(i), op)) {
      inits.push_back(e);
      isIndex.push_back(op.operand(i)->type().isIndex());
    }
  XeEmitContext xc = xeContext(op);
  // index_bits = 32 (lower-xe's dg2 interior loops, docs/passes.md "dg2 block reads"): the counter,
  // every index the loop carries and the walked origins are in [0, 2^31) whenever the loop runs, so
  // they are 32-bit phis (the body sees them zero-extended), else IGC keeps each in two registers
  // (addc + add per step, three cmp for the compare). A loop that does not run leaves its index
  // results at their inits (a select after it: those need not fit).
  bool narrow = op.intAttr("index_bits", 64) == 32;
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Value* runs = narrow ? b_.CreateICmpSLT(lb, ub) : nullptr;
  llvm::Value* ub32 = narrow ? b_.CreateSelect(runs, b_.CreateTrunc(ub, i32), b_.CreateTrunc(lb, i32)) : nullptr;
  LoopOrigins origins = beginLoopOrigins(op, xc, narrow);  // dg2: the tile origins the loop walks (XeBuiltins.h)

  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for.header", fn_);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "for.body", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "for.exit", fn_);
  std::vector<llvm::Value*> narrowInits;
  llvm::Value* lb64 = lb;
  llvm::Value* step64 = step;
  if (narrow) {
    for (size_t i = 0; i < inits.size(); ++i) narrowInits.push_back(isIndex[i] ? b_.CreateTrunc(inits[i], i32) : inits[i]);
    lb = b_.CreateTrunc(lb, i32);
    step = b_.CreateTrunc(step, i32);
  }
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* iv = b_.CreatePHI(lb->getType(), 2, "iv");
  iv->addIncoming(lb, pre);
  std::vector<llvm::PHINode*> phis;
  for (size_t i = 0; i < inits.size(); ++i) {
    llvm::Value* init = narrow ? narrowInits[i] : inits[i];
    llvm::PHINode* p = b_.CreatePHI(init->getType(), 2);
    p->addIncoming(init, pre);
    phis.push_back(p);
  }
  // The headers in scope are carried around the loop (VisaEmitter.h); their coordinates are unknown
  // in the body and after the loop.
  std::vector<llvm::PHINode*> headerPhis;
  for (VisaHeaders::Slot& s : headers_.slots) {
    llvm::PHINode* p = b_.CreatePHI(s.header->getType(), 2, "hdr");
    p->addIncoming(s.header, pre);
    headerPhis.push_back(p);
    s.header = p;
    s.x = s.loopX;
    s.y = s.loopY;
  }
  std::vector<std::pair<llvm::Value*, llvm::Value*>> heldCoords;  // what the headers hold after the loop
  for (const VisaHeaders::Slot& s : headers_.slots) heldCoords.emplace_back(s.loopX, s.loopY);
  enterLoopOrigins(origins, pre, xc);
  b_.CreateCondBr(b_.CreateICmpSLT(iv, narrow ? ub32 : ub), body, exit);

  b_.SetInsertPoint(body);
  const ir::Block& blk = op.region(0).block();
  auto wide = [&](llvm::PHINode* p) -> llvm::Value* { return b_.CreateZExt(p, b_.getInt64Ty()); };
  llvm::Value* ivWide = narrow ? wide(iv) : iv;
  set(blk.argument(0), {ivWide});
  std::vector<llvm::Value*> bodyArgs;
  for (size_t i = 0; i < phis.size(); ++i) bodyArgs.push_back(narrow && isIndex[i] ? wide(phis[i]) : phis[i]);
  size_t pi = 0;
  for (unsigned a = 1; a < blk.numArguments(); ++a) {
    size_t w = width(blk.argument(a)->type());
    set(blk.argument(a), std::vector<llvm::Value*>(bodyArgs.begin() + static_cast<long>(pi),
                                                   bodyArgs.begin() + static_cast<long>(pi + w)));
    pi += w;
  }
  std::vector<llvm::Value*> yielded;
  unsigned visaBefore = visaLoops_;
  emitBlock(blk, &yielded);
  if (yielded.size() != phis.size()) fail(op, "internal error: scf.yield does not match the loop's iteration values");
  for (size_t i = 0; i < phis.size(); ++i)
    if (narrow && isIndex[i]) yielded[i] = b_.CreateTrunc(yielded[i], i32);
  // A carried index that starts at lb and steps by the loop's step (the K loop's tile offsets,
  // update_tile_offset(t, step, 0) from k = lb) is the counter in every iteration and after the
  // loop: the counter stands for it (IGC kept each as its own register and add).
  std::vector<bool> isCounter(phis.size(), false);
  for (size_t i = 0; narrow && i < phis.size(); ++i) {
    auto* t = llvm::dyn_cast<llvm::TruncInst>(yielded[i]);
    auto* add = t ? llvm::dyn_cast<llvm::BinaryOperator>(t->getOperand(0)) : nullptr;
    if (!isIndex[i] || inits[i] != lb64 || !add || add->getOpcode() != llvm::Instruction::Add ||
        add->getOperand(0) != bodyArgs[i] || add->getOperand(1) != step64)
      continue;
    bodyArgs[i]->replaceAllUsesWith(ivWide);
    isCounter[i] = true;
  }
  llvm::Value* next = b_.CreateAdd(iv, step, "iv.next");
  llvm::BasicBlock* latch = b_.GetInsertBlock();
  endLoopOrigins(origins, latch, xc);
  llvm::BranchInst* back = b_.CreateBr(header);
  if (visaLoops_ != visaBefore) keepLoopRolled(*back);  // a whole-loop asm statement inside (VisaLoop.h)
  iv->addIncoming(next, latch);
  for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(yielded[i], latch);
  for (size_t i = 0; i < headerPhis.size(); ++i) {
    headerPhis[i]->addIncoming(headers_.slots[i].header, latch);
    headers_.slots[i].header = headerPhis[i];
    std::tie(headers_.slots[i].x, headers_.slots[i].y) = heldCoords[i];
  }
  // Built in the body: not available after it; a message's own header: not used after it.
  headers_.slots.erase(headers_.slots.begin() + static_cast<long>(headerPhis.size()), headers_.slots.end());
  std::erase_if(headers_.slots, [&](const VisaHeaders::Slot& s) { return s.op && op.isAncestorOf(s.op); });
  std::vector<llvm::Value*> carried = vectorizePhis(phis);

  b_.SetInsertPoint(exit);
  for (size_t i = 0; i < carried.size(); ++i)
    if (narrow && isIndex[i])
      carried[i] = b_.CreateSelect(runs, b_.CreateZExt(isCounter[i] ? iv : carried[i], inits[i]->getType()), inits[i]);
  pi = 0;
  for (unsigned r = 0; r < op.numResults(); ++r) {
    size_t w = width(op.result(r)->type());
    set(op.result(r), std::vector<llvm::Value*>(carried.begin() + static_cast<long>(pi),
                                                carried.begin() + static_cast<long>(pi + w)));
    pi += w;
  }
}

// The emitter keeps one llvm::Value per register, so a loop-carried vector would become one scalar
// phi per register, and IGC would gather a DPAS accumulator into contiguous registers and scatter
// it back on every iteration (~170 movs per K step of the 32x64 GEMM, benchmarks/xe-isa-notes.md).
// Here a run of phis whose incoming registers on some edge are exactly elements 0..n-1 of one
// n-element LLVM vector (a DPAS result, a block load) becomes one vector phi; the other edges pass
// the same vector or build it from their registers (constants fold). The scalar views become
// extractelements of the vector phi, which -O2 folds into the next DPAS/load operand.
namespace {

// v as element `index` of a whole vector (through same-size bitcasts), or null.
llvm::Value* wholeVectorOf(llvm::Value* v, unsigned* index) {
  if (auto* bc = llvm::dyn_cast<llvm::BitCastInst>(v); bc && !bc->getSrcTy()->isVectorTy()) v = bc->getOperand(0);
  auto* ee = llvm::dyn_cast<llvm::ExtractElementInst>(v);
  if (!ee) return nullptr;
  auto* ci = llvm::dyn_cast<llvm::ConstantInt>(ee->getIndexOperand());
  if (!ci) return nullptr;
  llvm::Value* vec = ee->getVectorOperand();
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(vec->getType());
  while (auto* bc = llvm::dyn_cast<llvm::BitCastInst>(vec)) {
    auto* st = llvm::dyn_cast<llvm::FixedVectorType>(bc->getSrcTy());
    if (!st || st->getNumElements() != vt->getNumElements()) break;
    vec = bc->getOperand(0);
  }
  *index = static_cast<unsigned>(ci->getZExtValue());
  return vec;
}

}  // namespace

std::vector<llvm::Value*> KernelEmitter::vectorizePhis(const std::vector<llvm::PHINode*>& phis) {
  std::vector<llvm::Value*> out(phis.begin(), phis.end());
  if (phis.empty()) return out;
  llvm::BasicBlock* block = phis[0]->getParent();
  // The vector a run of `n` phis starting at `i` carries on edge `e`, or null.
  auto runOn = [&](size_t i, unsigned e, unsigned* n) -> llvm::Value* {
    unsigned idx = 0;
    llvm::Value* vec = wholeVectorOf(phis[i]->getIncomingValue(e), &idx);
    if (!vec || idx != 0) return nullptr;
    auto* vt = llvm::cast<llvm::FixedVectorType>(vec->getType());
    unsigned len = vt->getNumElements();
    llvm::Type* et = phis[i]->getType();
    if (len < 2 || i + len > phis.size() || vt->getElementType()->getPrimitiveSizeInBits() != et->getPrimitiveSizeInBits())
      return nullptr;
    for (unsigned j = 0; j < len; ++j) {
      unsigned k = 0;
      if (phis[i + j]->getType() != et || wholeVectorOf(phis[i + j]->getIncomingValue(e), &k) != vec || k != j)
        return nullptr;
    }
    *n = len;
    return vec;
  };
  for (size_t i = 0; i < phis.size();) {
    unsigned n = 0;
    for (unsigned e = 0; e < phis[i]->getNumIncomingValues() && n == 0; ++e) runOn(i, e, &n);
    if (n == 0) {
      ++i;
      continue;
    }
    llvm::Type* et = phis[i]->getType();
    auto* vty = llvm::FixedVectorType::get(et, n);
    llvm::IRBuilder<> pb(block, block->begin());
    llvm::PHINode* vp = pb.CreatePHI(vty, phis[i]->getNumIncomingValues());
    for (unsigned e = 0; e < phis[i]->getNumIncomingValues(); ++e) {
      llvm::BasicBlock* pred = phis[i]->getIncomingBlock(e);
      llvm::IRBuilder<> eb(pred->getTerminator());
      unsigned m = 0;
      llvm::Value* v = runOn(i, e, &m);
      if (v) {
        v = eb.CreateBitCast(v, vty);
      } else {
        v = llvm::UndefValue::get(vty);
        for (unsigned j = 0; j < n; ++j) v = eb.CreateInsertElement(v, phis[i + j]->getIncomingValue(e), eb.getInt32(j));
      }
      vp->addIncoming(v, pred);
    }
    llvm::IRBuilder<> xb(block, block->getFirstInsertionPt());
    for (unsigned j = 0; j < n; ++j) {
      llvm::Value* x = xb.CreateExtractElement(vp, xb.getInt32(j));
      phis[i + j]->replaceAllUsesWith(x);
      phis[i + j]->eraseFromParent();
      out[i + j] = x;
    }
    i += n;
  }
  return out;
}

void KernelEmitter::emitIf(ir::Operation& op) {
  llvm::Value* cond = get1(op.operand(0), op);
  llvm::BasicBlock* thenB = llvm::BasicBlock::Create(ctx_, "if.then", fn_);
  llvm::BasicBlock* elseB = llvm::BasicBlock::Create(ctx_, "if.else", fn_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "if.end", fn_);
  b_.CreateCondBr(cond, thenB, elseB);

  std::vector<llvm::Value*> thenVals, elseVals;
  std::vector<VisaHeaders::Slot> before = headers_.slots;
  b_.SetInsertPoint(thenB);
  // dg2: the block path of a kernel without a loop as one inline-vISA statement (Dg2VisaBlock.h).
  std::optional<std::string> stmt;
  if (codegen_ == XeCodegen::Visa) {
    XeEmitContext xc = xeContext(op);
    stmt = emitDg2VisaBlock(op, xc, visaLoops_, [&](const ir::Operation& o) { emitOp(const_cast<ir::Operation&>(o), nullptr); });
    if (stmt) ++visaLoops_;
    if (stmt && !stmt->empty()) fail(op, *stmt);
  }
  if (!stmt && !op.region(0).empty()) emitBlock(op.region(0).block(), &thenVals);
  llvm::BasicBlock* thenEnd = b_.GetInsertBlock();
  b_.CreateBr(merge);
  std::vector<VisaHeaders::Slot> afterThen = headers_.slots;
  headers_.slots = before;
  b_.SetInsertPoint(elseB);
  if (op.numRegions() > 1 && !op.region(1).empty()) emitBlock(op.region(1).block(), &elseVals);
  llvm::BasicBlock* elseEnd = b_.GetInsertBlock();
  b_.CreateBr(merge);
  if (thenVals.size() != elseVals.size()) fail(op, "internal error: scf.if branches yield different numbers of values");

  b_.SetInsertPoint(merge);
  // The headers in scope before the if: one phi where the branches leave different ones (VisaEmitter.h).
  headers_.slots.erase(headers_.slots.begin() + static_cast<long>(before.size()), headers_.slots.end());
  for (size_t i = 0; i < before.size(); ++i) {
    VisaHeaders::Slot& e = headers_.slots[i];
    const VisaHeaders::Slot& t = afterThen[i];
    if (t.header != e.header) {
      llvm::PHINode* p = b_.CreatePHI(e.header->getType(), 2, "hdr");
      p->addIncoming(t.header, thenEnd);
      p->addIncoming(e.header, elseEnd);
      e.header = p;
    }
    if (t.x != e.x) e.x = nullptr;
    if (t.y != e.y) e.y = nullptr;
  }
  std::vector<llvm::PHINode*> mergePhis;
  for (size_t i = 0; i < thenVals.size(); ++i) {
    llvm::PHINode* p = b_.CreatePHI(thenVals[i]->getType(), 2);
    p->addIncoming(thenVals[i], thenEnd);
    p->addIncoming(elseVals[i], elseEnd);
    mergePhis.push_back(p);
  }
  std::vector<llvm::Value*> all = vectorizePhis(mergePhis);
  size_t pi = 0;
  for (unsigned r = 0; r < op.numResults(); ++r) {
    size_t w = width(op.result(r)->type());
    set(op.result(r), std::vector<llvm::Value*>(all.begin() + static_cast<long>(pi), all.begin() + static_cast<long>(pi + w)));
    pi += w;
  }
}

}  // namespace

std::unique_ptr<llvm::Module> emitLLVMModule(const ir::Operation& module, const targets::Target& target,
                                             XeCodegen codegen, llvm::LLVMContext& ctx, DiagnosticEngine& diags) {
  auto m = std::make_unique<llvm::Module>("xtc", ctx);
  m->setTargetTriple("spir64-unknown-unknown");
  m->setDataLayout("e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64");
  // OpenCL C 2.0: the translator then emits the OpenCL 2.0 forms of subgroup builtins (OpGroup*).
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Metadata* ver[] = {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, 2)),
                           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, 0))};
  m->getOrInsertNamedMetadata("opencl.ocl.version")->addOperand(llvm::MDNode::get(ctx, ver));
  m->getOrInsertNamedMetadata("opencl.spir.version")->addOperand(llvm::MDNode::get(ctx, ver));

  bool ok = true;
  for (ir::Operation* k : ir::moduleKernels(const_cast<ir::Operation*>(&module))) {
    try {
      KernelEmitter e(*m, target, codegen, diags);
      e.emitKernel(k);
    } catch (const EmitError&) {
      ok = false;
    }
  }
  if (!ok) return nullptr;
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os)) {
    diags.error(module.loc(), "internal error: the SPIR-V backend built invalid LLVM IR: " + os.str());
    return nullptr;
  }
  return m;
}

}  // namespace xtc::backend
