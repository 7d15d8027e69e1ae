// translateLaunchRule: walks the launch region op by op and writes one C statement per result.
// Every integer value is held in an int64_t as its sign-extended value (i1 as 0/1), exactly as the
// reference interpreter holds it, and re-wrapped to its width after each op; unsigned ops look at
// the zero-extended bits. Signed overflow never happens in C: +,-,* go through uint64_t.
// Checks marked "internal error" repeat what the parser and op verifiers guarantee for any kernel that
// reaches the stub generator (xtc compile verifies first).
#include "backends/stub/LaunchRule.h"

#include "ir/Module.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace xtc::backend::stub {

using ir::ElemKind;

namespace {

unsigned intBits(ElemKind k) {
  switch (k) {
    case ElemKind::I1: return 1;
    case ElemKind::I8: return 8;
    case ElemKind::I16: return 16;
    case ElemKind::I32: return 32;
    default: return 64;
  }
}

// The value's C expression, its readable form, and whether the readable form needs parentheses
// when it becomes an operand of an infix operator.
struct CVal {
  std::string c;
  std::string pretty;
  bool compound = false;
};

std::string literal(int64_t v) {
  if (v == INT64_MIN) return "INT64_MIN";
  return fmt::format("INT64_C({})", v);
}

// Wraps v to the width of k at generation time (for constants), like the IR's integer semantics.
int64_t wrapConst(int64_t v, ElemKind k) {
  switch (k) {
    case ElemKind::I1: return v & 1;
    case ElemKind::I8: return static_cast<int8_t>(static_cast<uint8_t>(v));
    case ElemKind::I16: return static_cast<int16_t>(static_cast<uint16_t>(v));
    case ElemKind::I32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    default: return v;
  }
}

class Translator {
public:
  Translator(const KernelModel& m, DiagnosticEngine& d, LaunchRuleC& o) : model_(m), diags_(d), out_(o) {}

  bool run() {
    const ir::Operation& k = *model_.op;
    if (k.numRegions() < 2 || k.region(1).empty()) {
      diags_.error(k.loc(), fmt::format("internal error: host stub: kernel '{}' has no launch region", model_.name));
      return false;
    }
    const ir::Block& launch = k.region(1).block();
    if (launch.numArguments() != model_.params.size()) {
      diags_.error(k.loc(), fmt::format("internal error: host stub: the launch region of kernel '{}' has {} arguments, the kernel {}",
                                        model_.name, launch.numArguments(), model_.params.size()));
      return false;
    }
    for (unsigned i = 0; i < launch.numArguments(); ++i) {
      const StubParam& p = model_.params[i];
      if (p.isMemRef()) continue;  // only reachable through memref.dim
      ElemKind e = p.type.elem();
      if (!ir::isIntElem(e)) continue;  // a float parameter cannot feed index math; reported at its use
      CVal v;
      v.pretty = p.cName;
      v.c = e == ElemKind::I1 ? fmt::format("(int64_t)({} != 0)", p.cName) : fmt::format("(int64_t){}", p.cName);
      vals_[launch.argument(i)] = v;
    }
    for (const auto& opPtr : launch.opList()) {
      const ir::Operation& op = *opPtr;
      if (op.is("xtc.grid")) {
        if (op.numOperands() != 3) return fail(op, "internal error: xtc.grid needs 3 operands");
        for (unsigned i = 0; i < 3; ++i) {
          const CVal* v = get(op, i);
          if (!v) return false;
          out_.grid[i] = v->c;
          out_.pretty[i] = v->pretty;
        }
        return true;
      }
      if (!translate(op)) return false;
    }
    diags_.error(k.loc(), fmt::format("internal error: host stub: the launch region of kernel '{}' does not end in xtc.grid", model_.name));
    return false;
  }

private:
  bool fail(const ir::Operation& op, const std::string& why) {
    diags_.error(op.loc(), fmt::format("host stub: launch rule of kernel '{}': {}", model_.name, why));
    return false;
  }

