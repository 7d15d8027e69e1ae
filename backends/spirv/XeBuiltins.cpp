// xe.* ops -> Intel builtins (see XeBuiltins.h). Every name below is one row of the reference and has
// an ISA test in tests/isa/builtins that compiles it through this emitter and checks the instruction:
//   xe.load_2d  d16 16xHx2 (H = 1, 2, 4, 8)  __builtin_IB_subgroup_block_read_flat_u16_m{H}k16v2   §2.2
//               d8 32xHx2 (H = 1, 2, 4, 8)   __builtin_IB_subgroup_block_read_flat_u8_m{H}k32v2
//               d16 16x16 VNNI               __builtin_IB_subgroup_block_read_flat_transform_u16_k16
//               d8 16x32 VNNI                __builtin_IB_subgroup_block_read_flat_transform_u8_k32
//               d32 8x16 transposed          __builtin_IB_subgroup_block_read_flat_transpose_u32_k8
//   xe.dpas     pvc bf16/f16 M = 8/4/2/1, i8 M = 8; dg2 bf16 M = 8/4/2/1, f16 and i8 M = 8 (mangled, §4)
//   xe.prefetch_1d  pvc, dg2  __builtin_IB_lsc_prefetch_global_uint (§1; dg2 has LSC too: probe
//                   prefetch_dg2_1d.ir)
//   xe.block_read / xe.block_write on SLM, N = 1, 2, 4, 8 registers of 16 or 32 bits, pvc and dg2:
//               intel_sub_group_block_{read,write}{_us,}{N} on a local pointer (slmBlockForms(); probes
//               slm_block_{pvc,dg2}_{d16,d32}.ir, docs/hardware.md); elem_bits = 32 on 16-bit data: the
//               32-bit forms on the registers packed in pairs (slm_block_pvc_pairs.ir)
//   xe.block_read / xe.block_write on global memory, dg2: the same builtins on a global pointer
//               (globalBlockForms(); reads also intel_sub_group_block_read_uc{N}, N = 2, 4, 8, 16:
//               block_read_dg2_global_d8.ir)
// The forms live in loadForms() and dpasForms(), which also give --verify-isa the instruction each
// builtin must leave (hardwareTable()). The 2D block builtins take (i64 base, i32 width-1, i32
// height-1, i32 pitch-1, <2 x i32> (x, y)) (§2.1): the IR keeps the real sizes and the minus one
// happens here.
#include "backends/spirv/XeBuiltins.h"
#include "backends/spirv/VisaLanes.h"

#include "backends/spirv/LoopCoords.h"

#include "ir/ops/XeOps.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Module.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

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

// SPIR-V (without SPV_INTEL_vector_compute, which dg2 does not get) has vectors of at most 16
// elements, and llvm-spirv-15 aborts the process on wider ones: the 8-bit forms (32 byte registers
// per lane) go through chunks of 16 registers.
constexpr unsigned kMaxLanesPerVector = 16;

// Concatenates equal-typed vectors pairwise (their number a power of two).
llvm::Value* concat(llvm::IRBuilder<>& b, std::vector<llvm::Value*> parts) {
  while (parts.size() > 1) {
    std::vector<llvm::Value*> next;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      unsigned n = static_cast<unsigned>(llvm::cast<llvm::FixedVectorType>(parts[i]->getType())->getNumElements());
      std::vector<int> mask(2 * n);
      for (unsigned j = 0; j < 2 * n; ++j) mask[j] = static_cast<int>(j);
      next.push_back(b.CreateShuffleVector(parts[i], parts[i + 1], mask));
    }
    parts = std::move(next);
  }
  return parts.front();
}

// The integer whose `k` parts (in order, low first) the registers are: elements s..s+k-1 (s a
// multiple of k) of one bitcast of an integer, or of a vector of integers k parts wide (then its
// element s / k), each maybe bitcast again to its register type (as unpack below and the d8 2D
// load of VisaEmitter.cpp split a message's slots), or null. LLVM does not fold the split and a
// re-pack into DPAS operands (pvc i8 A: byte pairs; dg2 16-bit A: the dwords of a block read), and
// IGC then moves every part.
llvm::Value* unitOfParts(llvm::IRBuilder<>& b, const llvm::Value* const* parts, size_t k) {
  const llvm::Value* vec = nullptr;
  uint64_t first = 0;
  for (size_t i = 0; i < k; ++i) {
    const llvm::Value* p = parts[i];
    if (const auto* c = llvm::dyn_cast<llvm::BitCastInst>(p)) p = c->getOperand(0);
    const auto* e = llvm::dyn_cast<llvm::ExtractElementInst>(p);
    const auto* idx = e ? llvm::dyn_cast<llvm::ConstantInt>(e->getIndexOperand()) : nullptr;
    if (!idx) return nullptr;
    if (i == 0) {
      vec = e->getVectorOperand();
      first = idx->getZExtValue();
      if (first % k) return nullptr;
    } else if (e->getVectorOperand() != vec || idx->getZExtValue() != first + i) {
      return nullptr;
    }
  }
  const auto* cast = llvm::dyn_cast<llvm::BitCastInst>(vec);
  if (!cast) return nullptr;
  llvm::Value* src = cast->getOperand(0);
  auto* dst = llvm::cast<llvm::FixedVectorType>(cast->getDestTy());
  if (src->getType()->isIntegerTy()) return dst->getNumElements() == k ? src : nullptr;
  auto* sv = llvm::dyn_cast<llvm::FixedVectorType>(src->getType());
  if (!sv || !sv->getElementType()->isIntegerTy() || sv->getNumElements() * k != dst->getNumElements()) return nullptr;
  return b.CreateExtractElement(src, b.getInt32(static_cast<uint32_t>(first / k)));
}

