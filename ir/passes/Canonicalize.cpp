// The `canonicalize` pass: constant folding of arith ops on scalars and splat vectors, algebraic
// simplifications (x+0, x*1, x*0, (a*c)/c, constant reassociation, select on a constant), scf.for
// with a zero trip count and scf.if on a constant condition folded away, trivially dead loop-carried
// values removed, CSE of pure ops (respecting dominance: an op may reuse an equal op of its own
// block or of an enclosing block that comes earlier), and DCE of unused pure ops. Repeats until
// nothing changes (bounded).
//
// Float folding is only done for f32 and f64, whose rounding the host reproduces exactly; f16, bf16
// and tf32 arithmetic is left to the device.
#include "ir/OpRegistry.h"
#include "ir/passes/PassManager.h"

#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

namespace xtc::passes {

namespace {

using ir::Attribute;
using ir::AttrKind;
using ir::Block;
using ir::ElemKind;
using ir::Operation;
using ir::Type;
using ir::Value;

// ----- integer semantics at a given width ------------------------------------------------------

unsigned widthOf(ElemKind k) { return k == ElemKind::Index ? 64 : ir::elemBits(k); }

// The canonical stored form of an integer of kind k: i1 as 0/1, others sign-extended to 64 bits.
int64_t normalize(uint64_t u, ElemKind k) {
  unsigned w = widthOf(k);
  if (k == ElemKind::I1) return static_cast<int64_t>(u & 1);
  if (w >= 64) return static_cast<int64_t>(u);
  uint64_t mask = (uint64_t(1) << w) - 1;
  u &= mask;
  if ((u >> (w - 1)) & 1) u |= ~mask;
  return static_cast<int64_t>(u);
}
int64_t sext(int64_t v, ElemKind k) { return k == ElemKind::I1 ? ((v & 1) ? -1 : 0) : v; }
uint64_t zext(int64_t v, ElemKind k) {
  unsigned w = widthOf(k);
  return w >= 64 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v) & ((uint64_t(1) << w) - 1);
}

// A constant scalar, or the element of a splat vector constant.
struct Const {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
};

std::optional<Const> constOf(const Value* v) {
  if (!v) return std::nullopt;
  const Operation* d = v->definingOp();
  if (!d || !d->is("arith.constant")) return std::nullopt;
  const Attribute* a = d->attr("value");
  if (!a) return std::nullopt;
  switch (a->kind()) {
    case AttrKind::Int: return Const{false, a->getInt(), 0};
    case AttrKind::Bool: return Const{false, a->getBool() ? 1 : 0, 0};
    case AttrKind::Float: return Const{true, 0, a->getFloat()};
    case AttrKind::Dense:
      if (!a->isSplat()) return std::nullopt;
      if (a->denseIsFloat()) return Const{true, 0, a->denseFloats()[0]};
      return Const{false, a->denseInts()[0], 0};
    default: return std::nullopt;
  }
}

bool isIntConst(const Value* v, int64_t want) {
  auto c = constOf(v);
  return c && !c->isFloat && c->i == want;
}
bool isFloatConstBits(const Value* v, double want) {
  auto c = constOf(v);
  return c && c->isFloat && std::signbit(c->f) == std::signbit(want) && c->f == want;
}

bool exactFloat(ElemKind k) { return k == ElemKind::F32 || k == ElemKind::F64; }
double roundTo(double v, ElemKind k) { return k == ElemKind::F32 ? static_cast<double>(static_cast<float>(v)) : v; }

std::optional<int64_t> foldIntBinary(const std::string& n, int64_t a, int64_t b, ElemKind k) {
  unsigned w = widthOf(k);
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  int64_t sa = sext(a, k), sb = sext(b, k);
  uint64_t za = zext(a, k), zb = zext(b, k);
  auto fits = [&](int64_t r) -> std::optional<int64_t> {
    if (normalize(static_cast<uint64_t>(r), k) != (k == ElemKind::I1 ? (r & 1) : r)) return std::nullopt;
    return normalize(static_cast<uint64_t>(r), k);
  };
  const int64_t minV = std::numeric_limits<int64_t>::min();
  if (n == "arith.addi") return normalize(ua + ub, k);
  if (n == "arith.subi") return normalize(ua - ub, k);
  if (n == "arith.muli") return normalize(ua * ub, k);
  if (n == "arith.andi") return normalize(ua & ub, k);
  if (n == "arith.ori") return normalize(ua | ub, k);
  if (n == "arith.xori") return normalize(ua ^ ub, k);
  if (n == "arith.minsi") return normalize(static_cast<uint64_t>(std::min(sa, sb)), k);
  if (n == "arith.maxsi") return normalize(static_cast<uint64_t>(std::max(sa, sb)), k);
  if (n == "arith.minui") return normalize(std::min(za, zb), k);
  if (n == "arith.maxui") return normalize(std::max(za, zb), k);
  if (n == "arith.shli" || n == "arith.shrsi" || n == "arith.shrui") {
    if (zb >= w) return std::nullopt;  // undefined shift amounts are left alone
    if (n == "arith.shli") return normalize(za << zb, k);
    if (n == "arith.shrsi") return normalize(static_cast<uint64_t>(sa >> zb), k);
    return normalize(za >> zb, k);
  }
  if (n == "arith.divui" || n == "arith.remui") {
    if (zb == 0) return std::nullopt;
    return normalize(n == "arith.divui" ? za / zb : za % zb, k);
  }
  if (n == "arith.divsi" || n == "arith.remsi" || n == "arith.ceildivsi" || n == "arith.floordivsi") {
    if (sb == 0 || (sa == minV && sb == -1)) return std::nullopt;  // division by zero / overflow: not folded
    int64_t q = sa / sb, r = sa % sb;
    if (n == "arith.remsi") return fits(r);
    if (n == "arith.ceildivsi" && r != 0 && ((sa < 0) == (sb < 0))) ++q;
    if (n == "arith.floordivsi" && r != 0 && ((sa < 0) != (sb < 0))) --q;
    return fits(q);
  }
  return std::nullopt;
}

std::optional<double> foldFloatBinary(const std::string& n, double a, double b, ElemKind k) {
  if (!exactFloat(k)) return std::nullopt;
  double r;
  if (n == "arith.addf") r = a + b;
  else if (n == "arith.subf") r = a - b;
  else if (n == "arith.mulf") r = a * b;
  else if (n == "arith.divf") r = a / b;
  else if (n == "arith.maxf") r = std::fmax(a, b);  // IEEE maxNum: a NaN operand yields the other
  else if (n == "arith.minf") r = std::fmin(a, b);
  else return std::nullopt;
  return roundTo(r, k);
}

std::optional<bool> foldCmpi(const std::string& p, int64_t a, int64_t b, ElemKind k) {
  int64_t sa = sext(a, k), sb = sext(b, k);
  uint64_t za = zext(a, k), zb = zext(b, k);
  if (p == "eq") return za == zb;
  if (p == "ne") return za != zb;
  if (p == "slt") return sa < sb;
  if (p == "sle") return sa <= sb;
  if (p == "sgt") return sa > sb;
  if (p == "sge") return sa >= sb;
  if (p == "ult") return za < zb;
  if (p == "ule") return za <= zb;
  if (p == "ugt") return za > zb;
  if (p == "uge") return za >= zb;
  return std::nullopt;
}

std::optional<bool> foldCmpf(const std::string& p, double a, double b) {
  bool uno = std::isnan(a) || std::isnan(b);
  if (p == "oeq") return !uno && a == b;
  if (p == "one") return !uno && a != b;
  if (p == "olt") return !uno && a < b;
  if (p == "ole") return !uno && a <= b;
  if (p == "ogt") return !uno && a > b;
  if (p == "oge") return !uno && a >= b;
  if (p == "une") return uno || a != b;
  if (p == "ord") return !uno;
  if (p == "uno") return uno;
  return std::nullopt;
}

std::optional<Const> foldConvert(const Const& c, ElemKind from, ElemKind to) {
  bool fromF = ir::isFloatElem(from), toF = ir::isFloatElem(to);
  if (!fromF && !toF) {
    if (from == ElemKind::I1 || to == ElemKind::I1) return std::nullopt;
    return Const{false, normalize(static_cast<uint64_t>(c.i), to), 0};
  }
  if (!fromF && toF) {
    if (!exactFloat(to) || from == ElemKind::I1) return std::nullopt;
    int64_t v = sext(c.i, from);
    if (v > (int64_t(1) << 53) || v < -(int64_t(1) << 53)) return std::nullopt;  // would round twice
    return Const{true, 0, roundTo(static_cast<double>(v), to)};
  }
  if (fromF && !toF) {
    if (to == ElemKind::I1 || std::isnan(c.f)) return std::nullopt;
    double t = std::trunc(c.f);
    unsigned w = widthOf(to);
    double lo = -std::ldexp(1.0, static_cast<int>(w) - 1), hi = std::ldexp(1.0, static_cast<int>(w) - 1);
    if (!(t >= lo && t < hi)) return std::nullopt;  // out of range (it saturates at run time): not folded
    return Const{false, static_cast<int64_t>(t), 0};
  }
  if (!exactFloat(to) || !exactFloat(from)) return std::nullopt;
  return Const{true, 0, roundTo(c.f, to)};
}

// ----- rewriting helpers ------------------------------------------------------------------------

bool isCommutative(const std::string& n) {
  static const char* kOps[] = {"arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori", "arith.minsi",
                               "arith.maxsi", "arith.minui", "arith.maxui", "arith.addf", "arith.mulf"};
  for (const char* k : kOps)
    if (n == k) return true;
  return false;
}

class Canonicalizer {
public:
  bool changed = false;

