// Predicated per-lane messages on pvc (see VisaLanes.h). The statement of the gather of
// examples/gather_scatter.xt (Src[i] where i >= 0, padding 0.0):
//
//   /* lsc_load.ugm d32 predicated */
//   {
//   .decl laneud2 v_type=G type=ud num_elts=32 alias=<$2,0>     the i64 index ($2) as (lo, hi) dwords
//   .decl laneud3 v_type=G type=ud num_elts=2 alias=<$3,0>      the i64 extent ($3, uniform)
//   .decl laned2 v_type=G type=d num_elts=32 alias=<$2,0>       the index again, signed (the leaf)
//   .decl lanep v_type=P num_elts=16  (and laneq, laner)
//   cmp.lt (M1, 16) lanep laneud2(0,0)<2;1,0> laneud3(0,0)<0;1,0>   index <u extent on dwords:
//   cmp.eq (M1, 16) laneq laneud2(0,1)<2;1,0> laneud3(0,1)<0;1,0>     (lo < && hi ==) || hi <
//   and (M1, 16) lanep lanep laneq
//   cmp.lt (M1, 16) laner laneud2(0,1)<2;1,0> laneud3(0,1)<0;1,0>
//   or (M1, 16) lanep lanep laner
//   cmp.ge (M1, 16) laneq laned2(0,1)<2;1,0> 0x0:d        one compare per leaf of the mask (i >= 0:
//   and (M1, 16) lanep lanep laneq                          the high dword's sign), ANDed in
//   mov (M1, 16) $0(0,0)<1> 0x00000000:f                  the padding
//   (lanep) lsc_load.ugm (M1, 16) $0:d32 flat[$1]:a64      $1: the lane's byte address
//   }
//
// A disabled channel of a load keeps its destination register (IGC's own branch form relies on it
// for execution-masked lanes: it moves the padding into the send's destination under the other
// half of a goto, measured on this kernel before this form existed). The compares are dword
// compares: pvc has no 64-bit integer compare (IGC's PartialEmuI64Ops splits every i64 icmp), so the
// bounds check is IGC's own three-compare form, which the vISA finalizer turns into `cmp`, `(f) cmp`,
// `(~f) cmp` (measured); a leaf compare followed by its `and` becomes one compare predicated by the
// flag (`(f) cmp (gt)f ...`), so each leaf costs one instruction, as in IGC's branch form. vISA has
// no predicated cmp (IGC's parser rejects `(P) cmp`), hence the and/or on predicates.
#include "backends/spirv/VisaLanes.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <fmt/format.h>

#include <bit>
#include <map>

namespace xtc::backend {

namespace {

using ir::ElemKind;

// The statement's inputs: each distinct LLVM value once, numbered after the outputs.
struct Inputs {
  unsigned first;  // the number of the first input ($first)
  std::vector<llvm::Value*> values;
  std::vector<std::string> constraints;
  std::map<std::pair<llvm::Value*, std::string>, unsigned> numbers;  // per constraint: rw.u is one register
  std::string decls;  // the aliases the compares read through

