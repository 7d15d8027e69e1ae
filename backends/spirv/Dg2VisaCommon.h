// Internal to backends/spirv: what dg2's whole-loop inline-vISA statements share (the DPAS one,
// Dg2VisaLoop.cpp, the f32 FMA one, Dg2VisaFmaLoop.cpp, and row_sum's reduction, Dg2VisaReduceLoop.cpp):
// the statement's inputs and the LLVM around it. They take the loop's coordinates, per-lane row
// addresses, loop end and tied accumulators the same way, so that is written once here: each emitter
// matches its own body and writes its own loop text, and calls these in the same order.
#pragma once

#include "backends/spirv/LoopCoords.h"
#include "backends/spirv/XeBuiltins.h"

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace xtc::backend {

// The matchers' element tracing through vector.extract and vector.from_elements: each value maps to
// the elements (whatever a matcher's Elem is: a read's register, a node, ...) of its registers, one
// per vector element. Returns nullopt for any other op; else whether the op traced (an extract of a
// traced vector at a valid index into a scalar, a from_elements of traced scalars).
template <class Elem>
std::optional<bool> traceVectorOp(const ir::Operation& op, std::map<const ir::Value*, std::vector<Elem>>& elems) {
  auto of = [&](const ir::Value* v) -> const std::vector<Elem>* {
    auto it = elems.find(v);
    return it == elems.end() ? nullptr : &it->second;
  };
  if (op.is("vector.extract")) {
    const std::vector<Elem>* s = of(op.operand(0));
    int64_t i = op.intAttr("index", -1);
    if (!s || i < 0 || i >= static_cast<int64_t>(s->size()) || !op.result()->type().isScalar()) return false;
    elems[op.result()] = {(*s)[static_cast<size_t>(i)]};
    return true;
  }
  if (op.is("vector.from_elements")) {
    std::vector<Elem> es;
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      const std::vector<Elem>* s = of(op.operand(i));
      if (!s || s->size() != 1 || !op.operand(i)->type().isScalar()) return false;
      es.push_back((*s)[0]);
    }
    elems[op.result()] = std::move(es);
    return true;
  }
  return std::nullopt;
}

// Whether the scf.for `loop` may become a dg2 whole-loop statement at all: a dg2 target with its
// 8-lane subgroup and memref sizes at hand, and a loop whose guard bounds its index below 2^31
// (lower-xe's interior loops, index_bits = 32: the statements' counters and bounds are 32-bit).
inline bool dg2LoopStatementAllowed(const ir::Operation& loop, const XeEmitContext& ctx) {
  return ctx.target.kind == targets::TargetKind::Dg2 && ctx.target.subgroupSize == 8 && ctx.memrefDim &&
         loop.intAttr("index_bits", 64) == 32;
}

// A value of `loop`'s body that is bodyInvariant (LoopCoords.h), or defined outside the loop, computed
// before the loop in its own width (an index: i64), as the per-op emitter computes it (a convert
// sign-extends, from i1 zero-extends): a lane read's row, a prefetch program's invariant input.
llvm::Value* hoistInvariant(const ir::Value* v, const ir::Operation& loop, XeEmitContext& ctx, llvm::IRBuilder<>& b);

// One statement of the dg2 scf.for `loop`: its first `nOut` operands are the outputs (registers of
// 8 elements, "=rw") tied to the next nOut (the accumulators' initial values, setTied); the inputs
// after them are added by input(). `steps` are the loop-carried index arguments' steps (the matcher's).
class Dg2Statement {
 public:
  Dg2Statement(const ir::Operation& loop, XeEmitContext& ctx, size_t nOut, const std::map<const ir::Value*, int64_t>& steps);

  llvm::IRBuilder<>& b;

  // "$N" for the input `v` with the constraint `c` (once per value).
  std::string input(llvm::Value* v, const char* c);
  llvm::Value* i64(llvm::Value* v);  // sign-extended
  llvm::Value* i32(llvm::Value* v);  // truncated
  llvm::Value* hoist(const ir::Value* v) { return hoistInvariant(v, loop_, ctx_, b); }
  // A coordinate's value at loop entry (i64) and its step per iteration.
  llvm::Value* initial(const Sym& s);
  int64_t stepOf(const Sym& s) const;

