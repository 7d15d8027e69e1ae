// xe.store_2d, xe.prefetch_2d, and the xe.load_2d forms with no builtin (d16 16x8x2, plain d16 16xHx1,
// plain d32 16xH / 8x8, plain d8 32x16; see VisaEmitter.h). The vISA forms
// (reference §3):
//   lsc_store_block2d.ugm (M1, 16) flat[base,w-1,h-1,p-1,x,y] DATA:dBITS.1xWxHnn
//   lsc_load_block2d.ugm.L1.L3 (M1, 16) %null:dBITS.BxWxHnn flat[base,w-1,h-1,p-1,x,y]   (prefetch)
// The surface operands are subgroup-uniform ("rw.u"); the stored data is the lane's registers
// ("rw"), which IGC lays out as the message payload (register i of lane j at (16 i + j) elements).
// The builtins mode writes what the builtins path can: a masked per-lane store per register (the
// hardware's clipping: outside the surface nothing is written) and one per-lane dword prefetch per
// row of the message. Also the f32 lane.reduce add and max as one vISA statement (visaReduceF32).
#include "backends/spirv/VisaEmitter.h"

#include "backends/spirv/LoopCoords.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Module.h>

#include <fmt/format.h>

#include <algorithm>
#include <variant>

namespace xtc::backend {

namespace {

// The six surface operands of a message: base, width-1, height-1, pitch-1, x, y (reference §2.1).
std::vector<llvm::Value*> surfaceArgs(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  auto minus1 = [&](unsigned i) { return b.CreateSub(ctx.get(op.operand(i)).at(0), b.getInt32(1)); };
  return {ctx.get(op.operand(0)).at(0), minus1(1), minus1(2), minus1(3), ctx.get(op.operand(4)).at(0),
          ctx.get(op.operand(5)).at(0)};
}

llvm::Value* laneId(XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  llvm::Module& m = ctx.module;
  llvm::Function* f = m.getFunction("_Z22get_sub_group_local_idv");
  if (!f) {
    f = llvm::Function::Create(llvm::FunctionType::get(b.getInt32Ty(), false), llvm::Function::ExternalLinkage,
                               "_Z22get_sub_group_local_idv", m);
    f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr(llvm::Attribute::ReadNone);
  }
  llvm::CallInst* c = b.CreateCall(f);
  c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  return c;
}


// ---- Headers built once (VisaEmitter.h, VisaHeaders) ----

// The header's block-shape dword (reference §2.1).
uint32_t shapeDword(int64_t w, int64_t h, int64_t blocks) {
  return static_cast<uint32_t>((w - 1) | ((h - 1) << 8) | ((blocks - 1) << 16));
}

// The descriptor of a raw 2D block message (reference §2.1; the same bits VisaLoop.cpp sends, and
// IGC's own lsc_store_block2d d32 16x8 descriptor 0x2000407, tests/isa/builtins/visa_store_2d_d32_16x8.ir):
// opcode 3 load / 7 store, VNNI bit 7, data size bits 9-11 (d8 0, d16 1, d32 2), L1/L3 cache bits
// 17-19 (prefetch: cached 4, uncached L1 2), response GRFs bits 20-24, one header GRF bits 25-28.
uint32_t descriptor2d(bool store, int64_t bits, int64_t respBytes, int cache) {
  uint32_t size = bits == 8 ? 0u : bits == 16 ? 1u : 2u;
  return (store ? 7u : 3u) | size << 9 | static_cast<uint32_t>(cache) << 17 |
         static_cast<uint32_t>(respBytes / 64) << 20 | 1u << 25;
}

llvm::Value* callAsmValue(llvm::IRBuilder<>& b, llvm::Type* ret, const std::string& text, const std::string& constraints,
                          const std::vector<llvm::Value*>& args, bool sideEffects) {
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : args) types.push_back(a->getType());
  auto* fty = llvm::FunctionType::get(ret, types, false);
  // Not marked readnone: -O2 would merge equal header builds across a loop, and the header would
  // hold a register through it (emitFor drops shared headers at a loop for that reason).
  return b.CreateCall(llvm::InlineAsm::get(fty, text, constraints, sideEffects), args);
}

// The inputs of one asm statement after its `nOut` outputs. A constant is written into the text as
// an immediate: IGC fails to parse a region of an immediate ("16(0,0)<0;1,0>").
struct AsmInputs {
  unsigned nOut;
  std::string constraints;
  std::vector<llvm::Value*> values;
  std::string add(llvm::Value* v, const char* c) {
    values.push_back(v);
    constraints += std::string(",") + c;
    return fmt::format("${}", nOut + values.size() - 1);
  }
  // "dst = v + plus" as one mov/add line (dst a header field, "$0(0,5)<1>").
  std::string set(const std::string& dst, llvm::Value* v, int64_t plus = 0) {
    if (const auto* c = llvm::dyn_cast<llvm::ConstantInt>(v))
      return fmt::format("mov (M1_NM,1) {} {}:d\n", dst, c->getSExtValue() + plus);
    std::string src = add(v, "rw.u") + "(0,0)<0;1,0>";
    return plus ? fmt::format("add (M1_NM,1) {} {} {}:d\n", dst, src, plus) : fmt::format("mov (M1_NM,1) {} {}\n", dst, src);
  }
};

// A new header for the surface (base, width, height, pitch: the op's own operand values) and shape;
// the coordinates are left to the message.
llvm::Value* buildHeader(llvm::IRBuilder<>& b, const VisaHeaders::Slot& s, bool qwordBase) {
  llvm::Value* lo = b.CreateTrunc(s.base, b.getInt32Ty());
  llvm::Value* hi = b.CreateTrunc(b.CreateLShr(s.base, b.getInt64(32)), b.getInt32Ty());
  AsmInputs in{1, "=rw", {}};
  std::string t;  // one statement per field: the operands are numbered in order
  if (qwordBase)  // dwords 0-1 as one qword (VisaHeaders::qwordBase)
    t = fmt::format("{{\n.decl xtc_hq v_type=G type=uq num_elts=1 alias=<$0,0>\nmov (M1_NM,1) xtc_hq(0,0)<1> {}(0,0)<0;1,0>\n}}\n",
                    in.add(s.base, "rw.u"));
  else
    t = in.set("$0(0,0)<1>", lo) + in.set("$0(0,1)<1>", hi);
  t += in.set("$0(0,2)<1>", s.width, -1);
  t += in.set("$0(0,3)<1>", s.height, -1);
  t += in.set("$0(0,4)<1>", s.pitch, -1);
  t += fmt::format("mov (M1_NM,1) $0(0,7)<1> {:#x}:ud", s.shape);
  return callAsmValue(b, b.getInt32Ty(), t, in.constraints, in.values, /*sideEffects=*/false);
}

// `header` with its x (if x) and y (if y) set: the fields written in place (the result is tied to it).
llvm::Value* setCoords(llvm::IRBuilder<>& b, llvm::Value* header, llvm::Value* x, llvm::Value* y) {
  AsmInputs in{1, "=rw", {}};
  in.add(header, "0");
  std::string t = x ? in.set("$0(0,5)<1>", x) : "";
  if (y) t += in.set("$0(0,6)<1>", y);
  t.pop_back();
  return callAsmValue(b, b.getInt32Ty(), t, in.constraints, in.values, /*sideEffects=*/false);
}

// `header` with the steps added to its x (dword 5) and y (dword 6) in place (the result is tied to
// it): a loop's advance of its stepped coordinates after the send (VisaHeaders::Slot::stepX).
llvm::Value* stepCoords(llvm::IRBuilder<>& b, llvm::Value* header, int64_t dx, int64_t dy) {
  std::string t;
  for (auto [dword, d] : {std::pair{5, dx}, std::pair{6, dy}})
    if (d) t += fmt::format("add (M1_NM,1) $0(0,{0})<1> $0(0,{0})<0;1,0> {1}:d\n", dword, static_cast<int32_t>(d));
  t.pop_back();
  return callAsmValue(b, b.getInt32Ty(), t, "=rw,0", {header}, /*sideEffects=*/false);
}

// The message's own header (a loop's, prepareLoopHeaders), else the surface's shared one, else null.
VisaHeaders::Slot* findSlot(VisaHeaders& hs, const VisaHeaders::Slot& key, const ir::Operation* op) {
  for (VisaHeaders::Slot& s : hs.slots)
    if (s.op && s.op == op) return &s;
  for (VisaHeaders::Slot& s : hs.slots)
    if (!s.op && s.base == key.base && s.width == key.width && s.height == key.height && s.pitch == key.pitch &&
        s.shape == key.shape)
      return &s;
  return nullptr;
}

// Whether two coordinate values are the same: the same value, or the same integer cast of the same
// value (prepareLoopHeaders re-creates the arith.convert of a loop-invariant index before the loop).
bool sameCoord(const llvm::Value* a, const llvm::Value* b) {
  if (a == b) return true;
  const auto* ca = llvm::dyn_cast_or_null<llvm::CastInst>(a);
  const auto* cb = llvm::dyn_cast_or_null<llvm::CastInst>(b);
  return ca && cb && ca->getOpcode() == cb->getOpcode() && ca->getDestTy() == cb->getDestTy() &&
         sameCoord(ca->getOperand(0), cb->getOperand(0));
}

VisaHeaders::Slot surfaceKey(const ir::Operation& op, XeEmitContext& ctx, uint32_t shape) {
  return {ctx.get(op.operand(0)).at(0), ctx.get(op.operand(1)).at(0), ctx.get(op.operand(2)).at(0),
          ctx.get(op.operand(3)).at(0), shape, nullptr};
}

// One 2D block message through an explicit header: `form` names it for --verify-isa and readers
// (a vISA comment: "/* lsc_load_block2d :d32.1x16x8nn */"), `data` is the stored value (stores),
// `resp` the response type (loads; null for stores and prefetches). x is `xOffset` past the op's x.
// Returns the response.
llvm::Value* rawMessage(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b, uint32_t shape,
                        uint32_t desc, const std::string& form, llvm::Value* data, int64_t dataGrfs, llvm::Type* resp,
                        int64_t xOffset = 0) {
  VisaHeaders& hs = *ctx.headers;  // set in vISA mode (emitVisaOp)
  VisaHeaders::Slot key = surfaceKey(op, ctx, shape);
  VisaHeaders::Slot* slot = findSlot(hs, key, &op);
  if (!slot) {
    key.header = buildHeader(b, key, hs.qwordBase);
    hs.slots.push_back(key);
    slot = &hs.slots.back();
  }
  llvm::Value* x = ctx.get(op.operand(4)).at(0);
  if (xOffset) x = b.CreateAdd(x, b.getInt32(static_cast<uint32_t>(xOffset)));
  llvm::Value* y = ctx.get(op.operand(5)).at(0);
  // The coordinates that differ from the ones the header holds are written in place (a new header
  // value tied to the old one: the same register, no copy while the old one dies here). The message
  // reads the header: it is no output of the send's statement, as IGC binds an unused output to
  // `null` and then fails to parse "null.0". A stepped coordinate is in the header already.
  bool setX = !slot->stepX && !sameCoord(slot->x, x), setY = !slot->stepY && !sameCoord(slot->y, y);
  if (setX || setY) slot->header = setCoords(b, slot->header, setX ? x : nullptr, setY ? y : nullptr);
  slot->x = x;
  slot->y = y;
  AsmInputs in{resp ? 1u : 0u, resp ? "=rw" : "", {}};
  std::string h = in.add(slot->header, "rw");
  std::string t = fmt::format("/* {} */\n", form);
  if (resp)
    t += fmt::format("raw_sends.15.1.0.{} (M1_NM, 1) 0x0:ud {:#x}:ud {}.0 %null.0 $0.0", (desc >> 20) & 31, desc, h);
  else if (data)
    t += fmt::format("raw_sends.15.1.{}.0 (M1_NM, 1) 0x0:ud {:#x}:ud {}.0 {}.0 %null.0", dataGrfs, desc, h, in.add(data, "rw"));
  else
    t += fmt::format("raw_sends.15.1.0.0 (M1_NM, 1) 0x0:ud {:#x}:ud {}.0 %null.0 %null.0", desc, h);
  std::string cons = in.constraints.starts_with(",") ? in.constraints.substr(1) : in.constraints;
  llvm::Value* r = callAsmValue(b, resp ? resp : b.getVoidTy(), t, cons, in.values, /*sideEffects=*/true);
  int64_t dx = slot->stepX.value_or(0), dy = slot->stepY.value_or(0);
  if (dx || dy) slot->header = stepCoords(b, slot->header, dx, dy);
  return r;
}

// Whether the op's shape is in `table` (the target's stores or prefetches: each entry has a
// tests/isa/builtins/visa_*.ir probe, tests/unit/isa/TargetTableProbesTest.cpp).
bool inTable(const ir::Operation& op, const std::vector<targets::BlockShape>& table) {
  for (const targets::BlockShape& s : table)
    if (op.intAttr("elem_bits", 0) == s.elemBits && op.intAttr("block_w", 0) == s.width &&
        op.intAttr("block_h", 0) == s.height && op.intAttr("array_len", 1) == s.arrayLength &&
        op.boolAttr("vnni") == s.vnni && op.boolAttr("transpose") == s.transpose)
      return true;
  return false;
}

// Checks shared by both modes: pvc, a shape of the target table.
std::string checkStore(const ir::Operation& op, const XeEmitContext& ctx, int64_t bits, int64_t w, int64_t h) {
  if (ctx.target.kind != targets::TargetKind::Pvc)
    return fmt::format("xe.store_2d on target '{}': 2D block IO exists only on pvc (reference §2.5)", ctx.target.name);
  if (!inTable(op, ctx.target.blockStores))
    return fmt::format("xe.store_2d d{} {}x{} has no form proven by an ISA test yet (not implemented yet)", bits, w, h);
  return "";
}

std::string emitStore2d(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b, XeCodegen mode) {
  int64_t bits = op.intAttr("elem_bits", 0), w = op.intAttr("block_w", 0), h = op.intAttr("block_h", 0);
  if (std::string e = checkStore(op, ctx, bits, w, h); !e.empty()) return e;
  const std::vector<llvm::Value*>& regs = ctx.get(op.operand(6));
  if (static_cast<int64_t>(regs.size()) != h) return "xe.store_2d: the value does not hold one register per row";
  if (mode == XeCodegen::Visa) {
    // The data as one <h x T> vector of the registers' own type (vISA reads raw bits; keeping the
    // type lets -O2 pass a DPAS result or a loop's vector phi through unchanged).
    llvm::Type* it = regs[0]->getType();
    llvm::Value* data = llvm::UndefValue::get(llvm::FixedVectorType::get(it, static_cast<unsigned>(h)));
    for (int64_t i = 0; i < h; ++i)
      data = b.CreateInsertElement(data, regs[static_cast<size_t>(i)], b.getInt32(static_cast<uint32_t>(i)));
    if (h == 1) data = b.CreateExtractElement(data, b.getInt32(0));
    rawMessage(op, ctx, b, shapeDword(w, h, 1), descriptor2d(true, bits, 0, 0),
               fmt::format("lsc_store_block2d DATA:d{}.1x{}x{}nn", bits, w, h), data, (w * h * bits / 8 + 63) / 64, nullptr);
    return "";
  }
  // Builtins: register i of lane j is element (y + i, x + j); dropped outside the surface.
  llvm::Value* eb = b.getInt32(static_cast<uint32_t>(bits / 8));
  llvm::Value* col = b.CreateAdd(ctx.get(op.operand(4)).at(0), laneId(ctx, b));
  llvm::Value* colBytes = b.CreateMul(col, eb);
  llvm::Value* inCols = b.CreateICmpULT(colBytes, ctx.get(op.operand(1)).at(0));
  llvm::Type* it = b.getIntNTy(static_cast<unsigned>(bits));
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  for (int64_t i = 0; i < h; ++i) {
    llvm::Value* row = b.CreateAdd(ctx.get(op.operand(5)).at(0), b.getInt32(static_cast<uint32_t>(i)));
    llvm::Value* ok = b.CreateAnd(inCols, b.CreateICmpULT(row, ctx.get(op.operand(2)).at(0)));
    llvm::BasicBlock* doStore = llvm::BasicBlock::Create(b.getContext(), "store2d", fn);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "store2d.end", fn);
    b.CreateCondBr(ok, doStore, next);
    b.SetInsertPoint(doStore);
    llvm::Value* off = b.CreateAdd(b.CreateMul(b.CreateZExt(row, b.getInt64Ty()), b.CreateZExt(ctx.get(op.operand(3)).at(0), b.getInt64Ty())),
                                   b.CreateZExt(colBytes, b.getInt64Ty()));
    llvm::Value* addr = b.CreateIntToPtr(b.CreateAdd(ctx.get(op.operand(0)).at(0), off), llvm::PointerType::get(it, 1));
    b.CreateAlignedStore(b.CreateBitCast(regs[static_cast<size_t>(i)], it), addr, llvm::Align(static_cast<uint64_t>(bits / 8)));
    b.CreateBr(next);
    b.SetInsertPoint(next);
  }
  return "";
}

