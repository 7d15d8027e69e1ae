// The register budget (ir/passes/RegisterBudget.h) on hand-computed GEMM loops, and the loops that
// split-accumulators makes of one that does not fit. Every expected number is worked out in the
// comment next to it from the shapes, the lane count and the register size of the target table.
#include "PassTestSupport.h"

#include "ir/passes/PassManager.h"
#include "ir/passes/RegisterBudget.h"

namespace xtc::testing {
namespace {

// One subgroup's K loop: C (MxN f32) += A (MxK bf16) x B (KxN bf16), K step K; `attrA` is put on A's
// load (e.g. blocking's `{per_lane = true}`).
std::string gemmLoop(int m, int n, int k, const std::string& attrA = "") {
  std::map<std::string, std::string> d{{"M", std::to_string(m)}, {"N", std::to_string(n)}, {"K", std::to_string(k)},
                                       {"ATTR", attrA}};
  return substitute(R"(builtin.module {
  xtc.kernel @g(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {arg_names = ["A", "B", "C"], num_subgroups = 1} launch {
    %g1 = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %g1, %g1, %g1 : (index, index, index) -> ()
  } body {
    %c0 = arith.constant {value = 0 : index} : () -> (index)
    %ck = arith.constant {value = #K : index} : () -> (index)
    %kend = memref.dim %A {index = 1} : (memref<?x?xbf16>) -> (index)
    %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<?x?xbf16>, index, index) -> (tile<#Mx#Kxbf16>)
    %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<?x?xbf16>, index, index) -> (tile<#Kx#Nxbf16>)
    %acc = arith.constant {value = dense<0.0> : vector<#Mx#Nxf32>} : () -> (vector<#Mx#Nxf32>)
    %r, %ra, %rb = scf.for %c0, %kend, %ck, %acc, %ta, %tb : (index, index, index, vector<#Mx#Nxf32>, tile<#Mx#Kxbf16>, tile<#Kx#Nxbf16>) -> (vector<#Mx#Nxf32>, tile<#Mx#Kxbf16>, tile<#Kx#Nxbf16>) ({
    ^bb0(%kk: index, %acc1: vector<#Mx#Nxf32>, %ta1: tile<#Mx#Kxbf16>, %tb1: tile<#Kx#Nxbf16>):
      %a = tile.load_tile %ta1 #ATTR : (tile<#Mx#Kxbf16>) -> (vector<#Mx#Kxbf16>)
      %b = tile.load_tile %tb1 : (tile<#Kx#Nxbf16>) -> (vector<#Kx#Nxbf16>)
      %acc2 = tile.tile_mma %a, %b, %acc1 : (vector<#Mx#Kxbf16>, vector<#Kx#Nxbf16>, vector<#Mx#Nxf32>) -> (vector<#Mx#Nxf32>)
      %ta2 = tile.update_tile_offset %ta1, %c0, %ck : (tile<#Mx#Kxbf16>, index, index) -> (tile<#Mx#Kxbf16>)
      %tb2 = tile.update_tile_offset %tb1, %ck, %c0 : (tile<#Kx#Nxbf16>, index, index) -> (tile<#Kx#Nxbf16>)
      scf.yield %acc2, %ta2, %tb2 : (vector<#Mx#Nxf32>, tile<#Mx#Kxbf16>, tile<#Kx#Nxbf16>) -> ()
    })
    %tc = tile.init_tile %C, %c0, %c0 {segments = [2, 0, 0]} : (memref<?x?xf32>, index, index) -> (tile<#Mx#Nxf32>)
    tile.store_tile %r, %tc : (vector<#Mx#Nxf32>, tile<#Mx#Nxf32>) -> ()
    xtc.return : () -> ()
  }
})",
                    d);
}

const targets::Target& target(const char* name) { return *targets::findTarget(name); }

// The estimate of the one loop of `ir` on target `t`.
passes::LoopRegisters estimate(const std::string& ir, const char* t, bool portable = false) {
  IRFixture f;
  auto m = f.parse(ir);
  std::vector<ir::Operation*> loops = m ? opsNamed(m.get(), "scf.for") : std::vector<ir::Operation*>{};
  EXPECT_EQ(loops.size(), 1u);
  return loops.empty() ? passes::LoopRegisters{} : passes::estimateLoopRegisters(*loops[0], target(t), portable);
}

// `ir` after split-accumulators on target `t` (null on failure).
std::unique_ptr<ir::Operation> split(IRFixture& f, const std::string& ir, const char* t) {
  auto m = f.parse(ir);
  if (!m) return nullptr;
  passes::registerAllPasses();
  passes::PassContext ctx{f.diags, &target(t)};
  passes::PassManager pm(ctx);
  bool ok = pm.addPipeline({"split-accumulators"}) && pm.run(m.get()) && f.verify(*m);
  EXPECT_TRUE(ok) << f.out.str();
  return ok ? std::move(m) : nullptr;
}

TEST(RegisterBudget, PvcGemmBf16Tile) {
  // pvc, 64-byte registers, 2D block loads: C 32*64*4 / 64 = 128; A 32*32*2 / 64 = 32; B 64.
  passes::LoopRegisters r = estimate(gemmLoop(32, 64, 32), "pvc");
  EXPECT_EQ(r.carried, 128);
  EXPECT_EQ(r.operands, 96);
  EXPECT_EQ(r.total(), 224);
  // After the loop only C is live (its store): 128, the epilogue fits with the loop.
  EXPECT_EQ(r.epilogue, 128);
  EXPECT_EQ(r.peak(), 224);
  EXPECT_TRUE(passes::fitsRegisterFile(224, 256));   // the measured fit (reference §11)
  EXPECT_FALSE(passes::fitsRegisterFile(225, 256));
  EXPECT_FALSE(passes::fitsRegisterFile(224, 128));  // so: the large file
  // The portable path loads per lane: A 1024 / 16 = 64 lane.loads, B 2048 / 16 = 128, one GRF each.
  EXPECT_EQ(estimate(gemmLoop(32, 64, 32), "pvc", true).operands, 192);
}

TEST(RegisterBudget, Dg2PerLaneLoads) {
  // dg2, 32-byte registers, 8 lanes, no 2D block IO: C 8192 / 32 = 256; A 1024 / 8 = 128 loads of
  // one register (8 lanes x 4 bytes), B 2048 / 8 = 256.
  passes::LoopRegisters r = estimate(gemmLoop(32, 64, 32), "dg2");
  EXPECT_EQ(r.carried, 256);
  EXPECT_EQ(r.operands, 384);
}

TEST(RegisterBudget, BlockingPerLaneAttribute) {
  // pvc: C 8*16*4 / 64 = 8; A marked per lane: 128 / 16 = 8 loads; B (unblocked, 2D) 512 / 64 = 8.
  passes::LoopRegisters r = estimate(gemmLoop(8, 16, 16, "{per_lane = true}"), "pvc");
  EXPECT_EQ(r.carried, 8);
  EXPECT_EQ(r.operands, 16);
}

TEST(RegisterBudget, SplitLoopsFitDg2) {
  IRFixture f;
  auto m = split(f, gemmLoop(32, 64, 32), "dg2");
  ASSERT_TRUE(m);
  // 640 registers do not fit 224; the cheapest split that does is 2 x 4 (gemm_bf16.test): eight
  // loops of C 16x16 (32 registers), A 16x32 (64 loads), B 32x16 (64 loads) = 160 each.
  std::vector<ir::Operation*> loops = opsNamed(m.get(), "scf.for");
  ASSERT_EQ(loops.size(), 8u);
  for (size_t i = 0; i < loops.size(); ++i) {
    passes::LoopRegisters r = passes::estimateLoopRegisters(*loops[i], target("dg2"), false);
    EXPECT_EQ(r.carried, 32) << i;
    EXPECT_EQ(r.operands, 128) << i;
    EXPECT_EQ(loops[i]->attr("split")->getIntArray(), (std::vector<int64_t>{static_cast<int64_t>(i), 8}));
  }
  EXPECT_EQ(opsNamed(m.get(), "tile.store_tile").size(), 8u);
  // pvc: 224 fits, the loop stays whole.
  IRFixture g;
  auto p = split(g, gemmLoop(32, 64, 32), "pvc");
  ASSERT_TRUE(p);
  EXPECT_EQ(opsNamed(p.get(), "scf.for").size(), 1u);
}

}  // namespace
}  // namespace xtc::testing
