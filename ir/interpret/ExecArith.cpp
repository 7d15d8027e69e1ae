// Scalar and element-wise ops: arith.*, math.*, vector.splat. Integers are computed on int64 and
// wrapped to their width; floats are computed on double and rounded once to their element type.
#include "ir/interpret/Exec.h"

#include "ir/interpret/Numeric.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>

namespace xtc::interp {

using ir::ElemKind;

namespace {

const ir::Type& resultType(const ir::Operation& op) {
  if (op.numResults() != 1) fail(op, "internal error: interpreter: '" + op.name() + "' must have one result");
  return op.result()->type();
}

void sameShape(const ir::Operation& op, const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape) fail(op, "internal error: interpreter: operands have different shapes " + ir::shapeStr(a.shape) + " and " + ir::shapeStr(b.shape));
}

unsigned intWidth(ElemKind k) { return k == ElemKind::Index ? 64 : ir::elemBits(k); }

// ----- arith.constant ---------------------------------------------------------------------------

// The checks marked 'internal error' repeat what the op verifiers (ir/ops/ArithOps.cpp) guarantee:
// xtc run verifies the module before the interpreter runs it.
void execConstant(Executor& ex, const ir::Operation& op) {
  const ir::Type& rt = resultType(op);
  const ir::Attribute* v = op.attr("value");
  if (!v) fail(op, "internal error: interpreter: arith.constant without a 'value' attribute");
  std::vector<int64_t> shape = rt.isScalar() ? std::vector<int64_t>{} : rt.shape();
  if (ex.lanes() > 0) shape.insert(shape.begin(), ex.lanes());  // the same constant in every lane
  Tensor t(rt.elem(), shape);
  int64_t n = t.size();
  int64_t perLane = ex.lanes() > 0 ? n / ex.lanes() : n;
  auto put = [&](int64_t k, bool isF, double fv, int64_t iv) {
    if (t.isFloat()) t.f[k] = isF ? roundToElem(fv, t.elem) : roundIntToElem(iv, t.elem);
    else t.i[k] = wrapToElem(isF ? floatToIntSat(fv, t.elem) : iv, t.elem);
  };
  switch (v->kind()) {
    case ir::AttrKind::Int: for (int64_t k = 0; k < n; ++k) put(k, false, 0, v->getInt()); break;
    case ir::AttrKind::Bool: for (int64_t k = 0; k < n; ++k) put(k, false, 0, v->getBool() ? 1 : 0); break;
    case ir::AttrKind::Float: for (int64_t k = 0; k < n; ++k) put(k, true, v->getFloat(), 0); break;
    case ir::AttrKind::Dense: {
      bool isF = v->denseIsFloat();
      size_t count = isF ? v->denseFloats().size() : v->denseInts().size();
      if (count != 1 && static_cast<int64_t>(count) != perLane)
        fail(op, "dense constant has " + std::to_string(count) + " values for " + std::to_string(perLane) + " elements");
      for (int64_t k = 0; k < n; ++k) {
        size_t s = count == 1 ? 0 : static_cast<size_t>(k % perLane);
        put(k, isF, isF ? v->denseFloats()[s] : 0.0, isF ? 0 : v->denseInts()[s]);
      }
      break;
    }
    default: fail(op, "internal error: interpreter: arith.constant: unsupported 'value' attribute " + v->str());
  }
  ex.setTensor(op.result(), std::move(t));
}

// ----- integer binary ops -------------------------------------------------------------------------

enum class IntOp { Add, Sub, Mul, DivS, DivU, RemS, RemU, And, Or, Xor, Shl, ShrS, ShrU, MinS, MaxS, MinU, MaxU, CeilDivS, FloorDivS };

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t intBinary(const ir::Operation& op, IntOp k, int64_t a, int64_t b, ElemKind e) {
  uint64_t ua = unsignedOf(a, e), ub = unsignedOf(b, e);
  unsigned w = intWidth(e);
  auto needNonZero = [&] { if (b == 0) fail(op, "integer division by zero in '" + op.name() + "'"); };
  // a / -1 with a = INT64_MIN overflows in C++; the wrapped result is -a, i.e. a itself.
  auto sdiv = [&](int64_t x, int64_t y) { return y == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x / y; };
  switch (k) {
    case IntOp::Add: return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    case IntOp::Sub: return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    case IntOp::Mul: return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    case IntOp::DivS: needNonZero(); return sdiv(a, b);
    case IntOp::DivU: needNonZero(); return static_cast<int64_t>(ua / ub);
    case IntOp::RemS: needNonZero(); return b == -1 ? 0 : a % b;
    case IntOp::RemU: needNonZero(); return static_cast<int64_t>(ua % ub);
    case IntOp::And: return a & b;
    case IntOp::Or: return a | b;
    case IntOp::Xor: return a ^ b;
    case IntOp::Shl: case IntOp::ShrS: case IntOp::ShrU:
      if (ub >= w) fail(op, "shift amount " + std::to_string(ub) + " is not smaller than the bit width " + std::to_string(w));
      if (k == IntOp::Shl) return static_cast<int64_t>(ua << ub);
      if (k == IntOp::ShrU) return static_cast<int64_t>(ua >> ub);
      return a >> ub;  // a is sign-extended already
    case IntOp::MinS: return std::min(a, b);
    case IntOp::MaxS: return std::max(a, b);
    case IntOp::MinU: return static_cast<int64_t>(std::min(ua, ub));
    case IntOp::MaxU: return static_cast<int64_t>(std::max(ua, ub));
    case IntOp::CeilDivS: {
      needNonZero();
      if (b == -1) return sdiv(a, b);
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
      return q;
    }
    case IntOp::FloorDivS: needNonZero(); return b == -1 ? sdiv(a, b) : floorDiv(a, b);
  }
  return 0;
}

template <IntOp K>
void execIntBinary(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  const Tensor& b = ex.tensor(op, 1);
  sameShape(op, a, b);
  if (a.isFloat() || b.isFloat()) fail(op, "internal error: interpreter: '" + op.name() + "' needs integer operands");
  Tensor r(a.elem, a.shape);
  // Inactive lanes (lane-divergent control flow) compute nothing: no division-by-zero reports.
  for (int64_t k = 0; k < r.size(); ++k)
    if (ex.elemActive(a, k)) r.i[k] = wrapToElem(intBinary(op, K, a.i[k], b.i[k], a.elem), a.elem);
  ex.setTensor(op.result(), std::move(r));
}

// ----- float ops --------------------------------------------------------------------------------

enum class FOp { Add, Sub, Mul, Div, Max, Min };

template <FOp K>
void execFloatBinary(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  const Tensor& b = ex.tensor(op, 1);
  sameShape(op, a, b);
  if (!a.isFloat() || !b.isFloat()) fail(op, "internal error: interpreter: '" + op.name() + "' needs float operands");
  Tensor r(a.elem, a.shape);
  for (int64_t k = 0; k < r.size(); ++k) {
    double x = a.f[k], y = b.f[k], z = 0;
    switch (K) {
      case FOp::Add: z = x + y; break;
      case FOp::Sub: z = x - y; break;
      case FOp::Mul: z = x * y; break;
      case FOp::Div: z = x / y; break;
      case FOp::Max: z = std::fmax(x, y); break;  // IEEE maxNum: a NaN operand loses
      case FOp::Min: z = std::fmin(x, y); break;
    }
    r.f[k] = roundToElem(z, a.elem);
  }
  ex.setTensor(op.result(), std::move(r));
}

void execNegF(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  if (!a.isFloat()) fail(op, "internal error: interpreter: arith.negf needs a float operand");
  Tensor r = a;
  for (double& v : r.f) v = -v;
  ex.setTensor(op.result(), std::move(r));
}

// ----- comparisons and select -------------------------------------------------------------------

std::string predicate(const ir::Operation& op) {
  const ir::Attribute* p = op.attr("predicate");
  if (!p || (p->kind() != ir::AttrKind::Enum && p->kind() != ir::AttrKind::String)) fail(op, "internal error: interpreter: '" + op.name() + "' needs a 'predicate'");
  return p->getString();
}

void execCmpI(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  const Tensor& b = ex.tensor(op, 1);
  sameShape(op, a, b);
  if (a.isFloat()) fail(op, "internal error: interpreter: arith.cmpi needs integer operands");
  std::string p = predicate(op);
  Tensor r(ElemKind::I1, a.shape);
  for (int64_t k = 0; k < r.size(); ++k) {
    int64_t x = a.i[k], y = b.i[k];
    uint64_t ux = unsignedOf(x, a.elem), uy = unsignedOf(y, a.elem);
    bool v;
    if (p == "eq") v = x == y;
    else if (p == "ne") v = x != y;
    else if (p == "slt") v = x < y;
    else if (p == "sle") v = x <= y;
    else if (p == "sgt") v = x > y;
    else if (p == "sge") v = x >= y;
    else if (p == "ult") v = ux < uy;
    else if (p == "ule") v = ux <= uy;
    else if (p == "ugt") v = ux > uy;
    else if (p == "uge") v = ux >= uy;
    else fail(op, "internal error: interpreter: unknown cmpi predicate '" + p + "'");
    r.i[k] = v;
  }
  ex.setTensor(op.result(), std::move(r));
}

void execCmpF(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  const Tensor& b = ex.tensor(op, 1);
  sameShape(op, a, b);
  if (!a.isFloat()) fail(op, "internal error: interpreter: arith.cmpf needs float operands");
  std::string p = predicate(op);
  Tensor r(ElemKind::I1, a.shape);
  for (int64_t k = 0; k < r.size(); ++k) {
    double x = a.f[k], y = b.f[k];
    bool ord = !std::isnan(x) && !std::isnan(y);
    bool v;
    if (p == "oeq") v = ord && x == y;
    else if (p == "one") v = ord && x != y;
    else if (p == "olt") v = ord && x < y;
    else if (p == "ole") v = ord && x <= y;
    else if (p == "ogt") v = ord && x > y;
    else if (p == "oge") v = ord && x >= y;
    else if (p == "une") v = !ord || x != y;
    else if (p == "ord") v = ord;
    else if (p == "uno") v = !ord;
    else fail(op, "internal error: interpreter: unknown cmpf predicate '" + p + "'");
    r.i[k] = v;
  }
  ex.setTensor(op.result(), std::move(r));
}

void execSelect(Executor& ex, const ir::Operation& op) {
  const Tensor& c = ex.tensor(op, 0);
  const Tensor& a = ex.tensor(op, 1);
  const Tensor& b = ex.tensor(op, 2);
  sameShape(op, a, b);
  if (c.isFloat()) fail(op, "internal error: interpreter: arith.select condition must be i1");
  // A condition of a prefix shape (a scalar, or one per lane at lane level) selects whole rows.
  if (c.shape.size() > a.shape.size() || !std::equal(c.shape.begin(), c.shape.end(), a.shape.begin()))
    fail(op, "internal error: interpreter: arith.select: the condition's shape " + ir::shapeStr(c.shape) + " does not fit " + ir::shapeStr(a.shape));
  int64_t inner = a.size() / std::max<int64_t>(c.size(), 1);
  Tensor r(a.elem, a.shape);
  for (int64_t k = 0; k < r.size(); ++k) {
    bool take = c.i[k / inner] != 0;
    if (r.isFloat()) r.f[k] = take ? a.f[k] : b.f[k];
    else r.i[k] = take ? a.i[k] : b.i[k];
  }
  ex.setTensor(op.result(), std::move(r));
}

// ----- conversions ------------------------------------------------------------------------------

void execConvert(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  ElemKind to = resultType(op).elem();
  Tensor r(to, a.shape);
  for (int64_t k = 0; k < r.size(); ++k) {
    if (a.isFloat()) {
      if (r.isFloat()) r.f[k] = roundToElem(a.f[k], to);
      else r.i[k] = wrapToElem(floatToIntSat(a.f[k], to), to);
    } else {
      // Integers widen signed, except i1, which is unsigned as in MLIR (extui / uitofp: true is 1
      // and 1.0, held here as 1 already); to i1 is "not zero", like float -> i1 (docs/ir.md).
      int64_t v = a.i[k];
      if (r.isFloat()) r.f[k] = roundIntToElem(v, to);
      else r.i[k] = to == ElemKind::I1 ? (v != 0 ? 1 : 0) : wrapToElem(v, to);
    }
  }
  ex.setTensor(op.result(), std::move(r));
}

void execBitcast(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  ElemKind to = resultType(op).elem();
  if (elemBytes(a.elem) != elemBytes(to) || (a.elem == ElemKind::I1) != (to == ElemKind::I1))
    fail(op, "internal error: interpreter: arith.bitcast between types of different bit widths");
  Tensor r(to, a.shape);
  uint8_t bytes[8];
  for (int64_t k = 0; k < r.size(); ++k) {
    if (a.isFloat()) storeFloat(a.elem, bytes, a.f[k]);
    else storeInt(a.elem, bytes, a.i[k]);
    if (r.isFloat()) r.f[k] = loadFloat(to, bytes);
    else r.i[k] = loadInt(to, bytes);
  }
  ex.setTensor(op.result(), std::move(r));
}

// ----- math -------------------------------------------------------------------------------------

enum class MOp { Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Tanh, Abs, Sin, Cos, Floor, Ceil };

template <MOp K>
void execMath(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  Tensor r(a.elem, a.shape);
  if (!a.isFloat()) {
    if (K != MOp::Abs) fail(op, "internal error: interpreter: '" + op.name() + "' needs a float operand");
    for (int64_t k = 0; k < r.size(); ++k) r.i[k] = wrapToElem(a.i[k] < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a.i[k])) : a.i[k], a.elem);
    ex.setTensor(op.result(), std::move(r));
    return;
  }
  for (int64_t k = 0; k < r.size(); ++k) {
    double x = a.f[k], z = 0;
    switch (K) {
      case MOp::Exp: z = std::exp(x); break;
      case MOp::Exp2: z = std::exp2(x); break;
      case MOp::Log: z = std::log(x); break;
      case MOp::Log2: z = std::log2(x); break;
      case MOp::Sqrt: z = std::sqrt(x); break;
      case MOp::Rsqrt: z = 1.0 / std::sqrt(x); break;
      case MOp::Tanh: z = std::tanh(x); break;
      case MOp::Abs: z = std::fabs(x); break;
      case MOp::Sin: z = std::sin(x); break;
      case MOp::Cos: z = std::cos(x); break;
      case MOp::Floor: z = std::floor(x); break;
      case MOp::Ceil: z = std::ceil(x); break;
    }
    r.f[k] = roundToElem(z, a.elem);
  }
  ex.setTensor(op.result(), std::move(r));
}