std::string emitPrefetch2d(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b, XeCodegen mode) {
  int64_t bits = op.intAttr("elem_bits", 0), w = op.intAttr("block_w", 0), h = op.intAttr("block_h", 0),
          n = op.intAttr("array_len", 1);
  if (ctx.target.kind != targets::TargetKind::Pvc)
    return fmt::format("xe.prefetch_2d on target '{}': 2D block IO exists only on pvc (reference §2.5)", ctx.target.name);
  if (!inTable(op, ctx.target.blockPrefetches))
    return fmt::format("xe.prefetch_2d d{} {}x{}x{} has no form proven by an ISA test yet (not implemented yet)", bits, n,
                       w, h);
  const ir::Attribute* c = op.attr("cache");
  bool l1 = !c || !c->isa(ir::AttrKind::Enum) || c->getString() != "uncached";
  if (mode == XeCodegen::Visa) {
    rawMessage(op, ctx, b, shapeDword(w, h, n), descriptor2d(false, bits, 0, l1 ? 4 : 2),
               fmt::format("lsc_load_block2d.ugm.{}.ca %null:d{}.{}x{}x{}nn", l1 ? "ca" : "uc", bits, n, w, h), nullptr, 0,
               nullptr);
    return "";
  }
  // Builtins: lane j prefetches the dword at the start of rows j, j + 16, ... of the message (rows
  // are at most 64 bytes: one cache line); rows outside the surface prefetch the base instead.
  llvm::Type* ptrTy = llvm::PointerType::get(b.getInt32Ty(), 1);
  llvm::Function* f = ctx.module.getFunction("__builtin_IB_lsc_prefetch_global_uint");
  if (!f) {
    f = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptrTy, b.getInt32Ty(), b.getInt32Ty()}, false),
                               llvm::Function::ExternalLinkage, "__builtin_IB_lsc_prefetch_global_uint", ctx.module);
    f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    f->addFnAttr(llvm::Attribute::NoUnwind);
  }
  llvm::Value* lane = laneId(ctx, b);
  llvm::Value* x = b.CreateMul(ctx.get(op.operand(4)).at(0), b.getInt32(static_cast<uint32_t>(bits / 8)));
  for (int64_t r0 = 0; r0 < h; r0 += ctx.target.subgroupSize) {
    llvm::Value* r = b.CreateAdd(lane, b.getInt32(static_cast<uint32_t>(r0)));
    llvm::Value* row = b.CreateAdd(ctx.get(op.operand(5)).at(0), r);
    llvm::Value* ok = b.CreateAnd(b.CreateICmpULT(r, b.getInt32(static_cast<uint32_t>(h))),
                                  b.CreateAnd(b.CreateICmpULT(row, ctx.get(op.operand(2)).at(0)),
                                              b.CreateICmpULT(x, ctx.get(op.operand(1)).at(0))));
    llvm::Value* off = b.CreateAdd(b.CreateMul(b.CreateZExt(row, b.getInt64Ty()), b.CreateZExt(ctx.get(op.operand(3)).at(0), b.getInt64Ty())),
                                   b.CreateZExt(x, b.getInt64Ty()));
    off = b.CreateSelect(ok, b.CreateAnd(off, b.getInt64(~uint64_t(3))), b.getInt64(0));
    llvm::Value* addr = b.CreateIntToPtr(b.CreateAdd(ctx.get(op.operand(0)).at(0), off), ptrTy);
    llvm::CallInst* call = b.CreateCall(f, {addr, b.getInt32(0), b.getInt32(l1 ? 4 : 2)});
    call->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  }
  return "";
}

