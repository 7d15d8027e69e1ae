// Differential tests of the whole pass pipeline, no device needed: the reference interpreter runs each
// example's tile IR as the frontend produces it (workgroup level) and the IR the target's default
// pipeline makes of it (lane level: xe.* ops per lane on pvc/dg2 — DPAS, 2D block loads with their
// out-of-bounds fill — or the portable lowering), on the same seeded random inputs, and every buffer
// must match. This checks blocking, layout assignment, shuffle resolution, lower-xe, select-lowering
// and lower-generic together against the tile-level semantics, at sizes that are not multiples of the
// tiles (partial blocks at every border). PipelineDiffEveryPass repeats the comparison after each pass
// of every target's pipeline for every example (workgroup-level, subgroup-level, blocked and
// layout-assigned tile IR all run in the interpreter), so a wrong result names the pass that made it.
//
// Inputs are small multiples of 1/4 (PassTestSupport.h), so every product and every partial sum of
// the GEMMs is exact in f32 and any summation order gives the same bits: the GEMMs compare exactly.
// Kernels with exp or a float reduction compare within a relative 1e-6.
#include "tests/unit/passes/ExampleSupport.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

using namespace xtc;

namespace {

struct PipelineCase {
  const char* example;                                  // examples/<example>.xt
  std::map<std::string, std::vector<int64_t>> shapes;   // memref parameter -> its shape
  double tolerance = 0.0;                               // 0: bit-exact
  // Text replacements applied to the source first: the RFC kernels' static 4096x4096 shapes and
  // grids shrink to one workgroup so the lane-level interpreter finishes in a second.
  std::vector<std::pair<std::string, std::string>> edits = {};
  // Overwrites a parameter's random input (by name) where the kernel needs valid data, e.g. indices.
  std::function<void(const std::string&, interp::Buffer&, std::mt19937&)> prepare = nullptr;
};

// Negative control: change one input element of the lowered run only; the comparison must then
// report mismatches (so a passing case is not vacuous). EveryPass: run the pipeline one pass at a
// time and compare the IR after each pass (subgroup-level tile IR, blocked, layout-assigned, lane
// level) with the tile level, so a wrong result is pinned to the pass that introduced it.
enum class Control { None, PerturbInput, EveryPass };

// Compares every buffer of `after` with `before` (the tile-level run); `initial` is what both started
// from. Returns the number of mismatching elements; reports the first few unless `quiet`.
int64_t compareRuns(const interp::KernelArgs& initial, const interp::KernelArgs& before, const interp::KernelArgs& after,
                    double tolerance, size_t firstArg, bool quiet) {
  bool wrote = false;
  int64_t totalBad = 0;
  for (size_t i = firstArg; i < before.args.size(); ++i) {
    const interp::Buffer& x = before.args[i].buffer;
    const interp::Buffer& y = after.args[i].buffer;
    wrote = wrote || x.bytes != initial.args[i].buffer.bytes;
    EXPECT_EQ(x.numElements(), y.numElements());
    if (x.numElements() != y.numElements()) return 1;
    int64_t bad = 0;
    for (int64_t e = 0; e < x.numElements(); ++e) {
      double a = x.getFloat(e), b = y.getFloat(e);
      bool same = tolerance == 0.0 ? std::memcmp(x.at(e), y.at(e), x.elemSize()) == 0
                                   : std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(a));
      if (!same && bad++ < 5 && !quiet)
        ADD_FAILURE() << "argument " << i << " element " << e << ": tile level " << a << ", lowered " << b;
    }
    if (!quiet) {
      EXPECT_EQ(bad, 0) << "argument " << i;
    }
    totalBad += bad;
  }
  EXPECT_TRUE(wrote) << "the kernel wrote nothing, so equal outputs would prove nothing";
  return totalBad;
}