void execSplat(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  int64_t lanes = ex.lanes() > 0 ? ex.lanes() : 1;
  if (a.size() != lanes) fail(op, "internal error: interpreter: vector.splat needs a scalar operand");
  const ir::Type& rt = resultType(op);
  std::vector<int64_t> shape = rt.shape();
  if (ex.lanes() > 0) shape.insert(shape.begin(), ex.lanes());
  Tensor r(rt.elem(), shape);
  if (r.elem != a.elem) fail(op, "internal error: interpreter: vector.splat: element type mismatch");
  int64_t per = r.size() / lanes;
  for (int64_t k = 0; k < r.size(); ++k) {
    if (r.isFloat()) r.f[k] = a.f[k / per];
    else r.i[k] = a.i[k / per];
  }
  ex.setTensor(op.result(), std::move(r));
}

}  // namespace

void registerArithHandlers() {
  auto& t = handlerTable();
  t["arith.constant"] = execConstant;
  t["arith.addi"] = execIntBinary<IntOp::Add>;
  t["arith.subi"] = execIntBinary<IntOp::Sub>;
  t["arith.muli"] = execIntBinary<IntOp::Mul>;
  t["arith.divsi"] = execIntBinary<IntOp::DivS>;
  t["arith.divui"] = execIntBinary<IntOp::DivU>;
  t["arith.remsi"] = execIntBinary<IntOp::RemS>;
  t["arith.remui"] = execIntBinary<IntOp::RemU>;
  t["arith.andi"] = execIntBinary<IntOp::And>;
  t["arith.ori"] = execIntBinary<IntOp::Or>;
  t["arith.xori"] = execIntBinary<IntOp::Xor>;
  t["arith.shli"] = execIntBinary<IntOp::Shl>;
  t["arith.shrsi"] = execIntBinary<IntOp::ShrS>;
  t["arith.shrui"] = execIntBinary<IntOp::ShrU>;
  t["arith.minsi"] = execIntBinary<IntOp::MinS>;
  t["arith.maxsi"] = execIntBinary<IntOp::MaxS>;
  t["arith.minui"] = execIntBinary<IntOp::MinU>;
  t["arith.maxui"] = execIntBinary<IntOp::MaxU>;
  t["arith.ceildivsi"] = execIntBinary<IntOp::CeilDivS>;
  t["arith.floordivsi"] = execIntBinary<IntOp::FloorDivS>;
  t["arith.addf"] = execFloatBinary<FOp::Add>;
  t["arith.subf"] = execFloatBinary<FOp::Sub>;
  t["arith.mulf"] = execFloatBinary<FOp::Mul>;
  t["arith.divf"] = execFloatBinary<FOp::Div>;
  t["arith.maxf"] = execFloatBinary<FOp::Max>;
  t["arith.minf"] = execFloatBinary<FOp::Min>;
  t["arith.negf"] = execNegF;
  t["arith.cmpi"] = execCmpI;
  t["arith.cmpf"] = execCmpF;
  t["arith.select"] = execSelect;
  t["arith.convert"] = execConvert;
  t["arith.bitcast"] = execBitcast;
  t["math.exp"] = execMath<MOp::Exp>;
  t["math.exp2"] = execMath<MOp::Exp2>;
  t["math.log"] = execMath<MOp::Log>;
  t["math.log2"] = execMath<MOp::Log2>;
  t["math.sqrt"] = execMath<MOp::Sqrt>;
  t["math.rsqrt"] = execMath<MOp::Rsqrt>;
  t["math.tanh"] = execMath<MOp::Tanh>;
  t["math.abs"] = execMath<MOp::Abs>;
  t["math.sin"] = execMath<MOp::Sin>;
  t["math.cos"] = execMath<MOp::Cos>;
  t["math.floor"] = execMath<MOp::Floor>;
  t["math.ceil"] = execMath<MOp::Ceil>;
  t["vector.splat"] = execSplat;
}

}  // namespace xtc::interp