// A d16 16x8x2 load (the A operand message) as two inline-vISA 1x16x8 loads of <8 x i16>, block 0
// at x and block 1 at x + 16: the same registers as the 2-block response (reference §2.3), but each
// half is exactly a DPAS A operand, so IGC does not copy it out of a 16-register value (reference §4:
// 8 movs per operand; gemm_bf16: 137 -> 97 movs per K step, 4 more sends).
std::optional<std::string> emitLoad2d(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  if (ctx.target.kind != targets::TargetKind::Pvc || op.intAttr("elem_bits", 0) != 16 || op.intAttr("block_w", 0) != 16 ||
      op.intAttr("block_h", 0) != 8 || op.intAttr("array_len", 1) != 2 || op.boolAttr("vnni") || op.boolAttr("transpose"))
    return std::nullopt;  // the builtins (XeBuiltins.cpp)
  const ir::Type& rt = op.result()->type();
  if (rt.shape()[0] != 16 || ir::elemBits(rt.elem()) != 16) return std::nullopt;
  llvm::Type* half = llvm::FixedVectorType::get(b.getInt16Ty(), 8);
  std::vector<llvm::Value*> regs;
  for (int blk = 0; blk < 2; ++blk) {
    llvm::Type* regTy = rt.elem() == ir::ElemKind::F16 ? b.getHalfTy() : b.getInt16Ty();
    llvm::Value* v = rawMessage(op, ctx, b, shapeDword(16, 8, 1), descriptor2d(false, 16, 256, 0),
                                "lsc_load_block2d $0:d16.1x16x8nn", nullptr, 0, half, blk * 16);
    for (unsigned i = 0; i < 8; ++i) {
      llvm::Value* e = b.CreateExtractElement(v, b.getInt32(i));
      regs.push_back(regTy == e->getType() ? e : b.CreateBitCast(e, regTy));
    }
  }
  ctx.set(op.result(), regs);
  return "";
}