// Packs registers into an LLVM vector (or a scalar for one register) of `elemTy`, reinterpreting
// groups of narrow registers as one wider element when elemTy is wider (little-endian: the lower
// register is the low half, the hardware's VNNI/packed order).
llvm::Value* pack(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& regs, unsigned regBits, llvm::Type* elemTy,
                  unsigned count) {
  size_t k = elemTy->isIntegerTy() ? elemTy->getIntegerBitWidth() / regBits : 0;
  if (k > 1 && regs.size() == k * size_t(count) && count > 1) {
    // Groups of registers that are whole units of elemTy's width: pack the units themselves.
    std::vector<llvm::Value*> units;
    for (size_t i = 0; i < regs.size(); i += k)
      if (llvm::Value* u = unitOfParts(b, &regs[i], k); u && u->getType() == elemTy) units.push_back(u);
    if (units.size() == count) {
      llvm::Value* v = llvm::UndefValue::get(llvm::FixedVectorType::get(elemTy, count));
      for (unsigned i = 0; i < count; ++i) v = b.CreateInsertElement(v, units[i], b.getInt32(i));
      return v;
    }
  }
  std::vector<llvm::Value*> bitsRegs = toBits(b, regs, regBits);
  if (bitsRegs.size() == 1 && count == 1) return b.CreateBitCast(bitsRegs[0], elemTy);
  llvm::Type* regTy = b.getIntNTy(regBits);
  unsigned chunk = std::min<unsigned>(kMaxLanesPerVector, static_cast<unsigned>(bitsRegs.size()));
  unsigned chunks = static_cast<unsigned>(bitsRegs.size()) / chunk;
  std::vector<llvm::Value*> parts;
  for (unsigned c = 0; c < chunks; ++c) {
    llvm::Value* v = llvm::UndefValue::get(llvm::FixedVectorType::get(regTy, chunk));
    for (unsigned i = 0; i < chunk; ++i) v = b.CreateInsertElement(v, bitsRegs[c * chunk + i], b.getInt32(i));
    unsigned n = count / chunks;
    parts.push_back(b.CreateBitCast(v, n == 1 ? elemTy : static_cast<llvm::Type*>(llvm::FixedVectorType::get(elemTy, n))));
  }
  return concat(b, parts);
}

// The reverse of pack: `v` (a vector or scalar) -> `n` registers of `regTy` (the IR element's type).
std::vector<llvm::Value*> unpack(llvm::IRBuilder<>& b, llvm::Value* v, unsigned regBits, llvm::Type* regTy, unsigned n) {
  llvm::Type* ity = b.getIntNTy(regBits);
  unsigned chunk = std::min(kMaxLanesPerVector, n), chunks = n / chunk;
  std::vector<llvm::Value*> r;
  for (unsigned c = 0; c < chunks; ++c) {
    llvm::Value* part = v;
    if (chunks > 1) {  // this chunk's elements of v
      unsigned total = static_cast<unsigned>(llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements());
      std::vector<int> mask(total / chunks);
      for (unsigned j = 0; j < mask.size(); ++j) mask[j] = static_cast<int>(c * mask.size() + j);
      part = b.CreateShuffleVector(v, mask);
    }
    llvm::Value* asInts = b.CreateBitCast(part, chunk == 1 ? ity : static_cast<llvm::Type*>(llvm::FixedVectorType::get(ity, chunk)));
    for (unsigned i = 0; i < chunk; ++i) {
      llvm::Value* e = chunk == 1 ? asInts : b.CreateExtractElement(asInts, b.getInt32(i));
      r.push_back(e->getType() == regTy ? e : b.CreateBitCast(e, regTy));
    }
  }
  return r;
}

llvm::Type* regTypeOf(llvm::IRBuilder<>& b, ElemKind k) {
  switch (k) {
    case ElemKind::I8: return b.getInt8Ty();
    case ElemKind::BF16:
    case ElemKind::I16: return b.getInt16Ty();
    case ElemKind::F16: return b.getHalfTy();
    case ElemKind::F32: return b.getFloatTy();
    case ElemKind::I32: return b.getInt32Ty();
    default: return nullptr;
  }
}

// One 2D block load builtin (reference §2.2): the message it reads and the LLVM result type
// (<retCount x i<retBits>>). All measured rows of §2.2 except u16 shapes other than 16xHx2.
struct LoadForm {
  unsigned bits, w, h, n;
  bool vnni, transpose;
  std::string name;
  unsigned retBits, retCount;
  std::string isa;  // the disassembly line of the load (see load2dLine)
};

// A 2D block load with a register destination and the given data mnemonic ("d16", "d16v", "d32t"):
// prefetches (destination null) do not count.
std::string load2dLine(const std::string& data) {
  return R"(send\.ugm \(16\|M0\) +r[0-9]+ .*load_block2d\.ugm\.)" + data + R"(\.a64)";
}

const std::vector<LoadForm>& loadForms() {
  static const std::vector<LoadForm> forms = [] {
    std::vector<LoadForm> f;
    for (unsigned h : {1u, 2u, 4u, 8u}) {
      f.push_back({16, 16, h, 2, false, false, fmt::format("__builtin_IB_subgroup_block_read_flat_u16_m{}k16v2", h), 16,
                   2 * h, load2dLine("d16")});
      f.push_back({8, 32, h, 2, false, false, fmt::format("__builtin_IB_subgroup_block_read_flat_u8_m{}k32v2", h), 16,
                   2 * h, load2dLine("d8")});
    }
    f.push_back({16, 16, 16, 1, true, false, "__builtin_IB_subgroup_block_read_flat_transform_u16_k16", 32, 8,
                 load2dLine("d16v")});
    f.push_back({8, 16, 32, 1, true, false, "__builtin_IB_subgroup_block_read_flat_transform_u8_k32", 32, 8,
                 load2dLine("d8v")});
    f.push_back({32, 8, 16, 1, false, true, "__builtin_IB_subgroup_block_read_flat_transpose_u32_k8", 32, 8,
                 load2dLine("d32t")});
    return f;
  }();
  return forms;
}

// One DPAS builtin (reference §4): operand types of the mangled OpenCL name, per target.
struct DpasForm {
  targets::TargetKind target;
  ElemKind in, acc;
  int64_t m, k;
  std::string name;
  unsigned aBits, aCount;  // A as <aCount x i<aBits>> (a scalar when aCount is 1); B is <8 x i32>
  std::string isa;
};

