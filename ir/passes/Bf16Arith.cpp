// bf16 arithmetic in f32 for lower-generic and lower-xe (Bf16Arith.h).
#include "ir/passes/Bf16Arith.h"

namespace xtc::passes {

using ir::ElemKind;
using ir::Type;
using ir::Value;

std::vector<Value*> createElementwise(ir::Builder& b, const ir::Operation& op, std::vector<Value*> operands,
                                      std::vector<Type> results, const ir::AttrMap& attrs) {
  auto withElem = [](const Type& t, ElemKind k) { return t.isVector() ? Type::vector(t.shape(), k) : Type::scalar(k); };
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
      r = b.create("arith.convert", {r}, {withElem(r->type(), ElemKind::BF16)})->result();
    r->setNameHint(op.result(i)->nameHint());
    out.push_back(r);
  }
  return out;
}

}  // namespace xtc::passes
