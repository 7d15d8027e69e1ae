// The frontend's entry points (Frontend.h): parse -> check -> generate, and the diagnostic registry.
#include "frontend/Frontend.h"

#include "frontend/IRGen.h"
#include "frontend/Parse.h"
#include "frontend/Sema.h"

#include <pthread.h>

#include <exception>

namespace xtc::frontend {

namespace {

// The frontend recurses (ANTLR's recursive descent, then the AST walks) up to its nesting limits.
// Those limits are far below what overflows a normal stack, but sanitizer builds use several times
// more stack per frame; running the frontend on a thread with a large stack keeps the guarantee
// "deep input is a diagnostic, never a crash" independent of build flags. The stack is reserved,
// not committed, so its size costs nothing until used.
constexpr size_t kFrontendStackBytes = size_t(512) << 20;

template <class Fn>
void runOnLargeStack(Fn&& fn) {
  struct Call {
    Fn* fn;
    std::exception_ptr error;
  } call{&fn, nullptr};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kFrontendStackBytes) == 0 &&
                 pthread_create(&thread, &attr, [](void* p) -> void* {
                   auto* c = static_cast<Call*>(p);
                   try {
                     (*c->fn)();
                   } catch (...) {
                     c->error = std::current_exception();
                   }
                   return nullptr;
                 }, &call) == 0;
  pthread_attr_destroy(&attr);
  if (!started) {
    fn();  // no thread available: run here (the limits still hold for ordinary stacks)
    return;
  }
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

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
  std::unique_ptr<ir::Operation> module;
  runOnLargeStack([&] {
    Reporter rep(diags, opts.emittedDiagIds);
    unsigned before = diags.errorCount();
    auto file = parseFile(fileName, rep, opts);
    if (!file || diags.errorCount() != before) return;
    if (!checkFile(*file, rep)) return;
    module = generateIR(*file);
  });
  return module;
}

bool dumpAst(const std::string& fileName, DiagnosticEngine& diags, std::string* out, const FrontendOptions& opts,
             bool check) {
  bool ok = false;
  runOnLargeStack([&] {
    Reporter rep(diags, opts.emittedDiagIds);
    unsigned before = diags.errorCount();
    auto file = parseFile(fileName, rep, opts);
    if (!file || diags.errorCount() != before) return;
    if (check && !checkFile(*file, rep)) return;
    *out = dumpAstText(*file);
    ok = true;
  });
  return ok;
}

}  // namespace xtc::frontend
