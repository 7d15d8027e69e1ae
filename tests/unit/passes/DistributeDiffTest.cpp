// Differential tests of wg-distribute (and order-transpose): the reference interpreter runs each kernel
// at workgroup level before the pass and at subgroup level after it, on the same seeded random
// non-zero inputs; every output buffer must be identical (exact for data movement, integer math and
// tile_mma with one k order; within a tolerance where the pass reassociates a float reduction). The
// interpreter also reports any SLM race between subgroups, which checks the barriers the pass emits.
#include "frontend/Frontend.h"
#include "ir/passes/OrderTranspose.h"
#include "ir/passes/WgDistribute.h"
#include "tests/unit/passes/PassTestSupport.h"

#include <cstring>
#include <fstream>
#include <regex>

using namespace xtc;
using xtc::testing::IRFixture;
using xtc::testing::opsNamed;
using xtc::testing::substitute;

namespace {

const char* kHead = R"(
xtc.kernel @k(%A: memref<#SA>, %B: memref<#SB>, %C: memref<#SC>) {arg_names = ["A", "B", "C"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  %gx = arith.constant {value = #GX : index} : () -> (index)
  xtc.grid %gx, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %gid = gpu.group_id {dim = 0} : () -> (index)
)";
const char* kTail = R"(
  xtc.return : () -> ()
}
)";

struct DiffCase {
  std::string body;                          // the kernel body between kHead and kTail
  std::map<std::string, std::string> defs;   // placeholders (#SA, #SB, #SC, #GX and wg_maps)
  double tolerance = 0.0;                    // 0: bit-exact
  bool orderTranspose = false;               // run order-transpose before (and after) wg-distribute
  const char* target = "pvc";
  std::vector<int64_t> dynShape{};           // sizes of dynamic memref dimensions, by position
};

// Occurrences of `needle` in `text`.
size_t countOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// Runs the first kernel of `m` before and after the passes and compares every buffer; returns the
// distributed module's text for structural checks.
std::string diffModule(IRFixture& f, ir::Operation* m, const DiffCase& c);

// Runs the case; returns the distributed module's text for structural checks.
std::string runDiff(const DiffCase& c) {
  IRFixture f;
  std::map<std::string, std::string> defs = c.defs;
  defs.emplace("GX", "1");
  auto m = f.parse(substitute(std::string(kHead) + c.body + kTail, defs));
  if (!m) return "";
  return diffModule(f, m.get(), c);
}

std::string diffModule(IRFixture& f, ir::Operation* m, const DiffCase& c) {
  ir::Operation* k = ir::moduleKernels(m)[0];
  auto before = xtc::testing::randomArgs(k, 1234, c.dynShape);
  auto after = before;
  const auto initial = before;
  interp::RunStats st1, st2;
  bool ok = interp::runKernel(*k, before, f.diags, {}, &st1);
  EXPECT_TRUE(ok) << f.text();
  EXPECT_TRUE(st1.workgroupLevel);

  const targets::Target& t = *targets::findTarget(c.target);
  if (c.orderTranspose) {
    EXPECT_TRUE(passes::runOrderTranspose(m, f.diags, t)) << f.text();
  }
  EXPECT_TRUE(passes::runWgDistribute(m, f.diags, t)) << f.text();
  if (c.orderTranspose) {
    EXPECT_TRUE(passes::runOrderTranspose(m, f.diags, t)) << f.text();
  }
  std::string text = ir::printToString(*m);
  EXPECT_TRUE(f.verify(*m)) << f.text() << text;
  EXPECT_EQ(text.find("wg_map"), std::string::npos) << text;
  ok = interp::runKernel(*k, after, f.diags, {}, &st2);
  EXPECT_TRUE(ok) << f.text() << text;
  EXPECT_FALSE(st2.workgroupLevel);
  EXPECT_EQ(st2.subgroupsPerWorkgroup, k->intAttr("num_subgroups", -1));
  // The kernel must have written something, or equal outputs would prove nothing.
  bool wrote = false;
  for (size_t i = 0; i < before.args.size(); ++i)
    if (before.args[i].isBuffer && before.args[i].buffer.bytes != initial.args[i].buffer.bytes) wrote = true;
  EXPECT_TRUE(wrote) << "the kernel wrote nothing";
  for (size_t i = 0; i < before.args.size(); ++i) {
    if (!before.args[i].isBuffer) continue;
    const interp::Buffer& x = before.args[i].buffer;
    const interp::Buffer& y = after.args[i].buffer;
    EXPECT_EQ(x.numElements(), y.numElements());
    if (x.numElements() != y.numElements()) continue;
    int64_t bad = 0;
    for (int64_t e = 0; e < x.numElements(); ++e) {
      double a = x.getFloat(e), b = y.getFloat(e);
      bool same = c.tolerance == 0.0 ? std::memcmp(x.at(e), y.at(e), x.elemSize()) == 0
                                     : std::fabs(a - b) <= c.tolerance * std::max(1.0, std::fabs(a));
      if (!same && bad++ < 5) ADD_FAILURE() << "argument " << i << " element " << e << ": before " << a << ", after " << b;
    }
    EXPECT_EQ(bad, 0) << text;
  }
  return text;
}

}  // namespace

