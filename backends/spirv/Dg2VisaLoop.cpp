// dg2's interior DPAS K loop as one inline-vISA statement (Dg2VisaLoop.h). Two parts:
//  1. Match (pure IR): the body holds only index math (LoopCoords.h's "base + constant"), global
//     xe.block_read, vector.extract/from_elements, xe.dpas (M = N = 8: f16/bf16 -> f32 K 16, i8 -> i32
//     K 32, the forms dg2-visa.sh measured) and the yield. Every element is traced to (read, element),
//     (accumulator argument, element) or (dpas, element). Each DPAS A operand must be 8 dword reads
//     (elem_bits = 32) of consecutive rows at one column, element P*i + h = element h of row i's read
//     (the dg2 A layout: register i = row i, lane j = dword j; reference §4), so the row reads are the
//     operand's registers. A 64-byte row (two dwords per lane, the split kernels' slice loops) belongs
//     to two operands, one per 32-byte half (elements 0..P-1 / P..2P-1: dword j / 8 + j,
//     blockElement): when both operands are here, two rows' halves are one SIMD16 row gather per
//     half straight into the operand (below, "row gathers"; unless the paired rows are of one
//     memref stepping alike: one d32x16t read per row, in row pairs put right by 3 movs per pair);
//     else one d32x8t message per half, each into its own operand's register. Each B operand must
//     be element t of K consecutive row reads
//     (elem_bits = element bits) at one column: lane n of element t is column 8t + n (XeOps.h blockElement), so
//     B register i, lane n packs rows P*i .. P*i + P-1 of column 8t + n (§4). Or a B operand is all 8P
//     elements of one xe.lane_read of 8 dwords per lane (B^T in RFC 2.2/2.3: lane n reads its own row,
//     dword i = the K values P*i .. P*i + P-1 = B register i), at a row that may be an index
//     expression of values defined outside the loop (invariantSym). Each accumulator chunk of
//     8 elements is a chain of dpas that starts at the argument and ends in the yield at the same place.
//     xe.prefetch_1d is allowed when its address is a LaneProgram (below): the per-lane line
//     arithmetic lower-xe writes, walked when its tile moves along one carried index (Walk). One
//     scf.if on "k % 2^n ==/!= 0" may hold a barrier, prefetches and the steps of carried indices
//     (RFC 2.5's L2 stream every fourth step: walkIf). Anything else: no match, and the loop is
//     emitted op by op.
//  2. Emit (the text dg2_visa_loop.py's generator measured): before the loop, each group of 8 messages
//     (consecutive rows of one memref at one column and half) comes in as one per-lane i64 address and
//     is spread into one register per message (an LSC address must start a register); in the loop, the row reads
//     (`lsc_load.ugm (M1_NM, 1) … :d32x{4,8,16}t flat[…]:a64`) or row gathers (`svm_gather4scaled.R
//     (M1_NM, 16)`, a walked address vector per row pair, the K-high half 32 bytes on), the row pairs' movs, one packing `mov (M1, 8)` per B row
//     slot on word/byte views, per lane read two SIMD8 A64 untyped reads of 4 dwords
//     (svm_gather4scaled, one per register half of its operand, the second address 16 bytes on: an
//     LSC load of 8 dwords is SIMD16-shaped on dg2, not an operand), the dpas on the tied accumulator
//     outputs, one 64-bit add per message address (at the step's top in a loop with row pairs and
//     packed B rows, its addresses entering one step back), the loop's end: a 64-bit cmp of the first A
//     message's walked address with its end (made before the loop) and the backward jmp, or, when
//     the scf.if's block reads the counter, the counter's add/cmp/jmp (Dg2VisaCommon.h loopStart). The scf.if is a block
//     after the unconditional prefetches that a predicated forward jmp skips (dg2-visa.sh `pfif`);
//     its fence and barrier are pvc's lines, whose --verify-isa patterns (VisaLoop.cpp
//     visaLoopHardwareCalls) hold on dg2 too (tests/isa/gemm/rfc_2_5_gemm_two_cache_levels.dg2.isa).
#include "backends/spirv/Dg2VisaLoop.h"

#include "backends/spirv/Dg2VisaCommon.h"
#include "backends/spirv/LoopCoords.h"
#include "ir/ops/XeOps.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <tuple>
#include <sstream>

namespace xtc::backend {

namespace {

using ir::ElemKind;

constexpr int64_t kGrf = 32;  // bytes per register (dg2)

enum class Src : uint8_t { Read, Acc, Dpas };
struct Elem {
  Src kind;
  int src;  // read / dpas number, or accumulator argument (block argument index)
  int idx;  // element
  bool operator==(const Elem& o) const = default;
};

// One xe.block_read of a global row: `n` registers per lane in units of P elements; or (lane) one
// xe.lane_read: 8 dwords of each lane's own row (n = 8 P elements per lane).
struct Read {
  const ir::Operation* op;
  const ir::Value* mem;
  Sym row, col;
  int64_t eb, P, n;  // element bytes, elements per unit, registers per lane
  bool lane = false;
  int64_t bytes() const { return n * 8 * eb; }  // the row bytes the read covers (8 lanes)
  int msgs() const { return P > 1 && n == 2 * P ? 2 : 1; }  // a 64-byte A row: one message per half
};

struct Dpas {
  const ir::Operation* op;
  int chunk;                 // the accumulator chunk (8 elements) it adds into
  int aOp, bOp;              // its A and B operands (indices into aOps_ / bOps_)
};

// A DPAS A operand: its 8 row reads (rows i = 0..7); a B operand: its K row reads and the element t.
struct AOperand {
  std::vector<int> rows;
  int half;  // the 32-byte half of each row read (0 unless the rows are 64 bytes)
  bool operator==(const AOperand& o) const = default;
};
struct BOperand {
  std::vector<int> rows;  // row r of the K rows; a lane read's operand: that read alone
  int t;                  // -1 for a lane read's operand
  bool operator==(const BOperand& o) const = default;
  bool lane() const { return t < 0; }
};

class Matcher {
 public:
  explicit Matcher(const ir::Operation& op) : for_(op), body_(op.region(0).block()) {}
  bool match();
  // Why match() failed, for `--remarks`: the first reason recorded.
  std::string why_;
  bool no(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }

  const ir::Operation& for_;
  const ir::Block& body_;
  std::map<const ir::Value*, std::vector<Elem>> elems_;
  std::vector<Read> reads_;
  std::vector<AOperand> aOps_;
  std::vector<BOperand> bOps_;
  std::vector<Dpas> dpas_;
  std::vector<const ir::Operation*> prefetches_;  // xe.prefetch_1d, in body order
  std::map<unsigned, int> accBase_;  // accumulator argument -> its first chunk
  std::map<const ir::Value*, int64_t> steps_;  // loop-carried index argument -> its step
  // The body's scf.if, at most one (RFC 2.5's L2 stream every fourth step): taken in the steps whose
  // counter k has (k & ifMask_) == 0 (ifEq_, else != 0); its barrier and prefetches (a LaneProgram
  // too), and the carried indices it steps (condSteps_: argument -> its step there, 0 when the block
  // yields it unchanged; steps_ holds 0 for them).
  const ir::Operation* if_ = nullptr;
  int64_t ifMask_ = 0;
  bool ifEq_ = true, ifBarrier_ = false;
  std::vector<const ir::Operation*> condPrefetches_;
  std::map<const ir::Value*, int64_t> condSteps_;
  int chunks_ = 0;
  ElemKind in_ = ElemKind::F16, acc_ = ElemKind::F32;
  int64_t step_ = 0;

