// libFuzzer target for the IR text parser: any byte string is either parsed or rejected with
// diagnostics, never a crash, hang or ASan/UBSan report; a module that parses and verifies prints
// back to text that parses to the same text (the exact round trip of docs/ir.md). Built and run by
// tests/fuzz/run-fuzzer.sh; the seed corpus is every .ir file of the repository.
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "ir/ops/Ops.h"
#include "ir/support/Diagnostics.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool registered = (xtc::ir::registerAllOps(), true);
  (void)registered;
  xtc::SourceManager sm;
  std::ostringstream out;
  xtc::DiagnosticEngine diags(sm, out);
  diags.setErrorLimit(0);
  auto module = xtc::ir::parseModule("fuzz.ir", std::string_view(reinterpret_cast<const char*>(data), size), diags);
  if ((module != nullptr) == diags.hasErrors()) __builtin_trap();  // a module xor an error
  if (!module || !xtc::ir::verify(*module, diags)) return 0;
  std::string text = xtc::ir::printToString(*module);
  xtc::SourceManager sm2;
  xtc::DiagnosticEngine diags2(sm2, out);
  auto again = xtc::ir::parseModule("fuzz-printed.ir", text, diags2);
  if (!again || xtc::ir::printToString(*again) != text) __builtin_trap();
  return 0;
}
