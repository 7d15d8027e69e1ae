// Helpers shared by the dialect files of ir/ops: small checks that return an error message ("" when
// fine) so each op verifier reads as a list of rules. Internal to ir/ops.
#pragma once

#include "ir/OpRegistry.h"

#include <string>

// Returns from the enclosing verifier with `msg` unless `cond` holds.
#define XTC_REQUIRE(cond, msg) \
  do {                         \
    if (!(cond)) return (msg); \
  } while (0)
// Returns from the enclosing verifier if a helper reported an error.
#define XTC_CHECK(expr)                                \
  do {                                                 \
    if (std::string e_ = (expr); !e_.empty()) return e_; \
  } while (0)

namespace xtc::ir::ops {

void registerStructureOps();
void registerArithOps();
void registerGpuOps();
void registerTileOps();

// Registers `name` with traits and verifier.
void def(const std::string& name, OpTraits traits, OpVerifier verify, std::string summary);
inline OpTraits pure() { return OpTraits{false, true, 0}; }
inline OpTraits effect() { return OpTraits{false, false, 0}; }
inline OpTraits terminator() { return OpTraits{true, false, 0}; }

// Operand / result counts.
std::string numOperands(const Operation& op, unsigned n);
std::string numOperandsAtLeast(const Operation& op, unsigned n);
std::string numResults(const Operation& op, unsigned n);

// "'T'" for messages.
std::string q(const Type& t);

bool isIntOrIndex(const Type& t);   // scalar or vector whose element is an integer or index
bool isFloat(const Type& t);        // scalar or vector with a float element
bool isI1(const Type& t);           // i1 scalar or vector of i1
bool isScalarOrVector(const Type& t);
// Same kind (scalar/vector) and shape; element types may differ.
bool sameShape(const Type& a, const Type& b);
// Same shape and element type (layouts may differ).
bool sameShapeAndElem(const Type& a, const Type& b);

// The attribute `name` of kind `k`, or null. `required`: missing is an error (stored in *err).
const Attribute* getAttr(const Operation& op, const std::string& name, AttrKind k, bool required, std::string* err);
// An integer array attribute; fills `out`. Missing (when required) or of the wrong kind is an error.
std::string intArrayAttr(const Operation& op, const std::string& name, bool required, std::vector<int64_t>* out,
                         bool* present = nullptr);
// An enum attribute `name` = enumName<value> with value in `allowed`.
std::string enumAttr(const Operation& op, const std::string& attrName, const std::string& enumName, bool required,
                     std::string* value);

std::string kindName(AttrKind k);

}  // namespace xtc::ir::ops