// One inline-vISA 2D load "lsc_load_block2d ... $0:<form> flat[surface]" whose response is `retTy`
// per lane, after the checks every form here shares (pvc, a shape of the table). Returns the error
// text instead when a check fails.
std::variant<llvm::Value*, std::string> loadAsm(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b,
                                                llvm::Type* retTy, const std::string& form) {
  if (ctx.target.kind != targets::TargetKind::Pvc)
    return fmt::format("xe.load_2d on target '{}': 2D block IO exists only on pvc (reference §2.5)", ctx.target.name);
  if (!inTable(op, ctx.target.blockLoads))
    return fmt::format("xe.load_2d {} has no form proven by an ISA test yet (not implemented yet)", form);
  // The response in whole GRFs (a 32-byte d16/d8 row is half a register: IGC's own message pads it).
  int64_t respBytes = static_cast<int64_t>(retTy->getPrimitiveSizeInBits() / 8) * 16;
  if (ctx.headers && respBytes % 64 == 0) {
    int64_t bits = op.intAttr("elem_bits", 0);
    return rawMessage(op, ctx, b,
                      shapeDword(op.intAttr("block_w", 0), op.intAttr("block_h", 0), op.intAttr("array_len", 1)),
                      descriptor2d(false, bits, respBytes, 0), "lsc_load_block2d $0:" + form, nullptr, 0, retTy);
  }
  std::vector<llvm::Value*> surf = surfaceArgs(op, ctx, b);
  std::vector<llvm::Type*> types;
  for (llvm::Value* a : surf) types.push_back(a->getType());
  auto* fty = llvm::FunctionType::get(retTy, types, false);
  return b.CreateCall(llvm::InlineAsm::get(fty, "lsc_load_block2d.ugm (M1, 16) $0:" + form + " flat[$1,$2,$3,$4,$5,$6]",
                                           "=rw,rw.u,rw.u,rw.u,rw.u,rw.u,rw.u", /*hasSideEffects=*/true),
                      surf);
}

