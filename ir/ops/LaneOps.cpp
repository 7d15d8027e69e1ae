// Registration and verifiers of the lane-level ops (see ir/ops/LaneOps.h and docs/passes.md,
// "Lane level"). At lane level a value is a scalar, a 1-D `vector<N x T>` of per-lane registers, or
// a memref; these ops are the only ones besides arith/math/scf/gpu/memref.dim that a lane-level
// kernel may contain.
#include "ir/ops/LaneOps.h"

#include "ir/OpRegistry.h"

#include <fmt/format.h>

namespace xtc::ir {

namespace {

bool isLaneScalar(const Type& t) { return t.isScalar(); }

// A 1-D register vector (the only vector shape lane-level IR has).
bool isRegVector(const Type& t) { return t.isVector() && t.rank() == 1 && t.shape()[0] > 0; }

// lane.load %mem, %i0, ..., %i{r-1} [, %mask] {padding = value}  ->  T
std::string verifyLoad(const Operation& op) {
  if (op.numOperands() < 1 || !op.operand(0)->type().isMemRef()) return "expects a memref as operand 0";
  const Type& mem = op.operand(0)->type();
  unsigned rank = static_cast<unsigned>(mem.rank());
  if (op.numOperands() != 1 + rank && op.numOperands() != 2 + rank)
    return fmt::format("expects {} index operands and an optional i1 mask, got {} operands", rank, op.numOperands() - 1);
  for (unsigned i = 1; i <= rank; ++i)
    if (!op.operand(i)->type().isIndex()) return fmt::format("operand {} must be an index", i);
  if (op.numOperands() == 2 + rank && op.operand(1 + rank)->type() != Type::scalar(ElemKind::I1))
    return "the mask must be i1";
  if (op.numResults() != 1 || op.result()->type() != Type::scalar(mem.elem()))
    return fmt::format("result must be the memref element type {}", elemName(mem.elem()));
  if (const Attribute* p = op.attr("padding"))
    if (!p->isa(AttrKind::Int) && !p->isa(AttrKind::Float)) return "padding must be an integer or float attribute";
  return "";
}

// The operands of lane.store and lane.atomic: %value, %mem, %i0, ..., %i{r-1} [, %mask].
std::string verifyStoreOperands(const Operation& op) {
  if (op.numOperands() < 2 || !op.operand(1)->type().isMemRef()) return "expects a value and a memref";
  const Type& mem = op.operand(1)->type();
  unsigned rank = static_cast<unsigned>(mem.rank());
  if (op.numOperands() != 2 + rank && op.numOperands() != 3 + rank)
    return fmt::format("expects {} index operands and an optional i1 mask", rank);
  if (op.operand(0)->type() != Type::scalar(mem.elem()))
    return fmt::format("the stored value must be the memref element type {}", elemName(mem.elem()));
  for (unsigned i = 2; i < 2 + rank; ++i)
    if (!op.operand(i)->type().isIndex()) return fmt::format("operand {} must be an index", i);
  if (op.numOperands() == 3 + rank && op.operand(2 + rank)->type() != Type::scalar(ElemKind::I1))
    return "the mask must be i1";
  return "";
}

// lane.store %value, %mem, %i0, ..., %i{r-1} [, %mask]
std::string verifyStore(const Operation& op) {
  if (std::string e = verifyStoreOperands(op); !e.empty()) return e;
  if (op.numResults() != 0) return "has no results";
  return "";
}

// lane.atomic %value, %mem, %i0, ..., %i{r-1} [, %mask] {kind = atomic<...>} -> T (the old value)
// The kinds and their element types are tile.atomic_rmw's; an out-of-bounds or masked-off lane does
// nothing and gets 0 as its old value.
std::string verifyAtomic(const Operation& op) {
  if (std::string e = verifyStoreOperands(op); !e.empty()) return e;
  const Type& mem = op.operand(1)->type();
  if (op.numResults() != 1 || op.result()->type() != op.operand(0)->type()) return "the result must have the value's type";
  const Attribute* k = op.attr("kind");
  if (!k || !k->isa(AttrKind::Enum) || k->enumName() != "atomic") return "expects a `kind = atomic<...>` attribute";
  const std::string& kind = k->getString();
  bool fl = isFloatElem(mem.elem());
  if (kind == "addf" || kind == "maxf" || kind == "minf") {
    if (!fl) return fmt::format("atomic '{}' needs a floating-point element type", kind);
  } else if (kind == "addi" || kind == "maxs" || kind == "mins" || kind == "and" || kind == "or" || kind == "xor") {
    if (fl) return fmt::format("atomic '{}' needs an integer element type", kind);
  } else if (kind != "assign") {
    return fmt::format("unknown atomic kind '{}'", kind);
  }
  return "";
}

// lane.broadcast / lane.shuffle %x, %lane -> type(x)
std::string verifyCrossLane(const Operation& op) {
  if (op.numOperands() != 2 || op.numResults() != 1) return "expects (value, lane) and one result";
  if (!isLaneScalar(op.operand(0)->type())) return "the value must be a scalar";
  if (!op.operand(1)->type().isIndex()) return "the lane must be an index";
  if (op.result()->type() != op.operand(0)->type()) return "the result type must equal the value type";
  return "";
}

// lane.reduce %x {kind = reduce<add|mul|max|min|and|or|xor>} -> type(x)
std::string verifyReduce(const Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 1) return "expects one operand and one result";
  if (!isLaneScalar(op.operand(0)->type())) return "the value must be a scalar";
  if (op.result()->type() != op.operand(0)->type()) return "the result type must equal the value type";
  const Attribute* k = op.attr("kind");
  if (!k || !k->isa(AttrKind::Enum) || k->enumName() != "reduce") return "expects a `kind = reduce<...>` attribute";
  const std::string& kind = k->getString();
  // Bitwise kinds only on integers (as tile.reduction): nothing lowers or interprets them on floats.
  if ((kind == "and" || kind == "or" || kind == "xor") && !isIntElem(op.operand(0)->type().elem()))
    return fmt::format("reduction '{}' needs an integer element type, got {}", kind, op.operand(0)->type().str());
  static const char* kinds[] = {"add", "mul", "max", "min", "and", "or", "xor"};
  for (const char* n : kinds)
    if (kind == n) return "";
  return fmt::format("unknown reduction kind '{}'", kind);
}

// lane.fma %a, %b, %c -> a*b+c rounded once (floats, scalars or register vectors of one type)
std::string verifyFma(const Operation& op) {
  if (op.numOperands() != 3 || op.numResults() != 1) return "expects three operands and one result";
  const Type& t = op.operand(0)->type();
  if (!isFloatElem(t.elem()) || !(t.isScalar() || isRegVector(t))) return "expects float scalars or 1-D float vectors";
  if (op.operand(1)->type() != t || op.operand(2)->type() != t || op.result()->type() != t)
    return "operands and result must have one type";
  return "";
}

// vector.extract %v {index = k} -> T
std::string verifyExtract(const Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 1) return "expects one operand and one result";
  const Type& v = op.operand(0)->type();
  if (!isRegVector(v)) return "expects a 1-D vector operand";
  const Attribute* idx = op.attr("index");
  if (!idx || !idx->isa(AttrKind::Int)) return "expects an integer `index` attribute";
  if (idx->getInt() < 0 || idx->getInt() >= v.shape()[0])
    return fmt::format("index {} is out of range for {}", idx->getInt(), v.str());
  if (op.result()->type() != Type::scalar(v.elem())) return "the result must be the element type";
  return "";
}

