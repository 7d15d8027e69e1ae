// xe::planDiagonal (ir/passes/XeTranspose.h): the three-phase form of in-register conversions whose
// source register differs per lane. The plans' tables are written out by hand from what the
// conversion must do (element (i, j) of the source goes to its transposed place), independently of
// ir/layout and of the planner; the expected phases, shuffle and select counts are derived by hand
// in the comments. That the lowered IR computes the transpose is checked end to end by
// tests/golden/passes/resolve-layouts/transpose.test (emulated pvc and the interpreter).
#include "ir/passes/XeTranspose.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace xtc::passes::xe {
namespace {

// A plan's tables from a function (r, l) -> (source register, source lane).
template <class Fn>
void tables(int64_t R, int64_t S, Fn f, std::vector<int64_t>& regs, std::vector<int64_t>& lanes) {
  regs.clear();
  lanes.clear();
  for (int64_t r = 0; r < R; ++r)
    for (int64_t l = 0; l < S; ++l) {
      auto [sr, sl] = f(r, l);
      regs.push_back(sr);
      lanes.push_back(sl);
    }
}

// The three phases, run on indices, read exactly what the plan's tables say.
void expectReproduces(const DiagonalPlan& p, const std::vector<int64_t>& regs, const std::vector<int64_t>& lanes) {
  std::vector<int64_t> sr, sl;
  simulateDiagonal(p, sr, sl);
  EXPECT_EQ(sr, regs);
  EXPECT_EQ(sl, lanes);
}

TEST(XeDiagonalTranspose, Square16x16) {
  // f32 16x16, registers = rows, lanes = columns, transposed: destination register r of lane l holds
  // element (r, l) of the result = (l, r) of the source = source register l of lane r. Phase 1:
  // y[r](l) = x[r ^ l](l) (F = identity on 4 bits: 4 stages x 16 selects); phase 2: w[r] = shuffle of
  // y[r] from lane l ^ r (15 shuffles, register 0 stays); phase 3: z[r](l) = w[r ^ l](l) (64 selects).
  std::vector<int64_t> regs, lanes;
  tables(16, 16, [](int64_t r, int64_t l) { return std::pair{l, r}; }, regs, lanes);
  auto p = planDiagonal(regs, lanes, 16, 16);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->F, (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(p->K, (std::vector<int64_t>{1, 2, 4, 8}));
  for (int64_t i = 0; i < 16; ++i) {
    EXPECT_EQ(p->G[static_cast<size_t>(i)], i);
    EXPECT_EQ(p->H[static_cast<size_t>(i)], i);
    EXPECT_EQ(p->Q[static_cast<size_t>(i)], i);
  }
  EXPECT_EQ(p->shuffles(), 15);
  EXPECT_EQ(p->selects(), 128);
  expectReproduces(*p, regs, lanes);
}

TEST(XeDiagonalTranspose, Rectangular8x16To16x8) {
  // An 8x16 value (registers = rows, lanes = columns) transposed to 16x8 laid out with lanes along
  // its 8 columns and then row bit 0, registers = row bits 1..3: destination (r, l) is element
  // (i, j) = ((l >> 3) | r << 1, l & 7) = source (j, i) = register l & 7 of lane (l >> 3) | r << 1.
  // By hand: C (register bit i -> lane bit i + 1) has no kernel, A = 0, so Q = identity and F takes
  // lane bit i + 1 to register bit i: F = {0, 1, 2, 4}; H[r] = r << 1; K = B ^ F D = l & 7:
  // K = {1, 2, 4, 0}; G[l] = (l >> 3) ^ (l & 7) << 1 (a rotation of the lane bits), never the lane
  // itself, so all 8 registers shuffle; 6 stages x 8 registers = 48 selects (the per-register plan:
  // 8 source registers per destination register = 64 shuffles).
  std::vector<int64_t> regs, lanes;
  tables(8, 16, [](int64_t r, int64_t l) { return std::pair{l & 7, (l >> 3) | r << 1}; }, regs, lanes);
  auto p = planDiagonal(regs, lanes, 8, 16);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->F, (std::vector<int64_t>{0, 1, 2, 4}));
  EXPECT_EQ(p->K, (std::vector<int64_t>{1, 2, 4, 0}));
  for (int64_t l = 0; l < 16; ++l) EXPECT_EQ(p->G[static_cast<size_t>(l)], (l >> 3) ^ (l & 7) << 1) << l;
  for (int64_t r = 0; r < 8; ++r) EXPECT_EQ(p->H[static_cast<size_t>(r)], r << 1) << r;
  EXPECT_EQ(p->shuffles(), 8);
  EXPECT_EQ(p->selects(), 48);
  expectReproduces(*p, regs, lanes);
}

TEST(XeDiagonalTranspose, TwoBlocksAndARenaming) {
  // A 16x32 value (registers: rows 1..8, then column 16; lanes: columns 1..8) transposed to 32x16
  // with register bit 0 = row 16 and bits 1..4 = rows 1..8 (lanes = columns): destination (r, l) is
  // element (i, j) with i = (r >> 1) | (r & 1) << 4, j = l, i.e. source register j | (i >> 4) << 4 of
  // lane i & 15. By hand: A takes register bit 0 to bit 4 (a renaming, no lane involved), C takes
  // bits 1..4 to lane bits 0..3, B lane bits to register bits 0..3, D = 0. Kernel of C = {bit 0}, so
  // Q[1] = 16 and, the other images of A being 0, Q takes bits 1..4 to the free unit vectors 1, 2, 4,
  // 8; F(C e_k) = (A ^ Q) e_k: F = {1, 2, 4, 8}; H[r] = r & 15; K = B = identity, renamed by Q^-1:
  // {2, 4, 8, 16}; G = identity. 8 stages x 32 registers = 256 selects; the shuffle of register r
  // reads lane l ^ (r & 15): all but registers 0 and 16 move, 30 shuffles (the per-register plan: 16
  // source registers per destination register = 512).
  std::vector<int64_t> regs, lanes;
  tables(32, 16,
         [](int64_t r, int64_t l) {
           int64_t i = (r >> 1) | (r & 1) << 4, j = l;
           return std::pair{j | (i >> 4) << 4, i & 15};
         },
         regs, lanes);
  auto p = planDiagonal(regs, lanes, 32, 16);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->F, (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(p->K, (std::vector<int64_t>{2, 4, 8, 16}));
  EXPECT_EQ(p->Q[1], 16);
  EXPECT_EQ(p->Q[2], 1);
  EXPECT_EQ(p->Q[16], 8);
  for (int64_t l = 0; l < 16; ++l) EXPECT_EQ(p->G[static_cast<size_t>(l)], l);
  EXPECT_EQ(p->shuffles(), 30);
  EXPECT_EQ(p->selects(), 256);
  expectReproduces(*p, regs, lanes);
}

TEST(XeDiagonalTranspose, NonLinearPlansAreRefused) {
  // A seeded random bijection of (register, lane) is not xor-linear: no three-phase plan.
  std::vector<int64_t> cells(8 * 16);
  for (size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<int64_t>(i);
  std::mt19937 rng(7);
  std::shuffle(cells.begin(), cells.end(), rng);
  std::vector<int64_t> regs, lanes;
  for (int64_t c : cells) {
    regs.push_back(c / 16);
    lanes.push_back(c % 16);
  }
  EXPECT_FALSE(planDiagonal(regs, lanes, 8, 16));
  // An affine plan with a constant (every lane reads register 1 of its own lane first): not linear.
  tables(2, 16, [](int64_t r, int64_t l) { return std::pair{r ^ 1, l}; }, regs, lanes);
  EXPECT_FALSE(planDiagonal(regs, lanes, 2, 16));
}

}  // namespace
}  // namespace xtc::passes::xe