// A plain d16 load of one block 16 wide x H rows (reference §2.5: d16 16x1..32x{1,2}; no builtin
// reads a single block, §2.2), inline vISA lsc_load_block2d d16.1x16xHnn in both codegen modes. The
// response is H rows of 32 bytes; as a <H x i16> value IGC puts register i of lane j at byte
// 2 (16 i + j): the element (y + i, x + j), zero outside the surface. One row (H = 1, the A operand
// of a 1-row DPAS) is half a GRF that the message still writes whole: it is taken as <2 x i16> (one
// GRF, so no other value can share the register the response pads) and element 1 is dropped.
std::optional<std::string> emitLoad2dD16x1(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  int64_t h = op.intAttr("block_h", 0);
  if (op.intAttr("elem_bits", 0) != 16 || op.intAttr("block_w", 0) != 16 || op.intAttr("array_len", 1) != 1 ||
      op.boolAttr("vnni") || op.boolAttr("transpose"))
    return std::nullopt;
  const ir::Type& rt = op.result()->type();
  if (rt.shape()[0] != h || ir::elemBits(rt.elem()) != 16) return "xe.load_2d: the result does not hold one 16-bit register per row";
  const unsigned slots = static_cast<unsigned>(std::max<int64_t>(h, 2));
  auto v = loadAsm(op, ctx, b, llvm::FixedVectorType::get(b.getInt16Ty(), slots), fmt::format("d16.1x16x{}nn", h));
  if (auto* e = std::get_if<std::string>(&v)) return *e;
  llvm::Type* regTy = rt.elem() == ir::ElemKind::F16 ? b.getHalfTy() : b.getInt16Ty();  // bf16, i16: raw bits
  std::vector<llvm::Value*> regs;
  for (int64_t i = 0; i < h; ++i) {
    llvm::Value* e = b.CreateExtractElement(std::get<llvm::Value*>(v), b.getInt32(static_cast<uint32_t>(i)));
    regs.push_back(regTy == e->getType() ? e : b.CreateBitCast(e, regTy));
  }
  ctx.set(op.result(), regs);
  return "";
}

