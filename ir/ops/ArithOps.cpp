// arith.* (scalar/index math and element-wise ops on vectors), math.* and vector.splat.
#include "ir/ops/OpHelpers.h"

namespace xtc::ir::ops {

namespace {

enum class Elem { Int, Float };

bool elemOk(const Type& t, Elem e) { return e == Elem::Int ? isIntOrIndex(t) : isFloat(t); }
const char* elemWord(Elem e) { return e == Elem::Int ? "integer or index" : "floating-point"; }

// n operands and one result, all of the same type, scalars or vectors of the given element class.
OpVerifier elementwise(unsigned n, Elem e) {
  return [n, e](const Operation& op) -> std::string {
    XTC_CHECK(numOperands(op, n));
    XTC_CHECK(numResults(op, 1));
    const Type& rt = op.result()->type();
    XTC_REQUIRE(elemOk(rt, e), std::string("operands must be ") + elemWord(e) + " scalars or vectors, got " + q(rt));
    for (unsigned i = 0; i < n; ++i)
      XTC_REQUIRE(op.operand(i)->type() == rt, "operand #" + std::to_string(i) + " has type " + q(op.operand(i)->type()) +
                                                   " but the result has type " + q(rt) + " (all must be equal)");
    return {};
  };
}

std::string verifyConstant(const Operation& op) {
  XTC_CHECK(numOperands(op, 0));
  XTC_CHECK(numResults(op, 1));
  const Type& rt = op.result()->type();
  const Attribute* v = op.attr("value");
  XTC_REQUIRE(v, "requires attribute 'value'");
  if (rt.isScalar()) {
    if (isIntElem(rt.elem())) {
      XTC_REQUIRE(v->kind() == AttrKind::Int || (rt.elem() == ElemKind::I1 && v->kind() == AttrKind::Bool),
                  "'value' of an integer constant must be an integer, got '" + v->str() + "'");
      if (v->kind() == AttrKind::Int) {
        XTC_REQUIRE(v->numberType() == rt.elem(), "'value' has type '" + std::string(elemName(v->numberType())) +
                                                      "' but the result has type " + q(rt));
        if (rt.elem() == ElemKind::I1) XTC_REQUIRE(v->getInt() == 0 || v->getInt() == 1, "an i1 constant must be 0 or 1");
      }
    } else {
      XTC_REQUIRE(v->kind() == AttrKind::Float, "'value' of a floating-point constant must be a float, got '" + v->str() + "'");
      XTC_REQUIRE(v->numberType() == rt.elem(), "'value' has type '" + std::string(elemName(v->numberType())) +
                                                    "' but the result has type " + q(rt));
    }
    return {};
  }
  XTC_REQUIRE(rt.isVector(), "result must be a scalar or a vector, got " + q(rt));
  XTC_REQUIRE(v->kind() == AttrKind::Dense, "'value' of a vector constant must be 'dense<...>', got '" + v->str() + "'");
  XTC_REQUIRE(sameShapeAndElem(v->getType(), rt), "'value' has type " + q(v->getType()) + " but the result has type " + q(rt));
  XTC_REQUIRE(v->denseIsFloat() == isFloatElem(rt.elem()), "'value' element kind (integer/float) does not match " + q(rt));
  size_t n = v->denseIsFloat() ? v->denseFloats().size() : v->denseInts().size();
  XTC_REQUIRE(n == 1 || static_cast<int64_t>(n) == rt.numElements(),
              "'value' has " + std::to_string(n) + " elements but " + q(rt) + " has " + std::to_string(rt.numElements()));
  return {};
}

OpVerifier compare(Elem e, const char* enumName) {
  return [e, enumName](const Operation& op) -> std::string {
    XTC_CHECK(numOperands(op, 2));
    XTC_CHECK(numResults(op, 1));
    const Type& a = op.operand(0)->type();
    XTC_REQUIRE(elemOk(a, e), std::string("operands must be ") + elemWord(e) + " scalars or vectors, got " + q(a));
    XTC_REQUIRE(op.operand(1)->type() == a, "operands must have the same type, got " + q(a) + " and " + q(op.operand(1)->type()));
    std::string pred;
    XTC_CHECK(enumAttr(op, "predicate", enumName, true, &pred));
    const Type& r = op.result()->type();
    XTC_REQUIRE(isI1(r) && sameShape(r, a), "result must be 'i1' with the operands' shape, got " + q(r));
    return {};
  };
}

std::string verifySelect(const Operation& op) {
  XTC_CHECK(numOperands(op, 3));
  XTC_CHECK(numResults(op, 1));
  const Type& c = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(isScalarOrVector(r), "result must be a scalar or a vector, got " + q(r));
  XTC_REQUIRE(op.operand(1)->type() == r && op.operand(2)->type() == r,
              "both choices must have the result type " + q(r) + ", got " + q(op.operand(1)->type()) + " and " +
                  q(op.operand(2)->type()));
  XTC_REQUIRE(c == Type::scalar(ElemKind::I1) || (isI1(c) && c.isVector() && sameShape(c, r)),
              "condition must be 'i1' or a vector of 'i1' with the result's shape, got " + q(c));
  return {};
}

std::string verifyConvert(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  const Type& a = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(isScalarOrVector(a) && isScalarOrVector(r), "converts scalars or vectors, got " + q(a) + " to " + q(r));
  XTC_REQUIRE(sameShape(a, r), "operand " + q(a) + " and result " + q(r) + " must have the same shape");
  return {};
}

std::string verifyBitcast(const Operation& op) {
  XTC_CHECK(verifyConvert(op));
  const Type& a = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(elemBits(a.elem()) == elemBits(r.elem()), "element types must have the same bit width, got " + q(a) + " and " + q(r));
  return {};
}

std::string verifySplat(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  const Type& s = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(s.isScalar(), "operand must be a scalar, got " + q(s));
  XTC_REQUIRE(r.isVector() && r.hasStaticShape(), "result must be a vector of static shape, got " + q(r));
  XTC_REQUIRE(r.elem() == s.elem(), "result element type must be the operand type " + q(s) + ", got " + q(r));
  return {};
}

}  // namespace

void registerArithOps() {
  def("arith.constant", pure(), verifyConstant, "a constant scalar or vector");
  for (const char* n : {"addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori", "xori", "shli", "shrsi",
                        "shrui", "minsi", "maxsi", "minui", "maxui", "ceildivsi", "floordivsi"})
    def(std::string("arith.") + n, pure(), elementwise(2, Elem::Int), "integer/index binary op");
  for (const char* n : {"addf", "subf", "mulf", "divf", "maxf", "minf"})
    def(std::string("arith.") + n, pure(), elementwise(2, Elem::Float), "floating-point binary op");
  def("arith.negf", pure(), elementwise(1, Elem::Float), "floating-point negation");
  def("arith.cmpi", pure(), compare(Elem::Int, "cmpi"), "integer comparison");
  def("arith.cmpf", pure(), compare(Elem::Float, "cmpf"), "floating-point comparison");
  def("arith.select", pure(), verifySelect, "choose between two values");
  def("arith.convert", pure(), verifyConvert, "value conversion between element types");
  def("arith.bitcast", pure(), verifyBitcast, "reinterpret bits between element types of one width");
  for (const char* n : {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "abs", "sin", "cos", "floor", "ceil"})
    def(std::string("math.") + n, pure(), elementwise(1, Elem::Float), "floating-point math function");
  def("vector.splat", pure(), verifySplat, "a vector with every element equal to a scalar");
}

}  // namespace xtc::ir::ops
