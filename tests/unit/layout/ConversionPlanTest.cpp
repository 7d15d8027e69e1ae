// Conversion planner tests: block-load layouts to DPAS operand layouts (identity / register
// permutation), cross-lane conversions (shuffles), cross-subgroup conversions (SLM with a swizzle that
// removes bank conflicts), and the error cases. Expected permutations and lanes are worked out by hand.
#include "ir/layout/ConversionPlan.h"

#include <gtest/gtest.h>

using namespace xtc::layout;

namespace {

LinearLayout lanesRegs(std::vector<std::vector<int32_t>> reg, std::vector<std::vector<int32_t>> lane, int rows,
                       int cols, std::vector<std::vector<int32_t>> sg = {}) {
  std::vector<InDim> ins{InDim{"register", std::move(reg)}, InDim{"lane", std::move(lane)}};
  if (!sg.empty()) ins.push_back(InDim{"subgroup", std::move(sg)});
  return LinearLayout(std::move(ins), {OutDim{"dim0", rows}, OutDim{"dim1", cols}});
}

}  // namespace

TEST(ConversionPlan, IdentityForEqualLayouts) {
  auto a = dpasLayout(Target::Pvc, ElemType::BF16, Operand::A);
  auto p = planConversion(a->layout, a->layout);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::Identity);
  EXPECT_EQ(p->shuffleCount, 0);
  EXPECT_EQ(p->sources[3][5], (LaneSource{5, 3}));
}

TEST(ConversionPlan, BlockLoadOfAIsTheDpasALayout) {
  // d16 16 wide x 8 high -> the 8x16 A operand: lane = column, register = row on both sides.
  auto load = blockLoadLayout({16, 16, 8, 1});
  auto a = dpasLayout(Target::Pvc, ElemType::BF16, Operand::A);
  auto p = planConversion(load->layout, a->layout, {2, {}});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::Identity);
  // d16 16 wide x 32 high -> four A operands stacked along M.
  auto load32 = blockLoadLayout({16, 16, 32, 1});
  auto a4 = dpasLayout(Target::Pvc, ElemType::BF16, Operand::A, 4, 1);
  auto p32 = planConversion(load32->layout, a4->layout, {2, {}});
  ASSERT_TRUE(p32) << p32.error();
  EXPECT_EQ(p32->kind, ConversionKind::Identity);
  // Array load 16x32x2 -> 32x32: repetitions along M then K, as the response's block order.
  auto load2 = blockLoadLayout({16, 16, 32, 2});
  auto a42 = dpasLayout(Target::Pvc, ElemType::BF16, Operand::A, 4, 2);
  auto p2 = planConversion(load2->layout, a42->layout, {2, {}});
  ASSERT_TRUE(p2) << p2.error();
  EXPECT_EQ(p2->kind, ConversionKind::Identity);
}

TEST(ConversionPlan, BlockLoadOfAWithKFirstRepetitionIsARegisterPermutation) {
  // A 16x32x2 array load (32x32) against A operands repeated K first: register bit 3 of the DPAS side
  // is the K repetition (column 16), bits 4-5 the M repetitions (rows 8, 16). The load has rows 8, 16
  // on bits 3-4 and column 16 on bit 5. So dst r = (b0..b5) <- src (b0 b1 b2 b4 b5 b3).
  auto load = blockLoadLayout({16, 16, 32, 2});
  LinearLayout kFirst = lanesRegs({{1, 0}, {2, 0}, {4, 0}, {0, 16}, {8, 0}, {16, 0}},
                                  {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 32, 32);
  auto p = planConversion(load->layout, kFirst, {2, {}});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::RegisterPermutation);
  ASSERT_EQ(p->registerPermutation.size(), 64u);
  EXPECT_EQ(p->registerPermutation[0], 0);
  EXPECT_EQ(p->registerPermutation[7], 7);
  EXPECT_EQ(p->registerPermutation[8], 32);   // K repetition = load's column-16 bit (bit 5)
  EXPECT_EQ(p->registerPermutation[16], 8);   // M rep 1 = row 8 (bit 3)
  EXPECT_EQ(p->registerPermutation[32], 16);  // M rep 2 = row 16 (bit 4)
  EXPECT_EQ(p->registerPermutation[8 + 3], 32 + 3);
  EXPECT_FALSE(p->laneDependentRegisters);
}

