// dg2's interior row-sum loop as one inline-vISA statement (Dg2VisaReduceLoop.h). Two parts:
//  1. Match (pure IR): the body holds only index math (LoopCoords.h's "base + constant"), 8 global
//     f32 xe.block_read of n = 1, 2 or 4 registers per lane (rows base + 0 .. base + 7 of one memref
//     at one column: row q's 8n elements, element e lane j = column 8e + j), vector.extract/
//     from_elements, scalar f32 arith.addf, 8 f32 lane.reduce add, one vector arith.addf of the
//     accumulator argument (vector<8xf32>) and the 8 reductions, and the yield. Every scalar addf is
//     an interior node of exactly one reduction's tree, whose leaves are all n elements of one row
//     read, each once: the reduction is that row's sum, in an order the tile language leaves open
//     (docs/language.md, `reduction`). Accumulator element i must be added to row i's sum (the IR's
//     `acc = acc + part`), and the accumulator's initial value a constant: the same in every lane,
//     which the statement's transposed running sum (row r in lane r) needs (below). Anything else:
//     no match, and the loop is emitted op by op.
//  2. Emit (only when the rows are fixed and their column steps by a positive constant: row_sum's
//     column walk): lane j reads row base + j (not the block read's row layout): per step 2n SIMD8
//     A64 untyped reads of 4 dwords (`svm_gather4scaled.RGBA (M1, 8)`, the form gemm_bt's lane
//     reads use), read k at the row's column + 4k, into registers 4k .. 4k + 3 of R (register c lane
//     j = column c of row j); each read's per-lane address is its own variable, one SIMD8 64-bit add
//     per step, at the step's top (the addresses start one step back). The 8n registers are summed
//     in place over register pairs (SIMD16 adds): first each read's two pairs, R(4k, 4k + 1) +=
//     R(4k + 2, 4k + 3), then neighbouring reads' sums, halving (R(0) += R(4), R(8) += R(12), ..,
//     R(0) += R(8), ..); the last pair's two registers by one SIMD8 add into P: lane j of P is row
//     j's sum, a balanced tree of depth log2(8n). Then one SIMD8 add S = S + P, the running sum S
//     (row r in lane r). S is made before the loop from the accumulator's initial value (register
//     r's lane r: every lane holds the same constant) and after the loop each output register r is
//     S's lane r (a broadcast mov): 8 movs each side, outside the loop. The loop ends on the first
//     read's walked lane-0 address (Dg2VisaCommon.h loopStart: no counter).
#include "backends/spirv/Dg2VisaReduceLoop.h"

#include "backends/spirv/Dg2VisaCommon.h"
#include "backends/spirv/LoopCoords.h"
#include "ir/ops/XeOps.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace xtc::backend {

namespace {

using ir::ElemKind;

constexpr int kRows = 8;  // dg2's subgroup: one row per lane

// Where a scalar of the body comes from: row read `a` element `b`; addf node `a`; reduction `a`;
// accumulator element `b`; or (Sum) accumulator element `b` plus reduction `a`.
struct Elem {
  enum Kind : uint8_t { Read, Add, Red, Acc, Sum } kind;
  int a = 0, b = 0;
};

struct Read {
  const ir::Value* mem;
  Sym row, col;
  int64_t n;
};

class Matcher {
 public:
  explicit Matcher(const ir::Operation& op) : for_(op), body_(op.region(0).block()) {}
  bool match();

  const ir::Operation& for_;
  const ir::Block& body_;
  std::vector<Read> reads_;
  unsigned accArg_ = 0;                        // the accumulator's block argument
  std::map<const ir::Value*, int64_t> steps_;  // loop-carried index argument -> its step
  int64_t step_ = 0;

 private:
  bool walk(const ir::Operation& op);
  bool leaves(const Elem& e, std::vector<int>& uses, std::multiset<std::pair<int, int>>& out);
  const std::vector<Elem>* elems(const ir::Value* v) const {
    auto it = elems_.find(v);
    return it == elems_.end() ? nullptr : &it->second;
  }
  const Elem* scalar(const ir::Value* v) const {
    const std::vector<Elem>* e = elems(v);
    return e && e->size() == 1 && v->type().isScalar() ? &(*e)[0] : nullptr;
  }