  unsigned add(llvm::Value* v, const char* constraint) {
    auto [it, added] = numbers.try_emplace({v, constraint}, first + static_cast<unsigned>(values.size()));
    if (added) {
      values.push_back(v);
      constraints.push_back(constraint);
    }
    return it->second;
  }
  // An alias of input n as `type` (ud / d) with `elts` elements, declared once.
  std::string alias(unsigned n, const char* type, int elts) {
    std::string name = fmt::format("lane{}{}", type, n);
    std::string decl = fmt::format(".decl {} v_type=G type={} num_elts={} alias=<${},0>\n", name, type, elts, n);
    if (decls.find(decl) == std::string::npos) decls += decl;
    return name;
  }
};

// One side of a 32-bit compare: an immediate, or a per-lane region of the input (through a ud alias
// for an unsigned compare; IGC declares an i32 input as d and a float input as f).
std::optional<std::string> side32(llvm::Value* v, bool isUnsigned, Inputs& in) {
  if (auto* f = llvm::dyn_cast<llvm::ConstantFP>(v)) {
    if (!f->getType()->isFloatTy()) return std::nullopt;
    return fmt::format("0x{:08X}:f", std::bit_cast<uint32_t>(f->getValueAPF().convertToFloat()));
  }
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) {
    if (c->getBitWidth() != 32) return std::nullopt;
    return fmt::format("0x{:X}:{}", static_cast<uint32_t>(c->getZExtValue()), isUnsigned ? "ud" : "d");
  }
  if (!v->getType()->isFloatTy() && !v->getType()->isIntegerTy(32)) return std::nullopt;
  unsigned n = in.add(v, "rw");
  if (isUnsigned) return in.alias(n, "ud", 16) + "(0,0)<1;1,0>";
  return fmt::format("${}(0,0)<1;1,0>", n);
}

// A leaf of the mask as one vISA compare into laneq; std::nullopt for compares it does not make.
std::optional<std::string> leafCompare(llvm::CmpInst* c, Inputs& in) {
  using P = llvm::CmpInst::Predicate;
  llvm::Value* a = c->getOperand(0);
  llvm::Value* b = c->getOperand(1);
  P p = c->getPredicate();
  auto line = [](const char* op, const std::string& x, const std::string& y) {
    return fmt::format("cmp.{} (M1, 16) laneq {} {}\n", op, x, y);
  };
  if (llvm::isa<llvm::FCmpInst>(c)) {
    // Ordered compares are false on a NaN, as vISA's; `une` is vISA's ne (true on a NaN).
    static const std::map<P, const char*> ops = {{P::FCMP_OEQ, "eq"}, {P::FCMP_OLT, "lt"}, {P::FCMP_OLE, "le"},
                                                 {P::FCMP_OGT, "gt"}, {P::FCMP_OGE, "ge"}, {P::FCMP_UNE, "ne"}};
    auto it = ops.find(p);
    if (it == ops.end() || !a->getType()->isFloatTy()) return std::nullopt;
    auto x = side32(a, false, in), y = side32(b, false, in);
    if (!x || !y) return std::nullopt;
    return line(it->second, *x, *y);
  }
  if (a->getType()->isIntegerTy(32)) {
    static const std::map<P, const char*> ops = {{P::ICMP_EQ, "eq"},  {P::ICMP_NE, "ne"},  {P::ICMP_SLT, "lt"},
                                                 {P::ICMP_SLE, "le"}, {P::ICMP_SGT, "gt"}, {P::ICMP_SGE, "ge"},
                                                 {P::ICMP_ULT, "lt"}, {P::ICMP_ULE, "le"}, {P::ICMP_UGT, "gt"},
                                                 {P::ICMP_UGE, "ge"}};
    auto it = ops.find(p);
    if (it == ops.end()) return std::nullopt;
    bool u = llvm::ICmpInst::isUnsigned(p);
    auto x = side32(a, u, in), y = side32(b, u, in);
    if (!x || !y) return std::nullopt;
    return line(it->second, *x, *y);
  }
  if (!a->getType()->isIntegerTy(64)) return std::nullopt;
  // A 64-bit value's sign (x < 0, x >= 0 and their -1 forms): the sign of its high dword, one
  // compare. Other 64-bit compares are not made here.
  if (llvm::isa<llvm::ConstantInt>(a)) {
    std::swap(a, b);
    p = llvm::CmpInst::getSwappedPredicate(p);
  }
  auto* k = llvm::dyn_cast<llvm::ConstantInt>(b);
  if (!k || llvm::isa<llvm::Constant>(a)) return std::nullopt;
  int64_t kv = k->getSExtValue();
  bool negative = (p == P::ICMP_SLT && kv == 0) || (p == P::ICMP_SLE && kv == -1);
  bool nonNegative = (p == P::ICMP_SGE && kv == 0) || (p == P::ICMP_SGT && kv == -1);
  if (!negative && !nonNegative) return std::nullopt;
  std::string hi = in.alias(in.add(a, "rw"), "d", 32) + "(0,1)<2;1,0>";
  return line(negative ? "lt" : "ge", hi, "0x0:d");
}

// The mask as a list of leaf compares (true: none); false when it is not a conjunction of them.
bool collectLeaves(llvm::Value* v, std::vector<llvm::CmpInst*>& leaves) {
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v)) return c->isOne();
  if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(v); bo && bo->getOpcode() == llvm::Instruction::And)
    return collectLeaves(bo->getOperand(0), leaves) && collectLeaves(bo->getOperand(1), leaves);
  if (auto* c = llvm::dyn_cast<llvm::CmpInst>(v)) {
    leaves.push_back(c);
    return true;
  }
  return false;
}

// A load's padding as a vISA immediate of the destination's type (f32, i32, i64).
std::optional<std::string> padImmediate(llvm::Value* v) {
  if (auto* f = llvm::dyn_cast<llvm::ConstantFP>(v); f && f->getType()->isFloatTy())
    return fmt::format("0x{:08X}:f", std::bit_cast<uint32_t>(f->getValueAPF().convertToFloat()));
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v); c && c->getBitWidth() == 32)
    return fmt::format("0x{:X}:d", static_cast<uint32_t>(c->getZExtValue()));
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v); c && c->getBitWidth() == 64)
    return fmt::format("0x{:X}:q", c->getZExtValue());
  return std::nullopt;
}

