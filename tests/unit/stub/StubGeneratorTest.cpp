// Unit tests for backends/stub: the generated API text for hand-built lowered modules (prototypes,
// ABI order, renamed parameters, embedded SPIR-V bytes), determinism, generator errors with their
// locations, that the generated files compile warning-free as C99 and C++17 (the system compiler is
// run on them), and that the C translation of launch rules computes exactly what the reference
// interpreter's evaluateLaunchGrid computes, on random arguments (fixed seed).
#include "backends/stub/StubGenerator.h"
#include "ir/Module.h"
#include "ir/interpret/Interpreter.h"
#include "tests/common/BuildOp.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

namespace xtc {
namespace {

using ir::Attribute;
using ir::ElemKind;
using ir::Type;
using ir::Value;

using test::op1;
Value* dim(ir::Builder& b, Value* m, int64_t d) {
  return op1(b, "memref.dim", {m}, Type::index(), {{"index", Attribute::integer(d)}});
}

struct Ctx {
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags{sm, out};
  SourceLoc at(uint32_t line, uint32_t col) { return SourceLoc{sm.intern("k.xt"), line, col}; }
  std::string text() {
    diags.flush();
    return out.str();
  }
};

void lowered(ir::Operation* k, std::vector<int64_t> wg, int64_t sg, const std::string& target) {
  k->setAttr("wg_size", Attribute::intArray(wg));
  k->setAttr("sg_size", Attribute::integer(sg));
  k->setAttr("target", Attribute::string(target));
  ir::Builder b(&ir::kernelBody(k));
  b.create("xtc.return", {}, {});
}

// axpy(X: memref<?xf32>, Y: memref<?xf32>, a: f32), grid (ceildiv(dim(X, 0), 64), 1, 1).
std::unique_ptr<ir::Operation> axpyModule(Ctx& c) {
  auto m = ir::createModule();
  Type v = Type::memref({ir::kDynamic}, ElemKind::F32);
  ir::Operation* k = ir::createKernel(m.get(), "axpy", {"X", "Y", "a"}, {v, v, Type::scalar(ElemKind::F32)}, c.at(1, 1));
  ir::Builder b(&ir::kernelLaunch(k));
  Value* gx = op1(b, "arith.ceildivsi", {dim(b, ir::kernelLaunch(k).argument(0), 0), b.constantIndex(64)}, Type::index());
  b.create("xtc.grid", {gx, b.constantIndex(1), b.constantIndex(1)}, {});
  lowered(k, {64, 1, 1}, 16, "generic");
  return m;
}

const std::vector<uint32_t> kSpirv = {0x07230203u, 0x00010400u, 0x00000000u, 0x0000000Bu, 0x00000000u};

backend::StubFiles gen(const ir::Operation& m, Ctx& c, const std::string& name = "fx", bool expectOk = true) {
  backend::StubFiles f;
  bool ok = backend::generateStub(m, kSpirv, backend::StubOptions{name, "k.xt"}, c.diags, f);
  EXPECT_EQ(ok, expectOk) << c.text();
  return f;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(StubGenerator, HeaderDeclaresOneTypedLaunchFunctionPerKernelAndRuntime) {
  Ctx c;
  auto m = axpyModule(c);
  backend::StubFiles f = gen(*m, c);
  const std::string& h = f.header;
  EXPECT_TRUE(contains(h, "int fx_axpy_grid(int64_t X_dim0, int64_t Y_dim0, float a, int64_t grid[3]);")) << h;
  EXPECT_TRUE(contains(h, "cl_int fx_axpy_cl(cl_command_queue queue, cl_mem X, int64_t X_dim0, cl_mem Y, int64_t Y_dim0, "
                          "float a, cl_uint num_events_in_wait_list,\n    const cl_event* event_wait_list, cl_event* event_out);"))
      << h;
  EXPECT_TRUE(contains(h, "cl_int fx_axpy_cl_sync(cl_command_queue queue, cl_mem X, int64_t X_dim0, cl_mem Y, "
                          "int64_t Y_dim0, float a);"));
  EXPECT_TRUE(contains(h, "ze_result_t fx_axpy_ze(ze_context_handle_t context, ze_device_handle_t device,\n"
                          "    ze_command_list_handle_t list, void* X, int64_t X_dim0, void* Y, int64_t Y_dim0, float a, "
                          "ze_event_handle_t signal_event,\n    uint32_t num_wait_events, ze_event_handle_t* wait_events);"))
      << h;
  EXPECT_TRUE(contains(h, "ze_result_t fx_axpy_ze_sync(ze_context_handle_t context, ze_device_handle_t device, void* X, "
                          "int64_t X_dim0, void* Y, int64_t Y_dim0, float a);"));
  EXPECT_TRUE(contains(h, "const char* fx_error_string(int code);"));
  EXPECT_TRUE(contains(h, "size_t fx_build_log(char* buffer, size_t size);"));
  EXPECT_TRUE(contains(h, "void fx_release(void);"));
  EXPECT_TRUE(contains(h, " * grid (workgroups) = (ceildiv(X_dim0, 64), 1, 1)\n"));
  EXPECT_TRUE(contains(h, "#define fx_axpy_WG_SIZE_X 64\n"));
  EXPECT_TRUE(contains(h, "#define fx_axpy_SG_SIZE 16\n"));
  EXPECT_TRUE(contains(h, "#define XTC_STUB_ERROR_NULL_BUFFER 0x7E000001"));
  EXPECT_TRUE(contains(h, "#define XTC_STUB_ERROR_BAD_PITCH 0x7E000005"));
  EXPECT_TRUE(contains(h, "#define XTC_STUB_ERROR_BAD_WIDTH 0x7E00000A"));
  EXPECT_TRUE(contains(h, "extern \"C\" {"));
  // Generic target: no 2D block IO, so no pitch rule.
  EXPECT_FALSE(contains(f.source, "XTC_STUB_ERROR_BAD_PITCH;"));
  // The workgroup size is the local size of the OpenCL launch and the group size of Level Zero.
  EXPECT_TRUE(contains(f.source, "static const size_t xtc_local[3] = {64u, 1u, 1u};"));
  EXPECT_TRUE(contains(f.source, "static const uint32_t fx_wg_size[1][3] = {{64u, 1u, 1u}};"));
}

TEST(StubGenerator, EmbedsTheSpirvAsLittleEndianBytes) {
  Ctx c;
  auto m = axpyModule(c);
  backend::StubFiles f = gen(*m, c);
  EXPECT_TRUE(contains(f.source, "static const unsigned char fx_spirv_bytes[20] = {\n"
                                 "  0x03, 0x02, 0x23, 0x07, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00,\n"
                                 "  0x00, 0x00, 0x00, 0x00\n};"))
      << f.source.substr(0, 800);
}

TEST(StubGenerator, OutputIsDeterministic) {
  Ctx c1, c2;
  auto m1 = axpyModule(c1);
  auto m2 = axpyModule(c2);
  backend::StubFiles a = gen(*m1, c1), b = gen(*m2, c2);
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.source, b.source);
}

TEST(StubGenerator, RenamesParametersThatWouldClash) {
  Ctx c;
  auto m = ir::createModule();
  Type v = Type::memref({ir::kDynamic}, ElemKind::I32);
  // "queue" is a parameter of the launch functions, "int" a keyword, "q_dim0" the dimension
  // argument name of memref "q".
  ir::Operation* k = ir::createKernel(m.get(), "k", {"queue", "int", "q_dim0", "q"},
                                      {v, Type::index(), Type::index(), v}, c.at(1, 1));
  ir::Builder b(&ir::kernelLaunch(k));
  b.create("xtc.grid", {b.constantIndex(1), b.constantIndex(1), b.constantIndex(1)}, {});
  lowered(k, {16, 1, 1}, 16, "generic");
  backend::StubFiles f = gen(*m, c);
  EXPECT_TRUE(contains(f.header, "cl_int fx_k_cl_sync(cl_command_queue queue, cl_mem queue_, int64_t queue__dim0, "
                                 "int64_t p_int, int64_t q_dim0, cl_mem q, int64_t q_dim0_);"))
      << f.header;
}

TEST(StubGenerator, PvcChecksRowPitchesOfDynamicInnerDimensions) {
  Ctx c;
  auto m = ir::createModule();
  Type s = Type::memref({4, ir::kDynamic}, ElemKind::BF16);
  Type st = Type::memref({ir::kDynamic, 32}, ElemKind::BF16);  // static rows: the compiler knows them
  ir::Operation* k = ir::createKernel(m.get(), "w", {"S", "T"}, {s, st}, c.at(1, 1));
  ir::Builder b(&ir::kernelLaunch(k));
  b.create("xtc.grid", {b.constantIndex(1), b.constantIndex(1), b.constantIndex(1)}, {});
  lowered(k, {16, 1, 1}, 16, "pvc");
  backend::StubFiles f = gen(*m, c);
  EXPECT_TRUE(contains(f.source, "if (((uint64_t)S_dim1 * 2u) % 16u != 0u) return XTC_STUB_ERROR_BAD_PITCH;")) << f.source;
  EXPECT_TRUE(contains(f.source, "if ((uint64_t)S_dim1 * 2u < 64u || (uint64_t)S_dim1 * 2u > UINT64_C(16777216)) return "
                                 "XTC_STUB_ERROR_BAD_WIDTH;"))
      << f.source;
  EXPECT_FALSE(contains(f.source, "T_dim0 * 2u"));
  // A kernel compiled with --surface-fallback (lower-xe's surface_fallback) takes any rows: only the
  // base alignment is left to check.
  k->setAttr("surface_fallback", Attribute::boolean(true));
  backend::StubFiles g = gen(*m, c);
  EXPECT_FALSE(contains(g.source, "return XTC_STUB_ERROR_BAD_PITCH;"));
  EXPECT_FALSE(contains(g.source, "return XTC_STUB_ERROR_BAD_WIDTH;"));
  EXPECT_TRUE(contains(g.source, "XTC_STUB_ERROR_BAD_ALIGNMENT"));
  EXPECT_TRUE(contains(g.header, "rows of any length are taken"));
  // Static dimensions count in the byte size the buffer must have.
  EXPECT_TRUE(contains(f.source, "!xtc_mul_u64(xtc_bytes[0], UINT64_C(4), &xtc_bytes[0])"));
  EXPECT_TRUE(contains(f.source, "!xtc_mul_u64(xtc_bytes[1], UINT64_C(32), &xtc_bytes[1])"));
}

TEST(StubGenerator, PassesBuildOptionsToBothRuntimesAndRejectsConflictingOnes) {
  Ctx c;
  auto m = axpyModule(c);
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  k->setAttr("build_options", Attribute::string("-ze-opt-large-register-file \"q\""));
  backend::StubFiles f = gen(*m, c);
  // Level Zero gets the string as written, OpenCL its own spelling of the large register file (and
  // only on GPU devices: the CPU runtime rejects GPU options).
  EXPECT_TRUE(contains(f.source, "static const char fx_build_flags_ze[] = \"-ze-opt-large-register-file \\\"q\\\"\";"))
      << f.source;
  EXPECT_TRUE(contains(f.source, "static const char fx_build_flags_cl[] = \"-cl-intel-256-GRF-per-thread \\\"q\\\"\";"));
  EXPECT_TRUE(contains(f.source, "rc = clBuildProgram(e->program, 1, &device, (type & CL_DEVICE_TYPE_GPU) ? fx_build_flags_cl : \"\", NULL, NULL);"));
  EXPECT_TRUE(contains(f.source, "desc.pBuildFlags = fx_build_flags_ze;"));

  // A second kernel with other options: one module has one option string.
  Ctx c2;
  auto m2 = axpyModule(c2);
  ir::Operation* k2 = ir::createKernel(m2.get(), "other", {}, {}, c2.at(9, 1));
  ir::Builder b(&ir::kernelLaunch(k2));
  b.create("xtc.grid", {b.constantIndex(1), b.constantIndex(1), b.constantIndex(1)}, {});
  lowered(k2, {16, 1, 1}, 16, "generic");
  k2->setAttr("build_options", Attribute::string("-cl-fast-relaxed-math"));
  gen(*m2, c2, "fx", false);
  EXPECT_TRUE(contains(c2.text(), "k.xt:9:1: error: host stub: kernel 'other' has build_options \"-cl-fast-relaxed-math\" but "
                                  "kernel 'axpy' has \"\""))
      << c2.text();
}

TEST(StubGenerator, RejectsNamesThatAreNotCIdentifiers) {
  for (const char* bad : {"1abc", "int", "a-b", "", "__x", "xtc_stub"}) {
    Ctx c;
    auto m = axpyModule(c);
    gen(*m, c, bad, false);
    EXPECT_TRUE(contains(c.text(), "is not usable as a C identifier prefix")) << bad;
  }
  EXPECT_TRUE(backend::isValidStubName("gemm_bf16"));
}

TEST(StubGenerator, ReportsLaunchOpsTheHostCannotEvaluateAtTheOp) {
  Ctx c;
  auto m = ir::createModule();
  ir::Operation* k = ir::createKernel(m.get(), "k", {"x"}, {Type::scalar(ElemKind::F32)}, c.at(1, 1));
  ir::Builder b(&ir::kernelLaunch(k));
  b.setLoc(c.at(2, 7));
  Value* g = b.create("gpu.group_id", {}, {Type::index()}, {{"dim", Attribute::integer(0)}})->result();
  b.create("xtc.grid", {g, b.constantIndex(1), b.constantIndex(1)}, {});
  lowered(k, {16, 1, 1}, 16, "generic");
  gen(*m, c, "fx", false);
  EXPECT_TRUE(contains(c.text(), "k.xt:2:7: error: host stub: launch rule of kernel 'k': 'gpu.group_id' is not an op the "
                                 "host stub can evaluate"))
      << c.text();
}

TEST(StubGenerator, ReportsFloatParametersUsedByTheLaunchRule) {
  Ctx c;
  auto m = ir::createModule();
  ir::Operation* k = ir::createKernel(m.get(), "k", {"x"}, {Type::scalar(ElemKind::F32)}, c.at(1, 1));
  ir::Builder b(&ir::kernelLaunch(k));
  b.setLoc(c.at(3, 2));
  Value* g = op1(b, "arith.convert", {ir::kernelLaunch(k).argument(0)}, Type::index());
  b.create("xtc.grid", {g, b.constantIndex(1), b.constantIndex(1)}, {});
  lowered(k, {16, 1, 1}, 16, "generic");
  gen(*m, c, "fx", false);
  EXPECT_TRUE(contains(c.text(), "k.xt:3:2: error: host stub: launch rule of kernel 'k': 'arith.convert' on type f32"))
      << c.text();
}

TEST(StubGenerator, RequiresTheLoweredKernelAttributes) {
  Ctx c;
  auto m = axpyModule(c);
  ir::moduleKernels(m.get())[0]->removeAttr("wg_size");
  gen(*m, c, "fx", false);
  EXPECT_TRUE(contains(c.text(), "k.xt:1:1: error: internal error: host stub: kernel 'axpy' has no wg_size attribute")) << c.text();
}

TEST(StubGenerator, ColumnMajorMemRefsPassTheirDimsAndCheckTheColumnPitch) {
  // memref<?x?xf32, strides = [1, ?]>: base and both dims in dimension order, like a row-major one;
  // on pvc the 2D block IO rows are its columns (dimension 0 is adjacent in memory), so the pitch
  // and width rules read A_dim0.
  Ctx c;
  auto m = ir::createModule();
  Type cm = Type::memref({ir::kDynamic, ir::kDynamic}, ElemKind::F32, ir::MemSpace::Global, {1, ir::kDynamic});
  ir::Operation* k = ir::createKernel(m.get(), "k", {"A"}, {cm}, c.at(1, 1));
  ir::Builder b(&ir::kernelLaunch(k));
  b.create("xtc.grid", {b.constantIndex(1), b.constantIndex(1), b.constantIndex(1)}, {});
  lowered(k, {16, 1, 1}, 16, "pvc");
  backend::StubFiles f = gen(*m, c);
  EXPECT_TRUE(contains(f.header, "void* A, int64_t A_dim0, int64_t A_dim1")) << f.header;
  EXPECT_TRUE(contains(f.source, "if (((uint64_t)A_dim0 * 4u) % 16u != 0u) return XTC_STUB_ERROR_BAD_PITCH;")) << f.source;
  EXPECT_FALSE(contains(f.source, "A_dim1 * 4u) % 16u"));
}

// ---- the generated C, compiled by the system compiler ----------------------------------------------

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/xtc-stub-test-XXXXXX";
    char* p = mkdtemp(tmpl);
    path = p ? p : "";
  }
  ~TempDir() {
    if (!path.empty()) std::system(("rm -rf '" + path + "'").c_str());
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name) << text;
  }
};

