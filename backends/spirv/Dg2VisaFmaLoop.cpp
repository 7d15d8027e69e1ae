// dg2's interior f32 FMA GEMM K loop as one inline-vISA statement (Dg2VisaFmaLoop.h). Two parts:
//  1. Match (pure IR): the body holds only index math (LoopCoords.h's "base + constant"), global f32
//     xe.block_read of one or two registers per lane (32- or 64-byte rows: d32x8t, d32x16t, the
//     forms dg2-visa.sh measured), vector.extract/from_elements, lane.broadcast of a read element from
//     a constant lane 0..7, lane.fma(that broadcast, a read element, an accumulator element) and the
//     yield. Every element is traced to (read, element), (accumulator argument, element) or (fma).
//     Element e of a read is register e of its response (lane n = column 8e + n: XeOps.h
//     blockElement with P = 1), so the broadcast of element e from lane j is dword j of that register
//     (a scalar region) and the B element is the whole register. Each accumulator element is one
//     register (8 lanes) and a chain of fma from its argument to the yield at the same element: each
//     fma adds into its element's last link, so the mads update the tied output in place in IR order.
//     The row reads, in IR order, form groups of 8 consecutive rows of one memref at one column (one
//     per-lane address input each). A lane.fma's B may instead be an element of an xe.lane_read of 8 f32
//     (gemm_bt's B^T: lane n reads its own row, element e = the K value e = dword e, which the statement's
//     untyped read puts in register reg16(e)), its row "base + constant" where the base may be an expression
//     of values defined outside the loop (invariantSym); a broadcast A is always a row read's.
//     Anything else: no match, and the loop is emitted op by op.
//  2. Emit (the text dg2_visa_loop.py's fma_statement measured): before the loop, each group's per-lane
//     i64 address is spread into one register per message (an LSC address must start a register); in
//     the loop the row reads (`lsc_load.ugm (M1_NM, 1) … :d32x{8,16}t flat[…]:a64`) in IR order, one
//     `mad (M1, 8)` per lane.fma in IR order, or one `mad (M1_NM, 16)` per pair of them (a row's two
//     column blocks: below, "SIMD16 pairs"; NoMask: a SIMD8 dispatch enables channels 0-7 only, so a
//     masked SIMD16 op would leave channels 8-15, the pair's second register, unwritten; the interior
//     loop runs with every lane on, see below), one 64-bit add per message address (an immediate for a
//     column step, the row step times the pitch as a uniform input), the loop's end: a 64-bit cmp of
//     the first A message's (or row gather's lane 0) walked address with its end and the backward
//     jmp (no counter). A lane
//     read (dg2_visa_loop.py fma_statement with bt, measured): its per-lane address an input (the
//     second, 16 bytes on, made before the loop), per step two `svm_gather4scaled.RGBA (M1, 8)` into
//     its own 8 registers (Lf<j> the mads' f view) after the row reads, one SIMD8 64-bit add per address;
//     since session 18 one `svm_gather4scaled.RGBA (M1_NM, 16)` over both addresses and one SIMD16
//     add (IGC: two SIMD8 adds), both NoMask as the mad pairs, the registers in the SIMD16 response's order (reg16).
//     A group of 8 A rows of 32 bytes is emitted as such a lane read too (a row gather, since session
//     18: lane l reads its own row; the mad's A the scalar Lf<j>(reg16(k), i)): 1 send and 2 adds per 8
//     rows.
#include "backends/spirv/Dg2VisaFmaLoop.h"

#include "backends/spirv/Dg2VisaCommon.h"
#include "backends/spirv/LoopCoords.h"
#include "ir/ops/XeOps.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

namespace xtc::backend {

namespace {

using ir::ElemKind;

constexpr int64_t kGrf = 32;   // bytes per register (dg2)
constexpr int64_t kLanes = 8;  // dg2's subgroup
// IGC's float-pipe window on dg2, measured with 8 to 16 SIMD8 mad chains (benchmarks/xe-isa-notes.md):
// an accumulator written by the float instruction 8 back needs a register-distance wait (`F@7`), 12
// back none. A mad that also waits on its B row's send token then costs a `sync.nop`.
constexpr size_t kFloatNoWait = 12;

enum class Src : uint8_t { Read, Acc, Fma };
struct Elem {
  Src kind;
  int src;  // read / fma number, or the accumulator slot (Acc: accBase + element)
  int idx;  // the read's element (Read), else 0
  bool operator==(const Elem& o) const = default;
};

// One xe.block_read of a global f32 row: `n` registers per lane (n * 32 bytes of the row); or (lane)
// one xe.lane_read of B^T: 8 f32 of each lane's own row (n = 8, dword e of every lane in register reg16(e)).
struct Read {
  const ir::Operation* op;
  const ir::Value* mem;
  Sym row, col;
  int64_t n;
  bool lane = false;
  // A row read: its first register in the statement's response buffer, or (gather >= 0) its row within
  // the row gather `gather` (below); a lane read: its number.
  int64_t reg = 0;
  int gather = -1;
};

// One lane.fma: slot += A (read `aRead`, element `aElem`, lane `lane`) * B (read `bRead`, element `bElem`).
struct Fma {
  int slot;
  int aRead, aElem, lane;
  int bRead, bElem;
};

class Matcher {
 public:
  explicit Matcher(const ir::Operation& op) : for_(op), body_(op.region(0).block()) {}
  bool match();