TEST(ConversionPlan, TransposedD32LoadOfBf16BT) {
  // Seed 000 loads bf16 B^T with d32 transposed loads. Per reference §2.3 one 8x16 d32 transposed load
  // already *is* the VNNI B layout ("transpose_u32_k8 on 16-bit B^T gives ... the VNNI B layout"):
  auto t16 = blockLoadLayout({32, 8, 16, 1, false, true, 16});
  auto b = dpasLayout(Target::Pvc, ElemType::BF16, Operand::B);
  auto p = planConversion(t16->layout, b->layout, {2, {}});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::Identity);
  // The 32-row transposed load (<16 x i32>) interleaves the two N halves (element 2i rows 0-15, 2i+1
  // rows 16-31), while the DPAS B operands repeated along N keep them apart: a register permutation.
  // Load register bits: b0 = K 1 (half), b1 = N 16, b2..b4 = K 2, 4, 8. DPAS: b0..b3 = K 1..8, b4 = N 16.
  auto t32 = blockLoadLayout({32, 8, 32, 1, false, true, 16});
  auto b2 = dpasLayout(Target::Pvc, ElemType::BF16, Operand::B, 1, 2);
  auto p2 = planConversion(t32->layout, b2->layout, {2, {}});
  ASSERT_TRUE(p2) << p2.error();
  EXPECT_EQ(p2->kind, ConversionKind::RegisterPermutation);
  EXPECT_EQ(p2->registerPermutation[1], 1);
  EXPECT_EQ(p2->registerPermutation[2], 4);
  EXPECT_EQ(p2->registerPermutation[3], 5);
  EXPECT_EQ(p2->registerPermutation[16], 2);
  EXPECT_EQ(p2->registerPermutation[17], 3);
  EXPECT_EQ(p2->registerPermutation[31], 31);
}

TEST(ConversionPlan, PlainLoadOfBTNeedsShuffles) {
  // B^T (N x K) read with a plain d16 16x16 load: lane = K, register = N in B's coordinates. DPAS B
  // wants lane = N, register = K, so every value crosses lanes: dst register r of lane l is B[r][l],
  // held by source lane r, register l.
  auto plain = blockLoadLayout({16, 16, 16, 1});
  auto asB = plain->layout.transposeTensor();
  ASSERT_TRUE(asB);
  auto b = dpasLayout(Target::Pvc, ElemType::BF16, Operand::B);
  auto p = planConversion(*asB, b->layout, {2, {}});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::Shuffle);
  EXPECT_EQ(p->sources[5][9], (LaneSource{5, 9}));
  EXPECT_EQ(p->sources[0][15], (LaneSource{0, 15}));
  EXPECT_TRUE(p->laneDependentRegisters);
  // Destination register r takes source register l from lane r, for every lane l: 16 x 16 groups, of
  // which the 16 with l == r stay in their lane (moves); the other 240 are shuffles.
  EXPECT_EQ(p->shuffleCount, 240);
  EXPECT_EQ(p->moveCount, 16);
  EXPECT_EQ(p->shuffles[0].dstRegister, 0);
  EXPECT_EQ(p->shuffles[0].srcRegister, 1);
  EXPECT_EQ(p->shuffles[0].srcLane[1], 0);
  EXPECT_EQ(p->shuffles[0].srcLane[0], -1);
  EXPECT_EQ(p->shuffles[0].laneExpr, "per-lane table");
}