 private:
  bool walk(const ir::Operation& op);
  bool walkIf(const ir::Operation& op);
  bool prefetch(const ir::Operation& op, std::vector<const ir::Operation*>& list);
  bool read(const ir::Operation& op, bool lane);
  bool dpas(const ir::Operation& op);
  bool yield(const ir::Operation& op);
  const std::vector<Elem>* elems(const ir::Value* v) const {
    auto it = elems_.find(v);
    return it == elems_.end() ? nullptr : &it->second;
  }
  // The reads an A (B) operand's elements name, checked against the dg2 operand layout.
  std::optional<AOperand> aOperand(const std::vector<Elem>& e) const;
  std::optional<BOperand> bOperand(const std::vector<Elem>& e) const;
  int64_t P() const { return in_ == ElemKind::I8 ? 4 : 2; }
  std::map<const ir::Value*, int64_t> rems_;  // k % 2^n of the induction variable k -> 2^n
  std::map<const ir::Value*, std::pair<const ir::Value*, int64_t>> ifResults_;  // if result -> (argument, step)
};

bool Matcher::match() {
  if (for_.numRegions() != 1 || for_.numOperands() < 3 || body_.numArguments() != for_.numOperands() - 2)
    return no("not a loop with a body");
  std::optional<int64_t> step = constInt(for_.operand(2));
  if (!step || *step <= 0) return no("its step is not a positive constant");
  step_ = *step;
  // Arguments: vector accumulators (one element kind) and index coordinates.
  bool seenAcc = false;
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Type& t = body_.argument(a)->type();
    if (t.isScalar() && t.elem() == ElemKind::Index) continue;
    if (!t.isVector() || t.rank() != 1 || t.shape()[0] % 8 != 0 || (t.elem() != ElemKind::F32 && t.elem() != ElemKind::I32))
      return no(fmt::format("it carries a {} (only indices and f32/i32 accumulators of whole registers)", t.str()));
    if (seenAcc && t.elem() != acc_) return no("it carries f32 and i32 accumulators together");
    seenAcc = true;
    acc_ = t.elem();
    accBase_[a] = chunks_;
    std::vector<Elem> es;
    for (int64_t i = 0; i < t.shape()[0]; ++i) es.push_back({Src::Acc, static_cast<int>(a), static_cast<int>(i)});
    elems_[body_.argument(a)] = std::move(es);
    chunks_ += static_cast<int>(t.shape()[0] / 8);
  }
  if (!seenAcc) return no("it carries no accumulator");
  for (const auto& o : body_.opList())
    if (!walk(*o)) {
      const SourceLoc& l = o->loc();
      return no(fmt::format("its op '{}'{} is not one the statement takes (or its operands are not what the statement "
                            "traces: block and lane reads at base + constant, DPAS operands from them)",
                            o->name(), l.valid() ? fmt::format(" (line {}:{})", l.line, l.col) : ""));
    }
  return !dpas_.empty() || no("it has no DPAS");
}

bool Matcher::walk(const ir::Operation& op) {
  if (op.is("scf.if")) return walkIf(op);
  if (op.numRegions() != 0) return false;
  if (op.is("arith.constant")) return true;
  if ((op.is("arith.remsi") || op.is("arith.remui")) && op.operand(0) == body_.argument(0)) {
    // k % 2^n, a block's condition: the counter is in [0, 2^31) in an index_bits = 32 loop, so the
    // signed remainder is the unsigned one, k & (2^n - 1).
    std::optional<int64_t> c = constInt(op.operand(1));
    if (!c || *c < 2 || (*c & (*c - 1)) != 0) return false;
    rems_[op.result()] = *c;
    return true;
  }
  // Index math: a read's coordinate must be base + constant (bodySym, checked there); a prefetch's
  // address is a lane program (LaneProgram, checked when the statement is planned).
  if (pureIndexOp(op)) return true;
  if (op.is("xe.prefetch_1d")) return prefetch(op, prefetches_);
  if (op.is("xe.block_read")) return read(op, false);
  if (op.is("xe.lane_read")) return read(op, true);
  if (std::optional<bool> traced = traceVectorOp(op, elems_)) return *traced;
  if (op.is("xe.dpas")) return dpas(op);
  if (op.is("scf.yield")) return yield(op);
  return false;
}

bool Matcher::prefetch(const ir::Operation& op, std::vector<const ir::Operation*>& list) {
  int64_t cache = op.intAttr("cache", 4);
  list.push_back(&op);
  return op.numOperands() == 1 && op.operand(0)->type().isScalar() && op.operand(0)->type().elem() == ElemKind::I64 &&
         (cache == 4 || cache == 2);
}

// An scf.if on "k % 2^n ==/!= 0" (k the induction variable, from a constant lower bound that is a
// multiple of 2^n, 2^n a multiple of the step: a block every 2^n / step steps) whose then-region
// holds only barriers, prefetches and index math and whose else-region only yields; its results are
// loop-carried indices, the then-region yielding "argument + constant" (or the argument), the else-
// region the argument (yield() then requires the loop to yield the result in that argument's place).
bool Matcher::walkIf(const ir::Operation& op) {
  if (if_ || op.numRegions() != 2 || op.region(0).numBlocks() != 1 || op.region(1).numBlocks() != 1) return false;
  const ir::Operation* c = op.operand(0)->definingOp();
  const ir::Attribute* pr = c && c->is("arith.cmpi") ? c->attr("predicate") : nullptr;
  if (!pr || (pr->getString() != "eq" && pr->getString() != "ne") || constInt(c->operand(1)) != 0) return false;
  auto rem = rems_.find(c->operand(0));
  std::optional<int64_t> lb = constInt(for_.operand(0));
  if (rem == rems_.end() || !lb || *lb % rem->second != 0 || rem->second % step_ != 0) return false;
  if_ = &op;
  ifMask_ = rem->second - 1;
  ifEq_ = pr->getString() == "eq";
  const ir::Block& then = op.region(0).block();
  for (const auto& o : then.opList()) {
    if (o->numRegions() != 0) return false;
    if (o->is("gpu.barrier")) ifBarrier_ = true;
    else if (o->is("xe.prefetch_1d") ? !prefetch(*o, condPrefetches_) : !o->is("arith.constant") && !pureIndexOp(*o) && o.get() != then.terminator())
      return false;
  }
  const ir::Operation* thenYield = then.terminator();
  const ir::Operation* elseYield = op.region(1).block().terminator();
  if (!thenYield || !thenYield->is("scf.yield") || !elseYield || !elseYield->is("scf.yield") ||
      op.region(1).block().opList().size() != 1 || thenYield->numOperands() != op.numResults() || elseYield->numOperands() != op.numResults())
    return false;
  for (unsigned r = 0; r < op.numResults(); ++r) {
    const ir::Value* arg = elseYield->operand(r);
    if (!arg->isBlockArgument() || arg->ownerBlock() != &body_ || arg->index() == 0 || accBase_.count(arg->index())) return false;
    const ir::Value* t = thenYield->operand(r);
    int64_t st = 0;
    if (t != arg) {
      const ir::Operation* add = t->definingOp();
      if (!add || !add->is("arith.addi") || add->parentOp() != &op) return false;
      unsigned k = add->operand(0) == arg ? 1 : add->operand(1) == arg ? 0 : 2;
      std::optional<int64_t> cv = k < 2 ? constInt(add->operand(k)) : std::nullopt;
      if (!cv) return false;
      st = *cv;
    }
    ifResults_[op.result(r)] = {arg, st};
  }
  return true;
}

// A global read at coordinates whose bases step by known constants, its memref defined outside the
// loop. A row read (xe.block_read at "base + constant"): the dword reads of A rows (one or two dwords
// per lane, 32 or 64 bytes) and the element reads of B rows (16, 32 or 64 bytes, the d32x4t/x8t/x16t
// messages dg2-visa.sh measured). A lane read (`lane`, xe.lane_read): 8 dwords of each lane's row (B^T
// in RFC 2.2/2.3: lane n reads row n of its column block, its K elements in pairs (16-bit) or fours
// (8-bit) per dword, which is DPAS B register i = dword i in lane n); its row is lane-dependent, "base
// + constant" where the base may also be an expression of values defined outside the loop
// (invariantSym).
bool Matcher::read(const ir::Operation& op, bool lane) {
  if (op.numOperands() != 3) return false;
  const ir::Value* mem = op.operand(0);
  const ir::Type& mt = mem->type();
  const ir::Type& vt = op.result()->type();
  if (!mt.isMemRef() || mt.memSpace() == ir::MemSpace::Slm || mt.rank() != 2 || !definedOutside(mem, for_)) return false;
  std::optional<int64_t> unit = ir::blockUnit(op);
  auto coord = [&](unsigned i) { return lane ? invariantSym(op.operand(i), for_) : bodySym(op.operand(i), for_); };
  std::optional<Sym> row = coord(1), col = coord(2);
  if (!unit || !row || !col || row->div != 1 || col->div != 1 || !vt.isVector() || vt.rank() != 1 || vt.elem() != mt.elem())
    return false;
  if (!baseStep(row->base, for_) || !baseStep(col->base, for_)) return false;
  Read r{&op, mem, *row, *col, ir::elemBits(vt.elem()) / 8, *unit, vt.shape()[0], lane};
  if (r.eb != 1 && r.eb != 2) return false;
  int64_t bytes = r.bytes();
  bool laneRow = lane && r.P * r.eb == 4 && r.n == 8 * r.P;
  bool aRow = !lane && r.P * r.eb == 4 && (r.n == r.P || r.n == 2 * r.P);  // one or two dwords per lane
  bool bRow = !lane && r.P == 1 && (bytes == 16 || bytes == 32 || bytes == 64);
  if (!laneRow && !aRow && !bRow) return false;
  std::vector<Elem> es;
  for (int64_t e = 0; e < r.n; ++e) es.push_back({Src::Read, static_cast<int>(reads_.size()), static_cast<int>(e)});
  elems_[op.result()] = std::move(es);
  reads_.push_back(r);
  return true;
}

// Two reads of one memref at one column whose rows are `d` apart.
bool rowsApart(const Read& a, const Read& b, int64_t d) {
  return a.mem == b.mem && a.row.base == b.row.base && b.row.off == a.row.off + d && a.col.base == b.col.base && a.col.off == b.col.off;
}

std::optional<AOperand> Matcher::aOperand(const std::vector<Elem>& e) const {
  int64_t p = P();
  if (static_cast<int64_t>(e.size()) != 8 * p) return std::nullopt;
  if (e[0].kind != Src::Read || e[0].idx % p != 0) return std::nullopt;
  AOperand a{{}, static_cast<int>(e[0].idx / p)};
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t h = 0; h < p; ++h) {
      const Elem& x = e[static_cast<size_t>(p * i + h)];
      if (x.kind != Src::Read || x.idx != p * a.half + h || x.src != e[static_cast<size_t>(p * i)].src) return std::nullopt;
    }
    const Read& r = reads_[static_cast<size_t>(e[static_cast<size_t>(p * i)].src)];
    if (r.P != p || r.n < p * (a.half + 1) || r.lane) return std::nullopt;
    a.rows.push_back(e[static_cast<size_t>(p * i)].src);
    if (i > 0 && !rowsApart(reads_[static_cast<size_t>(a.rows[0])], r, i)) return std::nullopt;
  }
  return a;
}

std::optional<BOperand> Matcher::bOperand(const std::vector<Elem>& e) const {
  int64_t k = 8 * P();
  if (static_cast<int64_t>(e.size()) != k || e[0].kind != Src::Read) return std::nullopt;
  if (const Read& l = reads_[static_cast<size_t>(e[0].src)]; l.lane) {
    // Element r of a lane's operand (K row r of its column) = element r of its lane read.
    if (l.P != P() || l.n != k) return std::nullopt;
    for (int64_t r = 0; r < k; ++r)
      if (e[static_cast<size_t>(r)] != Elem{Src::Read, e[0].src, static_cast<int>(r)}) return std::nullopt;
    return BOperand{{e[0].src}, -1};
  }
  BOperand b{{}, e[0].idx};
  for (int64_t r = 0; r < k; ++r) {
    const Elem& x = e[static_cast<size_t>(r)];
    if (x.kind != Src::Read || x.idx != b.t) return std::nullopt;
    const Read& rd = reads_[static_cast<size_t>(x.src)];
    if (rd.P != 1 || rd.lane) return std::nullopt;
    if (r > 0 && !rowsApart(reads_[static_cast<size_t>(b.rows[0])], rd, r)) return std::nullopt;
    b.rows.push_back(x.src);
  }
  return b;
}

bool Matcher::dpas(const ir::Operation& op) {
  ElemKind a = op.operand(1)->type().elem(), bk = op.operand(2)->type().elem(), c = op.result()->type().elem();
  bool fp = (a == ElemKind::F16 || a == ElemKind::BF16) && c == ElemKind::F32 && op.intAttr("k", 0) == 16;
  bool i8 = a == ElemKind::I8 && c == ElemKind::I32 && op.intAttr("k", 0) == 32;
  if (a != bk || (!fp && !i8) || op.intAttr("m", 0) != 8 || op.intAttr("n", 0) != 8 || c != acc_) return false;
  if (!dpas_.empty() && a != in_) return false;
  in_ = a;
  const std::vector<Elem>*ce = elems(op.operand(0)), *ae = elems(op.operand(1)), *be = elems(op.operand(2));
  if (!ce || !ae || !be || ce->size() != 8) return false;
  // The accumulator: 8 consecutive elements of an argument at a chunk boundary, or a whole dpas result.
  int chunk = -1;
  const Elem& c0 = (*ce)[0];
  for (size_t i = 0; i < 8; ++i) {
    const Elem& x = (*ce)[i];
    if (x.kind != c0.kind || x.src != c0.src || x.idx != c0.idx + static_cast<int>(i)) return false;
  }
  if (c0.kind == Src::Acc && c0.idx % 8 == 0) chunk = accBase_.at(static_cast<unsigned>(c0.src)) + c0.idx / 8;
  else if (c0.kind == Src::Dpas && c0.idx == 0) chunk = dpas_[static_cast<size_t>(c0.src)].chunk;
  else return false;
  // Each chunk is one chain: a dpas extends the chunk's last link (or starts it from the argument).
  int last = -1;
  for (size_t d = 0; d < dpas_.size(); ++d)
    if (dpas_[d].chunk == chunk) last = static_cast<int>(d);
  if (c0.kind == Src::Acc ? last != -1 : last != c0.src) return false;
  std::optional<AOperand> ao = aOperand(*ae);
  std::optional<BOperand> bo = bOperand(*be);
  if (!ao || !bo) return false;
  auto index = [](auto& list, const auto& x) {
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i] == x) return static_cast<int>(i);
    list.push_back(x);
    return static_cast<int>(list.size() - 1);
  };
  int ai = index(aOps_, *ao), bi = index(bOps_, *bo);
  std::vector<Elem> out;
  for (int i = 0; i < 8; ++i) out.push_back({Src::Dpas, static_cast<int>(dpas_.size()), i});
  elems_[op.result()] = std::move(out);
  dpas_.push_back({&op, chunk, ai, bi});
  return true;
}

// Accumulators: each chunk yields the last dpas of its chain (elements 0..7 in order) or itself
// unchanged; coordinates: themselves plus a constant.
bool Matcher::yield(const ir::Operation& op) {
  if (op.numOperands() != body_.numArguments() - 1) return false;
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Value* y = op.operand(a - 1);
    if (!accBase_.count(a)) {
      if (auto r = ifResults_.find(y); r != ifResults_.end()) {  // stepped only in the block
        if (r->second.first != body_.argument(a)) return false;
        steps_[body_.argument(a)] = 0;
        condSteps_[body_.argument(a)] = r->second.second;
        continue;
      }
      std::optional<int64_t> s = carriedStep(body_.argument(a), bodySym(y, for_));
      if (!s) return false;
      steps_[body_.argument(a)] = *s;
      continue;
    }
    const std::vector<Elem>* es = elems(y);
    if (!es || es->size() != elems(body_.argument(a))->size()) return false;
    for (size_t c = 0; c < es->size() / 8; ++c) {
      int chunk = accBase_.at(a) + static_cast<int>(c);
      int last = -1;
      for (size_t d = 0; d < dpas_.size(); ++d)
        if (dpas_[d].chunk == chunk) last = static_cast<int>(d);
      for (int i = 0; i < 8; ++i) {
        Elem want = last < 0 ? Elem{Src::Acc, static_cast<int>(a), static_cast<int>(8 * c) + i} : Elem{Src::Dpas, last, i};
        if ((*es)[8 * c + static_cast<size_t>(i)] != want) return false;
      }
    }
  }
  return true;
}