  // Operand i as an integer value the host can evaluate, or null (reported).
  const CVal* get(const ir::Operation& op, unsigned i) {
    ir::Value* v = op.operand(i);
    auto it = vals_.find(v);
    if (it != vals_.end()) return &it->second;
    if (v->isBlockArgument() && v->ownerBlock() == &model_.op->region(1).block()) {
      const StubParam& p = model_.params[v->index()];
      fail(op, fmt::format("'{}' uses parameter '{}' of type {}, which the host cannot evaluate as an integer",
                           op.name(), p.irName, p.type.str()));
    } else {
      fail(op, fmt::format("'{}' uses a value the host stub cannot evaluate (type {})", op.name(), v->type().str()));
    }
    return nullptr;
  }

  bool intScalar(const ir::Operation& op, const ir::Type& t) {
    if (t.isScalar() && ir::isIntElem(t.elem())) return true;
    return fail(op, fmt::format("'{}' on type {}: the host evaluates only integer and index math", op.name(), t.str()));
  }

  std::string fresh() { return fmt::format("xtc_v{}", counter_++); }
  void line(const std::string& s) { out_.statements += "  " + s + "\n"; }
  void use(const std::string& h) { out_.helpers.insert(h); }

  // Declares the result from a plain expression, wrapped to the result width.
  // `compound`: the readable form is an infix expression (needs parentheses as an operand).
  void define(const ir::Operation& op, std::string expr, std::string pretty, unsigned bits, bool compound = true) {
    if (bits < 64) {
      use("xtc_wrap");
      expr = fmt::format("xtc_wrap({}, {})", expr, bits);
    }
    std::string name = fresh();
    line(fmt::format("const int64_t {} = {};", name, expr));
    vals_[op.result()] = CVal{name, std::move(pretty), compound};
  }
  // Declares the result from a helper that may fail: `if (!helper(args, &r)) return LAUNCH_RULE;`.
  void defineChecked(const ir::Operation& op, const std::string& helper, const std::string& args, std::string pretty,
                     unsigned bits, bool compound = true) {
    use(helper);
    std::string name = fresh();
    line(fmt::format("int64_t {};", name));
    line(fmt::format("if (!{}({}, &{})) return XTC_STUB_ERROR_LAUNCH_RULE;", helper, args, name));
    CVal v{name, std::move(pretty), compound};
    if (bits < 64) {
      use("xtc_wrap");
      std::string w = fresh();
      line(fmt::format("const int64_t {} = xtc_wrap({}, {});", w, name, bits));
      v.c = w;
    }
    vals_[op.result()] = v;
  }

  static std::string paren(const CVal& v) { return v.compound ? "(" + v.pretty + ")" : v.pretty; }