// A plain d32 load of one block 16 or 8 wide (reference §2.5: d32 is 8 wide x 1..32 rows x {1,2}
// blocks or 16 wide x 1..32 rows x 1 block; no builtin is proven for it, so both codegen modes use
// inline vISA lsc_load_block2d d32.1xWxHnn). The response is W * H / 16 registers, register i of lane
// j the response's dword 16 i + j: the element (y + i, x + j) when W = 16, (y + 2 i + j / 8, x + j % 8)
// when W = 8 (zero outside the surface).
std::optional<std::string> emitLoad2dD32(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  if (op.intAttr("elem_bits", 0) != 32 || op.intAttr("array_len", 1) != 1 || op.boolAttr("vnni") || op.boolAttr("transpose"))
    return std::nullopt;
  int64_t w = op.intAttr("block_w", 0), h = op.intAttr("block_h", 0);
  const int64_t n = w * h / 16;  // registers per lane
  if (op.result()->type().shape()[0] != n || n < 1) return "xe.load_2d: the result does not hold the message's W x H / 16 registers";
  llvm::Type* retTy = n == 1 ? static_cast<llvm::Type*>(b.getInt32Ty())
                             : llvm::FixedVectorType::get(b.getInt32Ty(), static_cast<unsigned>(n));
  auto v = loadAsm(op, ctx, b, retTy, fmt::format("d32.1x{}x{}nn", w, h));
  if (auto* e = std::get_if<std::string>(&v)) return *e;
  llvm::Type* regTy = op.result()->type().elem() == ir::ElemKind::F32 ? b.getFloatTy() : b.getInt32Ty();
  std::vector<llvm::Value*> regs;
  for (int64_t i = 0; i < n; ++i) {
    llvm::Value* r = n == 1 ? std::get<llvm::Value*>(v) : b.CreateExtractElement(std::get<llvm::Value*>(v), b.getInt32(static_cast<uint32_t>(i)));
    regs.push_back(regTy == r->getType() ? r : b.CreateBitCast(r, regTy));
  }
  ctx.set(op.result(), regs);
  return "";
}

// A plain d8 load of one block 32 wide x H rows (reference §2.5: d8 32x1..32x{1,2}; the builtins
// always read 2 blocks, §2.2), inline vISA lsc_load_block2d d8.1x32xHnn in both codegen modes. The
// response is H rows of 32 bytes; taken as <H x i16> (IGC puts element i of lane j at byte
// 2 (16 i + j): bytes 2j and 2j+1 of row i, reference §2.3 "u8 as i16"), each slot splits into two i8
// registers, the low byte first: register 2i = (y + i, x + 2j), 2i + 1 = (y + i, x + 2j + 1).
std::optional<std::string> emitLoad2dD8(const ir::Operation& op, XeEmitContext& ctx, llvm::IRBuilder<>& b) {
  int64_t h = op.intAttr("block_h", 0);
  if (op.intAttr("elem_bits", 0) != 8 || op.intAttr("block_w", 0) != 32 || op.intAttr("array_len", 1) != 1 ||
      op.boolAttr("vnni") || op.boolAttr("transpose"))
    return std::nullopt;
  const ir::Type& rt = op.result()->type();
  if (rt.shape()[0] != 2 * h || ir::elemBits(rt.elem()) != 8) return "xe.load_2d: the result does not hold two i8 registers per row";
  // One row: padded to a whole GRF as emitLoad2dD16x1's.
  const unsigned slots = static_cast<unsigned>(std::max<int64_t>(h, 2));
  auto v = loadAsm(op, ctx, b, llvm::FixedVectorType::get(b.getInt16Ty(), slots), fmt::format("d8.1x32x{}nn", h));
  if (auto* e = std::get_if<std::string>(&v)) return *e;
  // Per slot, not as one <2H x i8> bitcast: SPIR-V vectors have at most 16 components.
  std::vector<llvm::Value*> regs;
  for (int64_t i = 0; i < h; ++i) {
    llvm::Value* pair = b.CreateBitCast(b.CreateExtractElement(std::get<llvm::Value*>(v), b.getInt32(static_cast<uint32_t>(i))),
                                        llvm::FixedVectorType::get(b.getInt8Ty(), 2));
    regs.push_back(b.CreateExtractElement(pair, b.getInt32(0)));
    regs.push_back(b.CreateExtractElement(pair, b.getInt32(1)));
  }
  ctx.set(op.result(), regs);
  return "";
}