// The RFC's 128x128 example (round-robin rows, replicated columns), offset by the group id so several
// workgroups run; B = A * 2 + 1.
TEST(DistributeDiff, Rfc128x128ElementwiseCopy) {
  std::string text = runDiff({R"(
  %c128 = arith.constant {value = 128 : index} : () -> (index)
  %m = arith.muli %gid, %c128 : (index, index) -> (index)
  %ta = tile.init_tile %A, %m, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<128x128xf32, #w>)
  %v = tile.load_tile %ta : (tile<128x128xf32, #w>) -> (vector<128x128xf32, #w>)
  %two = arith.constant {value = dense<2.0> : vector<128x128xf32, #w>} : () -> (vector<128x128xf32, #w>)
  %c1f = arith.constant {value = 1.0 : f32} : () -> (f32)
  %one = vector.splat %c1f : (f32) -> (vector<128x128xf32, #w>)
  %p = arith.mulf %v, %two : (vector<128x128xf32, #w>, vector<128x128xf32, #w>) -> (vector<128x128xf32, #w>)
  %s = arith.addf %p, %one : (vector<128x128xf32, #w>, vector<128x128xf32, #w>) -> (vector<128x128xf32, #w>)
  %tb = tile.init_tile %B, %m, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<128x128xf32, #w>)
  tile.store_tile %s, %tb : (vector<128x128xf32, #w>, tile<128x128xf32, #w>) -> ()
)",
                              {{"SA", "256x128xf32"}, {"SB", "256x128xf32"}, {"SC", "1xf32"}, {"GX", "2"},
                               {"w", "wg_map<sg_layout = [2, 2], sg_data = [32, 128]>"}}});
  (void)text;
}

// Unaligned: a 64x64 tile crossing the edge of a 100x70 matrix at (48, 32); loads pad, stores clip.
TEST(DistributeDiff, TileCrossingTheMatrixEdge) {
  runDiff({R"(
  %c48 = arith.constant {value = 48 : index} : () -> (index)
  %c32 = arith.constant {value = 32 : index} : () -> (index)
  %ta = tile.init_tile %A, %c48, %c32 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<64x64xi32, #w>)
  %v = tile.load_tile %ta {padding = 7 : i32} : (tile<64x64xi32, #w>) -> (vector<64x64xi32, #w>)
  %v2 = arith.addi %v, %v : (vector<64x64xi32, #w>, vector<64x64xi32, #w>) -> (vector<64x64xi32, #w>)
  %tb = tile.init_tile %B, %c48, %c32 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<64x64xi32, #w>)
  tile.store_tile %v2, %tb : (vector<64x64xi32, #w>, tile<64x64xi32, #w>) -> ()
)",
           {{"SA", "100x70xi32"}, {"SB", "100x70xi32"}, {"SC", "1xf32"}, {"w", "wg_map<sg_layout = [2, 4], sg_data = [16, 16]>"}}});
}

// The RFC GEMM shape (256x256 C, sg_layout [8, 4]) with K = 64 in a loop of two steps; A and B are
// replicated along the other mma dimension. One k order per element: bit-exact.
TEST(DistributeDiff, RfcGemm) {
  std::string text = runDiff({R"(
  %c32 = arith.constant {value = 32 : index} : () -> (index)
  %c64 = arith.constant {value = 64 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x32xbf16, #a>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<32x256xbf16, #b>)
  %z = arith.constant {value = dense<0.0> : vector<256x256xf32, #c>} : () -> (vector<256x256xf32, #c>)
  %ra, %rb, %rc = scf.for %c0, %c64, %c32, %ta, %tb, %z : (index, index, index, tile<256x32xbf16, #a>, tile<32x256xbf16, #b>, vector<256x256xf32, #c>) -> (tile<256x32xbf16, #a>, tile<32x256xbf16, #b>, vector<256x256xf32, #c>) ({
  ^bb0(%k: index, %xa: tile<256x32xbf16, #a>, %xb: tile<32x256xbf16, #b>, %acc: vector<256x256xf32, #c>):
    %va = tile.load_tile %xa : (tile<256x32xbf16, #a>) -> (vector<256x32xbf16, #a>)
    %vb = tile.load_tile %xb : (tile<32x256xbf16, #b>) -> (vector<32x256xbf16, #b>)
    %d = tile.tile_mma %va, %vb, %acc : (vector<256x32xbf16, #a>, vector<32x256xbf16, #b>, vector<256x256xf32, #c>) -> (vector<256x256xf32, #c>)
    %na = tile.update_tile_offset %xa, %c0, %c32 : (tile<256x32xbf16, #a>, index, index) -> (tile<256x32xbf16, #a>)
    %nb = tile.update_tile_offset %xb, %c32, %c0 : (tile<32x256xbf16, #b>, index, index) -> (tile<32x256xbf16, #b>)
    scf.yield %na, %nb, %d : (tile<256x32xbf16, #a>, tile<32x256xbf16, #b>, vector<256x256xf32, #c>) -> ()
  })
  %tc = tile.init_tile %C, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SC>, index, index) -> (tile<256x256xf32, #c>)
  tile.store_tile %rc, %tc : (vector<256x256xf32, #c>, tile<256x256xf32, #c>) -> ()
)",
                              {{"SA", "256x64xbf16"}, {"SB", "64x256xbf16"}, {"SC", "256x256xf32"},
                               {"a", "wg_map<sg_layout = [8, 4], sg_data = [32, 32]>"},
                               {"b", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"},
                               {"c", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"}}});
  EXPECT_NE(text.find("tile.tile_mma"), std::string::npos);
}

// Round-robin mma: C 128x128 with sg_layout [2, 2], sg_data [32, 32] gives every subgroup 2x2 C blocks,
// 2 A blocks and 2 B blocks.
TEST(DistributeDiff, RoundRobinMma) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<128x16xf16, #a>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<16x128xf16, #b>)
  %va = tile.load_tile %ta : (tile<128x16xf16, #a>) -> (vector<128x16xf16, #a>)
  %vb = tile.load_tile %tb : (tile<16x128xf16, #b>) -> (vector<16x128xf16, #b>)
  %d = tile.tile_mma %va, %vb : (vector<128x16xf16, #a>, vector<16x128xf16, #b>) -> (vector<128x128xf32, #c>)
  %tc = tile.init_tile %C, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SC>, index, index) -> (tile<128x128xf32, #c>)
  tile.store_tile %d, %tc : (vector<128x128xf32, #c>, tile<128x128xf32, #c>) -> ()
)",
                              {{"SA", "128x16xf16"}, {"SB", "16x128xf16"}, {"SC", "128x128xf32"},
                               {"a", "wg_map<sg_layout = [2, 2], sg_data = [32, 16]>"},
                               {"b", "wg_map<sg_layout = [2, 2], sg_data = [16, 32]>"},
                               {"c", "wg_map<sg_layout = [2, 2], sg_data = [32, 32]>"}}});
  EXPECT_EQ(countOf(text, "tile.tile_mma"), 4u) << text;
}

// The RFC's reduction example: a 256x128 input held by rows ([32, 1] x [8, 128]) reduces locally.
TEST(DistributeDiff, LocalReduction) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x128xf32, #i>)
  %v = tile.load_tile %ta : (tile<256x128xf32, #i>) -> (vector<256x128xf32, #i>)
  %r = tile.reduction %v {dims = [1], kind = reduce<add>} : (vector<256x128xf32, #i>) -> (vector<256x1xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<256x1xf32, #o>)
  tile.store_tile %r, %tb : (vector<256x1xf32, #o>, tile<256x1xf32, #o>) -> ()
)",
                              {{"SA", "256x128xf32"}, {"SB", "256x1xf32"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [32, 1], sg_data = [8, 128]>"},
                               {"o", "wg_map<sg_layout = [32, 1], sg_data = [8, 1]>"}}});
  EXPECT_EQ(text.find("gpu.slm_alloc"), std::string::npos) << text;
}

// A reduction across subgroups: rows of 128 are split over 4 subgroup columns; partial sums go
// through SLM. Float sums are reassociated: tolerance.
TEST(DistributeDiff, CrossSubgroupReductionThroughSlm) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x128xf32, #i>)
  %v = tile.load_tile %ta : (tile<256x128xf32, #i>) -> (vector<256x128xf32, #i>)
  %r = tile.reduction %v {dims = [1], kind = reduce<add>} : (vector<256x128xf32, #i>) -> (vector<256x1xf32, #o>)
  %m = tile.reduction %v {dims = [1], kind = reduce<max>} : (vector<256x128xf32, #i>) -> (vector<256x1xf32, #o>)
  %s = arith.addf %r, %m : (vector<256x1xf32, #o>, vector<256x1xf32, #o>) -> (vector<256x1xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<256x1xf32, #o>)
  tile.store_tile %s, %tb : (vector<256x1xf32, #o>, tile<256x1xf32, #o>) -> ()
)",
                              {{"SA", "256x128xf32"}, {"SB", "256x1xf32"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [8, 4], sg_data = [32, 32]>"},
                               {"o", "wg_map<sg_layout = [32, 1], sg_data = [8, 1]>"}},
                              1e-6});
  EXPECT_NE(text.find("gpu.slm_alloc"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu.barrier"), std::string::npos) << text;
}

// A partial reduction whose reduction size (48) and input block rows (32) do not divide one another:
// blocks reduce groups of gcd = 16 rows, the readers add 3 partial rows per output row. 96x16 by
// [3, 2] x [32, 8] -> 2x16 by [1, 6] x [2, 8] (wrap-around: three replicas of each output block).
TEST(DistributeDiff, PartialReductionOfNonDividingSizes) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<96x16xi32, #i>)
  %v = tile.load_tile %ta : (tile<96x16xi32, #i>) -> (vector<96x16xi32, #i>)
  %r = tile.reduction %v {dims = [0], kind = reduce<add>, reduction_size = 48} : (vector<96x16xi32, #i>) -> (vector<2x16xi32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<2x16xi32, #o>)
  tile.store_tile %r, %tb : (vector<2x16xi32, #o>, tile<2x16xi32, #o>) -> ()
)",
                              {{"SA", "96x16xi32"}, {"SB", "2x16xi32"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [3, 2], sg_data = [32, 8]>"},
                               {"o", "wg_map<sg_layout = [1, 6], sg_data = [2, 8]>"}}});
  EXPECT_NE(text.find("gpu.slm_alloc : () -> (memref<6x16xi32, slm>)"), std::string::npos) << text;
  EXPECT_NE(text.find("reduction_size = 16"), std::string::npos) << text;
  EXPECT_NE(text.find("reduction_size = 3"), std::string::npos) << text;
}

// Partial reduction (reduction_size) of the RFC: 256x128 by [8, 4] x [32, 32], reduce 32 rows -> 8x128.
TEST(DistributeDiff, PartialReductionLocal) {
  runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x128xi32, #i>)
  %v = tile.load_tile %ta : (tile<256x128xi32, #i>) -> (vector<256x128xi32, #i>)
  %r = tile.reduction %v {dims = [0], kind = reduce<add>, reduction_size = 32} : (vector<256x128xi32, #i>) -> (vector<8x128xi32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<8x128xi32, #o>)
  tile.store_tile %r, %tb : (vector<8x128xi32, #o>, tile<8x128xi32, #o>) -> ()
)",
           {{"SA", "256x128xi32"}, {"SB", "8x128xi32"}, {"SC", "1xf32"},
            {"i", "wg_map<sg_layout = [8, 4], sg_data = [32, 32]>"},
            {"o", "wg_map<sg_layout = [8, 4], sg_data = [1, 32]>"}}});
}

// The RFC's broadcast: a 1x256 row held by [8, 4] x [1, 64] broadcast to 256x256 by [8, 4] x [32, 64].
TEST(DistributeDiff, RfcBroadcast) {
  runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<1x256xf32, #i>)
  %v = tile.load_tile %ta : (tile<1x256xf32, #i>) -> (vector<1x256xf32, #i>)
  %b = tile.broadcast %v {dims = [0]} : (vector<1x256xf32, #i>) -> (vector<256x256xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<256x256xf32, #o>)
  tile.store_tile %b, %tb : (vector<256x256xf32, #o>, tile<256x256xf32, #o>) -> ()
)",
           {{"SA", "1x256xf32"}, {"SB", "256x256xf32"}, {"SC", "1xf32"},
            {"i", "wg_map<sg_layout = [8, 4], sg_data = [1, 64]>"},
            {"o", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"}}});
}

// A broadcast whose input is not where the output needs it: through SLM.
TEST(DistributeDiff, BroadcastThroughSlm) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<64x1xf32, #i>)
  %v = tile.load_tile %ta : (tile<64x1xf32, #i>) -> (vector<64x1xf32, #i>)
  %b = tile.broadcast %v {dims = [1]} : (vector<64x1xf32, #i>) -> (vector<64x64xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<64x64xf32, #o>)
  tile.store_tile %b, %tb : (vector<64x64xf32, #o>, tile<64x64xf32, #o>) -> ()
)",
                              {{"SA", "64x1xf32"}, {"SB", "64x64xf32"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [4, 1], sg_data = [16, 1]>"},
                               {"o", "wg_map<sg_layout = [1, 4], sg_data = [64, 16]>"}}});
  EXPECT_NE(text.find("gpu.slm_alloc"), std::string::npos) << text;
}

// The RFC's convert_layout: [8, 4] x [32, 64] -> [32, 1] x [8, 256] on 256x128 (f16 to fit SLM).
TEST(DistributeDiff, ConvertLayoutThroughSlm) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x256xf16, #i>)
  %v = tile.load_tile %ta : (tile<256x256xf16, #i>) -> (vector<256x256xf16, #i>)
  %c = tile.convert_layout %v : (vector<256x256xf16, #i>) -> (vector<256x256xf16, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<256x256xf16, #o>)
  tile.store_tile %c, %tb : (vector<256x256xf16, #o>, tile<256x256xf16, #o>) -> ()
)",
                              {{"SA", "256x256xf16"}, {"SB", "256x256xf16"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"},
                               {"o", "wg_map<sg_layout = [32, 1], sg_data = [8, 256]>"}}});
  EXPECT_NE(text.find("memref<256x256xf16, slm>"), std::string::npos) << text;
}

// The RFC's transpose with sg_layout [8, 4] -> [4, 8]: subgroups exchange data through SLM.
TEST(DistributeDiff, TransposeThroughSlm) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x32xf32, #i>)
  %v = tile.load_tile %ta : (tile<256x32xf32, #i>) -> (vector<256x32xf32, #i>)
  %t = tile.transpose %v {permutation = [1, 0]} : (vector<256x32xf32, #i>) -> (vector<32x256xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<32x256xf32, #o>)
  tile.store_tile %t, %tb : (vector<32x256xf32, #o>, tile<32x256xf32, #o>) -> ()
)",
                              {{"SA", "256x32xf32"}, {"SB", "32x256xf32"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [4, 8], sg_data = [64, 4]>"},
                               {"o", "wg_map<sg_layout = [8, 4], sg_data = [4, 64]>"}}});
  EXPECT_NE(text.find("gpu.slm_alloc"), std::string::npos) << text;
}

// RFC appendix 2.3: with [32, 1] x [64, 32] on the 256x32 input the transpose is in registers.
TEST(DistributeDiff, Rfc23TransposeInRegisters) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x32xf16, #i>)
  %v = tile.load_tile %ta : (tile<256x32xf16, #i>) -> (vector<256x32xf16, #i>)
  %t = tile.transpose %v {permutation = [1, 0]} : (vector<256x32xf16, #i>) -> (vector<32x256xf16, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<32x256xf16, #o>)
  tile.store_tile %t, %tb : (vector<32x256xf16, #o>, tile<32x256xf16, #o>) -> ()
)",
                              {{"SA", "256x32xf16"}, {"SB", "32x256xf16"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [32, 1], sg_data = [64, 32]>"},
                               {"o", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"}}});
  EXPECT_EQ(text.find("gpu.slm_alloc"), std::string::npos) << text;
  EXPECT_NE(text.find("strategy = \"register\""), std::string::npos) << text;
}

// A column-major 64x32 tile (logical view of a 32x64 row-major buffer, strides [1, 64]) whose wg_map
// transposes cleanly ([1, 4] x [64, 8] <-> [4, 1] x [8, 64]): order-transpose rewrites it at workgroup
// level, then wg-distribute. B = A^T-view + A^T-view.
TEST(DistributeDiff, ColumnMajorTileAtWorkgroupLevel) {
  std::string text = runDiff({R"(
  %c32 = arith.constant {value = 32 : index} : () -> (index)
  %c64 = arith.constant {value = 64 : index} : () -> (index)
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0, %c64, %c32, %c1, %c64 {segments = [2, 2, 2]} : (memref<#SA>, index, index, index, index, index, index) -> (tile<64x32xf32, #w, order = [0, 1]>)
  %v = tile.load_tile %ta : (tile<64x32xf32, #w, order = [0, 1]>) -> (vector<64x32xf32, #w>)
  %s = arith.addf %v, %v : (vector<64x32xf32, #w>, vector<64x32xf32, #w>) -> (vector<64x32xf32, #w>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<64x32xf32, #w>)
  tile.store_tile %s, %tb : (vector<64x32xf32, #w>, tile<64x32xf32, #w>) -> ()
)",
                              {{"SA", "32x64xf32"}, {"SB", "64x32xf32"}, {"SC", "1xf32"},
                               {"w", "wg_map<sg_layout = [1, 4], sg_data = [64, 8]>"}},
                              0.0, true});
  EXPECT_EQ(text.find("order = [0, 1]"), std::string::npos) << text;
  EXPECT_NE(text.find("strategy = \"load\""), std::string::npos) << text;  // f32: a transposed 2D load on pvc
}

// A column-major tile whose wg_map does not transpose into a wg_map ([2, 2] x [32, 16]): it is
// distributed as it is and made row-major by the second order-transpose run, at subgroup level. The
// store side is column-major too (a register transpose before the store).
TEST(DistributeDiff, ColumnMajorTileAfterDistribution) {
  std::string text = runDiff({R"(
  %c32 = arith.constant {value = 32 : index} : () -> (index)
  %c64 = arith.constant {value = 64 : index} : () -> (index)
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0, %c64, %c32, %c1, %c64 {segments = [2, 2, 2]} : (memref<#SA>, index, index, index, index, index, index) -> (tile<64x32xf16, #w, order = [0, 1]>)
  %v = tile.load_tile %ta : (tile<64x32xf16, #w, order = [0, 1]>) -> (vector<64x32xf16, #w>)
  %tb = tile.init_tile %B, %c0, %c0, %c64, %c32, %c1, %c64 {segments = [2, 2, 2]} : (memref<#SB>, index, index, index, index, index, index) -> (tile<64x32xf16, #w, order = [0, 1]>)
  tile.store_tile %v, %tb : (vector<64x32xf16, #w>, tile<64x32xf16, #w, order = [0, 1]>) -> ()
)",
                              {{"SA", "32x64xf16"}, {"SB", "32x64xf16"}, {"SC", "1xf32"},
                               {"w", "wg_map<sg_layout = [2, 2], sg_data = [32, 16]>"}},
                              0.0, true});
  EXPECT_EQ(text.find("order = [0, 1]"), std::string::npos) << text;
  EXPECT_NE(text.find("strategy = \"register\""), std::string::npos) << text;  // f16: no transposed 2D load
}

// RFC appendix 2.2's convert_layout ([8, 4] x [32, 64] -> [32, 1] x [8, 256]) of a 256x256 f32 vector
// needs 256 KiB: in rounds over 128-row slabs on pvc (128 KiB) and 64-row slabs on dg2 (64 KiB). Which
// round a subgroup writes or reads in depends on its id, so the rounds are guarded at run time.
TEST(DistributeDiff, ConvertLayoutInRounds) {
  for (const char* target : {"pvc", "dg2"}) {
    DiffCase c{R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x256xf32, #i>)
  %v = tile.load_tile %ta : (tile<256x256xf32, #i>) -> (vector<256x256xf32, #i>)
  %c = tile.convert_layout %v : (vector<256x256xf32, #i>) -> (vector<256x256xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<256x256xf32, #o>)
  tile.store_tile %c, %tb : (vector<256x256xf32, #o>, tile<256x256xf32, #o>) -> ()
)",
               {{"SA", "256x256xf32"}, {"SB", "256x256xf32"}, {"SC", "1xf32"},
                {"i", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"},
                {"o", "wg_map<sg_layout = [32, 1], sg_data = [8, 256]>"}}};
    c.target = target;
    std::string text = runDiff(c);
    bool pvc = std::string(target) == "pvc";
    EXPECT_NE(text.find(pvc ? "memref<128x256xf32, slm>" : "memref<64x256xf32, slm>"), std::string::npos) << text;
    EXPECT_EQ(countOf(text, "gpu.barrier"), pvc ? 4u : 8u) << text;  // two per round
  }
}

// atomic_rmw on a replicated tile whose old values are used: A (64x16, [2, 2] x [32, 16]: two replicas
// per block) gets += 1 by the primary replica alone (twice otherwise: A would differ), and the old
// values, exchanged through SLM, are the mma's A operand in every subgroup; C is not replicated, so
// every subgroup's C block (stored by itself) shows whether its old values arrived.
TEST(DistributeDiff, ReplicatedAtomicWithUsedOldValues) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<64x16xf16, #a>)
  %c1h = arith.constant {value = 1.0 : f16} : () -> (f16)
  %one = vector.splat %c1h : (f16) -> (vector<64x16xf16, #a>)
  %old = tile.atomic_rmw %one, %ta {kind = atomic<addf>} : (vector<64x16xf16, #a>, tile<64x16xf16, #a>) -> (vector<64x16xf16, #a>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<16x64xf16, #b>)
  %vb = tile.load_tile %tb : (tile<16x64xf16, #b>) -> (vector<16x64xf16, #b>)
  %d = tile.tile_mma %old, %vb : (vector<64x16xf16, #a>, vector<16x64xf16, #b>) -> (vector<64x64xf32, #c>)
  %tc = tile.init_tile %C, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SC>, index, index) -> (tile<64x64xf32, #c>)
  tile.store_tile %d, %tc : (vector<64x64xf32, #c>, tile<64x64xf32, #c>) -> ()
)",
                              {{"SA", "64x16xf16"}, {"SB", "16x64xf16"}, {"SC", "64x64xf32"},
                               {"a", "wg_map<sg_layout = [2, 2], sg_data = [32, 16]>"},
                               {"b", "wg_map<sg_layout = [2, 2], sg_data = [16, 32]>"},
                               {"c", "wg_map<sg_layout = [2, 2], sg_data = [32, 32]>"}}});
  EXPECT_EQ(countOf(text, "tile.atomic_rmw"), 1u) << text;
  EXPECT_NE(text.find("gpu.slm_alloc : () -> (memref<64x16xf16, slm>)"), std::string::npos) << text;
}

// Non-splat constants with a wg_map: every subgroup gets its own block of the 8x8 value (chosen by its
// offsets at run time), round-robin ([2, 2] x [2, 2]: four blocks per subgroup) and replicated
// ([4, 1] x [4, 8]: two replicas of each block). B = A + K1 + K2.
TEST(DistributeDiff, NonSplatConstants) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<8x8xi32, #r>)
  %v = tile.load_tile %ta : (tile<8x8xi32, #r>) -> (vector<8x8xi32, #r>)
  %k1 = arith.constant {value = dense<[#K]> : vector<8x8xi32, #r>} : () -> (vector<8x8xi32, #r>)
  %s = arith.addi %v, %k1 : (vector<8x8xi32, #r>, vector<8x8xi32, #r>) -> (vector<8x8xi32, #r>)
  %w = tile.convert_layout %s : (vector<8x8xi32, #r>) -> (vector<8x8xi32, #p>)
  %k2 = arith.constant {value = dense<[#K]> : vector<8x8xi32, #p>} : () -> (vector<8x8xi32, #p>)
  %t = arith.addi %w, %k2 : (vector<8x8xi32, #p>, vector<8x8xi32, #p>) -> (vector<8x8xi32, #p>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<8x8xi32, #p>)
  tile.store_tile %t, %tb : (vector<8x8xi32, #p>, tile<8x8xi32, #p>) -> ()
)",
                              {{"SA", "8x8xi32"}, {"SB", "8x8xi32"}, {"SC", "1xf32"},
                               {"K", "-11, -4, 3, 10, -6, 1, 8, -8, -1, 6, -10, -3, 4, 11, -5, 2, 9, -7, 5, 7, -9, -2, 5, -11, -4, 3, 10, -6, 1, 8, -8, -1, 6, -10, -3, 4, 11, -5, 2, 9, -7, 5, 7, -9, -2, 5, -11, -4, 3, 10, -6, 1, 8, -8, -1, 6, -10, -3, 4, 11, -5, 2, 9, -7"},
                               {"r", "wg_map<sg_layout = [2, 2], sg_data = [2, 2]>"},
                               {"p", "wg_map<sg_layout = [4, 1], sg_data = [4, 8]>"}}});
  EXPECT_NE(text.find("dense<["), std::string::npos) << text;
}

// Two convert_layouts of one shape and type (there and back) share one SLM buffer: each exchange ends
// with a barrier after its last read, so the second may overwrite it.
TEST(DistributeDiff, ExchangesShareTheirBuffer) {
  std::string text = runDiff({R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<128x64xi32, #i>)
  %v = tile.load_tile %ta : (tile<128x64xi32, #i>) -> (vector<128x64xi32, #i>)
  %c = tile.convert_layout %v : (vector<128x64xi32, #i>) -> (vector<128x64xi32, #o>)
  %d = arith.addi %c, %c : (vector<128x64xi32, #o>, vector<128x64xi32, #o>) -> (vector<128x64xi32, #o>)
  %e = tile.convert_layout %d : (vector<128x64xi32, #o>) -> (vector<128x64xi32, #i>)
  %f = arith.addi %e, %v : (vector<128x64xi32, #i>, vector<128x64xi32, #i>) -> (vector<128x64xi32, #i>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<128x64xi32, #i>)
  tile.store_tile %f, %tb : (vector<128x64xi32, #i>, tile<128x64xi32, #i>) -> ()
)",
                              {{"SA", "128x64xi32"}, {"SB", "128x64xi32"}, {"SC", "1xf32"},
                               {"i", "wg_map<sg_layout = [2, 4], sg_data = [64, 16]>"},
                               {"o", "wg_map<sg_layout = [8, 1], sg_data = [16, 64]>"}}});
  EXPECT_EQ(countOf(text, "gpu.slm_alloc"), 1u) << text;
  EXPECT_EQ(countOf(text, "gpu.barrier"), 4u) << text;
}

// A transpose through SLM whose 256x128 f32 input (128 KiB) exceeds dg2's 64 KiB: two rounds of 128
// input rows; each reader's transposed source block lies in one slab.
TEST(DistributeDiff, TransposeInRounds) {
  DiffCase c{R"(
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SA>, index, index) -> (tile<256x128xf32, #i>)
  %v = tile.load_tile %ta : (tile<256x128xf32, #i>) -> (vector<256x128xf32, #i>)
  %t = tile.transpose %v {permutation = [1, 0]} : (vector<256x128xf32, #i>) -> (vector<128x256xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<#SB>, index, index) -> (tile<128x256xf32, #o>)
  tile.store_tile %t, %tb : (vector<128x256xf32, #o>, tile<128x256xf32, #o>) -> ()
)",
             {{"SA", "256x128xf32"}, {"SB", "128x256xf32"}, {"SC", "1xf32"},
              {"i", "wg_map<sg_layout = [4, 8], sg_data = [64, 16]>"},
              {"o", "wg_map<sg_layout = [8, 4], sg_data = [16, 64]>"}}};
  c.target = "dg2";
  std::string text = runDiff(c);
  EXPECT_NE(text.find("memref<128x128xf32, slm>"), std::string::npos) << text;
}

// The RFC appendix kernels themselves (examples/rfc_2_*.xt) through the frontend, shrunk so the
// interpreter runs one workgroup in seconds: K becomes 64 (two steps of 32), every other 4096 the
// workgroup tile's extent `n`, and the grid one workgroup. order-transpose, wg-distribute and
// order-transpose run on the target's tables (pvc, whose SLM the exchanges must fit).
namespace {
std::string shrunkExample(const std::string& file, int64_t n) {
  std::ifstream in(std::string(XTC_SOURCE_DIR) + "/examples/" + file);
  EXPECT_TRUE(in) << file;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text = std::regex_replace(text, std::regex("0 \\.\\. 4096"), "0 .. 64");
  text = std::regex_replace(text, std::regex("4096"), std::to_string(n));
  return std::regex_replace(text, std::regex("grid\\([0-9, ]+\\)"), "grid(1, 1)");
}

std::string diffSource(const std::string& file, const std::string& text, double tolerance = 0.0,
                       std::vector<int64_t> dynShape = {}) {
  IRFixture f;
  ir::registerAllOps();  // the verifier needs them; IRFixture::parse is not used here
  f.sm.addBuffer(file, text);
  auto m = frontend::compileToTileIR(file, f.diags);
  EXPECT_TRUE(m) << f.text();
  if (!m) return "";
  DiffCase c;
  c.tolerance = tolerance;
  c.orderTranspose = true;
  c.dynShape = std::move(dynShape);
  return diffModule(f, m.get(), c);
}

std::string diffExample(const std::string& file, int64_t n, double tolerance = 0.0) {
  return diffSource(file, shrunkExample(file, n), tolerance);
}
}  // namespace

TEST(DistributeDiff, RfcAppendix21GemmPrefetch) {
  std::string text = diffExample("rfc_2_1_gemm_prefetch.xt", 256);
  EXPECT_NE(text.find("tile.prefetch_tile"), std::string::npos) << text;
}

// The loop-carried BT tile re-mapped so its transpose is in registers (RFC appendix 2.3), the bias
// broadcast, the convert_layout in two rounds (256 KiB on pvc's 128 KiB: the only SLM buffer) and the
// local row reduction.
TEST(DistributeDiff, RfcAppendix22GemmTransposeBroadcastReduce) {
  std::string text = diffExample("rfc_2_2_gemm_transpose_bcast_reduce.xt", 256);
  EXPECT_EQ(countOf(text, "gpu.slm_alloc"), 1u) << text;
  EXPECT_NE(text.find("gpu.slm_alloc : () -> (memref<128x256xf32, slm>)"), std::string::npos) << text;
  // Two barriers per round; an SLM transpose in the loop would add two more.
  EXPECT_EQ(countOf(text, "gpu.barrier"), 4u) << text;
}

TEST(DistributeDiff, RfcAppendix23TransposeOpt) {
  std::string text = diffExample("rfc_2_3_transpose_opt.xt", 256);
  EXPECT_EQ(text.find("gpu.slm_alloc"), std::string::npos) << text;
}

TEST(DistributeDiff, RfcAppendix24GemmSlm) {
  std::string text = diffExample("rfc_2_4_gemm_slm.xt", 256);
  EXPECT_NE(text.find("num_subgroups = 64"), std::string::npos) << text;
}

TEST(DistributeDiff, RfcAppendix25GemmTwoCacheLevels) { diffExample("rfc_2_5_gemm_two_cache_levels.xt", 512); }

// The other workgroup-level examples (dynamic shapes) at an unaligned size: every dynamic dimension is
// 40, so the tiles of the second workgroup row/column cross the matrix edge (gemm_bf16's 256x256 tile
// covers the whole 40x40 matrix).
TEST(DistributeDiff, WorkgroupLevelExamplesAtAnUnalignedSize) {
  for (const char* file : {"bias_relu.xt", "gemm_acc.xt", "gemm_bf16.xt", "gemm_f16.xt", "gemm_i8.xt", "row_sum.xt"}) {
    SCOPED_TRACE(file);
    std::ifstream in(std::string(XTC_SOURCE_DIR) + "/examples/" + file);
    ASSERT_TRUE(in) << file;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // row_sum adds 40 floats per row in another order after distribution.
    diffSource(file, text, std::string(file) == "row_sum.xt" ? 1e-5 : 0.0, {40, 40});
  }
}
