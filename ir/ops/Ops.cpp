// registerAllOps and the helpers of OpHelpers.h.
#include "ir/ops/Ops.h"

#include "ir/Parser.h"
#include "ir/ops/LaneOps.h"
#include "ir/ops/OpHelpers.h"
#include "ir/ops/XeOps.h"

#include <algorithm>
#include <mutex>

namespace xtc::ir {

void registerAllOps() {
  static std::once_flag once;
  std::call_once(once, [] {
    ops::registerStructureOps();
    ops::registerArithOps();
    ops::registerGpuOps();
    ops::registerTileOps();
    registerXeOps();
    registerLaneOps();  // ir/ops/LaneOps.cpp: lane.*, vector.extract/insert/from_elements
  });
}

namespace ops {

void def(const std::string& name, OpTraits traits, OpVerifier verify, std::string summary) {
  registerOp(OpInfo{name, traits, std::move(verify), std::move(summary)});
}

static std::string plural(unsigned n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string numOperands(const Operation& op, unsigned n) {
  if (op.numOperands() == n) return {};
  return "expects " + plural(n, "operand") + ", got " + std::to_string(op.numOperands());
}
std::string numOperandsAtLeast(const Operation& op, unsigned n) {
  if (op.numOperands() >= n) return {};
  return "expects at least " + plural(n, "operand") + ", got " + std::to_string(op.numOperands());
}
std::string numResults(const Operation& op, unsigned n) {
  if (op.numResults() == n) return {};
  return "expects " + plural(n, "result") + ", got " + std::to_string(op.numResults());
}

std::string q(const Type& t) { return "'" + t.str() + "'"; }

bool isScalarOrVector(const Type& t) { return t.isScalar() || t.isVector(); }
bool isIntOrIndex(const Type& t) { return isScalarOrVector(t) && isIntElem(t.elem()); }
bool isFloat(const Type& t) { return isScalarOrVector(t) && isFloatElem(t.elem()); }
bool isI1(const Type& t) { return isScalarOrVector(t) && t.elem() == ElemKind::I1; }
bool sameShape(const Type& a, const Type& b) { return a.kind() == b.kind() && a.shape() == b.shape(); }
bool sameShapeAndElem(const Type& a, const Type& b) { return sameShape(a, b) && a.elem() == b.elem(); }

std::string kindName(AttrKind k) {
  switch (k) {
    case AttrKind::Unit: return "unit";
    case AttrKind::Bool: return "boolean";
    case AttrKind::Int: return "integer";
    case AttrKind::Float: return "float";
    case AttrKind::String: return "string";
    case AttrKind::Array: return "array";
    case AttrKind::TypeAttr: return "type";
    case AttrKind::Dense: return "dense";
    case AttrKind::WgMap: return "wg_map";
    case AttrKind::Enum: return "enum";
    case AttrKind::Layout: return "layout";
  }
  return "?";
}

const Attribute* getAttr(const Operation& op, const std::string& name, AttrKind k, bool required, std::string* err) {
  const Attribute* a = op.attr(name);
  if (!a) {
    if (required) *err = "requires attribute '" + name + "'";
    return nullptr;
  }
  if (a->kind() != k) {
    *err = "attribute '" + name + "' must be " + (k == AttrKind::Int || k == AttrKind::Array ? "an " : "a ") + kindName(k) +
           ", got '" + a->str() + "'";
    return nullptr;
  }
  return a;
}

std::string intArrayAttr(const Operation& op, const std::string& name, bool required, std::vector<int64_t>* out,
                         bool* present) {
  std::string err;
  const Attribute* a = getAttr(op, name, AttrKind::Array, required, &err);
  if (present) *present = a != nullptr;
  if (!a) return err;
  out->clear();
  for (const Attribute& e : a->getArray()) {
    if (e.kind() != AttrKind::Int) return "attribute '" + name + "' must be an array of integers, got '" + a->str() + "'";
    out->push_back(e.getInt());
  }
  return {};
}

std::string enumAttr(const Operation& op, const std::string& attrName, const std::string& enumName, bool required,
                     std::string* value) {
  std::string err;
  const Attribute* a = getAttr(op, attrName, AttrKind::Enum, required, &err);
  if (!a) return err;
  if (a->enumName() != enumName)
    return "attribute '" + attrName + "' must be a '" + enumName + "<...>' enum, got '" + a->str() + "'";
  if (const std::vector<std::string>* allowed = findEnumAttr(enumName))
    if (!allowed->empty() && std::find(allowed->begin(), allowed->end(), a->getString()) == allowed->end())
      return "attribute '" + attrName + "' has unknown value '" + a->getString() + "'";
  *value = a->getString();
  return {};
}

}  // namespace ops
}  // namespace xtc::ir
