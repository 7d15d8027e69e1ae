// dg2's block path as one inline-vISA statement (Dg2VisaBlock.h). Two parts:
//  1. Match (pure IR): the then-region of an scf.if without results holds only scalar index ops
//     (pureIndexOp, integer constants: emitted before the statement by the kernel emitter), global
//     xe.block_read of 1, 2 or 4 f32 registers per lane (one row: element i = register i, lane j =
//     column 8i + j; 8 registers since issue 11: softmax's 256-byte rows), xe.lane_read of 8 f32
//     per lane (lane j's own row: element i = dword i), vector.extract/from_elements, f32
//     arith.addf/maxf/mulf/subf/divf and math.exp (element-wise, one register each; a splat
//     constant operand an immediate, not as a divisor), f32 lane.reduce add/max of one register
//     (a scalar: the 8 lanes' halving tree, its result in lane r % 8 of bank register r / 8, read as
//     a scalar region), f32 xe.block_write of 1, 2, 4 or 8 registers and the empty yield, with every
//     read before every write (the statement reads first). Every element is traced to (message,
//     register), (node, -) or a constant. Anything else: no match. The exp and the division are
//     XeMath.h's expansions instruction for instruction (so IGC's results bit for bit), the
//     division's divisor part once per divisor register (a bank: all 8 rows' sums at once).
//  2. Emit: the block messages in groups of one memref, column and row base (rows base + r): the
//     first row's 64-bit address the memref's base plus a 32-bit offset (both inputs), each next
//     row's the previous one's plus the pitch (an input) times the row distance, one register each
//     (an LSC address must start a register), those of a group in one root variable (below); the
//     reads (`lsc_load.ugm (M1_NM, 1) R:d32x{8,16,32}t`; a lane read two SIMD8 A64 untyped reads of
//     4 dwords into its 8 registers, as the dg2 K-loop statements, and two lane reads whose rows lie 8
//     apart two NoMask SIMD16 ones, a pair, below), the nodes in IR order, each
//     computed in the register of the write that stores it when that is its only use (and, along
//     one operand, a node whose only use is such a node: bias + relu in place; the write's registers
//     those of the read its chains start from when nothing else reads them), else in a
//     temporary of its own (a variable each: the finalizer allocates them by liveness); two nodes of
//     one op whose operands and results are adjacent registers one SIMD16 instruction (a pair;
//     dg2-visa.sh `simd16`: one instruction on dg2 too); a row's in-lane reduction chain (8
//     registers into one, before a lane reduction) a tree of pairs, 4 instructions for 7 (below);
//     one mov per write register that holds a read's element (a write whose registers are
//     consecutive registers of one read stores from them; 2-register rows chained through a lane
//     read's registers take one, below); the writes
//     (`lsc_store.ugm (M1_NM, 1) flat[a]:a64 P:d32x{8,16,32}t`).
//  A statement that is exactly row softmax over 8 rows of 64 f32 is emitted another way, each row in
//  one lane (matchRowsPerLane, RowsPerLane below): SIMD16 untyped reads and writes of 4 dwords, every
//  reduction a tree over registers.
#include "backends/spirv/Dg2VisaBlock.h"

#include "backends/spirv/LoopCoords.h"
#include "backends/spirv/XeMath.h"
#include "ir/ops/XeOps.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

namespace xtc::backend {

namespace {

using ir::ElemKind;

constexpr int64_t kGrf = 32;  // bytes per register (dg2)
// How many earlier nodes a node looks back through for its pair's first node: a bound on the
// (quadratic) search. Pairs come from one IR op's nodes, which are consecutive.
constexpr size_t kPairWindow = 80;

// An element of a value in the region: one register (an f32 per lane).
struct El {
  enum Kind : uint8_t { Msg, Node, Const } kind = Const;
  int a = 0, b = 0;  // Msg: message, register; Node: node; Const: the f32 bits in a
};

// An f32 op on one register, and where it is computed: register `reg` of write `write`'s payload,
// or (write < 0) a temporary of its own (T<node>); a lane reduction's result is one scalar, lane
// `reg` % 8 of its bank register B<reg / 8> (the 8 row results of softmax in one register, so the
// division's divisor part is one SIMD8 sequence for all of them).
struct Node {
  enum Kind : uint8_t { Bin, Sub, Exp, Div, Reduce } kind = Bin;
  const char* opc;  // Bin: the vISA op; Reduce: the tree's op (add, max)
  El x, y;          // y unused for Exp and Reduce
  int uses = 0, write = -1, reg = -1;
};

// A block read or write of one row of `n` registers, or a lane read (8 dwords per lane, its own row).
struct Msg {
  const ir::Operation* op;
  bool write = false, lane = false;
  const ir::Value* mem = nullptr;
  Sym row, col;
  int n = 0;
  std::vector<El> data;  // a write's elements
};

bool f32Global(const ir::Value* mem) {
  const ir::Type& t = mem->type();
  return t.isMemRef() && t.memSpace() == ir::MemSpace::Global && t.rank() == 2 && t.strides().empty() && t.elem() == ElemKind::F32;
}

// An integer value as a sum of leaf values with coefficients plus a constant, through addi/subi
// and integer constants (depth-limited; a leaf is any other value): two lane reads' rows (or
// columns) whose leaves agree differ by a constant.
struct Lin {
  std::map<const ir::Value*, int64_t> terms;
  int64_t c = 0;
};
Lin linear(const ir::Value* v, int depth = 8) {
  if (std::optional<int64_t> k = constInt(v)) return {{}, *k};
  const ir::Operation* d = v->definingOp();
  if (d && depth > 0 && (d->is("arith.addi") || d->is("arith.subi"))) {
    Lin a = linear(d->operand(0), depth - 1), b = linear(d->operand(1), depth - 1);
    int64_t sign = d->is("arith.subi") ? -1 : 1;
    for (auto [x, n] : b.terms)
      if ((a.terms[x] += sign * n) == 0) a.terms.erase(x);
    a.c += sign * b.c;
    return a;
  }
  return {{{v, 1}}, 0};
}

class Matcher {
 public:
  explicit Matcher(const ir::Block& body) : body_(body) {}
  bool match();

  std::vector<const ir::Operation*> scalars_;
  std::vector<Msg> msgs_;
  std::vector<Node> nodes_;
  int reductions_ = 0;

 private:
  const std::vector<El>* elems(const ir::Value* v) const {
    auto it = elems_.find(v);
    return it == elems_.end() ? nullptr : &it->second;
  }
  bool message(const ir::Operation& op);