void runPipelineDiff(const PipelineCase& c, const char* targetName, Control control = Control::None) {
  SCOPED_TRACE(std::string(c.example) + " on " + targetName);
  xtc::testing::ExampleFixture f;
  std::unique_ptr<ir::Operation> tile = f.tileIR(c.example, c.edits);
  ASSERT_TRUE(tile);
  DiagnosticEngine& diags = f.diags;
  ir::IRMapping mapping;
  std::unique_ptr<ir::Operation> lowered = tile->clone(mapping);

  const targets::Target* target = targets::findTarget(targetName);
  ASSERT_NE(target, nullptr);
  if (control != Control::EveryPass) {
    ASSERT_TRUE(f.lower(lowered.get(), *target));
  }

  ir::Operation* k0 = ir::moduleKernels(tile.get())[0];
  std::mt19937 rng(20261123);
  interp::KernelArgs before;
  const std::vector<ir::Attribute>& names = k0->attr("arg_names")->getArray();
  size_t index = 0;
  for (ir::Value* p : ir::kernelBody(k0).arguments()) {
    const ir::Type& t = p->type();
    ASSERT_TRUE(t.isMemRef()) << "scalar parameters are not used by these examples";
    const std::string& name = names.at(index++).getString();
    std::vector<int64_t> shape = t.shape();
    auto it = c.shapes.find(name);
    if (it != c.shapes.end()) shape = it->second;
    for (int64_t d : shape) ASSERT_NE(d, ir::kDynamic) << "no shape given for " << name;
    interp::Buffer buffer = xtc::testing::randomBuffer(t.elem(), shape, rng);
    if (c.prepare) c.prepare(name, buffer, rng);
    before.args.push_back(interp::KernelArg::fromBuffer(std::move(buffer)));
  }
  const interp::KernelArgs initial = before;
  interp::RunStats st0;
  ASSERT_TRUE(interp::runKernel(*k0, before, diags, {}, &st0)) << f.text();

  if (control == Control::EveryPass) {
    passes::PassContext ctx{diags, target};
    for (const std::string& pass : passes::defaultPipeline(*target)) {
      SCOPED_TRACE("after " + pass);
      passes::PassManager pm(ctx);
      ASSERT_TRUE(pm.addPipeline({pass}));
      bool ok = pm.run(lowered.get());
      ASSERT_TRUE(ok) << f.text();
      interp::KernelArgs after = initial;
      ASSERT_TRUE(interp::runKernel(*ir::moduleKernels(lowered.get())[0], after, diags, {}, nullptr))
          << f.text();
      compareRuns(initial, before, after, c.tolerance, 0, false);
    }
    EXPECT_TRUE(ir::moduleKernels(lowered.get())[0]->hasAttr("target")) << "the pipeline did not lower the kernel";
    return;
  }

  ir::Operation* k1 = ir::moduleKernels(lowered.get())[0];
  ASSERT_TRUE(k1->hasAttr("target")) << "the pipeline did not lower the kernel";
  interp::KernelArgs after = initial;
  if (control == Control::PerturbInput) {
    interp::Buffer& a = after.args[0].buffer;
    a.setFloat(0, a.getFloat(0) + 1.0);
  }
  interp::RunStats st1;
  ASSERT_TRUE(interp::runKernel(*k1, after, diags, {}, &st1)) << f.text();
  EXPECT_FALSE(st1.workgroupLevel) << "the lowered kernel still runs at workgroup level";
  bool perturbed = control == Control::PerturbInput;
  int64_t totalBad = compareRuns(initial, before, after, c.tolerance, perturbed ? 1 : 0, perturbed);
  if (perturbed) {
    EXPECT_GT(totalBad, 0) << "a changed input went unnoticed";
  }
}

// Sizes that are not multiples of the tiles, so every border block is partial.
const PipelineCase kGemmBf16{"gemm_bf16", {{"A", {260, 70}}, {"B", {70, 300}}, {"C", {260, 300}}}};
const PipelineCase kGemmF16{"gemm_f16", {{"A", {37, 40}}, {"B", {40, 70}}, {"C", {37, 70}}}};
const PipelineCase kSgGemmF16{"sg_gemm_f16", {{"A", {19, 33}}, {"B", {33, 45}}, {"C", {19, 45}}}};
const PipelineCase kSgGemmF32{"sg_gemm_f32", {{"A", {19, 21}}, {"B", {21, 35}}, {"C", {19, 35}}}};
const PipelineCase kGemmAcc{"gemm_acc", {{"A", {21, 19}}, {"B", {19, 37}}, {"C", {21, 37}}}};
const PipelineCase kSoftmax{"softmax", {{"X", {21, 64}}, {"Y", {21, 64}}}, 1e-6};
const PipelineCase kRowSum{"row_sum", {{"X", {45, 70}}, {"S", {45, 1}}}, 1e-6};
const PipelineCase kSgBiasRelu{"sg_bias_relu", {{"X", {19, 70}}, {"bias", {1, 70}}, {"Y", {19, 70}}}};

