// `xtc compile --stub NAME`: writes the SPIR-V binary together with the host stub NAME.h / NAME.c
// (backends/stub) — all three files or none (each is written atomically; if a later one cannot be
// committed, the ones already in place are removed again).
#pragma once

#include "driver/Pipeline.h"

#include <string>

namespace xtc::driver {

struct StubRequest {
  std::string name;       // --stub NAME
  std::string dir;        // --stub-dir DIR ("" = the folder of the .spv output)
  std::string inputPath;  // the compiled file; its base name goes into the stub's banner
};

// False (with a diagnostic) if `name` cannot be a stub name; checked before compiling.
bool checkStubName(const std::string& name, DiagnosticEngine& diags);

// Writes `spirvPath` (the binary of `result`) and the stub files. Returns false after reporting.
bool writeSpirvWithStub(const std::string& spirvPath, const CompileResult& result, const StubRequest& request,
                        DiagnosticEngine& diags);

}  // namespace xtc::driver