const std::vector<DpasForm>& dpasForms() {
  static const std::vector<DpasForm> forms = [] {
    using targets::TargetKind;
    std::vector<DpasForm> f;
    // bf16/f16, K = 16: A is short[m] on pvc (one 16-bit element per lane and row), int[m] on dg2
    // (two K-adjacent elements per lane and row); B int8 (VNNI pairs); C/D float[m]. The dg2 M = 8
    // A type int8 repeats B's: a substitution.
    auto name = [](bool bf16, bool pvc, int64_t m) {
      std::string base = bf16 ? "_Z40intel_sub_group_bf16_bf16_matrix_mad_k16" : "_Z38intel_sub_group_f16_f16_matrix_mad_k16";
      char aCode = pvc ? 's' : 'i';
      if (m == 1) return base + fmt::format("{}Dv8_if", aCode);
      if (m == 8 && !pvc) return base + "Dv8_iS_Dv8_f";
      return base + fmt::format("Dv{}_{}Dv8_iDv{}_f", m, aCode, m);
    };
    for (bool pvc : {true, false})
      for (unsigned m : {8u, 4u, 2u, 1u})
        for (ElemKind in : {ElemKind::BF16, ElemKind::F16}) {
          f.push_back({pvc ? TargetKind::Pvc : TargetKind::Dg2, in, ElemKind::F32, m, 16,
                       name(in == ElemKind::BF16, pvc, m), pvc ? 16u : 32u, m, fmt::format(R"(\bdpas\.8x{} )", m)});
        }
    // s8, K = 32, int accumulator: pvc A short8 (two bytes per lane and row), dg2 A int8 (four).
    f.push_back({TargetKind::Pvc, ElemKind::I8, ElemKind::I32, 8, 32, "_Z36intel_sub_group_i8_i8_matrix_mad_k32Dv8_sDv8_iS0_",
                 16, 8, R"(\bdpas\.8x8 )"});
    f.push_back({TargetKind::Dg2, ElemKind::I8, ElemKind::I32, 8, 32, "_Z36intel_sub_group_i8_i8_matrix_mad_k32Dv8_iS_S_", 32,
                 8, R"(\bdpas\.8x8 )"});
    // s8 of 4, 2 and 1 rows (issue #10; not in the reference's table, probes dpas_{pvc,dg2}_i8_m{1,2,4}.ir):
    // A short[m] (pvc) or int[m] (dg2), accumulator int[m]; a one-row form takes scalars.
    for (bool pvc : {true, false})
      for (int64_t m : {4, 2, 1}) {
        char a = pvc ? 's' : 'i';
        std::string n = m == 1 ? fmt::format("{}Dv8_ii", a) : fmt::format("Dv{}_{}Dv8_i{}", m, a, pvc ? fmt::format("Dv{}_i", m) : "S_");
        f.push_back({pvc ? TargetKind::Pvc : TargetKind::Dg2, ElemKind::I8, ElemKind::I32, m, 32,
                     "_Z36intel_sub_group_i8_i8_matrix_mad_k32" + n, pvc ? 16u : 32u, static_cast<unsigned>(m),
                     fmt::format(R"(\bdpas\.8x{} )", m)});
      }
    return f;
  }();
  return forms;
}

llvm::Type* vectorOrScalar(llvm::Type* elem, unsigned n) {
  return n == 1 ? elem : static_cast<llvm::Type*>(llvm::FixedVectorType::get(elem, n));
}

std::string emitLoad2d(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  if (ctx.target.kind != targets::TargetKind::Pvc)
    return fmt::format("xe.load_2d on target '{}': 2D block IO exists only on pvc (reference §2.5)", ctx.target.name);
  int64_t bits = op.intAttr("elem_bits", 0), w = op.intAttr("block_w", 0), h = op.intAttr("block_h", 0),
          n = op.intAttr("array_len", 0);
  bool vnni = op.boolAttr("vnni"), tr = op.boolAttr("transpose");
  const LoadForm* form = nullptr;
  for (const LoadForm& f : loadForms())
    if (f.bits == bits && f.w == w && f.h == h && f.n == n && f.vnni == vnni && f.transpose == tr) form = &f;
  if (!form)
    return fmt::format("xe.load_2d d{} {}x{}x{}{}{} has no builtin proven by an ISA test yet (not implemented yet)",
                       bits, w, h, n, vnni ? " vnni" : "", tr ? " transpose" : "");
  const ir::Type& rt = op.result()->type();
  int64_t regs = rt.shape()[0];
  unsigned regBits = ir::elemBits(rt.elem());
  llvm::Type* regTy = regTypeOf(b, rt.elem());
  if (!regTy || regs * regBits != int64_t(form->retCount) * form->retBits)
    return fmt::format("xe.load_2d: result {} does not match the {} response", rt.str(), form->name);
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* retTy = llvm::FixedVectorType::get(b.getIntNTy(form->retBits), form->retCount);
  llvm::Function* f = declare(ctx.module, form->name, retTy, {b.getInt64Ty(), i32, i32, i32, llvm::FixedVectorType::get(i32, 2)}, true);
  auto minus1 = [&](ir::Value* v) { return b.CreateSub(ctx.get(v).at(0), b.getInt32(1)); };
  llvm::Value* xy = llvm::UndefValue::get(llvm::FixedVectorType::get(i32, 2));
  xy = b.CreateInsertElement(xy, ctx.get(op.operand(4)).at(0), b.getInt32(0));
  xy = b.CreateInsertElement(xy, ctx.get(op.operand(5)).at(0), b.getInt32(1));
  llvm::Value* r = call(b, f, {ctx.get(op.operand(0)).at(0), minus1(op.operand(1)), minus1(op.operand(2)),
                               minus1(op.operand(3)), xy});
  ctx.set(op.result(), unpack(b, r, regBits, regTy, static_cast<unsigned>(regs)));
  return "";
}

std::string emitDpas(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  int64_t m = op.intAttr("m", 0), n = op.intAttr("n", 0), k = op.intAttr("k", 0);
  ElemKind in = op.operand(1)->type().elem(), acc = op.operand(0)->type().elem();
  const DpasForm* form = nullptr;
  for (const DpasForm& f : dpasForms())
    if (f.target == ctx.target.kind && f.in == in && f.acc == acc && f.m == m && f.k == k && n == ctx.target.subgroupSize)
      form = &f;
  if (!form)
    return fmt::format("xe.dpas {}x{}x{} {} -> {} on target '{}' has no builtin proven by an ISA test yet (not "
                       "implemented yet)",
                       m, n, k, ir::elemName(in), ir::elemName(acc), ctx.target.name);
  unsigned inBits = ir::elemBits(in), accBits = ir::elemBits(acc);
  llvm::Type* accElem = acc == ElemKind::F32 ? b.getFloatTy() : b.getInt32Ty();
  llvm::Type* aElem = b.getIntNTy(form->aBits);
  llvm::Type* cTy = vectorOrScalar(accElem, static_cast<unsigned>(m));
  llvm::Function* f = declare(ctx.module, form->name, cTy,
                              {vectorOrScalar(aElem, form->aCount), llvm::FixedVectorType::get(b.getInt32Ty(), 8), cTy}, true);
  llvm::Value* av = pack(b, ctx.get(op.operand(1)), inBits, aElem, form->aCount);
  llvm::Value* bv = pack(b, ctx.get(op.operand(2)), inBits, b.getInt32Ty(), 8);
  llvm::Value* cv = pack(b, ctx.get(op.operand(0)), accBits, accElem, static_cast<unsigned>(m));
  llvm::Value* r = call(b, f, {av, bv, cv});
  ctx.set(op.result(), unpack(b, r, accBits, accElem, static_cast<unsigned>(m)));
  return "";
}

