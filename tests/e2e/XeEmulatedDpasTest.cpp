// e2e: each xe.dpas form emulate-xe rewrites (ir/passes/EmulateXe.cpp), run on the CPU OpenCL
// device and compared register by register with the interpreter's xe.dpas (itself checked against
// hand-computed per-lane values in tests/unit/interpret/InterpDpasTest.cpp). The kernel
// (tests/unit/interpret/DpasKernelText.h) loads A, B and the accumulator in their register layout,
// runs two chained DPAS (the second accumulates into the first's result) and stores the result, so
// the test covers the emulation's lane broadcasts (which lane holds A[m][k]), sign extension and
// accumulation. Forms: s8 (i8 x i8 -> i32, k = 32) on pvc (16 lanes) and dg2 (8 lanes), exact;
// bf16 -> f32 (k = 16) on both, also bit-exact here: bf16 products are exact in f32, so the
// emulation's fma and the interpreter's multiply-then-add in the same K order round alike.
// s8 inputs mix the edge values -128, 127, -1, 1 with uniform draws; one case is all -128 (the
// largest products).
#include "tests/e2e/CompileExample.h"
#include "tests/e2e/ExampleHarness.h"
#include "tests/unit/interpret/DpasKernelText.h"

#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/ops/Ops.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include <unistd.h>

namespace xtc {
namespace {

using interp::Buffer;
using interp::KernelArg;
using ir::ElemKind;
using test::DpasForm;

// Writes the kernel, compiles it with `xtc compile --target T --emulate-xe`, validates with
// spirv-val and reads the words. False with the failing step in `error`.
bool compileEmulated(const std::string& text, const DpasForm& f, std::vector<uint32_t>& words, std::string* error) {
  const char* d = std::getenv("TMPDIR");
  std::string base = std::string(d ? d : "/tmp") + "/xtc_e2e_dpas_" + std::to_string(::getpid()) + "_" + f.target + "_" + f.in;
  { std::ofstream(base + ".ir") << text; }
  std::string cmd = e2e::xtcBinary() + " compile " + base + ".ir --target " + f.target + " --emulate-xe -o " + base + ".spv";
  bool ok = false;
  if (std::system(cmd.c_str()) != 0) *error = "failed: " + cmd;
  else if (std::system(("spirv-val " + base + ".spv").c_str()) != 0) *error = "spirv-val rejects the output of " + cmd;
  else {
    std::ifstream in(base + ".spv", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ok = !bytes.empty() && bytes.size() % 4 == 0;
    if (ok) {
      words.resize(bytes.size() / 4);
      std::memcpy(words.data(), bytes.data(), bytes.size());
    } else {
      *error = "cannot read " + base + ".spv";
    }
  }
  std::remove((base + ".ir").c_str());
  std::remove((base + ".spv").c_str());
  return ok;
}

enum class Fill { Mixed, AllMin };

Buffer operand(ElemKind e, int64_t n, std::mt19937& rng, Fill fill) {
  Buffer b(e, {n});
  const int64_t edges[] = {-128, 127, -1, 1};
  std::uniform_int_distribution<int> i8(-128, 127), pick(0, 7);
  std::uniform_real_distribution<double> real(0.25, 4.0);
  for (int64_t i = 0; i < n; ++i) {
    if (e == ElemKind::I8) b.setInt(i, fill == Fill::AllMin ? -128 : pick(rng) < 4 ? edges[pick(rng) % 4] : i8(rng));
    else if (e == ElemKind::I32) b.setInt(i, static_cast<int64_t>(i8(rng)) * 4099 + 1);  // +-524k: no i32 overflow
    else b.setFloat(i, (rng() % 2 ? -1 : 1) * real(rng));
  }
  return b;
}

void runForm(const DpasForm& f, ElemKind in, ElemKind acc, Fill fill, unsigned seed) {
  SCOPED_TRACE(::testing::Message() << f.target << " " << f.in << " -> " << f.acc << " m = " << f.m << " k = " << f.k);
  ir::registerAllOps();
  std::string text = test::dpasKernelText(f, true);
  SourceManager sm;
  std::ostringstream diagText;
  DiagnosticEngine diags(sm, diagText);
  std::unique_ptr<ir::Operation> module = ir::parseModule("dpas.ir", text, diags);
  diags.flush();
  ASSERT_TRUE(module) << diagText.str();
  ir::Operation* kernel = ir::moduleKernels(module.get()).at(0);
  std::vector<uint32_t> words;
  std::string err;
  ASSERT_TRUE(compileEmulated(text, f, words, &err)) << err;

  std::mt19937 rng(seed);
  interp::KernelArgs args;
  args.args.push_back(KernelArg::fromBuffer(operand(in, f.lanes * f.aRegs(), rng, fill)));
  args.args.push_back(KernelArg::fromBuffer(operand(in, f.lanes * f.bRegs(), rng, fill)));
  args.args.push_back(KernelArg::fromBuffer(operand(acc, f.lanes * f.cRegs(), rng, fill)));
  const Buffer c0 = args.args[2].buffer;
  interp::KernelArgs onDevice = args;
  ASSERT_TRUE(e2e::interpret(*kernel, args, &err)) << err;
  ASSERT_TRUE(e2e::runOnDevice(words, *kernel, onDevice, {1, 1, 1}, {f.lanes, 1, 1}, &err)) << err;
  const Buffer &want = args.args[2].buffer, &got = onDevice.args[2].buffer;
  int bad = 0, changed = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    // Lane i / M, register i % M; compared bit-exactly (integers, or floats that round alike).
    double w = want.getFloat(i), g = got.getFloat(i);
    changed += w != c0.getFloat(i);
    if (w != g && bad++ < 5) ADD_FAILURE() << "lane " << i / f.m << ", register " << i % f.m << ": device " << g << ", interpreter " << w;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(changed, want.numElements()) << "the DPAS left some accumulators unchanged: the comparison could be vacuous";
}

const DpasForm kPvcS8{"pvc", 16, 8, 32, "i8", "i32"};
const DpasForm kDg2S8{"dg2", 8, 8, 32, "i8", "i32"};
const DpasForm kPvcBf16{"pvc", 16, 8, 16, "bf16", "f32"};
const DpasForm kDg2Bf16{"dg2", 8, 8, 16, "bf16", "f32"};

TEST(XeEmulatedDpas, PvcS8EdgeValuesMixedSigns) { runForm(kPvcS8, ElemKind::I8, ElemKind::I32, Fill::Mixed, 11); }
TEST(XeEmulatedDpas, PvcS8AllMinus128) { runForm(kPvcS8, ElemKind::I8, ElemKind::I32, Fill::AllMin, 12); }
TEST(XeEmulatedDpas, Dg2S8EdgeValuesMixedSigns) { runForm(kDg2S8, ElemKind::I8, ElemKind::I32, Fill::Mixed, 13); }
TEST(XeEmulatedDpas, Dg2S8AllMinus128) { runForm(kDg2S8, ElemKind::I8, ElemKind::I32, Fill::AllMin, 14); }
TEST(XeEmulatedDpas, PvcBf16) { runForm(kPvcBf16, ElemKind::BF16, ElemKind::F32, Fill::Mixed, 15); }
TEST(XeEmulatedDpas, Dg2Bf16) { runForm(kDg2Bf16, ElemKind::BF16, ElemKind::F32, Fill::Mixed, 16); }

}  // namespace
}  // namespace xtc
