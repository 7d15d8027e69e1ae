// builtin.module, xtc.kernel / xtc.return / xtc.grid (the conventions of ir/Module.h) and the scf
// control-flow ops.
#include "ir/ops/OpHelpers.h"

#include <set>

namespace xtc::ir::ops {

namespace {

// The operand types of the terminator of `b` against `expected`; `what` names the owner for messages.
std::string yieldMatches(const Block& b, const std::vector<Type>& expected, const std::string& what) {
  Operation* term = b.back();
  XTC_REQUIRE(term && term->is("scf.yield"), what + " must end in 'scf.yield'");
  XTC_REQUIRE(term->numOperands() == expected.size(), what + " yields " + std::to_string(term->numOperands()) +
                                                         " values but the op has " + std::to_string(expected.size()) +
                                                         " results");
  for (unsigned i = 0; i < expected.size(); ++i)
    XTC_REQUIRE(term->operand(i)->type() == expected[i], what + " yields " + q(term->operand(i)->type()) + " as value #" +
                                                             std::to_string(i) + " but the op's result #" +
                                                             std::to_string(i) + " has type " + q(expected[i]));
  return {};
}

std::vector<Type> resultTypes(const Operation& op) {
  std::vector<Type> r;
  for (unsigned i = 0; i < op.numResults(); ++i) r.push_back(op.result(i)->type());
  return r;
}

std::string verifyModule(const Operation& op) {
  XTC_CHECK(numOperands(op, 0));
  XTC_CHECK(numResults(op, 0));
  XTC_REQUIRE(op.region(0).numBlocks() == 1, "must have exactly one block");
  XTC_REQUIRE(op.region(0).block().numArguments() == 0, "its block cannot have arguments");
  std::set<std::string> names;
  for (const auto& k : op.region(0).block().opList()) {
    XTC_REQUIRE(k->is("xtc.kernel"), "may only contain 'xtc.kernel' ops, found '" + k->name() + "'");
    const Attribute* sym = k->attr("sym_name");
    if (sym && sym->kind() == AttrKind::String)
      XTC_REQUIRE(names.insert(sym->getString()).second, "defines kernel '" + sym->getString() + "' twice");
  }
  return {};
}

std::string verifyKernel(const Operation& op) {
  XTC_CHECK(numOperands(op, 0));
  XTC_CHECK(numResults(op, 0));
  Operation* parent = op.parentOp();
  XTC_REQUIRE(!parent || parent->is("builtin.module"), "must be directly inside a 'builtin.module'");
  std::string err;
  const Attribute* sym = getAttr(op, "sym_name", AttrKind::String, true, &err);
  XTC_REQUIRE(sym, err);
  XTC_REQUIRE(!sym->getString().empty(), "'sym_name' cannot be empty");
  for (unsigned r = 0; r < 2; ++r)
    XTC_REQUIRE(op.region(r).numBlocks() == 1, std::string(r == 0 ? "body" : "launch") + " region must have exactly one block");
  const Block& body = op.region(0).block();
  const Block& launch = op.region(1).block();
  XTC_REQUIRE(body.numArguments() == launch.numArguments(), "body and launch regions must have the same arguments");
  for (unsigned i = 0; i < body.numArguments(); ++i)
    XTC_REQUIRE(body.argument(i)->type() == launch.argument(i)->type(),
                "parameter #" + std::to_string(i) + " has type " + q(body.argument(i)->type()) + " in the body but " +
                    q(launch.argument(i)->type()) + " in the launch region");
  const Attribute* names = getAttr(op, "arg_names", AttrKind::Array, true, &err);
  XTC_REQUIRE(names, err);
  XTC_REQUIRE(names->getArray().size() == body.numArguments(),
              "'arg_names' has " + std::to_string(names->getArray().size()) + " names for " +
                  std::to_string(body.numArguments()) + " parameters");
  for (const Attribute& n : names->getArray()) XTC_REQUIRE(n.kind() == AttrKind::String, "'arg_names' must be strings");
  XTC_REQUIRE(body.back() && body.back()->is("xtc.return"), "body region must end in 'xtc.return'");
  XTC_REQUIRE(launch.back() && launch.back()->is("xtc.grid"), "launch region must end in 'xtc.grid'");
  if (op.hasAttr("sg_size")) {
    const Attribute* a = getAttr(op, "sg_size", AttrKind::Int, true, &err);
    XTC_REQUIRE(a, err);
    XTC_REQUIRE(a->getInt() > 0, "'sg_size' must be positive");
  }
  if (op.hasAttr("wg_size")) {
    std::vector<int64_t> wg;
    XTC_CHECK(intArrayAttr(op, "wg_size", true, &wg));
    XTC_REQUIRE(wg.size() == 3, "'wg_size' must have 3 entries [x, y, z]");
    for (int64_t w : wg) XTC_REQUIRE(w > 0, "'wg_size' entries must be positive");
  }
  if (op.hasAttr("target")) {
    const Attribute* a = getAttr(op, "target", AttrKind::String, true, &err);
    XTC_REQUIRE(a, err);
    const std::string& t = a->getString();
    XTC_REQUIRE(t == "pvc" || t == "dg2" || t == "generic", "unknown 'target' \"" + t + "\" (expected pvc, dg2 or generic)");
  }
  return {};
}

std::string verifyReturn(const Operation& op) {
  XTC_CHECK(numOperands(op, 0));
  XTC_CHECK(numResults(op, 0));
  const Operation* p = op.parentOp();
  XTC_REQUIRE(p && p->is("xtc.kernel") && &p->region(0) == op.parentBlock()->parentRegion(),
              "must be the terminator of a kernel's body region");
  return {};
}

std::string verifyGrid(const Operation& op) {
  XTC_CHECK(numOperands(op, 3));
  XTC_CHECK(numResults(op, 0));
  for (unsigned i = 0; i < 3; ++i)
    XTC_REQUIRE(op.operand(i)->type().isIndex(), "grid size #" + std::to_string(i) + " must be 'index', got " + q(op.operand(i)->type()));
  const Operation* p = op.parentOp();
  XTC_REQUIRE(p && p->is("xtc.kernel") && p->numRegions() == 2 && &p->region(1) == op.parentBlock()->parentRegion(),
              "must be the terminator of a kernel's launch region");
  return {};
}

std::string verifyFor(const Operation& op) {
  XTC_CHECK(numOperandsAtLeast(op, 3));
  for (unsigned i = 0; i < 3; ++i)
    XTC_REQUIRE(op.operand(i)->type().isIndex(), std::string(i == 0 ? "lower bound" : i == 1 ? "upper bound" : "step") +
                                                      " must be 'index', got " + q(op.operand(i)->type()));
  unsigned nIter = op.numOperands() - 3;
  XTC_REQUIRE(op.numResults() == nIter, "has " + std::to_string(nIter) + " loop-carried values but " +
                                            std::to_string(op.numResults()) + " results");
  // A memref is an address the backend binds once (kernel parameter or SLM buffer); a value that
  // picks one of several memrefs at run time has no lowering. Index one memref instead.
  for (unsigned i = 0; i < nIter; ++i)
    XTC_REQUIRE(!op.result(i)->type().isMemRef(), "loop-carried value #" + std::to_string(i) + " is a memref (" +
                                                      q(op.result(i)->type()) + "); memrefs cannot be loop-carried");
  for (unsigned i = 0; i < nIter; ++i)
    XTC_REQUIRE(op.operand(3 + i)->type() == op.result(i)->type(), "initial value #" + std::to_string(i) + " has type " +
                                                                       q(op.operand(3 + i)->type()) + " but result #" +
                                                                       std::to_string(i) + " has type " + q(op.result(i)->type()));
  XTC_REQUIRE(op.region(0).numBlocks() == 1, "body must have exactly one block");
  const Block& b = op.region(0).block();
  XTC_REQUIRE(b.numArguments() == 1 + nIter, "body block must have " + std::to_string(1 + nIter) +
                                                 " arguments (induction variable and loop-carried values), got " +
                                                 std::to_string(b.numArguments()));
  XTC_REQUIRE(b.argument(0)->type().isIndex(), "induction variable must be 'index', got " + q(b.argument(0)->type()));
  for (unsigned i = 0; i < nIter; ++i)
    XTC_REQUIRE(b.argument(1 + i)->type() == op.result(i)->type(),
                "body argument #" + std::to_string(1 + i) + " has type " + q(b.argument(1 + i)->type()) +
                    " but loop-carried value #" + std::to_string(i) + " has type " + q(op.result(i)->type()));
  return yieldMatches(b, resultTypes(op), "loop body");
}

std::string verifyIf(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_REQUIRE(op.operand(0)->type() == Type::scalar(ElemKind::I1), "condition must be 'i1', got " + q(op.operand(0)->type()));
  XTC_REQUIRE(op.region(0).numBlocks() == 1, "'then' region must have exactly one block");
  XTC_REQUIRE(op.region(1).numBlocks() <= 1, "'else' region must have at most one block");
  XTC_REQUIRE(op.numResults() == 0 || op.region(1).numBlocks() == 1, "'else' region is required when the op has results");
  for (unsigned i = 0; i < op.numResults(); ++i)
    XTC_REQUIRE(!op.result(i)->type().isMemRef(), "result #" + std::to_string(i) + " is a memref (" +
                                                      q(op.result(i)->type()) + "); an scf.if cannot choose between memrefs");
  auto results = resultTypes(op);
  for (unsigned r = 0; r < 2; ++r) {
    if (op.region(r).empty()) continue;
    const Block& b = op.region(r).block();
    std::string what = r == 0 ? "'then' region" : "'else' region";
    XTC_REQUIRE(b.numArguments() == 0, what + " cannot have block arguments");
    XTC_CHECK(yieldMatches(b, results, what));
  }
  return {};
}

std::string verifyYield(const Operation& op) {
  XTC_CHECK(numResults(op, 0));
  const Operation* p = op.parentOp();
  XTC_REQUIRE(p && (p->is("scf.for") || p->is("scf.if")), "must be inside 'scf.for' or 'scf.if'");
  return {};
}

}  // namespace

void registerStructureOps() {
  def("builtin.module", OpTraits{false, false, 1}, verifyModule, "the top-level op; one block of kernels");
  def("xtc.kernel", OpTraits{false, false, 2}, verifyKernel, "a kernel: body and launch regions over its parameters");
  def("xtc.return", terminator(), verifyReturn, "terminates a kernel body");
  def("xtc.grid", terminator(), verifyGrid, "terminates a kernel's launch region with the grid size (x, y, z)");
  def("scf.for", OpTraits{false, false, 1}, verifyFor, "counted loop with loop-carried values");
  def("scf.if", OpTraits{false, false, 2}, verifyIf, "two-way conditional with results");
  def("scf.yield", terminator(), verifyYield, "terminates scf.for / scf.if regions with their values");
}

}  // namespace xtc::ir::ops