// The suffix of cl_intel_subgroups' block builtins: `_uc` for uchar (cl_intel_subgroups_char),
// `_us` for ushort, the count unless it is 1.
std::string blockSuffix(unsigned bits, unsigned n) {
  return (bits == 8 ? "_uc" : bits == 16 ? "_us" : "") + (n == 1 ? std::string() : std::to_string(n));
}

// The mangled name of cl_intel_subgroups' `intel_sub_group_block_read{_uc,_us,}{N}` on a pointer of
// address space `as` (1 global, 3 local) to const uchar (8 bits), ushort (16) or uint (32).
std::string blockReadName(unsigned bits, unsigned n, unsigned as) {
  std::string rd = "intel_sub_group_block_read" + blockSuffix(bits, n);
  return fmt::format("_Z{}{}PU3AS{}K{}", rd.size(), rd, as, bits == 8 ? "h" : bits == 16 ? "t" : "j");
}

// ... and of `intel_sub_group_block_write{_us,}{N}` (pointer, then the N ushort/uint values).
std::string blockWriteName(unsigned bits, unsigned n, unsigned as) {
  std::string wr = "intel_sub_group_block_write" + blockSuffix(bits, n);
  std::string c = bits == 16 ? "t" : "j", vec = n == 1 ? c : fmt::format("Dv{}_{}", n, c);
  return fmt::format("_Z{}{}PU3AS{}{}{}", wr.size(), wr, as, c, vec);
}

// One subgroup block read or write on SLM (OpenCL cl_intel_subgroups{,_short} on a `__local`
// pointer): N registers of `bits` each, register i of lane l = element start + i * lanes + l. The
// messages IGC makes of them (measured, tests/isa/builtins/slm_block_*.ir): pvc LSC transposed SLM
// messages, dg2 oword block messages on the SLM binding table (0xFE); one message each except the
// 32-bit N = 8 read (two).
struct SlmBlockForm {
  unsigned bits, n;
  bool write;
  std::string name, isa;
};

const std::vector<SlmBlockForm>& slmBlockForms() {
  static const std::vector<SlmBlockForm> forms = [] {
    std::vector<SlmBlockForm> f;
    for (unsigned bits : {16u, 32u})
      for (unsigned n : {1u, 2u, 4u, 8u}) {
        unsigned laneBytes = n * bits / 8;  // bytes per lane; pvc: 16 lanes, dg2: 8 lanes (16-byte owords)
        // pvc: a d32 load of 4 * laneBytes dwords (at most 64 per message), a d64 store of 2 * laneBytes
        // qwords; dg2: laneBytes / 2 owords (at most 8 per message) each way.
        std::string pvcLoad = fmt::format("load\\.slm\\.d32x{}t\\.a32", std::min(4 * laneBytes, 64u));
        std::string pvcStore = fmt::format("store\\.slm\\.d64x{}t\\.a32", 2 * laneBytes);
        unsigned owords = std::min(laneBytes / 2, 8u);
        f.push_back({bits, n, false, blockReadName(bits, n, 3),
                     fmt::format("{}|oword block read x{}\\b", pvcLoad, owords)});
        f.push_back({bits, n, true, blockWriteName(bits, n, 3),
                     fmt::format("{}|oword block write x{}\\b", pvcStore, owords)});
      }
    return f;
  }();
  return forms;
}

// A subgroup block read or write of global memory on dg2 (cl_intel_subgroups{,_short,_char} on a
// `__global` pointer): N registers of `bits` each, register i of lane l = slot start + i * 8 + l.
// Measured (tests/isa/builtins/block_read_dg2_global_d{8,16,32}.ir, block_io_dg2_global_f32.ir,
// block_write_dg2_global_d16.ir): IGC makes each an oword block message of N * bits / 16 owords (at
// most 8 per message: the 32-bit N = 8 read or write is two), stateless (`a64 aligned oword block
// read`, `a64 unaligned oword block write`) or, when it promotes the kernel argument to a binding
// table entry, stateful (`oword aligned block read`, `oword block write` on the argument's
// surface). Either has no bounds check and ignores the low four address bits; lower-xe guards it
// with a runtime check (docs/passes.md, "lower-xe").
struct GlobalBlockForm {
  unsigned bits, n;
  bool write;
  std::string name, isa;
};

const std::vector<GlobalBlockForm>& globalBlockForms() {
  static const std::vector<GlobalBlockForm> forms = [] {
    std::vector<GlobalBlockForm> f;
    for (unsigned bits : {16u, 32u})
      for (unsigned n : {1u, 2u, 4u, 8u}) {
        unsigned owords = std::min(n * bits / 16, 8u);
        f.push_back({bits, n, false, blockReadName(bits, n, 1), fmt::format("(a64 aligned oword|oword aligned) block read x{}\\b", owords)});
        f.push_back({bits, n, true, blockWriteName(bits, n, 1), fmt::format("(a64 unaligned oword|oword) block write x{}\\b", owords)});
      }
    // uchar reads (cl_intel_subgroups_char, tests/isa/builtins/block_read_dg2_global_d8.ir): N = 2,
    // 4, 8, 16 bytes per lane are oword block reads of N / 2 owords; N = 1 (8 bytes) is not an oword
    // message (IGC makes it an a64 byte gathering read), so it is not a form. No uchar writes.
    for (unsigned n : {2u, 4u, 8u, 16u})
      f.push_back({8, n, false, blockReadName(8, n, 1), fmt::format("(a64 aligned oword|oword aligned) block read x{}\\b", n / 2)});
    return f;
  }();
  return forms;
}

// A dense 2-D global memref: its elements are base + row * pitch + column * bytes.
bool dense2dGlobal(const ir::Type& mt) {
  return mt.memSpace() != ir::MemSpace::Slm && mt.rank() == 2 && mt.strides().empty();
}

// Whether a dg2 global block message is addressed from its tile's origin (blockMessageAddress): a
// dense 2-D global memref (other ranks and strided views take the plain element address).
bool originAddressed(const ir::Operation& op) {
  if (!op.is("xe.block_read") && !op.is("xe.block_write")) return false;
  return dense2dGlobal(op.operand(op.is("xe.block_write") ? 1 : 0)->type());
}

// A message's row or column index as (the tile's offset, the message's constant place in the tile):
// lower-xe writes them as arith.addi of the tile's offset and constants, seen through as the pvc
// loops see their header coordinates (LoopCoords.h, outerSym). An offset reached through a convert
// from a narrower type keeps its constant: the origin is in 64 bits.
std::pair<ir::Value*, int64_t> splitIndex(ir::Value* v) {
  Sym s = outerSym(v);
  if (s.base && !s.base->type().isIndex() && !(s.base->type().isScalar() && ir::elemBits(s.base->type().elem()) == 64))
    return {v, 0};
  return {const_cast<ir::Value*>(s.base), s.off};  // a value of the IR being emitted (ctx.get takes it mutable)
}