  std::map<const ir::Value*, std::vector<Elem>> elems_;
  std::vector<std::pair<Elem, Elem>> adds_;  // scalar addf nodes
  std::vector<Elem> reds_;                   // lane.reduce add sources
  const std::vector<Elem>* yielded_ = nullptr;
};

bool Matcher::match() {
  if (for_.numRegions() != 1 || for_.numOperands() < 4 || body_.numArguments() != for_.numOperands() - 2) return false;
  std::optional<int64_t> step = constInt(for_.operand(2));
  if (!step || *step <= 0) return false;
  step_ = *step;
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Type& t = body_.argument(a)->type();
    if (t.isScalar() && t.elem() == ElemKind::Index) continue;
    if (accArg_ || !t.isVector() || t.rank() != 1 || t.shape()[0] != kRows || t.elem() != ElemKind::F32) return false;
    // The initial value a constant: each element the same in every lane (the transposed sum needs it).
    const ir::Operation* init = for_.operand(a + 2)->definingOp();
    if (!init || !init->is("arith.constant")) return false;
    accArg_ = a;
    std::vector<Elem> es;
    for (int i = 0; i < kRows; ++i) es.push_back({Elem::Acc, 0, i});
    elems_[body_.argument(a)] = std::move(es);
  }
  if (!accArg_) return false;
  for (const auto& o : body_.opList())
    if (!walk(*o)) return false;
  // 8 row reads of one memref, one column, consecutive rows, all of n registers.
  if (reads_.size() != kRows || reds_.size() != kRows || !yielded_) return false;
  for (size_t q = 0; q < reads_.size(); ++q) {
    const Read &r0 = reads_[0], &r = reads_[q];
    if (r.mem != r0.mem || r.n != r0.n || r.row.base != r0.row.base || r.row.off != r0.row.off + static_cast<int64_t>(q) ||
        r.col.base != r0.col.base || r.col.off != r0.col.off)
      return false;
  }
  // Each reduction sums all elements of one read, each once, through addf nodes each used once.
  std::vector<int> uses(adds_.size(), 0);
  std::vector<int> rowOf(reds_.size(), -1);
  std::set<std::pair<int, int>> seen;
  for (size_t j = 0; j < reds_.size(); ++j) {
    std::multiset<std::pair<int, int>> ls;
    if (!leaves(reds_[j], uses, ls) || ls.empty()) return false;
    int q = ls.begin()->first;
    if (static_cast<int64_t>(ls.size()) != reads_[static_cast<size_t>(q)].n) return false;
    for (auto [rq, e] : ls)
      if (rq != q || !seen.insert({rq, e}).second) return false;
    rowOf[j] = q;
  }
  for (int u : uses)
    if (u != 1) return false;
  // The yield: accumulator element i + the reduction of row i (the lane that reads row i).
  for (int i = 0; i < kRows; ++i) {
    const Elem& e = (*yielded_)[static_cast<size_t>(i)];
    if (e.kind != Elem::Sum || e.b != i || rowOf[static_cast<size_t>(e.a)] != i) return false;
  }
  return true;
}

bool Matcher::leaves(const Elem& e, std::vector<int>& uses, std::multiset<std::pair<int, int>>& out) {
  if (e.kind == Elem::Read) {
    out.insert({e.a, e.b});
    return true;
  }
  if (e.kind != Elem::Add) return false;
  if (++uses[static_cast<size_t>(e.a)] != 1) return false;
  const auto& [x, y] = adds_[static_cast<size_t>(e.a)];
  return leaves(x, uses, out) && leaves(y, uses, out);
}