// The per-lane address program of the loop's prefetches (lower-xe's lowerPrefetch: each lane's line
// in i32 arithmetic, a bounds mask, a zero extension and the base). Each value an address needs is
//  - a constant: an immediate;
//  - invariant (bodyInvariant): computed before the statement in LLVM and copied into a variable of
//    the statement before its loop (an i1 as a 0/-1 dword mask);
//  - a loop-carried index stepped by a constant: a scalar dword the statement keeps and steps after
//    each iteration (the interior loop counts in 32 bits, so its offsets fit), read only through an
//    arith.convert to i32;
//  - an op of the body, recomputed in each iteration as SIMD8 vISA instructions: i32 values as `ud`,
//    i64 as `q`, i1 as 0/-1 `ud` masks (a cmp with a general destination; a select with a zero arm is
//    an `and` with the mask), the forms dg2-visa.sh measured.
// plan() decides, with no IR made, whether every prefetch address is such a program; emit() writes it.
class LaneProgram {
 public:
  LaneProgram(const Matcher& m, const ir::Operation& loop, std::string prefix) : m_(m), loop_(loop), p_(std::move(prefix)) {}

  bool plan() {
    for (const auto* list : {&m_.prefetches_, &m_.condPrefetches_})
      for (const ir::Operation* pf : *list)
        if (!plan(pf->operand(0)) || kind(pf->operand(0)) == 'c') return false;
    std::vector<const ir::Operation*> walked;  // in body order
    for (const auto* list : {&m_.prefetches_, &m_.condPrefetches_})
      for (const ir::Operation* pf : *list)
        if (std::optional<Walk> w = walkPlan(*pf, list == &m_.condPrefetches_, walked)) {
          if (w->from) walks_.at(w->from).derived.push_back(pf);
          walks_.emplace(pf, *w);
          walked.push_back(pf);
        }
    return true;
  }

  // Inputs go through `input(value, constraint)` (returns "$N"); invariant values are computed by
  // `hoist` (LLVM, the value's own width). Declarations to `decls`, the copies before the loop to
  // `pre`, the program and the prefetches to `body`, the carried indices' steps to `step`. `walk`: the
  // address the loop ends on (a uniform uq that advances by walkBy each step; empty with a counter),
  // one step back at entry when `back` (its add opens the step, before the prefetches).
  void emit(const std::function<std::string(llvm::Value*, const char*)>& input,
            const std::function<llvm::Value*(const ir::Value*)>& hoist, const std::function<llvm::Value*(const ir::Value*)>& carriedInit,
            llvm::Value* trips, bool counter, const std::string& walk, int64_t walkBy, bool back, llvm::IRBuilder<>& b,
            std::ostream& decls, std::ostream& pre, std::ostream& body, std::ostream& step) {
    trips_ = trips;
    counter_ = counter;
    walk_ = walk;
    walkBy_ = walkBy;
    walkBack_ = back;
    input_ = &input;
    hoist_ = &hoist;
    carriedInit_ = &carriedInit;
    b_ = &b;
    decls_ = &decls;
    pre_ = &pre;
    body_ = &body;
    step_ = &step;
    auto send = [&](const ir::Operation* pf) {
      const char* cache = pf->intAttr("cache", 4) == 4 ? "ca.ca" : "uc.ca";
      if (auto w = walks_.find(pf); w != walks_.end()) return sendWalked(pf, w->second, cache);
      std::string a = val(pf->operand(0)).name;
      *body_ << fmt::format("lsc_load.ugm.{} (M1, 8) %null:d32 flat[{}]:a64\n", cache, a);
    };
    for (const ir::Operation* pf : m_.prefetches_) send(pf);
    if (!m_.if_) return;
    // The scf.if: after every unconditional prefetch (whose values it may reuse; a body value first
    // needed here is computed here, and no later line needs it), a forward jump over the block
    // unless the counter's condition holds (dg2-visa.sh `pfif`): the barrier as IGC's own vISA for
    // barrier(CLK_LOCAL_MEM_FENCE), the block's prefetches, then its carried indices' steps (every
    // use in the step is before them). The predicate is the loop's, set again before its back jump.
    *decls_ << fmt::format(".decl {}q v_type=G type=d num_elts=1 align=dword\n", p_);
    body << fmt::format("and (M1,1) {0}q(0,0)<1> {0}k(0,0)<0;1,0> {1:#x}:d\ncmp.eq (M1,1) {0}p {0}q(0,0)<0;1,0> 0x0:d\n", p_, m_.ifMask_);
    body << fmt::format("({}{}p) jmp (M1,1) {}s\n", m_.ifEq_ ? "!" : "", p_, p_);
    if (m_.ifBarrier_) body << "lsc_fence.slm.none.group\nbarrier\n";
    for (const ir::Operation* pf : m_.condPrefetches_) send(pf);
    body << condStep_.str() << fmt::format("{}s:\n", p_);
  }

 private:
  struct Val {
    std::string name;  // a variable, or an immediate's text
    char type;         // 'd' (i32, ud), 'q' (i64, q), 'm' (i1 as a 0/-1 ud mask)
    bool scalar = false, imm = false;
    std::string src() const { return imm ? name : fmt::format("{}(0,0)<{}>", name, scalar ? "0;1,0" : "1;1,0"); }
  };

  // A walked prefetch. lower-xe's address (lowerPrefetch) is base + zext(select(ok, off, 0)) with
  // off = sum & ~3 (or sum), ok an and of compares. When the loop moves the prefetched tile along one
  // carried index (its clock: the loop's steps, or the scf.if block's when that index steps only
  // there), sum and one compare's left side `a` step by constants per clock tick (Delta), the rest
  // of ok is the same in every step (`fixed`) and the compare is a < bound (unsigned, bound fixed),
  // the address need not be recomputed. Before the loop, per lane: the walked address W = base +
  // zext(off at entry) and the limit L = bound - a (0 where a >= bound, a fixed term is false or a
  // no-wrap check below fails). Per tick a scalar s = ticks * da (0 at entry, shared by the
  // prefetches of one clock and da) and per prefetch `cmp.lt P s L`, `(P)` the send, `add W W dsum`:
  // 3 instructions against the program's ~10. With da a power of two no s is kept: a statement
  // with a counter compares it with L in counter units, a counter-free one the address its loop
  // ends on with L as such an address (sendWalked); s < L is what both compares decide.
  // Exact: s < L gives a + s < bound without wrap, so a's own value (a + s mod 2^32) is below bound:
  // the walked predicate implies ok, and equals it when nothing wraps; s does not wrap when trips *
  // da < 2^32. The offset at tick t is off + t * dsum mod 2^32 (~3 commutes with adding a multiple
  // of 4), which is W's off + t * dsum when off + trips * dsum < 2^32 (dsum as its value mod 2^32):
  // checked per lane before the loop. So a lane prefetches only where the program did, at the same
  // address; where the program prefetched the base (a line outside the surface) nothing is sent.
  // A tile's later line groups (lowerPrefetch: the next rows, off = the first group's + an invariant
  // shift; their a the first's, or + a constant when the tile walks down its rows) are derived: they
  // send from W + shift under the first group's predicate, whose L is made from the family's largest
  // a and also ands in their fixed terms and no-wrap checks. No limit or walked address of their own (RFC 2.5's
  // 12 L2 groups with their own spilled its first loop), and one compare per tile, or per clock
  // when the tiles share a predicate (sendWalked). In a tile that crosses the surface's last row, a
  // lane whose line in any group is outside sends none of its lines: fewer prefetches at that edge,
  // never one the program did not make.
  // (tests/isa/gemm/rfc_2_{1,2,5}_*.dg2.isa check the predicated sends in the ISA.)
  struct Delta {  // per tick: c, times the invariant i32 `inv` when set, from the carried index `carried`
    int64_t c = 0;
    const ir::Value* inv = nullptr;
    const ir::Value* carried = nullptr;
    bool zero() const { return c == 0; }
  };
  struct Walk {
    const ir::Value *base, *off, *a, *bound;
    const ir::Value* inner;  // off before its ~3 (off itself when unmasked)
    std::vector<const ir::Value*> fixed;
    Delta sum, da;
    bool cond;  // ticks in the scf.if's block
    // A derived prefetch: inner = the earlier walked `from`'s inner + `shift` (an invariant i32),
    // with from's base, a, bound and clock.
    const ir::Operation* from = nullptr;
    const ir::Value* shift = nullptr;
    std::vector<const ir::Operation*> derived;  // the prefetches derived from this one, in body order
    int64_t aShift = 0;  // a derived prefetch's a = from's a + aShift (the next rows of a tile walking down)
  };
  // c when a = b + c (c a small constant >= 0), else nullopt.
  std::optional<int64_t> constOffset(const ir::Value* a, const ir::Value* b) const {
    if (a == b) return 0;
    const ir::Operation* d = a->definingOp();
    if (kind(a) != 'o' || !d->is("arith.addi")) return std::nullopt;
    for (unsigned i = 0; i < 2; ++i)
      if (std::optional<int64_t> c = constInt(d->operand(1 - i)); c && d->operand(i) == b && *c >= 0 && *c < (int64_t(1) << 16)) return c;
    return std::nullopt;
  }

  // How v changes per tick; nullopt when it is not such a linear step (or no planned value).
  std::optional<Delta> delta(const ir::Value* v) const {
    switch (kind(v)) {
      case 'c':
      case 'i':
        return Delta{};
      case 'k': {
        auto c = m_.condSteps_.find(v);
        int64_t st = c != m_.condSteps_.end() ? c->second : m_.steps_.at(v);
        return st ? Delta{st, nullptr, v} : Delta{};
      }
      case 'o':
        break;
      default:
        return std::nullopt;
    }
    const ir::Operation& d = *v->definingOp();
    std::vector<Delta> ds;
    const ir::Value* carried = nullptr;
    for (unsigned i = 0; i < d.numOperands(); ++i) {
      std::optional<Delta> x = delta(d.operand(i));
      if (!x) return std::nullopt;
      if (!x->zero() && carried && carried != x->carried) return std::nullopt;
      if (!x->zero()) carried = x->carried;
      ds.push_back(*x);
    }
    if (!carried) return Delta{};
    if (typeOf(v) != 'd') return std::nullopt;  // i32 steps only (a mask or an i64 of a stepping value: none)
    if (d.is("arith.convert")) return ds[0];
    if (d.is("arith.subi")) return ds[0];  // minus a constant
    if (d.is("arith.addi")) {
      if (ds[0].zero() || ds[1].zero()) return ds[0].zero() ? ds[1] : ds[0];
      if (ds[0].inv != ds[1].inv) return std::nullopt;
      return Delta{ds[0].c + ds[1].c, ds[0].inv, carried};
    }
    if (d.is("arith.muli"))
      for (unsigned i = 0; i < 2; ++i) {
        const ir::Value* other = d.operand(1 - i);
        if (ds[i].zero() || !ds[1 - i].zero()) continue;
        if (std::optional<int64_t> c = constInt(other)) return Delta{ds[i].c * *c, ds[i].inv, carried};
        if (!ds[i].inv && kind(other) == 'i' && typeOf(other) == 'd') return Delta{ds[i].c, other, carried};
      }
    return std::nullopt;
  }