  bool translate(const ir::Operation& op) {
    const std::string& n = op.name();
    if (op.numRegions() != 0) return fail(op, fmt::format("'{}' has regions; the host evaluates straight-line index math only", n));
    if (op.numResults() != 1) return fail(op, fmt::format("'{}' is not an op the host stub can evaluate", n));
    const ir::Type& rt = op.result()->type();

    if (n == "arith.constant") {
      if (!intScalar(op, rt)) return false;
      const ir::Attribute* a = op.attr("value");
      int64_t v = 0;
      if (a && a->isa(ir::AttrKind::Int)) v = a->getInt();
      else if (a && a->isa(ir::AttrKind::Bool)) v = a->getBool() ? 1 : 0;
      else return fail(op, "internal error: arith.constant without an integer value");
      v = wrapConst(v, rt.elem());
      vals_[op.result()] = CVal{literal(v), std::to_string(v), false};
      return true;
    }
    if (n == "memref.dim") {
      if (op.numOperands() != 1) return fail(op, "internal error: memref.dim needs one operand");
      ir::Value* m = op.operand(0);
      if (!m->isBlockArgument() || m->ownerBlock() != &model_.op->region(1).block())
        return fail(op, "internal error: memref.dim of a value that is not a kernel parameter");
      const StubParam& p = model_.params[m->index()];
      int64_t d = op.intAttr("index", -1);
      if (!p.isMemRef() || d < 0 || d >= p.type.rank())
        return fail(op, fmt::format("internal error: memref.dim {} of parameter '{}' ({})", d, p.irName, p.type.str()));
      int64_t s = p.type.shape()[static_cast<size_t>(d)];
      if (s == ir::kDynamic) vals_[op.result()] = CVal{p.dimNames[static_cast<size_t>(d)], p.dimNames[static_cast<size_t>(d)], false};
      else vals_[op.result()] = CVal{literal(s), std::to_string(s), false};
      return true;
    }
    if (n == "arith.convert") {
      if (op.numOperands() != 1) return fail(op, "internal error: arith.convert needs one operand");
      if (!intScalar(op, op.operand(0)->type()) || !intScalar(op, rt)) return false;
      const CVal* a = get(op, 0);
      if (!a) return false;
      // Integers widen signed, i1 unsigned (true is 1, as MLIR's extui); to i1 is "!= 0" (docs/ir.md).
      std::string e = rt.elem() == ElemKind::I1 ? fmt::format("({} != 0 ? 1 : 0)", a->c) : a->c;
      define(op, e, a->pretty, intBits(rt.elem()), a->compound);
      return true;
    }
    if (n == "arith.select") {
      if (op.numOperands() != 3) return fail(op, "internal error: arith.select needs 3 operands");
      if (!intScalar(op, op.operand(0)->type()) || !intScalar(op, rt)) return false;
      const CVal *c = get(op, 0), *a = get(op, 1), *b = get(op, 2);
      if (!c || !a || !b) return false;
      define(op, fmt::format("({} != 0 ? {} : {})", c->c, a->c, b->c),
             fmt::format("{} ? {} : {}", paren(*c), paren(*a), paren(*b)), 64);
      return true;
    }
    if (op.numOperands() != 2) return fail(op, fmt::format("'{}' is not an op the host stub can evaluate", n));
    const ir::Type& at = op.operand(0)->type();
    if (!intScalar(op, at) || !intScalar(op, op.operand(1)->type()) || !intScalar(op, rt)) return false;
    const CVal *a = get(op, 0), *b = get(op, 1);
    if (!a || !b) return false;
    unsigned bits = intBits(at.elem());
    std::string za = fmt::format("xtc_zext({}, {})", a->c, bits), zb = fmt::format("xtc_zext({}, {})", b->c, bits);
    auto infix = [&](const char* o) { return fmt::format("{} {} {}", paren(*a), o, paren(*b)); };
    auto call = [&](const char* f) { return fmt::format("{}({}, {})", f, a->pretty, b->pretty); };
    auto wrapArith = [&](const char* o, const char* po) {
      use("xtc_s64");
      define(op, fmt::format("xtc_s64((uint64_t){} {} (uint64_t){})", a->c, o, b->c), infix(po), bits);
    };
    std::string ab = a->c + ", " + b->c;
    if (n == "arith.addi") wrapArith("+", "+");
    else if (n == "arith.subi") wrapArith("-", "-");
    else if (n == "arith.muli") wrapArith("*", "*");
    else if (n == "arith.andi") define(op, fmt::format("({} & {})", a->c, b->c), infix("&"), bits);
    else if (n == "arith.ori") define(op, fmt::format("({} | {})", a->c, b->c), infix("|"), bits);
    else if (n == "arith.xori") define(op, fmt::format("({} ^ {})", a->c, b->c), infix("^"), bits);
    else if (n == "arith.divsi") defineChecked(op, "xtc_sdiv", ab, infix("/"), bits);
    else if (n == "arith.remsi") defineChecked(op, "xtc_srem", ab, infix("%"), bits);
    else if (n == "arith.ceildivsi") defineChecked(op, "xtc_ceildiv", ab, call("ceildiv"), bits, false);
    else if (n == "arith.floordivsi") defineChecked(op, "xtc_floordiv", ab, call("floordiv"), bits, false);
    else if (n == "arith.divui" || n == "arith.remui") {
      use("xtc_zext");
      defineChecked(op, n == "arith.divui" ? "xtc_udiv" : "xtc_urem", za + ", " + zb,
                    n == "arith.divui" ? call("udiv") : call("urem"), bits, false);
    } else if (n == "arith.shli" || n == "arith.shrsi" || n == "arith.shrui") {
      const char* h = n == "arith.shli" ? "xtc_shl" : n == "arith.shrsi" ? "xtc_shrs" : "xtc_shru";
      const char* po = n == "arith.shli" ? "<<" : n == "arith.shrsi" ? ">>" : ">>>";
      defineChecked(op, h, fmt::format("{}, {}", ab, bits), infix(po), bits);
    } else if (n == "arith.minsi" || n == "arith.maxsi") {
      const char* cmp = n == "arith.minsi" ? "<" : ">";
      define(op, fmt::format("({} {} {} ? {} : {})", a->c, cmp, b->c, a->c, b->c),
             call(n == "arith.minsi" ? "min" : "max"), bits, false);
    } else if (n == "arith.minui" || n == "arith.maxui") {
      use("xtc_zext");
      const char* cmp = n == "arith.minui" ? "<" : ">";
      define(op, fmt::format("({} {} {} ? {} : {})", za, cmp, zb, a->c, b->c), call(n == "arith.minui" ? "minu" : "maxu"),
             bits, false);
    } else if (n == "arith.cmpi") {
      const ir::Attribute* p = op.attr("predicate");
      std::string pred = p && (p->isa(ir::AttrKind::Enum) || p->isa(ir::AttrKind::String)) ? p->getString() : "";
      static const std::map<std::string, std::pair<const char*, bool>> preds = {
          {"eq", {"==", false}}, {"ne", {"!=", false}}, {"slt", {"<", false}}, {"sle", {"<=", false}},
          {"sgt", {">", false}}, {"sge", {">=", false}}, {"ult", {"<", true}},  {"ule", {"<=", true}},
          {"ugt", {">", true}},  {"uge", {">=", true}}};
      auto it = preds.find(pred);
      if (it == preds.end()) return fail(op, fmt::format("internal error: arith.cmpi with unknown predicate '{}'", pred));
      if (it->second.second) use("xtc_zext");
      std::string e = it->second.second ? fmt::format("({} {} {} ? 1 : 0)", za, it->second.first, zb)
                                        : fmt::format("({} {} {} ? 1 : 0)", a->c, it->second.first, b->c);
      define(op, e, infix(it->second.first), 64);
    } else {
      return fail(op, fmt::format("'{}' is not an op the host stub can evaluate (index math: constants, memref.dim, "
                                  "arith integer ops, cmpi, select, convert)", n));
    }
    return true;
  }