// The header shape of the explicit-header message `op` will be (the cases of emitVisaOp whose
// response is whole GRFs; shapes outside the target's tables are errors later), or nullopt.
std::optional<uint32_t> headerShape(const ir::Operation& op, const XeEmitContext& ctx) {
  int64_t bits = op.intAttr("elem_bits", 0), w = op.intAttr("block_w", 0), h = op.intAttr("block_h", 0),
          n = op.intAttr("array_len", 1);
  bool plain = !op.boolAttr("vnni") && !op.boolAttr("transpose");
  if (op.is("xe.store_2d") && inTable(op, ctx.target.blockStores)) return shapeDword(w, h, 1);
  if (op.is("xe.prefetch_2d") && inTable(op, ctx.target.blockPrefetches)) return shapeDword(w, h, n);
  if (!op.is("xe.load_2d") || !plain) return std::nullopt;
  if (bits == 16 && w == 16 && h == 8 && n == 2) return shapeDword(16, 8, 1);  // emitLoad2d's two halves
  if (n != 1 || !inTable(op, ctx.target.blockLoads)) return std::nullopt;
  // d16/d8 one row: emitLoad2dD16x1 and emitLoad2dD8 pad the response to a whole GRF.
  if (bits == 32 || (bits == 16 && w == 16 && (h % 2 == 0 || h == 1)) || (bits == 8 && w == 32 && (h % 2 == 0 || h == 1)))
    return shapeDword(w, h, 1);
  return std::nullopt;
}

// A coordinate of `msg` that moves by a constant per iteration of `loop` (LoopCoords.h): its value
// before the loop (i32, the coordinates' type: base and offset wrap as they do in the body) and the
// step. Only for a message sent once per iteration (directly in the body, not in an scf.if), since
// the step is added after each send; nullopt otherwise (the message writes the coordinate).
std::optional<std::pair<llvm::Value*, int64_t>> steppedCoord(const ir::Operation& msg, const ir::Value* v,
                                                             const ir::Operation& loop, XeEmitContext& ctx,
                                                             llvm::IRBuilder<>& b) {
  if (msg.parentOp() != &loop) return std::nullopt;
  std::optional<Sym> s = bodySym(v, loop);
  if (!s || s->div != 1) return std::nullopt;
  std::optional<int64_t> step = baseStep(s->base, loop);
  if (!step) return std::nullopt;
  llvm::Value* first = b.getInt32(static_cast<uint32_t>(s->off));
  if (s->base) {
    // The base's value in the first iteration: itself (defined outside), the lower bound (the
    // induction variable) or the initial value of a loop-carried argument.
    const ir::Value* start = s->base;
    if (!definedOutside(start, loop)) start = loop.operand(start->index() == 0 ? 0 : 2 + start->index());
    llvm::Value* v0 = b.CreateSExtOrTrunc(ctx.get(const_cast<ir::Value*>(start)).at(0), b.getInt32Ty());
    first = s->off ? b.CreateAdd(v0, first) : v0;
  }
  return std::pair{first, *step};
}

}  // namespace