  const ir::Block& body_;
  std::map<const ir::Value*, std::vector<El>> elems_;
  bool wrote_ = false;
};

bool Matcher::message(const ir::Operation& op) {
  bool write = op.is("xe.block_write"), lane = op.is("xe.lane_read");
  unsigned first = write ? 2 : 1;
  const ir::Value* mem = op.operand(first - 1);
  const ir::Type& vt = write ? op.operand(0)->type() : op.result()->type();
  if (!f32Global(mem) || !vt.isVector() || vt.elem() != ElemKind::F32 || ir::blockUnit(op).value_or(1) != 1) return false;
  int n = static_cast<int>(vt.shape()[0]);
  if (lane ? n != 8 : n != 1 && n != 2 && n != 4 && n != 8) return false;
  if (write == false && wrote_) return false;  // the statement reads first
  Msg m{&op, write, lane, mem, outerSym(op.operand(first)), outerSym(op.operand(first + 1)), n, {}};
  int q = static_cast<int>(msgs_.size());
  if (write) {
    const std::vector<El>* d = elems(op.operand(0));
    if (!d || static_cast<int>(d->size()) != n) return false;
    m.data = *d;
    wrote_ = true;
  } else {
    std::vector<El> e;
    for (int i = 0; i < n; ++i) e.push_back({El::Msg, q, i});
    elems_[op.result()] = e;
  }
  msgs_.push_back(std::move(m));
  return true;
}

bool Matcher::match() {
  // The element-wise ops dg2-visa.sh `block` measured (max: `sel (ge)`); `softmax` measured the
  // rest: subf (an add of the negated operand), mulf, divf and exp written out as IGC's expansions
  // (XeMath.h), the add/max lane reductions as halving trees.
  static const std::map<std::string, std::pair<Node::Kind, const char*>> ops = {
      {"arith.addf", {Node::Bin, "add"}}, {"arith.maxf", {Node::Bin, "max"}}, {"arith.mulf", {Node::Bin, "mul"}},
      {"arith.subf", {Node::Sub, "add"}}, {"arith.divf", {Node::Div, "mul"}}, {"math.exp", {Node::Exp, "exp"}}};
  auto reg8 = [&](const El& e) {  // a value of 8 lanes in one register (not a scalar, not a constant)
    return e.kind == El::Msg || (e.kind == El::Node && nodes_[static_cast<size_t>(e.a)].kind != Node::Reduce);
  };
  for (const auto& up : body_.opList()) {
    const ir::Operation& op = *up;
    if (op.is("scf.yield")) {
      if (op.numOperands() != 0) return false;
      continue;
    }
    auto scalarInt = [](const ir::Value* v) { return v->type().isScalar() && ir::isIntElem(v->type().elem()); };
    if (op.numResults() == 1 && scalarInt(op.result()) && (pureIndexOp(op) || op.is("arith.constant"))) {
      for (const ir::Value* v : op.operands())
        if (!scalarInt(v)) return false;  // an index from a value of the statement
      scalars_.push_back(&op);
      continue;
    }
    if (op.is("xe.block_read") || op.is("xe.lane_read") || op.is("xe.block_write")) {
      if (!message(op)) return false;
      continue;
    }
    if (op.numResults() != 1 || op.result()->type().elem() != ElemKind::F32) return false;
    const ir::Value* r = op.result();
    if (op.is("arith.constant")) {
      const ir::Attribute* a = op.attr("value");
      if (!a || !a->isa(ir::AttrKind::Dense) || !a->isSplat() || !a->denseIsFloat()) return false;
      El c{El::Const, static_cast<int>(std::bit_cast<uint32_t>(static_cast<float>(a->denseFloats()[0]))), 0};
      elems_[r] = std::vector<El>(static_cast<size_t>(r->type().isVector() ? r->type().shape()[0] : 1), c);
    } else if (op.is("vector.extract")) {
      const std::vector<El>* s = elems(op.operand(0));
      const ir::Attribute* ix = op.attr("index");
      if (!s || !ix || ix->getInt() < 0 || static_cast<size_t>(ix->getInt()) >= s->size()) return false;
      elems_[r] = {(*s)[static_cast<size_t>(ix->getInt())]};
    } else if (op.is("vector.from_elements")) {
      std::vector<El> e;
      for (const ir::Value* v : op.operands()) {
        const std::vector<El>* s = elems(v);
        if (!s) return false;
        e.insert(e.end(), s->begin(), s->end());
      }
      elems_[r] = e;
    } else if (op.is("lane.reduce")) {
      const std::vector<El>* x = elems(op.operand(0));
      const std::string& k = op.attr("kind")->getString();
      if (!x || x->size() != 1 || !reg8((*x)[0]) || (k != "add" && k != "max")) return false;
      elems_[r] = {{El::Node, static_cast<int>(nodes_.size()), 0}};
      nodes_.push_back({Node::Reduce, k == "add" ? "add" : "max", (*x)[0], {}, 0, -1, reductions_++});
    } else if (auto it = ops.find(op.name()); it != ops.end()) {
      auto [kind, opc] = it->second;
      bool unary = kind == Node::Exp;
      const std::vector<El>*x = elems(op.operand(0)), *y = unary ? x : elems(op.operand(1));
      if (!x || !y || x->size() != y->size()) return false;
      std::vector<El> e;
      for (size_t i = 0; i < x->size(); ++i) {
        const El &a = (*x)[i], &c = (*y)[i];
        if (a.kind == El::Const && (unary || c.kind == El::Const)) return false;
        if (kind == Node::Div && c.kind == El::Const) return false;  // a constant divisor: not measured
        e.push_back({El::Node, static_cast<int>(nodes_.size()), 0});
        nodes_.push_back({kind, opc, a, unary ? El{} : c});
      }
      elems_[r] = e;
    } else {
      return false;
    }
  }
  if (msgs_.empty() || !wrote_) return false;
  // The statement is one OpAsmINTEL, whose string SPIR-V caps at 65535 words (262 140 bytes): a
  // 32x64 f32 division per subgroup wrote 287 KB and llvm-spirv refused the module without a source
  // location (kernel-sweep, #11). Its text is about 1100 bytes per register division (XeMath.h's
  // expansion), 500 per exp and 100 per other node or message register (measured on x / z, exp(x) + z
  // and x + z tiles); past 200 000 bytes the then-region is emitted op by op instead.
  size_t bytes = 0;
  for (const Node& n : nodes_) bytes += n.kind == Node::Div ? 1100 : n.kind == Node::Exp ? 500 : 100;
  for (const Msg& m : msgs_) bytes += 100 * m.data.size();
  return bytes <= 200000;
}

// Softmax's rows one per lane (issue 11, session 20). A statement that is exactly row softmax over 8
// rows of 64 f32 -- 8 block reads of 8 registers (rows R + 0..7 of one memref and column), per row a
// max chain over its 8 registers into a lane reduction, x - max, exp, an add chain over the 8 exps
// into a lane reduction, the division, 8 block writes of 8 registers (rows R' + 0..7, row j from row
// j's divisions) -- is emitted with each row in one lane (RowsPerLane in emitDg2VisaBlock): every
// reduction becomes a tree over registers, no cross-lane step. Found here, before anything is emitted;
// every node's operands are checked, and every node must have its role, so nothing else reads them.
struct RowsPerLane {
  std::array<int, 8> read{}, write{};  // row j -> its block read / write message
};

// The 8 leaves of a reduction's chain (c0 = x0 op x1, c_k = c_{k-1} op x_{k+1}: the IR's row
// reduction), or none; `inner` counts the chain's 7 nodes.
std::optional<std::vector<El>> chainLeaves(const std::vector<Node>& nodes, const Node& red, std::vector<int>& inner) {
  if (red.x.kind != El::Node) return std::nullopt;
  std::vector<El> leaves;
  size_t k = static_cast<size_t>(red.x.a);
  auto link = [&](const El& e) {
    if (e.kind != El::Node) return false;
    const Node& c = nodes[static_cast<size_t>(e.a)];
    return c.kind == Node::Bin && std::string_view(c.opc) == red.opc && c.uses == 1;
  };
  if (!link(red.x)) return std::nullopt;
  for (int steps = 0; steps < 7; ++steps) {
    const Node& c = nodes[k];
    ++inner[k];
    if (steps == 6) {
      leaves.push_back(c.y), leaves.push_back(c.x);
    } else if (link(c.x) && !link(c.y)) {
      leaves.push_back(c.y), k = static_cast<size_t>(c.x.a);
    } else if (link(c.y) && !link(c.x)) {
      leaves.push_back(c.x), k = static_cast<size_t>(c.y.a);
    } else {
      return std::nullopt;
    }
  }
  if (link(leaves[6]) || link(leaves[7])) return std::nullopt;
  return leaves;
}

std::optional<RowsPerLane> matchRowsPerLane(const std::vector<Msg>& msgs, const std::vector<Node>& nodes) {
  RowsPerLane r;
  r.read.fill(-1), r.write.fill(-1);
  // The messages: two groups of 8 rows of 8 registers, one memref, row base and column each.
  const Msg* first[2] = {nullptr, nullptr};
  if (msgs.size() != 16) return std::nullopt;
  for (size_t q = 0; q < msgs.size(); ++q) {
    const Msg& g = msgs[q];
    if (g.lane || g.n != 8 || g.row.div != 1 || g.row.post != 0 || g.col.div != 1 || g.col.post != 0) return std::nullopt;
    const Msg*& f = first[g.write];
    if (!f) f = &g;
    if (g.mem != f->mem || g.row.base != f->row.base || g.col.base != f->col.base || g.col.off != f->col.off) return std::nullopt;
  }
  for (size_t q = 0; q < msgs.size(); ++q) {
    const Msg& g = msgs[q];
    int64_t j = g.row.off - first[g.write]->row.off;
    int& slot = (g.write ? r.write : r.read)[static_cast<size_t>(std::clamp<int64_t>(j, 0, 7))];
    if (j < 0 || j > 7 || slot >= 0) return std::nullopt;  // rows R..R+7 from the group's first, each once
    slot = static_cast<int>(q);
  }
  // The nodes: each its role, found from the operands it must have.
  std::vector<int> role(nodes.size(), 0);
  std::map<std::pair<int, int>, int> sub, exp, div;  // (the message or node it reads, register) -> node
  std::array<int, 8> mx{}, sm{};
  mx.fill(-1), sm.fill(-1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& d = nodes[n];
    if (d.kind == Node::Sub && d.x.kind == El::Msg && d.y.kind == El::Node) sub[{d.x.a, d.x.b}] = static_cast<int>(n);
    if (d.kind == Node::Exp && d.x.kind == El::Node) exp[{d.x.a, 0}] = static_cast<int>(n);
    if (d.kind == Node::Div && d.x.kind == El::Node && d.y.kind == El::Node) div[{d.x.a, d.y.a}] = static_cast<int>(n);
  }
  auto is = [](const El& e, int node) { return e.kind == El::Node && e.a == node; };
  for (int j = 0; j < 8; ++j) {
    for (int w = 0; w < 8; ++w) {
      auto s = sub.find({r.read[static_cast<size_t>(j)], w});
      if (s == sub.end()) return std::nullopt;
      int red = nodes[static_cast<size_t>(s->second)].y.a;
      if (mx[static_cast<size_t>(j)] < 0) mx[static_cast<size_t>(j)] = red;
      if (red != mx[static_cast<size_t>(j)] || nodes[static_cast<size_t>(red)].kind != Node::Reduce) return std::nullopt;
    }
  }
  for (size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].kind == Node::Reduce && nodes[n].opc == std::string_view("add") && nodes[n].x.kind == El::Node) {
      // A sum's row: the row whose register 0's exp is among its chain's leaves (checked whole below).
      for (int j = 0; j < 8; ++j) {
        auto s = sub.find({r.read[static_cast<size_t>(j)], 0});
        auto e = exp.find({s->second, 0});
        std::vector<int> scratch(nodes.size(), 0);
        std::optional<std::vector<El>> l = chainLeaves(nodes, nodes[n], scratch);
        if (e != exp.end() && l && std::any_of(l->begin(), l->end(), [&](const El& x) { return is(x, e->second); })) sm[static_cast<size_t>(j)] = static_cast<int>(n);
      }
    }
  for (int j = 0; j < 8; ++j) {
    size_t js = static_cast<size_t>(j);
    if (mx[js] < 0 || sm[js] < 0) return std::nullopt;
    const Node &m = nodes[static_cast<size_t>(mx[js])], &s = nodes[static_cast<size_t>(sm[js])];
    if (m.opc != std::string_view("max") || role[static_cast<size_t>(mx[js])]++ || role[static_cast<size_t>(sm[js])]++) return std::nullopt;
    std::optional<std::vector<El>> ml = chainLeaves(nodes, m, role), sl = chainLeaves(nodes, s, role);
    if (!ml || !sl) return std::nullopt;
    // The leaves, in any order in the chain, must be the row's 8 registers (max) and their exps (add),
    // each once; the trees below combine them in register order.
    std::array<int, 8> seenM{}, seenS{};
    for (int w = 0; w < 8; ++w) {
      const El& a = (*ml)[static_cast<size_t>(w)];
      if (a.kind != El::Msg || a.a != r.read[js] || a.b < 0 || a.b > 7 || seenM[static_cast<size_t>(a.b)]++) return std::nullopt;
    }
    const Msg& out = msgs[static_cast<size_t>(r.write[js])];
    for (int w = 0; w < 8; ++w) {
      int sn = sub.at({r.read[js], w});
      auto e = exp.find({sn, 0});
      if (e == exp.end()) return std::nullopt;
      auto dv = div.find({e->second, sm[js]});
      if (dv == div.end() || !is(out.data[static_cast<size_t>(w)], dv->second)) return std::nullopt;
      bool leaf = false;
      for (int k = 0; k < 8; ++k)
        if (is((*sl)[static_cast<size_t>(k)], e->second)) leaf = !seenS[static_cast<size_t>(w)]++;
      if (!leaf || role[static_cast<size_t>(sn)]++ || role[static_cast<size_t>(e->second)]++ || role[static_cast<size_t>(dv->second)]++) return std::nullopt;
    }
  }
  // Every node has exactly one role: 16 reductions, their 112 chain nodes, 64 subtractions, exps, divisions.
  return std::all_of(role.begin(), role.end(), [](int k) { return k == 1; }) && nodes.size() == 320 ? std::optional(r) : std::nullopt;
}

// The division's divisor part (XeMath.h emitXeDivF32): the scale s, whose bits are 1.0 - e +
// clamp(e, 32 << 23, 129 << 23) for the divisor's exponent bits e, by integer max/min (no flag), and
// v = inv(y * s), into the variables {d}e, {d}g, {d}s (g's f32 view) and {d}v of `lanes` dwords. The
// divisor y is read as dwords through {d}u (declared `alias=<uAlias>`) and as f32 through `yRegion`.
// Signed dwords: e and the clamp are below 2^31, and 1.0 - e + g wraps as the unsigned sum.
void writeDivisorPart(std::ostream& decls, std::ostream& t, const std::string& d, const std::string& uAlias, const std::string& yRegion,
                      const char* exec, int lanes) {
  decls << fmt::format(".decl {0}u v_type=G type=d num_elts={1} align=GRF alias=<{2}>\n", d, lanes, uAlias);
  decls << fmt::format(".decl {0}e v_type=G type=d num_elts={1} align=GRF\n.decl {0}g v_type=G type=d num_elts={1} align=GRF\n"
                       ".decl {0}s v_type=G type=f num_elts={1} align=GRF alias=<{0}g,0>\n.decl {0}v v_type=G type=f num_elts={1} align=GRF\n",
                       d, lanes);
  t << fmt::format("and ({0}) {1}e(0,0)<1> {1}u(0,0)<1;1,0> {2:#x}:d\n", exec, d, xemath::kExpMask);
  t << fmt::format("max ({0}) {1}g(0,0)<1> {1}e(0,0)<1;1,0> {2:#x}:d\nmin ({0}) {1}g(0,0)<1> {1}g(0,0)<1;1,0> {3:#x}:d\n", exec, d,
                   xemath::kScaleLoExp, xemath::kScaleHiExp);
  t << fmt::format("add ({0}) {1}g(0,0)<1> {1}g(0,0)<1;1,0> (-){1}e(0,0)<1;1,0>\nadd ({0}) {1}g(0,0)<1> {1}g(0,0)<1;1,0> {2:#x}:d\n", exec, d,
                   xemath::kOneBits);
  t << fmt::format("mul ({0}) {1}v(0,0)<1> {2} {1}s(0,0)<1;1,0>\ninv ({0}) {1}v(0,0)<1> {1}v(0,0)<1;1,0>\n", exec, d, yRegion);
}

bool candidate(const ir::Operation& ifOp, const targets::Target& target) {
  return target.kind == targets::TargetKind::Dg2 && target.subgroupSize == 8 && ifOp.is("scf.if") && ifOp.numResults() == 0 &&
         !ifOp.region(0).empty();
}

}  // namespace

