// Internal to backends/spirv: the 2D message coordinates of a lane-level scf.for as "base +
// constant" and the step per iteration of each base. Both pvc loop forms build a message's header
// before the loop and only add the step to its x/y dword per iteration when the coordinate moves
// by a known constant: the whole-loop statement (VisaLoop.cpp, whose matcher walks the body with
// these rules) and a loop emitted op by op (VisaEmitter.cpp, prepareLoopHeaders, which asks for
// one coordinate at a time: bodySym). A base is a value defined outside the loop (step 0), the
// induction variable (the loop's step) or a loop-carried index argument yielded as itself plus a
// constant (carriedStep).
#pragma once

#include "ir/Operation.h"

#include <cstdint>
#include <optional>

namespace xtc::backend {

// A scalar index as (base + off) / div + post; base null = the constant off. div > 1 only for a
// transposed d32 message over 16-bit pairs, whose x counts dwords (column / 2); post is 0 when div
// is 1 (folded into off).
struct Sym {
  const ir::Value* base = nullptr;
  int64_t off = 0, div = 1, post = 0;
};

// Whether `v` is defined outside `loop` (by an op, or as a block argument of a region, not nested in it).
bool definedOutside(const ir::Value* v, const ir::Operation& loop);

// The value of an arith.constant integer, else nullopt.
std::optional<int64_t> constInt(const ir::Value* v);

// a + b, or a - b when `sub`: nullopt unless one side is a constant (and, for a difference, the
// subtrahend).
std::optional<Sym> addSyms(Sym a, Sym b, bool sub);

// A value defined outside the loop, seen through integer converts of 32 bits or more and "+/-
// constant" (at most `depth` ops deep); what it cannot see through is the base.
Sym outerSym(const ir::Value* v, int depth = 8);

// The step per iteration of the loop-carried index argument `arg` whose yielded value is `yielded`:
// its constant when that is arg + constant, else nullopt.
std::optional<int64_t> carriedStep(const ir::Value* arg, const std::optional<Sym>& yielded);

// A scalar integer value of `loop`'s body (not of a region nested in it) as base + constant, through
// arith.constant, arith.addi/subi and integer converts of 32 bits or more in the body; a block
// argument of the body is a base of its own, a value defined outside is outerSym's. nullopt for any
// other op (the coordinate is then written by each message).
std::optional<Sym> bodySym(const ir::Value* v, const ir::Operation& loop);

// An op of integer (or i1) scalars whose result depends on its operands only: arith.addi/subi/muli/
// andi/ori/remui/divui/cmpi/select/convert.
bool pureIndexOp(const ir::Operation& op);

// Whether `v` is computed in `loop`'s body (not in a region nested in it) from values defined
// outside the loop and constants only, through pureIndexOps: the same in every iteration, but not
// available before the loop unless the caller computes it there.
bool bodyInvariant(const ir::Value* v, const ir::Operation& loop);

// bodySym, or when that has no base of known step, v itself as the base (v + 0) if bodyInvariant
// (a lane's row in dg2's lane reads: its tile's row plus the lane's part, two outside values).
std::optional<Sym> invariantSym(const ir::Value* v, const ir::Operation& loop);

// The step per iteration of a bodySym or invariantSym base of `loop`: 0 for a value defined outside
// or bodyInvariant (and for no base), the loop's constant step for the induction variable,
// carriedStep for a loop-carried index argument; nullopt when it is not known.
std::optional<int64_t> baseStep(const ir::Value* base, const ir::Operation& loop);

// a - b when it is a constant in every iteration and lane: both bases are sums of the same values
// times the same constants (seen through 64-bit arith.addi/subi, arith.muli by a constant and
// constants, up to 8 ops deep; any other value is a term of its own; with `loop`, a loop-carried
// index of known step is its initial value, the steps so weighted summing to 0), div 1. nullopt
// otherwise (not proven, not necessarily different). Two lane reads' rows, each its tile's row plus
// the lane's part plus a constant, differ by that constant; two slices' K columns, carried alike
// from the same start, by 0 (Dg2VisaFmaLoop.cpp's derived addresses).
std::optional<int64_t> constantDifference(const Sym& a, const Sym& b, const ir::Operation* loop = nullptr);

}  // namespace xtc::backend
