// Loading a shipped example as tile IR for the pass unit tests (PipelineDiffTest, MergedGuardTest):
// registers the ops and passes, reads examples/<name>.xt (optionally with textual edits, e.g. the RFC
// kernels' 4096 shapes shrunk), and runs the frontend. Failures are reported as test failures with
// the diagnostics text, and the fixture's engine stays usable for the passes and the interpreter.
#pragma once

#include "frontend/Frontend.h"
#include "ir/ops/LaneOps.h"
#include "ir/passes/PassManager.h"
#include "tests/unit/passes/PassTestSupport.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace xtc::testing {

struct ExampleFixture {
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags{sm, out};

  // The diagnostics printed so far (flushed first).
  std::string text() {
    diags.flush();
    return out.str();
  }

  // examples/<example>.xt compiled to workgroup-level tile IR; every `from` of `edits` must occur in
  // the source and all its occurrences become `to`. Null (with a test failure) on any error.
  std::unique_ptr<ir::Operation> tileIR(const std::string& example,
                                        const std::vector<std::pair<std::string, std::string>>& edits = {}) {
    ir::registerAllOps();
    ir::registerLaneOps();
    passes::registerAllPasses();
    std::string path = std::string(XTC_SOURCE_DIR) + "/examples/" + example + ".xt";
    if (edits.empty()) {
      std::string error;
      if (!sm.addFile(path, &error)) {
        ADD_FAILURE() << error;
        return nullptr;
      }
    } else {
      std::ifstream in(path);
      std::stringstream whole;
      whole << in.rdbuf();
      std::string source = whole.str();
      for (const auto& [from, to] : edits) {
        if (source.find(from) == std::string::npos) {
          ADD_FAILURE() << "edit not found in " << example << ": " << from;
          return nullptr;
        }
        for (size_t p = source.find(from); p != std::string::npos; p = source.find(from, p + to.size()))
          source.replace(p, from.size(), to);
      }
      sm.addBuffer(path, source);
    }
    std::unique_ptr<ir::Operation> module = frontend::compileToTileIR(path, diags);
    if (!module) ADD_FAILURE() << text();
    return module;
  }

  // Runs the target's default pipeline on `module` in place; false (with a test failure) on error.
  bool lower(ir::Operation* module, const targets::Target& target) {
    passes::PassContext ctx{diags, &target};
    passes::PassManager pm(ctx);
    bool ok = pm.addPipeline(passes::defaultPipeline(target)) && pm.run(module);
    if (!ok) ADD_FAILURE() << text();
    return ok;
  }
};

}  // namespace xtc::testing