bool dg2VisaBlockMatches(const ir::Operation& ifOp, const targets::Target& target) {
  return candidate(ifOp, target) && Matcher(ifOp.region(0).block()).match();
}

bool onlyGuardsDg2VisaBlocks(const ir::Value* v, const targets::Target& target) {
  if (!v->hasUses()) return false;
  for (const ir::Use& u : v->uses()) {
    const ir::Operation& o = *u.user;
    if (o.is("scf.if") && u.index == 0) {
      if (!dg2VisaBlockMatches(o, target)) return false;
    } else if (o.dialect() != "arith" || o.numResults() != 1 || o.numRegions() != 0 || !o.result()->type().isScalar() ||
               !onlyGuardsDg2VisaBlocks(o.result(), target)) {
      return false;
    }
  }
  return true;
}

std::optional<std::string> emitDg2VisaBlock(const ir::Operation& ifOp, XeEmitContext& ctx, unsigned id,
                                            const std::function<void(const ir::Operation&)>& emitScalar) {
  if (!candidate(ifOp, ctx.target) || !ctx.memrefDim) return std::nullopt;
  Matcher m(ifOp.region(0).block());
  if (!m.match()) return std::nullopt;
  std::vector<Msg>& msgs = m.msgs_;
  std::vector<Node>& nodes = m.nodes_;
  // A node's uses; a node used once, by a write (or by such a node), is computed in that write's
  // register.
  auto use = [&](const El& e) {
    if (e.kind == El::Node) ++nodes[static_cast<size_t>(e.a)].uses;
  };
  for (const Node& n : nodes) use(n.x), use(n.y);
  for (const Msg& w : msgs)
    for (const El& e : w.data) use(e);
  // Along one operand only: two operands in one register would overwrite each other.
  std::function<bool(const El&, int, int)> place = [&](const El& e, int w, int reg) {
    if (e.kind != El::Node) return false;
    Node& n = nodes[static_cast<size_t>(e.a)];
    if (n.uses != 1 || n.write >= 0 || n.kind == Node::Reduce) return false;
    n.write = w, n.reg = reg;
    if (!place(n.x, w, reg)) place(n.y, w, reg);
    return true;
  };
  for (size_t w = 0; w < msgs.size(); ++w)
    for (size_t i = 0; i < msgs[w].data.size(); ++i) place(msgs[w].data[i], static_cast<int>(w), static_cast<int>(i));
  // A write whose registers are registers f .. f + n - 1 of one read stores from that read.
  std::vector<std::pair<int, int>> from(msgs.size(), {-1, 0});
  for (size_t w = 0; w < msgs.size(); ++w) {
    const std::vector<El>& d = msgs[w].data;
    if (!msgs[w].write || d[0].kind != El::Msg || msgs[static_cast<size_t>(d[0].a)].lane) continue;
    bool run = true;
    for (size_t i = 1; i < d.size(); ++i) run = run && d[i].kind == El::Msg && d[i].a == d[0].a && d[i].b == d[0].b + static_cast<int>(i);
    if (run) from[w] = {d[0].a, d[0].b};
  }
  // A write computed wholly in its own registers (each register i's chain of in-place nodes) whose
  // chains start, along one operand, at registers f .. f + n - 1 of one block read that nothing else
  // reads computes in that read's registers and stores from them: no register of its own, so IGC
  // cannot allocate the results into address registers whose sends have not read them yet (a
  // `sync.nop` on their `.src` token before each such add; measured: sg_bias_relu's block path
  // 114 -> 112, the bias adds in X's registers).
  std::map<std::pair<int, int>, int> readUses;  // (read, register) -> uses
  auto readUse = [&](const El& e) {
    if (e.kind == El::Msg) ++readUses[{e.a, e.b}];
  };
  for (const Node& n : nodes) readUse(n.x), readUse(n.y);
  for (const Msg& w : msgs)
    for (const El& e : w.data) readUse(e);
  for (size_t w = 0; w < msgs.size(); ++w) {
    const std::vector<El>& d = msgs[w].data;
    if (!msgs[w].write || from[w].first >= 0) continue;
    int q = -1, f = 0;
    bool ok = true;
    for (size_t i = 0; i < d.size() && ok; ++i) {
      auto here = [&](const El& e) {
        return e.kind == El::Node && nodes[static_cast<size_t>(e.a)].write == static_cast<int>(w) &&
               nodes[static_cast<size_t>(e.a)].reg == static_cast<int>(i);
      };
      ok = here(d[i]);
      if (!ok) break;
      const Node* n = &nodes[static_cast<size_t>(d[i].a)];
      while (here(n->x) || here(n->y)) n = &nodes[static_cast<size_t>((here(n->x) ? n->x : n->y).a)];
      const El& x = n->x.kind == El::Msg ? n->x : n->y;  // the operand it may take the place of
      ok = x.kind == El::Msg && !msgs[static_cast<size_t>(x.a)].write && !msgs[static_cast<size_t>(x.a)].lane && readUses[{x.a, x.b}] == 1 &&
           (i == 0 ? (q = x.a, f = x.b, true) : x.a == q && x.b == f + static_cast<int>(i));
    }
    if (ok) from[w] = {q, f};
  }
  // Lane-read pairs (issue 11, session 19): two lane reads of one memref and column whose rows lie 8
  // apart (transpose's X: lane l reads rows R + l and R + 8 + l) are read together, 4 dwords at a
  // time, by ONE NoMask SIMD16 A64 untyped read of 4 (the FMA statements' gather, Dg2VisaFmaLoop.cpp),
  // lanes 0-7 the first read's rows and lanes 8-15 the second's: 2 sends where the SIMD8 reads took 4.
  // The response is in SoA order (channel c of the 16 lanes in registers 2c, 2c + 1), so dword e of
  // both reads is in two adjacent registers of S<first>: the first read's at 8 (e / 4) + 2 (e % 4),
  // the second's the next one. A write of (first, e), (second, e) -- a transposed row -- stores from
  // them, no mov (transpose's block path 116 -> 92: 4 sends and the 16 chain movs gone).
  std::vector<int> pairHi(msgs.size(), -1), pairLo(msgs.size(), -1);  // first -> second, second -> first
  for (size_t q = 0; q < msgs.size(); ++q) {
    if (!msgs[q].lane || pairLo[q] >= 0) continue;
    Lin row = linear(msgs[q].op->operand(1)), col = linear(msgs[q].op->operand(2));
    for (size_t r = q + 1; r < msgs.size(); ++r) {
      if (!msgs[r].lane || msgs[r].mem != msgs[q].mem || pairLo[r] >= 0 || pairHi[r] >= 0) continue;
      Lin row2 = linear(msgs[r].op->operand(1)), col2 = linear(msgs[r].op->operand(2));
      if (row2.terms == row.terms && row2.c == row.c + 8 && col2.terms == col.terms && col2.c == col.c) {
        pairHi[q] = static_cast<int>(r), pairLo[r] = static_cast<int>(q);
        break;
      }
    }
  }
  // Where a lane read's dword e is: (variable, register).
  auto laneAt = [&](int q, int e) -> std::pair<std::string, int> {
    int lo = pairLo[static_cast<size_t>(q)];
    if (lo < 0 && pairHi[static_cast<size_t>(q)] < 0) return {fmt::format("R{}", q), e};
    return {fmt::format("S{}", lo < 0 ? q : lo), 8 * (e / 4) + 2 * (e % 4) + (lo >= 0)};
  };
  std::vector<std::pair<std::string, int>> laneFrom(msgs.size(), {"", 0});  // a write stored from a pair's registers
  for (size_t w = 0; w < msgs.size(); ++w) {
    const std::vector<El>& d = msgs[w].data;
    if (!msgs[w].write || from[w].first >= 0) continue;
    bool run = true;
    for (const El& e : d) run = run && e.kind == El::Msg && msgs[static_cast<size_t>(e.a)].lane;
    for (size_t i = 0; run && i < d.size(); ++i)
      run = laneAt(d[i].a, d[i].b) == std::pair(laneAt(d[0].a, d[0].b).first, laneAt(d[0].a, d[0].b).second + static_cast<int>(i));
    if (run && laneAt(d[0].a, d[0].b).first[0] == 'S') laneFrom[w] = laneAt(d[0].a, d[0].b);
  }
  // Rows chained through an unpaired lane read's registers (transpose's form until session 19: Y's
  // row r is register r of one lane read, then a register of another): when a lane read's registers
  // are used only as element 0 of such 2-register writes, each at its own register and row, the write of register r stores from
  // that read's registers r, r + 1 after one mov of its element 1 into r + 1; the writes go from the
  // highest r down (r + 1's own row is stored before its register is overwritten: a wait for that
  // store to read it, not for memory), the read one register longer for the highest. One mov per row
  // where a payload of its own takes two. Chains interleave (the highest r of each, then the next):
  // a store one instruction after its mov costs IGC a sync, two after measured 4 fewer (transpose).
  std::vector<int> chainOf(msgs.size(), -1);  // a chained write's lane read
  std::vector<bool> longRead(msgs.size(), false);
  for (size_t q = 0; q < msgs.size(); ++q) {
    if (!msgs[q].lane || pairHi[q] >= 0 || pairLo[q] >= 0) continue;
    std::vector<size_t> ws;
    std::set<int> regs;
    std::set<std::tuple<const ir::Value*, const ir::Value*, int64_t, const ir::Value*, int64_t>> rows;  // reordered: distinct rows
    bool ok = true;
    auto other = [&](const El& e) { ok = ok && !(e.kind == El::Msg && e.a == static_cast<int>(q)); };
    for (const Node& n : nodes) other(n.x), other(n.y);
    for (size_t w = 0; w < msgs.size(); ++w) {
      const std::vector<El>& d = msgs[w].data;
      if (!msgs[w].write) continue;
      if (d.size() == 2 && d[0].kind == El::Msg && d[0].a == static_cast<int>(q) && d[1].kind == El::Msg && d[1].a != static_cast<int>(q)) {
        ws.push_back(w);
        const Msg& g = msgs[w];
        ok = ok && regs.insert(d[0].b).second && rows.insert({g.mem, g.row.base, g.row.off, g.col.base, g.col.off}).second;
      } else {
        for (const El& e : d) other(e);
      }
    }
    if (!ok || ws.empty()) continue;
    for (size_t w : ws) chainOf[w] = static_cast<int>(q);
    longRead[q] = true;
  }
  std::optional<RowsPerLane> rows = matchRowsPerLane(msgs, nodes);
  // Past this point the statement is emitted.
  for (const ir::Operation* s : m.scalars_) emitScalar(*s);

  llvm::IRBuilder<>& b = *static_cast<llvm::IRBuilder<>*>(ctx.builder);
  std::vector<llvm::Value*> inputs;
  std::string constraints;
  auto input = [&](llvm::Value* v, const char* c) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] == v) return fmt::format("${}", i);
    inputs.push_back(v);
    constraints += fmt::format("{}{}", constraints.empty() ? "" : ",", c);
    return fmt::format("${}", inputs.size() - 1);
  };
  // Offsets in 32 bits (a memref lies in one allocation below 4 GiB, docs/abi.md, so a byte offset
  // from its base is below 2^32, as for the per-op block messages of a kernel without a loop:
  // XeBuiltins.cpp blockMessageAddress), added to the memref's 64-bit base in vISA (a qword add of a
  // dword source: native on dg2, dg2-visa.sh `block`), read unsigned (offsetInput below).
  llvm::Type* i32 = b.getInt32Ty();
  auto value32 = [&](const ir::Value* v) { return b.CreateSExtOrTrunc(ctx.get(const_cast<ir::Value*>(v)).at(0), i32); };
  std::map<const ir::Value*, llvm::Value*> pitches;
  auto pitch = [&](const ir::Value* mem) {
    llvm::Value*& p = pitches[mem];
    return p ? p : p = b.CreateMul(b.CreateSExtOrTrunc(ctx.memrefDim(const_cast<ir::Value*>(mem), 1), i32), b.getInt32(4));
  };
  // A memref's base is its pointer itself, read as a qword: through a `ptrtoint` to i64 IGC copied
  // each base's two dwords before the first address add (6 `mov`s in sg_bias_relu; measured: its
  // block path 125 -> 114).
  auto baseOf = [&](const ir::Value* mem) { return input(ctx.memrefPointer(const_cast<ir::Value*>(mem)), "rw.u"); };
  auto sym32 = [&](const Sym& s) {
    llvm::Value* c = b.getInt32(static_cast<uint32_t>(s.off));
    return s.base ? b.CreateAdd(value32(s.base), c) : c;
  };

  std::string p = fmt::format("xtc_b{}_", id);
  std::ostringstream decls, t;
  // A 32-bit byte offset or distance input added to a 64-bit address, read through an unsigned dword
  // alias (`n` elements): the input itself is a signed dword (`:d`), which the qword add sign-extends,
  // so an offset in [2^31, 2^32) (a buffer of 2 to 4 GiB, docs/abi.md) would address below the base.
  // The per-op messages zero-extend their 32-bit offsets the same way (XeBuiltins.cpp
  // blockMessageAddress). Measured: the same instructions, the source `:ud` (sg_bias_relu 111).
  std::set<std::string> offsetAliases;
  auto offsetInput = [&](llvm::Value* v, const char* c, int n) {
    std::string in = input(v, c), name = fmt::format("{}z{}", p, in.substr(1));
    if (offsetAliases.insert(name).second) decls << fmt::format(".decl {} v_type=G type=ud num_elts={} alias=<{},0>\n", name, n, in);
    return name;
  };
  // Softmax's rows one per lane (matchRowsPerLane above; benchmarks/xe-isa-notes.md, session 20).
  // X's 8 rows by 8 NoMask SIMD16 A64 untyped reads of 4 dwords (transpose's proven form, dg2-visa.sh
  // `scatter16`): read g, lanes 0-7 row l at column 8g, lanes 8-15 the same rows at 8g + 4, so in SoA
  // order its register 2k + h holds column 8g + k + 4h, lane l row l. Each reduction is then a tree over
  // registers in the general path's association, ((x0 op x2) op (x4 op x6)) op ((x1 op x3) op (x5 op
  // x7)) over a row's 8 registers (x_i its columns 8i..8i+7) and lanes j with j + 4, j with j + 2, 0
  // with 1 (docs/hardware.md "dg2: in-lane reductions as trees"): the same results bit for bit, 34
  // instructions where the rows' trees and the transposed lane tree took 53. x - max, the exp and the
  // division per register pair as the general path writes them, the row's max or sum the bank
  // register's lane l, kept in two registers (both the same) so a pair reads it as <1;1,0>. Y written
  // by 8 NoMask SIMD16 A64 untyped writes of 4 dwords (`svm_scatter4scaled`, dg2-visa.sh `scatter16`)
  // in the reads' layout. Measured (softmax's block path): 642 -> 634; which temporaries share
  // registers moved it by up to 20 (the finalizer then keeps one or two exp pairs in flight): the
  // subtraction in X's registers, the division in the exps', measured best.
  if (rows) {
    const Msg &x0 = msgs[static_cast<size_t>(rows->read[0])], &y0 = msgs[static_cast<size_t>(rows->write[0])];
    llvm::Value* lane = [&]() -> llvm::Value* {
      llvm::Function* f = llvm::cast<llvm::Function>(
          ctx.module.getOrInsertFunction("_Z22get_sub_group_local_idv", llvm::FunctionType::get(i32, false)).getCallee());
      f->setCallingConv(llvm::CallingConv::SPIR_FUNC);
      llvm::CallInst* c = b.CreateCall(f);
      c->setCallingConv(llvm::CallingConv::SPIR_FUNC);
      return c;
    }();
    // Lane l's byte offset of row R + l, column C: (R + l) * pitch + C * 4, in 32 bits read unsigned (as every offset here).
    auto laneOffset = [&](const Msg& g) {
      llvm::Value* row = b.CreateAdd(sym32(g.row), lane);
      return offsetInput(b.CreateAdd(b.CreateMul(row, pitch(g.mem)), b.CreateMul(sym32(g.col), b.getInt32(4))), "rw", 8);
    };
    std::string xb = baseOf(x0.mem), xo = laneOffset(x0), yb = baseOf(y0.mem), yo = laneOffset(y0);
    auto decl = [&](const std::string& n, const char* ty, int cnt, const std::string& alias = "") {
      decls << fmt::format(".decl {}{} v_type=G type={} num_elts={} align=GRF{}\n", p, n, ty, cnt, alias.empty() ? "" : " alias=<" + alias + ">");
    };
    decl("GA", "uq", 128), decl("YA", "uq", 128);
    for (int g = 0; g < 8; ++g) {
      decl(fmt::format("g{}", g), "uq", 16, fmt::format("{}GA,{}", p, 128 * g)), decl(fmt::format("y{}", g), "uq", 16, fmt::format("{}YA,{}", p, 128 * g));
      decl(fmt::format("S{}", g), "f", 64);
    }
    // The 16 addresses of read 0, lanes 8-15 16 bytes on, and read g's 32 g bytes on (IGC: two SIMD8 adds each).
    auto addresses = [&](char v, const std::string& base, const std::string& off) {
      t << fmt::format("add (M1, 8) {0}{1}0(0,0)<1> {2}(0,0)<0;1,0> {3}(0,0)<1;1,0>\n", p, v, base, off);
      t << fmt::format("add (M1_NM, 8) {0}{1}0(2,0)<1> {0}{1}0(0,0)<1;1,0> 0x10:uq\n", p, v);
      for (int g = 1; g < 8; ++g) t << fmt::format("add (M1_NM, 16) {0}{1}{2}(0,0)<1> {0}{1}0(0,0)<1;1,0> {3:#x}:uq\n", p, v, g, 32 * g);
    };
    addresses('g', xb, xo);
    for (int g = 0; g < 8; ++g) t << fmt::format("svm_gather4scaled.RGBA (M1_NM, 16) 0x0:uq {0}g{1}.0 {0}S{1}.0\n", p, g);
    decl("B02", "f", 16), decl("B12", "f", 16), decl("B0", "f", 8, p + "B02,0"), decl("B1", "f", 8, p + "B12,0");
    // One reduction over the 8 reads' registers src<g>, into the bank's two registers.
    auto tree = [&](const char* op, char name, const std::string& src, const std::string& bank) {
      for (auto [a, c] : {std::pair(0, 2), {4, 6}, {1, 3}, {5, 7}}) {  // x_a op x_c: the columns 8a.. with 8c..
        decl(fmt::format("{}A{}", name, a), "f", 64);
        for (int k = 0; k < 4; ++k)
          t << fmt::format("{0} (M1_NM, 16) {1}{2}A{3}({4},0)<1> {5}{3}({4},0)<1;1,0> {5}{6}({4},0)<1;1,0>\n", op, p, name, a, 2 * k, src, c);
      }
      for (auto [a, c] : {std::pair(0, 4), {1, 5}}) {
        decl(fmt::format("{}B{}", name, a), "f", 64);
        for (int k = 0; k < 4; ++k)
          t << fmt::format("{0} (M1_NM, 16) {1}{2}B{3}({4},0)<1> {1}{2}A{3}({4},0)<1;1,0> {1}{2}A{5}({4},0)<1;1,0>\n", op, p, name, a, 2 * k, c);
      }
      decl(fmt::format("{}L", name), "f", 64);  // register 2k + h: lane sums j = k + 4h
      for (int k = 0; k < 4; ++k)
        t << fmt::format("{0} (M1_NM, 16) {1}{2}L({3},0)<1> {1}{2}B0({3},0)<1;1,0> {1}{2}B1({3},0)<1;1,0>\n", op, p, name, 2 * k);
      decl(fmt::format("{}P", name), "f", 32);  // j with j + 4: a pair's own two registers, SIMD8
      for (int j = 0; j < 4; ++j)
        t << fmt::format("{0} (M1, 8) {1}{2}P({3},0)<1> {1}{2}L({4},0)<1;1,0> {1}{2}L({5},0)<1;1,0>\n", op, p, name, j, 2 * j, 2 * j + 1);
      decl(fmt::format("{}Q", name), "f", 16);  // j with j + 2
      t << fmt::format("{0} (M1_NM, 16) {1}{2}Q(0,0)<1> {1}{2}P(0,0)<1;1,0> {1}{2}P(2,0)<1;1,0>\n", op, p, name);
      // 0 with 1, into both bank registers (one NoMask SIMD16 over <0;8,1> sources).
      t << fmt::format("{0} (M1_NM, 16) {1}{3}(0,0)<1> {1}{2}Q(0,0)<0;8,1> {1}{2}Q(1,0)<0;8,1>\n", op, p, name, bank);
    };
    tree("max", 'm', p + "S", "B02");
    decl("L", "f", 2);
    t << fmt::format("mov (M1_NM, 1) {0}L(0,0)<1> {1:#x}:f\nmov (M1_NM, 1) {0}L(0,1)<1> {2:#x}:f\n", p, xemath::kMinusLn2Hi, xemath::kMinusLn2Lo);
    for (int g = 0; g < 8; ++g) decl(fmt::format("E{}", g), "f", 64), decl(fmt::format("P{}", g), "f", 64, fmt::format("{}E{},0", p, g));
    for (int g = 0; g < 8; ++g)
      for (int k = 0; k < 4; ++k) {
        // x - max in X's registers; XeMath.h emitXeExpF32 as the general path writes it for a pair.
        std::string n = fmt::format("{}_{}", g, k), v = fmt::format("{}V{}(0,0)", p, n), kk = fmt::format("{}K{}(0,0)", p, n),
                    q = fmt::format("{}Q{}(0,0)", p, n);
        decl("V" + n, "f", 16, fmt::format("{}S{},{}", p, g, 2 * k * kGrf)), decl("W" + n, "f", 32);
        decl("K" + n, "f", 16, fmt::format("{}W{},0", p, n)), decl("Q" + n, "f", 16, fmt::format("{}W{},{}", p, n, 2 * kGrf));
        const char* w = "M1_NM, 16";
        t << fmt::format("add ({0}) {1}<1> {2}S{3}({4},0)<1;1,0> (-){2}B02(0,0)<1;1,0>\n", w, v, p, g, 2 * k);
        t << fmt::format("mul ({0}) {1}<1> {2}<1;1,0> {3:#x}:f\nrndz ({0}) {4}<1> {1}<1;1,0>\n", w, q, v, xemath::kLog2E, kk);
        t << fmt::format("max ({0}) {1}<1> {1}<1;1,0> {2:#x}:f\nmin ({0}) {1}<1> {1}<1;1,0> {3:#x}:f\n", w, kk,
                         std::bit_cast<uint32_t>(-xemath::kMaxK), std::bit_cast<uint32_t>(xemath::kMaxK));
        t << fmt::format("mad ({0}) {1}<1> {2}<1;1,0> {3}L(0,0)<0;1,0> {4}<1;1,0>\nmad ({0}) {1}<1> {2}<1;1,0> {3}L(0,1)<0;1,0> {1}<1;1,0>\n", w, q,
                         kk, p, v);
        t << fmt::format("mul ({0}) {1}<1> {1}<1;1,0> {2:#x}:f\n", w, q, xemath::kLog2E);
        t << fmt::format("exp (M1_NM, 32) {0}W{1}(0,0)<1> {0}W{1}(0,0)<1;1,0>\n", p, n);
        t << fmt::format("mul ({0}) {1}E{2}({3},0)<1> {4}<1;1,0> {5}<1;1,0>\n", w, p, g, 2 * k, kk, q);
      }
    tree("add", 's', p + "E", "B12");
    // The division's divisor part (writeDivisorPart) on both bank registers, then (v x) s per pair in
    // the exps' registers.
    std::string d = p + "D0";
    writeDivisorPart(decls, t, d, p + "B12,0", p + "B12(0,0)<1;1,0>", "M1_NM, 16", 16);
    for (int g = 0; g < 8; ++g)
      for (int k = 0; k < 4; ++k) {
        t << fmt::format("mul (M1_NM, 16) {0}P{1}({2},0)<1> {0}D0v(0,0)<1;1,0> {0}E{1}({2},0)<1;1,0>\n", p, g, 2 * k);
        t << fmt::format("mul (M1_NM, 16) {0}P{1}({2},0)<1> {0}P{1}({2},0)<1;1,0> {0}D0s(0,0)<1;1,0>\n", p, g, 2 * k);
      }
    addresses('y', yb, yo);
    for (int g = 0; g < 8; ++g) t << fmt::format("svm_scatter4scaled.RGBA (M1_NM, 16) 0x0:uq {0}y{1}.0 {0}P{1}.0\n", p, g);
    std::string text = "{\n" + decls.str() + t.str() + "}\n";
    std::vector<llvm::Type*> types;
    for (llvm::Value* v : inputs) types.push_back(v->getType());
    b.CreateCall(llvm::InlineAsm::get(llvm::FunctionType::get(b.getVoidTy(), types, false), text, constraints, /*hasSideEffects=*/true), inputs);
    return std::string();
  }
  // Block messages: groups of (memref, row base, column) in the order of their first message (a map
  // of pointers would order them by address: not deterministic), rows in order; one address register each.
  using Key = std::tuple<const ir::Value*, const ir::Value*, const ir::Value*, int64_t>;
  std::map<Key, std::map<int64_t, int>> groups;  // -> row offset -> address register
  std::vector<Key> groupOrder;
  std::vector<int> addrOf(msgs.size(), -1);
  int nAddr = 0;
  // The address registers are one GRF each of one root variable: with a variable each, IGC gave a
  // write's address the register of a read's whose send had not yet taken it, and waited (a
  // `sync.nop` per reuse; measured: sg_bias_relu's block path 184 -> 178, bias_relu 205 -> 198,
  // transpose 153 -> 149). One root per group (memref, rows, column), not one for all: softmax's
  // block path 1182 -> 1175 (before its paired exp), sg_bias_relu 167 -> 164, bias_relu 188 -> 184,
  // transpose 138 either way.
  std::ostringstream addrDecls;
  for (size_t q = 0; q < msgs.size(); ++q) {
    const Msg& g = msgs[q];
    if (g.lane) continue;
    Key k{g.mem, g.row.base, g.col.base, g.col.off};
    if (!groups.count(k)) groupOrder.push_back(k);
    groups[k].emplace(g.row.off, -1);
  }
  for (const Key& key : groupOrder) {
    std::map<int64_t, int>& rows = groups[key];
    const auto& [mem, rowBase, colBase, colOff] = key;
    int64_t prev = 0;
    bool firstRow = true;
    int first = nAddr;
    addrDecls << fmt::format(".decl {}A{} v_type=G type=uq num_elts={} align=GRF\n", p, first, kGrf / 8 * rows.size());
    for (auto& [off, reg] : rows) {
      reg = nAddr++;
      addrDecls << fmt::format(".decl {0}a{1} v_type=G type=uq num_elts=1 align=GRF alias=<{0}A{2},{3}>\n", p, reg, first, kGrf * (reg - first));
      if (firstRow) {
        llvm::Value* o = b.CreateAdd(b.CreateMul(sym32({rowBase, off}), pitch(mem)), b.CreateMul(sym32({colBase, colOff}), b.getInt32(4)));
        t << fmt::format("add (M1_NM, 1) {}a{}(0,0)<1> {}(0,0)<0;1,0> {}(0,0)<0;1,0>\n", p, reg, baseOf(mem), offsetInput(o, "rw.u", 1));
      } else {
        llvm::Value* by = off - prev == 1 ? pitch(mem) : b.CreateMul(pitch(mem), b.getInt32(static_cast<uint32_t>(off - prev)));
        t << fmt::format("add (M1_NM, 1) {0}a{1}(0,0)<1> {0}a{2}(0,0)<0;1,0> {3}(0,0)<0;1,0>\n", p, reg, reg - 1, offsetInput(by, "rw.u", 1));
      }
      prev = off, firstRow = false;
    }
  }
  decls << addrDecls.str();
  for (size_t q = 0; q < msgs.size(); ++q)
    if (!msgs[q].lane) addrOf[q] = groups[{msgs[q].mem, msgs[q].row.base, msgs[q].col.base, msgs[q].col.off}].at(msgs[q].row.off);
  // Lane reads: each lane's own row address (row * pitch + column bytes in 32 bits, as the per-op
  // lane read of a kernel without a loop), dwords 0-3 from it and 4-7 from 16 bytes on.
  // A lane read whose row and column differ from an earlier one's (of the same memref) by
  // constants dr and dc is that read's address plus dr * pitch + dc * 4: one SIMD8 qword add of an
  // immediate (dr = 0) or of a scalar dword (xtc's per-lane offsets and IGC's mov spreading them,
  // once per group; measured: transpose's block path 126 -> 116). Only a read at or after the
  // earlier one (dr, dc >= 0): both offsets lie in [0, 2^32) (docs/abi.md), so such a distance does
  // too and is read unsigned, as the offsets; a read before it takes its own offset from the base.
  // A pair (above) has 16 lane addresses per send, g<first> (lanes 8-15: l<second>, its first's
  // plus 8 * pitch) and h<first> 16 bytes on (dwords 4-7), a pair whose rows are an earlier pair's
  // and whose column is dc further that pair's g plus 4 dc: one SIMD16 qword add each (IGC: two
  // SIMD8 halves; NoMask as every SIMD16 op here, hardware.md "SIMD16 in a SIMD8 kernel"). All pairs'
  // addresses are one root variable LA: with a variable each, IGC put the first response over the
  // later sends' addresses and waited for them to be read (a `sync.allrd`; measured 93 -> 92).
  std::vector<std::pair<size_t, std::pair<Lin, Lin>>> laneRoots;  // (read, its row and column)
  int nPairs = static_cast<int>(std::count_if(pairHi.begin(), pairHi.end(), [](int r) { return r >= 0; })), pairsDone = 0;
  if (nPairs > 0) decls << fmt::format(".decl {}LA v_type=G type=uq num_elts={} align=GRF\n", p, 32 * nPairs);
  for (size_t q = 0; q < msgs.size(); ++q) {
    const Msg& g = msgs[q];
    int hi = g.lane ? pairHi[q] : -1;
    if (g.lane && pairLo[q] >= 0) {
      continue;  // the second of a pair: read with its first
    } else if (g.lane) {
      if (hi < 0)
        decls << fmt::format(".decl {0}l{1} v_type=G type=uq num_elts=8 align=GRF\n.decl {0}m{1} v_type=G type=uq num_elts=8 align=GRF\n"
                             ".decl {0}R{1} v_type=G type=f num_elts={3} align=GRF\n.decl {0}H{1} v_type=G type=f num_elts=32 align=GRF alias=<{0}R{1},{2}>\n",
                             p, q, 4 * kGrf, longRead[q] ? 72 : 64);
      else
        decls << fmt::format(".decl {0}g{1} v_type=G type=uq num_elts=16 align=GRF alias=<{0}LA,{2}>\n"
                             ".decl {0}h{1} v_type=G type=uq num_elts=16 align=GRF alias=<{0}LA,{3}>\n"
                             ".decl {0}l{1} v_type=G type=uq num_elts=8 align=GRF alias=<{0}g{1},0>\n"
                             ".decl {0}l{4} v_type=G type=uq num_elts=8 align=GRF alias=<{0}g{1},{5}>\n"
                             ".decl {0}S{1} v_type=G type=f num_elts=128 align=GRF\n.decl {0}F{1} v_type=G type=f num_elts=64 align=GRF alias=<{0}S{1},{6}>\n",
                             p, q, 8 * kGrf * pairsDone, 8 * kGrf * pairsDone + 4 * kGrf, hi, 2 * kGrf, 8 * kGrf);
      pairsDone += hi >= 0;
      Lin row = linear(g.op->operand(1)), col = linear(g.op->operand(2));
      auto root = std::find_if(laneRoots.begin(), laneRoots.end(), [&](const auto& r) {
        return msgs[r.first].mem == g.mem && r.second.first.terms == row.terms && r.second.second.terms == col.terms &&
               row.c >= r.second.first.c && col.c >= r.second.second.c;
      });
      int64_t dr = root == laneRoots.end() ? 0 : row.c - root->second.first.c, dc = root == laneRoots.end() ? 0 : col.c - root->second.second.c;
      if (hi >= 0 && root != laneRoots.end() && pairHi[root->first] >= 0 && dr == 0 && dc > 0) {
        t << fmt::format("add (M1_NM, 16) {0}g{1}(0,0)<1> {0}g{2}(0,0)<1;1,0> {3:#x}:uq\n", p, q, root->first, 4 * dc);
      } else {
        if (root == laneRoots.end()) {
          llvm::Value* off = b.CreateAdd(b.CreateMul(value32(g.op->operand(1)), pitch(g.mem)), b.CreateMul(value32(g.op->operand(2)), b.getInt32(4)));
          std::string base = baseOf(g.mem), a = offsetInput(off, "rw", 8);
          t << fmt::format("add (M1, 8) {0}l{1}(0,0)<1> {2}(0,0)<0;1,0> {3}(0,0)<1;1,0>\n", p, q, base, a);
        } else {
          std::string by;
          if (dr == 0 && dc > 0) {
            by = fmt::format("{:#x}:uq", 4 * dc);
          } else {
            llvm::Value* d = b.CreateAdd(b.CreateMul(b.getInt32(static_cast<uint32_t>(dr)), pitch(g.mem)), b.getInt32(static_cast<uint32_t>(4 * dc)));
            by = offsetInput(d, "rw.u", 1) + "(0,0)<0;1,0>";
          }
          t << fmt::format("add (M1, 8) {0}l{1}(0,0)<1> {0}l{2}(0,0)<1;1,0> {3}\n", p, q, root->first, by);
        }
        if (hi >= 0)  // the second read's rows: 8 rows further
          t << fmt::format("add (M1, 8) {0}l{1}(0,0)<1> {0}l{2}(0,0)<1;1,0> {3}(0,0)<0;1,0>\n", p, hi, q,
                           offsetInput(b.CreateMul(b.getInt32(8), pitch(g.mem)), "rw.u", 1));
      }
      if (root == laneRoots.end()) laneRoots.push_back({q, {row, col}});
      if (hi >= 0)
        t << fmt::format("add (M1_NM, 16) {0}h{1}(0,0)<1> {0}g{1}(0,0)<1;1,0> 0x10:uq\n", p, q);
      else
        t << fmt::format("add (M1, 8) {0}m{1}(0,0)<1> {0}l{1}(0,0)<1;1,0> 0x10:uq\n", p, q);
    } else if (!g.write) {
      decls << fmt::format(".decl {}R{} v_type=G type=f num_elts={} align=GRF\n", p, q, 8 * g.n);
    } else if (chainOf[q] >= 0) {
      decls << fmt::format(".decl {0}P{1} v_type=G type=f num_elts=16 align=GRF alias=<{0}R{2},{3}>\n", p, q, chainOf[q], kGrf * g.data[0].b);
    } else if (!laneFrom[q].first.empty()) {
      decls << fmt::format(".decl {0}P{1} v_type=G type=f num_elts={2} align=GRF alias=<{0}{3},{4}>\n", p, q, 8 * g.n, laneFrom[q].first,
                           kGrf * laneFrom[q].second);
    } else if (from[q].first < 0) {
      decls << fmt::format(".decl {}P{} v_type=G type=f num_elts={} align=GRF\n", p, q, 8 * g.n);
    } else {
      decls << fmt::format(".decl {0}P{1} v_type=G type=f num_elts={2} align=GRF alias=<{0}R{3},{4}>\n", p, q, 8 * g.n, from[q].first,
                           kGrf * from[q].second);
    }
  }
  auto scalar = [&](const El& e) { return e.kind == El::Node && nodes[static_cast<size_t>(e.a)].kind == Node::Reduce; };
  // Pairs (dg2-visa.sh `simd16`: an f32 op over two registers is ONE SIMD16 instruction on dg2): a
  // node m and an earlier node n of the same op whose operands are, each, the register after n's in
  // the same variable (or the same scalar or constant; a division's divisor one scalar), computed into
  // the register after n's (a write's next register, or the second register of a two-register
  // temporary V<n>), with no node between them reading n: one SIMD16 instruction at m.
  std::vector<int> pairOf(nodes.size(), -1);  // m -> n
  std::vector<bool> lead(nodes.size(), false);
  auto placeOf = [&](const El& e) -> std::pair<std::string, int> {  // (variable, register); -1: a value
    if (e.kind == El::Msg) return msgs[static_cast<size_t>(e.a)].lane ? laneAt(e.a, e.b) : std::pair(fmt::format("R{}", e.a), e.b);
    if (e.kind == El::Const) return {fmt::format("c{}", e.a), -1};
    const Node& n = nodes[static_cast<size_t>(e.a)];
    if (n.kind == Node::Reduce) return {fmt::format("s{}", e.a), -1};
    if (n.write >= 0) return {fmt::format("P{}", n.write), n.reg};
    if (lead[static_cast<size_t>(e.a)]) return {fmt::format("V{}", e.a), 0};
    if (pairOf[static_cast<size_t>(e.a)] >= 0) return {fmt::format("V{}", pairOf[static_cast<size_t>(e.a)]), 1};
    return {fmt::format("T{}", e.a), -2};  // a register of its own: next to nothing
  };
  auto after = [&](const El& a, const El& b) {  // b is a's next register, or the same value
    auto [va, ra] = placeOf(a);
    auto [vb, rb] = placeOf(b);
    return va == vb && (ra == -1 ? rb == -1 : ra >= 0 && rb == ra + 1);
  };
  for (size_t m = 0; m < nodes.size(); ++m) {
    const Node& b = nodes[m];
    if (b.kind == Node::Reduce) continue;
    for (size_t n = m; n-- > 0 && n + kPairWindow > m;) {
      const Node& a = nodes[n];
      if (a.kind != b.kind || a.opc != b.opc || lead[n] || pairOf[n] >= 0) continue;
      bool unary = a.kind == Node::Exp;
      if (!after(a.x, b.x) || (!unary && !after(a.y, b.y))) continue;
      if (a.kind == Node::Div && !scalar(a.y)) continue;
      if (!(a.write < 0 && b.write < 0) && !(a.write >= 0 && b.write == a.write && b.reg == a.reg + 1)) continue;
      bool read = false;
      for (size_t k = n + 1; k < m; ++k) {
        const El &x = nodes[k].x, &y = nodes[k].y;
        read = read || (x.kind == El::Node && x.a == static_cast<int>(n)) || (y.kind == El::Node && y.a == static_cast<int>(n));
      }
      if (read) continue;
      pairOf[m] = static_cast<int>(n), lead[n] = true;
      break;
    }
  }
  // In-lane reductions as trees of pairs (issue 11). The IR reduces a row's 8 registers by a chain
  // (c0 = x0 op x1, c_k = c_{k-1} op x_{k+1}), one register per instruction: 7 SIMD8 ops. When the
  // chain's only user is a lane reduction of the same op, its interior nodes have no other use, and
  // its 8 leaves, ordered by place, are 4 pairs of adjacent registers w0..w3 (a row's 8 registers of
  // one read, or softmax's exps in their pair variables), it is emitted as a tree into Y<end>
  // (4 registers): Y(0,1) = w0 op w1 and Y(2,3) = w2 op w3 (SIMD16), Y(0,1) = Y(0,1) op Y(2,3)
  // (SIMD16), T<end> = Y(0) op Y(1) (SIMD8): 4 instructions where the chain took 7. Register j of the
  // result is ((x0 op x2) op (x4 op x6)) op ((x1 op x3) op (x5 op x7)) for the leaves in place order:
  // the same value for max (exact in any order), another rounding for add: the tile language leaves
  // a reduction's order open (docs/hardware.md "dg2: in-lane reductions as trees"); with the 8 lanes'
  // halving tree that follows, a row of 64 is summed by a balanced tree of depth 6 (the chain's
  // depth was 10). The last step stays SIMD8: a pair op keeps each of its two registers in one row
  // (both sources' register k and the result's register k belong to the same row), so two rows'
  // last steps could only pair if each row's two halves sat next to the other row's, which the two
  // registers one pair op writes never do (the floor's 28 per reduction counts them paired).
  std::vector<bool> absorbed(nodes.size(), false);       // a chain's interior node: not emitted
  std::map<size_t, std::array<El, 8>> trees;             // a chain's last node -> its leaves in place order
  for (size_t r = 0; r < nodes.size(); ++r) {
    const Node& red = nodes[r];
    if (red.kind != Node::Reduce || red.x.kind != El::Node) continue;
    size_t end = static_cast<size_t>(red.x.a);
    std::vector<size_t> chain;
    std::vector<El> leaves;
    auto inChain = [&](size_t k) {
      const Node& c = nodes[k];
      return c.kind == Node::Bin && std::string_view(c.opc) == red.opc && c.write < 0 && !lead[k] && pairOf[k] < 0;
    };
    size_t k = end;
    bool ok = inChain(end);
    while (ok) {
      chain.push_back(k);
      const Node& c = nodes[k];
      auto inner = [&](const El& e) { return e.kind == El::Node && inChain(static_cast<size_t>(e.a)) && nodes[static_cast<size_t>(e.a)].uses == 1; };
      if (inner(c.x) && !inner(c.y)) {
        leaves.push_back(c.y), k = static_cast<size_t>(c.x.a);
      } else if (inner(c.y) && !inner(c.x)) {
        leaves.push_back(c.x), k = static_cast<size_t>(c.y.a);
      } else {
        leaves.push_back(c.x), leaves.push_back(c.y);
        break;
      }
      ok = chain.size() < 7;
    }
    if (!ok || chain.size() != 7 || leaves.size() != 8 || nodes[end].uses != 1) continue;
    bool regs = true;
    for (const El& e : leaves) regs = regs && !scalar(e) && e.kind != El::Const && placeOf(e).second >= 0;
    if (!regs) continue;
    std::stable_sort(leaves.begin(), leaves.end(), [&](const El& a, const El& c) { return placeOf(a) < placeOf(c); });
    bool pairs = true;
    for (size_t w = 0; w < 8; w += 2) pairs = pairs && after(leaves[w], leaves[w + 1]);
    if (!pairs) continue;
    for (size_t c : chain)
      if (c != end) absorbed[c] = true;
    std::array<El, 8> l;
    std::copy(leaves.begin(), leaves.end(), l.begin());
    trees[end] = l;
  }
  // A bank's 8 lane reductions at once (issue 11): when its 8 reductions are consecutive nodes of
  // one op, each of a tree's result used by it alone, the trees' results are the 8 registers of one
  // variable G<bank> (row r = lane r of the bank: register r) and the 8 halving trees are one
  // transposed tree: H(k) = G(2k)<8;4,1> op G(2k,4)<8;4,1> (lanes 0-3 row 2k's halves combined,
  // 4-7 row 2k+1's), J(k) = H(2k)<4;2,1> op H(2k,2)<4;2,1> (two lanes per row), B = J<2;1,0> op
  // J(0,1)<2;1,0> (lane r row r). Each row's values combine in the same order as its own tree's
  // (lane j with j + 4, then with j + 2, then 0 with 1): the same results bit for bit. The finalizer
  // moves both regioned sources into place (2 movs per op, dg2 keeps a float operand at its
  // destination's offsets): 7 ops, 21 instructions for 8 rows where the rows' trees took 5 each (40).
  // Measured on softmax's block path: 671 -> 651 with both banks (IGC waits on 16 more SBID tokens:
  // every row's max is ready only at the end, so the exps' schedule changes), 669 with the maxes'
  // alone, 657 with the sums' alone.
  std::map<int, size_t> bankStart;  // bank -> its first reduction node, for the banks taken so
  for (size_t r = 0; r + 8 <= nodes.size(); ++r) {
    const Node& first = nodes[r];
    if (first.kind != Node::Reduce || first.reg % 8 != 0) continue;
    bool ok = true;
    for (size_t j = 0; j < 8; ++j) {
      const Node& red = nodes[r + j];
      ok = ok && red.kind == Node::Reduce && red.reg == first.reg + static_cast<int>(j) && red.opc == first.opc && red.x.kind == El::Node &&
           trees.count(static_cast<size_t>(red.x.a)) && nodes[static_cast<size_t>(red.x.a)].uses == 1;
    }
    if (ok) bankStart[first.reg / 8] = r;
  }
  std::map<size_t, std::pair<int, int>> inBank;  // a taken bank's tree result -> (bank, register)
  for (auto [bank, r] : bankStart) {
    decls << fmt::format(".decl {0}G{1} v_type=G type=f num_elts=64 align=GRF\n.decl {0}H{1} v_type=G type=f num_elts=32 align=GRF\n"
                         ".decl {0}J{1} v_type=G type=f num_elts=16 align=GRF\n",
                         p, bank);
    for (size_t j = 0; j < 8; ++j) inBank[static_cast<size_t>(nodes[r + j].x.a)] = {bank, static_cast<int>(j)};
  }
  // Each temporary its own variable: the finalizer allocates them by liveness (softmax has 240).
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& d = nodes[n];
    if (absorbed[n]) continue;
    if (trees.count(n)) decls << fmt::format(".decl {}Y{} v_type=G type=f num_elts=32 align=GRF\n", p, n);
    if (pairOf[n] >= 0) continue;  // in its lead's variables
    if (d.kind == Node::Reduce) {
      if (!bankStart.count(d.reg / 8)) decls << fmt::format(".decl {}U{} v_type=G type=f num_elts=8 align=GRF\n", p, n);
      if (d.reg % 8 == 0) decls << fmt::format(".decl {}B{} v_type=G type=f num_elts=8 align=GRF\n", p, d.reg / 8);
      continue;
    }
    if (auto it = inBank.find(n); it != inBank.end()) {
      decls << fmt::format(".decl {0}T{1} v_type=G type=f num_elts=8 align=GRF alias=<{0}G{2},{3}>\n", p, n, it->second.first,
                           kGrf * it->second.second);
      continue;
    }
    if (d.write < 0) decls << fmt::format(".decl {}{}{} v_type=G type=f num_elts={} align=GRF\n", p, lead[n] ? "V" : "T", n, lead[n] ? 16 : 8);
    if (d.kind == Node::Exp && lead[n]) {  // a pair's 2^k and 2^r: two registers each, in one variable W
      decls << fmt::format(".decl {0}W{1} v_type=G type=f num_elts=32 align=GRF\n.decl {0}K{1} v_type=G type=f num_elts=16 align=GRF alias=<{0}W{1},0>\n"
                           ".decl {0}Q{1} v_type=G type=f num_elts=16 align=GRF alias=<{0}W{1},{2}>\n",
                           p, n, 2 * kGrf);
      continue;
    }
    // An exp's 2^k and 2^r: the two registers of one variable, one SIMD16 `exp` (dg2-visa.sh
    // `softmax_pair`: one `math.exp (16|M0)`, and the mul of the two waits for one token, not two).
    if (d.kind == Node::Exp)
      decls << fmt::format(".decl {0}E{1} v_type=G type=f num_elts=16 align=GRF\n.decl {0}K{1} v_type=G type=f num_elts=8 align=GRF alias=<{0}E{1},0>\n"
                           ".decl {0}Q{1} v_type=G type=f num_elts=8 align=GRF alias=<{0}E{1},{2}>\n",
                           p, n, kGrf);
  }
  const char* msgName[] = {"", "d32x8t", "d32x16t", "", "d32x32t", "", "", "", "d32x64t"};
  // A block read of a row that the other rows' ops all read (a broadcast, as the bias: one of
  // its registers read more than once, while the other reads' registers are read once) goes first:
  // after the rows IGC still issued it first and waited before the next read for it to have read
  // its address (a `sync.nop` on its `.src` token; measured: sg_bias_relu's block path 112 -> 111,
  // bias_relu 132 either way). Reads read only memory the statement does not write, so their
  // order does not change what they read.
  std::vector<bool> shared(msgs.size(), false);
  bool someOnce = false;
  for (size_t q = 0; q < msgs.size(); ++q) {
    if (msgs[q].write || msgs[q].lane) continue;
    for (int i = 0; i < msgs[q].n; ++i) shared[q] = shared[q] || readUses[{static_cast<int>(q), i}] > 1;
    someOnce = someOnce || !shared[q];
  }
  for (int pass = 0; pass < 2; ++pass)
    for (size_t q = 0; q < msgs.size(); ++q) {
      const Msg& g = msgs[q];
      if (g.write || (someOnce && shared[q]) != (pass == 0)) continue;
      if (g.lane && pairHi[q] >= 0)
        t << fmt::format("svm_gather4scaled.RGBA (M1_NM, 16) 0x0:uq {0}g{1}.0 {0}S{1}.0\nsvm_gather4scaled.RGBA (M1_NM, 16) 0x0:uq {0}h{1}.0 {0}F{1}.0\n", p, q);
      else if (g.lane && pairLo[q] < 0)
        t << fmt::format("svm_gather4scaled.RGBA (M1, 8) 0x0:uq {0}l{1}.0 {0}R{1}.0\nsvm_gather4scaled.RGBA (M1, 8) 0x0:uq {0}m{1}.0 {0}H{1}.0\n", p, q);
      else if (!g.lane)
        t << fmt::format("lsc_load.ugm (M1_NM, 1) {0}R{1}:{2} flat[{0}a{3}]:a64\n", p, q, msgName[g.n], addrOf[q]);
    }
  // Where an element is: "var(row,col" (the region added by the caller); a reduction's a scalar,
  // its lane of its bank register.
  auto at = [&](const El& e, int col = 0) {
    if (scalar(e)) {
      const Node& n = nodes[static_cast<size_t>(e.a)];
      return fmt::format("{}B{}(0,{}", p, n.reg / 8, n.reg % 8);
    }
    auto [var, row] = placeOf(e);
    return fmt::format("{}{}({},{}", p, var, std::max(row, 0), col);
  };
  auto reg = [&](const El& e) {
    if (e.kind == El::Const) return fmt::format("{:#x}:f", static_cast<uint32_t>(e.a));
    return at(e) + (scalar(e) ? ")<0;1,0>" : ")<1;1,0>");
  };
  auto neg = [&](const El& e) { return e.kind == El::Const ? reg({El::Const, static_cast<int>(static_cast<uint32_t>(e.a) ^ 0x80000000u), 0}) : "(-)" + reg(e); };
  // The division's divisor part (writeDivisorPart), once per divisor register: a reduction's bank
  // (all 8 rows at once), else the divisor's own register.
  std::map<std::string, std::string> divisors;  // the divisor's register -> the name of its part
  auto divisorPart = [&](const El& y) {
    std::string key = scalar(y) ? fmt::format("{}B{}(0,0", p, nodes[static_cast<size_t>(y.a)].reg / 8) : at(y);
    auto [it, added] = divisors.try_emplace(key, fmt::format("{}D{}", p, divisors.size()));
    const std::string& d = it->second;
    if (added) {
      std::string row = key.substr(key.find('(') + 1);
      row = row.substr(0, row.find(','));
      writeDivisorPart(decls, t, d, fmt::format("{},{}", key.substr(0, key.find('(')), kGrf * std::stoi(row)), key + ")<1;1,0>", "M1, 8", 8);
    }
    return d;
  };
  bool lnConsts = false;
  std::set<size_t> treesDone;
  for (size_t m = 0; m < nodes.size(); ++m) {
    if (lead[m] || absorbed[m] || treesDone.count(m)) continue;  // a lead: emitted with its pair's second node
    if (trees.count(m)) {
      // The trees whose last nodes follow m (one IR op's rows) level by level: each level's
      // instructions independent of each other.
      std::vector<size_t> run;
      for (size_t k = m; k < nodes.size() && trees.count(k); ++k) run.push_back(k);
      for (int level = 0; level < 3; ++level)
        for (size_t k : run) {
          const std::array<El, 8>& l = trees.at(k);
          const char* op = nodes[k].opc;
          std::string y = fmt::format("{}Y{}", p, k);
          if (level == 0)
            t << fmt::format("{0} (M1_NM, 16) {1}(0,0)<1> {2} {3}\n{0} (M1_NM, 16) {1}(2,0)<1> {4} {5}\n", op, y, reg(l[0]), reg(l[2]), reg(l[4]), reg(l[6]));
          else if (level == 1)
            t << fmt::format("{0} (M1_NM, 16) {1}(0,0)<1> {1}(0,0)<1;1,0> {1}(2,0)<1;1,0>\n", op, y);
          else
            t << fmt::format("{0} (M1, 8) {1})<1> {2}(0,0)<1;1,0> {2}(1,0)<1;1,0>\n", op, at({El::Node, static_cast<int>(k), 0}), y);
        }
      treesDone.insert(run.begin(), run.end());
      continue;
    }
    size_t i = pairOf[m] >= 0 ? static_cast<size_t>(pairOf[m]) : m;  // the (lead) node emitted
    // A pair is NoMask: a SIMD8 dispatch enables channels 0-7 only, so a masked SIMD16 op would not
    // write its second register (channels 8-15); the statement runs with every lane on (a guard's
    // block arm), and NoMask ALU ops only write registers.
    const char* w = pairOf[m] >= 0 ? "M1_NM, 16" : "M1, 8";
    const Node& n = nodes[i];
    std::string dst = at({El::Node, static_cast<int>(i), 0}) + ")<1>";
    if (n.kind == Node::Bin || n.kind == Node::Sub) {
      bool swap = n.x.kind == El::Const;  // the immediate second
      const El &a = swap ? n.y : n.x, &c = swap ? n.x : n.y;
      bool sub = n.kind == Node::Sub;  // x - y as x + (-y)
      t << fmt::format("{} ({}) {} {} {}\n", n.opc, w, dst, sub && swap ? neg(a) : reg(a), sub && !swap ? neg(c) : reg(c));
    } else if (n.kind == Node::Exp) {
      // XeMath.h emitXeExpF32: k = clamp(rndz(x log2 e), -152, 152), r = (x - k ln2 hi - k ln2 lo) log2 e,
      // exp(x) = 2^k 2^r (vISA `exp` is 2^x, `math.exp`).
      std::string x = reg(n.x), k = fmt::format("{}K{}(0,0)", p, i), q = fmt::format("{}Q{}(0,0)", p, i);
      t << fmt::format("mul ({4}) {1}<1> {2} {3:#x}:f\nrndz ({4}) {0}<1> {1}<1;1,0>\n", k, q, x, xemath::kLog2E, w);
      t << fmt::format("max ({3}) {0}<1> {0}<1;1,0> {1:#x}:f\nmin ({3}) {0}<1> {0}<1;1,0> {2:#x}:f\n", k,
                       std::bit_cast<uint32_t>(-xemath::kMaxK), std::bit_cast<uint32_t>(xemath::kMaxK), w);
      if (!lnConsts) {  // the mads' ln 2 parts set once (as immediates IGC put them in registers 8 times)
        lnConsts = true;
        decls << fmt::format(".decl {}L v_type=G type=f num_elts=2 align=GRF\n", p);
        t << fmt::format("mov (M1_NM, 1) {0}L(0,0)<1> {1:#x}:f\nmov (M1_NM, 1) {0}L(0,1)<1> {2:#x}:f\n", p, xemath::kMinusLn2Hi,
                         xemath::kMinusLn2Lo);
      }
      t << fmt::format("mad ({4}) {1}<1> {0}<1;1,0> {3}L(0,0)<0;1,0> {2}\nmad ({4}) {1}<1> {0}<1;1,0> {3}L(0,1)<0;1,0> {1}<1;1,0>\n", k, q, x, p, w);
      t << fmt::format("mul ({3}) {1}<1> {1}<1;1,0> {2:#x}:f\n", k, q, xemath::kLog2E, w);
      // A pair's K and Q (two registers each) are the four registers of W: ONE `exp (M1_NM, 32)`, which
      // the finalizer splits into two NoMask `math.exp (16|M0)`, the second waiting by a distance
      // that an SBID instruction can carry; two `exp (M1, 16)` (one each) waited on the float pipe
      // before 7 of the 64 exps by a `sync.nop` (dg2-visa.sh `exp32`; softmax 642 -> 638). NoMask:
      // a SIMD32 op's upper half is channels 16-31, none of which a SIMD8 dispatch enables; W holds
      // temporaries only, so computing every channel is harmless.
      if (pairOf[m] >= 0)
        t << fmt::format("exp (M1_NM, 32) {0}W{1}(0,0)<1> {0}W{1}(0,0)<1;1,0>\n", p, i);
      else
        t << fmt::format("exp (M1_NM, 16) {0}E{1}(0,0)<1> {0}E{1}(0,0)<1;1,0>\n", p, i);
      t << fmt::format("mul ({}) {} {}<1;1,0> {}<1;1,0>\n", w, dst, k, q);
    } else if (n.kind == Node::Div) {
      // (v x) s, v and s the divisor's (in its lane of the bank for a reduction's).
      std::string d = divisorPart(n.y), l = scalar(n.y) ? fmt::format("(0,{})<0;1,0>", nodes[static_cast<size_t>(n.y.a)].reg % 8) : "(0,0)<1;1,0>";
      t << fmt::format("mul ({5}) {0} {1}v{2} {3}\nmul ({5}) {0} {4})<1;1,0> {1}s{2}\n", dst, d, l, reg(n.x), dst.substr(0, dst.size() - 4), w);
    } else if (auto b = bankStart.find(n.reg / 8); b != bankStart.end()) {
      if (b->second != i) continue;  // the bank's first reduction emits all 8
      std::string g = fmt::format("{}G{}", p, b->first), h = fmt::format("{}H{}", p, b->first), j = fmt::format("{}J{}", p, b->first);
      for (int k = 0; k < 4; ++k)
        t << fmt::format("{0} (M1, 8) {1}({2},0)<1> {3}({4},0)<8;4,1> {3}({4},4)<8;4,1>\n", n.opc, h, k, g, 2 * k);
      for (int k = 0; k < 2; ++k)
        t << fmt::format("{0} (M1, 8) {1}({2},0)<1> {3}({4},0)<4;2,1> {3}({4},2)<4;2,1>\n", n.opc, j, k, h, 2 * k);
      t << fmt::format("{0} (M1, 8) {1}B{2}(0,0)<1> {3}(0,0)<2;1,0> {3}(0,1)<2;1,0>\n", n.opc, p, b->first, j);
    } else {
      // Over the 8 lanes: the halves (4 wide), then lanes 0 + 2 and 1 + 3, then those two, into the
      // bank's lane (dg2-visa.sh `softmax`: the finalizer adds a mov of the upper half, as IGC's own tree).
      std::string u = fmt::format("{}U{}", p, i);  // (never paired)
      t << fmt::format("{0} (M1, 4) {1}(0,0)<1> {2})<1;1,0> {3})<1;1,0>\n", n.opc, u, at(n.x), at(n.x, 4));
      t << fmt::format("{0} (M1, 1) {1}(0,0)<1> {1}(0,0)<0;1,0> {1}(0,2)<0;1,0>\n{0} (M1, 1) {1}(0,1)<1> {1}(0,1)<0;1,0> {1}(0,3)<0;1,0>\n", n.opc, u);
      t << fmt::format("{0} (M1, 1) {1} {2}(0,0)<0;1,0> {2}(0,1)<0;1,0>\n", n.opc, dst, u);
    }
  }
  for (size_t q = 0; q < msgs.size(); ++q) {
    const Msg& g = msgs[q];
    if (!g.write || chainOf[q] >= 0) continue;
    if (from[q].first < 0 && laneFrom[q].first.empty())
      for (size_t i = 0; i < g.data.size(); ++i) {
        const El& e = g.data[i];
        if (e.kind == El::Node && nodes[static_cast<size_t>(e.a)].write == static_cast<int>(q) &&
            nodes[static_cast<size_t>(e.a)].reg == static_cast<int>(i))
          continue;  // computed in place
        t << fmt::format("mov (M1, 8) {}P{}({},0)<1> {}\n", p, q, i, reg(e));
      }
    t << fmt::format("lsc_store.ugm (M1_NM, 1) flat[{0}a{1}]:a64 {0}P{2}:{3}\n", p, addrOf[q], q, msgName[g.n]);
  }
  std::vector<size_t> chained;
  for (size_t w = 0; w < msgs.size(); ++w)
    if (chainOf[w] >= 0) chained.push_back(w);
  std::stable_sort(chained.begin(), chained.end(), [&](size_t a, size_t c) {
    return std::pair(-msgs[a].data[0].b, chainOf[a]) < std::pair(-msgs[c].data[0].b, chainOf[c]);
  });
  for (size_t w : chained) {
    const Msg& g = msgs[w];
    t << fmt::format("mov (M1, 8) {}R{}({},0)<1> {}\n", p, chainOf[w], g.data[0].b + 1, reg(g.data[1]));
    t << fmt::format("lsc_store.ugm (M1_NM, 1) flat[{0}a{1}]:a64 {0}P{2}:d32x16t\n", p, addrOf[w], w);
  }
  std::string text = "{\n" + decls.str() + t.str() + "}\n";
  std::vector<llvm::Type*> types;
  for (llvm::Value* v : inputs) types.push_back(v->getType());
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), types, false);
  b.CreateCall(llvm::InlineAsm::get(fty, text, constraints, /*hasSideEffects=*/true), inputs);
  return std::string();
}

}  // namespace xtc::backend
