// See IsaVerifier.h. The ocloc invocation follows shared/INTEL_XE_REFERENCE.md (header and §10):
// `ocloc compile -file k.spv -spirv_input -device D -output k [-options O]`, then
// `ocloc disasm -file k_*.bin -dump dis -device D`, which writes dis/<kernel>_KernelHeap.asm.
#include "backends/isa/IsaVerifier.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace xtc::isa {

namespace fs = std::filesystem;

namespace {

unsigned countMatches(const std::string& text, const std::regex& re) {
  unsigned n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, re)) ++n;
  return n;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first `name` on PATH that is an executable file, or "".
std::string findProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p)) return p.string();
  }
  return "";
}

// Runs argv in `dir` with stdout and stderr to `log`; the exit status, or -1 if it could not start.
int run(const std::vector<std::string>& argv, const fs::path& dir, const fs::path& log) {
  pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::chdir(dir.c_str()) != 0) ::_exit(127);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// A temporary folder removed when this goes out of scope.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "xtc-verify-isa.XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

std::string lastLines(const std::string& text, size_t n) {
  size_t pos = text.size();
  for (size_t i = 0; i <= n && pos != std::string::npos && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

}  // namespace

IsaReport checkDisassembly(const std::vector<std::string>& kernels, bool symbolTableProgram,
                           const std::string& buildLog, const std::vector<HardwareCall>& calls) {
  IsaReport r;
  std::string all;
  for (const std::string& k : kernels) all += k + '\n';
  if (countMatches(all, std::regex("\\bcalla\\b")))
    r.dropped.push_back("the ISA holds a `calla` (a call IGC could not resolve: an unknown builtin name or mangling)");
  if (symbolTableProgram)
    r.dropped.push_back("ocloc produced Intel_Symbol_Table_Void_Program (an unresolved builtin)");
  // Builtins that leave the same instruction (e.g. the bf16 and f16 DPAS of one M) share its count.
  struct Need {
    unsigned outside = 0, inside = 0;
    std::vector<std::string> builtins;
  };
  std::map<std::string, Need> needs;
  for (const HardwareCall& c : calls) {
    if (c.isaPattern.empty()) continue;
    Need& n = needs[c.isaPattern];
    n.outside += c.outsideLoops;
    n.inside += c.insideLoops;
    n.builtins.push_back(c.builtin);
  }
  for (const auto& [pattern, n] : needs) {
    unsigned want = n.outside + (n.inside > 0 && n.outside == 0 ? 1 : 0);
    unsigned got = countMatches(all, std::regex(pattern));
    if (got >= want) continue;
    std::string names;
    for (const std::string& b : n.builtins) names += (names.empty() ? "" : ", ") + b;
    r.dropped.push_back(fmt::format("IGC dropped a hardware call: {} (called {} times outside loops, {} inside) "
                                    "left /{}/ only {} times in the ISA",
                                    names, n.outside, n.inside, pattern, got));
  }
  // 2D block shapes: each one the calls need must be the decoded dword 7 of some message header,
  // `mov (1|M0) rN.7<1>:ud|d IMM` (the disassembler prints some immediates as floats: their bits count).
  std::set<std::string> headers;
  std::regex header(R"(mov \(1\|M0\) +r[0-9]+\.7<1>:(?:ud|d|f) +(0x[0-9A-Fa-f]+|[-0-9.e+]+):(?:uw|ud|w|d|f))");
  for (auto it = std::sregex_iterator(all.begin(), all.end(), header); it != std::sregex_iterator(); ++it) {
    std::string v = (*it)[1];
    uint32_t x = 0;
    if (v.starts_with("0x") || v.starts_with("0X")) {
      x = static_cast<uint32_t>(std::stoul(v, nullptr, 16));
    } else {
      float f = std::strtof(v.c_str(), nullptr);
      std::memcpy(&x, &f, 4);
    }
    headers.insert(fmt::format("{}x{}x{}", (x & 255) + 1, ((x >> 8) & 255) + 1, ((x >> 16) & 15) + 1));
  }
  std::map<std::string, std::string> shapes;  // shape -> the builtins that need it
  for (const HardwareCall& c : calls)
    if (!c.blockShape.empty() && c.outsideLoops + c.insideLoops > 0)
      shapes[c.blockShape] += (shapes[c.blockShape].empty() ? "" : ", ") + c.builtin;
  for (const auto& [shape, names] : shapes)
    if (!headers.count(shape))
      r.dropped.push_back(fmt::format("no 2D block message header in the ISA has the shape {} that {} asks for "
                                      "(IGC built another shape or dropped the message)",
                                      shape, names));
  // Spills are legal code, only slow: a warning, as ocloc itself reports them (an error with -Werror).
  std::istringstream log(buildLog);
  for (std::string line; std::getline(log, line);)
    if (line.find("spilled") != std::string::npos) r.warnings.push_back("ocloc: " + line);
  if (unsigned s = countMatches(all, std::regex("scratch")))
    r.warnings.push_back(fmt::format("the ISA has {} scratch-memory accesses (register spills)", s));
  return r;
}

IsaReport verifyIsa(const std::vector<uint32_t>& spirv, const std::vector<HardwareCall>& calls,
                    const IsaVerifyOptions& options) {
  IsaReport r;
  const char* env = std::getenv("XTC_OCLOC");
  std::string ocloc = env && *env ? std::string(env) : findProgram("ocloc");
  std::string timeout = findProgram("timeout");
  if (ocloc.empty() || ::access(ocloc.c_str(), X_OK) != 0 || timeout.empty()) {
    r.toolMissing = true;
    r.toolError = ocloc.empty() || ::access(ocloc.c_str(), X_OK) != 0
                      ? "--verify-isa needs Intel's offline compiler `ocloc` (not found on PATH or at $XTC_OCLOC; "
                        "Debian: intel-opencl-icd, with libigc-tools for the disassembler)"
                      : "--verify-isa needs the `timeout` program (coreutils) on PATH";
    return r;
  }
  TempDir tmp;
  if (tmp.path.empty()) {
    r.toolError = "--verify-isa: cannot create a temporary folder";
    return r;
  }
  {
    std::ofstream out(tmp.path / "k.spv", std::ios::binary);
    out.write(reinterpret_cast<const char*>(spirv.data()), static_cast<std::streamsize>(spirv.size() * 4));
    if (!out) {
      r.toolError = "--verify-isa: cannot write the SPIR-V into " + tmp.path.string();
      return r;
    }
  }
  std::string secs = std::to_string(options.timeoutSeconds);
  std::vector<std::string> compile = {timeout, secs, ocloc, "compile", "-file", "k.spv", "-spirv_input",
                                      "-device", options.device, "-output", "k"};
  if (!options.buildOptions.empty()) {
    compile.push_back("-options");
    compile.push_back(options.buildOptions);
  }
  int rc = run(compile, tmp.path, tmp.path / "compile.log");
  std::string buildLog = readFile(tmp.path / "compile.log");
  // ocloc aborts or exits silently on some bad input (reference §11): any non-zero status is a failure.
  if (rc != 0) {
    r.toolError = rc == 124 ? fmt::format("ocloc compile timed out after {} s", secs)
                            : fmt::format("ocloc compile failed (exit {}): {}", rc, lastLines(buildLog, 5));
    return r;
  }
  fs::path bin;
  for (const auto& e : fs::directory_iterator(tmp.path))
    if (e.path().filename().string().starts_with("k_") && e.path().extension() == ".bin") bin = e.path();
  if (bin.empty()) {
    r.toolError = "ocloc compile wrote no k_*.bin: " + lastLines(buildLog, 5);
    return r;
  }
  rc = run({timeout, secs, ocloc, "disasm", "-file", bin.filename().string(), "-dump", "dis", "-device", options.device},
           tmp.path, tmp.path / "disasm.log");
  std::vector<std::string> kernels;
  bool symbolTable = false;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp.path / "dis", ec)) {
    std::string name = e.path().filename().string();
    if (name.find("Intel_Symbol_Table_Void_Program") != std::string::npos) symbolTable = true;
    else if (name.ends_with("_KernelHeap.asm")) kernels.push_back(readFile(e.path()));
  }
  if (rc != 0 || kernels.empty()) {
    r.toolError = fmt::format("ocloc disasm produced no kernel disassembly (exit {}; the disassembler needs "
                              "libiga64.so, see scripts/setup): {}",
                              rc, lastLines(readFile(tmp.path / "disasm.log"), 5));
    return r;
  }
  return checkDisassembly(kernels, symbolTable, buildLog, calls);
}

}  // namespace xtc::isa