const char* dataShape(ElemKind k) {
  switch (k) {
    case ElemKind::F32:
    case ElemKind::I32: return "d32";
    case ElemKind::I64:
    case ElemKind::Index: return "d64";
    default: return nullptr;
  }
}

}  // namespace

std::optional<llvm::Value*> emitPredicatedLaneMessage(llvm::IRBuilder<>& b, const LaneMessage& m) {
  const char* shape = dataShape(m.elem);
  std::vector<llvm::CmpInst*> leaves;
  if (!shape || !collectLeaves(m.mask, leaves)) return std::nullopt;
  Inputs in{m.store ? 0u : 1u, {}, {}, {}, {}};
  unsigned addr = in.add(m.address, "rw");
  std::string index = in.alias(in.add(m.index, "rw"), "ud", 32);
  std::string dimLo, dimHi;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(m.dim)) {
    dimLo = fmt::format("0x{:X}:ud", static_cast<uint32_t>(c->getZExtValue()));
    dimHi = fmt::format("0x{:X}:ud", static_cast<uint32_t>(c->getZExtValue() >> 32));
  } else {
    std::string n = in.alias(in.add(m.dim, "rw.u"), "ud", 2);
    dimLo = n + "(0,0)<0;1,0>";
    dimHi = n + "(0,1)<0;1,0>";
  }
  unsigned data = m.store ? in.add(m.data, "rw") : 0;
  std::string body = fmt::format(
      "cmp.lt (M1, 16) lanep {0}(0,0)<2;1,0> {1}\n"
      "cmp.eq (M1, 16) laneq {0}(0,1)<2;1,0> {2}\n"
      "and (M1, 16) lanep lanep laneq\n"
      "cmp.lt (M1, 16) laner {0}(0,1)<2;1,0> {2}\n"
      "or (M1, 16) lanep lanep laner\n",
      index, dimLo, dimHi);
  for (llvm::CmpInst* c : leaves) {
    std::optional<std::string> cmp = leafCompare(c, in);
    if (!cmp) return std::nullopt;
    body += *cmp + "and (M1, 16) lanep lanep laneq\n";
  }
  std::string send;
  if (m.store) {
    send = fmt::format("(lanep) lsc_store.ugm (M1, 16) flat[${}]:a64 ${}:{}\n", addr, data, shape);
  } else {
    // The padding first, as an immediate (tied to an input, IGC would copy it through a scalar it
    // also keeps); the send then overwrites the enabled lanes only.
    std::optional<std::string> pad = padImmediate(m.data);
    if (!pad) return std::nullopt;
    send = fmt::format("mov (M1, 16) $0(0,0)<1> {}\n(lanep) lsc_load.ugm (M1, 16) $0:{} flat[${}]:a64\n", *pad, shape, addr);
  }
  std::string text = fmt::format(
      "/* lsc_{}.ugm {} predicated */\n{{\n{}.decl lanep v_type=P num_elts=16\n.decl laneq v_type=P num_elts=16\n"
      ".decl laner v_type=P num_elts=16\n{}{}}}",
      m.store ? "store" : "load", shape, in.decls, body, send);

  std::vector<llvm::Value*> args = in.values;
  std::string constraints = m.store ? "" : "=rw,";
  for (size_t i = 0; i < in.constraints.size(); ++i) constraints += (i ? "," : "") + in.constraints[i];
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : args) types.push_back(a->getType());
  llvm::Type* ret = m.store ? b.getVoidTy() : m.data->getType();
  auto* fty = llvm::FunctionType::get(ret, types, false);
  // Side effects: the statement reads or writes memory, so -O2 must keep it where it is.
  llvm::CallInst* call = b.CreateCall(llvm::InlineAsm::get(fty, text, constraints, /*hasSideEffects=*/true), args);
  return m.store ? nullptr : static_cast<llvm::Value*>(call);
}

namespace {

// The text of a masked store (emitMaskedLaneStore): $0 the address, $1 the mask word (IGC declares an
// i32 input as d), $2 the data, register `reg` of it when `reg` is set (storeRegistersFromVectors).
// The comment line is predicatedLanePattern's (the same predicated send): `shape` the ISA's name of
// the data, `visaShape` vISA's (they differ for 8/16-bit data: d8u32 / d8c32, d16u32 / d16c32).
std::string maskedStoreText(const char* shape, const char* visaShape, std::optional<unsigned> reg) {
  std::string data = "$2";
  std::string decl;
  if (reg) {
    data = "laned";
    decl = fmt::format(".decl laned v_type=G type=ud num_elts=16 alias=<$2,{}>\n", *reg * 64);
  }
  return fmt::format(
      "/* lsc_store.ugm {0} predicated */\n{{\n.decl lanep v_type=P num_elts=16\n{1}"
      "cmp.ne (M1, 16) lanep $1(0,0)<1;1,0> 0x0:d\n"
      "(lanep) lsc_store.ugm (M1, 16) flat[$0]:a64 {2}:{3}\n}}",
      shape, decl, data, visaShape);
}

}  // namespace