  // Replaces the single result of `op` by `v` and erases `op`.
  void replaceOp(Operation* op, Value* v) {
    if (v->nameHint().empty() && !op->result()->nameHint().empty() && v->definingOp() &&
        v->definingOp()->is("arith.constant") && v->definingOp()->parentBlock() == op->parentBlock() &&
        v->definingOp()->nextInBlock() == op)
      v->setNameHint(op->result()->nameHint());
    op->result()->replaceAllUsesWith(v);
    op->erase();
    changed = true;
  }

  // A new constant of type `t` (scalar or splat vector) right before `op`.
  Value* makeConst(Operation* op, const Type& t, const Const& c) {
    Attribute value;
    if (t.isVector()) {
      value = c.isFloat ? Attribute::denseFloat(t, {c.f}) : Attribute::denseInt(t, {c.i});
    } else if (c.isFloat) {
      value = Attribute::floating(c.f, t.elem());
    } else {
      value = Attribute::integer(c.i, t.elem());
    }
    auto k = Operation::create("arith.constant", op->loc(), {}, {t}, {{"value", value}});
    return op->parentBlock()->insert(op, std::move(k))->result();
  }

  void simplifyRegions(Operation* root) {
    for (unsigned r = 0; r < root->numRegions(); ++r)
      for (unsigned b = 0; b < root->region(r).numBlocks(); ++b) simplifyBlock(root->region(r).block(b));
  }

private:
  void simplifyBlock(Block& b) {
    for (Operation* op : b.opsSnapshot()) {
      simplifyRegions(op);
      simplifyOp(op);
    }
  }