// Whether the kernel (the outermost op holding `op`) has a loop, found once per kernel: without one,
// dg2 global messages take 32-bit byte offsets (blockMessageAddress, emitLaneRead).
bool kernelHasLoop(const ir::Operation& op, XeEmitContext& ctx) {
  std::optional<bool>& loops = ctx.blockAddresses->kernelLoops;
  if (!loops) {
    const ir::Operation* kernel = &op;
    while (kernel->parentOp()) kernel = kernel->parentOp();
    loops = false;
    const_cast<ir::Operation*>(kernel)->walk([&](ir::Operation* x) { *loops = *loops || x->is("scf.for"); });
  }
  return *loops;
}

// R * pitch + C * bytes: a tile origin's byte offset from the memref's base, in pitch's type; R, C
// null: 0.
llvm::Value* originOffset(llvm::Value* R, llvm::Value* C, llvm::Value* pitch, unsigned elemBytes, llvm::IRBuilder<>& b) {
  llvm::Type* ty = pitch->getType();
  llvm::Value* off = llvm::ConstantInt::get(ty, 0);
  if (R) off = b.CreateMul(R, pitch);
  if (C) off = b.CreateAdd(off, b.CreateMul(C, llvm::ConstantInt::get(ty, elemBytes)));
  return off;
}

llvm::Value* rowPitch(ir::Value* mem, unsigned elemBytes, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  return b.CreateMul(ctx.memrefDim(mem, 1), b.getInt64(elemBytes));
}

// The address of the element at (row, col) of a dense 2-D global memref for a dg2 block message, in
// the form IGC turns into one instruction per message (docs/hardware.md, "dg2 block-message
// addresses"): with row = R + r and col = C + c (r, c constants), the tile's origin offset
// R * pitch + C * bytes is made once per tile and LLVM block (or carried around the loop that walks
// it: beginLoopOrigins), row r is the origin plus r * pitch (loop-invariant: LLVM computes it before
// the loop) and the message adds c * bytes, a constant. As a plain (row * pitch + col) * bytes per
// message, a K loop recomputed every row's 64-bit product each step where the row walks with K
// (IGC's mul/mach pairs: ~8 instructions per message).
// In a kernel without a loop (wide false) the origin is a 32-bit offset, zero-extended once per
// message: a dg2 kernel's buffers are below 4 GiB (docs/abi.md: no greater-than-4GB build option,
// the runtime allocates no larger buffer and IGC addresses them through 32-bit surface offsets), so
// the element's byte offset from the base, which the guard keeps inside the memref, is exact modulo
// 2^32 whatever the sign of r and c. In 64 bits IGC still made the high halves of R * pitch
// (mul/mach pairs, adds) that its 32-bit surface offsets never read (sg_bias_relu's block path
// 212 -> 197 instructions, bias_relu 230 -> 216). A kernel with a loop keeps 64 bits: there the
// 32-bit form moved the loops' counts by -25 to +7 per K step with IGC's register allocation.
// Plain (not inbounds) GEPs: the origin need not be an element of the memref (only R + r is).
llvm::Value* blockMessageAddress(ir::Value* mem, ir::Value* row, ir::Value* col, unsigned elemBytes, bool wide,
                                 XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  auto [R, r] = splitIndex(row);
  auto [C, c] = splitIndex(col);
  llvm::Type* i8 = b.getInt8Ty();
  llvm::Value* pitch = rowPitch(mem, elemBytes, ctx, b);
  llvm::Value* base = b.CreatePointerCast(ctx.memrefPointer(mem), llvm::PointerType::get(i8, 1));
  BlockAddresses& ba = *ctx.blockAddresses;
  auto key = [&, here = b.GetInsertBlock()](int64_t i) { return std::make_tuple(mem, R, C, here, i); };
  auto carried = ba.carried.find({mem, R, C});
  if (carried == ba.carried.end() && !wide) {
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Value* pitch32 = b.CreateTrunc(pitch, i32);
    llvm::Value*& origin = ba.offsets[key(0)];
    if (!origin) {
      auto value = [&](ir::Value* x) { return x ? b.CreateTrunc(ctx.get(x).at(0), i32) : nullptr; };
      origin = originOffset(value(R), value(C), pitch32, elemBytes, b);
    }
    llvm::Value*& p = ba.offsets[key(r)];
    if (!p) p = b.CreateAdd(origin, b.CreateMul(pitch32, b.getInt32(static_cast<uint32_t>(r))));
    llvm::Value* off = c == 0 ? p : b.CreateAdd(p, b.getInt32(static_cast<uint32_t>(c * elemBytes)));
    return b.CreateGEP(i8, base, b.CreateZExt(off, b.getInt64Ty()));
  }
  llvm::Value*& origin = ba.rows[key(0)];
  if (!origin) {
    auto value = [&](ir::Value* x) { return x ? ctx.get(x).at(0) : nullptr; };
    origin = b.CreateGEP(i8, base, carried != ba.carried.end() ? carried->second : originOffset(value(R), value(C), pitch, elemBytes, b));
  }
  llvm::Value*& p = ba.rows[key(r)];
  if (!p) p = b.CreateGEP(i8, origin, b.CreateMul(pitch, b.getInt64(static_cast<uint64_t>(r))));
  return c == 0 ? p : b.CreateGEP(i8, p, b.getInt64(static_cast<uint64_t>(c * elemBytes)));
}