// Runs a shell command; its output (stdout + stderr) goes to `log`.
int run(const std::string& cmd, std::string* log) {
  // A subshell, so redirections inside `cmd` keep their meaning.
  std::string full = "(" + cmd + ") > /tmp/xtc-stub-cmd-" + std::to_string(getpid()) + ".log 2>&1";
  int rc = std::system(full.c_str());
  std::ifstream in("/tmp/xtc-stub-cmd-" + std::to_string(getpid()) + ".log");
  std::stringstream ss;
  ss << in.rdbuf();
  if (log) *log = ss.str();
  std::remove(("/tmp/xtc-stub-cmd-" + std::to_string(getpid()) + ".log").c_str());
  return rc;
}

TEST(StubGenerator, GeneratedFilesCompileWarningFreeAsC99AndCxx17) {
  Ctx c;
  auto m = axpyModule(c);
  // A second kernel with every scalar kind, a pvc pitch rule and a static dimension.
  Type s = Type::memref({4, ir::kDynamic}, ElemKind::BF16);
  std::vector<Type> types = {s, Type::scalar(ElemKind::I1), Type::scalar(ElemKind::I8), Type::scalar(ElemKind::I16),
                             Type::scalar(ElemKind::I32), Type::scalar(ElemKind::I64), Type::index(),
                             Type::scalar(ElemKind::F16), Type::scalar(ElemKind::BF16), Type::scalar(ElemKind::F64)};
  ir::Operation* k = ir::createKernel(m.get(), "all", {"S", "b", "c8", "s16", "i32", "l", "n", "h", "bf", "d"}, types,
                                      c.at(5, 1));
  ir::Builder b(&ir::kernelLaunch(k));
  ir::Block& l = ir::kernelLaunch(k);
  Value* n32 = op1(b, "arith.convert", {l.argument(4)}, Type::index());
  Value* gx = op1(b, "arith.shli", {n32, b.constantIndex(2)}, Type::index());
  Value* gy = op1(b, "arith.select", {l.argument(1), l.argument(6), b.constantIndex(3)}, Type::index());
  b.create("xtc.grid", {gx, gy, dim(b, l.argument(0), 1)}, {});
  lowered(k, {32, 1, 1}, 16, "pvc");
  backend::StubFiles f = gen(*m, c);
  TempDir d;
  ASSERT_FALSE(d.path.empty());
  d.write("fx.h", f.header);
  d.write("fx.c", f.source);
  d.write("use.cpp", "#include \"fx.h\"\nint main() { int64_t g[3]; return fx_axpy_grid(1, 1, 1.0f, g); }\n");
  std::string log;
  const std::string warn = " -Wall -Wextra -Werror -pedantic-errors -Wno-long-long";
  for (std::string variant : {"", " -DXTC_STUB_NO_OPENCL", " -DXTC_STUB_NO_LEVEL_ZERO",
                                     " -DXTC_STUB_NO_OPENCL -DXTC_STUB_NO_LEVEL_ZERO"}) {
    EXPECT_EQ(run("cc -std=c99 -Wall -Wextra -Werror -c " + d.path + "/fx.c -o " + d.path + "/fx.o" + variant, &log), 0)
        << variant << "\n" << log;
    EXPECT_EQ(run("c++ -std=c++17 -Wall -Wextra -Werror -x c++ -c " + d.path + "/fx.c -o " + d.path + "/fxx.o" + variant,
                  &log),
              0)
        << variant << "\n" << log;
    EXPECT_EQ(run("c++ -std=c++17 -Wall -Wextra -Werror -c " + d.path + "/use.cpp -o " + d.path + "/use.o" + variant, &log), 0)
        << variant << "\n" << log;
  }
  // Without runtimes the launch-rule part is strict ISO C99.
  EXPECT_EQ(run("cc -std=c99" + warn + " -DXTC_STUB_NO_OPENCL -DXTC_STUB_NO_LEVEL_ZERO -c " + d.path + "/fx.c -o " +
                    d.path + "/fxp.o",
                &log),
            0)
      << log;
}

