// The structure of the tile IR: values, operations, blocks and regions, with use-def chains.
// A module is an op `builtin.module` whose single block holds `xtc.kernel` ops (see ir/Module.h).
// Ops own their results and regions; blocks own their arguments and ops; regions own blocks.
// Every op carries a SourceLoc so late errors still point at the user's `.xt` line.
#pragma once

#include "ir/Attribute.h"
#include "ir/Type.h"
#include "ir/support/Diagnostics.h"

#include <functional>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace xtc::ir {

class Operation;
class Block;
class Region;

// One use of a value: operand `index` of `user`.
struct Use {
  Operation* user;
  unsigned index;
  bool operator==(const Use& o) const { return user == o.user && index == o.index; }
};

// An SSA value: an op result or a block argument.
class Value {
public:
  const Type& type() const { return type_; }
  void setType(Type t) { type_ = std::move(t); }

  // The op defining this value, or null for a block argument.
  Operation* definingOp() const { return defOp_; }
  // The block owning this argument, or null for an op result.
  Block* ownerBlock() const { return ownerBlock_; }
  bool isBlockArgument() const { return ownerBlock_ != nullptr; }
  // Result number or argument number.
  unsigned index() const { return index_; }

  const std::vector<Use>& uses() const { return uses_; }
  bool hasUses() const { return !uses_.empty(); }
  // Replaces every use of this value by `other` (other != this).
  void replaceAllUsesWith(Value* other);
  // Like replaceAllUsesWith, only for uses for which `pred(use)` holds.
  void replaceUsesWithIf(Value* other, const std::function<bool(const Use&)>& pred);

  // A readable name hint (from the source variable); the printer uniquifies it. Empty = numbered.
  const std::string& nameHint() const { return nameHint_; }
  void setNameHint(std::string s) { nameHint_ = std::move(s); }

  Value(Type t, Operation* def, Block* owner, unsigned index)
      : type_(std::move(t)), defOp_(def), ownerBlock_(owner), index_(index) {}
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

private:
  friend class Operation;
  friend class Block;
  Type type_;
  Operation* defOp_;
  Block* ownerBlock_;
  unsigned index_;
  std::vector<Use> uses_;
  std::string nameHint_;
};

// Value -> value and block -> block mapping used when cloning.
struct IRMapping {
  std::unordered_map<const Value*, Value*> values;
  std::unordered_map<const Block*, Block*> blocks;
  Value* lookup(Value* v) const {
    auto it = values.find(v);
    return it == values.end() ? v : it->second;
  }
};

class Operation {
public:
  // Creates a detached op. `name` is "dialect.op", e.g. "tile.load_tile".
  static std::unique_ptr<Operation> create(std::string name, SourceLoc loc, const std::vector<Value*>& operands,
                                           const std::vector<Type>& resultTypes, AttrMap attrs = {},
                                           unsigned numRegions = 0);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  const std::string& name() const { return name_; }
  std::string_view dialect() const;  // the part before the first '.'
  bool is(std::string_view n) const { return name_ == n; }

  const SourceLoc& loc() const { return loc_; }
  void setLoc(SourceLoc l) { loc_ = std::move(l); }

  // Operands.
  unsigned numOperands() const { return static_cast<unsigned>(operands_.size()); }
  Value* operand(unsigned i) const { return operands_[i]; }
  const std::vector<Value*>& operands() const { return operands_; }
  void setOperand(unsigned i, Value* v);
  void addOperand(Value* v);
  void insertOperand(unsigned i, Value* v);
  void eraseOperand(unsigned i);
  void setOperands(const std::vector<Value*>& vs);

  // Results.
  unsigned numResults() const { return static_cast<unsigned>(results_.size()); }
  Value* result(unsigned i = 0) const { return results_[i].get(); }
  std::vector<Value*> results() const;
  // Appends a result (used by passes that widen loops); returns it.
  Value* addResult(Type t);
  // Erases result i; it must have no uses.
  void eraseResult(unsigned i);

