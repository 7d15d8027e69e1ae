// generateStub: writes NAME.h (API, error codes, per-kernel prototypes) and NAME.c (embedded SPIR-V,
// argument checks, launch rules, the per-context program/module cache and the launch functions).
// The text is a pure function of the module, the SPIR-V and the options. Every generated symbol is
// prefixed with NAME; file-local helpers are `static` and prefixed `xtc_`. The C is written to be
// valid C99 and C++17 at once (explicit casts from void*, no designated initializers, no VLAs).
#include "backends/stub/StubGenerator.h"

#include "backends/stub/ErrorNames.h"
#include "backends/stub/LaunchRule.h"
#include "backends/stub/StubModel.h"
#include "ir/Module.h"

#include <fmt/format.h>

#include <cctype>
#include <sstream>

namespace xtc::backend {

using stub::KernelModel;
using stub::LaunchRuleC;
using stub::StubParam;

bool isValidStubName(std::string_view name) {
  std::string s(name);
  return stub::isCIdentifier(s) && !stub::isReservedCName(s);
}

namespace {

// A C string literal's contents.
std::string cEscape(const std::string& s) {
  std::string r;
  for (unsigned char c : s) {
    if (c == '\\' || c == '"') r += std::string("\\") + static_cast<char>(c);
    else if (c == '\n') r += "\\n";
    else if (c < 0x20 || c >= 0x7f) r += fmt::format("\\{:03o}", c);
    else r += static_cast<char>(c);
  }
  return r;
}

// Text safe inside a C block comment.
std::string commentSafe(std::string s) {
  for (size_t p; (p = s.find("*/")) != std::string::npos;) s.replace(p, 2, "* /");
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// How one C-level argument is passed to the runtime.
struct CArg {
  std::string expr;      // the C parameter it comes from
  std::string clType;    // OpenCL value type for clSetKernelArg
  std::string zeType;    // C type for zeKernelSetArgumentValue
  std::string convert;   // expression producing the value from `expr`
  bool buffer = false;
};

class Generator {
public:
  Generator(const std::string& name, const std::string& source, const std::vector<uint32_t>& spirv)
      : n_(name), source_(source), spirv_(spirv) {}

  void addKernel(KernelModel m, LaunchRuleC r) { kernels_.push_back({std::move(m), std::move(r)}); }

  StubFiles generate() const {
    StubFiles f;
    f.header = header();
    f.source = sourceFile();
    return f;
  }

private:
  struct K {
    KernelModel m;
    LaunchRuleC rule;
  };

  // "int64_t A_dim0, int64_t A_dim1, float alpha" (sizes and scalars: the grid function's list).
  static std::vector<std::string> sizeParams(const KernelModel& m) {
    std::vector<std::string> v;
    for (const StubParam& p : m.params) {
      if (p.isMemRef()) {
        for (const std::string& d : p.dimNames)
          if (!d.empty()) v.push_back("int64_t " + d);
      } else {
        v.push_back(stub::scalarCType(p.type.elem()) + " " + p.cName);
      }
    }
    return v;
  }
  static std::vector<std::string> sizeNames(const KernelModel& m) {
    std::vector<std::string> v;
    for (const StubParam& p : m.params) {
      if (p.isMemRef()) {
        for (const std::string& d : p.dimNames)
          if (!d.empty()) v.push_back(d);
      } else {
        v.push_back(p.cName);
      }
    }
    return v;
  }
  // The kernel's arguments in ABI order, with `bufferType` for memrefs ("cl_mem" / "void*").
  static std::vector<std::string> abiParams(const KernelModel& m, const std::string& bufferType) {
    std::vector<std::string> v;
    for (const StubParam& p : m.params) {
      if (p.isMemRef()) {
        v.push_back(bufferType + " " + p.cName);
        for (const std::string& d : p.dimNames)
          if (!d.empty()) v.push_back("int64_t " + d);
      } else {
        v.push_back(stub::scalarCType(p.type.elem()) + " " + p.cName);
      }
    }
    return v;
  }
  static std::vector<std::string> abiNames(const KernelModel& m) {
    std::vector<std::string> v;
    for (const StubParam& p : m.params) {
      v.push_back(p.cName);
      for (const std::string& d : p.dimNames)
        if (!d.empty()) v.push_back(d);
    }
    return v;
  }
  static std::vector<CArg> abiArgs(const KernelModel& m) {
    std::vector<CArg> v;
    for (const StubParam& p : m.params) {
      if (p.isMemRef()) {
        v.push_back({p.cName, "cl_mem", "void*", p.cName, true});
        for (const std::string& d : p.dimNames)
          if (!d.empty()) v.push_back({d, "cl_long", "int64_t", d, false});
        continue;
      }
      CArg a{p.cName, "", "", p.cName, false};
      switch (p.type.elem()) {
        case ir::ElemKind::I1: a.clType = "cl_uchar"; a.zeType = "uint8_t"; a.convert = fmt::format("(uint8_t)({} != 0)", p.cName); break;
        case ir::ElemKind::I8: a.clType = "cl_char"; a.zeType = "int8_t"; break;
        case ir::ElemKind::I16: a.clType = "cl_short"; a.zeType = "int16_t"; break;
        case ir::ElemKind::I32: a.clType = "cl_int"; a.zeType = "int32_t"; break;
        case ir::ElemKind::I64:
        case ir::ElemKind::Index: a.clType = "cl_long"; a.zeType = "int64_t"; break;
        case ir::ElemKind::F16:
        case ir::ElemKind::BF16: a.clType = "cl_ushort"; a.zeType = "uint16_t"; break;
        case ir::ElemKind::F32: a.clType = "cl_float"; a.zeType = "float"; break;
        case ir::ElemKind::F64: a.clType = "cl_double"; a.zeType = "double"; break;
        case ir::ElemKind::TF32: break;  // rejected by buildKernelModel
      }
      v.push_back(a);
    }
    return v;
  }
  static std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
  }
  // "a, b, " or "" (for lists continued by more parameters).
  static std::string lead(const std::vector<std::string>& v) { return v.empty() ? "" : join(v) + ", "; }
  static size_t numMemRefs(const KernelModel& m) {
    size_t n = 0;
    for (const StubParam& p : m.params) n += p.isMemRef();
    return n;
  }
  // The base alignment a memref's buffer needs (0: none): 2D block IO surfaces start on 64 bytes
  // (reference §2.5). Like the pitch rule, it applies to every memref of rank >= 2 on such targets.
  // The dimension whose elements are adjacent in memory (ir::denseMemRefOrder; the last if none).
  static int64_t fastestDim(const ir::Type& t) {
    std::optional<std::vector<int64_t>> order = ir::denseMemRefOrder(t);
    return order && !order->empty() ? order->back() : t.rank() - 1;
  }
  static unsigned blockIOAlignment(const KernelModel& m, const StubParam& p) {
    return m.checkPitch && p.type.rank() >= 2 ? 64u : 0u;
  }
  std::string fn(const K& k, const std::string& suffix) const { return n_ + "_" + k.m.name + suffix; }

  // ------------------------------------------------------------------------------------------------
  std::string header() const {
    std::string guard = upper(n_) + "_XTC_STUB_H";
    std::string h;
    h += fmt::format(
        "/* {0}.h: host launcher for the kernels of {1}, generated by xtc (xtc compile --stub {0}).\n"
        " * Do not edit; regenerate. The API, error codes and threading rules are described in xtc's\n"
        " * docs/stubs.md. Every launch function returns 0 on success, else an OpenCL error code\n"
        " * (negative), a Level Zero ze_result_t, or one of the XTC_STUB_ERROR_* codes below; {0}_error_string\n"
        " * names any of them. Define XTC_STUB_NO_OPENCL or XTC_STUB_NO_LEVEL_ZERO (for {0}.c and every\n"
        " * file including this header alike) to leave a runtime out. Thread-safe (POSIX threads). */\n",
        n_, commentSafe(source_));
    h += fmt::format("#ifndef {0}\n#define {0}\n\n", guard);
    h += "#include <stddef.h>\n#include <stdint.h>\n\n";
    h += "#ifndef XTC_STUB_NO_OPENCL\n"
         "#ifndef CL_TARGET_OPENCL_VERSION\n#define CL_TARGET_OPENCL_VERSION 300\n#endif\n"
         "#if CL_TARGET_OPENCL_VERSION < 210\n"
         "#error \"xtc stubs need OpenCL 2.1 or newer headers (clCreateProgramWithIL): CL_TARGET_OPENCL_VERSION >= 210\"\n"
         "#endif\n"
         "#include <CL/cl.h>\n#endif\n"
         "#ifndef XTC_STUB_NO_LEVEL_ZERO\n#include <level_zero/ze_api.h>\n#endif\n\n";
    h += "/* The stubs' own result codes (the same in every xtc stub). */\n#ifndef XTC_STUB_ERROR_CODES\n"
         "#define XTC_STUB_ERROR_CODES 1\n";
    for (const stub::ErrorName& e : stub::stubErrorNames())
      h += fmt::format("#define {} 0x{:08X} /* {} */\n", e.name, e.code, commentSafe(e.text));
    h += "#endif\n\n";
    h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    h += fmt::format(
        "/* The name (and, for stub codes, a short explanation) of any result code. Never NULL. */\n"
        "const char* {0}_error_string(int code);\n"
        "/* Copies the log of this stub's last failed program/module build into buffer (NUL-terminated,\n"
        " * truncated to size bytes) and returns the log's full length; 0 if no build has failed. */\n"
        "size_t {0}_build_log(char* buffer, size_t size);\n"
        "/* The embedded SPIR-V module and its size in bytes. */\n"
        "const unsigned char* {0}_spirv(size_t* size);\n"
        "/* Releases every cached program, kernel, module and command list (all contexts) and the build\n"
        " * log. Call it when no launch of this stub is running, and before destroying a Level Zero\n"
        " * context it launched on. A later launch builds again. */\n"
        "void {0}_release(void);\n"
        "#ifndef XTC_STUB_NO_LEVEL_ZERO\n"
        "/* Releases what the cache holds for one Level Zero context (same rules as {0}_release). */\n"
        "void {0}_release_ze_context(ze_context_handle_t context);\n"
        "#endif\n",
        n_);
    for (const K& k : kernels_) h += kernelDecls(k);
    h += "\n#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n";
    h += fmt::format("#endif /* {} */\n", guard);
    return h;
  }

  std::string kernelDecls(const K& k) const {
    const KernelModel& m = k.m;
    std::string s = "\n";
    std::vector<std::string> sig;
    for (const StubParam& p : m.params) sig.push_back(p.irName + ": " + p.type.str());
    s += fmt::format("/* ---- kernel {}({})\n", m.name, commentSafe(join(sig)));
    s += fmt::format(" * target {}, subgroup size {}, workgroup {}x{}x{} work-items\n",
                     m.target.empty() ? "(unspecified)" : m.target, m.sgSize, m.wgSize[0], m.wgSize[1], m.wgSize[2]);
    s += fmt::format(" * grid (workgroups) = ({}, {}, {})\n", commentSafe(k.rule.pretty[0]),
                     commentSafe(k.rule.pretty[1]), commentSafe(k.rule.pretty[2]));
    s += " * Arguments in kernel order: each memref is a buffer followed by one int64_t per dynamic\n"
         " * dimension (dense row-major, or column-major for strides = [1, N]); scalars by value (index\n"
         " * as int64_t, f16/bf16 as uint16_t bits).\n";
    if (m.checkPitch && !m.surfaceFallback) {
      s += " * 2D block IO: rows (columns if column-major) of 2-D or higher memrefs, when dynamic, must be a\n"
           " * multiple of 16 bytes (XTC_STUB_ERROR_BAD_PITCH otherwise) and 64 bytes to 2^24 bytes long\n"
           " * (XTC_STUB_ERROR_BAD_WIDTH otherwise), and their buffers must start on a 64-byte boundary\n"
           " * (XTC_STUB_ERROR_BAD_ALIGNMENT otherwise).\n";
      std::vector<std::string> views;
      for (const StubParam& p : m.params)
        if (p.viewOnly) views.push_back(p.irName);
      if (!views.empty())
        s += fmt::format(" * Rows of any length are taken for {} (used through init_tile views only, whose\n"
                         " * surface rules the kernel checks itself).\n",
                         commentSafe(join(views)));
    } else if (m.checkPitch) {
      s += " * 2D block IO: the buffers of 2-D or higher memrefs must start on a 64-byte boundary\n"
           " * (XTC_STUB_ERROR_BAD_ALIGNMENT otherwise); rows of any length are taken (the kernel was\n"
           " * compiled with --surface-fallback).\n";
    }
    s += " */\n";
    s += fmt::format("#define {}_SG_SIZE {}\n", fn(k, ""), m.sgSize);
    s += fmt::format("#define {0}_WG_SIZE_X {1}\n#define {0}_WG_SIZE_Y {2}\n#define {0}_WG_SIZE_Z {3}\n", fn(k, ""),
                     m.wgSize[0], m.wgSize[1], m.wgSize[2]);
    s += "/* Checks the sizes and evaluates the launch rule: grid[0..2] = workgroups per dimension. */\n";
    s += fmt::format("int {}({}int64_t grid[3]);\n", fn(k, "_grid"), lead(sizeParams(m)));
    s += "#ifndef XTC_STUB_NO_OPENCL\n";
    s += "/* Enqueues the kernel on queue (its context and device select the cached program). */\n";
    s += fmt::format("cl_int {}(cl_command_queue queue, {}cl_uint num_events_in_wait_list,\n"
                     "    const cl_event* event_wait_list, cl_event* event_out);\n",
                     fn(k, "_cl"), lead(abiParams(m, "cl_mem")));
    s += "/* Enqueues the kernel and waits until it has run. */\n";
    s += fmt::format("cl_int {}(cl_command_queue queue{}{});\n", fn(k, "_cl_sync"),
                     m.params.empty() ? "" : ", ", join(abiParams(m, "cl_mem")));
    s += "#endif\n#ifndef XTC_STUB_NO_LEVEL_ZERO\n";
    s += "/* Appends the kernel to list (created on context and device). Buffers are device or shared USM. */\n";
    s += fmt::format("ze_result_t {}(ze_context_handle_t context, ze_device_handle_t device,\n"
                     "    ze_command_list_handle_t list, {}ze_event_handle_t signal_event,\n"
                     "    uint32_t num_wait_events, ze_event_handle_t* wait_events);\n",
                     fn(k, "_ze"), lead(abiParams(m, "void*")));
    s += "/* Runs the kernel on a synchronous immediate command list the stub keeps per context and\n"
         " * device, and returns when it has finished. */\n";
    s += fmt::format("ze_result_t {}(ze_context_handle_t context, ze_device_handle_t device{}{});\n", fn(k, "_ze_sync"),
                     m.params.empty() ? "" : ", ", join(abiParams(m, "void*")));
    s += "#endif\n";
    return s;
  }

  // ------------------------------------------------------------------------------------------------
  std::string sourceFile() const {
    std::string c;
    c += fmt::format(
        "/* {0}.c: host launcher for the kernels of {1}, generated by xtc. Do not edit; see {0}.h.\n"
        " * Build: cc -c {0}.c (C99 or later, or as C++); link -lOpenCL and/or -lze_loader, and -pthread. */\n",
        n_, commentSafe(source_));
    c += "#ifndef _POSIX_C_SOURCE\n#define _POSIX_C_SOURCE 200809L\n#endif\n";
    c += fmt::format("#include \"{}.h\"\n\n", n_);
    c += "#include <pthread.h>\n#include <stdlib.h>\n#include <string.h>\n\n";
    c += spirvArray();
    c += fmt::format("\n#define {}_NUM_KERNELS {}\n", n_, kernels_.size());
    // What only the runtime sections use is compiled out with them (no unused-variable warnings).
    c += "#if !defined(XTC_STUB_NO_OPENCL) || !defined(XTC_STUB_NO_LEVEL_ZERO)\n";
    c += fmt::format("static const char* const {}_kernel_names[{}] = {{", n_, kernels_.size());
    for (size_t i = 0; i < kernels_.size(); ++i) c += fmt::format("{}\"{}\"", i ? ", " : "", kernels_[i].m.name);
    c += "};\n";
    c += fmt::format("/* Build options (kernel attribute build_options): as given for Level Zero, in OpenCL's spelling for\n"
                     " * OpenCL (used on GPU devices only; see {0}_cl_build). */\n"
                     "#ifndef XTC_STUB_NO_LEVEL_ZERO\nstatic const char {0}_build_flags_ze[] = \"{1}\";\n#endif\n"
                     "#ifndef XTC_STUB_NO_OPENCL\nstatic const char {0}_build_flags_cl[] = \"{2}\";\n#endif\n",
                     n_, cEscape(buildOptions()), cEscape(openclBuildOptions(buildOptions())));
    c += "#endif\n#ifndef XTC_STUB_NO_LEVEL_ZERO\n";
    c += fmt::format("static const uint32_t {}_wg_size[{}][3] = {{", n_, kernels_.size());
    for (size_t i = 0; i < kernels_.size(); ++i)
      c += fmt::format("{}{{{}u, {}u, {}u}}", i ? ", " : "", kernels_[i].m.wgSize[0], kernels_[i].m.wgSize[1],
                       kernels_[i].m.wgSize[2]);
    c += "};\n#endif\n\n";
    c += fmt::format(
        "/* Guards the caches and the build log. Launches hold it only to find or build a cache entry. */\n"
        "static pthread_mutex_t {0}_mutex = PTHREAD_MUTEX_INITIALIZER;\n"
        "static char* {0}_log;       /* last failed build's log (malloc'd), or NULL */\n"
        "static size_t {0}_log_len;\n\n",
        n_);
    c += commonFunctions();
    c += sizeHelpers();
    std::set<std::string> helpers;
    for (const K& k : kernels_) helpers.insert(k.rule.helpers.begin(), k.rule.helpers.end());
    c += stub::launchHelperDefinitions(helpers);
    for (const K& k : kernels_) c += prepareFunctions(k);
    c += openclSection();
    c += levelZeroSection();
    c += releaseFunctions();
    return c;
  }


  std::string buildOptions() const {
    // One program holds every kernel, so they share one option string (generateStub checks that
    // they agree).
    return kernels_.empty() ? std::string() : kernels_.front().m.buildOptions;
  }

  std::string spirvArray() const {
    std::string s = fmt::format("/* The SPIR-V module ({} words), little-endian bytes. */\n", spirv_.size());
    s += fmt::format("static const unsigned char {}_spirv_bytes[{}] = {{\n", n_, spirv_.size() * 4);
    std::string line;
    size_t count = 0, total = spirv_.size() * 4;
    for (uint32_t w : spirv_) {
      for (int b = 0; b < 4; ++b) {
        line += fmt::format("0x{:02x}", (w >> (8 * b)) & 0xffu);
        ++count;
        if (count != total) line += ",";
        if (count % 16 == 0 || count == total) {
          s += "  " + line + "\n";
          line.clear();
        } else {
          line += " ";
        }
      }
    }
    s += "};\n";
    return s;
  }

  std::string commonFunctions() const {
    std::string s;
    s += fmt::format("const unsigned char* {0}_spirv(size_t* size) {{\n"
                     "  if (size) *size = sizeof {0}_spirv_bytes;\n"
                     "  return {0}_spirv_bytes;\n}}\n\n",
                     n_);
    s += fmt::format("const char* {}_error_string(int code) {{\n  switch (code) {{\n", n_);
    for (const stub::ErrorName& e : stub::allErrorNames()) {
      std::string text = e.text;
      for (size_t p; (p = text.find("NAME_")) != std::string::npos;) text.replace(p, 5, n_ + "_");
      std::string lit = e.code < 0 ? fmt::format("{}", e.code) : fmt::format("0x{:X}", e.code);
      s += fmt::format("    case {}: return \"{}{}\";\n", lit, e.name, text.empty() ? "" : ": " + cEscape(text));
    }
    s += "    default: return \"unknown error code\";\n  }\n}\n\n";
    s += "#if !defined(XTC_STUB_NO_OPENCL) || !defined(XTC_STUB_NO_LEVEL_ZERO)\n";
    s += fmt::format(
        "/* Replaces the saved build log; called with {0}_mutex held. */\n"
        "static void {0}_set_log(const char* text, size_t len) {{\n"
        "  char* copy = (char*)malloc(len + 1);\n"
        "  if (!copy) return;\n"
        "  if (len) memcpy(copy, text, len);\n"
        "  copy[len] = '\\0';\n"
        "  free({0}_log);\n"
        "  {0}_log = copy;\n"
        "  {0}_log_len = len;\n"
        "}}\n"
        "#endif\n\n"
        "size_t {0}_build_log(char* buffer, size_t size) {{\n"
        "  size_t len;\n"
        "  pthread_mutex_lock(&{0}_mutex);\n"
        "  len = {0}_log ? {0}_log_len : 0;\n"
        "  if (buffer && size > 0) {{\n"
        "    size_t n = len < size - 1 ? len : size - 1;\n"
        "    if (n) memcpy(buffer, {0}_log, n);\n"
        "    buffer[n] = '\\0';\n"
        "  }}\n"
        "  pthread_mutex_unlock(&{0}_mutex);\n"
        "  return len;\n"
        "}}\n\n",
        n_);
    return s;
  }

  std::string sizeHelpers() const {
    return "/* *r = a * b; 0 when the product does not fit in 64 bits. */\n"
           "static int xtc_mul_u64(uint64_t a, uint64_t b, uint64_t* r) {\n"
           "  if (a != 0u && b > UINT64_MAX / a) return 0;\n"
           "  *r = a * b;\n"
           "  return 1;\n"
           "}\n\n";
  }

  // NAME_K_prepare (argument checks + launch rule) and the public NAME_K_grid.
  std::string prepareFunctions(const K& k) const {
    const KernelModel& m = k.m;
    size_t nb = numMemRefs(m);
    std::string s;
    s += fmt::format("/* ---- kernel {} */\n", m.name);
    s += fmt::format("/* Size checks and launch rule of {}: bytes[i] is the byte size memref i needs. */\n", m.name);
    s += fmt::format("static int {}({}uint64_t xtc_bytes[{}], int64_t xtc_grid[3]) {{\n", fn(k, "_prepare"),
                     lead(sizeParams(m)), nb ? nb : 1);
    if (nb == 0) s += "  (void)xtc_bytes;\n";
    for (const StubParam& p : m.params)
      if (!p.isMemRef()) s += fmt::format("  (void){};\n", p.cName);
    std::vector<std::string> negs;
    for (const StubParam& p : m.params)
      for (const std::string& d : p.dimNames)
        if (!d.empty()) negs.push_back(d + " < 0");
    if (!negs.empty()) s += fmt::format("  if ({}) return XTC_STUB_ERROR_NEGATIVE_SIZE;\n", join(negs, " || "));
    size_t bi = 0;
    for (const StubParam& p : m.params) {
      if (!p.isMemRef()) continue;
      s += fmt::format("  /* {}: {} */\n", p.irName, commentSafe(p.type.str()));
      s += fmt::format("  xtc_bytes[{}] = {}u;\n", bi, stub::elemBytes(p.type.elem()));
      std::vector<std::string> muls;
      for (int64_t d = 0; d < p.type.rank(); ++d) {
        std::string f = p.dimNames[static_cast<size_t>(d)].empty()
                            ? fmt::format("UINT64_C({})", p.type.shape()[static_cast<size_t>(d)])
                            : fmt::format("(uint64_t){}", p.dimNames[static_cast<size_t>(d)]);
        muls.push_back(fmt::format("!xtc_mul_u64(xtc_bytes[{0}], {1}, &xtc_bytes[{0}])", bi, f));
      }
      muls.push_back(fmt::format("xtc_bytes[{}] > (uint64_t)INT64_MAX", bi));
      s += fmt::format("  if ({}) return XTC_STUB_ERROR_SIZE_OVERFLOW;\n", join(muls, " ||\n      "));
      // A row is the fastest dimension's run: the last, or dimension r-2 of a column-major memref
      // (its 2D block IO reads the transposed row-major view: docs/passes.md, order-transpose).
      const std::string& rowDim = p.dimNames[static_cast<size_t>(fastestDim(p.type))];
      if (m.checkPitch && !m.surfaceFallback && !p.viewOnly && p.type.rank() >= 2 && !rowDim.empty()) {
        s += fmt::format("  if (((uint64_t){} * {}u) % 16u != 0u) return XTC_STUB_ERROR_BAD_PITCH;\n",
                         rowDim, stub::elemBytes(p.type.elem()));
        // Rows of 64 bytes to 2^24 (reference §2.5): a bf16 matrix of 16 columns has 32-byte rows.
        s += fmt::format("  if ((uint64_t){0} * {1}u < 64u || (uint64_t){0} * {1}u > UINT64_C(16777216)) return XTC_STUB_ERROR_BAD_WIDTH;\n",
                         rowDim, stub::elemBytes(p.type.elem()));
      }
      ++bi;
    }
    s += "  /* Launch rule */\n";
    s += k.rule.statements;
    for (int i = 0; i < 3; ++i) s += fmt::format("  xtc_grid[{}] = {};\n", i, k.rule.grid[i]);
    s += "  if (xtc_grid[0] < 0 || xtc_grid[1] < 0 || xtc_grid[2] < 0) return XTC_STUB_ERROR_NEGATIVE_GRID;\n";
    s += "  return 0;\n}\n\n";

    s += fmt::format("int {}({}int64_t grid[3]) {{\n", fn(k, "_grid"), lead(sizeParams(m)));
    s += fmt::format("  uint64_t xtc_bytes[{}];\n", nb ? nb : 1);
    s += "  if (!grid) return XTC_STUB_ERROR_NULL_BUFFER;\n";
    s += fmt::format("  return {}({}xtc_bytes, grid);\n}}\n\n", fn(k, "_prepare"), lead(sizeNames(m)));
    return s;
  }

  // ------------------------------------------------------------------------------------------------
  std::string openclSection() const {
    std::string s = "#ifndef XTC_STUB_NO_OPENCL\n/* ---- OpenCL ---- */\n";
    s += fmt::format(
        "/* One built program per (context, device), kernels created once. The context and device are\n"
        " * retained, so their addresses cannot be reused while cached. */\n"
        "typedef struct {0}_cl_entry {{\n"
        "  struct {0}_cl_entry* next;\n"
        "  cl_context context;\n"
        "  cl_device_id device;\n"
        "  cl_program program;\n"
        "  cl_kernel kernels[{0}_NUM_KERNELS];\n"
        "  /* clSetKernelArg is not thread-safe on one cl_kernel: arguments + enqueue under this lock. */\n"
        "  pthread_mutex_t lock;\n"
        "}} {0}_cl_entry;\n"
        "static {0}_cl_entry* {0}_cl_cache; /* guarded by {0}_mutex */\n\n"
        "static void {0}_cl_free({0}_cl_entry* e) {{\n"
        "  unsigned i;\n"
        "  for (i = 0; i < {0}_NUM_KERNELS; ++i)\n"
        "    if (e->kernels[i]) clReleaseKernel(e->kernels[i]);\n"
        "  if (e->program) clReleaseProgram(e->program);\n"
        "  if (e->device) clReleaseDevice(e->device);\n"
        "  if (e->context) clReleaseContext(e->context);\n"
        "  pthread_mutex_destroy(&e->lock);\n"
        "  free(e);\n"
        "}}\n\n"
        "/* Saves the build log of a failed build; called with {0}_mutex held. */\n"
        "static void {0}_cl_save_log(cl_program program, cl_device_id device) {{\n"
        "  size_t n = 0;\n"
        "  char* text;\n"
        "  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n == 0) {{\n"
        "    {0}_set_log(\"(the OpenCL runtime gave no build log)\", 38);\n"
        "    return;\n"
        "  }}\n"
        "  text = (char*)malloc(n + 1);\n"
        "  if (!text) return;\n"
        "  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, text, NULL) == CL_SUCCESS) {{\n"
        "    text[n] = '\\0';\n"
        "    {0}_set_log(text, strlen(text));\n"
        "  }}\n"
        "  free(text);\n"
        "}}\n\n"
        "/* Builds the program and creates the kernels; called with {0}_mutex held. */\n"
        "static cl_int {0}_cl_build(cl_context context, cl_device_id device, {0}_cl_entry** out) {{\n"
        "  cl_int rc = CL_SUCCESS;\n"
        "  cl_device_type type = 0;\n"
        "  unsigned i;\n"
        "  {0}_cl_entry* e = ({0}_cl_entry*)calloc(1, sizeof({0}_cl_entry));\n"
        "  if (!e) return CL_OUT_OF_HOST_MEMORY;\n"
        "  if (pthread_mutex_init(&e->lock, NULL) != 0) {{\n"
        "    free(e);\n"
        "    return CL_OUT_OF_HOST_MEMORY;\n"
        "  }}\n"
        "  rc = clRetainContext(context);\n"
        "  if (rc != CL_SUCCESS) {{\n"
        "    {0}_cl_free(e);\n"
        "    return rc;\n"
        "  }}\n"
        "  e->context = context;\n"
        "  rc = clRetainDevice(device);\n"
        "  if (rc != CL_SUCCESS) {{\n"
        "    {0}_cl_free(e);\n"
        "    return rc;\n"
        "  }}\n"
        "  e->device = device;\n"
        "  e->program = clCreateProgramWithIL(context, {0}_spirv_bytes, sizeof {0}_spirv_bytes, &rc);\n"
        "  if (rc != CL_SUCCESS) {{\n"
        "    e->program = NULL;\n"
        "    {0}_cl_free(e);\n"
        "    return rc;\n"
        "  }}\n"
        "  /* The options are Intel GPU code-generation hints (register file size); other OpenCL devices,\n"
        "   * such as the CPU runtime, reject them as CL_INVALID_BUILD_OPTIONS, so they get none. */\n"
        "  rc = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);\n"
        "  if (rc == CL_SUCCESS)\n"
        "    rc = clBuildProgram(e->program, 1, &device, (type & CL_DEVICE_TYPE_GPU) ? {0}_build_flags_cl : \"\", NULL, NULL);\n"
        "  if (rc != CL_SUCCESS) {{\n"
        "    {0}_cl_save_log(e->program, device);\n"
        "    {0}_cl_free(e);\n"
        "    return rc;\n"
        "  }}\n"
        "  for (i = 0; i < {0}_NUM_KERNELS; ++i) {{\n"
        "    e->kernels[i] = clCreateKernel(e->program, {0}_kernel_names[i], &rc);\n"
        "    if (rc != CL_SUCCESS) {{\n"
        "      e->kernels[i] = NULL;\n"
        "      {0}_cl_free(e);\n"
        "      return rc;\n"
        "    }}\n"
        "  }}\n"
        "  *out = e;\n"
        "  return CL_SUCCESS;\n"
        "}}\n\n"
        "/* The cache entry of the queue's context and device, built on first use. */\n"
        "static cl_int {0}_cl_get(cl_command_queue queue, {0}_cl_entry** out) {{\n"
        "  cl_context context = NULL;\n"
        "  cl_device_id device = NULL;\n"
        "  {0}_cl_entry* e;\n"
        "  cl_int rc = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);\n"
        "  if (rc != CL_SUCCESS) return rc;\n"
        "  rc = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL);\n"
        "  if (rc != CL_SUCCESS) return rc;\n"
        "  pthread_mutex_lock(&{0}_mutex);\n"
        "  for (e = {0}_cl_cache; e; e = e->next)\n"
        "    if (e->context == context && e->device == device) break;\n"
        "  if (!e) {{\n"
        "    rc = {0}_cl_build(context, device, &e);\n"
        "    if (rc == CL_SUCCESS) {{\n"
        "      e->next = {0}_cl_cache;\n"
        "      {0}_cl_cache = e;\n"
        "    }}\n"
        "  }}\n"
        "  pthread_mutex_unlock(&{0}_mutex);\n"
        "  *out = e;\n"
        "  return rc;\n"
        "}}\n\n"
        "/* Size check; with align != 0 also the base alignment 2D block IO needs. A buffer's own base\n"
        " * is aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 64 bytes on Intel GPUs); a sub-buffer\n"
        " * adds its offset, which is what can break the alignment. */\n"
        "static cl_int {0}_cl_check_buffer(cl_mem buffer, uint64_t need, size_t align) {{\n"
        "  size_t size = 0, offset = 0;\n"
        "  cl_int rc = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL);\n"
        "  if (rc != CL_SUCCESS) return rc;\n"
        "  if ((uint64_t)size < need) return XTC_STUB_ERROR_BUFFER_TOO_SMALL;\n"
        "  if (!align) return CL_SUCCESS;\n"
        "  rc = clGetMemObjectInfo(buffer, CL_MEM_OFFSET, sizeof offset, &offset, NULL);\n"
        "  if (rc != CL_SUCCESS) return rc;\n"
        "  return offset % align != 0u ? XTC_STUB_ERROR_BAD_ALIGNMENT : CL_SUCCESS;\n"
        "}}\n\n",
        n_);
    for (size_t i = 0; i < kernels_.size(); ++i) s += openclKernel(kernels_[i], i);
    s += "#endif /* XTC_STUB_NO_OPENCL */\n\n";
    return s;
  }

  std::string openclKernel(const K& k, size_t index) const {
    const KernelModel& m = k.m;
    size_t nb = numMemRefs(m);
    std::vector<CArg> args = abiArgs(m);
    std::string s;
    s += fmt::format("cl_int {}(cl_command_queue queue, {}cl_uint num_events_in_wait_list,\n"
                     "    const cl_event* event_wait_list, cl_event* event_out) {{\n",
                     fn(k, "_cl"), lead(abiParams(m, "cl_mem")));
    s += fmt::format("  static const size_t xtc_local[3] = {{{}u, {}u, {}u}};\n", m.wgSize[0], m.wgSize[1], m.wgSize[2]);
    s += fmt::format("  uint64_t xtc_bytes[{}];\n", nb ? nb : 1);
    s += "  int64_t xtc_grid[3];\n  size_t xtc_global[3];\n";
    s += fmt::format("  {}_cl_entry* xtc_e = NULL;\n", n_);
    s += "  cl_kernel xtc_k;\n  cl_int xtc_rc;\n  unsigned xtc_i;\n";
    s += "  if (!queue) return CL_INVALID_COMMAND_QUEUE;\n";
    std::vector<std::string> nulls;
    for (const StubParam& p : m.params)
      if (p.isMemRef()) nulls.push_back("!" + p.cName);
    if (!nulls.empty()) s += fmt::format("  if ({}) return XTC_STUB_ERROR_NULL_BUFFER;\n", join(nulls, " || "));
    s += fmt::format("  xtc_rc = {}({}xtc_bytes, xtc_grid);\n", fn(k, "_prepare"), lead(sizeNames(m)));
    s += "  if (xtc_rc != 0) return xtc_rc;\n";
    s += "  for (xtc_i = 0; xtc_i < 3; ++xtc_i) {\n"
         "    if ((uint64_t)xtc_grid[xtc_i] > (uint64_t)(SIZE_MAX / xtc_local[xtc_i])) return XTC_STUB_ERROR_GRID_TOO_LARGE;\n"
         "    xtc_global[xtc_i] = (size_t)xtc_grid[xtc_i] * xtc_local[xtc_i];\n"
         "  }\n";
    size_t bi = 0;
    for (const StubParam& p : m.params) {
      if (!p.isMemRef()) continue;
      s += fmt::format("  xtc_rc = {}_cl_check_buffer({}, xtc_bytes[{}], {}u);\n  if (xtc_rc != CL_SUCCESS) return xtc_rc;\n",
                       n_, p.cName, bi++, blockIOAlignment(m, p));
    }
    s += fmt::format("  xtc_rc = {}_cl_get(queue, &xtc_e);\n  if (xtc_rc != CL_SUCCESS) return xtc_rc;\n", n_);
    s += "  /* An empty grid runs nothing; a marker keeps the event contract. */\n"
         "  if (xtc_global[0] == 0 || xtc_global[1] == 0 || xtc_global[2] == 0)\n"
         "    return clEnqueueMarkerWithWaitList(queue, num_events_in_wait_list, event_wait_list, event_out);\n";
    s += fmt::format("  xtc_k = xtc_e->kernels[{}];\n  {{\n", index);
    for (size_t i = 0; i < args.size(); ++i)
      if (!args[i].buffer) s += fmt::format("    {} xtc_a{} = ({}){};\n", args[i].clType, i, args[i].clType, args[i].convert);
    s += "    pthread_mutex_lock(&xtc_e->lock);\n";
    for (size_t i = 0; i < args.size(); ++i) {
      std::string set = args[i].buffer
                            ? fmt::format("clSetKernelArg(xtc_k, {}, sizeof(cl_mem), &{})", i, args[i].expr)
                            : fmt::format("clSetKernelArg(xtc_k, {}, sizeof(xtc_a{}), &xtc_a{})", i, i, i);
      s += i == 0 ? fmt::format("    xtc_rc = {};\n", set) : fmt::format("    if (xtc_rc == CL_SUCCESS) xtc_rc = {};\n", set);
    }
    s += fmt::format("    {}xtc_rc = clEnqueueNDRangeKernel(queue, xtc_k, 3, NULL, xtc_global, xtc_local,\n"
                     "        num_events_in_wait_list, event_wait_list, event_out);\n",
                     args.empty() ? "" : "if (xtc_rc == CL_SUCCESS) ");
    s += "    pthread_mutex_unlock(&xtc_e->lock);\n  }\n  return xtc_rc;\n}\n\n";

    s += fmt::format("cl_int {}(cl_command_queue queue{}{}) {{\n", fn(k, "_cl_sync"), m.params.empty() ? "" : ", ",
                     join(abiParams(m, "cl_mem")));
    s += "  cl_event xtc_event = NULL;\n  cl_int xtc_status = CL_COMPLETE;\n";
    s += fmt::format("  cl_int xtc_rc = {}(queue, {}0, NULL, &xtc_event);\n", fn(k, "_cl"), lead(abiNames(m)));
    s += "  if (xtc_rc != CL_SUCCESS) return xtc_rc;\n"
         "  xtc_rc = clWaitForEvents(1, &xtc_event);\n"
         "  if (xtc_rc == CL_SUCCESS)\n"
         "    xtc_rc = clGetEventInfo(xtc_event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof xtc_status, &xtc_status, NULL);\n"
         "  if (xtc_rc == CL_SUCCESS && xtc_status < 0) xtc_rc = xtc_status;\n"
         "  clReleaseEvent(xtc_event);\n"
         "  return xtc_rc;\n}\n\n";
    return s;
  }

  // ------------------------------------------------------------------------------------------------
  std::string levelZeroSection() const {
    std::string s = "#ifndef XTC_STUB_NO_LEVEL_ZERO\n/* ---- Level Zero ---- */\n";
    s += fmt::format(
        "/* One module per (context, device), kernels created once with their workgroup size. */\n"
        "typedef struct {0}_ze_entry {{\n"
        "  struct {0}_ze_entry* next;\n"
        "  ze_context_handle_t context;\n"
        "  ze_device_handle_t device;\n"
        "  ze_module_handle_t module;\n"
        "  ze_kernel_handle_t kernels[{0}_NUM_KERNELS];\n"
        "  ze_command_list_handle_t sync_list; /* immediate, synchronous; created by the first _ze_sync */\n"
        "  /* Kernel arguments are per ze_kernel_handle_t: arguments + append under this lock. */\n"
        "  pthread_mutex_t lock;\n"
        "}} {0}_ze_entry;\n"
        "static {0}_ze_entry* {0}_ze_cache; /* guarded by {0}_mutex */\n\n"
        "static void {0}_ze_free({0}_ze_entry* e) {{\n"
        "  unsigned i;\n"
        "  for (i = 0; i < {0}_NUM_KERNELS; ++i)\n"
        "    if (e->kernels[i]) zeKernelDestroy(e->kernels[i]);\n"
        "  if (e->module) zeModuleDestroy(e->module);\n"
        "  if (e->sync_list) zeCommandListDestroy(e->sync_list);\n"
        "  pthread_mutex_destroy(&e->lock);\n"
        "  free(e);\n"
        "}}\n\n"
        "/* Saves a build log; called with {0}_mutex held. */\n"
        "static void {0}_ze_save_log(ze_module_build_log_handle_t log) {{\n"
        "  size_t n = 0;\n"
        "  char* text;\n"
        "  if (!log || zeModuleBuildLogGetString(log, &n, NULL) != ZE_RESULT_SUCCESS || n == 0) {{\n"
        "    {0}_set_log(\"(the Level Zero driver gave no build log)\", 41);\n"
        "    return;\n"
        "  }}\n"
        "  text = (char*)malloc(n + 1);\n"
        "  if (!text) return;\n"
        "  if (zeModuleBuildLogGetString(log, &n, text) == ZE_RESULT_SUCCESS) {{\n"
        "    text[n] = '\\0';\n"
        "    {0}_set_log(text, strlen(text));\n"
        "  }}\n"
        "  free(text);\n"
        "}}\n\n"
        "/* Builds the module and creates the kernels; called with {0}_mutex held. */\n"
        "static ze_result_t {0}_ze_build(ze_context_handle_t context, ze_device_handle_t device, {0}_ze_entry** out) {{\n"
        "  ze_module_desc_t desc;\n"
        "  ze_module_build_log_handle_t log = NULL;\n"
        "  ze_result_t rc;\n"
        "  unsigned i;\n"
        "  {0}_ze_entry* e = ({0}_ze_entry*)calloc(1, sizeof({0}_ze_entry));\n"
        "  if (!e) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;\n"
        "  if (pthread_mutex_init(&e->lock, NULL) != 0) {{\n"
        "    free(e);\n"
        "    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;\n"
        "  }}\n"
        "  e->context = context;\n"
        "  e->device = device;\n"
        "  memset(&desc, 0, sizeof desc);\n"
        "  desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;\n"
        "  desc.format = ZE_MODULE_FORMAT_IL_SPIRV;\n"
        "  desc.inputSize = sizeof {0}_spirv_bytes;\n"
        "  desc.pInputModule = (const uint8_t*){0}_spirv_bytes;\n"
        "  desc.pBuildFlags = {0}_build_flags_ze;\n"
        "  rc = zeModuleCreate(context, device, &desc, &e->module, &log);\n"
        "  if (rc != ZE_RESULT_SUCCESS) {{\n"
        "    e->module = NULL;\n"
        "    {0}_ze_save_log(log);\n"
        "  }}\n"
        "  if (log) zeModuleBuildLogDestroy(log);\n"
        "  for (i = 0; rc == ZE_RESULT_SUCCESS && i < {0}_NUM_KERNELS; ++i) {{\n"
        "    ze_kernel_desc_t kd;\n"
        "    memset(&kd, 0, sizeof kd);\n"
        "    kd.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;\n"
        "    kd.pKernelName = {0}_kernel_names[i];\n"
        "    rc = zeKernelCreate(e->module, &kd, &e->kernels[i]);\n"
        "    if (rc != ZE_RESULT_SUCCESS) {{\n"
        "      e->kernels[i] = NULL;\n"
        "      break;\n"
        "    }}\n"
        "    rc = zeKernelSetGroupSize(e->kernels[i], {0}_wg_size[i][0], {0}_wg_size[i][1], {0}_wg_size[i][2]);\n"
        "  }}\n"
        "  if (rc != ZE_RESULT_SUCCESS) {{\n"
        "    {0}_ze_free(e);\n"
        "    return rc;\n"
        "  }}\n"
        "  *out = e;\n"
        "  return ZE_RESULT_SUCCESS;\n"
        "}}\n\n"
        "static ze_result_t {0}_ze_get(ze_context_handle_t context, ze_device_handle_t device, {0}_ze_entry** out) {{\n"
        "  ze_result_t rc = ZE_RESULT_SUCCESS;\n"
        "  {0}_ze_entry* e;\n"
        "  pthread_mutex_lock(&{0}_mutex);\n"
        "  for (e = {0}_ze_cache; e; e = e->next)\n"
        "    if (e->context == context && e->device == device) break;\n"
        "  if (!e) {{\n"
        "    rc = {0}_ze_build(context, device, &e);\n"
        "    if (rc == ZE_RESULT_SUCCESS) {{\n"
        "      e->next = {0}_ze_cache;\n"
        "      {0}_ze_cache = e;\n"
        "    }}\n"
        "  }}\n"
        "  pthread_mutex_unlock(&{0}_mutex);\n"
        "  *out = e;\n"
        "  return rc;\n"
        "}}\n\n"
        "/* Creates the entry's synchronous immediate command list on the device's first compute queue\n"
        " * group; called with e->lock held. */\n"
        "static ze_result_t {0}_ze_sync_list({0}_ze_entry* e) {{\n"
        "  uint32_t n = 0, i, ordinal;\n"
        "  ze_command_queue_group_properties_t* props;\n"
        "  ze_command_queue_desc_t qd;\n"
        "  ze_result_t rc;\n"
        "  if (e->sync_list) return ZE_RESULT_SUCCESS;\n"
        "  rc = zeDeviceGetCommandQueueGroupProperties(e->device, &n, NULL);\n"
        "  if (rc != ZE_RESULT_SUCCESS) return rc;\n"
        "  props = (ze_command_queue_group_properties_t*)calloc(n ? n : 1, sizeof(ze_command_queue_group_properties_t));\n"
        "  if (!props) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;\n"
        "  for (i = 0; i < n; ++i) props[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;\n"
        "  rc = zeDeviceGetCommandQueueGroupProperties(e->device, &n, props);\n"
        "  ordinal = n;\n"
        "  for (i = 0; rc == ZE_RESULT_SUCCESS && i < n; ++i)\n"
        "    if (props[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {{\n"
        "      ordinal = i;\n"
        "      break;\n"
        "    }}\n"
        "  free(props);\n"
        "  if (rc != ZE_RESULT_SUCCESS) return rc;\n"
        "  if (ordinal == n) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;\n"
        "  memset(&qd, 0, sizeof qd);\n"
        "  qd.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;\n"
        "  qd.ordinal = ordinal;\n"
        "  qd.index = 0;\n"
        "  qd.mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;\n"
        "  qd.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;\n"
        "  return zeCommandListCreateImmediate(e->context, e->device, &qd, &e->sync_list);\n"
        "}}\n\n"
        "/* Checks an allocation Level Zero knows (pointers it does not know are passed on unchecked) and,\n"
        " * with align != 0, the base alignment 2D block IO needs. */\n"
        "static ze_result_t {0}_ze_check_buffer(ze_context_handle_t context, const void* ptr, uint64_t need, uintptr_t align) {{\n"
        "  void* base = NULL;\n"
        "  size_t size = 0;\n"
        "  uint64_t avail;\n"
        "  if (align && (uintptr_t)ptr % align != 0u) return (ze_result_t)XTC_STUB_ERROR_BAD_ALIGNMENT;\n"
        "  if (zeMemGetAddressRange(context, ptr, &base, &size) != ZE_RESULT_SUCCESS || !base) return ZE_RESULT_SUCCESS;\n"
        "  if ((uintptr_t)ptr < (uintptr_t)base) return ZE_RESULT_SUCCESS;\n"
        "  avail = (uint64_t)((uintptr_t)base + size - (uintptr_t)ptr);\n"
        "  return avail < need ? (ze_result_t)XTC_STUB_ERROR_BUFFER_TOO_SMALL : ZE_RESULT_SUCCESS;\n"
        "}}\n\n",
        n_);
    for (size_t i = 0; i < kernels_.size(); ++i) s += levelZeroKernel(kernels_[i], i);
    s += "#endif /* XTC_STUB_NO_LEVEL_ZERO */\n\n";
    return s;
  }

  std::string levelZeroKernel(const K& k, size_t index) const {
    const KernelModel& m = k.m;
    size_t nb = numMemRefs(m);
    std::vector<CArg> args = abiArgs(m);
    std::string params = lead(abiParams(m, "void*"));
    std::string names = lead(abiNames(m));
    std::string s;
    // Shared checks.
    s += fmt::format("static ze_result_t {}(ze_context_handle_t context, ze_device_handle_t device, {}int64_t xtc_grid[3]) {{\n",
                     fn(k, "_ze_check"), params);
    s += fmt::format("  uint64_t xtc_bytes[{}];\n  int xtc_rc;\n  unsigned xtc_i;\n", nb ? nb : 1);
    s += "  if (!context || !device) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;\n";
    std::vector<std::string> nulls;
    for (const StubParam& p : m.params)
      if (p.isMemRef()) nulls.push_back("!" + p.cName);
    if (!nulls.empty()) s += fmt::format("  if ({}) return (ze_result_t)XTC_STUB_ERROR_NULL_BUFFER;\n", join(nulls, " || "));
    s += fmt::format("  xtc_rc = {}({}xtc_bytes, xtc_grid);\n", fn(k, "_prepare"), lead(sizeNames(m)));
    s += "  if (xtc_rc != 0) return (ze_result_t)xtc_rc;\n";
    s += "  for (xtc_i = 0; xtc_i < 3; ++xtc_i)\n"
         "    if ((uint64_t)xtc_grid[xtc_i] > (uint64_t)UINT32_MAX) return (ze_result_t)XTC_STUB_ERROR_GRID_TOO_LARGE;\n";
    // Last: the only checks that call the runtime.
    size_t bi = 0;
    for (const StubParam& p : m.params) {
      if (!p.isMemRef()) continue;
      s += fmt::format("  xtc_rc = (int){}_ze_check_buffer(context, {}, xtc_bytes[{}], {}u);\n"
                       "  if (xtc_rc != 0) return (ze_result_t)xtc_rc;\n",
                       n_, p.cName, bi++, blockIOAlignment(m, p));
    }
    s += "  return ZE_RESULT_SUCCESS;\n}\n\n";
    // Arguments + append, lock held by the caller.
    s += fmt::format("/* Sets the arguments and appends the launch; called with e->lock held. */\n"
                     "static ze_result_t {}({}_ze_entry* xtc_e, ze_command_list_handle_t list, const int64_t xtc_grid[3],\n"
                     "    {}ze_event_handle_t signal_event, uint32_t num_wait_events, ze_event_handle_t* wait_events) {{\n",
                     fn(k, "_ze_append"), n_, params);
    s += fmt::format("  ze_kernel_handle_t xtc_k = xtc_e->kernels[{}];\n", index);
    s += "  ze_group_count_t xtc_groups;\n  ze_result_t xtc_rc = ZE_RESULT_SUCCESS;\n";
    for (size_t i = 0; i < args.size(); ++i)
      if (!args[i].buffer) s += fmt::format("  {} xtc_a{} = ({}){};\n", args[i].zeType, i, args[i].zeType, args[i].convert);
    s += "  if (xtc_grid[0] == 0 || xtc_grid[1] == 0 || xtc_grid[2] == 0) /* nothing to run */\n"
         "    return zeCommandListAppendBarrier(list, signal_event, num_wait_events, wait_events);\n";
    s += "  xtc_groups.groupCountX = (uint32_t)xtc_grid[0];\n"
         "  xtc_groups.groupCountY = (uint32_t)xtc_grid[1];\n"
         "  xtc_groups.groupCountZ = (uint32_t)xtc_grid[2];\n";
    for (size_t i = 0; i < args.size(); ++i) {
      std::string set = args[i].buffer
                            ? fmt::format("zeKernelSetArgumentValue(xtc_k, {}, sizeof(void*), &{})", i, args[i].expr)
                            : fmt::format("zeKernelSetArgumentValue(xtc_k, {}, sizeof(xtc_a{}), &xtc_a{})", i, i, i);
      s += fmt::format("  if (xtc_rc == ZE_RESULT_SUCCESS) xtc_rc = {};\n", set);
    }
    s += "  if (xtc_rc == ZE_RESULT_SUCCESS)\n"
         "    xtc_rc = zeCommandListAppendLaunchKernel(list, xtc_k, &xtc_groups, signal_event, num_wait_events, wait_events);\n"
         "  return xtc_rc;\n}\n\n";
    // Public entry points.
    s += fmt::format("ze_result_t {}(ze_context_handle_t context, ze_device_handle_t device,\n"
                     "    ze_command_list_handle_t list, {}ze_event_handle_t signal_event,\n"
                     "    uint32_t num_wait_events, ze_event_handle_t* wait_events) {{\n",
                     fn(k, "_ze"), params);
    s += fmt::format("  int64_t xtc_grid[3];\n  {}_ze_entry* xtc_e = NULL;\n  ze_result_t xtc_rc;\n", n_);
    s += "  if (!list) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;\n";
    s += fmt::format("  xtc_rc = {}(context, device, {}xtc_grid);\n  if (xtc_rc != ZE_RESULT_SUCCESS) return xtc_rc;\n",
                     fn(k, "_ze_check"), names);
    s += fmt::format("  xtc_rc = {}_ze_get(context, device, &xtc_e);\n  if (xtc_rc != ZE_RESULT_SUCCESS) return xtc_rc;\n", n_);
    s += "  pthread_mutex_lock(&xtc_e->lock);\n";
    s += fmt::format("  xtc_rc = {}(xtc_e, list, xtc_grid, {}signal_event, num_wait_events, wait_events);\n",
                     fn(k, "_ze_append"), names);
    s += "  pthread_mutex_unlock(&xtc_e->lock);\n  return xtc_rc;\n}\n\n";

    s += fmt::format("ze_result_t {}(ze_context_handle_t context, ze_device_handle_t device{}{}) {{\n", fn(k, "_ze_sync"),
                     m.params.empty() ? "" : ", ", join(abiParams(m, "void*")));
    s += fmt::format("  int64_t xtc_grid[3];\n  {}_ze_entry* xtc_e = NULL;\n  ze_result_t xtc_rc;\n", n_);
    s += fmt::format("  xtc_rc = {}(context, device, {}xtc_grid);\n  if (xtc_rc != ZE_RESULT_SUCCESS) return xtc_rc;\n",
                     fn(k, "_ze_check"), names);
    s += fmt::format("  xtc_rc = {}_ze_get(context, device, &xtc_e);\n  if (xtc_rc != ZE_RESULT_SUCCESS) return xtc_rc;\n", n_);
    s += "  /* The list is synchronous: the append returns once the kernel has finished, so holding the\n"
         "   * lock for it also keeps the list to one thread at a time. */\n";
    s += "  pthread_mutex_lock(&xtc_e->lock);\n";
    s += fmt::format("  xtc_rc = {}_ze_sync_list(xtc_e);\n", n_);
    s += fmt::format("  if (xtc_rc == ZE_RESULT_SUCCESS)\n"
                     "    xtc_rc = {}(xtc_e, xtc_e->sync_list, xtc_grid, {}NULL, 0, NULL);\n",
                     fn(k, "_ze_append"), names);
    s += "  pthread_mutex_unlock(&xtc_e->lock);\n  return xtc_rc;\n}\n\n";
    return s;
  }

  std::string releaseFunctions() const {
    return fmt::format(
        "void {0}_release(void) {{\n"
        "  pthread_mutex_lock(&{0}_mutex);\n"
        "#ifndef XTC_STUB_NO_OPENCL\n"
        "  while ({0}_cl_cache) {{\n"
        "    {0}_cl_entry* e = {0}_cl_cache;\n"
        "    {0}_cl_cache = e->next;\n"
        "    {0}_cl_free(e);\n"
        "  }}\n"
        "#endif\n"
        "#ifndef XTC_STUB_NO_LEVEL_ZERO\n"
        "  while ({0}_ze_cache) {{\n"
        "    {0}_ze_entry* e = {0}_ze_cache;\n"
        "    {0}_ze_cache = e->next;\n"
        "    {0}_ze_free(e);\n"
        "  }}\n"
        "#endif\n"
        "  free({0}_log);\n"
        "  {0}_log = NULL;\n"
        "  {0}_log_len = 0;\n"
        "  pthread_mutex_unlock(&{0}_mutex);\n"
        "}}\n"
        "#ifndef XTC_STUB_NO_LEVEL_ZERO\n\n"
        "void {0}_release_ze_context(ze_context_handle_t context) {{\n"
        "  {0}_ze_entry** link;\n"
        "  pthread_mutex_lock(&{0}_mutex);\n"
        "  link = &{0}_ze_cache;\n"
        "  while (*link) {{\n"
        "    {0}_ze_entry* e = *link;\n"
        "    if (e->context == context) {{\n"
        "      *link = e->next;\n"
        "      {0}_ze_free(e);\n"
        "    }} else {{\n"
        "      link = &e->next;\n"
        "    }}\n"
        "  }}\n"
        "  pthread_mutex_unlock(&{0}_mutex);\n"
        "}}\n"
        "#endif\n",
        n_);
  }

  std::string n_;
  std::string source_;
  const std::vector<uint32_t>& spirv_;
  std::vector<K> kernels_;
};

}  // namespace

bool generateStub(const ir::Operation& module, const std::vector<uint32_t>& spirv, const StubOptions& options,
                  DiagnosticEngine& diags, StubFiles& out) {
  out = StubFiles{};
  if (!isValidStubName(options.name)) {
    diags.error(SourceLoc{}, fmt::format("stub name '{}' is not usable as a C identifier prefix (letters, digits and "
                                         "'_', not starting with a digit, not a C/C++ keyword or reserved name)",
                                         options.name));
    return false;
  }
  if (spirv.empty()) {
    diags.error(SourceLoc{}, "internal error: host stub: no SPIR-V to embed (xtc compile always has a binary by now)");
    return false;
  }
  std::vector<ir::Operation*> kernels = ir::moduleKernels(const_cast<ir::Operation*>(&module));
  if (kernels.empty()) {
    diags.error(module.loc(), "host stub: the module has no kernel to launch (drop --stub, or compile a file with a kernel)");
    return false;
  }
  Generator gen(options.name, options.sourceName, spirv);
  bool ok = true;
  const KernelModel* first = nullptr;
  std::vector<KernelModel> models(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    KernelModel& m = models[i];
    if (!stub::buildKernelModel(*kernels[i], diags, m)) {
      ok = false;
      continue;
    }
    for (size_t j = 0; j < i; ++j)
      if (models[j].name == m.name) {
        diags.error(kernels[i]->loc(), fmt::format("host stub: two kernels are named '{}'", m.name));
        ok = false;
      }
    if (!first) {
      first = &m;
    } else if (m.buildOptions != first->buildOptions) {
      diags.error(kernels[i]->loc(),
                  fmt::format("host stub: kernel '{}' has build_options \"{}\" but kernel '{}' has \"{}\"; one SPIR-V "
                              "module is built with one option string (different options per kernel are not "
                              "implemented yet)",
                              m.name, m.buildOptions, first->name, first->buildOptions));
      ok = false;
    }
    LaunchRuleC rule;
    if (!stub::translateLaunchRule(m, diags, rule)) {
      ok = false;
      continue;
    }
    if (ok) gen.addKernel(m, std::move(rule));
  }
  if (!ok) return false;
  out = gen.generate();
  return true;
}

std::string openclBuildOptions(const std::string& levelZeroOptions) {
  static const std::vector<std::pair<std::string, std::string>> map = {
      {"-ze-opt-large-register-file", "-cl-intel-256-GRF-per-thread"}};
  std::string out, word;
  std::istringstream in(levelZeroOptions);
  while (in >> word) {
    for (const auto& [from, to] : map)
      if (word == from) word = to;
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

}  // namespace xtc::backend
