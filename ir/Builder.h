// Builder: creates ops at an insertion point with a current source location.
#pragma once

#include "ir/Operation.h"

namespace xtc::ir {

class Builder {
public:
  Builder() = default;
  explicit Builder(Block* b) { setInsertionPointToEnd(b); }

  void setInsertionPointToEnd(Block* b) { block_ = b; before_ = nullptr; }
  void setInsertionPointToStart(Block* b) { block_ = b; before_ = b->front(); }
  void setInsertionPoint(Operation* before) { block_ = before->parentBlock(); before_ = before; }
  void setInsertionPointAfter(Operation* op) {
    block_ = op->parentBlock();
    before_ = op->nextInBlock();
  }
  Block* block() const { return block_; }
  Operation* insertionPoint() const { return before_; }

  void setLoc(SourceLoc l) { loc_ = std::move(l); }
  const SourceLoc& loc() const { return loc_; }

  // Creates and inserts an op; returns it. With a null block the op is leaked into nothing: never.
  Operation* create(std::string name, const std::vector<Value*>& operands, const std::vector<Type>& resultTypes,
                    AttrMap attrs = {}, unsigned numRegions = 0);
  // Inserts an existing detached op.
  Operation* insert(std::unique_ptr<Operation> op);

  // Common constants (arith.constant with a `value` attribute).
  Value* constantIndex(int64_t v);
  Value* constantInt(int64_t v, ElemKind k);
  Value* constantFloat(double v, ElemKind k);

private:
  Block* block_ = nullptr;
  Operation* before_ = nullptr;
  SourceLoc loc_;
};

}  // namespace xtc::ir
