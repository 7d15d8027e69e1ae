// The bad-input corpus of the .xt frontend (tests/bad-input/frontend/*.xt) and the diagnostic
// registry check. Each corpus file says what it must produce:
//   // DIAG: <id>          a diagnostic id from frontend/Diagnostics.def that must be reported
//   // CHECK: <text>       a line of the diagnostics output must contain <text>, in file order
// The file is compiled under its base name, so CHECK lines read `name.xt:LINE:COL: error: ...` (the
// same lines also match with FileCheck when the driver is given a path). Every registered id must have
// at least one corpus file; a test fails otherwise.
#include "frontend/Frontend.h"
#include "ir/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;

fs::path corpusDir() {
  return fs::path(XTC_SOURCE_DIR) / "tests" / "bad-input" / "frontend";
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Expectations {
  std::vector<std::string> diags;
  std::vector<std::string> checks;
};

Expectations parseExpectations(const std::string& text) {
  Expectations e;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto take = [&](const std::string& key, std::vector<std::string>& into) {
      size_t p = line.find(key);
      if (p == std::string::npos) return;
      std::string rest = line.substr(p + key.size());
      while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
      into.push_back(rest);
    };
    take("// DIAG:", e.diags);
    take("// CHECK:", e.checks);
  }
  return e;
}

std::vector<fs::path> corpusFiles() {
  std::vector<fs::path> files;
  if (!fs::exists(corpusDir())) return files;
  for (auto& entry : fs::directory_iterator(corpusDir()))
    if (entry.path().extension() == ".xt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(FrontendBadInput, CorpusExists) { EXPECT_GE(corpusFiles().size(), 40u) << corpusDir(); }

TEST(FrontendBadInput, EveryFileFailsWithItsDiagnostics) {
  for (const fs::path& path : corpusFiles()) {
    SCOPED_TRACE(path.filename().string());
    std::string text = readFile(path);
    Expectations want = parseExpectations(text);
    ASSERT_FALSE(want.diags.empty()) << "no // DIAG: line";
    ASSERT_FALSE(want.checks.empty()) << "no // CHECK: line";

    xtc::SourceManager sm;
    std::ostringstream out;
    std::vector<std::string> emitted;
    std::unique_ptr<xtc::ir::Operation> module;
    {
      xtc::DiagnosticEngine diags(sm, out);
      diags.setErrorLimit(0);
      std::string name = path.filename().string();
      sm.addBuffer(name, text);
      xtc::frontend::FrontendOptions opts;
      opts.emittedDiagIds = &emitted;
      module = xtc::frontend::compileToTileIR(name, diags, opts);
      EXPECT_TRUE(diags.hasErrors());
    }
    EXPECT_EQ(module, nullptr);
    for (const std::string& id : want.diags)
      EXPECT_NE(std::find(emitted.begin(), emitted.end(), id), emitted.end()) << "diagnostic " << id << " not reported";

    // CHECK texts in order, as FileCheck does: each is searched from the end of the previous match
    // (so two CHECKs may match on one line) and may not span lines.
    const std::string output = out.str();
    size_t at = 0;
    for (const std::string& check : want.checks) {
      size_t found = output.find(check, at);
      EXPECT_NE(found, std::string::npos) << "CHECK not found (in order): " << check << "\n--- output:\n" << output;
      if (found != std::string::npos) at = found + check.size();
    }
  }
}

// The registry: every diagnostic kind of the frontend has a bad-input case that declares it (and the
// test above proves the declared kinds are really reported).
TEST(FrontendBadInput, EveryRegisteredDiagnosticHasACase) {
  std::set<std::string> covered;
  for (const fs::path& path : corpusFiles())
    for (const std::string& id : parseExpectations(readFile(path)).diags) covered.insert(id);
  std::vector<std::string> ids = xtc::frontend::allDiagnosticIds();
  ASSERT_GE(ids.size(), 40u);
  for (const std::string& id : ids) EXPECT_TRUE(covered.count(id)) << "no bad-input case for diagnostic '" << id << "'";
  // And no case names an id that does not exist.
  for (const std::string& id : covered)
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << "unknown diagnostic id '" << id << "' in the corpus";
}

TEST(FrontendBadInput, RegistryIdsAreUnique) {
  std::vector<std::string> ids = xtc::frontend::allDiagnosticIds();
  std::set<std::string> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());
}

}  // namespace
