// The IR verifier (see Verifier.h). One pre-order walk keeps the set of values visible at the
// current point: block arguments enter at their block's start, results after their op (so an op's
// own regions cannot use its results), and everything a block defined leaves when the block ends.
#include "ir/Verifier.h"

#include "ir/OpRegistry.h"

#include <unordered_set>

namespace xtc::ir {

namespace {

class VerifierImpl {
public:
  explicit VerifierImpl(DiagnosticEngine& d) : diags_(d) {}
  bool ok = true;

  void visitOp(const Operation& op) {
    if (diags_.limitReached()) return;
    const OpInfo* info = findOp(op.name());
    bool operandsOk = true;
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      const Value* v = op.operand(i);
      if (!v) {
        error(op, "internal error: operand #" + std::to_string(i) + " is null (a pass left a dangling operand)");
        operandsOk = false;
      } else if (!visible_.count(v)) {
        error(op, "operand #" + std::to_string(i) + " is not defined before this use (an operand must be defined earlier in "
                  "the same block or in an enclosing block)");
      }
    }
    if (!info) {
      error(op, "unknown op (not registered; did you misspell it?)");
    } else {
      if (info->traits.terminator && op.parentBlock() && op.nextInBlock())
        error(op, "is a terminator and must be the last op of its block");
      if (static_cast<int>(op.numRegions()) != info->traits.numRegions)
        error(op, "expects " + std::to_string(info->traits.numRegions) + " regions, got " + std::to_string(op.numRegions()));
      else if (operandsOk && info->verify) {
        std::string msg = info->verify(op);
        if (!msg.empty()) error(op, msg);
      }
    }
    for (unsigned r = 0; r < op.numRegions(); ++r)
      for (unsigned b = 0; b < op.region(r).numBlocks(); ++b) visitBlock(op.region(r).block(b));
    for (unsigned i = 0; i < op.numResults(); ++i) visible_.insert(op.result(i));
  }

private:
  DiagnosticEngine& diags_;
  std::unordered_set<const Value*> visible_;

  void error(const Operation& op, const std::string& msg) {
    ok = false;
    diags_.error(op.loc(), "'" + op.name() + "' op " + msg);
  }

  void visitBlock(const Block& b) {
    for (unsigned i = 0; i < b.numArguments(); ++i) visible_.insert(b.argument(i));
    for (const auto& op : b.opList()) visitOp(*op);
    // Values of this block are not visible after it (nor in sibling blocks or regions).
    for (unsigned i = 0; i < b.numArguments(); ++i) visible_.erase(b.argument(i));
    for (const auto& op : b.opList())
      for (unsigned i = 0; i < op->numResults(); ++i) visible_.erase(op->result(i));
  }
};

}  // namespace

bool verify(const Operation& op, DiagnosticEngine& diags) {
  VerifierImpl v(diags);
  v.visitOp(op);
  return v.ok;
}

}  // namespace xtc::ir
