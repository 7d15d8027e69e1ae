// lower-xe for tile.transpose (issues #9, #10; design in XeTranspose.h). A transpose emits no code:
// layout-assignment gave its result the operand's lane layout with the two dimensions swapped, so
// register r of every lane holds the same element either way. Folded transposes were already done
// by the load's transposed d32 message (LowerXe.cpp, lowerLoadTile, with transposedX below).
#include "ir/passes/LowerXeKernel.h"
#include "ir/passes/XeTranspose.h"

#include <algorithm>

namespace xtc::passes::lowerxe {

void KernelLowerXe::lowerTranspose(Operation& op) {
  const Type& st = op.operand(0)->type();
  const Type& rt = op.result()->type();
  if (st.rank() != 2 || rt.rank() != 2) fail(op, "transposes of rank other than 2 are not implemented yet on pvc/dg2");
  const layout::LinearLayout& ls = laneLayout(st, op);
  const layout::LinearLayout& lr = laneLayout(rt, op);
  if (need(xe::transposedLayout(ls), op) != lr)
    fail(op, "internal error: the transpose's result layout is not its operand's with the dimensions swapped");
  vals_.set(op.result(), {vals_.get1(op.operand(0), op)});
}

Value* KernelLowerXe::transposedX(const xe::Message& m, Value* col) {
  // A d32 message over 16-bit data counts x in dwords: two tile columns each. The column offset must
  // be even (a hardware rule like the other surface rules, docs/passes.md "lower-xe").
  if (!m.transpose || !m.dataBits || m.dataBits == m.elemBits) return col;
  return b_.create("arith.divui", {col, cIndex(m.elemBits / m.dataBits)}, {Type::index()})->result();
}

}  // namespace xtc::passes::lowerxe

namespace xtc::passes::lowerxe {

// f(lane) for a table f over the lanes that is affine over xor (f(l) = f(0) ^ xor of f(2^b) ^ f(0) over
// the set bits b of l), as an index value computed from the lane id; an error otherwise.
Value* KernelLowerXe::laneAffine(const Operation& op, const std::vector<int64_t>& f, const char* what) {
  int64_t c = f[0];
  std::vector<int64_t> col;
  for (int64_t bit = 1; bit < S_; bit <<= 1) col.push_back(f[static_cast<size_t>(bit)] ^ c);
  for (int64_t l = 0; l < S_; ++l) {
    int64_t expect = c;
    for (size_t b = 0; b < col.size(); ++b)
      if (l >> b & 1) expect ^= col[b];
    if (f[static_cast<size_t>(l)] != expect)
      fail(op, fmt::format("a shuffle whose {} is not linear in the lane is not implemented yet", what));
  }
  Value* v = c == 0 ? nullptr : cIndex(c);
  for (size_t b = 0; b < col.size(); ++b) {
    if (col[b] == 0) continue;
    Value* bit = b_.create("arith.andi", {b_.create("arith.shrui", {laneId_, cIndex(static_cast<int64_t>(b))}, {Type::index()})->result(), cIndex(1)},
                           {Type::index()})
                     ->result();
    Value* term = b_.create("arith.muli", {bit, cIndex(col[b])}, {Type::index()})->result();
    v = v ? b_.create("arith.xori", {v, term}, {Type::index()})->result() : term;
  }
  return v ? v : cIndex(0);
}

// A transpose in registers that no load could take (e.g. of a computed value) makes lane l of
// destination register r read register regs(l) of lane lanes(l): one lane.shuffle of every source
// register that some lane reads, all from the lane's own source lane, then a select by the lane's
// source register. Correct for any such plan; it costs (source registers) shuffles per register, so
// the folded load (XeTranspose.h) is what the passes aim for.
Value* KernelLowerXe::shuffleVaryingRegister(const Operation& op, const std::vector<Value*>& src,
                                             const std::vector<int64_t>& regs, const std::vector<int64_t>& lanes, int64_t r,
                                             ElemKind k) {
  auto row = [&](const std::vector<int64_t>& v) {
    return std::vector<int64_t>(v.begin() + r * S_, v.begin() + (r + 1) * S_);
  };
  std::vector<int64_t> rr = row(regs), ll = row(lanes);
  // Every lane reading its own lane (a register permutation that differs per lane, resolve-layouts):
  // selects between the source registers, no shuffle.
  bool ownLane = true;
  for (int64_t l = 0; l < S_; ++l) ownLane &= ll[static_cast<size_t>(l)] == l;
  Value* srcLane = ownLane ? nullptr : laneAffine(op, ll, "source lane");
  Value* srcReg = laneAffine(op, rr, "source register");
  std::vector<int64_t> distinct(rr);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  Type i1 = Type::scalar(ElemKind::I1), et = Type::scalar(k);
  Value* acc = nullptr;
  for (int64_t s : distinct) {
    Value* sh = ownLane ? src.at(static_cast<size_t>(s))
                        : b_.create("lane.shuffle", {src.at(static_cast<size_t>(s)), srcLane}, {et})->result();
    if (!acc) {
      acc = sh;
      continue;
    }
    Value* is = b_.create("arith.cmpi", {srcReg, cIndex(s)}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "eq")}})->result();
    acc = b_.create("arith.select", {is, sh, acc}, {et})->result();
  }
  return acc;
}

}  // namespace xtc::passes::lowerxe

