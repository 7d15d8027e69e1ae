// What dg2's whole-K-loop statements share (Dg2VisaCommon.h).
#include "backends/spirv/Dg2VisaCommon.h"

#include "backends/spirv/LoopCoords.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>

#include <fmt/format.h>

#include <algorithm>
#include <regex>

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

Dg2Statement::Dg2Statement(const ir::Operation& loop, XeEmitContext& ctx, size_t nOut, const std::map<const ir::Value*, int64_t>& steps)
    : b(*static_cast<llvm::IRBuilder<>*>(ctx.builder)), loop_(loop), ctx_(ctx), nOut_(nOut), steps_(steps), inputs_(nOut, nullptr) {
  for (size_t i = 0; i < nOut; ++i) constraints_ += (i ? ",=rw" : "=rw");
  for (size_t i = 0; i < nOut; ++i) constraints_ += fmt::format(",{}", i);
}

std::string Dg2Statement::input(llvm::Value* v, const char* c) {
  for (size_t i = nOut_; i < inputs_.size(); ++i)
    if (inputs_[i] == v) return fmt::format("${}", nOut_ + i);
  inputs_.push_back(v);
  constraints_ += fmt::format(",{}", c);
  return fmt::format("${}", nOut_ + inputs_.size() - 1);
}

llvm::Value* Dg2Statement::i64(llvm::Value* v) { return v->getType()->isIntegerTy(64) ? v : b.CreateSExt(v, b.getInt64Ty()); }
llvm::Value* Dg2Statement::i32(llvm::Value* v) { return v->getType()->isIntegerTy(32) ? v : b.CreateTrunc(v, b.getInt32Ty()); }

llvm::Value* Dg2Statement::initial(const Sym& s) {
  if (!s.base) return b.getInt64(static_cast<uint64_t>(s.off));
  const ir::Block& body = loop_.region(0).block();
  llvm::Value* base = nullptr;
  if (s.base == body.argument(0)) base = ctx_.get(loop_.operand(0)).at(0);
  for (unsigned a = 1; !base && a < body.numArguments(); ++a)
    if (s.base == body.argument(a)) base = ctx_.get(loop_.operand(a + 2)).at(0);
  if (!base) base = hoist(s.base);
  base = i64(base);  // an i32 row sign-extended, as the per-op emitter's index
  return s.off ? b.CreateAdd(base, b.getInt64(static_cast<uint64_t>(s.off))) : base;
}

int64_t Dg2Statement::stepOf(const Sym& s) const {
  if (!s.base) return 0;
  if (auto it = steps_.find(s.base); it != steps_.end()) return it->second;
  return *baseStep(s.base, loop_);
}

llvm::Value* Dg2Statement::lane() {
  if (lane_) return lane_;
  llvm::Function* laneFn = llvm::cast<llvm::Function>(
      ctx_.module.getOrInsertFunction("_Z22get_sub_group_local_idv", llvm::FunctionType::get(b.getInt32Ty(), false)).getCallee());
  laneFn->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  llvm::CallInst* laneCall = b.CreateCall(laneFn);
  laneCall->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  llvm::Value* lane = laneCall;
  // A later statement of the kernel takes the lane id through an opaque copy (one `mov`, outside
  // the loops; NoMask, as the statements' messages read every lane's address): its per-lane
  // addresses are then its own, made before its loop. With the builtin's
  // value LLVM computed equal addresses of two statements once, at the kernel's top, and kept them
  // live across the first statement (2 GRFs each: dg2 sg_gemm_f16_24x16_k48 spilled 43 so,
  // benchmarks/xe-isa-notes.md "dg2: where sg_gemm_f16_24x16_k48 spills").
  if (ctx_.blockAddresses && ctx_.blockAddresses->loopStatements > 0) {
    auto* copy = llvm::InlineAsm::get(llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty()}, false),
                                      "mov (M1_NM, 8) $0(0,0)<1> $1(0,0)<1;1,0>", "=rw,rw", /*hasSideEffects=*/true);
    lane = b.CreateCall(copy, {lane});
  }
  return lane_ = b.CreateZExt(lane, b.getInt64Ty());
}

llvm::Value* Dg2Statement::pitch(const ir::Value* mem, int64_t eb) {
  llvm::Value*& v = pitches_[mem];
  return v ? v : v = b.CreateMul(i64(ctx_.memrefDim(const_cast<ir::Value*>(mem), 1)), b.getInt64(static_cast<uint64_t>(eb)));
}

