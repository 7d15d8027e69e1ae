// Values, operations, blocks and regions: ownership, use-def bookkeeping, moving and cloning.
#include "ir/Operation.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace xtc::ir {

// ----- Value ---------------------------------------------------------------------------------

void Value::replaceAllUsesWith(Value* other) {
  replaceUsesWithIf(other, [](const Use&) { return true; });
}

void Value::replaceUsesWithIf(Value* other, const std::function<bool(const Use&)>& pred) {
  if (other == this) return;
  std::vector<Use> snapshot = uses_;
  for (const Use& u : snapshot)
    if (pred(u)) u.user->setOperand(u.index, other);
}

// ----- Operation -----------------------------------------------------------------------------

std::unique_ptr<Operation> Operation::create(std::string name, SourceLoc loc, const std::vector<Value*>& operands,
                                             const std::vector<Type>& resultTypes, AttrMap attrs,
                                             unsigned numRegions) {
  std::unique_ptr<Operation> op(new Operation(std::move(name), std::move(loc)));
  for (Value* v : operands) op->addOperand(v);
  for (const Type& t : resultTypes) op->addResult(t);
  op->attrs_ = std::move(attrs);
  for (unsigned i = 0; i < numRegions; ++i) op->addRegion();
  return op;
}

Operation::~Operation() {
  // Regions first: nested ops may use our results only through... nothing (dominance), but they
  // may use values defined above; dropping their uses keeps those values' use lists exact.
  for (auto& r : regions_) r->clear();
  for (unsigned i = 0; i < operands_.size(); ++i) dropUse(i);
}

std::string_view Operation::dialect() const {
  auto dot = name_.find('.');
  return dot == std::string::npos ? std::string_view(name_) : std::string_view(name_).substr(0, dot);
}

void Operation::addUse(unsigned i) {
  if (operands_[i]) operands_[i]->uses_.push_back(Use{this, i});
}

void Operation::dropUse(unsigned i) {
  Value* v = operands_[i];
  if (!v) return;
  auto& u = v->uses_;
  auto it = std::find(u.begin(), u.end(), Use{this, i});
  if (it != u.end()) u.erase(it);
}

void Operation::setOperand(unsigned i, Value* v) {
  dropUse(i);
  operands_[i] = v;
  addUse(i);
}

void Operation::addOperand(Value* v) {
  operands_.push_back(v);
  addUse(static_cast<unsigned>(operands_.size() - 1));
}

void Operation::insertOperand(unsigned i, Value* v) {
  std::vector<Value*> vs = operands_;
  vs.insert(vs.begin() + i, v);
  setOperands(vs);
}

void Operation::eraseOperand(unsigned i) {
  std::vector<Value*> vs = operands_;
  vs.erase(vs.begin() + i);
  setOperands(vs);
}

void Operation::setOperands(const std::vector<Value*>& vs) {
  for (unsigned i = 0; i < operands_.size(); ++i) dropUse(i);
  operands_ = vs;
  for (unsigned i = 0; i < operands_.size(); ++i) addUse(i);
}

std::vector<Value*> Operation::results() const {
  std::vector<Value*> r;
  r.reserve(results_.size());
  for (auto& v : results_) r.push_back(v.get());
  return r;
}

Value* Operation::addResult(Type t) {
  results_.push_back(std::make_unique<Value>(std::move(t), this, nullptr, static_cast<unsigned>(results_.size())));
  return results_.back().get();
}

void Operation::eraseResult(unsigned i) {
  if (results_[i]->hasUses()) throw std::logic_error("eraseResult: result " + std::to_string(i) + " of " + name_ + " still has uses");
  results_.erase(results_.begin() + i);
  for (unsigned j = i; j < results_.size(); ++j) results_[j]->index_ = j;
}

const Attribute* Operation::attr(const std::string& n) const {
  auto it = attrs_.find(n);
  return it == attrs_.end() ? nullptr : &it->second;
}

int64_t Operation::intAttr(const std::string& n, int64_t dflt) const {
  const Attribute* a = attr(n);
  return a && a->kind() == AttrKind::Int ? a->getInt() : dflt;
}

bool Operation::boolAttr(const std::string& n) const {
  const Attribute* a = attr(n);
  return a && a->kind() == AttrKind::Bool && a->getBool();
}

Region& Operation::addRegion() {
  regions_.push_back(std::make_unique<Region>(this));
  return *regions_.back();
}

Operation* Operation::parentOp() const { return block_ ? block_->parentOp() : nullptr; }

Operation* Operation::nextInBlock() const {
  if (!block_) return nullptr;
  auto it = std::next(self_);
  return it == block_->ops_.end() ? nullptr : it->get();
}

Operation* Operation::prevInBlock() const {
  if (!block_ || self_ == block_->ops_.begin()) return nullptr;
  return std::prev(self_)->get();
}

bool Operation::isAncestorOf(const Operation* other) const {
  for (const Operation* p = other; p; p = p->parentOp())
    if (p == this) return true;
  return false;
}

std::unique_ptr<Operation> Operation::remove() {
  if (!block_) throw std::logic_error("remove: op " + name_ + " is not in a block");
  std::unique_ptr<Operation> me = std::move(*self_);
  block_->ops_.erase(self_);
  block_ = nullptr;
  return me;
}

