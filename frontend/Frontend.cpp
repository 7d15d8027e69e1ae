// The frontend's entry points (Frontend.h): parse -> check -> generate, and the diagnostic registry.
#include "frontend/Frontend.h"

#include "frontend/IRGen.h"
#include "frontend/Parse.h"
#include "frontend/Sema.h"

namespace xtc::frontend {

namespace {
struct DiagEntry {
  const char* name;
  const char* format;
};
const DiagEntry kDiags[] = {
#define XT_DIAG(id, text) {#id, text},
#include "frontend/Diagnostics.def"
#undef XT_DIAG
};
}  // namespace

std::string_view diagIdName(DiagId id) { return kDiags[static_cast<size_t>(id)].name; }
std::string_view diagFormat(DiagId id) { return kDiags[static_cast<size_t>(id)].format; }

std::vector<std::string> allDiagnosticIds() {
  std::vector<std::string> out;
  for (const auto& d : kDiags) out.emplace_back(d.name);
  return out;
}

std::unique_ptr<ir::Operation> compileToTileIR(const std::string& fileName, DiagnosticEngine& diags,
                                               const FrontendOptions& opts) {
  Reporter rep(diags, opts.emittedDiagIds);
  unsigned before = diags.errorCount();
  auto file = parseFile(fileName, rep, opts);
  if (!file || diags.errorCount() != before) return nullptr;
  if (!checkFile(*file, rep)) return nullptr;
  return generateIR(*file);
}

bool dumpAst(const std::string& fileName, DiagnosticEngine& diags, std::string* out, const FrontendOptions& opts,
             bool check) {
  Reporter rep(diags, opts.emittedDiagIds);
  unsigned before = diags.errorCount();
  auto file = parseFile(fileName, rep, opts);
  if (!file || diags.errorCount() != before) return false;
  if (check && !checkFile(*file, rep)) return false;
  *out = dumpAstText(*file);
  return true;
}

}  // namespace xtc::frontend