void prepareLoopHeaders(const ir::Operation& loop, XeEmitContext& ctx, XeCodegen mode) {
  if (mode != XeCodegen::Visa || !ctx.headers || ctx.target.kind != targets::TargetKind::Pvc) return;
  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  for (VisaHeaders::Slot& s : ctx.headers->slots) s.loopX = s.loopY = nullptr;
  // A coordinate that is the same in every iteration: a value defined outside the loop, possibly
  // through integer converts in the body (re-created here; sameCoord matches the body's copy).
  auto invariant = [&](ir::Value* v) -> llvm::Value* {
    std::vector<const ir::Operation*> converts;
    while (!definedOutside(v, loop)) {
      const ir::Operation* d = v->definingOp();
      if (!d || !d->is("arith.convert") || !ir::isIntElem(v->type().elem()) || !ir::isIntElem(d->operand(0)->type().elem()))
        return nullptr;
      converts.push_back(d);
      v = d->operand(0);
    }
    llvm::Value* r = ctx.get(v).at(0);
    for (auto it = converts.rbegin(); it != converts.rend(); ++it)
      r = b.CreateSExtOrTrunc(r, b.getIntNTy(static_cast<unsigned>(ir::elemBits((*it)->result()->type().elem()))));
    return r;
  };
  // The messages of this loop's body and its ifs; a nested loop prepares its own (it may become one
  // whole-loop statement, which builds its headers itself).
  std::vector<ir::Operation*> ops;
  const_cast<ir::Operation&>(loop).walk([&](ir::Operation* op) { ops.push_back(op); });
  auto inNestedLoop = [&](const ir::Operation* op) {
    for (const ir::Operation* p = op->parentOp(); p && p != &loop; p = p->parentOp())
      if (p->is("scf.for")) return true;
    return false;
  };
  for (ir::Operation* op : ops) {
    if (op == &loop || op->dialect() != "xe" || inNestedLoop(op)) continue;
    std::optional<uint32_t> shape = headerShape(*op, ctx);
    if (!shape) continue;
    bool outside = true;
    for (unsigned i = 0; i < 4; ++i) outside = outside && definedOutside(op->operand(i), loop);
    if (!outside) continue;
    VisaHeaders::Slot s = surfaceKey(*op, ctx, *shape);
    s.op = op;
    s.header = buildHeader(b, s, /*qwordBase=*/false);  // a loop's kernel: VisaHeaders::qwordBase
    // The split d16 load (two halves, x and x + 16) keeps x per message, and sends twice per
    // iteration: no stepped coordinate.
    bool split = op->is("xe.load_2d") && op->intAttr("array_len", 1) == 2;
    llvm::Value* x = split ? nullptr : invariant(op->operand(4));
    llvm::Value* y = invariant(op->operand(5));
    s.x = s.loopX = x;
    s.y = s.loopY = y;
    // Else a coordinate that moves by a known step: its first value set here, the step added after
    // each send (rawMessage).
    if (auto sx = !x && !split ? steppedCoord(*op, op->operand(4), loop, ctx, b) : std::nullopt)
      std::tie(x, s.stepX) = *sx;
    if (auto sy = !y && !split ? steppedCoord(*op, op->operand(5), loop, ctx, b) : std::nullopt)
      std::tie(y, s.stepY) = *sy;
    if (x || y) s.header = setCoords(b, s.header, x, y);
    ctx.headers->slots.push_back(s);
  }
}

llvm::Value* visaReduceF32(llvm::IRBuilderBase& b, llvm::Value* x, int lanes, std::string_view kind) {
  // Scoped (`{ }`): every reduction of the kernel declares the same name. The first op folds the
  // upper half of the source into xtc_red, each further one halves xtc_red, the last is 1 wide.
  // vISA's `max` is the f32 max IGC's sub_group_reduce_max uses (sel.ge on the ISA).
  std::string text = fmt::format("{{\n.decl xtc_red v_type=G type=f num_elts={} align=GRF\n", lanes / 2);
  text += fmt::format("{1} (M1_NM, {0}) xtc_red(0,0)<1> $1(0,0)<1;1,0> $1(0,{0})<1;1,0>\n", lanes / 2, kind);
  for (int w = lanes / 4; w >= 2; w /= 2)
    text += fmt::format("{1} (M1_NM, {0}) xtc_red(0,0)<1> xtc_red(0,0)<1;1,0> xtc_red(0,{0})<1;1,0>\n", w, kind);
  text += fmt::format("{} (M1_NM, 1) xtc_red(0,0)<1> xtc_red(0,0)<0;1,0> xtc_red(0,1)<0;1,0>\n", kind);
  text += fmt::format("mov (M1_NM, {}) $0(0,0)<1> xtc_red(0,0)<0;1,0>\n}}", lanes);
  auto* fty = llvm::FunctionType::get(b.getFloatTy(), {b.getFloatTy()}, false);
  // Convergent, as the builtin: no pass may move it into control flow where some lanes are off (the
  // NoMask reads would take lanes that did not compute x).
  llvm::CallInst* c = b.CreateCall(llvm::InlineAsm::get(fty, text, "=rw,rw", /*hasSideEffects=*/false), {x});
  c->setConvergent();
  return c;
}

std::optional<std::string> emitVisaOp(const ir::Operation& op, XeEmitContext& ctx, XeCodegen mode) {
  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  // In vISA mode every 2D message whose response is whole GRFs is sent through a header of
  // ctx.headers (rawMessage), which the kernel emitter always gives this mode; the lsc_* text forms
  // remain for the other loads (loadAsm: the builtins mode, and the half-GRF responses).
  if (mode == XeCodegen::Visa && !ctx.headers) return "internal error: vISA mode without a header scope (VisaHeaders)";
  if (op.is("xe.store_2d")) return emitStore2d(op, ctx, b, mode);
  if (op.is("xe.prefetch_2d")) return emitPrefetch2d(op, ctx, b, mode);
  if (op.is("xe.load_2d"))
    if (std::optional<std::string> r = emitLoad2dD32(op, ctx, b)) return r;  // both modes: no builtin
  if (op.is("xe.load_2d"))
    if (std::optional<std::string> r = emitLoad2dD8(op, ctx, b)) return r;  // both modes: no builtin
  if (op.is("xe.load_2d"))
    if (std::optional<std::string> r = emitLoad2dD16x1(op, ctx, b)) return r;  // both modes: no builtin
  if (op.is("xe.load_2d") && mode == XeCodegen::Visa) return emitLoad2d(op, ctx, b);
  return std::nullopt;
}

}  // namespace xtc::backend