void Operation::erase() {
  for (auto& r : results_)
    if (r->hasUses()) throw std::logic_error("erase: a result of " + name_ + " still has uses");
  if (!block_) throw std::logic_error("erase: op " + name_ + " is not in a block (destroy its unique_ptr instead)");
  remove().reset();
}

void Operation::dropAllReferences() {
  for (unsigned i = 0; i < operands_.size(); ++i) {
    dropUse(i);
    operands_[i] = nullptr;
  }
  for (auto& r : regions_)
    for (auto& b : r->blocks_)
      for (auto& op : b->ops_) op->dropAllReferences();
}

void Operation::moveBefore(Operation* other) {
  Block* dest = other->block_;
  auto self = remove();
  dest->insert(other, std::move(self));
}

void Operation::moveAfter(Operation* other) {
  Block* dest = other->block_;
  Operation* next = other->nextInBlock();
  auto self = remove();
  dest->insert(next, std::move(self));
}

std::unique_ptr<Operation> Operation::clone(IRMapping& mapping) const {
  std::vector<Value*> ops;
  ops.reserve(operands_.size());
  for (Value* v : operands_) ops.push_back(mapping.lookup(v));
  std::vector<Type> types;
  for (auto& r : results_) types.push_back(r->type());
  auto c = create(name_, loc_, ops, types, attrs_, 0);
  for (unsigned i = 0; i < results_.size(); ++i) {
    c->results_[i]->setNameHint(results_[i]->nameHint());
    mapping.values[results_[i].get()] = c->results_[i].get();
  }
  // Two passes over regions: create every block (and its arguments) first so forward references
  // to blocks resolve, then clone the ops.
  for (auto& r : regions_) {
    Region& nr = c->addRegion();
    for (auto& b : r->blocks_) {
      Block& nb = nr.addBlock();
      mapping.blocks[b.get()] = &nb;
      for (auto& a : b->args_) {
        Value* na = nb.addArgument(a->type());
        na->setNameHint(a->nameHint());
        mapping.values[a.get()] = na;
      }
    }
  }
  for (unsigned ri = 0; ri < regions_.size(); ++ri)
    for (unsigned bi = 0; bi < regions_[ri]->blocks_.size(); ++bi) {
      Block& nb = c->region(ri).block(bi);
      for (auto& op : regions_[ri]->blocks_[bi]->ops_) nb.push_back(op->clone(mapping));
    }
  return c;
}

void Operation::walk(const std::function<void(Operation*)>& fn) {
  fn(this);
  for (auto& r : regions_)
    for (auto& b : r->blocks_)
      for (auto& op : b->ops_) op->walk(fn);
}

void Operation::walkPostOrder(const std::function<void(Operation*)>& fn) {
  for (auto& r : regions_)
    for (auto& b : r->blocks_)
      for (Operation* op : b->opsSnapshot()) op->walkPostOrder(fn);
  fn(this);
}

// ----- Block ---------------------------------------------------------------------------------

Block::~Block() {
  // Drop every reference first so values defined in this block can die in any order.
  for (auto& op : ops_) op->dropAllReferences();
  ops_.clear();
}

std::vector<Value*> Block::arguments() const {
  std::vector<Value*> r;
  for (auto& a : args_) r.push_back(a.get());
  return r;
}

Value* Block::addArgument(Type t) {
  args_.push_back(std::make_unique<Value>(std::move(t), nullptr, this, static_cast<unsigned>(args_.size())));
  return args_.back().get();
}

Value* Block::insertArgument(unsigned i, Type t) {
  args_.insert(args_.begin() + i, std::make_unique<Value>(std::move(t), nullptr, this, i));
  for (unsigned j = 0; j < args_.size(); ++j) args_[j]->index_ = j;
  return args_[i].get();
}

void Block::eraseArgument(unsigned i) {
  if (args_[i]->hasUses()) throw std::logic_error("eraseArgument: argument " + std::to_string(i) + " still has uses");
  args_.erase(args_.begin() + i);
  for (unsigned j = 0; j < args_.size(); ++j) args_[j]->index_ = j;
}

std::vector<Operation*> Block::opsSnapshot() const {
  std::vector<Operation*> r;
  r.reserve(ops_.size());
  for (auto& op : ops_) r.push_back(op.get());
  return r;
}

Operation* Block::insert(Operation* before, std::unique_ptr<Operation> op) {
  if (op->block_) throw std::logic_error("insert: op " + op->name_ + " is already in a block");
  Operation* raw = op.get();
  auto pos = before ? before->self_ : ops_.end();
  if (before && before->block_ != this) throw std::logic_error("insert: insertion point is in another block");
  raw->self_ = ops_.insert(pos, std::move(op));
  raw->block_ = this;
  return raw;
}

Operation* Block::parentOp() const { return region_ ? region_->parentOp() : nullptr; }

// ----- Region --------------------------------------------------------------------------------

Block& Region::addBlock() {
  blocks_.push_back(std::make_unique<Block>());
  blocks_.back()->region_ = this;
  return *blocks_.back();
}

void Region::clear() {
  for (auto& b : blocks_)
    for (auto& op : b->ops_) op->dropAllReferences();
  blocks_.clear();
}

}  // namespace xtc::ir