// xe.block_read / xe.block_write on a global memref (dg2 only; pvc moves tiles through 2D block
// messages): the form of globalBlockForms() at the element of the indices; elem_bits = 32 on 16-bit
// (8-bit) data (ir/ops/XeOps.h) moves 32-bit slots of two (four) registers each (the DPAS A rows),
// as on SLM.
std::string emitGlobalBlock(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  bool write = op.is("xe.block_write");
  const ir::Type& vt = write ? op.operand(0)->type() : op.result()->type();
  if (ctx.target.kind != targets::TargetKind::Dg2)
    return fmt::format("'{}' on a global memref on target '{}' has no form proven by an ISA test yet", op.name(), ctx.target.name);
  unsigned regBits = ir::elemBits(vt.elem()), P = static_cast<unsigned>(ir::blockUnit(op).value_or(1));
  unsigned bits = regBits * P, n = static_cast<unsigned>(vt.shape()[0]) / P;
  const GlobalBlockForm* form = nullptr;
  for (const GlobalBlockForm& f : globalBlockForms())
    if (f.bits == bits && f.n == n && f.write == write) form = &f;
  llvm::Type* regTy = regTypeOf(b, vt.elem());
  if (!form || !regTy)
    return fmt::format("'{}' of {} in {}-bit units on a global memref has no form proven by an ISA test yet "
                       "(not implemented yet)",
                       op.name(), vt.str(), bits);
  ir::Value* mem = op.operand(write ? 1 : 0);
  unsigned first = write ? 2 : 1;
  llvm::Type* it = b.getIntNTy(bits);
  llvm::Type* ptrTy = llvm::PointerType::get(it, 1);
  llvm::Value* elem = nullptr;
  if (originAddressed(op) && ctx.blockAddresses && ctx.memrefDim) {
    elem = blockMessageAddress(mem, op.operand(first), op.operand(first + 1), regBits / 8, kernelHasLoop(op, ctx), ctx, b);
  } else {
    std::vector<llvm::Value*> idx;
    for (unsigned d = first; d < op.numOperands(); ++d) idx.push_back(ctx.get(op.operand(d)).at(0));
    elem = ctx.elementPointer(mem, idx);
  }
  llvm::Value* ptr = b.CreatePointerCast(elem, ptrTy);
  if (write) {
    llvm::Function* f = declare(ctx.module, form->name, b.getVoidTy(), {ptrTy, vectorOrScalar(it, n)}, true);
    call(b, f, {ptr, pack(b, ctx.get(op.operand(0)), regBits, it, n)});
    return "";
  }
  llvm::Function* f = declare(ctx.module, form->name, vectorOrScalar(it, n), {ptrTy}, true);
  // A unit's low register first (little-endian): register i * P + h = element h of unit i.
  ctx.set(op.result(), unpack(b, call(b, f, {ptr}), regBits, regTy, n * P));
  return "";
}

// xe.lane_read (dg2): an ordinary load of 1, 2, 4 or 8 dwords from each lane's own element address, which
// IGC makes one untyped surface read of that many channels (`with x`, `xy`, `xyzw`; 8: two `xyzw`) per lane group
// (tests/isa/builtins/lane_read_dg2_f32.ir); register i of the lane is
// element i of the dwords (16-bit data: the low half of dword i / 2 first). No builtin: nothing for
// IGC to drop, the probe shows the message count.
std::string emitLaneRead(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  const ir::Type& vt = op.result()->type();
  if (ctx.target.kind != targets::TargetKind::Dg2)
    return fmt::format("'xe.lane_read' on target '{}' has no form proven by an ISA test yet", ctx.target.name);
  unsigned regBits = ir::elemBits(vt.elem()), P = static_cast<unsigned>(ir::blockUnit(op).value_or(1));
  unsigned n = static_cast<unsigned>(vt.shape()[0]), units = n / P;
  llvm::Type* regTy = regTypeOf(b, vt.elem());
  if (!regTy || regBits * P != 32 || (units != 1 && units != 2 && units != 4 && units != 8))
    return fmt::format("'xe.lane_read' of {} in {}-bit units has no form proven by an ISA test yet (not implemented yet)", vt.str(),
                       regBits * P);
  // The lane's row start (row * pitch: loop-invariant in a K loop, where LLVM hoists it) plus the
  // column's bytes: per message one add of the walked column, where the element index
  // row * cols + col made IGC add, shift and add again (per K step on dg2: gemm_bt 168 -> 166, RFC 2.3
  // 1018 -> 974, RFC 2.2 1380 -> 1306; transpose's block path 210 -> 190).
  llvm::Value* col = ctx.get(op.operand(2)).at(0);
  llvm::Value* row = ctx.get(op.operand(1)).at(0);
  llvm::Type* i8 = b.getInt8Ty();
  llvm::Value* elem = nullptr;
  if (dense2dGlobal(op.operand(0)->type()) && ctx.blockAddresses && ctx.memrefDim && !kernelHasLoop(op, ctx)) {
    // A kernel without a loop: the byte offset row * pitch + col * bytes in 32 bits, as its block
    // messages (blockMessageAddress: buffers below 4 GiB), without IGC's mul/mach pairs of the
    // 64-bit row * pitch.
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Value* pitch = b.CreateTrunc(rowPitch(op.operand(0), regBits / 8, ctx, b), i32);
    llvm::Value* off = originOffset(b.CreateTrunc(row, i32), b.CreateTrunc(col, i32), pitch, regBits / 8, b);
    llvm::Value* base = b.CreatePointerCast(ctx.memrefPointer(op.operand(0)), llvm::PointerType::get(i8, 1));
    elem = b.CreateGEP(i8, base, b.CreateZExt(off, b.getInt64Ty()));
  } else {
    llvm::Value* rowStart = ctx.elementPointer(op.operand(0), {row, llvm::ConstantInt::get(col->getType(), 0)});
    elem = b.CreateInBoundsGEP(i8, b.CreatePointerCast(rowStart, llvm::PointerType::get(i8, 1)),
                               b.CreateMul(col, llvm::ConstantInt::get(col->getType(), regBits / 8)));
  }
  llvm::Type* dataTy = vectorOrScalar(b.getInt32Ty(), units);
  llvm::Value* ptr = b.CreatePointerCast(elem, llvm::PointerType::get(dataTy, 1));
  ctx.set(op.result(), unpack(b, b.CreateAlignedLoad(dataTy, ptr, llvm::Align(4)), regBits, regTy, n));
  return "";
}

