// Unit tests of the wg-distribute pass: workgroup-level IR in, subgroup-level IR out, checked
// structurally (per-subgroup offsets evaluated for every subgroup id against hand-computed values from
// the RFC examples) and by diagnostics on bad input.
#include "ir/passes/WgDistribute.h"
#include "tests/unit/passes/PassTestSupport.h"

#include <set>

using namespace xtc;
using xtc::testing::IndexEval;
using xtc::testing::IRFixture;
using xtc::testing::opsNamed;
using xtc::testing::substitute;

namespace {

const targets::Target& pvc() { return *targets::findTarget("pvc"); }

// The 128x128 copy of the RFC's wg_map example: B = A + 1 with sg_layout [2, 2], sg_data [32, 128].
const char* kCopy128 = R"(
xtc.kernel @copy(%A: memref<128x128xf32>, %B: memref<128x128xf32>, %m: index) {arg_names = ["A", "B", "m"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %ta = tile.init_tile %A, %m, %c0 {segments = [2, 0, 0]} : (memref<128x128xf32>, index, index) -> (tile<128x128xf32, #w>)
  %v = tile.load_tile %ta : (tile<128x128xf32, #w>) -> (vector<128x128xf32, #w>)
  %one = arith.constant {value = dense<1.0> : vector<128x128xf32, #w>} : () -> (vector<128x128xf32, #w>)
  %s = arith.addf %v, %one : (vector<128x128xf32, #w>, vector<128x128xf32, #w>) -> (vector<128x128xf32, #w>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<128x128xf32>, index, index) -> (tile<128x128xf32, #w>)
  tile.store_tile %s, %tb : (vector<128x128xf32, #w>, tile<128x128xf32, #w>) -> ()
  xtc.return : () -> ()
}
)";

}  // namespace

TEST(WgDistribute, Rfc128x128OffsetsPerSubgroup) {
  IRFixture f;
  auto m = f.parse(substitute(kCopy128, {{"w", "wg_map<sg_layout = [2, 2], sg_data = [32, 128]>"}}));
  ASSERT_TRUE(m);
  ASSERT_TRUE(passes::runWgDistribute(m.get(), f.diags, pvc())) << f.text();
  ASSERT_TRUE(f.verify(*m)) << f.text() << ir::printToString(*m);
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  EXPECT_EQ(k->intAttr("num_subgroups", 0), 4);
  // No wg_map is left anywhere.
  EXPECT_EQ(ir::printToString(*m).find("wg_map"), std::string::npos) << ir::printToString(*m);

  auto inits = opsNamed(k, "tile.init_tile");
  ASSERT_EQ(inits.size(), 4u);  // two round-robin blocks for each of A and B
  for (auto* op : inits) EXPECT_EQ(op->result()->type().str(), "tile<32x128xf32>");
  // Expected (RFC table): subgroups 0,1 own rows 0 and 64; subgroups 2,3 rows 32 and 96; plus %m for A.
  const int64_t mVal = 1000;
  for (int64_t s = 0; s < 4; ++s) {
    IndexEval ev{s, {{2, mVal}}};
    int64_t r = (s / 2) * 32;
    EXPECT_EQ(ev.eval(inits[0]->operand(1)), mVal + r) << "subgroup " << s;
    EXPECT_EQ(ev.eval(inits[0]->operand(2)), 0);
    EXPECT_EQ(ev.eval(inits[1]->operand(1)), mVal + r + 64) << "subgroup " << s;
    EXPECT_EQ(ev.eval(inits[2]->operand(1)), r);
    EXPECT_EQ(ev.eval(inits[3]->operand(1)), r + 64);
    EXPECT_EQ(ev.eval(inits[3]->operand(2)), 0);
  }
  // Columns are shared by two subgroups: exactly one replica stores, under an scf.if.
  auto stores = opsNamed(k, "tile.store_tile");
  ASSERT_EQ(stores.size(), 2u);
  for (auto* st : stores) {
    ir::Operation* guard = st->parentOp();
    ASSERT_TRUE(guard && guard->is("scf.if")) << ir::printToString(*m);
    for (int64_t s = 0; s < 4; ++s) EXPECT_EQ((IndexEval{s, {}}.eval(guard->operand(0))), s % 2 == 0) << "subgroup " << s;
  }
  EXPECT_EQ(opsNamed(k, "arith.addf").size(), 2u);
}

TEST(WgDistribute, Rfc32x256ReplicatedStore) {
  IRFixture f;
  auto m = f.parse(substitute(R"(
xtc.kernel @k(%A: memref<64x512xf16>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %c8 = arith.constant {value = 8 : index} : () -> (index)
  %t = tile.init_tile %A, %c8, %c0 {segments = [2, 0, 0]} : (memref<64x512xf16>, index, index) -> (tile<32x256xf16, #w>)
  %z = arith.constant {value = dense<2.0> : vector<32x256xf16, #w>} : () -> (vector<32x256xf16, #w>)
  tile.store_tile %z, %t : (vector<32x256xf16, #w>, tile<32x256xf16, #w>) -> ()
  xtc.return : () -> ()
}
)",
                              {{"w", "wg_map<sg_layout = [4, 8], sg_data = [32, 64]>"}}));
  ASSERT_TRUE(m);
  ASSERT_TRUE(passes::runWgDistribute(m.get(), f.diags, pvc())) << f.text();
  ASSERT_TRUE(f.verify(*m)) << f.text();
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  EXPECT_EQ(k->intAttr("num_subgroups", 0), 32);
  auto inits = opsNamed(k, "tile.init_tile");
  ASSERT_EQ(inits.size(), 1u);
  EXPECT_EQ(inits[0]->result()->type().str(), "tile<32x64xf16>");
  auto stores = opsNamed(k, "tile.store_tile");
  ASSERT_EQ(stores.size(), 1u);
  ir::Operation* guard = stores[0]->parentOp();
  ASSERT_TRUE(guard->is("scf.if"));
  for (int64_t s = 0; s < 32; ++s) {
    IndexEval ev{s, {}};
    EXPECT_EQ(ev.eval(inits[0]->operand(1)), 8);
    EXPECT_EQ(ev.eval(inits[0]->operand(2)), (s % 8 % 4) * 64) << "subgroup " << s;
    // 4 x 2 = 8 replicas of each block; only subgroups 0..3 (row 0, columns 0..3) store.
    EXPECT_EQ(ev.eval(guard->operand(0)), s < 4) << "subgroup " << s;
  }
}

TEST(WgDistribute, RfcGemmLoop) {
  IRFixture f;
  auto m = f.parse(substitute(R"(
xtc.kernel @gemm(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>, %K: index) {arg_names = ["A", "B", "C", "K"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %c32 = arith.constant {value = 32 : index} : () -> (index)
  %g0 = gpu.group_id {dim = 0} : () -> (index)
  %g1 = gpu.group_id {dim = 1} : () -> (index)
  %c256 = arith.constant {value = 256 : index} : () -> (index)
  %mo = arith.muli %g0, %c256 : (index, index) -> (index)
  %no = arith.muli %g1, %c256 : (index, index) -> (index)
  %ta = tile.init_tile %A, %mo, %c0 {segments = [2, 0, 0]} : (memref<?x?xbf16>, index, index) -> (tile<256x32xbf16, #a>)
  %tb = tile.init_tile %B, %c0, %no {segments = [2, 0, 0]} : (memref<?x?xbf16>, index, index) -> (tile<32x256xbf16, #b>)
  %z = arith.constant {value = dense<0.0> : vector<256x256xf32, #c>} : () -> (vector<256x256xf32, #c>)
  %ra, %rb, %rc = scf.for %c0, %K, %c32, %ta, %tb, %z : (index, index, index, tile<256x32xbf16, #a>, tile<32x256xbf16, #b>, vector<256x256xf32, #c>) -> (tile<256x32xbf16, #a>, tile<32x256xbf16, #b>, vector<256x256xf32, #c>) ({
  ^bb0(%k: index, %xa: tile<256x32xbf16, #a>, %xb: tile<32x256xbf16, #b>, %acc: vector<256x256xf32, #c>):
    %va = tile.load_tile %xa : (tile<256x32xbf16, #a>) -> (vector<256x32xbf16, #a>)
    %vb = tile.load_tile %xb : (tile<32x256xbf16, #b>) -> (vector<32x256xbf16, #b>)
    %d = tile.tile_mma %va, %vb, %acc : (vector<256x32xbf16, #a>, vector<32x256xbf16, #b>, vector<256x256xf32, #c>) -> (vector<256x256xf32, #c>)
    %na = tile.update_tile_offset %xa, %c0, %c32 : (tile<256x32xbf16, #a>, index, index) -> (tile<256x32xbf16, #a>)
    %nb = tile.update_tile_offset %xb, %c32, %c0 : (tile<32x256xbf16, #b>, index, index) -> (tile<32x256xbf16, #b>)
    scf.yield %na, %nb, %d : (tile<256x32xbf16, #a>, tile<32x256xbf16, #b>, vector<256x256xf32, #c>) -> ()
  })
  %tc = tile.init_tile %C, %mo, %no {segments = [2, 0, 0]} : (memref<?x?xf32>, index, index) -> (tile<256x256xf32, #c>)
  tile.store_tile %rc, %tc : (vector<256x256xf32, #c>, tile<256x256xf32, #c>) -> ()
  xtc.return : () -> ()
}
)",
                              {{"a", "wg_map<sg_layout = [8, 4], sg_data = [32, 32]>"},
                               {"b", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"},
                               {"c", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"}}));
  ASSERT_TRUE(m);
  ASSERT_TRUE(passes::runWgDistribute(m.get(), f.diags, pvc())) << f.text();
  ASSERT_TRUE(f.verify(*m)) << f.text() << ir::printToString(*m);
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  auto fors = opsNamed(k, "scf.for");
  ASSERT_EQ(fors.size(), 1u);
  // One block each: A 32x32, B 32x64, acc 32x64 carried through the loop.
  EXPECT_EQ(fors[0]->numResults(), 3u);
  EXPECT_EQ(fors[0]->result(0)->type().str(), "tile<32x32xbf16>");
  EXPECT_EQ(fors[0]->result(1)->type().str(), "tile<32x64xbf16>");
  EXPECT_EQ(fors[0]->result(2)->type().str(), "vector<32x64xf32>");
  auto mmas = opsNamed(k, "tile.tile_mma");
  ASSERT_EQ(mmas.size(), 1u);
  EXPECT_EQ(mmas[0]->result()->type().str(), "vector<32x64xf32>");
  auto inits = opsNamed(k, "tile.init_tile");
  ASSERT_EQ(inits.size(), 3u);
  // The group ids are not index math of the pass: replace them by their definition's meaning.
  for (int64_t s = 0; s < 32; ++s) {
    IndexEval ev{s, {}};
    int64_t r = s / 4, q = s % 4;
    // %mo and %no are products of group ids: compare the added per-subgroup part only.
    auto part = [&](ir::Value* v, ir::Value* base) -> int64_t {
      if (v == base) return 0;
      ir::Operation* d = v->definingOp();
      EXPECT_TRUE(d && d->is("arith.addi"));
      return d->operand(0) == base ? ev.eval(d->operand(1)) : ev.eval(d->operand(0));
    };
    ir::Value* mo = inits[0]->operand(1);  // the distributed A offset: %mo + 32 * r (or %mo itself)
    ir::Value* moBase = mo->definingOp()->is("arith.addi") ? mo->definingOp()->operand(0) : mo;
    EXPECT_EQ(part(inits[0]->operand(1), moBase), 32 * r) << "A row, subgroup " << s;
    EXPECT_EQ(ev.eval(inits[0]->operand(2)), 0);
    EXPECT_EQ(ev.eval(inits[1]->operand(1)), 0);
    ir::Value* no = inits[1]->operand(2);
    ir::Value* noBase = no->definingOp()->is("arith.addi") ? no->definingOp()->operand(0) : no;
    EXPECT_EQ(part(inits[1]->operand(2), noBase), 64 * q) << "B column, subgroup " << s;
    EXPECT_EQ(part(inits[2]->operand(1), moBase), 32 * r) << "C row, subgroup " << s;
    EXPECT_EQ(part(inits[2]->operand(2), noBase), 64 * q) << "C column, subgroup " << s;
  }
  // C is not replicated: the store is not guarded.
  auto stores = opsNamed(k, "tile.store_tile");
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_TRUE(stores[0]->parentOp()->is("xtc.kernel"));
}

TEST(WgDistribute, ForbiddenWgMapIsADiagnostic) {
  IRFixture f;
  auto m = f.parse(substitute(R"(
xtc.kernel @k(%A: memref<96x16xf32>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %t = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<96x16xf32>, index, index) -> (tile<96x16xf32, #w>) loc("k.xt":7:8)
  xtc.return : () -> ()
}
)",
                              {{"w", "wg_map<sg_layout = [2, 1], sg_data = [32, 16]>"}}));
  ASSERT_TRUE(m);
  std::string before = ir::printToString(*m);
  EXPECT_FALSE(passes::runWgDistribute(m.get(), f.diags, pvc()));
  EXPECT_NE(f.text().find("k.xt:7:8: error: wg-distribute: invalid wg_map<sg_layout = [2, 1], sg_data = [32, 16]>"),
            std::string::npos)
      << f.text();
  EXPECT_EQ(ir::printToString(*m), before);  // the kernel is left as it was
}

TEST(WgDistribute, MismatchedSubgroupCountsAreADiagnostic) {
  IRFixture f;
  auto m = f.parse(R"(
xtc.kernel @k(%A: memref<64x64xf32>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %t = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<64x64xf32>, index, index) -> (tile<64x64xf32, wg_map<sg_layout = [2, 2], sg_data = [32, 32]>>) loc("k.xt":3:3)
  %u = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<64x64xf32>, index, index) -> (tile<64x64xf32, wg_map<sg_layout = [2, 1], sg_data = [32, 64]>>) loc("k.xt":4:3)
  xtc.return : () -> ()
}
)");
  ASSERT_TRUE(m);
  EXPECT_FALSE(passes::runWgDistribute(m.get(), f.diags, pvc()));
  std::string t = f.text();
  EXPECT_NE(t.find("k.xt:4:3: error: wg-distribute: wg_map<sg_layout = [2, 1], sg_data = [32, 64]> uses 2 subgroups, but the kernel uses 4"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("k.xt:3:3: note: 4 subgroups from"), std::string::npos) << t;
}

TEST(WgDistribute, SlmOverflowIsADiagnosticAtTheOp) {
  IRFixture f;
  // A 256x256 f32 convert_layout from whole columns to whole rows needs 256 KiB of SLM and cannot be
  // split into rounds (no slab of either dimension holds whole blocks); pvc has 128 KiB.
  auto m = f.parse(substitute(R"(
xtc.kernel @k(%A: memref<256x256xf32>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %t = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<256x256xf32>, index, index) -> (tile<256x256xf32, #a>)
  %v = tile.load_tile %t : (tile<256x256xf32, #a>) -> (vector<256x256xf32, #a>)
  %w = tile.convert_layout %v : (vector<256x256xf32, #a>) -> (vector<256x256xf32, #b>) loc("k.xt":9:7)
  xtc.return : () -> ()
}
)",
                              {{"a", "wg_map<sg_layout = [1, 32], sg_data = [256, 8]>"},
                               {"b", "wg_map<sg_layout = [32, 1], sg_data = [8, 256]>"}}));
  ASSERT_TRUE(m);
  EXPECT_FALSE(passes::runWgDistribute(m.get(), f.diags, pvc()));
  EXPECT_NE(f.text().find("k.xt:9:7: error: wg-distribute: this convert_layout needs 262144 bytes of shared local memory, which "
                          "brings the kernel to 262144 bytes; target 'pvc' has 131072"),
            std::string::npos)
      << f.text();
}

TEST(WgDistribute, MmaOperandsMustFollowTheDerivedRule) {
  IRFixture f;
  // B's sg_data along n (32) differs from C's (64): the RFC's derived wg_map for B is [32, 64].
  auto m = f.parse(substitute(R"(
xtc.kernel @k(%A: memref<256x32xf16>, %B: memref<32x256xf16>) {arg_names = ["A", "B"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<256x32xf16>, index, index) -> (tile<256x32xf16, #a>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<32x256xf16>, index, index) -> (tile<32x256xf16, #b>)
  %va = tile.load_tile %ta : (tile<256x32xf16, #a>) -> (vector<256x32xf16, #a>)
  %vb = tile.load_tile %tb : (tile<32x256xf16, #b>) -> (vector<32x256xf16, #b>)
  %d = tile.tile_mma %va, %vb : (vector<256x32xf16, #a>, vector<32x256xf16, #b>) -> (vector<256x256xf32, #c>) loc("k.xt":5:9)
  xtc.return : () -> ()
}
)",
                              {{"a", "wg_map<sg_layout = [8, 4], sg_data = [32, 32]>"},
                               {"b", "wg_map<sg_layout = [8, 4], sg_data = [32, 32]>"},
                               {"c", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"}}));
  ASSERT_TRUE(m);
  EXPECT_FALSE(passes::runWgDistribute(m.get(), f.diags, pvc()));
  EXPECT_NE(f.text().find("k.xt:5:9: error: wg-distribute: tile_mma operands do not follow the wg_maps derived"), std::string::npos)
      << f.text();
  EXPECT_NE(f.text().find("B needs wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"), std::string::npos) << f.text();
}

// The SLM swizzle of an exchange buffer (ir/layout's planner, pvc: 16 banks of 4 bytes) keeps every
// access bank-conflict free. A transpose [4, 8] x [64, 4] -> [8, 4] x [4, 64] of a 256x32 f32 vector
// writes and reads 64x4 blocks of a 256x32 buffer: one 16-lane access covers 4 rows whose 128-byte
// pitch puts them all in the same banks without a swizzle. Recomputed here from the swizzle
// attribute alone: for every SLM access of every subgroup, each group of 16 elements (row-major in the
// block, lane l = element l) falls into 16 distinct banks; without the swizzle it would not.
TEST(WgDistribute, SlmSwizzleMakesExchangesBankConflictFree) {
  IRFixture f;
  auto m = f.parse(substitute(R"(
xtc.kernel @k(%A: memref<256x32xf32>, %B: memref<32x256xf32>) {arg_names = ["A", "B"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<256x32xf32>, index, index) -> (tile<256x32xf32, #i>)
  %v = tile.load_tile %ta : (tile<256x32xf32, #i>) -> (vector<256x32xf32, #i>)
  %t = tile.transpose %v {permutation = [1, 0]} : (vector<256x32xf32, #i>) -> (vector<32x256xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<32x256xf32>, index, index) -> (tile<32x256xf32, #o>)
  tile.store_tile %t, %tb : (vector<32x256xf32, #o>, tile<32x256xf32, #o>) -> ()
  xtc.return : () -> ()
}
)",
                              {{"i", "wg_map<sg_layout = [4, 8], sg_data = [64, 4]>"},
                               {"o", "wg_map<sg_layout = [8, 4], sg_data = [4, 64]>"}}));
  ASSERT_TRUE(m);
  ASSERT_TRUE(passes::runWgDistribute(m.get(), f.diags, pvc())) << f.text();
  auto allocs = opsNamed(m.get(), "gpu.slm_alloc");
  ASSERT_EQ(allocs.size(), 1u);
  ir::Operation* alloc = allocs[0];
  ASSERT_NE(alloc->attr("swizzle"), nullptr) << ir::printToString(*m);
  std::vector<int64_t> z = alloc->attr("swizzle")->getIntArray();
  ASSERT_EQ(z.size(), 3u);
  const int64_t cols = 32, elemBytes = 4, banks = pvc().slmBanks, lanes = pvc().subgroupSize;
  auto swizzled = [&](int64_t a) { return a ^ (((a >> (z[1] + z[2])) & ((int64_t(1) << z[0]) - 1)) << z[1]); };
  // Worst number of lanes of one access that hit one bank in different words.
  auto worstConflict = [&](bool applySwizzle) {
    int64_t worst = 1, accesses = 0;
    for (ir::Operation* init : opsNamed(m.get(), "tile.init_tile")) {
      if (init->operand(0) != alloc->result()) continue;
      const auto& shape = init->result()->type().shape();
      for (int64_t s = 0; s < 32; ++s) {
        IndexEval ev{s, {}};
        int64_t r0 = ev.eval(init->operand(1)), c0 = ev.eval(init->operand(2));
        for (int64_t g = 0; g < shape[0] * shape[1]; g += lanes) {
          std::map<int64_t, std::set<int64_t>> wordsPerBank;
          for (int64_t l = 0; l < lanes; ++l) {
            int64_t e = g + l, a = ((r0 + e / shape[1]) * cols + c0 + e % shape[1]) * elemBytes;
            if (applySwizzle) a = swizzled(a);
            wordsPerBank[(a / 4) % banks].insert(a / 4);
          }
          for (auto& [bank, words] : wordsPerBank) worst = std::max<int64_t>(worst, words.size());
          ++accesses;
        }
      }
    }
    EXPECT_GT(accesses, 0);
    return worst;
  };
  EXPECT_EQ(worstConflict(true), 1);
  EXPECT_EQ(worstConflict(false), 4);
}