TEST(ConversionPlan, XorShuffle) {
  // Destination lane l holds the column the source keeps in lane l ^ 1: one shuffle_xor per register.
  LinearLayout src = lanesRegs({{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 8, 16);
  LinearLayout dst = lanesRegs({{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 8, 16);
  // Same basis vectors but register 1 of the destination is also swapped with lane bit 0: build it by
  // giving register bit 0 the basis (1,1): register 1 of lane l holds (1, l ^ 1).
  dst = lanesRegs({{1, 1}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 8, 16);
  auto p = planConversion(src, dst);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::Shuffle);
  EXPECT_EQ(p->shuffleCount, 4);  // the 4 destination registers with register bit 0 set
  EXPECT_EQ(p->moveCount, 4);     // the other 4 stay in their lane
  ASSERT_FALSE(p->shuffles.empty());
  EXPECT_EQ(p->shuffles[0].dstRegister, 1);
  EXPECT_EQ(p->shuffles[0].srcRegister, 1);
  EXPECT_EQ(p->shuffles[0].laneExpr, "lane ^ 1");
  EXPECT_EQ(p->sources[1][6], (LaneSource{7, 1}));
  EXPECT_FALSE(p->subgroupDependent);
}

TEST(ConversionPlan, SubgroupDependentShuffles) {
  // Two subgroups; in the destination, subgroup 1 also swaps lane bit 0 (basis (8,1) instead of (8,0)):
  // subgroup 0 needs no movement, subgroup 1 needs lane ^ 1 for every register.
  LinearLayout src = lanesRegs({{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 16, 16, {{8, 0}});
  LinearLayout dst = lanesRegs({{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 16, 16, {{8, 1}});
  auto p = planConversion(src, dst);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::Shuffle);
  EXPECT_TRUE(p->subgroupDependent);
  EXPECT_EQ(p->dstToSrc->apply(std::vector<int32_t>{3, 6, 1}), (std::vector<int32_t>{3, 7, 1}));
  EXPECT_EQ(p->dstToSrc->apply(std::vector<int32_t>{3, 6, 0}), (std::vector<int32_t>{3, 6, 0}));
}

TEST(ConversionPlan, ReplicatedAcrossSubgroupsNeedsSlm) {
  // 32x32 f32 tile. Source: subgroup s holds rows [16s, 16s+16) in the DPAS C layout (lane = column).
  // Destination: both subgroups hold the whole tile (wrap-around replication).
  auto c16 = dpasLayout(Target::Pvc, ElemType::BF16, Operand::C, 2, 2);  // 16x32 per subgroup
  auto c32 = dpasLayout(Target::Pvc, ElemType::BF16, Operand::C, 4, 2);  // 32x32 per subgroup
  auto src = wgMapLayout({{2, 1}, {16, 32}}, {32, 32}, &c16->layout);
  auto dst = wgMapLayout({{2, 1}, {32, 32}}, {32, 32}, &c32->layout);
  ASSERT_TRUE(src && dst);
  EXPECT_EQ(dst->replication(), 2);
  auto p = planConversion(*src, *dst, {4, {16, 4}});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::SharedMemory);
  ASSERT_TRUE(p->slm);
  EXPECT_EQ(p->slm->bytes, 32 * 32 * 4);
  EXPECT_EQ(p->slm->storeConflictWays, 1);
  EXPECT_EQ(p->slm->loadConflictWays, 1);
  EXPECT_EQ(p->slm->storesPerSubgroup, 32);
  EXPECT_EQ(p->slm->loadsPerSubgroup, 64);
}

TEST(ConversionPlan, SlmTransposeGetsAConflictFreeSwizzle) {
  // 32x16 f32. Source: 2 subgroups x 16 rows, lane = column (row-major rows of 64 bytes in SLM).
  // Destination: 2 subgroups x 8 columns, lane = row: a load reads a column, 16 words 64 bytes apart,
  // all in one of 16 banks unless swizzled.
  LinearLayout src = lanesRegs({{1, 0}, {2, 0}, {4, 0}, {8, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 32, 16, {{16, 0}});
  LinearLayout dst = lanesRegs({{0, 1}, {0, 2}, {0, 4}, {16, 0}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}}, 32, 16, {{0, 8}});
  auto p = planConversion(src, dst, {4, {16, 4}});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->kind, ConversionKind::SharedMemory);
  EXPECT_EQ(p->slm->unswizzledStoreWays, 1);
  EXPECT_EQ(p->slm->unswizzledLoadWays, 16);
  EXPECT_EQ(p->slm->storeConflictWays, 1);
  EXPECT_EQ(p->slm->loadConflictWays, 1);
  EXPECT_GT(p->slm->swizzle.bits, 0);
  // The chosen placement really is conflict-free on both sides.
  EXPECT_EQ(*slmAccessConflictWays(dst, p->slm->placement, 4, {16, 4}), 1);
  EXPECT_EQ(*slmAccessConflictWays(src, p->slm->placement, 4, {16, 4}), 1);
  EXPECT_NE(p->summary().find("shared-memory"), std::string::npos);
}

TEST(ConversionPlan, Errors) {
  auto a = dpasLayout(Target::Pvc, ElemType::BF16, Operand::A);
  auto c = dpasLayout(Target::Pvc, ElemType::BF16, Operand::C);
  auto b = dpasLayout(Target::Pvc, ElemType::BF16, Operand::B);
  EXPECT_FALSE(planConversion(a->layout, b->layout).ok());  // 8x16 vs 16x16
  // Same tensor, but the source only covers half of it.
  LinearLayout half = lanesRegs({{1, 0}, {2, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}}, 8, 16);
  auto e = planConversion(half, c->layout);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("does not hold"), std::string::npos);
  auto off = blockOffsetLayout({16, 16, 8, 1});
  EXPECT_FALSE(planConversion(*off, a->layout).ok());  // offset is not a register/lane dim
}

// wg-distribute's SLM access model: a 64x4 block of a 256x32 buffer, 16 lanes per access: lane l is
// element l of the block's row-major order (row l / 4, column l % 4), register r the r-th 16 elements.
TEST(ConversionPlan, SlmBlockAccessLayoutIsRowMajorLanesFirst) {
  auto a = slmBlockAccessLayout(256, 32, 64, 4, 16);
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->inDimSize("lane"), 16);
  EXPECT_EQ(a->inDimSize("register"), 16);
  EXPECT_EQ(a->apply(std::vector<int32_t>{0, 5}), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(a->apply(std::vector<int32_t>{1, 0}), (std::vector<int32_t>{4, 0}));
  EXPECT_EQ(a->apply(std::vector<int32_t>{15, 15}), (std::vector<int32_t>{63, 3}));
  // A 1x8 block: lanes 8..15 repeat lanes 0..7.
  auto b = slmBlockAccessLayout(16, 8, 1, 8, 16);
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(b->apply(std::vector<int32_t>{0, 13}), (std::vector<int32_t>{0, 5}));
  EXPECT_FALSE(slmBlockAccessLayout(256, 32, 48, 4, 16));
  EXPECT_FALSE(slmBlockAccessLayout(16, 32, 64, 4, 16));
}

// The transpose exchange of that buffer: 4 rows of 128 bytes per access conflict 4 ways on 16 banks
// without a swizzle; the planner's swizzle removes it on both sides.
TEST(ConversionPlan, PlanSlmExchangeRemovesRowPitchConflicts) {
  auto p = planSlmExchange(256, 32, 4, {64, 4}, {64, 4}, 16, BankModel{16, 4});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->unswizzledStoreWays, 4);
  EXPECT_EQ(p->unswizzledLoadWays, 4);
  EXPECT_EQ(p->storeConflictWays, 1);
  EXPECT_EQ(p->loadConflictWays, 1);
  EXPECT_GT(p->swizzle.bits, 0);
}