  const ir::Operation& for_;
  const ir::Block& body_;
  std::map<const ir::Value*, std::vector<Elem>> elems_;
  std::map<const ir::Value*, std::pair<Elem, int>> bcasts_;  // lane.broadcast: {read element, lane}
  std::vector<Read> reads_;
  std::vector<Fma> fmas_;
  std::vector<int> last_;                      // per accumulator slot: its chain's last fma, -1 none
  std::map<unsigned, int> accBase_;            // accumulator argument -> its first slot
  std::map<const ir::Value*, int64_t> steps_;  // loop-carried index argument -> its step
  int64_t step_ = 0;

 private:
  bool walk(const ir::Operation& op);
  bool read(const ir::Operation& op, bool lane);
  bool fma(const ir::Operation& op);
  bool yield(const ir::Operation& op);
  const std::vector<Elem>* elems(const ir::Value* v) const {
    auto it = elems_.find(v);
    return it == elems_.end() ? nullptr : &it->second;
  }
  // The single element a scalar value is, else null.
  const Elem* scalar(const ir::Value* v) const {
    const std::vector<Elem>* e = elems(v);
    return e && e->size() == 1 ? &(*e)[0] : nullptr;
  }
};

bool Matcher::match() {
  if (for_.numRegions() != 1 || for_.numOperands() < 3 || body_.numArguments() != for_.numOperands() - 2) return false;
  std::optional<int64_t> step = constInt(for_.operand(2));
  if (!step || *step <= 0) return false;
  step_ = *step;
  // Arguments: f32 vector accumulators (whole registers of 8 elements) and index coordinates.
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Type& t = body_.argument(a)->type();
    if (t.isScalar() && t.elem() == ElemKind::Index) continue;
    if (!t.isVector() || t.rank() != 1 || t.shape()[0] % 8 != 0 || t.elem() != ElemKind::F32) return false;
    int base = static_cast<int>(last_.size());
    accBase_[a] = base;
    std::vector<Elem> es;
    for (int64_t i = 0; i < t.shape()[0]; ++i) {
      es.push_back({Src::Acc, base + static_cast<int>(i), 0});
      last_.push_back(-1);
    }
    elems_[body_.argument(a)] = std::move(es);
  }
  if (last_.empty()) return false;
  for (const auto& o : body_.opList())
    if (!walk(*o)) return false;
  return !fmas_.empty();
}

bool Matcher::walk(const ir::Operation& op) {
  if (op.numRegions() != 0) return false;
  if (op.is("arith.constant")) return true;
  if (op.is("arith.addi") || op.is("arith.subi") || op.is("arith.convert")) {
    // Index math: each use must see it as base + constant (bodySym, checked where used).
    return op.numResults() == 1 && op.result()->type().isScalar() && ir::isIntElem(op.result()->type().elem());
  }
  if (op.is("xe.block_read")) return read(op, false);
  if (op.is("xe.lane_read")) return read(op, true);
  if (std::optional<bool> traced = traceVectorOp(op, elems_)) return *traced;
  if (op.is("lane.broadcast")) {
    // Only as the A operand of a lane.fma (elems_ has no entry for it): an f32 row read element of one lane.
    const Elem* x = scalar(op.operand(0));
    std::optional<Sym> lane = bodySym(op.operand(1), for_);
    if (!x || x->kind != Src::Read || reads_[static_cast<size_t>(x->src)].lane || !lane || lane->base || lane->div != 1 || lane->off < 0 || lane->off >= kLanes ||
        !op.result()->type().isScalar() || op.result()->type().elem() != ElemKind::F32)
      return false;
    bcasts_[op.result()] = {*x, static_cast<int>(lane->off)};
    return true;
  }
  if (op.is("lane.fma")) return fma(op);
  if (op.is("scf.yield")) return yield(op);
  return false;
}

// A global f32 read (elem_bits 32), its memref defined outside the loop, at "base + constant"
// coordinates: a row read (xe.block_read) of 8 or 16 f32 of one row (one or two registers per lane),
// its bases stepping by known constants; or (lane) a lane read of B^T (gemm_bt: lane n reads row n of
// its column block, 8 consecutive f32 of it: element e = column col + e of the lane's row = the K
// value e = dword e, which the statement's SIMD16 untyped read of 4 dwords puts in register reg16(e),
// lane n: the mad's B register), the row's base possibly an expression of values defined outside the
// loop (invariantSym: the tile's row plus the lane's part, computed before the statement).
bool Matcher::read(const ir::Operation& op, bool lane) {
  if (op.numOperands() != 3) return false;
  const ir::Value* mem = op.operand(0);
  const ir::Type& mt = mem->type();
  const ir::Type& vt = op.result()->type();
  if (!mt.isMemRef() || mt.memSpace() == ir::MemSpace::Slm || mt.rank() != 2 || mt.elem() != ElemKind::F32 ||
      !definedOutside(mem, for_) || !vt.isVector() || vt.rank() != 1 || vt.elem() != ElemKind::F32)
    return false;
  std::optional<int64_t> unit = ir::blockUnit(op);
  auto sym = [&](unsigned i) { return lane ? invariantSym(op.operand(i), for_) : bodySym(op.operand(i), for_); };
  std::optional<Sym> row = sym(1), col = sym(2);
  int64_t n = vt.shape()[0];
  if (!unit || *unit != 1 || !row || !col || row->div != 1 || col->div != 1 || (lane ? n != 8 : n != 1 && n != 2)) return false;
  if (!baseStep(row->base, for_) || !baseStep(col->base, for_)) return false;
  std::vector<Elem> es;
  for (int64_t e = 0; e < n; ++e) es.push_back({Src::Read, static_cast<int>(reads_.size()), static_cast<int>(e)});
  elems_[op.result()] = std::move(es);
  reads_.push_back({&op, mem, *row, *col, n, lane});
  return true;
}

// broadcast × read element + the last link of one accumulator element's chain.
bool Matcher::fma(const ir::Operation& op) {
  if (op.numOperands() != 3 || op.result()->type().elem() != ElemKind::F32 || !op.result()->type().isScalar()) return false;
  auto a = bcasts_.find(op.operand(0));
  const Elem *b = scalar(op.operand(1)), *c = scalar(op.operand(2));
  if (a == bcasts_.end() || !b || !c || b->kind != Src::Read) return false;
  int slot;
  if (c->kind == Src::Acc) {
    slot = c->src;
    if (last_[static_cast<size_t>(slot)] != -1) return false;  // the argument was already added into
  } else if (c->kind == Src::Fma) {
    slot = fmas_[static_cast<size_t>(c->src)].slot;
    if (last_[static_cast<size_t>(slot)] != c->src) return false;  // not the chain's last link
  } else {
    return false;
  }
  const Elem& ae = a->second.first;
  last_[static_cast<size_t>(slot)] = static_cast<int>(fmas_.size());
  elems_[op.result()] = {{Src::Fma, static_cast<int>(fmas_.size()), 0}};
  fmas_.push_back({slot, ae.src, ae.idx, a->second.second, b->src, b->idx});
  return true;
}

// Accumulators: each element yields its chain's last fma (or itself unchanged); coordinates: themselves
// plus a constant.
bool Matcher::yield(const ir::Operation& op) {
  if (op.numOperands() != body_.numArguments() - 1) return false;
  for (unsigned a = 1; a < body_.numArguments(); ++a) {
    const ir::Value* y = op.operand(a - 1);
    auto base = accBase_.find(a);
    if (base == accBase_.end()) {
      std::optional<int64_t> s = carriedStep(body_.argument(a), bodySym(y, for_));
      if (!s) return false;
      steps_[body_.argument(a)] = *s;
      continue;
    }
    const std::vector<Elem>* es = elems(y);
    if (!es || es->size() != elems(body_.argument(a))->size()) return false;
    for (size_t i = 0; i < es->size(); ++i) {
      int slot = base->second + static_cast<int>(i);
      int last = last_[static_cast<size_t>(slot)];
      Elem want = last < 0 ? Elem{Src::Acc, slot, 0} : Elem{Src::Fma, last, 0};
      if ((*es)[i] != want) return false;
    }
  }
  return true;
}

// The register of a lane read's (or row gather's) response holding dword e of the lanes' 8: the SIMD16
// read's channel e % 4 of lanes 0-7 (dwords 0-3) or 8-15 (dwords 4-7).
int reg16(int e) { return e < 4 ? 2 * e : 2 * (e - 4) + 1; }

// Two reads of one memref at one column whose rows are `d` apart.
bool rowsApart(const Read& a, const Read& b, int64_t d) {
  return a.mem == b.mem && a.row.base == b.row.base && b.row.off == a.row.off + d && a.col.base == b.col.base && a.col.off == b.col.off;
}

}  // namespace