// ---- launch rules: generated C vs. the reference interpreter ---------------------------------------

TEST(StubLaunchRule, MatchesTheReferenceInterpreterOnRandomArguments) {
  Ctx c;
  auto m = ir::createModule();
  Type a = Type::memref({ir::kDynamic, ir::kDynamic}, ElemKind::F32);
  Type bt = Type::memref({8, ir::kDynamic}, ElemKind::I32);
  ir::Operation* k = ir::createKernel(m.get(), "rules", {"A", "B", "s", "t"},
                                      {a, bt, Type::index(), Type::scalar(ElemKind::I32)}, c.at(1, 1));
  Type idx = Type::index(), i32 = Type::scalar(ElemKind::I32), i1 = Type::scalar(ElemKind::I1);
  {
    ir::Builder b(&ir::kernelLaunch(k));
    ir::Block& l = ir::kernelLaunch(k);
    Value *A = l.argument(0), *B = l.argument(1), *s = l.argument(2), *t = l.argument(3);
    Value *M = dim(b, A, 0), *N = dim(b, A, 1), *K = dim(b, B, 1), *E = dim(b, B, 0);
    // g0 = ceildiv(M, s) + (E - 8)        (s may be 0 or negative)
    Value* g0 = op1(b, "arith.addi", {op1(b, "arith.ceildivsi", {M, s}, idx), op1(b, "arith.subi", {E, b.constantIndex(8)}, idx)}, idx);
    // g1 = max(floordiv(N - 7, 4), K % 5) + min(M / -3, 100) + udiv(K, 3) + (N >>u 2) + (K >>s 1)
    Value* fd = op1(b, "arith.floordivsi", {op1(b, "arith.subi", {N, b.constantIndex(7)}, idx), b.constantIndex(4)}, idx);
    Value* rm = op1(b, "arith.remsi", {K, b.constantIndex(5)}, idx);
    Value* mn = op1(b, "arith.minsi", {op1(b, "arith.divsi", {M, b.constantIndex(-3)}, idx), b.constantIndex(100)}, idx);
    Value* g1 = op1(b, "arith.addi", {op1(b, "arith.maxsi", {fd, rm}, idx), mn}, idx);
    g1 = op1(b, "arith.addi", {g1, op1(b, "arith.divui", {K, b.constantIndex(3)}, idx)}, idx);
    g1 = op1(b, "arith.addi", {g1, op1(b, "arith.shrui", {N, b.constantIndex(2)}, idx)}, idx);
    g1 = op1(b, "arith.addi", {g1, op1(b, "arith.shrsi", {K, b.constantIndex(1)}, idx)}, idx);
    // g2 in i32: ((t * 7) << 3) wraps; select(t < 0, -t, t) ^ (M as i32) | remui; then back to index,
    // plus minui/maxui and floordiv by a scalar.
    Value* t7 = op1(b, "arith.muli", {t, b.constantInt(7, ElemKind::I32)}, i32);
    Value* sh = op1(b, "arith.shli", {t7, b.constantInt(3, ElemKind::I32)}, i32);
    Value* neg = op1(b, "arith.cmpi", {t, b.constantInt(0, ElemKind::I32)}, i1,
                     {{"predicate", Attribute::enumValue("cmpi", "slt")}});
    Value* abs = op1(b, "arith.select", {neg, op1(b, "arith.subi", {b.constantInt(0, ElemKind::I32), t}, i32), t}, i32);
    Value* m32 = op1(b, "arith.convert", {M}, i32);
    Value* x = op1(b, "arith.xori", {abs, m32}, i32);
    Value* o = op1(b, "arith.ori", {x, op1(b, "arith.remui", {sh, b.constantInt(1000, ElemKind::I32)}, i32)}, i32);
    Value* ox = op1(b, "arith.andi", {o, b.constantInt(0xFFFF, ElemKind::I32)}, i32);
    Value* g2 = op1(b, "arith.convert", {ox}, idx);
    Value* uu = op1(b, "arith.minui", {op1(b, "arith.convert", {sh}, idx), op1(b, "arith.maxui", {M, N}, idx)}, idx);
    g2 = op1(b, "arith.addi", {g2, op1(b, "arith.floordivsi", {uu, op1(b, "arith.addi", {s, b.constantIndex(1)}, idx)}, idx)}, idx);
    Value* big = op1(b, "arith.cmpi", {M, N}, i1, {{"predicate", Attribute::enumValue("cmpi", "uge")}});
    g2 = op1(b, "arith.addi", {g2, op1(b, "arith.convert", {big}, idx)}, idx);  // i1 true widens to 1
    Value* sht = op1(b, "arith.shli", {b.constantIndex(1), op1(b, "arith.convert", {op1(b, "arith.remsi", {t, b.constantInt(70, ElemKind::I32)}, i32)}, idx)}, idx);
    g2 = op1(b, "arith.addi", {g2, op1(b, "arith.andi", {sht, b.constantIndex(1)}, idx)}, idx);
    b.create("xtc.grid", {g0, g1, g2}, {});
  }
  lowered(k, {16, 1, 1}, 16, "generic");
  backend::StubFiles f = gen(*m, c, "lr");
  TempDir d;
  ASSERT_FALSE(d.path.empty());
  d.write("lr.h", f.header);
  d.write("lr.c", f.source);
  d.write("main.c",
          "#include \"lr.h\"\n#include <stdio.h>\n"
          "int main(void) {\n"
          "  long long m, n, k, s, t;\n"
          "  while (scanf(\"%lld %lld %lld %lld %lld\", &m, &n, &k, &s, &t) == 5) {\n"
          "    int64_t g[3] = {-7, -7, -7};\n"
          "    int rc = lr_rules_grid(m, n, k, s, (int32_t)t, g);\n"
          "    printf(\"%d %lld %lld %lld\\n\", rc, (long long)g[0], (long long)g[1], (long long)g[2]);\n"
          "  }\n  return 0;\n}\n");
  std::string log;
  ASSERT_EQ(run("cc -std=c99 -Wall -Wextra -Werror -DXTC_STUB_NO_OPENCL -DXTC_STUB_NO_LEVEL_ZERO -o " + d.path + "/lr " +
                    d.path + "/lr.c " + d.path + "/main.c -lpthread",
                &log),
            0)
      << log;

  std::mt19937_64 rng(20240607);
  struct Case {
    int64_t m, n, k, s;
    int32_t t;
  };
  std::vector<Case> cases;
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int i = 0; i < 400; ++i) {
    Case cs;
    bool huge = i % 10 == 0;
    cs.m = huge ? pick(0, int64_t(1) << 40) : pick(0, 100000);
    cs.n = huge ? pick(0, int64_t(1) << 20) : pick(0, 100000);  // m * n * 4 bytes stays below 2^63
    cs.k = i % 7 == 0 ? 0 : pick(1, 5000);
    cs.s = pick(-3, 40);  // includes 0 (division by zero) and negatives (negative grids)
    cs.t = static_cast<int32_t>(pick(INT32_MIN, INT32_MAX));
    cases.push_back(cs);
  }
  cases.push_back({0, 0, 0, 1, 0});
  cases.push_back({7, 7, 7, 1, -1});
  {
    std::ofstream in(d.path + "/in.txt");
    for (const Case& cs : cases) in << cs.m << " " << cs.n << " " << cs.k << " " << cs.s << " " << cs.t << "\n";
  }
  ASSERT_EQ(run(d.path + "/lr < " + d.path + "/in.txt > " + d.path + "/out.txt", &log), 0) << log;
  std::ifstream out(d.path + "/out.txt");
  int ok = 0, launchErr = 0, negGrid = 0;
  for (const Case& cs : cases) {
    long long rc = -1, g0 = 0, g1 = 0, g2 = 0;
    ASSERT_TRUE(static_cast<bool>(out >> rc >> g0 >> g1 >> g2));
    interp::KernelArgs args;
    interp::Buffer A, B;
    A.elem = ElemKind::F32;
    A.shape = {cs.m, cs.n};
    B.elem = ElemKind::I32;
    B.shape = {8, cs.k};
    args.args = {interp::KernelArg::fromBuffer(A), interp::KernelArg::fromBuffer(B),
                 interp::KernelArg::fromScalar(interp::ScalarArg::integer(cs.s)),
                 interp::KernelArg::fromScalar(interp::ScalarArg::integer(cs.t, ElemKind::I32))};
    std::string where = fmt::format("m={} n={} k={} s={} t={}", cs.m, cs.n, cs.k, cs.s, cs.t);
    try {
      std::array<int64_t, 3> g = interp::evaluateLaunchGrid(*k, args);
      EXPECT_EQ(rc, 0) << where;
      EXPECT_EQ(g0, g[0]) << where;
      EXPECT_EQ(g1, g[1]) << where;
      EXPECT_EQ(g2, g[2]) << where;
      ++ok;
    } catch (const interp::InterpError& e) {
      bool negative = contains(e.what(), "negative");
      EXPECT_EQ(rc, negative ? 0x7E000007 : 0x7E000006) << where << ": " << e.what();
      negative ? ++negGrid : ++launchErr;
    }
  }
  // Every path was exercised.
  EXPECT_GT(ok, 50);
  EXPECT_GT(launchErr, 5);
  EXPECT_GT(negGrid, 5);
}

