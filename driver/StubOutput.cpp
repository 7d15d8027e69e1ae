// writeSpirvWithStub: generate the stub text in memory first (so a generator error writes nothing),
// then stage the three files as temporaries and commit them one after the other.
#include "driver/StubOutput.h"

#include "backends/stub/StubGenerator.h"
#include "ir/support/OutputFile.h"

#include <cstdio>
#include <memory>
#include <vector>

namespace xtc::driver {

bool checkStubName(const std::string& name, DiagnosticEngine& diags) {
  if (backend::isValidStubName(name)) return true;
  diags.error(SourceLoc{}, "--stub '" + name +
                               "': the stub name prefixes C symbols, so it must be a C identifier (letters, digits, "
                               "'_'; not a C/C++ keyword or reserved name)");
  return false;
}

bool writeSpirvWithStub(const std::string& spirvPath, const CompileResult& result, const StubRequest& request,
                        DiagnosticEngine& diags) {
  if (!checkStubName(request.name, diags)) return false;
  backend::StubOptions so;
  so.name = request.name;
  size_t slash = request.inputPath.find_last_of('/');
  so.sourceName = slash == std::string::npos ? request.inputPath : request.inputPath.substr(slash + 1);
  backend::StubFiles files;
  if (!result.module || !backend::generateStub(*result.module, result.spirv, so, diags, files)) return false;

  std::string dir = request.dir;
  if (dir.empty()) {
    size_t s = spirvPath.find_last_of('/');
    dir = spirvPath == "-" || s == std::string::npos ? "." : spirvPath.substr(0, s == 0 ? 1 : s);
  }
  if (dir.back() != '/') dir += '/';
  struct Item {
    std::string path;
    std::string bytes;
  };
  std::vector<Item> items = {
      {dir + request.name + ".h", files.header},
      {dir + request.name + ".c", files.source},
      {spirvPath, std::string(reinterpret_cast<const char*>(result.spirv.data()), result.spirv.size() * 4)}};
  std::vector<std::unique_ptr<OutputFile>> outs;
  for (const Item& it : items) {
    outs.push_back(std::make_unique<OutputFile>(it.path));
    if (!outs.back()->ok()) {
      diags.error(SourceLoc{}, outs.back()->error());
      return false;  // destructors remove the temporaries
    }
    outs.back()->write(it.bytes);
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i]->commit()) {
      diags.error(SourceLoc{}, outs[i]->error());
      for (size_t j = 0; j < i; ++j)
        if (items[j].path != "-") std::remove(items[j].path.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace xtc::driver