llvm::Value* Dg2Statement::groupAddress(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb) {
  llvm::Value* base = b.CreatePtrToInt(ctx_.memrefPointer(const_cast<ir::Value*>(mem)), b.getInt64Ty());
  llvm::Value* r = b.CreateAdd(initial(row), lane());
  return b.CreateAdd(b.CreateAdd(base, b.CreateMul(r, pitch(mem, eb))), b.CreateMul(initial(col), b.getInt64(static_cast<uint64_t>(eb))));
}

llvm::Value* Dg2Statement::laneAddress(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb) {
  llvm::Value* base = b.CreatePtrToInt(ctx_.memrefPointer(const_cast<ir::Value*>(mem)), b.getInt64Ty());
  return b.CreateAdd(b.CreateAdd(base, b.CreateMul(initial(row), pitch(mem, eb))),
                     b.CreateMul(initial(col), b.getInt64(static_cast<uint64_t>(eb))));
}

void Dg2Statement::spread(std::ostream& t, const std::string& p, size_t g, llvm::Value* addr) {
  std::string a = input(addr, "rw");
  for (int q = 0; q < 4; ++q)
    t << fmt::format("mov (M1_NM, 2) {}a({},0)<4> {}(0,{})<1;1,0>\n", p, 8 * g + 2 * static_cast<size_t>(q), a, 2 * q);
}

void Dg2Statement::laneRead(std::ostream& t, const std::string& p, size_t j, llvm::Value* addr) {
  std::string a = input(addr, "rw");
  t << fmt::format("mov (M1, 8) {0}l{1}(0,0)<1> {2}(0,0)<1;1,0>\nadd (M1, 8) {0}m{1}(0,0)<1> {2}(0,0)<1;1,0> 0x10:uq\n", p, j, a);
}

std::string Dg2Statement::stepBytes(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb) {
  int64_t rs = stepOf(row), cs = stepOf(col) * eb;
  if (rs == 0) return cs == 0 ? std::string() : fmt::format("{:#x}:uq", static_cast<uint64_t>(cs));
  std::string& s = rowSteps_[{mem, rs, cs}];
  if (s.empty())
    s = input(b.CreateAdd(b.CreateMul(pitch(mem, eb), b.getInt64(static_cast<uint64_t>(rs))), b.getInt64(static_cast<uint64_t>(cs))),
              "rw.u");
  return s + "(0,0)<0;1,0>";
}

llvm::Value* Dg2Statement::stepBack(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb, llvm::Value* addr) {
  int64_t rs = stepOf(row), cs = stepOf(col) * eb;
  if (rs == 0 && cs == 0) return addr;
  llvm::Value* by = b.getInt64(static_cast<uint64_t>(cs));
  if (rs) by = b.CreateAdd(b.CreateMul(pitch(mem, eb), b.getInt64(static_cast<uint64_t>(rs))), by);
  return b.CreateSub(addr, by);
}

int64_t Dg2Statement::walkBytes(const Sym& row, const Sym& col, int64_t eb) const {
  return stepOf(row) == 0 ? std::max<int64_t>(stepOf(col) * eb, 0) : 0;
}

llvm::Value* Dg2Statement::trips() {
  if (trips_) return trips_;
  llvm::Value* lb = ctx_.get(loop_.operand(0)).at(0);
  llvm::Value* ubv = ctx_.get(loop_.operand(1)).at(0);
  llvm::Value* stepv = ctx_.get(loop_.operand(2)).at(0);
  llvm::Value* n = b.CreateSDiv(b.CreateAdd(b.CreateSub(ubv, lb), b.CreateSub(stepv, llvm::ConstantInt::get(stepv->getType(), 1))), stepv);
  return trips_ = b.CreateSelect(b.CreateICmpSLT(lb, ubv), n, llvm::ConstantInt::get(stepv->getType(), 0));
}

void Dg2Statement::loopDecls(std::ostream& t, const std::string& p, bool counter) {
  if (counter) t << fmt::format(".decl {}k v_type=G type=d num_elts=1 align=dword\n", p);
  else t << fmt::format(".decl {}e v_type=G type=uq num_elts=1 align=qword\n", p);
  t << fmt::format(".decl {}p v_type=P num_elts=1\n", p);
}