// vector.insert %s, %v {index = k} -> type(v)
std::string verifyInsert(const Operation& op) {
  if (op.numOperands() != 2 || op.numResults() != 1) return "expects (scalar, vector) and one result";
  const Type& v = op.operand(1)->type();
  if (!isRegVector(v)) return "expects a 1-D vector as operand 1";
  if (op.operand(0)->type() != Type::scalar(v.elem())) return "the inserted value must be the element type";
  const Attribute* idx = op.attr("index");
  if (!idx || !idx->isa(AttrKind::Int)) return "expects an integer `index` attribute";
  if (idx->getInt() < 0 || idx->getInt() >= v.shape()[0])
    return fmt::format("index {} is out of range for {}", idx->getInt(), v.str());
  if (op.result()->type() != v) return "the result type must equal the vector type";
  return "";
}

// vector.from_elements %e0, ..., %e{n-1} -> vector<n x T>
std::string verifyFromElements(const Operation& op) {
  if (op.numResults() != 1) return "expects one result";
  const Type& v = op.result()->type();
  if (!isRegVector(v)) return "the result must be a 1-D vector";
  if (static_cast<int64_t>(op.numOperands()) != v.shape()[0])
    return fmt::format("expects {} elements for {}, got {}", v.shape()[0], v.str(), op.numOperands());
  for (Value* e : op.operands())
    if (e->type() != Type::scalar(v.elem())) return "every element must have the vector's element type";
  return "";
}

}  // namespace

void registerLaneOps() {
  OpTraits pure;
  pure.pure = true;
  OpTraits effects;  // memory or subgroup-convergent: never merged or removed blindly
  registerOp({"lane.load", effects, verifyLoad,
              "one element at (i, j, ...) of a memref, or `padding` when out of bounds or masked off"});
  registerOp({"lane.store", effects, verifyStore, "stores one element unless out of bounds or masked off"});
  registerOp({"lane.atomic", effects, verifyAtomic,
              "atomic read-modify-write of one element (old value; nothing and 0 when out of bounds or masked off)"});
  // Cross-lane ops are convergent: every lane of the subgroup must execute them together, so they are
  // not `pure` (a generic pass must not sink or speculate them into divergent code).
  registerOp({"lane.broadcast", effects, verifyCrossLane, "the value of x in lane `lane` (uniform lane index)"});
  registerOp({"lane.shuffle", effects, verifyCrossLane, "the value of x in lane `lane` (per-lane lane index)"});
  registerOp({"lane.reduce", effects, verifyReduce, "reduction of x over the lanes of the subgroup"});
  registerOp({"lane.fma", pure, verifyFma, "a * b + c with one rounding"});
  registerOp({"vector.extract", pure, verifyExtract, "register `index` of a lane's vector"});
  registerOp({"vector.insert", pure, verifyInsert, "the vector with register `index` replaced"});
  registerOp({"vector.from_elements", pure, verifyFromElements, "a lane's vector from its registers"});
}

}  // namespace xtc::ir
