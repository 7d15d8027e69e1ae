// buildKernelModel: the lowered kernel's signature and attributes as C-level parameters.
#include "backends/stub/StubModel.h"

#include "ir/Module.h"
#include "ir/targets/Target.h"

#include <fmt/format.h>

#include <set>

namespace xtc::backend::stub {

using ir::ElemKind;

std::string scalarCType(ElemKind k) {
  switch (k) {
    case ElemKind::I1: return "uint8_t";
    case ElemKind::I8: return "int8_t";
    case ElemKind::I16: return "int16_t";
    case ElemKind::I32: return "int32_t";
    case ElemKind::I64: return "int64_t";
    case ElemKind::Index: return "int64_t";
    case ElemKind::F16: return "uint16_t";
    case ElemKind::BF16: return "uint16_t";
    case ElemKind::F32: return "float";
    case ElemKind::F64: return "double";
    case ElemKind::TF32: return "";
  }
  return "";
}

unsigned elemBytes(ElemKind k) {
  switch (k) {
    case ElemKind::I1:
    case ElemKind::I8: return 1;
    case ElemKind::I16:
    case ElemKind::F16:
    case ElemKind::BF16: return 2;
    case ElemKind::I32:
    case ElemKind::F32: return 4;
    case ElemKind::I64:
    case ElemKind::Index:
    case ElemKind::F64: return 8;
    case ElemKind::TF32: return 0;
  }
  return 0;
}

bool isCIdentifier(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

bool isReservedCName(const std::string& s) {
  static const std::set<std::string> words = {
      // C99
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
      "_Complex", "_Imaginary",
      // C++17
      "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char16_t", "char32_t",
      "class", "compl", "constexpr", "const_cast", "decltype", "delete", "dynamic_cast", "explicit", "export",
      "false", "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
      "or_eq", "private", "protected", "public", "reinterpret_cast", "static_assert", "static_cast", "template",
      "this", "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor",
      "xor_eq",
      // macros and names from the headers the stub includes
      "NULL", "EOF", "errno", "assert", "stdin", "stdout", "stderr", "offsetof", "main"};
  if (words.count(s)) return true;
  if (s.size() >= 2 && s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'))) return true;
  // The generated code's own helpers, locals and macros, and the runtimes' macros.
  for (const char* p : {"xtc_", "XTC_", "CL_", "ZE_", "INT", "UINT", "SIZE_"})
    if (s.rfind(p, 0) == 0) return true;
  return false;
}

namespace {

// Parameters the generated launch functions declare themselves.
const std::set<std::string>& runtimeParamNames() {
  static const std::set<std::string> names = {"queue", "num_events_in_wait_list", "event_wait_list", "event_out",
                                              "context", "device", "list", "signal_event", "num_wait_events",
                                              "wait_events", "grid"};
  return names;
}

}  // namespace

bool buildKernelModel(const ir::Operation& kernel, DiagnosticEngine& diags, KernelModel& out) {
  out = KernelModel{};
  out.op = &kernel;
  out.name = ir::kernelName(&kernel);
  bool ok = true;
  auto fail = [&](const std::string& msg) {
    diags.error(kernel.loc(), msg);
    ok = false;
  };
  if (!isCIdentifier(out.name) || isReservedCName(out.name)) {
    fail(fmt::format("host stub: kernel name '{}' cannot be part of a C function name", out.name));
    return false;
  }

  // wg_size, sg_size and target: the kernel verifier checks their form and the SPIR-V backend (which
  // runs before the stub) their presence, so these checks are internal errors.
  const ir::Attribute* wg = kernel.attr("wg_size");
  const ir::Attribute* sg = kernel.attr("sg_size");
  if (!wg || !sg) {
    fail(fmt::format("internal error: host stub: kernel '{}' has no {} attribute (stubs need the lowered module)", out.name,
                     !wg ? "wg_size" : "sg_size"));
    return false;
  }
  std::vector<int64_t> w = wg->isa(ir::AttrKind::Array) ? wg->getIntArray() : std::vector<int64_t>{};
  if (w.size() != 3 || w[0] < 1 || w[1] < 1 || w[2] < 1) {
    fail(fmt::format("internal error: host stub: kernel '{}' has wg_size = {}, expected [x, y, z] with positive sizes", out.name,
                     wg->str()));
    return false;
  }
  out.wgSize = {w[0], w[1], w[2]};
  if (!sg->isa(ir::AttrKind::Int) || sg->getInt() < 1) {
    fail(fmt::format("internal error: host stub: kernel '{}' has sg_size = {}, expected a positive integer", out.name, sg->str()));
    return false;
  }
  out.sgSize = sg->getInt();
  if (const ir::Attribute* t = kernel.attr("target")) {
    if (!t->isa(ir::AttrKind::String)) {
      fail(fmt::format("internal error: host stub: kernel '{}' has a non-string target attribute {}", out.name, t->str()));
      return false;
    }
    out.target = t->getString();
    const targets::Target* tgt = targets::findTarget(out.target);
    if (!tgt) {
      fail(fmt::format("internal error: host stub: kernel '{}' has unknown target '{}' (known: {})", out.name, out.target,
                       targets::targetNames()));
      return false;
    }
    out.checkPitch = tgt->has2dBlockIO;
  }
  out.surfaceFallback = kernel.boolAttr("surface_fallback");
  if (const ir::Attribute* b = kernel.attr("build_options")) {
    if (!b->isa(ir::AttrKind::String)) {
      fail(fmt::format("host stub: kernel '{}' has a non-string build_options attribute {}", out.name, b->str()));
      return false;
    }
    out.buildOptions = b->getString();
  }

  std::vector<std::string> argNames;
  if (const ir::Attribute* an = kernel.attr("arg_names"))
    for (const ir::Attribute& a : an->getArray()) argNames.push_back(a.isa(ir::AttrKind::String) ? a.getString() : "");

  const ir::Block& body = kernel.region(0).block();
  std::set<std::string> used = runtimeParamNames();
  // A name that is free in the C parameter list: clashes get a trailing '_' until unique.
  auto claim = [&](std::string n) {
    if (!isCIdentifier(n)) n = "arg";
    if (isReservedCName(n)) n = "p_" + n;
    while (used.count(n)) n += "_";
    used.insert(n);
    return n;
  };
  // First the parameters as written, so their dimension names never displace a user name.
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    StubParam p;
    p.type = body.argument(i)->type();
    p.irName = i < argNames.size() && !argNames[i].empty() ? argNames[i] : fmt::format("arg{}", i);
    p.cName = claim(p.irName);
    out.params.push_back(std::move(p));
  }
  if (const ir::Attribute* v = kernel.attr("view_memrefs"))
    for (int64_t i : v->getIntArray())
      if (i >= 0 && static_cast<size_t>(i) < out.params.size()) out.params[static_cast<size_t>(i)].viewOnly = true;
  for (StubParam& p : out.params) {
    const ir::Type& t = p.type;
    if (t.isMemRef()) {
      if (t.memSpace() != ir::MemSpace::Global) {
        fail(fmt::format("host stub: parameter '{}' of kernel '{}' is an SLM memref, which cannot be passed by the host",
                         p.irName, out.name));
        continue;
      }
      // A memref with strides is dense in another order (column-major): the same base and dims.
      if (elemBytes(t.elem()) == 0) {
        fail(fmt::format("host stub: parameter '{}' has type {}, whose element has no host memory layout", p.irName,
                         t.str()));
        continue;
      }
      for (int64_t d = 0; d < t.rank(); ++d)
        p.dimNames.push_back(t.shape()[d] == ir::kDynamic ? claim(fmt::format("{}_dim{}", p.cName, d)) : "");
    } else if (t.isScalar()) {
      if (scalarCType(t.elem()).empty()) {
        fail(fmt::format("host stub: parameter '{}' has type {}, which has no host ABI", p.irName, t.str()));
        continue;
      }
    } else {
      fail(fmt::format("host stub: parameter '{}' has type {}, which is not a kernel parameter type", p.irName,
                       t.str()));
    }
  }
  return ok;
}

}  // namespace xtc::backend::stub