std::optional<llvm::Value*> emitMaskedLaneStore(llvm::IRBuilder<>& b, ElemKind elem, llvm::Value* address,
                                                llvm::Value* maskWord, llvm::Value* data) {
  const char* shape = dataShape(elem);  // the ISA's name of the message's data (the comment line)
  const char* visaShape = shape;         // vISA's
  // 8/16-bit data: LSC moves one element per lane from the low bits of a dword, so the value goes in
  // zero-extended to i32 (a SIMT i16/half operand would be 16 lanes of packed words, not one dword
  // each). vISA calls the shape d16c32 / d8c32 (IGC's CISA.l; `d16u32` is no vISA token: ocloc
  // crashed on it, exit -11), the disassembly store.ugm.d16u32 / d8u32. Proof:
  // tests/isa/builtins/visa_lane_store_d16_d8.ir.
  unsigned bits = elem == ElemKind::I8 ? 8 : elem == ElemKind::I16 || elem == ElemKind::F16 || elem == ElemKind::BF16 ? 16 : 0;
  if (bits && data->getType()->getPrimitiveSizeInBits() == bits) {
    shape = bits == 8 ? "d8u32" : "d16u32";
    visaShape = bits == 8 ? "d8c32" : "d16c32";
    data = b.CreateZExt(b.CreateBitCast(data, b.getIntNTy(bits)), b.getInt32Ty());
  }
  if (!shape || !maskWord->getType()->isIntegerTy(32)) return std::nullopt;
  std::vector<llvm::Value*> args{address, maskWord, data};
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {address->getType(), maskWord->getType(), data->getType()}, false);
  b.CreateCall(llvm::InlineAsm::get(fty, maskedStoreText(shape, visaShape, std::nullopt), "rw,rw,rw", /*hasSideEffects=*/true),
               args);
  return address;
}

unsigned storeRegistersFromVectors(llvm::Module& m) {
  const std::string scalarText = maskedStoreText("d32", "d32", std::nullopt);
  unsigned rewritten = 0;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : llvm::make_early_inc_range(bb)) {
        auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
        auto* ia = call ? llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()) : nullptr;
        if (!ia || ia->getAsmString() != scalarText || call->arg_size() != 3) continue;
        auto* ext = llvm::dyn_cast<llvm::ExtractElementInst>(call->getArgOperand(2));
        auto* reg = ext ? llvm::dyn_cast<llvm::ConstantInt>(ext->getIndexOperand()) : nullptr;
        auto* vt = ext ? llvm::dyn_cast<llvm::FixedVectorType>(ext->getVectorOperandType()) : nullptr;
        // 32-bit registers only: one GRF each (a d64 register would be two).
        if (!reg || !vt || vt->getElementType()->getPrimitiveSizeInBits() != 32 ||
            reg->getZExtValue() >= vt->getNumElements())
          continue;
        llvm::Value* vec = ext->getVectorOperand();
        llvm::Value* address = call->getArgOperand(0);
        llvm::Value* mask = call->getArgOperand(1);
        auto* fty = llvm::FunctionType::get(call->getType(), {address->getType(), mask->getType(), vec->getType()}, false);
        std::string text = maskedStoreText("d32", "d32", static_cast<unsigned>(reg->getZExtValue()));
        llvm::IRBuilder<> b(call);
        llvm::CallInst* wide =
            b.CreateCall(llvm::InlineAsm::get(fty, text, "rw,rw,rw", /*hasSideEffects=*/true), {address, mask, vec});
        wide->setAttributes(call->getAttributes());
        call->eraseFromParent();
        if (ext->use_empty()) ext->eraseFromParent();
        ++rewritten;
      }
  return rewritten;
}

std::optional<std::string> predicatedLanePattern(const std::string& asmText) {
  for (const char* kind : {"load", "store"})
    for (const char* shape : {"d32", "d64", "d16u32", "d8u32"})
      if (asmText.starts_with(fmt::format("/* lsc_{}.ugm {} predicated */", kind, shape)))
        return fmt::format(R"(^\s*\(~?f[0-9]+\.[0-9]+\) +send\.ugm \(16\|M0\) .*{}\.ugm\.{}\.a64)", kind, shape);
  return std::nullopt;
}

}  // namespace xtc::backend