const PipelineCase kGemmI8{"gemm_i8", {{"A", {37, 70}}, {"B", {70, 45}}, {"C", {37, 45}}}};
const PipelineCase kGemmBt{"gemm_bt", {{"A", {19, 21}}, {"BT", {35, 21}}, {"C", {19, 35}}}};
const PipelineCase kTranspose{"transpose", {{"X", {21, 37}}, {"Y", {37, 21}}}};
const PipelineCase kBiasRelu{"bias_relu", {{"X", {37, 70}}, {"bias", {1, 70}}, {"Y", {37, 70}}}};
// Gather/scatter: Idx must be distinct in-range indices (the kernel's contract), here a seeded
// permutation of 0..49 of Src/Dst's 50 elements; 50 is not a multiple of the 16-wide subgroup tile.
const PipelineCase kGatherScatter{"gather_scatter", {{"Src", {50}}, {"Idx", {1, 50}}, {"Dst", {50}}}, 0.0, {},
                                  [](const std::string& name, interp::Buffer& b, std::mt19937& rng) {
                                    if (name != "Idx") return;
                                    std::vector<int64_t> perm(50);
                                    std::iota(perm.begin(), perm.end(), 0);
                                    std::shuffle(perm.begin(), perm.end(), rng);
                                    for (int64_t i = 0; i < 50; ++i) b.setInt(i, perm[static_cast<size_t>(i)]);
                                  }};
// Split-K: the partial products reach C through atomic adds (exact: inputs are multiples of 1/4).
const PipelineCase kGemmSplitk{"gemm_splitk", {{"A", {21, 70}}, {"B", {70, 37}}, {"C", {21, 37}}}};
const PipelineCase kRfc21{"rfc_2_1_gemm_prefetch", {}, 0.0, {{"4096", "256"}, {"grid(16, 16)", "grid(1, 1)"}}};
const PipelineCase kRfc23{"rfc_2_3_transpose_opt", {}, 0.0, {{"4096", "256"}, {"grid(16, 16)", "grid(1, 1)"}}};
// The SLM kernels (on pvc/dg2 the Xe path with per-lane SLM accesses; on generic lower-generic's):
// one 256x256 workgroup tile, K shrunk with the matrices.
const PipelineCase kRfc22{"rfc_2_2_gemm_transpose_bcast_reduce", {}, 1e-6, {{"4096", "256"}, {"grid(16, 16)", "grid(1, 1)"}}};
const PipelineCase kRfc24{"rfc_2_4_gemm_slm", {}, 0.0, {{"4096", "256"}, {"grid(16, 16)", "grid(1, 1)"}}};
const PipelineCase kRfc25{"rfc_2_5_gemm_two_cache_levels", {}, 0.0, {{"4096", "512"}, {"grid(8, 16)", "grid(1, 1)"}}};

}  // namespace