void Dg2Statement::loopStart(std::ostream& t, const std::string& p, const std::string& walk, int64_t bytes, bool label) {
  walk_ = walk;
  if (!walk.empty()) {
    // trips * bytes: 0 (no step) when lb >= ub, so the entry compare fails exactly when the counter's would.
    llvm::Value* span = b.CreateMul(b.CreateSExtOrTrunc(trips(), b.getInt64Ty()), b.getInt64(static_cast<uint64_t>(bytes)));
    span_ = input(span, "rw.u");
    t << fmt::format("add (M1,1) {}e(0,0)<1> {}(0,0)<0;1,0> {}(0,0)<0;1,0>\n", p, walk, span_);
    t << fmt::format("cmp.lt (M1,1) {}p {}(0,0)<0;1,0> {}e(0,0)<0;1,0>\n", p, walk, p);
  } else {
    ub_ = input(i32(ctx_.get(loop_.operand(1)).at(0)), "rw.u");
    t << fmt::format("mov (M1,1) {}k(0,0)<1> {}(0,0)<0;1,0>\n", p, input(i32(ctx_.get(loop_.operand(0)).at(0)), "rw.u"));
    t << fmt::format("cmp.lt (M1,1) {}p {}k(0,0)<0;1,0> {}(0,0)<0;1,0>\n", p, p, ub_);
  }
  t << fmt::format("(!{}p) jmp (M1,1) {}end\n", p, p);
  if (label) t << fmt::format("{}loop:\n", p);
}

void Dg2Statement::twoSteps(std::ostream& t, const std::string& p, int64_t bytes, const std::string& step, const std::string& other) const {
  t << fmt::format("and (M1,1) {0}o(0,0)<1> {1}(0,0)<0;1,0> 0x{2:x}:uq\ncmp.ne (M1,1) {0}q {0}o(0,0)<0;1,0> 0x0:uq\n"
                   "(!{0}q) jmp (M1,1) {0}loop\n",
                   p, span_, bytes);
  t << other << fmt::format("cmp.lt (M1,1) {0}p {1}(0,0)<0;1,0> {0}e(0,0)<0;1,0>\n(!{0}p) jmp (M1,1) {0}end\n", p, walk_);
  t << fmt::format("{}loop:\n", p) << step << other;
}

int64_t Dg2Statement::declaredRegisters(const std::string& decls) const {
  static const std::regex decl(R"(^\.decl \S+ v_type=G type=(\w+) num_elts=(\d+)( align=GRF)?(.*)$)", std::regex::multiline);
  static const std::map<std::string, int64_t> bytes = {{"b", 1}, {"ub", 1}, {"w", 2}, {"uw", 2}, {"hf", 2}, {"bf", 2}, {"d", 4},
                                                       {"ud", 4}, {"f", 4}, {"q", 8}, {"uq", 8}, {"df", 8}};
  const int64_t grf = ctx_.target.grfBytes;
  int64_t grfs = 0, loose = 0;
  for (auto it = std::sregex_iterator(decls.begin(), decls.end(), decl); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (m[4].str().find("alias=") != std::string::npos) continue;
    auto size = bytes.find(m[1].str());
    int64_t n = std::stoll(m[2].str()) * (size == bytes.end() ? 8 : size->second);  // unknown: the widest
    if (m[3].matched) grfs += (n + grf - 1) / grf;
    else loose += n;
  }
  return grfs + (loose + grf - 1) / grf;
}

bool Dg2Statement::fits(int64_t declared, int64_t reserve) const {
  // What IGC needs besides the statement (the payload, the kernel's other values, the statement's
  // inputs before it spreads them), measured on user shapes (tests/isa/shapes; benchmarks/
  // xe-isa-notes.md, session 21), counted this way: in 128 registers 106 and 121 compiled without
  // spills, 138 and 145 spilled; in 256, 173 did not and 246 did (gemm_bt_8x64, 8 lane reads: IGC
  // needed more than 10 there). 16 is over every spilling count and takes every example's form
  // (the closest: gemm_acc 106 of 128, gemm_f16 225 of 256); 121 it counts as not fitting
  // (kFitsReserve).
  const ir::Operation* kernel = &loop_;
  while (kernel && !kernel->is("xtc.kernel")) kernel = kernel->parentOp();
  const ir::Attribute* opts = kernel ? kernel->attr("build_options") : nullptr;
  const bool large = opts && opts->isa(ir::AttrKind::String) && opts->getString().find("large-register-file") != std::string::npos;
  const int64_t file = large ? ctx_.target.grfCountLarge : ctx_.target.grfCount;
  // Each output is 8 elements of 4 bytes per lane of the 8: 8 registers.
  return declared + 8 * static_cast<int64_t>(nOut_) + reserve <= file;
}