  std::optional<Walk> walkPlan(const ir::Operation& pf, bool inIf, const std::vector<const ir::Operation*>& earlier) const {
    auto defOf = [&](const ir::Value* v, const char* name) -> const ir::Operation* {
      const ir::Operation* d = v->definingOp();
      return kind(v) == 'o' && d->is(name) ? d : nullptr;
    };
    Walk w{};
    const ir::Operation* add = defOf(pf.operand(0), "arith.addi");
    if (!add) return std::nullopt;
    unsigned bi = kind(add->operand(0)) == 'i' ? 0 : 1;
    w.base = add->operand(bi);
    const ir::Operation* zext = defOf(add->operand(1 - bi), "arith.andi");
    if (kind(w.base) != 'i' || typeOf(w.base) != 'q' || !zext) return std::nullopt;
    unsigned ci = constInt(zext->operand(0)) == 0xffffffff ? 0 : 1;
    const ir::Operation* cv = defOf(zext->operand(1 - ci), "arith.convert");
    if (constInt(zext->operand(ci)) != 0xffffffff || !cv || typeOf(cv->operand(0)) != 'd') return std::nullopt;
    const ir::Operation* sel = defOf(cv->operand(0), "arith.select");
    if (!sel || constInt(sel->operand(2)) != 0) return std::nullopt;
    w.off = w.inner = sel->operand(1);
    if (const ir::Operation* m = defOf(w.off, "arith.andi"); m && (constInt(m->operand(1)) == -4 || constInt(m->operand(1)) == 0xfffffffc))
      w.inner = m->operand(0);
    std::optional<Delta> ds = delta(w.inner);
    if (ds && w.inner != w.off && ds->c % 4 != 0) return std::nullopt;
    if (!ds || ds->zero() || ds->c >= (int64_t(1) << 31) || ds->c <= -(int64_t(1) << 31)) return std::nullopt;
    w.sum = *ds;
    std::vector<const ir::Value*> stack{sel->operand(0)};
    while (!stack.empty()) {
      const ir::Value* t = stack.back();
      stack.pop_back();
      if (const ir::Operation* a = defOf(t, "arith.andi")) {
        stack.push_back(a->operand(0));
        stack.push_back(a->operand(1));
        continue;
      }
      std::optional<Delta> dt = delta(t);
      if (dt && dt->zero()) {
        w.fixed.push_back(t);
        continue;
      }
      const ir::Operation* c = defOf(t, "arith.cmpi");
      if (w.a || !c || c->attr("predicate")->getString() != "ult") return std::nullopt;
      std::optional<Delta> da = delta(c->operand(0)), db = delta(c->operand(1));
      if (!da || da->inv || da->c <= 0 || da->c >= (int64_t(1) << 31) || !db || !db->zero()) return std::nullopt;
      w.a = c->operand(0);
      w.bound = c->operand(1);
      w.da = *da;
    }
    if (!w.a || w.da.carried != w.sum.carried) return std::nullopt;
    w.cond = m_.condSteps_.count(w.sum.carried) != 0;
    if (w.cond && !inIf) return std::nullopt;  // a block's tick is not every step
    if (const ir::Operation* add = defOf(w.inner, "arith.addi"))
      for (const ir::Operation* e : earlier) {
        const Walk& f = walks_.at(e);
        for (unsigned i = 0; i < 2 && !w.from; ++i)
          if (std::optional<int64_t> as = constOffset(w.a, f.a);
              as && !f.from && add->operand(i) == f.inner && kind(add->operand(1 - i)) == 'i' && typeOf(add->operand(1 - i)) == 'd' &&
              f.base == w.base && (f.inner == f.off) == (w.inner == w.off) && f.cond == w.cond && f.bound == w.bound) {
            w.from = e;
            w.shift = add->operand(1 - i);
            w.aShift = *as;
          }
      }
    return w;
  }

  // Emits a walked prefetch: its limit and entry address before the loop, its compare and send
  // here, its steps with its clock's (Walk).
  void sendWalked(const ir::Operation* pf, const Walk& w, const char* cache) {
    auto send = [&](const std::string& pred, const std::string& addr) {
      *body_ << fmt::format("({}) lsc_load.ugm.{} (M1, 8) %null:d32 flat[{}]:a64\n", pred, cache, addr);
    };
    if (w.from) {  // from's predicate; its walked address plus shift
      const WalkedVals& f = walked_.at(w.from);
      std::string addr = fmt::format("{}fw{}", p_, walkedCount_++);
      *decls_ << fmt::format(".decl {} v_type=G type=uq num_elts=8 align=GRF\n", addr);
      *body_ << fmt::format("add (M1, 8) {}(0,0)<1> {}(0,0)<1;1,0> {}\n", addr, f.addr.name, f.shifts.at(pf).src());
      return send(f.pred, addr);
    }
    int n = walkedCount_++;
    llvm::IRBuilder<>& b = *b_;
    auto uniform = [&](llvm::Value* v) {  // a 64-bit LLVM value as a scalar of the statement
      std::string u = fmt::format("{}fu{}", p_, uniforms_++);
      *decls_ << fmt::format(".decl {} v_type=G type=uq num_elts=1 align=qword\n", u);
      *pre_ << fmt::format("mov (M1,1) {}(0,0)<1> {}(0,0)<0;1,0>\n", u, (*input_)(v, "rw.u"));
      return Val{u, 'q', true};
    };
    auto ins = [&](const char* opc, const Val& d, Val x, Val y) {  // commutative: the immediate second
      if (x.imm) std::swap(x, y);
      *pre_ << fmt::format("{} (M1, 8) {}(0,0)<1> {} {}\n", opc, d.name, x.src(), y.src());
    };
    auto atEntry = [&](const ir::Value* v) {  // v's value at loop entry, computed before the loop
      std::ostream* body = body_;
      body_ = pre_;
      preMode_ = true;
      Val r = val(v);
      preMode_ = false;
      body_ = body;
      return r;
    };
    WalkedVals& out = walked_[pf];
    out.addr = Val{fmt::format("{}fw{}", p_, n), 'q'};
    out.pred = fmt::format("{}fp{}", p_, n);
    // How the predicate is made (below): da a power of two, comparing the counter or (da and the
    // walked address's step powers of two) that address, in common units, so shareable; else s.
    std::optional<int> sh = log2Of(w.da.c), wsh = log2Of(walkBy_);
    const bool byCounter = counter_ && sh, byAddress = !counter_ && !walk_.empty() && sh && wsh && !w.cond;
    const bool share = byCounter || byAddress, own = !share || !shared_.count(w.cond);
    *decls_ << fmt::format(".decl {} v_type=G type=uq num_elts=8 align=GRF\n", out.addr.name);
    if (own) *decls_ << fmt::format(".decl {} v_type=P num_elts=8\n", out.pred);
    // The predicate, `cmp.lt P x limit`: x the clock's scalar (the counter, the loop's walked address
    // or s), the limit per lane in x's units. The walks of one clock that compare the counter or the
    // walked address share one predicate (shared_): its limit the smallest of theirs, each later
    // walk's folded in before the loop by a `min`, and one compare a step for all of them. A lane
    // then sends a walk's line only while every walk sharing the predicate is inside its surface:
    // fewer prefetches where the walks leave their surfaces at different steps, never another one
    // (in RFC 2.1, 2.2 and 2.5 every prefetch tile runs a fixed distance ahead on matrices the grid
    // covers, so the limits are equal and nothing is lost).
    auto compare = [&](const std::string& x, const Val& limit) {
      if (!own) {
        const auto& [pred, first] = shared_.at(w.cond);
        *pre_ << fmt::format("min (M1, 8) {}(0,0)<1> {} {}\n", first.name, first.src(), limit.src());
        out.pred = pred;
        return;
      }
      *body_ << fmt::format("cmp.lt (M1, 8) {} {}(0,0)<0;1,0> {}\n", out.pred, x, limit.src());
      if (share) shared_.emplace(w.cond, std::make_pair(out.pred, limit));
    };
    // The limit: bound - a where a < bound (else 0), and-ed with every fixed term and no-wrap check
    // of this prefetch and of the ones derived from it (they share its predicate).
    Val a = atEntry(w.a), bound = atEntry(w.bound), neg{temp('d'), 'd'}, below{temp('m'), 'm'}, lim{temp('d'), 'd'};
    // The family's largest a: a + the largest aShift (every group's compare holds when its holds),
    // valid when that add does not wrap (else no lane sends).
    int64_t most = 0;
    for (const ir::Operation* d : w.derived) most = std::max(most, walks_.at(d).aShift);
    Val aMost = a, noWrap;
    if (most) {
      aMost = Val{temp('d'), 'd'};
      noWrap = Val{temp('m'), 'm'};
      ins("add", aMost, a, imm(most, 'd'));
      *pre_ << fmt::format("cmp.ge (M1, 8) {}(0,0)<1> {} {}\n", noWrap.name, aMost.src(), a.src());
      a = aMost;
    }
    ins("xor", neg, a, imm(0xffffffff, 'd'));
    ins("add", lim, bound, neg);
    ins("add", lim, lim, imm(1, 'd'));
    *pre_ << fmt::format("cmp.lt (M1, 8) {}(0,0)<1> {} {}\n", below.name, a.src(), bound.src());
    ins("and", lim, lim, below);
    if (most) ins("and", lim, lim, noWrap);
    // The no-wrap checks (Walk): the entry offset + trips * dsum below 2^32; for a derived prefetch
    // that + shift, shift a multiple of 4 when masked (then (x + shift) & ~3 = (x & ~3) + shift). An
    // input of 2^32 fails every lane (trips * da >= 2^32, or such a shift).
    llvm::Value* trips = b.CreateSExtOrTrunc(trips_, b.getInt64Ty());
    llvm::Value* step = b.getInt64(static_cast<uint32_t>(w.sum.c));
    if (w.sum.inv) step = b.CreateZExt(b.CreateMul(b.getInt32(static_cast<uint32_t>(w.sum.c)), (*hoist_)(w.sum.inv)), b.getInt64Ty());
    llvm::Value* sOk = b.CreateICmpULT(b.CreateMul(trips, b.getInt64(static_cast<uint64_t>(w.da.c))), b.getInt64(uint64_t(1) << 32));
    llvm::Value* span = b.CreateSelect(sOk, b.CreateMul(trips, step), b.getInt64(uint64_t(1) << 32));
    Val wide{temp('q'), 'q'}, end{temp('q'), 'q'};
    *pre_ << fmt::format("mov (M1, 8) {}(0,0)<1> {}\n", wide.name, atEntry(w.off).src());
    ins("add", end, wide, uniform(span));
    ins("add", out.addr, wide, atEntry(w.base));
    std::set<const ir::Value*> anded;  // a term the family shares is and-ed once
    auto check = [&](const Walk& x, const Val& e) {
      for (const ir::Value* f : x.fixed)
        if (anded.insert(f).second) ins("and", lim, lim, atEntry(f));
      Val fits{temp('m'), 'm'};
      *decls_ << fmt::format(".decl {}h v_type=G type=ud num_elts=16 alias=<{},0>\n", e.name, e.name);
      *pre_ << fmt::format("cmp.eq (M1, 8) {}(0,0)<1> {}h(0,1)<2;1,0> 0x0:ud\n", fits.name, e.name);
      ins("and", lim, lim, fits);
    };
    check(w, end);
    for (const ir::Operation* d : w.derived) {
      const Walk& dw = walks_.at(d);
      llvm::Value* x = b.CreateZExt((*hoist_)(dw.shift), b.getInt64Ty());
      if (dw.inner != dw.off) x = b.CreateSelect(b.CreateICmpEQ(b.CreateAnd(x, b.getInt64(3)), b.getInt64(0)), x, b.getInt64(uint64_t(1) << 32));
      Val shift = uniform(x), dend{temp('q'), 'q'};
      out.shifts[d] = shift;
      ins("add", dend, end, shift);
      check(dw, dend);
    }
    // The walk per tick by dsum (its value mod 2^32), after the clock's scalar's step when it has one.
    std::ostream& tick = w.cond ? static_cast<std::ostream&>(condStep_) : *step_;
    Val by = w.sum.inv ? uniform(step) : imm(static_cast<uint32_t>(w.sum.c), 'q');
    std::string walkAdd = fmt::format("add (M1, 8) {0}(0,0)<1> {0}(0,0)<1;1,0> {1}\n", out.addr.name, by.src());
    auto uniform32 = [&](llvm::Value* v) {  // an i32 LLVM value as a scalar of the statement
      std::string u = fmt::format("{}fu{}", p_, uniforms_++);
      *decls_ << fmt::format(".decl {} v_type=G type=ud num_elts=1 align=dword\n", u);
      *pre_ << fmt::format("mov (M1,1) {}(0,0)<1> {}(0,0)<0;1,0>\n", u, (*input_)(v, "rw.u"));
      return Val{u, 'd', true};
    };
    // Per lane min(ceil(L / da), trips) (da = 2^sh): ticks * da < L exactly when ticks < it, for
    // every tick the loop runs (ticks < trips, and ticks < ceil(L / da) iff ticks * da < L).
    auto tickLimit = [&]() {
      if (trips32_.name.empty()) trips32_ = uniform32(b.CreateTrunc(trips_, b.getInt32Ty()));
      const Val& T = trips32_;
      Val q{temp('d'), 'd'}, part{temp('d'), 'd'}, m{temp('m'), 'm'};
      ins("shr", q, lim, imm(*sh, 'd'));
      ins("and", part, lim, imm(w.da.c - 1, 'd'));
      *pre_ << fmt::format("cmp.ne (M1, 8) {}(0,0)<1> {} 0x0:ud\n", m.name, part.src());
      ins("shr", m, m, imm(31, 'd'));
      ins("add", q, q, m);  // ceil(L / da)
      *pre_ << fmt::format("cmp.lt (M1, 8) {}(0,0)<1> {} {}\n", m.name, q.src(), T.src());
      ins("and", q, q, m);
      ins("xor", m, m, imm(0xffffffff, 'd'));
      ins("and", part, T, m);
      ins("or", q, q, part);  // min(ceil(L / da), trips)
      return q;
    };
    if (byCounter) {
      // A statement that keeps its counter k (= lb + ticks * S, S the loop step, or the block's period
      // times it for the block's clock): ticks * da < L exactly when k < lb + tickLimit * S, a limit
      // made before the loop (below 2^31 + S: unsigned compares; lb + trips * S <= ub + S - 1 and the
      // interior loop's ub is below 2^31), so no scalar of its own steps: 1 instruction a step fewer
      // per clock and da.
      int64_t S = w.cond ? m_.ifMask_ + 1 : m_.step_;
      if (counterView_.empty()) {  // once: the counter's ud view, the trip count and lower bound (i32 scalars)
        counterView_ = fmt::format("{}ku", p_);
        *decls_ << fmt::format(".decl {} v_type=G type=ud num_elts=1 alias=<{}k,0>\n", counterView_, p_);
        trips32_ = uniform32(b.CreateTrunc(trips_, b.getInt32Ty()));
        lb32_ = uniform32(b.CreateTrunc((*hoist_)(loop_.operand(0)), b.getInt32Ty()));
      }
      Val q = tickLimit(), lk{temp('d'), 'd'};
      ins("mul", lk, q, imm(S, 'd'));
      ins("add", lk, lk, lb32_);
      tick << walkAdd;
      compare(counterView_, lk);
      return send(out.pred, out.addr.name);
    }
    if (byAddress) {
      // A counter-free statement: the address the loop ends on is E + ticks * walkBy at the
      // prefetches (E its entry value, plus walkBy when it enters one step back), so ticks <
      // tickLimit exactly when that address is below E + tickLimit * walkBy, a per-lane uq limit made
      // before the loop (at most the loop's own end, E + trips * walkBy: no wrap). The compare reads
      // the loop's address, so the walk needs no scalar of its own (1 instruction a step fewer per
      // da; the SIMD8 uq cmp is one instruction on dg2: tests/isa/gemm/rfc_2_{1,2}_*.dg2.isa).
      Val q = tickLimit(), lw{fmt::format("{}fl{}", p_, n), 'q'};  // unsigned, as the addresses
      *decls_ << fmt::format(".decl {} v_type=G type=uq num_elts=8 align=GRF\n", lw.name);
      *pre_ << fmt::format("mov (M1, 8) {}(0,0)<1> {}\n", lw.name, q.src());  // zero extension
      ins("shl", lw, lw, imm(*wsh, 'd'));
      ins("add", lw, lw, Val{walk_, 'q', true});
      if (walkBack_) ins("add", lw, lw, imm(walkBy_, 'q'));
      tick << walkAdd;
      compare(walk_, lw);
      return send(out.pred, out.addr.name);
    }
    // Else the clock's scalar for this da, shared: s = ticks * da, compared with L.
    auto [tk, fresh] = ticks_.emplace(std::make_pair(w.cond, w.da.c), fmt::format("{}fs{}", p_, ticks_.size()));
    if (fresh) {
      *decls_ << fmt::format(".decl {} v_type=G type=ud num_elts=1 align=dword\n", tk->second);
      *pre_ << fmt::format("mov (M1,1) {}(0,0)<1> 0x0:ud\n", tk->second);
      tick << fmt::format("add (M1,1) {0}(0,0)<1> {0}(0,0)<0;1,0> {1:#x}:ud\n", tk->second, w.da.c);
    }
    tick << walkAdd;
    compare(tk->second, lim);  // not shared: the limits of walks of other da are in other units
    send(out.pred, out.addr.name);
  }