  const KernelModel& model_;
  DiagnosticEngine& diags_;
  LaunchRuleC& out_;
  std::map<const ir::Value*, CVal> vals_;
  int counter_ = 0;
};

// One helper's C text and the helpers it calls. Listed in dependency order.
struct HelperDef {
  const char* name;
  std::vector<const char*> deps;
  const char* text;
};

const std::vector<HelperDef>& helperDefs() {
  static const std::vector<HelperDef> defs = {
      {"xtc_s64", {},
       "/* uint64_t -> int64_t, two's complement, without relying on implementation-defined conversion. */\n"
       "static int64_t xtc_s64(uint64_t u) {\n"
       "  return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;\n"
       "}\n"},
      {"xtc_zext", {},
       "/* The low `bits` bits of v, zero-extended (unsigned integer ops). */\n"
       "static uint64_t xtc_zext(int64_t v, unsigned bits) {\n"
       "  return bits >= 64u ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << bits) - 1u);\n"
       "}\n"},
      {"xtc_wrap", {"xtc_s64"},
       "/* v wrapped to an integer of `bits` bits (1..63): sign-extended, except i1 which stays 0/1. */\n"
       "static int64_t xtc_wrap(int64_t v, unsigned bits) {\n"
       "  uint64_t m = (UINT64_C(1) << bits) - 1u, u = (uint64_t)v & m;\n"
       "  if (bits == 1u) return (int64_t)u;\n"
       "  if (u >> (bits - 1u)) u |= ~m;\n"
       "  return xtc_s64(u);\n"
       "}\n"},
      {"xtc_sdiv", {"xtc_s64"},
       "/* a / b rounded toward zero; 0 when b == 0. INT64_MIN / -1 wraps. */\n"
       "static int xtc_sdiv(int64_t a, int64_t b, int64_t* r) {\n"
       "  if (b == 0) return 0;\n"
       "  *r = b == -1 ? xtc_s64(0u - (uint64_t)a) : a / b;\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_srem", {},
       "/* a % b with the sign of a; 0 when b == 0. */\n"
       "static int xtc_srem(int64_t a, int64_t b, int64_t* r) {\n"
       "  if (b == 0) return 0;\n"
       "  *r = b == -1 ? 0 : a % b;\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_ceildiv", {"xtc_s64"},
       "/* a / b rounded up; 0 when b == 0. */\n"
       "static int xtc_ceildiv(int64_t a, int64_t b, int64_t* r) {\n"
       "  if (b == 0) return 0;\n"
       "  if (b == -1) { *r = xtc_s64(0u - (uint64_t)a); return 1; }\n"
       "  *r = a / b + ((a % b != 0 && (a < 0) == (b < 0)) ? 1 : 0);\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_floordiv", {"xtc_s64"},
       "/* a / b rounded down; 0 when b == 0. */\n"
       "static int xtc_floordiv(int64_t a, int64_t b, int64_t* r) {\n"
       "  if (b == 0) return 0;\n"
       "  if (b == -1) { *r = xtc_s64(0u - (uint64_t)a); return 1; }\n"
       "  *r = a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_udiv", {"xtc_s64"},
       "static int xtc_udiv(uint64_t a, uint64_t b, int64_t* r) {\n"
       "  if (b == 0u) return 0;\n"
       "  *r = xtc_s64(a / b);\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_urem", {"xtc_s64"},
       "static int xtc_urem(uint64_t a, uint64_t b, int64_t* r) {\n"
       "  if (b == 0u) return 0;\n"
       "  *r = xtc_s64(a % b);\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_shl", {"xtc_s64", "xtc_zext"},
       "/* Shifts: 0 when the amount is not below the bit width. */\n"
       "static int xtc_shl(int64_t a, int64_t b, unsigned bits, int64_t* r) {\n"
       "  uint64_t n = xtc_zext(b, bits);\n"
       "  if (n >= bits) return 0;\n"
       "  *r = xtc_s64(xtc_zext(a, bits) << n);\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_shrs", {"xtc_zext"},
       "static int xtc_shrs(int64_t a, int64_t b, unsigned bits, int64_t* r) {\n"
       "  uint64_t n = xtc_zext(b, bits);\n"
       "  if (n >= bits) return 0;\n"
       "  /* ~a >= 0 when a < 0: no right shift of a negative value. */\n"
       "  *r = a < 0 ? ~(~a >> n) : a >> n;\n"
       "  return 1;\n"
       "}\n"},
      {"xtc_shru", {"xtc_s64", "xtc_zext"},
       "static int xtc_shru(int64_t a, int64_t b, unsigned bits, int64_t* r) {\n"
       "  uint64_t n = xtc_zext(b, bits);\n"
       "  if (n >= bits) return 0;\n"
       "  *r = xtc_s64(xtc_zext(a, bits) >> n);\n"
       "  return 1;\n"
       "}\n"},
  };
  return defs;
}

}  // namespace

bool translateLaunchRule(const KernelModel& model, DiagnosticEngine& diags, LaunchRuleC& out) {
  out = LaunchRuleC{};
  Translator t(model, diags, out);
  if (t.run()) return true;
  out = LaunchRuleC{};
  return false;
}

std::string launchHelperDefinitions(const std::set<std::string>& helpers) {
  // Close over dependencies, then print in the table's (dependency) order.
  std::set<std::string> need = helpers;
  for (bool grew = true; grew;) {
    grew = false;
    for (const HelperDef& d : helperDefs())
      if (need.count(d.name))
        for (const char* dep : d.deps) grew |= need.insert(dep).second;
  }
  std::string s;
  for (const HelperDef& d : helperDefs())
    if (need.count(d.name)) s += std::string(d.text) + "\n";
  return s;
}

}  // namespace xtc::backend::stub