bool Matcher::walk(const ir::Operation& op) {
  if (op.numRegions() != 0) return false;
  if (op.is("arith.constant")) return op.numResults() == 1 && op.result()->type().isScalar() && ir::isIntElem(op.result()->type().elem());
  if (op.is("arith.addi") || op.is("arith.subi") || op.is("arith.convert"))
    return op.numResults() == 1 && op.result()->type().isScalar() && ir::isIntElem(op.result()->type().elem());
  if (op.is("xe.block_read")) {
    if (op.numOperands() != 3) return false;
    const ir::Value* mem = op.operand(0);
    const ir::Type& mt = mem->type();
    const ir::Type& vt = op.result()->type();
    if (!mt.isMemRef() || mt.memSpace() != ir::MemSpace::Global || mt.rank() != 2 || !mt.strides().empty() || mt.elem() != ElemKind::F32 ||
        !definedOutside(mem, for_) || !vt.isVector() || vt.rank() != 1 || vt.elem() != ElemKind::F32 || ir::blockUnit(op).value_or(0) != 1)
      return false;
    std::optional<Sym> row = bodySym(op.operand(1), for_), col = bodySym(op.operand(2), for_);
    int64_t n = vt.shape()[0];
    if (!row || !col || row->div != 1 || col->div != 1 || (n != 1 && n != 2 && n != 4)) return false;
    if (!baseStep(row->base, for_) || !baseStep(col->base, for_)) return false;
    std::vector<Elem> es;
    for (int64_t e = 0; e < n; ++e) es.push_back({Elem::Read, static_cast<int>(reads_.size()), static_cast<int>(e)});
    elems_[op.result()] = std::move(es);
    reads_.push_back({mem, *row, *col, n});
    return true;
  }
  if (std::optional<bool> traced = traceVectorOp(op, elems_)) return *traced;
  if (op.is("arith.addf")) {
    if (op.numOperands() != 2 || op.result()->type().elem() != ElemKind::F32) return false;
    if (op.result()->type().isScalar()) {
      const Elem *x = scalar(op.operand(0)), *y = scalar(op.operand(1));
      if (!x || !y) return false;
      elems_[op.result()] = {{Elem::Add, static_cast<int>(adds_.size()), 0}};
      adds_.push_back({*x, *y});
      return true;
    }
    // The running sum: the accumulator argument itself plus the reductions (either side: a + b is
    // b + a bit for bit), element-wise.
    const ir::Value* acc = body_.argument(accArg_);
    const ir::Value* part = op.operand(0) == acc ? op.operand(1) : op.operand(1) == acc ? op.operand(0) : nullptr;
    const std::vector<Elem>* p = part ? elems(part) : nullptr;
    if (!p || p->size() != kRows || part == acc) return false;
    std::vector<Elem> es;
    for (int i = 0; i < kRows; ++i) {
      const Elem& e = (*p)[static_cast<size_t>(i)];
      if (e.kind != Elem::Red) return false;
      es.push_back({Elem::Sum, e.a, i});
    }
    elems_[op.result()] = std::move(es);
    return true;
  }
  if (op.is("lane.reduce")) {
    const Elem* x = scalar(op.operand(0));
    const ir::Attribute* k = op.attr("kind");
    if (!x || !k || k->getString() != "add" || op.result()->type().elem() != ElemKind::F32) return false;
    elems_[op.result()] = {{Elem::Red, static_cast<int>(reds_.size()), 0}};
    reds_.push_back(*x);
    return true;
  }
  if (op.is("scf.yield")) {
    if (op.numOperands() != body_.numArguments() - 1) return false;
    for (unsigned a = 1; a < body_.numArguments(); ++a) {
      const ir::Value* y = op.operand(a - 1);
      if (a == accArg_) {
        yielded_ = elems(y);
        if (!yielded_ || yielded_->size() != kRows) return false;
        continue;
      }
      std::optional<int64_t> s = carriedStep(body_.argument(a), bodySym(y, for_));
      if (!s) return false;
      steps_[body_.argument(a)] = *s;
    }
    return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> emitDg2VisaReduceLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId) {
  if (!dg2LoopStatementAllowed(op, ctx)) return std::nullopt;
  Matcher lm(op);
  if (!lm.match()) return std::nullopt;
  const Read& r0 = lm.reads_[0];
  const int64_t nReads = 2 * r0.n;  // 4 dwords (16 bytes) per lane each: the row's 8n columns
  const int64_t regs = 8 * r0.n;
  Dg2Statement st(op, ctx, 1, lm.steps_);  // (makes no IR)
  // The rows walk along their columns by a positive constant (row_sum's column loop), which the
  // addresses take as an immediate and the loop's end test as its walked address; else no statement.
  const int64_t walkBy = st.walkBytes(r0.row, r0.col, 4);
  if (walkBy <= 0) return std::nullopt;
  // Past this point the statement is emitted.
  std::string p = fmt::format("xtc_s{}_", loopId);
  std::ostringstream t;
  t << "{\n";
  for (int64_t k = 0; k < nReads; ++k) t << fmt::format(".decl {}l{} v_type=G type=uq num_elts=8 align=GRF\n", p, k);
  t << fmt::format(".decl {}R v_type=G type=f num_elts={} align=GRF\n", p, 8 * regs);
  for (int64_t k = 0; k < nReads; ++k) t << fmt::format(".decl {0}R{1} v_type=G type=f num_elts=32 align=GRF alias=<{0}R,{2}>\n", p, k, 128 * k);
  t << fmt::format(".decl {0}P v_type=G type=f num_elts=8 align=GRF\n.decl {0}S v_type=G type=f num_elts=8 align=GRF\n", p);
  const std::string walk = p + "l0";
  st.loopDecls(t, p, false);
  // Lane j's address of row base + j at the loop's first column, read k 16 bytes further each, one
  // step back: each step adds its step first, at the top, so that the reads wait for adds of the
  // same step (with the adds after the reads, IGC waited at the loop's head for the last one: a
  // sync.nop per step, measured). The walked end test then compares the step's advanced address
  // with the end made from the one step back, the same trip count (an address below one step, which
  // would wrap, is no buffer's).
  st.lane();
  std::string a = st.input(st.groupAddress(r0.mem, r0.row, r0.col, 4), "rw");
  for (int64_t k = 0; k < nReads; ++k)
    t << fmt::format("add (M1, 8) {}l{}(0,0)<1> {}(0,0)<1;1,0> {:#x}:uq\n", p, k, a, static_cast<uint64_t>(16 * k - walkBy));
  // The running sum, row r in lane r, from the constant initial value (output register r, any lane).
  for (int r = 0; r < kRows; ++r) t << fmt::format("mov (M1_NM, 1) {}S(0,{})<1> $0({},{})<0;1,0>\n", p, r, r, r);
  st.loopStart(t, p, walk, walkBy);
  for (int64_t k = 0; k < nReads; ++k) t << fmt::format("add (M1, 8) {0}l{1}(0,0)<1> {0}l{1}(0,0)<1;1,0> {2:#x}:uq\n", p, k, walkBy);
  for (int64_t k = 0; k < nReads; ++k) t << fmt::format("svm_gather4scaled.RGBA (M1, 8) 0x0:uq {0}l{1}.0 {0}R{1}.0\n", p, k);
  // Each lane's row, pairs of registers per instruction, in place: first each read's two pairs (an
  // add that waits for one read: one whose sources came from two reads waited for the second by a
  // sync of its own, 5 per step, measured), then neighbouring reads' sums, halving.
  std::vector<int64_t> live;
  for (int64_t k = 0; k < nReads; ++k) {
    t << fmt::format("add (M1_NM, 16) {0}R({1},0)<1> {0}R({1},0)<1;1,0> {0}R({2},0)<1;1,0>\n", p, 4 * k, 4 * k + 2);
    live.push_back(4 * k);
  }
  while (live.size() > 1) {
    std::vector<int64_t> next;
    for (size_t j = 0; j + 1 < live.size(); j += 2) {
      t << fmt::format("add (M1_NM, 16) {0}R({1},0)<1> {0}R({1},0)<1;1,0> {0}R({2},0)<1;1,0>\n", p, live[j], live[j + 1]);
      next.push_back(live[j]);
    }
    live = std::move(next);
  }
  t << fmt::format("add (M1, 8) {0}P(0,0)<1> {0}R(0,0)<1;1,0> {0}R(1,0)<1;1,0>\n", p);
  t << fmt::format("add (M1, 8) {0}S(0,0)<1> {0}S(0,0)<1;1,0> {0}P(0,0)<1;1,0>\n", p);
  // After the loop the outputs: register r = row r's running sum in every lane (the per-op code after
  // the loop reads any lane).
  std::string outs;
  for (int r = 0; r < kRows; ++r) outs += fmt::format("mov (M1, 8) $0({},0)<1> {}S(0,{})<0;1,0>\n", r, p, r);
  st.loopStep(t, p, lm.step_, outs);
  std::string text = t.str();

  st.setTied(0, ctx.get(op.operand(lm.accArg_ + 2)), st.b.getFloatTy());
  st.finish(text, st.b.getFloatTy(), {{lm.accArg_, 0}});
  return std::string();
}

}  // namespace xtc::backend