  static char typeOf(const ir::Value* v) {
    ElemKind k = v->type().elem();
    return k == ElemKind::I1 ? 'm' : k == ElemKind::I32 ? 'd' : k == ElemKind::I64 ? 'q' : k == ElemKind::Index ? 'x' : '?';
  }
  static std::optional<int> log2Of(int64_t c) {
    for (int s = 0; s < 31; ++s)
      if (c == int64_t(1) << s) return s;
    return std::nullopt;
  }
  // 'c' constant, 'i' invariant, 'k' loop-carried index, 'o' op; 0 when not a program value.
  char kind(const ir::Value* v) const {
    auto it = kinds_.find(v);
    return it == kinds_.end() ? 0 : it->second;
  }
  bool carried(const ir::Value* v) const {
    return v->isBlockArgument() && v->ownerBlock() == &loop_.region(0).block() && v->index() > 0 && m_.steps_.count(v);
  }
  bool plan(const ir::Value* v) {
    if (kind(v)) return true;
    char t = typeOf(v);
    if (!v->type().isScalar() || t == '?') return false;
    char k = 0;
    if (constInt(v)) k = 'c';
    else if (invariant(v)) k = t == 'x' ? 0 : 'i';
    else if (carried(v)) k = 'k';
    else if (const ir::Operation* d = v->definingOp(); d && inBody(*d) && pureIndexOp(*d) && t != 'x') {
      k = 'o';
      for (unsigned i = 0; i < d->numOperands(); ++i)
        if (!plan(d->operand(i))) return false;
      if (!supported(*d)) return false;
    }
    if (!k) return false;
    kinds_[v] = k;
    return true;
  }
  // Whether `v` may differ between lanes: it depends on gpu.lane_id, or on a block argument other
  // than the kernel's own (a loop's), or on an op with regions (conservatively).
  bool laneDependent(const ir::Value* v) {
    if (auto it = lanes_.find(v); it != lanes_.end()) return it->second;
    bool r = false;
    if (const ir::Operation* d = v->definingOp()) {
      r = d->is("gpu.lane_id") || d->numRegions() != 0;
      for (unsigned i = 0; !r && i < d->numOperands(); ++i) r = laneDependent(d->operand(i));
    } else {
      const ir::Operation* owner = v->ownerBlock()->parentOp();
      r = !owner || !owner->is("xtc.kernel");
    }
    return lanes_[v] = r;
  }
  // An op of the body or of its scf.if's block.
  bool inBody(const ir::Operation& d) const { return d.parentOp() == &loop_ || (m_.if_ && d.parentOp() == m_.if_); }
  // bodyInvariant, or (in the scf.if's block) pure index math of constants and such values, with
  // constant nonzero divisors: the same in every step, computed before the statement by `hoist`.
  bool invariant(const ir::Value* v) const {
    if (bodyInvariant(v, loop_)) return true;
    const ir::Operation* d = v->definingOp();
    if (!d || !m_.if_ || d->parentOp() != m_.if_) return false;
    if (constInt(v)) return true;
    if (!pureIndexOp(*d)) return false;
    if ((d->is("arith.divui") || d->is("arith.remui")) && constInt(d->operand(1)).value_or(0) == 0) return false;
    for (unsigned i = 0; i < d->numOperands(); ++i)
      if (!invariant(d->operand(i))) return false;
    return true;
  }
  // The op forms emit() writes (its operands planned).
  bool supported(const ir::Operation& d) const {
    const ir::Value* r = d.result();
    char t = typeOf(r);
    auto ty = [&](unsigned i) { return typeOf(d.operand(i)); };
    auto k = [&](unsigned i) { return kind(d.operand(i)); };
    auto constant = [&](unsigned i) { return constInt(d.operand(i)); };
    // A carried index (64-bit in the IR) is read only as its i32 value.
    for (unsigned i = 0; i < d.numOperands(); ++i)
      if (k(i) == 'k' && !(d.is("arith.convert") && t == 'd')) return false;
    if (d.is("arith.convert")) return (t == 'd' && (ty(0) == 'd' || ty(0) == 'q' || k(0) == 'k')) || (t == 'q' && ty(0) == 'd');
    if (d.is("arith.cmpi")) {
      static const char* const preds[] = {"ult", "ule", "ugt", "uge", "eq", "ne"};
      const ir::Attribute* a = d.attr("predicate");
      if (!a || ty(0) != 'd' || ty(1) != 'd') return false;
      for (const char* pr : preds)
        if (a->getString() == pr) return true;
      return false;
    }
    if (d.is("arith.select")) return t == 'd' && ty(1) == 'd' && ty(2) == 'd';
    if (d.is("arith.remui") || d.is("arith.divui")) return t == 'd' && constant(1) && log2Of(*constant(1));
    if (d.is("arith.subi")) return t != 'm' && constant(1).has_value();
    if (d.is("arith.muli")) return t == 'd';
    return d.is("arith.addi") ? t != 'm' : true;  // andi, ori: any width
  }

  std::string temp(char t) {
    std::string n = fmt::format("{}t{}", p_, temps_++);
    *decls_ << fmt::format(".decl {} v_type=G type={} num_elts=8 align=GRF\n", n, t == 'q' ? "q" : "ud");
    return n;
  }
  // A signed view of a dword variable (the source of a sign extension).
  std::string signedView(const Val& x) {
    std::string n = x.name + "s";
    if (views_.insert(n).second)
      *decls_ << fmt::format(".decl {} v_type=G type=d num_elts={} alias=<{},0>\n", n, x.scalar ? 1 : 8, x.name);
    return fmt::format("{}(0,0)<{}>", n, x.scalar ? "0;1,0" : "1;1,0");
  }
  Val imm(int64_t c, char t) const {
    if (t == 'q') return Val{fmt::format("{:#x}:q", static_cast<uint64_t>(c)), 'q', true, true};
    return Val{fmt::format("{:#x}:ud", static_cast<uint32_t>(t == 'm' ? (c ? -1 : 0) : c)), t, true, true};
  }

  Val val(const ir::Value* v) {
    // Constants and invariants are the same everywhere; in pre mode (a walked prefetch's entry values,
    // written before the loop) other values are their own.
    std::map<const ir::Value*, Val>& cache = preMode_ && kind(v) != 'c' && kind(v) != 'i' ? preVals_ : vals_;
    if (auto it = cache.find(v); it != cache.end()) return it->second;
    char t = typeOf(v);
    Val out;
    switch (kind(v)) {
      case 'c':
        out = imm(*constInt(v), t);
        break;
      case 'i': {
        llvm::Value* x = (*hoist_)(v);
        if (t == 'm') x = b_->CreateSExt(x, b_->getInt32Ty());
        // The same in every lane: one scalar, read as a <0;1,0> region, in a statement with an scf.if
        // block (its programs add many invariants: RFC 2.5's first slice loop spilled, IGC's "spilled
        // around 47", with a register per copy). Without one, per-lane copies: the scalar form measured
        // IGC's scheduling 1-2 sync.nop more per step in RFC 2.1's and 2.2's loops.
        if (m_.if_ && !laneDependent(v)) {
          out = Val{fmt::format("{}u{}", p_, uniforms_++), t, true};
          *decls_ << fmt::format(".decl {} v_type=G type={} num_elts=1 align={}\n", out.name, t == 'q' ? "q" : "ud",
                                 t == 'q' ? "qword" : "dword");
          *pre_ << fmt::format("mov (M1,1) {}(0,0)<1> {}(0,0)<0;1,0>\n", out.name, (*input_)(x, "rw.u"));
          break;
        }
        out = Val{temp(t), t};
        *pre_ << fmt::format("mov (M1, 8) {}(0,0)<1> {}(0,0)<1;1,0>\n", out.name, (*input_)(x, "rw"));
        break;
      }
      case 'k': {
        out = Val{fmt::format("{}c{}", p_, carriedVars_++), 'd', true};
        *decls_ << fmt::format(".decl {} v_type=G type=ud num_elts=1 align=dword\n", out.name);
        llvm::Value* init = b_->CreateTrunc((*carriedInit_)(v), b_->getInt32Ty());
        *pre_ << fmt::format("mov (M1,1) {}(0,0)<1> {}(0,0)<0;1,0>\n", out.name, (*input_)(init, "rw.u"));
        if (preMode_) break;  // its entry value only
        if (auto c = m_.condSteps_.find(v); c == m_.condSteps_.end())
          *step_ << fmt::format("add (M1,1) {0}(0,0)<1> {0}(0,0)<0;1,0> {1}:d\n", out.name, m_.steps_.at(v));
        else if (c->second)  // stepped in the scf.if's block only
          condStep_ << fmt::format("add (M1,1) {0}(0,0)<1> {0}(0,0)<0;1,0> {1}:d\n", out.name, c->second);
        break;
      }
      default:
        out = op(*v->definingOp());
    }
    cache[v] = out;
    return out;
  }