// xe.block_read / xe.block_write on an SLM memref: the builtin of slmBlockForms() at the element of
// the (row-major) indices.
std::string emitSlmBlock(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  bool write = op.is("xe.block_write");
  ir::Value* memV = op.operand(write ? 1 : 0);
  const ir::Type& mt = memV->type();
  const ir::Type& vt = write ? op.operand(0)->type() : op.result()->type();
  if (mt.memSpace() != ir::MemSpace::Slm) return emitGlobalBlock(op, ctx, b);
  if (ctx.target.kind != targets::TargetKind::Pvc && ctx.target.kind != targets::TargetKind::Dg2)
    return fmt::format("'{}' on target '{}' has no form proven by an ISA test yet", op.name(), ctx.target.name);
  // elem_bits = 32 on 16-bit data (ir/ops/XeOps.h): the 32-bit builtin, each dword = 2 registers.
  unsigned regBits = ir::elemBits(vt.elem()), P = static_cast<unsigned>(ir::blockUnit(op).value_or(1));
  unsigned bits = regBits * P, n = static_cast<unsigned>(vt.shape()[0]) / P;
  const SlmBlockForm* form = nullptr;
  for (const SlmBlockForm& f : slmBlockForms())
    if (f.bits == bits && f.n == n && f.write == write) form = &f;
  llvm::Type* regTy = regTypeOf(b, vt.elem());
  if (!form || !regTy)
    return fmt::format("'{}' of {} on SLM has no form proven by an ISA test yet (not implemented yet)", op.name(), vt.str());
  // Row-major element index of the indices (SLM buffers have static shapes).
  unsigned first = write ? 2 : 1;
  llvm::Value* lin = nullptr;
  for (unsigned d = 0; d < static_cast<unsigned>(mt.rank()); ++d) {
    llvm::Value* i = b.CreateZExtOrTrunc(ctx.get(op.operand(first + d)).at(0), b.getInt64Ty());
    lin = lin ? b.CreateAdd(b.CreateMul(lin, b.getInt64(static_cast<uint64_t>(mt.shape()[d]))), i) : i;
  }
  llvm::Type* it = b.getIntNTy(bits);
  llvm::Type* et = b.getIntNTy(regBits);
  llvm::Type* ptrTy = llvm::PointerType::get(it, 3);
  llvm::Value* base = b.CreatePointerCast(ctx.memrefPointer(memV), llvm::PointerType::get(et, 3));
  llvm::Value* ptr = b.CreatePointerCast(b.CreateInBoundsGEP(et, base, lin), ptrTy);
  llvm::Type* dataTy = vectorOrScalar(it, n);
  if (write) {
    llvm::Function* f = declare(ctx.module, form->name, b.getVoidTy(), {ptrTy, dataTy}, true);
    call(b, f, {ptr, pack(b, ctx.get(op.operand(0)), regBits, it, n)});
    return "";
  }
  llvm::Function* f = declare(ctx.module, form->name, dataTy, {ptrTy}, true);
  ctx.set(op.result(), unpack(b, call(b, f, {ptr}), regBits, regTy, n * P));
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
    if (ctx.target.kind != targets::TargetKind::Pvc && ctx.target.kind != targets::TargetKind::Dg2)
      return fmt::format("xe.prefetch_1d on target '{}' has no builtin proven by an ISA test yet", ctx.target.name);
    llvm::Type* ptrTy = llvm::PointerType::get(b.getInt32Ty(), 1);
    llvm::Function* f = declare(ctx.module, "__builtin_IB_lsc_prefetch_global_uint", b.getVoidTy(),
                                {ptrTy, b.getInt32Ty(), b.getInt32Ty()}, false);
    llvm::Value* ptr = b.CreateIntToPtr(ctx.get(op.operand(0)).at(0), ptrTy);
    call(b, f, {ptr, b.getInt32(0), b.getInt32(static_cast<uint32_t>(op.intAttr("cache", 4)))});
    return "";
  }
  if (n == "xe.dpas") return emitDpas(op, ctx, b);
  if (n == "xe.block_read" || n == "xe.block_write") return emitSlmBlock(op, ctx, b);
  if (n == "xe.lane_read") return emitLaneRead(op, ctx, b);
  if (n == "xe.store_2d" || n == "xe.prefetch_2d")
    return fmt::format("'{}' is not implemented yet: IGC 1.0.12504 has no builtin for it, only inline vISA "
                       "(reference §3), which a later issue adds",
                       n);
  return fmt::format("'{}' is not implemented yet in the SPIR-V backend", n);
}

LoopOrigins beginLoopOrigins(const ir::Operation& loop, XeEmitContext& ctx, bool narrow) {
  LoopOrigins lo;
  lo.narrow = narrow;
  if (ctx.target.kind != targets::TargetKind::Dg2 || !ctx.blockAddresses || !ctx.memrefDim) return lo;
  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  const ir::Block& body = loop.region(0).block();
  // The value a tile offset has when the loop starts.
  auto initial = [&](ir::Value* v) -> llvm::Value* {
    if (!v) return nullptr;
    if (v == body.argument(0)) return ctx.get(loop.operand(0)).at(0);
    if (v->isBlockArgument() && v->ownerBlock() == &body) return ctx.get(loop.operand(2 + v->index())).at(0);
    return ctx.get(v).at(0);
  };
  std::function<void(const ir::Block&)> scan = [&](const ir::Block& blk) {
    for (const auto& up : blk.opList()) {
      const ir::Operation* o = up.get();
      if (o->is("scf.for")) continue;  // an inner loop carries its own
      for (unsigned i = 0; i < o->numRegions(); ++i)
        if (!o->region(i).empty()) scan(o->region(i).block());
      if (!originAddressed(*o)) continue;
      unsigned first = o->is("xe.block_write") ? 2 : 1;
      ir::Value* mem = o->operand(first - 1);
      auto [R, r] = splitIndex(o->operand(first));
      auto [C, c] = splitIndex(o->operand(first + 1));
      std::optional<int64_t> dr = baseStep(R, loop), dc = baseStep(C, loop);
      // Only a walking row costs a multiply in the body (R * pitch); a walking column alone costs a
      // shift, no more than the carried offset's add in a 64-bit loop (measured the same), and a live
      // register more. In a 32-bit loop the column's shift is a 64-bit one of its zero extension (a
      // `shl` and a `shr` for the high half), so a column walk is carried there too (one add).
      if (!dr || !dc || (*dr == 0 && (*dc == 0 || !narrow))) continue;
      LoopOrigins::Walk w{{mem, R, C}, nullptr, nullptr, nullptr};
      if (std::any_of(lo.walks.begin(), lo.walks.end(), [&](const LoopOrigins::Walk& x) { return x.key == w.key; }))
        continue;
      const ir::Type& vt = o->is("xe.block_write") ? o->operand(0)->type() : o->result()->type();
      unsigned bytes = ir::elemBits(vt.elem()) / 8;
      llvm::Value* pitch = rowPitch(mem, bytes, ctx, b);
      w.init = originOffset(initial(R), initial(C), pitch, bytes, b);
      w.step = b.CreateAdd(b.CreateMul(pitch, b.getInt64(static_cast<uint64_t>(*dr))),
                           b.getInt64(static_cast<uint64_t>(*dc * static_cast<int64_t>(bytes))));
      if (narrow) {
        w.init = b.CreateTrunc(w.init, b.getInt32Ty());
        w.step = b.CreateTrunc(w.step, b.getInt32Ty());
      }
      lo.walks.push_back(w);
    }
  };
  scan(body);
  return lo;
}