TEST(PipelineDiff, GemmI8Pvc) { runPipelineDiff(kGemmI8, "pvc"); }
// Not yet: gemm_i8 on dg2 (the interpreter has no SIMD8 i8 xe.dpas with k = 32).
TEST(PipelineDiff, GemmBtPvc) { runPipelineDiff(kGemmBt, "pvc"); }
TEST(PipelineDiff, TransposeDg2) { runPipelineDiff(kTranspose, "dg2"); }
// Xe path since the transpose fold (transposed d32 loads on pvc; per-lane loads in the transposed
// layout on dg2) and scf.if yielding tiles (RFC 2.5): the 16-bit BT of RFC 2.3 feeds DPAS as VNNI B.
TEST(PipelineDiff, TransposePvc) { runPipelineDiff(kTranspose, "pvc"); }
TEST(PipelineDiff, Rfc23Dg2) { runPipelineDiff(kRfc23, "dg2"); }
TEST(PipelineDiff, Rfc25Dg2) { runPipelineDiff(kRfc25, "dg2"); }
TEST(PipelineDiff, BiasReluPvc) { runPipelineDiff(kBiasRelu, "pvc"); }
TEST(PipelineDiff, Rfc21Pvc) { runPipelineDiff(kRfc21, "pvc"); }
TEST(PipelineDiff, Rfc23Pvc) { runPipelineDiff(kRfc23, "pvc"); }
TEST(PipelineDiff, Rfc22Pvc) { runPipelineDiff(kRfc22, "pvc"); }
TEST(PipelineDiff, Rfc22Generic) { runPipelineDiff(kRfc22, "generic"); }
TEST(PipelineDiff, Rfc24Pvc) { runPipelineDiff(kRfc24, "pvc"); }
TEST(PipelineDiff, Rfc25Pvc) { runPipelineDiff(kRfc25, "pvc"); }
TEST(PipelineDiff, GemmBf16Pvc) { runPipelineDiff(kGemmBf16, "pvc"); }
TEST(PipelineDiff, NoticesAChangedInput) { runPipelineDiff(kGemmF16, "pvc", Control::PerturbInput); }
TEST(PipelineDiff, GemmF16Pvc) { runPipelineDiff(kGemmF16, "pvc"); }
TEST(PipelineDiff, GemmF16Dg2) { runPipelineDiff(kGemmF16, "dg2"); }
TEST(PipelineDiff, GemmF16Generic) { runPipelineDiff(kGemmF16, "generic"); }
TEST(PipelineDiff, SgGemmF16Pvc) { runPipelineDiff(kSgGemmF16, "pvc"); }
TEST(PipelineDiff, SgGemmF16Dg2) { runPipelineDiff(kSgGemmF16, "dg2"); }
TEST(PipelineDiff, SgGemmF32Pvc) { runPipelineDiff(kSgGemmF32, "pvc"); }
TEST(PipelineDiff, GemmAccDg2) { runPipelineDiff(kGemmAcc, "dg2"); }
TEST(PipelineDiff, SoftmaxPvc) { runPipelineDiff(kSoftmax, "pvc"); }
TEST(PipelineDiff, RowSumDg2) { runPipelineDiff(kRowSum, "dg2"); }
TEST(PipelineDiff, SgBiasReluPvc) { runPipelineDiff(kSgBiasRelu, "pvc"); }
TEST(PipelineDiff, SgBiasReluGeneric) { runPipelineDiff(kSgBiasRelu, "generic"); }
// The Xe path's row ops and FMA tile_mma on the target each was not yet checked on (layouts differ:
// 16 lanes on pvc, 8 on dg2).
TEST(PipelineDiff, RowSumPvc) { runPipelineDiff(kRowSum, "pvc"); }
TEST(PipelineDiff, SoftmaxDg2) { runPipelineDiff(kSoftmax, "dg2"); }
TEST(PipelineDiff, GemmAccPvc) { runPipelineDiff(kGemmAcc, "pvc"); }
TEST(PipelineDiff, SgGemmF32Dg2) { runPipelineDiff(kSgGemmF32, "dg2"); }
TEST(PipelineDiff, BiasReluDg2) { runPipelineDiff(kBiasRelu, "dg2"); }

// The same comparison after every pass of each target's pipeline (issue #9: the interpreter on the IR
// before and after each pass), for every example above on every target.
class PipelineDiffEveryPass : public ::testing::TestWithParam<std::tuple<const PipelineCase*, const char*>> {};

TEST_P(PipelineDiffEveryPass, MatchesTheTileLevel) {
  const auto& [c, target] = GetParam();
  // RFC 2.4's buffers need 64 KiB of SLM on generic and 128 KiB on dg2, more than those targets have:
  // wg-distribute rejects it there (tests/golden/passes/examples/rfc_2_4_gemm_slm.test).
  if (std::string(c->example) == "rfc_2_4_gemm_slm" && std::string(target) != "pvc")
    GTEST_SKIP() << "rfc_2_4 does not fit the SLM of " << target;
#if defined(__SANITIZE_ADDRESS__)
  // CI time: the RFC kernels after every pass took 120-220 s each under ASan (the slowest tests of
  // the suite). The plain build runs them; under ASan the RFC kernels still go through each target's
  // whole pipeline (PipelineDiff.Rfc*) and the smaller examples through every pass.
  if (std::strncmp(c->example, "rfc_", 4) == 0) GTEST_SKIP() << "RFC kernels after every pass: plain build only";
#endif
  runPipelineDiff(*c, target, Control::EveryPass);
}

const PipelineCase* const kEveryCase[] = {&kGemmBf16, &kGemmF16, &kSgGemmF16, &kSgGemmF32, &kGemmAcc, &kSoftmax,
                                          &kRowSum,   &kSgBiasRelu, &kGemmI8, &kGemmBt, &kTranspose, &kBiasRelu, &kGemmSplitk, &kGatherScatter,
                                          &kRfc21,    &kRfc22,  &kRfc23,   &kRfc24,  &kRfc25};

INSTANTIATE_TEST_SUITE_P(Examples, PipelineDiffEveryPass,
                         ::testing::Combine(::testing::ValuesIn(kEveryCase), ::testing::Values("generic", "pvc", "dg2")),
                         [](const auto& info) {
                           std::string name = std::string(std::get<0>(info.param)->example) + "_" + std::get<1>(info.param);
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });
