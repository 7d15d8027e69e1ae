// Loop coordinates as base + constant (LoopCoords.h).
#include "backends/spirv/LoopCoords.h"

#include <map>

namespace xtc::backend {

bool definedOutside(const ir::Value* v, const ir::Operation& loop) {
  if (const ir::Operation* d = v->definingOp()) return d != &loop && !loop.isAncestorOf(d);
  const ir::Operation* owner = v->ownerBlock()->parentOp();
  return owner && owner != &loop && !loop.isAncestorOf(owner);
}

std::optional<int64_t> constInt(const ir::Value* v) {
  const ir::Operation* d = v->definingOp();
  if (!d || !d->is("arith.constant")) return std::nullopt;
  const ir::Attribute* a = d->attr("value");
  if (!a || !a->isa(ir::AttrKind::Int)) return std::nullopt;
  return a->getInt();
}

std::optional<Sym> addSyms(Sym a, Sym b, bool sub) {
  if ((sub && b.base) || (a.base && b.base)) return std::nullopt;
  if (sub) b.off = -b.off;
  if (!a.base) std::swap(a, b);  // b: the constant
  if (a.div != 1) return Sym{a.base, a.off, a.div, a.post + b.off};
  return Sym{a.base ? a.base : b.base, a.off + b.off};
}

namespace {

bool intScalar(const ir::Value* v) { return v->type().isScalar() && ir::isIntElem(v->type().elem()); }

// An integer convert that keeps the value mod 2^32 (both sides 32 bits or more: the coordinates
// are i32).
bool wideConvert(const ir::Operation& d) {
  return d.is("arith.convert") && intScalar(d.operand(0)) && intScalar(d.result()) &&
         ir::elemBits(d.result()->type().elem()) >= 32 && ir::elemBits(d.operand(0)->type().elem()) >= 32;
}

}  // namespace

Sym outerSym(const ir::Value* v, int depth) {
  const ir::Operation* d = v->definingOp();
  if (!d || depth == 0) return Sym{v, 0};
  if (std::optional<int64_t> c = constInt(v)) return Sym{nullptr, *c};
  if (wideConvert(*d)) return outerSym(d->operand(0), depth - 1);
  if (d->is("arith.addi") || d->is("arith.subi")) {
    std::optional<Sym> s = addSyms(outerSym(d->operand(0), depth - 1), outerSym(d->operand(1), depth - 1), d->is("arith.subi"));
    return s ? *s : Sym{v, 0};
  }
  return Sym{v, 0};
}

std::optional<int64_t> carriedStep(const ir::Value* arg, const std::optional<Sym>& yielded) {
  if (!yielded || yielded->base != arg || yielded->div != 1) return std::nullopt;
  return yielded->off;
}

std::optional<Sym> bodySym(const ir::Value* v, const ir::Operation& loop) {
  if (!intScalar(v)) return std::nullopt;
  if (definedOutside(v, loop)) return outerSym(v);
  if (v->isBlockArgument()) {
    if (v->ownerBlock() != &loop.region(0).block()) return std::nullopt;
    return Sym{v, 0};
  }
  const ir::Operation* d = v->definingOp();
  if (d->parentOp() != &loop) return std::nullopt;
  if (std::optional<int64_t> c = constInt(v)) return Sym{nullptr, *c};
  if (wideConvert(*d)) return bodySym(d->operand(0), loop);
  if (d->is("arith.addi") || d->is("arith.subi")) {
    std::optional<Sym> a = bodySym(d->operand(0), loop), b = bodySym(d->operand(1), loop);
    return a && b ? addSyms(*a, *b, d->is("arith.subi")) : std::nullopt;
  }
  return std::nullopt;
}

bool pureIndexOp(const ir::Operation& op) {
  static const char* const kinds[] = {"arith.addi",  "arith.subi",  "arith.muli", "arith.andi",   "arith.ori",
                                      "arith.remui", "arith.divui", "arith.cmpi", "arith.select", "arith.convert"};
  if (op.numResults() != 1 || !intScalar(op.result())) return false;
  for (const char* k : kinds)
    if (op.is(k)) return true;
  return false;
}

bool bodyInvariant(const ir::Value* v, const ir::Operation& loop) {
  if (!intScalar(v) || v->isBlockArgument()) return false;
  if (definedOutside(v, loop)) return true;
  const ir::Operation* d = v->definingOp();
  if (d->parentOp() != &loop) return false;
  if (constInt(v)) return true;
  if (!pureIndexOp(*d)) return false;
  for (unsigned i = 0; i < d->numOperands(); ++i)
    if (!bodyInvariant(d->operand(i), loop)) return false;
  return true;
}

std::optional<Sym> invariantSym(const ir::Value* v, const ir::Operation& loop) {
  std::optional<Sym> s = bodySym(v, loop);
  if (s && baseStep(s->base, loop)) return s;
  if (bodyInvariant(v, loop)) return definedOutside(v, loop) ? outerSym(v) : Sym{v, 0};
  return std::nullopt;
}

std::optional<int64_t> baseStep(const ir::Value* base, const ir::Operation& loop) {
  if (!base || definedOutside(base, loop) || bodyInvariant(base, loop)) return 0;
  const ir::Block& body = loop.region(0).block();
  if (!base->isBlockArgument() || base->ownerBlock() != &body) return std::nullopt;
  if (base->index() == 0) {
    std::optional<int64_t> step = constInt(loop.operand(2));
    return step && *step > 0 ? step : std::nullopt;
  }
  // The loop's yield: its operand a - 1 for block argument a.
  const ir::Operation* yield = body.terminator();
  if (!yield || !yield->is("scf.yield") || base->index() - 1 >= yield->numOperands()) return std::nullopt;
  return carriedStep(base, bodySym(yield->operand(base->index() - 1), loop));
}

namespace {

// v as a sum of terms (value -> coefficient) plus a constant, in 64-bit wrapping arithmetic; false when
// deeper than `depth` ops.
struct LinearForm {
  const ir::Operation* loop;
  std::map<const ir::Value*, uint64_t> terms;
  uint64_t c = 0, steps = 0;  // the constant, and the carried arguments' steps times their coefficients
};

bool linearForm(const ir::Value* v, uint64_t scale, LinearForm& f, int depth) {
  if (std::optional<int64_t> k = constInt(v)) {
    f.c += scale * static_cast<uint64_t>(*k);
    return true;
  }
  if (f.loop && v->isBlockArgument() && v->ownerBlock() == &f.loop->region(0).block() && v->index() > 0 && depth > 0) {
    // A carried index: its initial value plus the iterations so far times its step.
    if (std::optional<int64_t> st = baseStep(v, *f.loop)) {
      f.steps += scale * static_cast<uint64_t>(*st);
      return linearForm(f.loop->operand(v->index() + 2), scale, f, depth - 1);
    }
  }
  const ir::Operation* d = v->definingOp();
  const bool wide = intScalar(v) && ir::elemBits(v->type().elem()) == 64;
  auto wideOperands = [&] {
    for (unsigned i = 0; i < d->numOperands(); ++i)
      if (!intScalar(d->operand(i)) || ir::elemBits(d->operand(i)->type().elem()) != 64) return false;
    return true;
  };
  if (d && wide && wideOperands() && (d->is("arith.addi") || d->is("arith.subi") || d->is("arith.muli"))) {
    if (depth == 0) return false;
    if (d->is("arith.muli")) {
      for (unsigned i = 0; i < 2; ++i)
        if (std::optional<int64_t> k = constInt(d->operand(i)))
          return linearForm(d->operand(1 - i), scale * static_cast<uint64_t>(*k), f, depth - 1);
    } else {
      const uint64_t second = d->is("arith.subi") ? 0 - scale : scale;
      return linearForm(d->operand(0), scale, f, depth - 1) && linearForm(d->operand(1), second, f, depth - 1);
    }
  }
  f.terms[v] += scale;
  return true;
}

}  // namespace

std::optional<int64_t> constantDifference(const Sym& a, const Sym& b, const ir::Operation* loop) {
  if (a.div != 1 || b.div != 1) return std::nullopt;
  LinearForm f{loop, {}, static_cast<uint64_t>(a.off) - static_cast<uint64_t>(b.off)};
  if ((a.base && !linearForm(a.base, 1, f, 8)) || (b.base && !linearForm(b.base, 0 - uint64_t{1}, f, 8)) || f.steps != 0)
    return std::nullopt;
  for (const auto& [v, k] : f.terms)
    if (k != 0) return std::nullopt;
  return static_cast<int64_t>(f.c);
}

}  // namespace xtc::backend
