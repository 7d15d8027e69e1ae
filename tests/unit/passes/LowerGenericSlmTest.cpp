// lower-generic on SLM: an exchange through a swizzled SLM buffer (wg-distribute's transpose of a
// 256x32 f32 vector, which gets Swizzle<2,4,3> on pvc, tests/golden/passes/wg-distribute/slm-swizzle.ir)
// lowered to lane level with the swizzle, and with the swizzle attribute removed first, must both
// give B = transpose(A) in the interpreter (checked against the transpose computed here, not by the
// code under test): the swizzle is a bijection every access goes through, so it can only move data
// inside the buffer. The swizzled lowering must actually contain the swizzle's xor, the other not.
#include "ir/ops/LaneOps.h"
#include "ir/passes/LowerGeneric.h"
#include "ir/passes/WgDistribute.h"
#include "tests/unit/passes/PassTestSupport.h"

using namespace xtc;

namespace {

const char* kTranspose = R"(
xtc.kernel @k(%A: memref<256x32xf32>, %B: memref<32x256xf32>) {arg_names = ["A", "B"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<256x32xf32>, index, index) -> (tile<256x32xf32, wg_map<sg_layout = [4, 8], sg_data = [64, 4]>>)
  %v = tile.load_tile %ta : (tile<256x32xf32, wg_map<sg_layout = [4, 8], sg_data = [64, 4]>>) -> (vector<256x32xf32, wg_map<sg_layout = [4, 8], sg_data = [64, 4]>>)
  %t = tile.transpose %v {permutation = [1, 0]} : (vector<256x32xf32, wg_map<sg_layout = [4, 8], sg_data = [64, 4]>>) -> (vector<32x256xf32, wg_map<sg_layout = [8, 4], sg_data = [4, 64]>>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<32x256xf32>, index, index) -> (tile<32x256xf32, wg_map<sg_layout = [8, 4], sg_data = [4, 64]>>)
  tile.store_tile %t, %tb : (vector<32x256xf32, wg_map<sg_layout = [8, 4], sg_data = [4, 64]>>, tile<32x256xf32, wg_map<sg_layout = [8, 4], sg_data = [4, 64]>>) -> ()
  xtc.return : () -> ()
}
)";

// Lowers a copy of `m` (wg-distributed already) for pvc with or without the recorded swizzle, runs it
// on `args` and returns the number of arith.xori ops the lowering produced.
size_t lowerAndRun(xtc::testing::IRFixture& f, const ir::Operation& m, bool keepSwizzle, interp::KernelArgs& args) {
  ir::IRMapping mapping;
  std::unique_ptr<ir::Operation> copy = m.clone(mapping);
  ir::Operation* k = ir::moduleKernels(copy.get())[0];
  std::vector<ir::Operation*> allocs = xtc::testing::opsNamed(k, "gpu.slm_alloc");
  EXPECT_EQ(allocs.size(), 1u);
  for (ir::Operation* a : allocs) {
    EXPECT_TRUE(a->hasAttr("swizzle"));
    if (!keepSwizzle) a->removeAttr("swizzle");
  }
  EXPECT_TRUE(passes::lowerGeneric(copy.get(), *targets::findTarget("pvc"), f.diags)) << f.text();
  EXPECT_TRUE(f.verify(*copy)) << f.text();
  interp::RunStats st;
  EXPECT_TRUE(interp::runKernel(*k, args, f.diags, {}, &st)) << f.text();
  EXPECT_TRUE(st.laneLevel);
  return xtc::testing::opsNamed(k, "arith.xori").size();
}

}  // namespace

TEST(LowerGenericSlm, SwizzledAndPlainExchangesGiveTheTranspose) {
  xtc::testing::IRFixture f;
  ir::registerLaneOps();
  auto m = f.parse(kTranspose);
  ASSERT_TRUE(m);
  ASSERT_TRUE(passes::runWgDistribute(m.get(), f.diags, *targets::findTarget("pvc"))) << f.text();
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  interp::KernelArgs swizzled = xtc::testing::randomArgs(k, 20261123);
  interp::KernelArgs plain = swizzled;
  size_t xorsSwizzled = lowerAndRun(f, *m, true, swizzled);
  size_t xorsPlain = lowerAndRun(f, *m, false, plain);
  // 16 registers written and 16 read per lane in the exchange, each address swizzled once.
  EXPECT_EQ(xorsSwizzled, 32u);
  EXPECT_EQ(xorsPlain, 0u);
  const interp::Buffer& a = swizzled.args[0].buffer;
  for (const interp::KernelArgs* r : {&swizzled, &plain}) {
    const interp::Buffer& b = r->args[1].buffer;
    int64_t bad = 0;
    for (int64_t i = 0; i < 32; ++i)
      for (int64_t j = 0; j < 256; ++j)
        if (b.getFloat(i * 256 + j) != a.getFloat(j * 32 + i) && bad++ < 5)
          ADD_FAILURE() << (r == &swizzled ? "swizzled" : "plain") << ": B(" << i << ", " << j << ") = "
                        << b.getFloat(i * 256 + j) << ", A(" << j << ", " << i << ") = " << a.getFloat(j * 32 + i);
    EXPECT_EQ(bad, 0);
  }
}

TEST(LowerGenericSlm, SwizzleThatCouldLeaveTheBufferIsAnError) {
  // Swizzle<2,4,3> permutes blocks of 16 f32 elements; a 3x5 buffer is not made of whole blocks.
  xtc::testing::IRFixture f;
  ir::registerLaneOps();
  auto m = f.parse(R"(
xtc.kernel @k(%A: memref<4xf32>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %s = gpu.slm_alloc {swizzle = [2, 4, 3]} : () -> (memref<3x5xf32, slm>)
  xtc.return : () -> ()
}
)");
  ASSERT_TRUE(m);
  EXPECT_FALSE(passes::lowerGeneric(m.get(), *targets::findTarget("pvc"), f.diags));
  EXPECT_NE(f.text().find("lower-generic: SLM swizzle [2, 4, 3] needs a rank-1 or rank-2 buffer of a multiple of 16 elements"),
            std::string::npos)
      << f.text();
}