  void simplifyOp(Operation* op) {
    const std::string& n = op->name();
    if (n == "scf.for") return simplifyFor(op);
    if (n == "scf.if") return simplifyIf(op);
    if (op->dialect() != "arith" && !op->is("vector.splat")) return;
    if (op->numResults() != 1) return;
    for (unsigned i = 0; i < op->numOperands(); ++i)
      if (!op->operand(i)) return;
    const Type& rt = op->result()->type();
    if (!rt.isScalar() && !rt.isVector()) return;

    if (op->numOperands() == 2 && isCommutative(n) && constOf(op->operand(0)) && !constOf(op->operand(1))) {
      Value* a = op->operand(0);
      op->setOperand(0, op->operand(1));
      op->setOperand(1, a);
      changed = true;
    }
    if (n == "vector.splat") {
      if (auto c = constOf(op->operand(0))) replaceOp(op, makeConst(op, rt, *c));
      return;
    }
    if (n == "arith.select") {
      if (op->operand(1) == op->operand(2)) return replaceOp(op, op->operand(1));
      // A constant condition (scalar, or a splat vector: every lane picks the same side).
      if (auto c = constOf(op->operand(0)); c && !c->isFloat) return replaceOp(op, op->operand(c->i ? 1 : 2));
      return;
    }
    if (n == "arith.convert") {
      const Type& src = op->operand(0)->type();
      if (src == rt) return replaceOp(op, op->operand(0));
      if (auto c = constOf(op->operand(0)))
        if (auto r = foldConvert(*c, src.elem(), rt.elem())) replaceOp(op, makeConst(op, rt, *r));
      return;
    }
    if (n == "arith.negf") {
      if (auto c = constOf(op->operand(0)); c && exactFloat(rt.elem())) replaceOp(op, makeConst(op, rt, Const{true, 0, -c->f}));
      return;
    }
    if (n == "arith.cmpi" || n == "arith.cmpf") return foldCompare(op);
    if (op->numOperands() != 2) return;
    Value* x = op->operand(0);
    Value* y = op->operand(1);
    auto cx = constOf(x), cy = constOf(y);
    ElemKind k = rt.elem();
    if (cx && cy) {
      if (!cx->isFloat && !cy->isFloat && ir::isIntElem(k)) {
        if (auto r = foldIntBinary(n, cx->i, cy->i, k)) return replaceOp(op, makeConst(op, rt, Const{false, *r, 0}));
      } else if (cx->isFloat && cy->isFloat) {
        if (auto r = foldFloatBinary(n, cx->f, cy->f, k)) return replaceOp(op, makeConst(op, rt, Const{true, 0, *r}));
      }
      return;
    }
    // Algebraic identities (constants are on the right after the swap above).
    if ((n == "arith.addi" || n == "arith.subi" || n == "arith.ori" || n == "arith.xori" || n == "arith.shli" ||
         n == "arith.shrsi" || n == "arith.shrui") && isIntConst(y, 0))
      return replaceOp(op, x);
    if ((n == "arith.muli" || n == "arith.divsi" || n == "arith.divui" || n == "arith.ceildivsi" || n == "arith.floordivsi") &&
        isIntConst(y, 1))
      return replaceOp(op, x);
    if ((n == "arith.muli" || n == "arith.andi") && isIntConst(y, 0)) return replaceOp(op, y);
    if (n == "arith.subi" && x == y) return replaceOp(op, makeConst(op, rt, Const{false, 0, 0}));
    if ((n == "arith.andi" || n == "arith.ori" || n == "arith.minsi" || n == "arith.maxsi" || n == "arith.minui" ||
         n == "arith.maxui") && x == y)
      return replaceOp(op, x);
    // x + (-0.0) == x and x * 1.0 == x exactly for every x (x + 0.0 is not: -0.0 + 0.0 = +0.0).
    if (n == "arith.addf" && isFloatConstBits(y, -0.0)) return replaceOp(op, x);
    if (n == "arith.mulf" && isFloatConstBits(y, 1.0)) return replaceOp(op, x);
    // (a * c) / c -> a for c > 0, the index math of tile offsets; exact when a * c does not overflow,
    // which index math assumes.
    if ((n == "arith.divsi" || n == "arith.ceildivsi" || n == "arith.floordivsi") && cy && !cy->isFloat && cy->i > 0) {
      if (Operation* m = x->definingOp(); m && m->is("arith.muli") && m->numOperands() == 2) {
        if (isIntConst(m->operand(1), cy->i)) return replaceOp(op, m->operand(0));
        if (isIntConst(m->operand(0), cy->i)) return replaceOp(op, m->operand(1));
      }
    }
    // (a op c1) op c2 -> a op (c1 op c2) for associative add/mul on integers.
    if ((n == "arith.addi" || n == "arith.muli") && cy && !cy->isFloat) {
      Operation* inner = x->definingOp();
      if (inner && inner->name() == n && inner->numOperands() == 2)
        if (auto c1 = constOf(inner->operand(1)); c1 && !c1->isFloat)
          if (auto folded = foldIntBinary(n, c1->i, cy->i, k)) {
            Value* c = makeConst(op, rt, Const{false, *folded, 0});
            op->setOperand(0, inner->operand(0));
            op->setOperand(1, c);
            changed = true;
          }
    }
  }

  void foldCompare(Operation* op) {
    const Attribute* p = op->attr("predicate");
    if (!p || p->kind() != AttrKind::Enum) return;
    auto a = constOf(op->operand(0)), b = constOf(op->operand(1));
    const Type& rt = op->result()->type();
    std::optional<bool> r;
    if (a && b && op->is("arith.cmpi") && !a->isFloat && !b->isFloat)
      r = foldCmpi(p->getString(), a->i, b->i, op->operand(0)->type().elem());
    else if (a && b && op->is("arith.cmpf") && a->isFloat && b->isFloat)
      r = foldCmpf(p->getString(), a->f, b->f);
    else if (op->is("arith.cmpi") && op->operand(0) == op->operand(1)) {
      const std::string& s = p->getString();
      r = s == "eq" || s == "sle" || s == "sge" || s == "ule" || s == "uge";
    }
    if (r) replaceOp(op, makeConst(op, rt, Const{false, *r ? 1 : 0, 0}));
  }

  void simplifyFor(Operation* op) {
    if (op->numOperands() < 3 || op->numRegions() != 1 || op->region(0).numBlocks() != 1) return;
    Block& body = op->region(0).block();
    Operation* yield = body.back();
    unsigned nIter = op->numOperands() - 3;
    if (!yield || !yield->is("scf.yield") || yield->numOperands() != nIter || body.numArguments() != nIter + 1 ||
        op->numResults() != nIter)
      return;
    auto lb = constOf(op->operand(0)), ub = constOf(op->operand(1)), step = constOf(op->operand(2));
    if (lb && ub && step && !lb->isFloat && !ub->isFloat && step->i > 0 && ub->i <= lb->i) {
      // Zero trips: the results are the initial values.
      for (unsigned i = 0; i < nIter; ++i) op->result(i)->replaceAllUsesWith(op->operand(3 + i));
      op->erase();
      changed = true;
      return;
    }
    // Loop-carried values passed through unchanged are the initial value everywhere.
    for (unsigned i = 0; i < nIter; ++i) {
      Value* arg = body.argument(1 + i);
      bool usedElsewhere = arg->uses().size() > 1 || op->result(i)->hasUses();
      if (yield->operand(i) == arg && usedElsewhere) {
        Value* init = op->operand(3 + i);
        arg->replaceUsesWithIf(init, [&](const ir::Use& u) { return u.user != yield; });
        op->result(i)->replaceAllUsesWith(init);
        changed = true;
      }
    }
    // Remove loop-carried values nobody reads: the result is unused and the block argument is only
    // yielded back (at its own position) or not used at all.
    for (unsigned i = nIter; i-- > 0;) {
      Value* arg = body.argument(1 + i);
      if (op->result(i)->hasUses()) continue;
      bool onlyYielded = true;
      for (const ir::Use& u : arg->uses())
        if (!(u.user == yield && u.index == i)) onlyYielded = false;
      if (!onlyYielded) continue;
      yield->eraseOperand(i);
      body.eraseArgument(1 + i);
      op->eraseOperand(3 + i);
      op->eraseResult(i);
      changed = true;
    }
  }

  void simplifyIf(Operation* op) {
    if (op->numOperands() != 1 || op->numRegions() != 2) return;
    auto c = constOf(op->operand(0));
    if (!c || c->isFloat) return;
    ir::Region& taken = op->region(c->i ? 0 : 1);
    if (taken.empty()) {
      if (op->numResults() != 0) return;
      op->erase();
      changed = true;
      return;
    }
    if (taken.numBlocks() != 1) return;
    Block& b = taken.block();
    Operation* yield = b.back();
    if (!yield || !yield->is("scf.yield") || yield->numOperands() != op->numResults()) return;
    for (Operation* inner : b.opsSnapshot())
      if (inner != yield) inner->moveBefore(op);
    for (unsigned i = 0; i < op->numResults(); ++i) op->result(i)->replaceAllUsesWith(yield->operand(i));
    op->erase();
    changed = true;
  }
};

// ----- CSE and DCE ------------------------------------------------------------------------------

bool isPure(const Operation* op) {
  const ir::OpInfo* info = ir::findOp(op->name());
  return info && info->traits.pure && op->numRegions() == 0;
}

struct OpKey {
  const Operation* op;
  bool operator==(const OpKey& o) const {
    const Operation& a = *op;
    const Operation& b = *o.op;
    if (a.name() != b.name() || a.operands() != b.operands() || a.numResults() != b.numResults()) return false;
    for (unsigned i = 0; i < a.numResults(); ++i)
      if (a.result(i)->type() != b.result(i)->type()) return false;
    return a.attrs() == b.attrs();
  }
};
struct OpKeyHash {
  size_t operator()(const OpKey& k) const {
    size_t h = std::hash<std::string>()(k.op->name());
    for (const Value* v : k.op->operands()) h = h * 31 + std::hash<const void*>()(v);
    h = h * 31 + k.op->attrs().size();
    // Constants differ only in their value: hash its integer/float payload to keep buckets small.
    if (const Attribute* a = k.op->attr("value")) {
      if (a->kind() == AttrKind::Int) h = h * 31 + std::hash<int64_t>()(a->getInt());
      else if (a->kind() == AttrKind::Float) h = h * 31 + std::hash<double>()(a->getFloat());
    }
    return h;
  }
};

class CSE {
public:
  bool changed = false;
  void run(Operation* root) {
    for (unsigned r = 0; r < root->numRegions(); ++r)
      for (unsigned b = 0; b < root->region(r).numBlocks(); ++b) block(root->region(r).block(b));
  }

private:
  std::vector<std::unordered_map<OpKey, Operation*, OpKeyHash>> scopes_;