void enterLoopOrigins(LoopOrigins& lo, llvm::BasicBlock* preheader, XeEmitContext& ctx) {
  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  for (LoopOrigins::Walk& w : lo.walks) {
    w.phi = b.CreatePHI(w.init->getType(), 2, "origin");
    w.phi->addIncoming(w.init, preheader);
  }
  // After every phi of the header: a 32-bit origin (lo.narrow) is used zero-extended.
  for (LoopOrigins::Walk& w : lo.walks)
    ctx.blockAddresses->carried[w.key] = lo.narrow ? b.CreateZExt(w.phi, b.getInt64Ty()) : w.phi;
}

void endLoopOrigins(LoopOrigins& lo, llvm::BasicBlock* latch, XeEmitContext& ctx) {
  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  for (LoopOrigins::Walk& w : lo.walks) {
    w.phi->addIncoming(b.CreateAdd(w.phi, w.step, "origin.next"), latch);
    ctx.blockAddresses->carried.erase(w.key);
  }
}

namespace {

// Builtin name -> the ISA line it leaves (reference §1, §2.2, §4, §6; each row proven by a probe
// in tests/isa/builtins). Keep in step with the emitters above and LLVMEmitter.cpp.
const std::map<std::string, std::string>& hardwareTable() {
  static const std::map<std::string, std::string> table = [] {
    std::map<std::string, std::string> t;
    for (const LoadForm& f : loadForms()) t[f.name] = f.isa;
    for (const DpasForm& f : dpasForms()) t[f.name] = f.isa;
    for (const SlmBlockForm& f : slmBlockForms()) t[f.name] = f.isa;
    for (const GlobalBlockForm& f : globalBlockForms()) t[f.name] = f.isa;
    t["__builtin_IB_lsc_prefetch_global_uint"] = R"(send\.ugm \((8|16)\|M0\) +null .*load\.ugm\.d32\.a64)";
    // LLVMEmitter.cpp: the workgroup barrier with its SLM fence. The fence, not sync.bar: IGC drops the
    // barrier itself when the workgroup is one subgroup (tests/isa/builtins/barrier_pvc_2sg.ir).
    t["_Z7barrierj"] = R"(\bfence\.slm\b)";
    // XeMath.cpp: the hardware exp2 and reciprocal of the written-out exp and division
    // (tests/isa/builtins/xe_math_{pvc,dg2}_f32.ir).
    t["_Z11native_exp2f"] = R"(\bmath\.exp\b)";
    t["_Z12native_recipf"] = R"(\bmath\.inv\b)";
    return t;
  }();
  return table;
}

}  // namespace

namespace {

// The header shape "WxHxB" of a 2D block load builtin, "" for other builtins.
std::string builtinBlockShape(const std::string& builtin) {
  for (const LoadForm& f : loadForms())
    if (f.name == builtin) return fmt::format("{}x{}x{}", f.w, f.h, f.n);
  return "";
}

}  // namespace

std::optional<std::string> hardwareCallPattern(const std::string& builtin) {
  auto it = hardwareTable().find(builtin);
  if (it != hardwareTable().end()) return it->second;
  for (const char* crossLane : {"sub_group_shuffle", "sub_group_broadcast", "sub_group_reduce_", "intel_sub_group_shuffle"})
    if (builtin.find(crossLane) != std::string::npos) return std::string();
  return std::nullopt;
}

namespace {

// The ISA line of an inline-vISA 2D block message (backends/spirv/VisaEmitter.cpp, reference §3):
// "lsc_store_block2d ... DATA:d32.1x16x8nn" -> store_block2d.ugm.d32; "lsc_load_block2d ... %null:d16..."
// -> a prefetch (null destination); any other load -> a load with its VNNI/transpose mnemonic.
// nullopt for other asm (not a hardware message xtc knows).
// A message sent through an explicit header (VisaEmitter.cpp, rawMessage) is "/* <its lsc form> */"
// followed by the header movs and one raw_sends, which the disassembly shows as a SIMD1 send.
std::optional<std::string> inlineVisaPattern(const std::string& text) {
  if (std::optional<std::string> lane = predicatedLanePattern(text)) return lane;  // VisaLanes.h
  std::smatch m;
  bool raw = text.starts_with("/* lsc_") && text.find(" */") != std::string::npos &&
             text.find("raw_sends.15.") != std::string::npos;
  const std::string form = raw ? text.substr(3, text.find(" */") - 3) : text;
  if (!std::regex_search(form, m, std::regex(R"(:d(8|16|32)\.\d+x\d+x\d+([nt])([nt]))"))) return std::nullopt;
  std::string bits = m[1];
  if (form.starts_with("lsc_store_block2d")) return R"(send\.ugm .*store_block2d\.ugm\.d)" + bits + R"(\.a64)";
  if (!form.starts_with("lsc_load_block2d")) return std::nullopt;
  const std::string simd = raw ? R"(send\.ugm \(1\|M0\))" : R"(send\.ugm \(16\|M0\))";
  if (form.find("%null") != std::string::npos) return simd + R"( +null .*load_block2d\.ugm\.d)" + bits + R"(\.a64)";
  std::string line = load2dLine("d" + bits + (m[2] == "t" ? "t" : "") + (m[3] == "t" ? "v" : ""));
  const std::string simd16 = R"(send\.ugm \(16)";
  if (raw && line.starts_with(simd16)) line = R"(send\.ugm \(1)" + line.substr(simd16.size());
  return line;
}

// The header shape of an inline-vISA 2D message: ":d16.2x16x8nn" (blocks x width x height) -> "16x8x2".
std::string inlineVisaShape(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(R"(:d(?:8|16|32)\.(\d+)x(\d+)x(\d+)[nt][nt])"))) return "";
  return fmt::format("{}x{}x{}", m[2].str(), m[3].str(), m[1].str());
}

}  // namespace

std::vector<isa::HardwareCall> listHardwareCalls(const llvm::Module& m) {
  std::map<std::string, isa::HardwareCall> calls;
  for (const llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    llvm::DominatorTree dt(const_cast<llvm::Function&>(f));
    llvm::LoopInfo loops(dt);
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& i : bb) {
        const auto* c = llvm::dyn_cast<llvm::CallInst>(&i);
        if (!c) continue;
        const llvm::Function* callee = c->getCalledFunction();
        const auto* asmCall = llvm::dyn_cast<llvm::InlineAsm>(c->getCalledOperand());
        if (!callee && !asmCall) continue;
        std::string name = callee ? callee->getName().str() : "inline vISA `" + asmCall->getAsmString() + "`";
        std::optional<std::string> pattern = callee ? hardwareCallPattern(name) : inlineVisaPattern(asmCall->getAsmString());
        if (!pattern) continue;
        isa::HardwareCall& hc = calls[name];
        hc.builtin = name;
        hc.isaPattern = *pattern;
        hc.blockShape = callee ? builtinBlockShape(name) : inlineVisaShape(asmCall->getAsmString());
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