std::string Dg2Statement::twoStepDecls(const std::string& p) {
  return fmt::format(".decl {0}o v_type=G type=uq num_elts=1 align=qword\n.decl {0}q v_type=P num_elts=1\n", p);
}

void Dg2Statement::loopStep(std::ostream& t, const std::string& p, int64_t step, const std::string& tail) {
  if (!walk_.empty()) {
    t << fmt::format("cmp.lt (M1,1) {}p {}(0,0)<0;1,0> {}e(0,0)<0;1,0>\n", p, walk_, p);
  } else {
    t << fmt::format("add (M1,1) {}k(0,0)<1> {}k(0,0)<0;1,0> {}:d\n", p, p, step);
    t << fmt::format("cmp.lt (M1,1) {}p {}k(0,0)<0;1,0> {}(0,0)<0;1,0>\n", p, p, ub_);
  }
  t << fmt::format("({}p) jmp (M1,1) {}loop\n{}end:\n{}}}\n", p, p, p, tail);
}

void Dg2Statement::setTied(size_t first, const std::vector<llvm::Value*>& vals, llvm::Type* elem) {
  llvm::Type* ct = llvm::FixedVectorType::get(elem, 8);
  for (size_t c = 0; c < vals.size() / 8; ++c) {
    llvm::Value* v = llvm::UndefValue::get(ct);
    for (unsigned i = 0; i < 8; ++i) v = b.CreateInsertElement(v, vals[8 * c + i], b.getInt32(i));
    inputs_[first + c] = v;
  }
}

void Dg2Statement::finish(const std::string& text, llvm::Type* elem, const std::map<unsigned, size_t>& accFirst) {
  llvm::Type* ct = llvm::FixedVectorType::get(elem, 8);
  std::vector<llvm::Type*> types;
  for (llvm::Value* v : inputs_) types.push_back(v->getType());
  llvm::Type* rt = nOut_ == 1 ? ct : static_cast<llvm::Type*>(llvm::StructType::get(b.getContext(), std::vector<llvm::Type*>(nOut_, ct)));
  auto* fty = llvm::FunctionType::get(rt, types, false);
  llvm::Value* out = b.CreateCall(llvm::InlineAsm::get(fty, text, constraints_, /*hasSideEffects=*/true), inputs_);
  if (ctx_.blockAddresses) ++ctx_.blockAddresses->loopStatements;

  // Results: accumulators from the outputs, coordinates advanced by the trip count.
  const ir::Block& body = loop_.region(0).block();
  llvm::Value* trips = this->trips();
  for (unsigned a = 1; a < body.numArguments(); ++a) {
    ir::Value* res = loop_.result(a - 1);
    if (auto it = accFirst.find(a); it != accFirst.end()) {
      std::vector<llvm::Value*> vals;
      int64_t n = body.argument(a)->type().shape()[0];
      for (int64_t i = 0; i < n; ++i) {
        unsigned c = static_cast<unsigned>(static_cast<int64_t>(it->second) + i / 8);
        llvm::Value* ch = nOut_ == 1 ? out : b.CreateExtractValue(out, {c});
        vals.push_back(b.CreateExtractElement(ch, b.getInt32(static_cast<uint32_t>(i % 8))));
      }
      ctx_.set(res, std::move(vals));
    } else {
      llvm::Value* init = ctx_.get(loop_.operand(a + 2)).at(0);
      int64_t st = steps_.at(body.argument(a));
      llvm::Value* r = b.CreateAdd(init, b.CreateMul(b.CreateSExtOrTrunc(trips, init->getType()),
                                                     llvm::ConstantInt::get(init->getType(), static_cast<uint64_t>(st))));
      if (auto c = cond_.find(body.argument(a)); c != cond_.end() && c->second.step) {
        // Steps 0, period, 2 period, ... run the block (the lower bound a multiple of its period).
        llvm::Type* it = init->getType();
        llvm::Value* n = b.CreateSExtOrTrunc(trips, it);
        llvm::Value* runs = b.CreateUDiv(b.CreateAdd(n, llvm::ConstantInt::get(it, static_cast<uint64_t>(c->second.period - 1))),
                                         llvm::ConstantInt::get(it, static_cast<uint64_t>(c->second.period)));
        if (!c->second.eq) runs = b.CreateSub(n, runs);
        r = b.CreateAdd(r, b.CreateMul(runs, llvm::ConstantInt::get(it, static_cast<uint64_t>(c->second.step))));
      }
      ctx_.set(res, {r});
    }
  }
}

}  // namespace xtc::backend