  Val op(const ir::Operation& d) {
    char t = typeOf(d.result());
    auto in = [&](unsigned i) { return val(d.operand(i)); };
    auto emit2 = [&](const char* opc, Val a, Val c) {
      if (a.imm) std::swap(a, c);  // commutative: the immediate second
      Val r{temp(t), t};
      *body_ << fmt::format("{} (M1, 8) {}(0,0)<1> {} {}\n", opc, r.name, a.src(), c.src());
      return r;
    };
    if (d.is("arith.convert")) {
      Val x = in(0);
      if (t == 'd' && x.type != 'q') return Val{x.name, 'd', x.scalar, x.imm};  // an i32 or a carried index: itself
      Val r{temp(t), t};
      *body_ << fmt::format("mov (M1, 8) {}(0,0)<1> {}\n", r.name, t == 'q' ? signedView(x) : x.src());
      return r;
    }
    if (d.is("arith.andi") && t == 'q') {
      // (i64) x & 0xffffffff with x an i32's sign extension: the zero extension of the i32.
      for (unsigned i = 0; i < 2; ++i) {
        const ir::Operation* c = d.operand(1 - i)->definingOp();
        if (constInt(d.operand(i)) == 0xffffffff && kind(d.operand(1 - i)) == 'o' && c->is("arith.convert") &&
            typeOf(c->operand(0)) == 'd') {
          Val x = val(c->operand(0)), r{temp(t), t};
          *body_ << fmt::format("mov (M1, 8) {}(0,0)<1> {}\n", r.name, x.src());
          return r;
        }
      }
    }
    if (d.is("arith.addi")) return emit2("add", in(0), in(1));
    if (d.is("arith.subi")) return emit2("add", in(0), imm(-*constInt(d.operand(1)), t));
    if (d.is("arith.muli")) return emit2("mul", in(0), in(1));
    if (d.is("arith.andi")) return emit2("and", in(0), in(1));
    if (d.is("arith.ori")) return emit2("or", in(0), in(1));
    if (d.is("arith.remui")) return emit2("and", in(0), imm(*constInt(d.operand(1)) - 1, 'd'));
    if (d.is("arith.divui")) return emit2("shr", in(0), imm(*log2Of(*constInt(d.operand(1))), 'd'));
    if (d.is("arith.cmpi")) {
      std::string pr = d.attr("predicate")->getString();
      Val a = in(0), c = in(1);
      if (a.imm) {  // the immediate second: the mirrored predicate
        std::swap(a, c);
        pr = pr == "ult" ? "ugt" : pr == "ugt" ? "ult" : pr == "ule" ? "uge" : pr == "uge" ? "ule" : pr;
      }
      std::string cond = pr.size() == 3 ? pr.substr(1) : pr;
      Val r{temp('m'), 'm'};
      *body_ << fmt::format("cmp.{} (M1, 8) {}(0,0)<1> {} {}\n", cond, r.name, a.src(), c.src());
      return r;
    }
    // arith.select c ? a : b on dwords: (a & c) | (b & ~c); an `and` when b is 0.
    Val c = in(0), a = in(1);
    if (constInt(d.operand(2)) == 0) return emit2("and", a, c);
    Val nc = emit2("xor", c, imm(-1, 'd'));
    return emit2("or", emit2("and", a, c), emit2("and", in(2), nc));
  }

  const Matcher& m_;
  const ir::Operation& loop_;
  std::string p_;
  std::map<const ir::Value*, char> kinds_;
  std::map<const ir::Value*, Val> vals_, preVals_;
  std::map<const ir::Operation*, Walk> walks_;
  struct WalkedVals {  // a walked prefetch's address and predicate, its derived ones' shifts
    Val addr;
    std::string pred;
    std::map<const ir::Operation*, Val> shifts;
  };
  std::map<const ir::Operation*, WalkedVals> walked_;
  std::map<std::pair<bool, int64_t>, std::string> ticks_;  // (in the block, da) -> the walked scalar
  std::map<bool, std::pair<std::string, Val>> shared_;  // (in the block) -> its shared predicate and limit
  bool preMode_ = false, counter_ = false;  // counter_: the statement keeps its counter {p}k
  std::string walk_;                        // else the address the loop ends on, by walkBy_ a step
  int64_t walkBy_ = 0;
  bool walkBack_ = false;                   // it enters one step back
  std::string counterView_;                 // its ud view, declared once
  Val trips32_, lb32_;                      // the trip count and (with the counter) the lower bound as i32 scalars
  llvm::Value* trips_ = nullptr;
  std::set<std::string> views_;
  int temps_ = 0, carriedVars_ = 0, uniforms_ = 0, walkedCount_ = 0;
  std::map<const ir::Value*, bool> lanes_;
  const std::function<std::string(llvm::Value*, const char*)>* input_ = nullptr;
  const std::function<llvm::Value*(const ir::Value*)>* hoist_ = nullptr;
  const std::function<llvm::Value*(const ir::Value*)>* carriedInit_ = nullptr;
  llvm::IRBuilder<>* b_ = nullptr;
  std::ostream *decls_ = nullptr, *pre_ = nullptr, *body_ = nullptr, *step_ = nullptr;
  std::ostringstream condStep_;  // the scf.if's carried steps, written at the end of its block
};

// The second operand set of a two-step loop: every A, packed B and row gather register (A<i>, A,
// B, Bd, G<n>) renamed with an "s"; addresses, the row buffer R and lane reads L/H stay shared.
std::string otherSet(const std::string& text, const std::string& p) {
  return std::regex_replace(text, std::regex("\\b" + p + "(A|B|Bd|G)(\\d*)\\b"), "$&s");
}

std::string precision(ElemKind k) { return k == ElemKind::BF16 ? "bf" : k == ElemKind::I8 ? "s8" : "hf"; }

}  // namespace

