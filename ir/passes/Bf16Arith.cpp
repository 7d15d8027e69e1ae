// bf16 arithmetic in f32 for lower-generic and lower-xe (Bf16Arith.h).
#include "ir/passes/Bf16Arith.h"

namespace xtc::passes {

using ir::ElemKind;
using ir::Type;
using ir::Value;

namespace {

Type withElem(const Type& t, ElemKind k) { return t.isVector() ? Type::vector(t.shape(), k) : Type::scalar(k); }

// Ops whose f32 result on widened bf16 operands is itself a bf16 value or a NaN: max and min return
// an operand, neg and abs change the sign, floor and ceil of a bf16 value are integers of at most 8
// bits (or the value itself). Narrowing such a result only drops 16 zero bits (the upper half of a
// NaN keeps it a NaN), so it is a shift: 1 instruction instead of the rounding's 7 on pvc.
bool exactOnBf16(const ir::Operation& op) {
  return op.is("arith.maxf") || op.is("arith.minf") || op.is("arith.negf") || op.is("math.abs") || op.is("math.floor") ||
         op.is("math.ceil");
}

// The upper 16 bits of an f32 value (scalar or vector) as bf16.
Value* upperHalf(ir::Builder& b, Value* f) {
  const Type& t = f->type();
  Type i32 = withElem(t, ElemKind::I32);
  Value* bits = b.create("arith.bitcast", {f}, {i32})->result();
  ir::Attribute sixteen = t.isVector() ? ir::Attribute::denseInt(i32, {16}) : ir::Attribute::integer(16, ElemKind::I32);
  Value* c = b.create("arith.constant", {}, {i32}, {{"value", sixteen}})->result();
  Value* hi = b.create("arith.shrui", {bits, c}, {i32})->result();
  Value* h = b.create("arith.convert", {hi}, {withElem(t, ElemKind::I16)})->result();
  return b.create("arith.bitcast", {h}, {withElem(t, ElemKind::BF16)})->result();
}

}  // namespace

std::vector<Value*> createElementwise(ir::Builder& b, const ir::Operation& op, std::vector<Value*> operands,
                                      std::vector<Type> results, const ir::AttrMap& attrs) {
  bool arithmetic = op.dialect() == "math" || (op.dialect() == "arith" && !op.is("arith.constant") &&
                                               !op.is("arith.convert") && !op.is("arith.bitcast") && !op.is("arith.select"));
  bool viaF32 = false;
  if (arithmetic)
    for (Value* v : operands) viaF32 = viaF32 || v->type().elem() == ElemKind::BF16;
  if (viaF32) {
    for (Value*& v : operands)
      if (v->type().elem() == ElemKind::BF16) v = b.create("arith.convert", {v}, {withElem(v->type(), ElemKind::F32)})->result();
    for (Type& t : results)
      if (t.elem() == ElemKind::BF16) t = withElem(t, ElemKind::F32);
  }
  ir::Operation* n = b.create(op.name(), operands, results, attrs);
  std::vector<Value*> out;
  for (unsigned i = 0; i < op.numResults(); ++i) {
    Value* r = n->result(i);
    if (viaF32 && op.result(i)->type().elem() == ElemKind::BF16)
      r = exactOnBf16(op) ? upperHalf(b, r) : b.create("arith.convert", {r}, {withElem(r->type(), ElemKind::BF16)})->result();
    r->setNameHint(op.result(i)->nameHint());
    out.push_back(r);
  }
  return out;
}

}  // namespace xtc::passes