std::optional<std::string> emitDg2VisaFmaLoop(const ir::Operation& op, XeEmitContext& ctx, unsigned loopId) {
  if (!dg2LoopStatementAllowed(op, ctx)) return std::nullopt;
  Matcher lm(op);
  if (!lm.match()) return std::nullopt;
  // The row reads in IR order, in groups of 8 consecutive rows of one memref at one column (lane l of a
  // group's address input = row R + l).
  std::vector<Read*> rows;
  std::vector<bool> asB(lm.reads_.size(), false);
  for (Read& r : lm.reads_)
    if (!r.lane) rows.push_back(&r);
  for (const Fma& f : lm.fmas_) asB[static_cast<size_t>(f.bRead)] = true;
  if (rows.empty() || rows.size() % 8 != 0) return std::nullopt;
  for (size_t g = 0; g < rows.size() / 8; ++g)
    for (size_t l = 1; l < 8; ++l)
      if (!rowsApart(*rows[8 * g], *rows[8 * g + l], static_cast<int64_t>(l))) return std::nullopt;
  // Past this point the statement is emitted (no more nullopt, no IR made before it).

  // Row gathers (since issue #11's session 18): a group of 8 rows of 32 bytes read only as broadcast
  // A elements is read as a lane read: lane l reads its own row R + l, 8 dwords (the B^T lane read's
  // form, one SIMD16 untyped read of 4: lanes 8-15 the rows' dwords 4-7), so register reg16(c) of the
  // gather holds column col + c of the 8 rows, row i in dword i, and A(R + i, col + c) is the scalar
  // `Lf<j>(reg16(c), i)` (a mad's A is a scalar region wherever it lies). 1 send and 2 adds per 8 rows
  // where the row reads took 8 and 8, and 1 SBID token instead of 8. Lanes: the lane reads in IR
  // order, then the row gathers; messages: the other row reads (in groups of 8, as above) in IR order.
  std::vector<const Read*> msgs, lanes;
  for (Read& r : lm.reads_)
    if (r.lane) {
      r.reg = static_cast<int64_t>(lanes.size());
      lanes.push_back(&r);
    }
  std::vector<size_t> gathers;  // lanes index of each row gather
  int64_t regs = 0;
  for (size_t g = 0; g < rows.size() / 8; ++g) {
    bool gather = true;
    for (size_t l = 0; l < 8; ++l)
      gather = gather && rows[8 * g + l]->n == 1 && !asB[static_cast<size_t>(rows[8 * g + l] - lm.reads_.data())];
    for (size_t l = 0; l < 8; ++l) {
      Read& r = *rows[8 * g + l];
      if (gather) {
        r.gather = static_cast<int>(lanes.size());
        r.reg = static_cast<int64_t>(l);
        continue;
      }
      r.reg = regs;
      regs += r.n;
      msgs.push_back(&r);
    }
    if (gather) {
      gathers.push_back(lanes.size());
      lanes.push_back(rows[8 * g]);
    }
  }

  // SIMD16 pairs (dg2-visa.sh `simd16`: an f32 mad over two adjacent registers, a scalar A, is one
  // instruction; a region that is not contiguous costs IGC a mov per source, so it must be): fma i
  // and i + 1 with one A (read, element, lane) and B registers b, b + 1 of one row read (a 64-byte B
  // row: C row m's two column blocks) make one `mad (M1_NM, 16)` when their accumulator slots are two
  // adjacent registers of an output. The outputs are laid out for it: slot s at place[s] (output
  // place / 8, register place % 8), each pair's first at an even place, its second next. Every fma
  // must be in such a pair, the same two slots in every step, else no pairs (the identity places).
  const size_t nSlots = lm.last_.size();
  std::vector<int> place(nSlots), pairOf(nSlots, -1);
  std::vector<bool> first(lm.fmas_.size(), false);
  bool paired = true;
  for (size_t i = 0; paired && i < lm.fmas_.size(); i += 2) {
    const Fma& f = lm.fmas_[i];
    const Fma* g = i + 1 < lm.fmas_.size() ? &lm.fmas_[i + 1] : nullptr;
    paired = g && g->aRead == f.aRead && g->aElem == f.aElem && g->lane == f.lane && g->bRead == f.bRead &&
             !lm.reads_[static_cast<size_t>(f.bRead)].lane && g->bElem == f.bElem + 1 && g->slot != f.slot;
    if (!paired) break;
    // pairOf: -1 unpaired, partner + 1 for a pair's first, -(partner + 2) for its second.
    int& pf = pairOf[static_cast<size_t>(f.slot)];
    int& pg = pairOf[static_cast<size_t>(g->slot)];
    paired = (pf == -1 || pf == g->slot + 1) && (pg == -1 || pg == -(f.slot + 2));
    pf = g->slot + 1;
    pg = -(f.slot + 2);
    first[i] = true;
  }
  int next = 0;
  for (size_t s = 0; paired && s < nSlots; ++s) {
    if (pairOf[s] == -1) paired = false;  // a slot no fma pairs
    else if (pairOf[s] > 0) {
      place[s] = next++;
      place[static_cast<size_t>(pairOf[s] - 1)] = next++;
    }
  }
  if (!paired) {
    std::fill(first.begin(), first.end(), false);
    for (size_t s = 0; s < nSlots; ++s) place[s] = static_cast<int>(s);
  }

  // Two accumulator sets: when a mad rewrites its accumulator fewer than kFloatNoWait mads after the
  // previous one (8 in sg_gemm_f32 and gemm_splitk: C's 8 row pairs, each once per K value), the first
  // mad of each B row also waited on that row's send, so IGC put a `sync.nop` before it (7 per step;
  // its scheduler groups the mads by B row whatever the text's order). Every accumulator's odd updates
  // of a step (its odd K values) then go to a second set Z, each register rewritten twice as far
  // apart, and C += Z once after the loop (hand probe: sg_gemm_f32 94 -> 87 per step, gemm_splitk 93
  // -> 86). Only with an even number of updates per accumulator and step, so the sets alternate across
  // steps too. Z starts at -0.0, the identity of f32 addition (K = 0 and a C of -0.0 stay exact:
  // -0.0 + -0.0 = -0.0), so a mad into it rounds a * b alone. The sum's order changes (two chains,
  // then their sum): tile_mma leaves it open, as a reduction's (docs/hardware.md "dg2: the f32 FMA
  // accumulator in two sets").
  std::vector<int> setOf(lm.fmas_.size(), 0);
  bool twoSets = false;
  {
    std::map<int, std::vector<size_t>> updates;  // place -> its mads' instruction numbers, in order
    size_t n = 0;
    for (size_t i = 0; i < lm.fmas_.size(); ++i) {
      std::vector<size_t>& u = updates[place[static_cast<size_t>(lm.fmas_[i].slot)]];
      setOf[i] = static_cast<int>(u.size() % 2);
      u.push_back(n++);
      if (first[i]) {  // a pair's second: the same instruction
        setOf[i + 1] = setOf[i];
        ++i;
      }
    }
    bool even = true;
    size_t gap = n;
    for (const auto& [at, u] : updates) {
      even = even && u.size() % 2 == 0;
      for (size_t j = 0; j < u.size(); ++j) gap = std::min(gap, (u[(j + 1) % u.size()] + n - u[j] - 1) % n + 1);
    }
    twoSets = even && gap < kFloatNoWait;
  }

  const size_t nOut = nSlots / 8;  // outputs of 8 accumulator elements (registers) each
  Dg2Statement st(op, ctx, nOut, lm.steps_);
  std::string p = fmt::format("xtc_f{}_", loopId);
  size_t nMsg = msgs.size();
  std::ostringstream t;
  t << "{\n";
  if (nMsg > 0) {
    t << fmt::format(".decl {}a v_type=G type=uq num_elts={} align=GRF\n", p, 4 * nMsg);
    t << fmt::format(".decl {}R v_type=G type=ud num_elts={} align=GRF\n", p, 8 * regs);
    t << fmt::format(".decl {}Rf v_type=G type=f num_elts={} align=GRF alias=<{}R,0>\n", p, 8 * regs, p);
  }
  const auto zAt = t.tellp();  // Z's declaration goes here when it fits (below)
  // A lane read or row gather (since session 18 one SIMD16 A64 untyped read of 4 dwords, measured:
  // `send.dc1 (16|M0)`, rd:8): its 16 per-lane addresses (g), lanes 0-7 the rows' dwords 0-3 (l) and
  // lanes 8-15 the same rows' dwords 4-7 (m, 16 bytes on); its 8 registers (L, Lf the mads' f view)
  // hold the response in SoA order, channel c of the 16 lanes in registers 2c and 2c + 1, so dword e
  // of the 8 rows is register reg16(e) (below).
  for (size_t j = 0; j < lanes.size(); ++j)
    t << fmt::format(
        ".decl {0}g{1} v_type=G type=uq num_elts=16 align=GRF\n.decl {0}l{1} v_type=G type=uq num_elts=8 align=GRF alias=<{0}g{1},0>\n"
        ".decl {0}m{1} v_type=G type=uq num_elts=8 align=GRF alias=<{0}g{1},{2}>\n"
        ".decl {0}L{1} v_type=G type=ud num_elts=64 align=GRF\n.decl {0}Lf{1} v_type=G type=f num_elts=64 align=GRF alias=<{0}L{1},0>\n",
        p, j, 2 * kGrf);
  // The loop ends on the first message whose address steps by a positive immediate (an A row's
  // column; B's rows step by a pitch), else on the first row gather's lane 0 (row R's address).
  std::string walk;
  int64_t walkBy = 0;
  for (size_t i = 0; i < nMsg && walk.empty(); ++i)
    if ((walkBy = st.walkBytes(msgs[i]->row, msgs[i]->col, 4)) > 0) walk = fmt::format("{}a{}", p, i);
  for (size_t j : gathers)
    if (walk.empty() && (walkBy = st.walkBytes(lanes[j]->row, lanes[j]->col, 4)) > 0) walk = fmt::format("{}l{}", p, j);
  st.loopDecls(t, p, walk.empty());
  // Two K steps per iteration (issue 11, session 20; the DPAS statements' form, Dg2VisaLoop.cpp): the
  // loop's compare and jump come once per two steps, and the second step gathers A (and gemm_bt's B^T)
  // into its own registers (Ls<j>, Lfs<j>), so its sends need not wait for the first step's mads to
  // read theirs. An odd trip count runs one step (second set) before the loop; the parity is the span
  // AND one step's bytes (a power of two). Each step's text is the same but for those names, so every
  // accumulator's sum order (and Z's odd K) is the one-step loop's. Measured by hand on xtc's text
  // (benchmarks/xe-isa-notes.md "dg2 f32 FMA loops: two steps per iteration"), per K step: sg_gemm_f32
  // and gemm_splitk 86 -> 85, gemm_acc 153 -> 152, gemm_bt 140 -> 139 (with its adds first; 139.5
  // with them last); the B rows' registers doubled too measured the same, the same registers worse.
  bool twoSteps = !walk.empty() && (walkBy & (walkBy - 1)) == 0;
  std::string stepDecls = Dg2Statement::twoStepDecls(p);
  for (size_t j = 0; j < lanes.size(); ++j)
    stepDecls += fmt::format(".decl {0}L{1}s v_type=G type=ud num_elts=64 align=GRF\n.decl {0}Lf{1}s v_type=G type=f num_elts=64 align=GRF alias=<{0}L{1}s,0>\n",
                             p, j);
  const std::string zDecl = fmt::format(".decl {}Z v_type=G type=f num_elts={} align=GRF\n", p, 8 * nSlots);
  // The second registers only where the kernel's register file holds them (Dg2Statement::fits): two
  // steps when their second gather registers fit, then Z when it fits with them. A user's 16x16
  // accumulator in two 8x8 column blocks (mads unpaired, so Z) with both spilled 785 (per K step 296
  // with Z alone, 295.5 with two steps alone, no spills; benchmarks/xe-isa-notes.md, session 21).
  const int64_t base = st.declaredRegisters(t.str()), stepRegs = st.declaredRegisters(stepDecls);
  // Derived addresses (issue 10, session 23) where even one step's registers do not fit: a lane read
  // whose rows and columns are another's (its anchor's: the same memref and kind, the same step)
  // plus constants (constantDifference proves it) is not walked in registers of its own across the
  // loop; its 16 addresses are made right before its send from the anchor's and a uniform byte
  // offset (`o`, four a register), so IGC holds them only from that add to the send. The same one
  // add per read and step as the walk's. A 16x48 f32 gemm_bt tile on dg2 (12 lane reads, 48
  // registers of walked addresses; with the 96 accumulator registers and the loads' 128, the
  // values the edge loop and the epilogue need did not fit around the statement: "spilled around
  // 10", 105 scratch messages): 41 registers fewer, no spill (benchmarks/xe-isa-notes.md, session 23).
  // The row reads' addresses (one register each) stay walked: derived alike (16 in that tile) IGC
  // spilled more, not less.
  std::vector<int> anchorOf(lanes.size(), -1);
  std::vector<std::pair<int64_t, int64_t>> delta(lanes.size());  // rows and columns from the anchor's
  std::vector<std::string> offsetOf(lanes.size());
  if (!st.fits(base))
    for (size_t j = 1; j < lanes.size(); ++j)
      for (size_t k = 0; k < j && anchorOf[j] < 0; ++k) {
        const Read &r = *lanes[j], &a = *lanes[k];
        if (anchorOf[k] >= 0 || r.mem != a.mem || r.lane != a.lane || st.stepOf(r.row) != st.stepOf(a.row) ||
            st.stepOf(r.col) != st.stepOf(a.col))
          continue;
        std::optional<int64_t> dr = constantDifference(r.row, a.row, &op), dc = constantDifference(r.col, a.col, &op);
        if (dr && dc) {
          anchorOf[j] = static_cast<int>(k);
          delta[j] = {*dr, *dc};
        }
      }
  if (std::any_of(anchorOf.begin(), anchorOf.end(), [](int k) { return k >= 0; }))  // the offsets, 4 a register
    t << fmt::format(".decl {}o v_type=G type=uq num_elts={} align=GRF\n", p, lanes.size());
  for (size_t j = 0; j < lanes.size(); ++j)  // the loop's end test walks an anchor (the same step)
    if (anchorOf[j] >= 0 && walk == fmt::format("{}l{}", p, j)) walk = fmt::format("{}l{}", p, anchorOf[j]);
  twoSteps = twoSteps && st.fits(base + stepRegs);
  twoSets = twoSets && st.fits(base + st.declaredRegisters(zDecl) + (twoSteps ? stepRegs : 0));
  if (twoSteps) t << stepDecls;
  if (twoSets) {
    std::string text = t.str();
    text.insert(static_cast<size_t>(zAt), zDecl);
    t.str(text);
    t.seekp(0, std::ios::end);
  }
  for (size_t i = 0; i < nMsg; ++i) {
    const Read& r = *msgs[i];
    t << fmt::format(".decl {}a{} v_type=G type=uq num_elts=1 alias=<{}a,{}>\n", p, i, p, kGrf * static_cast<int64_t>(i));
    t << fmt::format(".decl {}R{} v_type=G type=ud num_elts={} align=GRF alias=<{}R,{}>\n", p, i, 8 * r.n, p, kGrf * r.reg);
  }
  // The address adds open the step when every lane read is a row gather (measured on xtc's text:
  // sg_gemm_f32 87 -> 86 per K step, gemm_acc 154 -> 153, gemm_splitk 86 either way: the loop's first
  // send no longer waits on the address spread's last mov by a `sync.nop`); so each address enters one
  // step back, and the loop's end, made from the walked address's entry value, moves back with it.
  // gemm_bt's B^T lane reads kept the adds at the end (140 either way with one step); with two steps
  // they open the step too (139 against 139.5 per K step: xe-isa-notes.md, session 20).
  const bool addsFirst = twoSteps || std::none_of(lanes.begin(), lanes.end(), [](const Read* r) { return r->lane; });
  // The per-lane addresses: group g's lane l = the address of message 8g + l at loop entry; each lane
  // read's lane its own row (no lane term).
  st.lane();
  for (size_t j = 0; j < lanes.size(); ++j) {
    const Read& r = *lanes[j];
    if (anchorOf[j] >= 0) {  // row and column offsets from the anchor's, in bytes
      llvm::Value* off = st.b.CreateAdd(st.b.CreateMul(st.pitch(r.mem, 4), st.b.getInt64(static_cast<uint64_t>(delta[j].first))),
                                        st.b.getInt64(4 * static_cast<uint64_t>(delta[j].second)));
      t << fmt::format("mov (M1,1) {}o(0,{})<1> {}(0,0)<0;1,0>\n", p, j, st.input(off, "rw.u"));
      offsetOf[j] = fmt::format("{}o(0,{})", p, j);
      continue;
    }
    llvm::Value* addr = r.lane ? st.laneAddress(r.mem, r.row, r.col, 4) : st.groupAddress(r.mem, r.row, r.col, 4);
    st.laneRead(t, p, j, addsFirst ? st.stepBack(r.mem, r.row, r.col, 4, addr) : addr);
  }
  for (size_t g = 0; g < nMsg / 8; ++g) {
    const Read& r0 = *msgs[8 * g];
    llvm::Value* addr = st.groupAddress(r0.mem, r0.row, r0.col, 4);
    st.spread(t, p, g, addsFirst ? st.stepBack(r0.mem, r0.row, r0.col, 4, addr) : addr);
  }
  // Z's registers by place, in the mads' widths (a pair's two registers: one NoMask SIMD16 op).
  std::string zEnd;
  for (size_t at = 0; twoSets && at < nSlots; at += paired ? 2 : 1) {
    const char* w = paired ? "M1_NM, 16" : "M1, 8";
    t << fmt::format("mov ({}) {}Z({},0)<1> 0x80000000:f\n", w, p, at);
    zEnd += fmt::format("add ({0}) ${1}({2},0)<1> ${1}({2},0)<1;1,0> {3}Z({4},0)<1;1,0>\n", w, at / 8, at % 8, p, at);
  }
  st.loopStart(t, p, walk, walkBy, !twoSteps);
  const auto stepStart = t.tellp();  // the step's text follows (written twice when twoSteps)
  // One 64-bit add per message address (a lane read's 16 addresses: one SIMD16 add).
  auto addressAdds = [&] {
    for (size_t i = 0; i < nMsg; ++i)
      if (std::string by = st.stepBytes(msgs[i]->mem, msgs[i]->row, msgs[i]->col, 4); !by.empty())
        t << fmt::format("add (M1_NM, 1) {}a{}(0,0)<1> {}a{}(0,0)<0;1,0> {}\n", p, i, p, i, by);
    for (size_t j = 0; j < lanes.size(); ++j)
      if (std::string by = st.stepBytes(lanes[j]->mem, lanes[j]->row, lanes[j]->col, 4); anchorOf[j] < 0 && !by.empty())
        t << fmt::format("add (M1_NM, 16) {0}g{1}(0,0)<1> {0}g{1}(0,0)<1;1,0> {2}\n", p, j, by);
  };
  if (addsFirst) addressAdds();
  for (size_t i = 0; i < nMsg; ++i)
    t << fmt::format("lsc_load.ugm (M1_NM, 1) {}R{}:{} flat[{}a{}]:a64\n", p, i, msgs[i]->n == 1 ? "d32x8t" : "d32x16t", p, i);
  for (size_t j = 0; j < lanes.size(); ++j) {
    if (anchorOf[j] >= 0)  // after the anchor's add when the adds open the step, before it otherwise: its step's
      t << fmt::format("add (M1_NM, 16) {0}g{1}(0,0)<1> {0}g{2}(0,0)<1;1,0> {3}<0;1,0>\n", p, j, anchorOf[j], offsetOf[j]);
    t << fmt::format("svm_gather4scaled.RGBA (M1_NM, 16) 0x0:uq {0}g{1}.0 {0}L{1}.0\n", p, j);
  }
  // C(slot) += A (dword `lane` of its element's register) * B (its element's register), in place;
  // a pair's two in one SIMD16 mad at the first's place.
  for (size_t i = 0; i < lm.fmas_.size(); ++i) {
    const Fma& f = lm.fmas_[i];
    const Read& br = lm.reads_[static_cast<size_t>(f.bRead)];
    const Read& a = lm.reads_[static_cast<size_t>(f.aRead)];
    std::string av = a.gather >= 0 ? fmt::format("{}Lf{}({},{})", p, a.gather, reg16(f.lane), a.reg)
                                   : fmt::format("{}Rf({},{})", p, a.reg + f.aElem, f.lane);
    std::string bv = br.lane ? fmt::format("{}Lf{}({},0)", p, br.reg, reg16(f.bElem)) : fmt::format("{}Rf({},0)", p, br.reg + f.bElem);
    int at = place[static_cast<size_t>(f.slot)];
    std::string acc = twoSets && setOf[i] ? fmt::format("{}Z({},0)", p, at) : fmt::format("${}({},0)", at / 8, at % 8);
    t << fmt::format("mad ({}) {}<1> {}<0;1,0> {}<1;1,0> {}<1;1,0>\n", first[i] ? "M1_NM, 16" : "M1, 8", acc, av, bv, acc);
    if (first[i]) ++i;
  }
  if (!addsFirst) addressAdds();
  if (twoSteps) {
    std::string text = t.str(), step = text.substr(static_cast<size_t>(stepStart));
    t.str(text.substr(0, static_cast<size_t>(stepStart)));
    t.seekp(0, std::ios::end);
    // The second set: the lane reads' registers renamed (L<j> -> L<j>s, Lf<j> -> Lf<j>s).
    const std::string other = std::regex_replace(step, std::regex("\\b" + p + "(L|Lf)(\\d+)\\b"), "$&s");
    st.twoSteps(t, p, walkBy, step, other);
  }
  st.loopStep(t, p, lm.step_, zEnd);

  // The accumulator registers in outputs of 8 (output c register r = place 8c + r), tied to their
  // initial values: the value of the slot at each place.
  std::vector<llvm::Value*> init(nSlots), atPlace(nSlots);
  for (auto [a, base] : lm.accBase_) {
    const std::vector<llvm::Value*>& v = ctx.get(op.operand(a + 2));
    for (size_t i = 0; i < v.size(); ++i) init[static_cast<size_t>(base) + i] = v[i];
  }
  for (size_t s = 0; s < nSlots; ++s) atPlace[static_cast<size_t>(place[s])] = init[s];
  std::map<unsigned, size_t> outFirst;
  for (auto [a, base] : lm.accBase_) {
    outFirst[a] = static_cast<size_t>(base) / 8;
    size_t n = ctx.get(op.operand(a + 2)).size();
    st.setTied(outFirst[a], std::vector<llvm::Value*>(atPlace.begin() + base, atPlace.begin() + base + static_cast<int64_t>(n)),
               st.b.getFloatTy());
  }
  st.finish(t.str(), st.b.getFloatTy(), outFirst);
  // finish() read output register q as slot q; the slot at place q is another when paired.
  std::vector<llvm::Value*> byPlace(nSlots);
  for (auto [a, base] : lm.accBase_) {
    const std::vector<llvm::Value*>& v = ctx.get(op.result(a - 1));
    for (size_t i = 0; i < v.size(); ++i) byPlace[static_cast<size_t>(base) + i] = v[i];
  }
  for (auto [a, base] : lm.accBase_) {
    std::vector<llvm::Value*> v(ctx.get(op.result(a - 1)).size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = byPlace[static_cast<size_t>(place[static_cast<size_t>(base) + i])];
    ctx.set(op.result(a - 1), std::move(v));
  }
  return std::string();
}

}  // namespace xtc::backend
