// Shared by the e2e example tests: compiles examples/FILE with this build's `xtc compile --target
// generic` (XTC_BINARY overrides the binary), checks the result with spirv-val and reads the words.
// Compiling in the test (not in SetUpTestSuite) keeps a failure a failure: ctest reports tests whose
// suite setup failed as skipped.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

namespace xtc::e2e {

inline std::string xtcBinary() {
  const char* x = std::getenv("XTC_BINARY");
  return x && *x ? x : XTC_BINARY_PATH;
}

// Returns an empty string on success, else what failed.
inline std::string compileExample(const std::string& file, std::vector<uint32_t>& words) {
  const char* d = std::getenv("TMPDIR");
  std::string spv = std::string(d ? d : "/tmp") + "/xtc_e2e_" + std::to_string(::getpid()) + "_" + file + ".spv";
  std::string cmd = xtcBinary() + " compile " XTC_SOURCE_DIR "/examples/" + file + " --target generic -o " + spv;
  std::string failure;
  if (std::system(cmd.c_str()) != 0) {
    failure = "failed: " + cmd;
  } else if (std::system(("spirv-val " + spv).c_str()) != 0) {
    failure = "spirv-val rejects " + spv;
  } else {
    std::ifstream in(spv, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.empty() || bytes.size() % 4) {
      failure = "cannot read " + spv;
    } else {
      words.resize(bytes.size() / 4);
      std::memcpy(words.data(), bytes.data(), bytes.size());
    }
  }
  std::remove(spv.c_str());
  return failure;
}

}  // namespace xtc::e2e