std::optional<std::string> emitDg2VisaLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId, std::string* missed) {
  if (!dg2LoopStatementAllowed(op, ctx)) {
    if (missed && ctx.target.kind == targets::TargetKind::Dg2)
      *missed = "it is not an interior loop of lower-xe's block reads (index_bits = 32)";
    return std::nullopt;
  }
  Matcher lm(op);
  if (!lm.match()) {
    if (missed) *missed = lm.why_;
    return std::nullopt;
  }
  // The plan's refusals below: the reads do not group as the statement's messages.
  auto noPlan = [&](const char* why) -> std::optional<std::string> {
    if (missed) *missed = why;
    return std::nullopt;
  };

  // The messages in groups of 8 consecutive rows (one per-lane address each): each A operand's rows,
  // then each B operand's rows not yet placed. A message placed twice at different places: no
  // match. Message m is half m % 2 of read m / 2 (32 bytes each for A; B's reads are one message).
  std::vector<int> order;
  std::vector<int> slot(2 * lm.reads_.size(), -1);
  auto readOf = [&](int m) -> const Read& { return lm.reads_[static_cast<size_t>(m / 2)]; };
  auto msgRows = [](const std::vector<int>& rows, int half) {
    std::vector<int> ms;
    for (int r : rows) ms.push_back(2 * r + half);
    return ms;
  };
  auto place = [&](const std::vector<int>& rows) {
    bool all = true, none = true;
    for (int r : rows) (slot[static_cast<size_t>(r)] < 0 ? all : none) = false;
    if (all) {  // already placed: must be the same consecutive slots
      for (size_t i = 0; i < rows.size(); ++i)
        if (slot[static_cast<size_t>(rows[i])] != slot[static_cast<size_t>(rows[0])] + static_cast<int>(i)) return false;
      return slot[static_cast<size_t>(rows[0])] % 8 == 0;
    }
    if (!none) return false;
    for (int r : rows) {
      slot[static_cast<size_t>(r)] = static_cast<int>(order.size());
      order.push_back(r);
    }
    return true;
  };
  for (const AOperand& a : lm.aOps_)
    if (!place(msgRows(a.rows, a.half))) return noPlan("an A operand's rows are not 8 consecutive message slots");
  size_t nA = order.size();
  // B operands: packed from row reads (their place in B) or a lane read's own registers (laneOps).
  std::vector<int> packed(lm.bOps_.size(), -1), laneOps;
  int nPacked = 0;
  for (size_t q = 0; q < lm.bOps_.size(); ++q) {
    const BOperand& b = lm.bOps_[q];
    if (b.lane()) {
      laneOps.push_back(static_cast<int>(q));
      continue;
    }
    packed[q] = nPacked++;
    if (!place(msgRows(b.rows, 0))) return noPlan("a B operand's rows are not 8 consecutive message slots");
  }
  size_t msgs = 0, laneReads = 0;
  for (const Read& r : lm.reads_) (r.lane ? laneReads : msgs) += r.lane ? 1 : static_cast<size_t>(r.msgs());
  if (order.size() != msgs || laneOps.size() != laneReads) return noPlan("a read (or half of one) is no DPAS operand's");
  // Every B read has one size; its registers.
  int64_t bBytes = 0;
  for (size_t i = nA; i < order.size(); ++i) {
    int64_t by = readOf(order[i]).bytes();
    if (bBytes && by != bBytes) return noPlan("its B reads differ in size");
    bBytes = by;
  }
  int64_t G = std::max<int64_t>(1, bBytes / kGrf);
  // Each group of 8 messages comes in as one per-lane address: consecutive rows of one memref at one
  // column and half (lane l = row R + l).
  if (order.size() % 8 != 0) return noPlan("its row reads do not make groups of 8 rows (one per-lane address each)");
  for (size_t g = 0; g < order.size() / 8; ++g) {
    int m0 = order[8 * g];
    for (size_t l = 1; l < 8; ++l) {
      int m = order[8 * g + l];
      if (m % 2 != m0 % 2 || !rowsApart(readOf(m0), readOf(m), static_cast<int64_t>(l)))
        return noPlan("a group of 8 row reads is not 8 consecutive rows of one memref at one column");
    }
  }
  // A 64-byte row is read once (d32x16t) when both its halves' operands are here, the row pair form
  // dg2-visa.sh `pairs` measured: with the K-low operand's row i at register s0 + i and the K-high
  // one's at s1 + i, an odd row i + 1's read fills s1 + i, s1 + i + 1 (its low half in row i's high
  // place) and the even row i's fills a temporary pair U; then s0 + i <- U, s0 + i + 1 <- s1 + i,
  // s1 + i <- U + 1: 3 movs per two rows, one message and one address per row instead of two, and
  // no read waits for another (one mov per row would: the serial form, a chain of reads). A response
  // fills consecutive registers and the halves belong to two operands, so fewer movs cannot be had
  // without such a chain. (Since session 19 the row gathers below read such pairs without movs.)
  std::vector<int> hiOf(nA, -1);  // a K-low operand's first slot -> its K-high operand's
  std::vector<bool> sent(order.size(), true);
  for (const AOperand& lo : lm.aOps_) {
    if (lo.half != 0 || lm.reads_[static_cast<size_t>(lo.rows[0])].msgs() != 2) continue;
    for (const AOperand& hi : lm.aOps_)
      if (hi.half == 1 && hi.rows == lo.rows) {
        int s0 = slot[2 * static_cast<size_t>(lo.rows[0])], s1 = slot[2 * static_cast<size_t>(lo.rows[0]) + 1];
        hiOf[static_cast<size_t>(s0)] = s1;
        for (int i = 0; i < 8; ++i) sent[static_cast<size_t>(s1 + i)] = false;
      }
  }
  std::string p = fmt::format("xtc_d{}_", loopId);
  LaneProgram prefetch(lm, op, p);
  if (!prefetch.plan()) return noPlan("its prefetch addresses are not a lane program the statement computes");
  // Past this point the statement is emitted (no more nullopt, no IR made before it).

  const size_t nOut = static_cast<size_t>(lm.chunks_);
  Dg2Statement st(op, ctx, nOut, lm.steps_);
  // Row gathers (issue 11, session 19; dg2-visa.sh `gathers`): when every paired operand's rows are of
  // one memref and step alike, the row pairs are not read by row and moved, but by SIMD16 A64 untyped
  // reads of one dword per lane, `svm_gather4scaled.R (M1_NM, 16)`: lanes 0-7 dword l of row 2u's
  // half h, lanes 8-15 the same of row 2u + 1, so the response's two registers are registers 2u and
  // 2u + 1 of operand h, in place: no mov. Their 16 addresses are a walked vector per row pair (V for
  // pair 0, lane l: row 0's address + 4 (l % 8), lanes 8-15 a pitch on; W<q> = V + pair q's row offset,
  // made before the loop), each advanced by one SIMD16 64-bit add (two SIMD8 adds in the ISA), the
  // K-high gather's 32 bytes the message's immediate offset, which IGC adds into the payload (two
  // SIMD8 adds). Per two rows 2 sends and 4 adds where the pairs took 2 reads, 2 adds and 3 movs, the
  // floor's 6 (gemm_bf16's slice loop 201-202 -> 191-194; with one walked V and a scalar offset per
  // gather 195-197, IGC adding every offset: 2 adds a step more; 16 walked vectors, one per gather,
  // spilled).
  std::vector<size_t> pairLo;  // the paired K-low operands' first slots
  for (size_t s0 = 0; s0 < nA; s0 += 8)
    if (hiOf[s0] >= 0) pairLo.push_back(s0);
  bool gather = !pairLo.empty();
  for (size_t s0 : pairLo) {
    const Read& r = readOf(order[s0]);
    const Read& r0 = readOf(order[pairLo[0]]);
    gather = gather && r.mem == r0.mem && r.eb == r0.eb && st.stepOf(r.row) == st.stepOf(r0.row) &&
             st.stepOf(r.col) == st.stepOf(r0.col);
  }
  if (gather)
    for (size_t s0 : pairLo)
      for (size_t i = 0; i < 8; ++i) sent[s0 + i] = false;
  std::vector<int> addrOf(order.size(), -1);  // a sent message's address register
  int nSent = 0;
  for (size_t i = 0; i < order.size(); ++i)
    if (sent[i]) addrOf[i] = nSent++;
  for (auto [arg, step] : lm.condSteps_) st.setCondStep(arg, step, (lm.ifMask_ + 1) / lm.step_, lm.ifEq_);
  llvm::IRBuilder<>& b = st.b;
  auto arg = [&](llvm::Value* v, const char* c) { return st.input(v, c); };
  std::function<llvm::Value*(const ir::Value*)> hoist = [&](const ir::Value* v) { return st.hoist(v); };

  int64_t eb = lm.in_ == ElemKind::I8 ? 1 : 2, P = 4 / eb;
  std::string sub = eb == 1 ? "ub" : "uw";
  size_t nB = order.size() - nA;
  std::ostringstream t;
  t << "{\n";
  if (nSent) t << fmt::format(".decl {}a v_type=G type=uq num_elts={} align=GRF\n", p, 4 * nSent);  // none: RFC 2.2/2.3's gathers
  t << fmt::format(".decl {}A v_type=G type=ud num_elts={} align=GRF\n", p, 8 * std::max<size_t>(nA, 1));
  if (nPacked) {
    t << fmt::format(".decl {}R v_type=G type={} num_elts={} align=GRF\n", p, sub, static_cast<int64_t>(nB) * G * kGrf / eb);
    t << fmt::format(".decl {}B v_type=G type={} num_elts={} align=GRF\n", p, sub, nPacked * 8 * kGrf / eb);
    t << fmt::format(".decl {}Bd v_type=G type=ud num_elts={} align=GRF alias=<{}B,0>\n", p, nPacked * 64, p);
  }
  // A lane read: its per-lane addresses of dwords 0-3 (l) and 4-7 (m, 16 bytes on), the operand's 8
  // registers (L) and their second half (H), each half one SIMD8 A64 untyped read of 4 dwords.
  for (size_t j = 0; j < laneOps.size(); ++j)
    t << fmt::format(
        ".decl {0}l{1} v_type=G type=uq num_elts=8 align=GRF\n.decl {0}m{1} v_type=G type=uq num_elts=8 align=GRF\n"
        ".decl {0}L{1} v_type=G type=ud num_elts=64 align=GRF\n.decl {0}H{1} v_type=G type=ud num_elts=32 align=GRF alias=<{0}L{1},{2}>\n",
        p, j, 4 * kGrf);
  // The loop ends on the first sent message whose address steps by a positive immediate (an A row's
  // column), unless the scf.if's block reads the counter.
  std::string walk;
  int64_t walkBy = 0;
  if (gather && !lm.if_) {  // V's lane 0 is row 0's address
    const Read& r0 = readOf(order[pairLo[0]]);
    if ((walkBy = st.walkBytes(r0.row, r0.col, r0.eb)) > 0) walk = p + "V";
  }
  for (size_t i = 0; i < order.size() && !lm.if_ && walk.empty(); ++i) {
    const Read& r = readOf(order[i]);
    if (sent[i] && (walkBy = st.walkBytes(r.row, r.col, r.eb)) > 0) walk = fmt::format("{}a{}", p, addrOf[i]);
  }
  st.loopDecls(t, p, walk.empty());
  for (int i = 0; i < nSent; ++i)
    t << fmt::format(".decl {}a{} v_type=G type=uq num_elts=1 alias=<{}a,{}>\n", p, i, p, kGrf * i);
  // The row pairs' reads, two registers each: an odd row's into the K-high operand (W<register>), an
  // even row's into a 2-register temporary of its own (U<n>).
  std::map<size_t, std::string> pairRead;  // slot -> the read's destination
  struct RowPair { size_t lo, hi; int u; };  // row i's K-low and K-high registers, its temporary pair
  std::vector<RowPair> rowPairs;
  for (size_t s0 = 0; s0 < nA; s0 += 8) {
    if (hiOf[s0] < 0) continue;
    size_t s1 = static_cast<size_t>(hiOf[s0]);
    for (size_t i = 0; i < 8; i += 2) {
      int u = static_cast<int>(rowPairs.size());
      rowPairs.push_back({s0 + i, s1 + i, u});
      pairRead[s0 + i] = fmt::format("{}U{}", p, u);
      pairRead[s0 + i + 1] = fmt::format("{}W{}", p, s1 + i);
      if (!gather)
        t << fmt::format(".decl {0}W{1} v_type=G type=ud num_elts=16 align=GRF alias=<{0}A,{2}>\n", p, s1 + i, kGrf * static_cast<int64_t>(s1 + i));
    }
  }
  if (gather) {
    // The gathers: G<n> = operand h's registers 2u, 2u + 1 (n = 2 x pair + h); pair q's addresses V or W<q>.
    t << fmt::format(".decl {}V v_type=G type=uq num_elts=16 align=GRF\n", p);
    for (size_t q = 1; q < rowPairs.size(); ++q) t << fmt::format(".decl {}W{} v_type=G type=uq num_elts=16 align=GRF\n", p, q);
    for (size_t n = 0; n < 2 * rowPairs.size(); ++n) {
      size_t reg = n % 2 ? rowPairs[n / 2].hi : rowPairs[n / 2].lo;
      t << fmt::format(".decl {}G{} v_type=G type=ud num_elts=16 align=GRF alias=<{}A,{}>\n", p, n, p, kGrf * static_cast<int64_t>(reg));
    }
  } else {
    for (const RowPair& rp : rowPairs) t << fmt::format(".decl {}U{} v_type=G type=ud num_elts=16 align=GRF\n", p, rp.u);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (i < nA)
      t << fmt::format(".decl {}A{} v_type=G type=ud num_elts=8 align=GRF alias=<{}A,{}>\n", p, i, p, kGrf * static_cast<int64_t>(i));
    else
      t << fmt::format(".decl {}R{} v_type=G type=ud num_elts={} align=GRF alias=<{}R,{}>\n", p, i - nA, 8 * G, p,
                       kGrf * G * static_cast<int64_t>(i - nA));
  }
  auto declEnd = t.tellp();
  // The step's order, measured (benchmarks/xe-isa-notes.md "dg2 statement order"): a loop that packs
  // B rows (sg_gemm_f16, gemm_f16, gemm_i8, gemm_bf16, RFC 2.1/2.5) reads A first with the address
  // adds at the step's top (addsFirst: each address enters one step back, and the step's add brings
  // it to the step's row; the loop's end is the walked address's entry value plus the span, so it
  // moves back too); a loop whose B operands are lane reads (RFC 2.2/2.3) reads B first and adds at
  // the end. IGC's schedule keeps the sends about in this order. Measured per K step: B first, IGC
  // needs fewer syncs in the lane-read loops (RFC 2.3 715 -> 710, RFC 2.2 905 -> 903); in the packing
  // loops A first with the adds at the top gave gemm_bf16 1616 -> 1613, RFC 2.1 1624 -> 1620, RFC
  // 2.5's loops 2-16 3031 -> 3025, gemm_i8 171 -> 170 (one sync fewer), sg_gemm_f16 124 and gemm_f16
  // 143 as B first with the adds at the end (B first with the adds at the top: 125, 143, 171).
  // RFC 2.5's first loop (a block that reads the counter) keeps its adds at the end: 247 against 261.
  const bool bFirst = nPacked == 0;
  const bool addsFirst = !bFirst && laneOps.empty() && !lm.if_;
  // The per-lane addresses: group g's lane l = the address of message 8g + l at loop entry (one step
  // earlier when the adds open the step).
  st.lane();
  auto entryAddress = [&](size_t g) {
    const Read& r0 = readOf(order[8 * g]);
    llvm::Value* addr = st.groupAddress(r0.mem, r0.row, r0.col, r0.eb);
    if (order[8 * g] % 2) addr = b.CreateAdd(addr, b.getInt64(static_cast<uint64_t>(kGrf)));  // a row's second half
    if (addsFirst) addr = st.stepBack(r0.mem, r0.row, r0.col, r0.eb, addr);  // one step back
    return addr;
  };
  for (size_t g = 0; g < order.size() / 8; ++g)
    if (sent[8 * g]) st.spread(t, p, static_cast<size_t>(addrOf[8 * g] / 8), entryAddress(g));
  std::streampos wInitAt = 0;
  std::string wInit;                  // the walked W<q>' initial values, before the loop
  std::map<size_t, std::string> wOff;  // W<q>'s offset from V
  if (gather) {
    // Inputs: V's lanes 0-7 (row 0's address + 4 l) and per paired group its rows' offsets from row 0
    // (lane l: row R + l's); V's lanes 8-15 are lanes 0-7 plus row 1's offset.
    const Read& r0 = readOf(order[pairLo[0]]);
    llvm::Value* pitch0 = st.pitch(r0.mem, r0.eb);
    llvm::Value* row0 = b.CreateSub(entryAddress(pairLo[0] / 8), b.CreateMul(st.lane(), pitch0));
    std::string v = arg(b.CreateAdd(row0, b.CreateMul(st.lane(), b.getInt64(4))), "rw");
    std::map<size_t, std::string> offs;  // K-low first slot -> its rows' offsets
    for (size_t s0 : pairLo) offs[s0] = arg(b.CreateSub(entryAddress(s0 / 8), row0), "rw");
    t << fmt::format("mov (M1_NM, 8) {0}V(0,0)<1> {1}(0,0)<1;1,0>\nadd (M1_NM, 8) {0}V(2,0)<1> {1}(0,0)<1;1,0> {2}(0,1)<0;1,0>\n", p, v,
                     offs[pairLo[0]]);
    wInitAt = t.tellp();
    for (size_t q = 1; q < rowPairs.size(); ++q) {  // W<q> = V + pair q's even row's offset
      size_t s0 = rowPairs[q].lo / 8 * 8;
      wOff[q] = fmt::format("{}(0,{})<0;1,0>", offs[s0], rowPairs[q].lo - s0);
      wInit += fmt::format("add (M1_NM, 16) {0}W{1}(0,0)<1> {0}V(0,0)<1;1,0> {2}\n", p, q, wOff[q]);
    }
  }
  auto laneRead = [&](size_t j) -> const Read& {
    return lm.reads_[static_cast<size_t>(lm.bOps_[static_cast<size_t>(laneOps[j])].rows[0])];
  };
  for (size_t j = 0; j < laneOps.size(); ++j) {  // each lane's own row: no lane term
    const Read& r = laneRead(j);
    st.laneRead(t, p, j, st.laneAddress(r.mem, r.row, r.col, r.eb));
  }
  // The prefetches' program: its declarations go with the others (spliced in below), its copies here.
  std::ostringstream progDecls, progBody, progSteps;
  auto carriedInit = [&](const ir::Value* v) { return ctx.get(op.operand(v->index() + 2)).at(0); };
  prefetch.emit(arg, hoist, carriedInit, st.trips(), walk.empty(), walk, walkBy, addsFirst, b, progDecls, t, progBody, progSteps);
  // Two steps per iteration, each with its own operand registers (issue 11, session 20; measured by
  // hand on xtc's text, benchmarks/xe-isa-notes.md "dg2 K loops: two steps per iteration"): step 2k + 1
  // writes a second set of A's registers (and of packed B's) while step 2k's dpas still read the
  // first, and the loop's compare, jump and IGC's self-mov (one per basic block) come once per two
  // steps. An odd trip count runs one step (second set) before the loop. Measured per K step:
  // sg_gemm_f16 124 -> 121, gemm_f16 143 -> 140.5, gemm_i8 170 -> 169 (A, R and B doubled: 122,
  // 141, 168), RFC 2.3's loops 80-81 -> 78-79 (A only: with the lane reads' registers doubled too it
  // spilled), RFC 2.2 827 -> 790; the loops that pack B after row gathers (gemm_bf16, RFC 2.1/2.5)
  // are slower so (gemm_bf16 1531 -> 1550) and keep one step. The parity test ANDs the span with the
  // step's bytes: a power of two. A loop whose end test reads the counter (its conditional block) keeps
  // one step.
  // The second set's declarations (A's, packed B's and the row gathers' aliases of A, renamed), and
  // (Dg2Statement::fits) two steps only where the kernel's register file holds the second set too.
  std::string secondDecls = Dg2Statement::twoStepDecls(p);
  bool derivedW = false;
  {
    const std::string decls = t.str().substr(0, static_cast<size_t>(declEnd));
    const std::regex doubled("^\\.decl " + p + "(A|B|Bd|G)\\d* ");
    std::istringstream lines(decls);
    for (std::string line; std::getline(lines, line);)
      if (std::regex_search(line, doubled)) secondDecls += otherSet(line, p) + "\n";
    secondDecls = st.fits(st.declaredRegisters(decls + progDecls.str() + secondDecls)) ? secondDecls : std::string();
    // Derived row gather addresses (issue 10, session 23) where even one step's registers do not fit:
    // W<q> is not walked across the loop but made from V right before its gathers (an add where the
    // walk had its add), so IGC holds only the addresses in flight, not 4 registers per row pair. An
    // f16 24x16 tile with RFC 2.1's prefetch tiles on dg2 (12 row pairs: 48 registers walked; the
    // statement spilled around 25): 44 registers fewer, no spill (benchmarks/xe-isa-notes.md).
    // When the statement alone (its own registers and the prefetch program's but its temporaries,
    // t<n>, each live from its write to its last read, in one step or before the loop; the outputs)
    // overfills the file, no reserve: that shape 193 + 21 + 48 = 262 of 256. Not below: the same
    // tile without the prefetches, 193 + 48 = 241, did not spill with the walked W and took 4
    // instructions a K step more with W made (221 -> 225); RFC 2.1's and 2.5's first slice loops (161
    // + 10 + 32 = 203, 161 + 37 + 32 = 230) keep the walked W.
    std::string carried;
    {
      std::istringstream lines(progDecls.str());
      const std::regex temporary("^\\.decl " + p + "t\\d+ ");
      for (std::string line; std::getline(lines, line);)
        if (!std::regex_search(line, temporary)) carried += line + "\n";
    }
    derivedW = gather && !st.fits(st.declaredRegisters(decls + carried), 0);
  }
  if (!derivedW && !wInit.empty()) {
    std::string text = t.str();
    text.insert(static_cast<size_t>(wInitAt), wInit);
    t.str(text);
    t.seekp(0, std::ios::end);
  }
  const bool twoSets = !walk.empty() && (walkBy & (walkBy - 1)) == 0 && (rowPairs.empty() || gather) &&
                       (laneOps.empty() ? nPacked > 0 && !gather : nPacked == 0) && !secondDecls.empty();
  st.loopStart(t, p, walk, walkBy, !twoSets);
  const auto bodyStart = t.tellp();
  const char* msg[] = {"", "d32x4t", "d32x8t", "", "d32x16t"};
  // The next `k` row gathers (G<n>: operand h's registers 2u, 2u + 1, n = 2 x pair + h; K-high 32 bytes on).
  size_t gathered = 0;
  auto rowGathers = [&](size_t k) {
    for (; k > 0 && gathered < 2 * rowPairs.size(); --k, ++gathered) {
      if (derivedW && gathered >= 2 && gathered % 2 == 0)  // W<q> = V + its offset, V at this step's row
        t << fmt::format("add (M1_NM, 16) {0}W{1}(0,0)<1> {0}V(0,0)<1;1,0> {2}\n", p, gathered / 2, wOff[gathered / 2]);
      t << fmt::format("svm_gather4scaled.R (M1_NM, 16) {1}:uq {0}{2}.0 {0}G{3}.0\n", p, gathered % 2 ? "0x20" : "0x0",
                       gathered < 2 ? std::string("V") : fmt::format("W{}", gathered / 2), gathered);
    }
  };
  auto rowRead = [&](size_t i) {
    const Read& r = readOf(order[i]);
    if (gather && i == 0) rowGathers(2 * rowPairs.size());
    if (!sent[i]) return;
    if (auto pr = pairRead.find(i); pr != pairRead.end())
      t << fmt::format("lsc_load.ugm (M1_NM, 1) {}:d32x16t flat[{}a{}]:a64\n", pr->second, p, addrOf[i]);
    else if (i < nA) t << fmt::format("lsc_load.ugm (M1_NM, 1) {}A{}:d32x8t flat[{}a{}]:a64\n", p, i, p, addrOf[i]);
    else t << fmt::format("lsc_load.ugm (M1_NM, 1) {}R{}:{} flat[{}a{}]:a64\n", p, i - nA, msg[r.bytes() / 16], p, addrOf[i]);
  };
  // One 64-bit add per message address: its row step times the pitch plus its column step times the
  // bytes (a uniform input when the row moves); empty when it does not move.
  auto stepBytes = [&](const Read& r) { return st.stepBytes(r.mem, r.row, r.col, r.eb); };
  auto addressAdds = [&] {
    if (gather) {
      const Read& r0 = readOf(order[pairLo[0]]);
      if (std::string by = stepBytes(r0); !by.empty())
        for (size_t q = 0; q < (derivedW ? 1 : rowPairs.size()); ++q) {
          std::string w = q ? fmt::format("{}W{}", p, q) : p + "V";
          t << fmt::format("add (M1_NM, 16) {0}(0,0)<1> {0}(0,0)<1;1,0> {1}\n", w, by);
        }
    }
    for (size_t i = 0; i < order.size(); ++i)
      if (std::string by = stepBytes(readOf(order[i])); sent[i] && !by.empty())
        t << fmt::format("add (M1_NM, 1) {}a{}(0,0)<1> {}a{}(0,0)<0;1,0> {}\n", p, addrOf[i], p, addrOf[i], by);
  };
  if (addsFirst) addressAdds();
  for (size_t i = 0; i < nA && !bFirst; ++i) rowRead(i);
  for (size_t i = nA; i < order.size(); ++i) rowRead(i);
  // With lane reads (RFC 2.2/2.3) one gather follows each lane read half, the rest after them
  // (measured by hand on xtc's text: RFC 2.3 654 -> 646, RFC 2.2 827 either way; two after each half
  // 654 and 827, four 653 and 843, all before 654 and 868; with one walked V and scalar offsets two
  // after each half had given 690 -> 664 and 876 -> 869: IGC's syncs follow the sends' order).
  for (size_t j = 0; j < laneOps.size(); ++j) {
    t << fmt::format("svm_gather4scaled.RGBA (M1, 8) 0x0:uq {0}l{1}.0 {0}L{1}.0\n", p, j);
    if (gather) rowGathers(1);
    t << fmt::format("svm_gather4scaled.RGBA (M1, 8) 0x0:uq {0}m{1}.0 {0}H{1}.0\n", p, j);
    if (gather) rowGathers(1);
  }
  if (gather && bFirst) rowGathers(2 * rowPairs.size());  // the rest
  for (size_t i = 0; i < nA && bFirst; ++i) rowRead(i);
  // The row pairs' movs, each step for all pairs before the next: no mov waits on both a read and
  // the mov before it (a wait on both costs a sync).
  if (!gather) {
    for (const RowPair& rp : rowPairs) t << fmt::format("mov (M1, 8) {0}A({1},0)<1> {0}U{2}(0,0)<1;1,0>\n", p, rp.lo, rp.u);
    for (const RowPair& rp : rowPairs) t << fmt::format("mov (M1, 8) {0}A({1},0)<1> {0}A({2},0)<1;1,0>\n", p, rp.lo + 1, rp.hi);
    for (const RowPair& rp : rowPairs) t << fmt::format("mov (M1, 8) {0}A({1},0)<1> {0}U{2}(1,0)<1;1,0>\n", p, rp.hi, rp.u);
  }
  t << progBody.str();
  // B register i of operand q, lane n, part h = row P*i + h, column 8t + n: one mov per row slot.
  int64_t epr = kGrf / eb;
  for (size_t q = 0; q < lm.bOps_.size(); ++q) {
    const BOperand& bo = lm.bOps_[q];
    if (bo.lane()) continue;
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t h = 0; h < P; ++h) {
        size_t rr = static_cast<size_t>(slot[2 * static_cast<size_t>(bo.rows[static_cast<size_t>(P * i + h)])]) - nA;
        int64_t off = static_cast<int64_t>(rr) * G * epr + bo.t * 8;
        t << fmt::format("mov (M1, 8) {}B({},{})<{}> {}R({},{})<1;1,0>\n", p, 8 * packed[q] + i, h, P, p, off / epr, off % epr);
      }
  }
  for (const Dpas& d : lm.dpas_) {
    const AOperand& ao = lm.aOps_[static_cast<size_t>(d.aOp)];
    int first = slot[static_cast<size_t>(2 * ao.rows[0] + ao.half)];
    int q = packed[static_cast<size_t>(d.bOp)];
    std::string src1 = q < 0 ? fmt::format("{}L{}.0", p, std::find(laneOps.begin(), laneOps.end(), d.bOp) - laneOps.begin())
                             : fmt::format("{}Bd.{}", p, 8 * kGrf * q);
    t << fmt::format("dpas.{}.{}.8.8 (M1, 8) ${}.0 ${}.0 {} {}A({},0)\n", precision(lm.in_), precision(lm.in_), d.chunk, d.chunk, src1, p,
                     first);
  }
  if (!addsFirst) addressAdds();
  for (size_t j = 0; j < laneOps.size(); ++j)
    if (std::string by = stepBytes(laneRead(j)); !by.empty())
      for (const char* h : {"l", "m"}) t << fmt::format("add (M1, 8) {0}{1}{2}(0,0)<1> {0}{1}{2}(0,0)<1;1,0> {3}\n", p, h, j, by);
  t << progSteps.str();
  std::string second;  // the second set's declarations
  if (twoSets) {
    std::string text = t.str(), step = text.substr(static_cast<size_t>(bodyStart));
    t.str(text.substr(0, static_cast<size_t>(bodyStart)));
    t.seekp(0, std::ios::end);
    // A label in the step (a conditional block) cannot be written twice: one step then.
    const bool labels = std::regex_search(step, std::regex(R"(^\w+:$)", std::regex::multiline));
    if (labels) {
      t << fmt::format("{}loop:\n", p) << step;
    } else {
      std::string other = otherSet(step, p);
      st.twoSteps(t, p, walkBy, step, other);
      second = secondDecls;
    }
  }
  st.loopStep(t, p, lm.step_);

  // The accumulator chunks, tied to their initial values.
  llvm::Type* et = lm.acc_ == ElemKind::F32 ? b.getFloatTy() : b.getInt32Ty();
  std::map<unsigned, size_t> first;
  for (auto [a, chunk] : lm.accBase_) {
    first[a] = static_cast<size_t>(chunk);
    st.setTied(first[a], ctx.get(op.operand(a + 2)), et);
  }
  std::string text = t.str();
  text.insert(static_cast<size_t>(declEnd), progDecls.str() + second);
  st.finish(text, et, first);
  return std::string();
}

}  // namespace xtc::backend