namespace xtc::passes::lowerxe {

// The three phases of xe::planDiagonal (XeTranspose.h) for a shuffle plan whose source register
// differs per lane; nullopt when no register's does (the plain per-register shuffles are optimal
// then) or the plan has no such form (the caller falls back to shuffleVaryingRegister).
std::optional<std::vector<Value*>> KernelLowerXe::diagonalShuffles(const Operation& op, const std::vector<Value*>& src,
                                                                   const std::vector<int64_t>& regs,
                                                                   const std::vector<int64_t>& lanes, ElemKind k) {
  int64_t R = static_cast<int64_t>(regs.size()) / S_;
  bool varying = false;
  for (int64_t r = 0; r < R && !varying; ++r)
    for (int64_t l = 0; l < S_; ++l) varying |= regs[static_cast<size_t>(r * S_ + l)] != regs[static_cast<size_t>(r * S_)];
  if (!varying || static_cast<int64_t>(src.size()) != R) return std::nullopt;
  auto plan = xe::planDiagonal(regs, lanes, R, S_);
  if (!plan) return std::nullopt;
  Type i1 = Type::scalar(ElemKind::I1), et = Type::scalar(k);
  // In-lane stages: for each lane bit j with a nonzero xor x_j, cur[r] = bit_j(lane) ? cur[r ^ x_j] : cur[r].
  auto stages = [&](std::vector<Value*> cur, const std::vector<int64_t>& xors) {
    for (size_t j = 0; j < xors.size(); ++j) {
      if (!xors[j]) continue;
      Value* bit = pro_.create("arith.andi", {laneId_, cIndex(int64_t(1) << j)}, {Type::index()})->result();
      Value* set = pro_.create("arith.cmpi", {bit, cIndex(0)}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "ne")}})
                       ->result();
      std::vector<Value*> next;
      for (int64_t r = 0; r < R; ++r)
        next.push_back(b_.create("arith.select", {set, cur[static_cast<size_t>(r ^ xors[j])], cur[static_cast<size_t>(r)]}, {et})
                           ->result());
      cur = std::move(next);
    }
    return cur;
  };
  std::vector<Value*> y = stages(src, plan->F), w;
  for (int64_t r = 0; r < R; ++r) {
    std::vector<int64_t> from;
    bool identity = true;
    for (int64_t l = 0; l < S_; ++l) {
      from.push_back(plan->G[static_cast<size_t>(l)] ^ plan->H[static_cast<size_t>(r)]);
      identity &= from.back() == l;
    }
    Value* v = y[static_cast<size_t>(r)];
    w.push_back(identity ? v : b_.create("lane.shuffle", {v, laneAffine(op, from, "source lane")}, {et})->result());
  }
  std::vector<Value*> renamed;
  for (int64_t r = 0; r < R; ++r) renamed.push_back(w[static_cast<size_t>(plan->Q[static_cast<size_t>(r)])]);
  return stages(renamed, plan->K);
}

}  // namespace xtc::passes::lowerxe
