// Helpers for the IR unit tests: parse text into a module with captured diagnostics, verify, and
// print, so each test states its input and expected messages directly.
#pragma once

#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "ir/ops/Ops.h"

#include <memory>
#include <sstream>
#include <string>

namespace xtc::ir::testing {

struct Parsed {
  std::unique_ptr<SourceManager> sm = std::make_unique<SourceManager>();
  std::ostringstream out;
  std::unique_ptr<DiagnosticEngine> diags = std::make_unique<DiagnosticEngine>(*sm, out);
  std::unique_ptr<Operation> module;
  // Everything the diagnostics engine printed (flushed).
  std::string messages() {
    diags->flush();
    return out.str();
  }
};

inline std::unique_ptr<Parsed> parse(const std::string& text, const std::string& name = "test.ir") {
  registerAllOps();
  auto p = std::make_unique<Parsed>();
  p->diags->setColor(ColorMode::Never);
  p->diags->setErrorLimit(0);
  p->module = parseModule(name, text, *p->diags);
  return p;
}

// Parses and verifies; returns the diagnostics text ("" when the IR is valid).
inline std::string verifyText(const std::string& text) {
  auto p = parse(text);
  if (!p->module) return "parse failed: " + p->messages();
  verify(*p->module, *p->diags);
  return p->messages();
}

// Wraps body ops into a kernel `k` with the given parameters so verifier tests stay short.
inline std::string kernelWith(const std::string& params, const std::string& body, const std::string& argNames) {
  return "xtc.kernel @k(" + params + ") {arg_names = [" + argNames + "]} launch {\n"
         "  %one = arith.constant {value = 1 : index} : () -> (index)\n"
         "  xtc.grid %one, %one, %one : (index, index, index) -> ()\n"
         "} body {\n" + body + "\n  xtc.return : () -> ()\n}\n";
}

}  // namespace xtc::ir::testing