  void block(Block& b) {
    scopes_.emplace_back();
    for (Operation* op : b.opsSnapshot()) {
      if (op->numRegions()) {
        run(op);
        continue;
      }
      if (!isPure(op) || op->numResults() == 0) continue;
      Operation* existing = nullptr;
      for (auto it = scopes_.rbegin(); it != scopes_.rend() && !existing; ++it) {
        auto f = it->find(OpKey{op});
        if (f != it->end()) existing = f->second;
      }
      if (!existing) {
        scopes_.back().emplace(OpKey{op}, op);
        continue;
      }
      for (unsigned i = 0; i < op->numResults(); ++i) {
        Value* keep = existing->result(i);
        if (keep->nameHint().empty()) keep->setNameHint(op->result(i)->nameHint());
        op->result(i)->replaceAllUsesWith(keep);
      }
      op->erase();
      changed = true;
    }
    scopes_.pop_back();
  }
};

bool dce(Operation* root) {
  bool changed = false;
  for (unsigned r = 0; r < root->numRegions(); ++r)
    for (unsigned bi = 0; bi < root->region(r).numBlocks(); ++bi) {
      Block& b = root->region(r).block(bi);
      std::vector<Operation*> ops = b.opsSnapshot();
      // Reverse order: a chain of dead ops dies in one sweep.
      for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        Operation* op = *it;
        if (op->numRegions()) {
          changed |= dce(op);
          continue;
        }
        if (!isPure(op)) continue;
        bool used = false;
        for (unsigned i = 0; i < op->numResults(); ++i) used |= op->result(i)->hasUses();
        if (used) continue;
        op->erase();
        changed = true;
      }
    }
  return changed;
}

class CanonicalizePass : public Pass {
public:
  std::string name() const override { return "canonicalize"; }
  std::string description() const override {
    return "constant folding, algebraic simplification, CSE and DCE of pure ops; repeated until nothing changes";
  }
  bool run(Operation* module, PassContext&) override {
    for (int iter = 0; iter < 16; ++iter) {
      Canonicalizer c;
      c.simplifyRegions(module);
      CSE cse;
      cse.run(module);
      bool d = dce(module);
      if (!c.changed && !cse.changed && !d) break;
    }
    return true;
  }
};

}  // namespace

void registerCanonicalizePass() {
  registerPass("canonicalize", [] { return std::make_unique<CanonicalizePass>(); });
}

}  // namespace xtc::passes