TEST(StubLaunchRule, NegativeSizesAndOverflowingBuffersAreArgumentErrors) {
  Ctx c;
  auto m = axpyModule(c);
  backend::StubFiles f = gen(*m, c);
  TempDir d;
  d.write("fx.h", f.header);
  d.write("fx.c", f.source);
  d.write("main.c",
          "#include \"fx.h\"\n#include <stdio.h>\n"
          "int main(void) {\n"
          "  int64_t g[3];\n"
          "  int rc;\n"
          "  printf(\"%d\\n\", fx_axpy_grid(-1, 5, 1.0f, g));\n"
          "  printf(\"%d\\n\", fx_axpy_grid(5, -1, 1.0f, g));\n"
          "  printf(\"%d\\n\", fx_axpy_grid(INT64_MAX / 2, 5, 1.0f, g));\n"  /* x 4 bytes overflows int64 */
          "  rc = fx_axpy_grid(129, 0, 1.0f, g);\n"
          "  printf(\"%d %lld %lld %lld\\n\", rc, (long long)g[0], (long long)g[1], (long long)g[2]);\n"
          "  printf(\"%d\\n\", fx_axpy_grid(1, 1, 1.0f, NULL));\n"
          "  printf(\"%s\\n\", fx_error_string(XTC_STUB_ERROR_NEGATIVE_SIZE));\n"
          "  printf(\"%s\\n\", fx_error_string(-36));\n"
          "  printf(\"%s\\n\", fx_error_string(0x78000001));\n"
          "  printf(\"%s\\n\", fx_error_string(12345));\n"
          "  return 0;\n}\n");
  std::string log;
  ASSERT_EQ(run("cc -std=c99 -Wall -Wextra -Werror -DXTC_STUB_NO_OPENCL -DXTC_STUB_NO_LEVEL_ZERO -o " + d.path + "/t " +
                    d.path + "/fx.c " + d.path + "/main.c -lpthread && " + d.path + "/t",
                &log),
            0)
      << log;
  EXPECT_EQ(log,
            std::to_string(0x7E000002) + "\n" + std::to_string(0x7E000002) + "\n" + std::to_string(0x7E000003) +
                "\n0 3 1 1\n" + std::to_string(0x7E000001) +
                "\nXTC_STUB_ERROR_NEGATIVE_SIZE: a size argument is negative\n"
                "CL_INVALID_COMMAND_QUEUE: the command queue is null or invalid\n"
                "ZE_RESULT_ERROR_UNINITIALIZED: Level Zero is not initialized (zeInit failed or was not called; no "
                "driver?)\nunknown error code\n");
}

}  // namespace
}  // namespace xtc