  // The subgroup lane id (i64), called where this is first asked for (before the address groups).
  llvm::Value* lane();
  // A memref's row pitch in bytes (`eb` bytes per element), made once.
  llvm::Value* pitch(const ir::Value* mem, int64_t eb);
  // The address of row + lane, column `col` of `mem` at loop entry (a group of 8 rows' per-lane input),
  // and (laneRead) of the lane's own row (an xe.lane_read's).
  llvm::Value* groupAddress(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb);
  llvm::Value* laneAddress(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb);
  // Spreads a group's per-lane address `addr` (an input) into the message address registers 8g ..
  // 8g + 7 of `{p}a` (one register each: an LSC address must start a register).
  void spread(std::ostream& t, const std::string& p, size_t g, llvm::Value* addr);
  // A lane read j's addresses: `{p}l<j>` the input, `{p}m<j>` 16 bytes on.
  void laneRead(std::ostream& t, const std::string& p, size_t j, llvm::Value* addr);
  // What one step adds to a message's address: its row step times the pitch plus its column step
  // times the element bytes (an immediate, or a uniform input when the row moves); empty when it does
  // not move.
  std::string stepBytes(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb);
  // `addr` one step earlier (minus those bytes): the entry address of a message whose add opens the
  // step, so the step's add brings it to the step's row.
  llvm::Value* stepBack(const ir::Value* mem, const Sym& row, const Sym& col, int64_t eb, llvm::Value* addr);
  // A message's address step in bytes when it is a positive immediate (its column moves, its row
  // does not), else 0: an address that can end the loop (loopStart).
  int64_t walkBytes(const Sym& row, const Sym& col, int64_t eb) const;
  // The loop around the steps, entered only when a step runs (finish()'s trip count: 0 when lb >= ub,
  // else ceil((ub - lb) / step), a K below one step included). With `walk` (a 64-bit scalar address
  // that each step advances by `bytes` > 0 before the end test) the loop ends on an unsigned compare
  // of it with its end `{p}e` = its entry value + trips * bytes, one add before the loop (dg2-visa.sh
  // `addrendcase`): no counter. Without (`walk` empty: a body that reads the counter, Dg2VisaLoop.cpp's
  // conditional block), the counter `{p}k` from the lower bound, compared with the upper bound after
  // its add. loopDecls declares what loopStart uses (`{p}e` or `{p}k`, and the predicate `{p}p`).
  // loopStep closes the loop and the statement; `tail` runs after the loop (also when it ran no step).
  void loopDecls(std::ostream& t, const std::string& p, bool counter);
  // `label` false: the caller writes `{p}loop:` itself (Dg2VisaLoop.cpp's odd-step peel goes first).
  void loopStart(std::ostream& t, const std::string& p, const std::string& walk, int64_t bytes, bool label = true);
  // Two K steps per iteration (Dg2VisaLoop.cpp, Dg2VisaFmaLoop.cpp), after loopStart(walk, bytes,
  // label = false) with `bytes` a power of two: an odd trip count (the span AND bytes not 0) runs
  // `other` (the step with the second register set's names) once before the loop and leaves when it
  // was the only step; then the loop's label, `step` and `other`. twoStepDecls declares what it uses.
  void twoSteps(std::ostream& t, const std::string& p, int64_t bytes, const std::string& step, const std::string& other) const;
  static std::string twoStepDecls(const std::string& p);
  // Whether a whole-loop statement whose own variables take `declared` registers (declaredRegisters)
  // fits the kernel's register file (128, or 256 with -ze-opt-large-register-file) with its tied
  // outputs. The statement's variables live across the whole loop, so this is what IGC must hold at
  // once; the optional second register sets (Dg2VisaLoop.cpp's two sets, Dg2VisaFmaLoop.cpp's Z and
  // two steps) are left out where they would not fit, since IGC then spills (issue 11, session 21).
  // `reserve`: what IGC needs besides the statement (16, calibrated below in fits()); 0 asks whether
  // the statement alone overfills the file.
  bool fits(int64_t declared, int64_t reserve = kFitsReserve) const;
  static constexpr int64_t kFitsReserve = 16;
  // The registers the `.decl`s of vISA text `decls` take: its own variables, not its aliases or
  // predicates. A GRF-aligned variable takes whole registers; smaller scalars share them.
  int64_t declaredRegisters(const std::string& decls) const;
  void loopStep(std::ostream& t, const std::string& p, int64_t step, const std::string& tail = {});

  // Output c's initial value (tied): accumulator vector `vals`' elements 8c' .. 8c' + 7 for output
  // first + c'.
  void setTied(size_t first, const std::vector<llvm::Value*>& vals, llvm::Type* elem);
  // The constraint string so far.
  const std::string& constraints() const { return constraints_; }
  // A loop-carried index argument the statement steps by `step` only in the steps whose counter k has
  // (k & (period * loop step - 1)) == 0 (`eq`, else != 0): a block every `period` steps from a lower
  // bound that is a multiple of period * loop step (Dg2VisaLoop.cpp's conditional block). finish()
  // advances its result by step times the number of such steps, past its unconditional step.
  void setCondStep(const ir::Value* arg, int64_t step, int64_t period, bool eq) { cond_[arg] = {step, period, eq}; }
  // Makes the call of `text` with the outputs as <8 x elem> vectors; then sets the loop's results:
  // accumulator argument a (accFirst: its first output) from the outputs, element i in output first +
  // i / 8, lane i % 8; every other (index) argument advanced by the trip count times its step.
  void finish(const std::string& text, llvm::Type* elem, const std::map<unsigned, size_t>& accFirst);
  // The loop's trip count (its index type), made once: 0 when lb >= ub, else ceil((ub - lb) / step).
  llvm::Value* trips();

 private:
  const ir::Operation& loop_;
  XeEmitContext& ctx_;
  size_t nOut_;
  const std::map<const ir::Value*, int64_t>& steps_;
  std::vector<llvm::Value*> inputs_;
  std::string constraints_;
  llvm::Value* lane_ = nullptr;
  std::map<const ir::Value*, llvm::Value*> pitches_;
  std::map<std::tuple<const ir::Value*, int64_t, int64_t>, std::string> rowSteps_;  // (memref, row, column step) -> input
  std::string ub_, walk_, span_;  // the counter's bound input, or the walked address and its span
  llvm::Value* trips_ = nullptr;
  struct CondStep {
    int64_t step, period;
    bool eq;
  };
  std::map<const ir::Value*, CondStep> cond_;
};

}  // namespace xtc::backend