  // Attributes.
  const AttrMap& attrs() const { return attrs_; }
  const Attribute* attr(const std::string& n) const;
  bool hasAttr(const std::string& n) const { return attrs_.count(n) != 0; }
  void setAttr(const std::string& n, Attribute a) { attrs_[n] = std::move(a); }
  void removeAttr(const std::string& n) { attrs_.erase(n); }
  int64_t intAttr(const std::string& n, int64_t dflt) const;
  // True only for a Bool attribute n that is true: flags such as `per_lane`, `vnni`, `transpose`
  // are absent, false, or true.
  bool boolAttr(const std::string& n) const;

  // Regions.
  unsigned numRegions() const { return static_cast<unsigned>(regions_.size()); }
  Region& region(unsigned i) const { return *regions_[i]; }
  Region& addRegion();

  // Position.
  Block* parentBlock() const { return block_; }
  Operation* parentOp() const;            // the op owning the region owning this op's block
  Operation* nextInBlock() const;         // null at the end
  Operation* prevInBlock() const;         // null at the start
  bool isAncestorOf(const Operation* other) const;  // other is nested (at any depth) in this op

  // Unlinks this op from its block and returns ownership.
  std::unique_ptr<Operation> remove();
  // Unlinks and destroys this op. Its results must have no uses (use dropAllUses first).
  void erase();
  // Drops the uses this op makes (and those of ops nested in it), so it can be erased.
  void dropAllReferences();
  void moveBefore(Operation* other);
  void moveAfter(Operation* other);

  // Deep copy, regions included; operands defined outside are looked up in (and results and block
  // arguments recorded into) `mapping`.
  std::unique_ptr<Operation> clone(IRMapping& mapping) const;

  // Pre-order walk over this op and every op nested in it. The callback may not erase ops.
  void walk(const std::function<void(Operation*)>& fn);
  // Post-order walk; the callback may erase the op it is given.
  void walkPostOrder(const std::function<void(Operation*)>& fn);

private:
  friend class Block;
  Operation(std::string name, SourceLoc loc) : name_(std::move(name)), loc_(std::move(loc)) {}
  void addUse(unsigned i);
  void dropUse(unsigned i);

  std::string name_;
  SourceLoc loc_;
  std::vector<Value*> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  AttrMap attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block* block_ = nullptr;
  std::list<std::unique_ptr<Operation>>::iterator self_;
};

class Block {
public:
  using OpList = std::list<std::unique_ptr<Operation>>;
  Block() = default;
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  // Arguments.
  unsigned numArguments() const { return static_cast<unsigned>(args_.size()); }
  Value* argument(unsigned i) const { return args_[i].get(); }
  std::vector<Value*> arguments() const;
  Value* addArgument(Type t);
  Value* insertArgument(unsigned i, Type t);
  void eraseArgument(unsigned i);  // must have no uses

  // Ops. Iteration yields Operation& in order; it stays valid across inserting other ops.
  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }
  Operation* front() const { return ops_.empty() ? nullptr : ops_.front().get(); }
  Operation* back() const { return ops_.empty() ? nullptr : ops_.back().get(); }
  // The ops as a vector snapshot (safe to mutate the block while iterating it).
  std::vector<Operation*> opsSnapshot() const;
  OpList& opList() { return ops_; }
  const OpList& opList() const { return ops_; }

  // Inserts `op` before `before` (null = at the end); returns the raw pointer.
  Operation* insert(Operation* before, std::unique_ptr<Operation> op);
  Operation* push_back(std::unique_ptr<Operation> op) { return insert(nullptr, std::move(op)); }
  Operation* push_front(std::unique_ptr<Operation> op) { return insert(front(), std::move(op)); }

  Region* parentRegion() const { return region_; }
  Operation* parentOp() const;
  Operation* terminator() const { return back(); }

private:
  friend class Region;
  friend class Operation;
  std::vector<std::unique_ptr<Value>> args_;
  OpList ops_;
  Region* region_ = nullptr;
};

class Region {
public:
  explicit Region(Operation* parent) : parent_(parent) {}
  Operation* parentOp() const { return parent_; }
  unsigned numBlocks() const { return static_cast<unsigned>(blocks_.size()); }
  Block& block(unsigned i = 0) const { return *blocks_[i]; }
  bool empty() const { return blocks_.empty(); }
  Block& addBlock();
  // Destroys every block (dropping their references first).
  void clear();

private:
  friend class Operation;
  Operation* parent_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace xtc::ir
