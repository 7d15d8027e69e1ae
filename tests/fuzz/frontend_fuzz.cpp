// libFuzzer target for the .xt frontend: any byte string must be either compiled or rejected with
// diagnostics, never crash, hang or trip ASan/UBSan. Built by tests/fuzz/run-fuzzer.sh with
// clang-15 (-fsanitize=fuzzer,address,undefined); the seed corpus is examples/ and tests/golden/frontend.
#include "frontend/Frontend.h"
#include "ir/support/Diagnostics.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xtc::SourceManager sm;
  std::ostringstream out;
  xtc::DiagnosticEngine diags(sm, out);
  sm.addBuffer("fuzz.xt", std::string(reinterpret_cast<const char*>(data), size));
  auto module = xtc::frontend::compileToTileIR("fuzz.xt", diags);
  // Either a module or at least one error, never both and never neither.
  if ((module != nullptr) == diags.hasErrors()) __builtin_trap();
  return 0;
}
