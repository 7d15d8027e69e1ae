// The pass registry and the pass manager (see PassManager.h).
#include "ir/passes/PassManager.h"

#include "ir/Verifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>

namespace xtc::passes {

Pass::~Pass() = default;

namespace {
std::map<std::string, PassFactory, std::less<>>& passRegistry() {
  static std::map<std::string, PassFactory, std::less<>> r;
  return r;
}
std::mutex& passMutex() {
  static std::mutex m;
  return m;
}
bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
}  // namespace

void registerPass(std::string name, PassFactory factory) {
  std::lock_guard<std::mutex> g(passMutex());
  passRegistry()[std::move(name)] = std::move(factory);
}

std::unique_ptr<Pass> createPass(std::string_view name) {
  PassFactory f;
  {
    std::lock_guard<std::mutex> g(passMutex());
    auto it = passRegistry().find(name);
    if (it == passRegistry().end()) return nullptr;
    f = it->second;
  }
  return f();
}

bool isPassRegistered(std::string_view name) {
  std::lock_guard<std::mutex> g(passMutex());
  return passRegistry().find(name) != passRegistry().end();
}

std::vector<std::string> registeredPasses() {
  std::lock_guard<std::mutex> g(passMutex());
  std::vector<std::string> r;
  for (auto& [n, f] : passRegistry()) r.push_back(n);
  return r;
}

std::vector<std::string> defaultPipeline(const targets::Target& target) {
  // The pipeline of DESIGN.md. Names not registered are skipped. The generic target has no DPAS or
  // block IO: after distribution, lower-generic maps subgroup tiles straight to portable lane code.
  // order-transpose runs again after wg-distribute: a column-major tile whose wg_map does not
  // transpose block by block is distributed with its order and made row-major per subgroup there
  // (docs/passes.md "Column-major tiles with a wg_map"); elsewhere the second run changes nothing.
  // batch-slice makes tiles of a batch (a memref of rank 3 or more) tiles of its matrix, for both
  // lowerings (docs/passes.md).
  // lower-tf32 first: no later pass sees a tf32 value (LowerTf32.cpp).
  static const char* kGeneric[] = {"lower-tf32", "canonicalize",  "order-transpose", "reduce-before-exchange", "wg-distribute",
                                   "order-transpose", "batch-slice", "canonicalize",  "lower-generic",   "canonicalize"};
  // pvc/dg2: distribution as on generic, then select-lowering sends each kernel down the Xe path
  // (xeLoweringPasses) or lowers it with lower-generic for the target's subgroup size.
  static const char* kXeHead[] = {"lower-tf32", "canonicalize", "order-transpose", "reduce-before-exchange", "wg-distribute",
                                  "order-transpose", "batch-slice", "canonicalize", "select-lowering"};
  std::vector<std::string> r;
  auto add = [&](const auto& names) {
    for (const char* n : names)
      if (isPassRegistered(n)) r.push_back(n);
  };
  if (target.kind == targets::TargetKind::Generic) {
    add(kGeneric);
  } else {
    add(kXeHead);
    for (const std::string& n : xeLoweringPasses())
      if (isPassRegistered(n)) r.push_back(n);
    if (isPassRegistered("canonicalize")) r.push_back("canonicalize");
  }
  // Never two canonicalizations in a row just because the passes in between are missing.
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

std::vector<std::string> splitPipeline(std::string_view text) {
  std::vector<std::string> r;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view n = text.substr(i, j - i);
    while (!n.empty() && (n.front() == ' ' || n.front() == '\t')) n.remove_prefix(1);
    while (!n.empty() && (n.back() == ' ' || n.back() == '\t')) n.remove_suffix(1);
    if (!n.empty()) r.emplace_back(n);
    i = j + 1;
  }
  return r;
}

PassManager::PassManager(PassContext ctx, PassManagerOptions opts) : ctx_(ctx), opts_(std::move(opts)) {}
PassManager::~PassManager() = default;

void PassManager::addPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }

bool PassManager::addPipeline(const std::vector<std::string>& names, const SourceLoc& where) {
  std::vector<std::unique_ptr<Pass>> created;
  bool ok = true;
  for (const std::string& n : names) {
    auto p = createPass(n);
    if (!p) {
      std::string known;
      for (auto& k : registeredPasses()) known += (known.empty() ? "" : ", ") + k;
      ctx_.diags.error(where, "unknown pass '" + n + "' (known passes: " + known + ")");
      ok = false;
      continue;
    }
    created.push_back(std::move(p));
  }
  if (!ok) return false;
  for (auto& p : created) passes_.push_back(std::move(p));
  return true;
}

void PassManager::printIR(const char* when, const std::string& pass, const ir::Operation* module) {
  std::ostream& os = opts_.irStream ? *opts_.irStream : std::cerr;
  os << "// -----// IR " << when << " " << pass << " //----- //\n";
  ir::printOp(os, *module, opts_.printOptions);
  os << "\n";
  os.flush();
}

bool PassManager::run(ir::Operation* module) {
  using Clock = std::chrono::steady_clock;
  struct Timing {
    std::string name;
    double seconds;
  };
  std::vector<Timing> timings;
  double verifySeconds = 0;
  auto total0 = Clock::now();
  bool ok = true;
  for (auto& pass : passes_) {
    std::string name = pass->name();
    if (opts_.printBeforeAll || contains(opts_.printBefore, name)) printIR("before", name, module);
    unsigned errorsBefore = ctx_.diags.errorCount();
    auto t0 = Clock::now();
    bool passOk = pass->run(module, ctx_);
    timings.push_back({name, std::chrono::duration<double>(Clock::now() - t0).count()});
    if (!passOk || ctx_.diags.errorCount() != errorsBefore) {
      if (ctx_.diags.errorCount() == errorsBefore) ctx_.diags.error(SourceLoc{}, "pass '" + name + "' failed");
      ok = false;
      break;
    }
    if (opts_.verifyEach) {
      auto v0 = Clock::now();
      bool valid = ir::verify(*module, ctx_.diags);
      verifySeconds += std::chrono::duration<double>(Clock::now() - v0).count();
      if (!valid) {
        ctx_.diags.error(SourceLoc{}, "internal error: the IR is invalid after pass '" + name + "' (a bug in xtc, please report it; the errors above say where)");
        ok = false;
        break;
      }
    }
    if (opts_.printAfterAll || contains(opts_.printAfter, name)) printIR("after", name, module);
  }
  if (opts_.timePasses) {
    double total = std::chrono::duration<double>(Clock::now() - total0).count();
    std::ostream& os = opts_.timingStream ? *opts_.timingStream : std::cerr;
    auto pct = [&](double s) { return total > 0 ? 100.0 * s / total : 0.0; };
    os << "===" << std::string(73, '-') << "===\n"
       << "                      ... Pass execution timing report ...\n"
       << "===" << std::string(73, '-') << "===\n"
       << fmt::format("  Total Execution Time: {:.4f} seconds\n\n", total) << "   Wall Time  (%)  Name\n";
    for (const Timing& t : timings) os << fmt::format("  {:>9.4f} ({:>5.1f}%)  {}\n", t.seconds, pct(t.seconds), t.name);
    if (opts_.verifyEach) os << fmt::format("  {:>9.4f} ({:>5.1f}%)  {}\n", verifySeconds, pct(verifySeconds), "(verifier)");
    os << fmt::format("  {:>9.4f} ({:>5.1f}%)  {}\n", total, 100.0, "Total");
  }
  return ok;
}

}  // namespace xtc::passes
