// The cooperative-matrix layout lower-generic uses (ir/passes/LowerGeneric.h): worked examples from
// the formula, a bijection check over many shapes, and a cross-check against the independent
// implementation in ir/layout (coopMatrixLayout, seed 003, tinytc's column-major orientation).
#include "ir/layout/Layouts.h"
#include "ir/passes/LowerGeneric.h"

#include <gtest/gtest.h>

#include <set>

namespace xtc::passes {
namespace {

// Element (row, col) held by register v of lane p, or (-1, -1) for the masked tail.
std::pair<int64_t, int64_t> held(const CoopLayout& l, int64_t p, int64_t v) {
  int64_t u = v % l.ru, w = v / l.ru;
  int64_t r = p / l.I + u * l.g, c = p % l.I + w * l.I;
  return r < l.rows && c < l.cols ? std::make_pair(r, c) : std::make_pair(int64_t(-1), int64_t(-1));
}

TEST(CoopLayout, WideTileLanesOwnColumns) {
  std::string why;
  auto l = coopLayout({8, 32}, 16, &why);
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->I, 16);
  EXPECT_EQ(l->g, 1);
  EXPECT_EQ(l->ru, 8);
  EXPECT_EQ(l->kb, 2);
  EXPECT_EQ(l->numRegs(), 16);
  EXPECT_FALSE(l->masked());
  // Lane 5: column 5 in registers 0..7 (rows 0..7), column 21 in registers 8..15.
  EXPECT_EQ(held(*l, 5, 0), std::make_pair(int64_t(0), int64_t(5)));
  EXPECT_EQ(held(*l, 5, 7), std::make_pair(int64_t(7), int64_t(5)));
  EXPECT_EQ(held(*l, 5, 8), std::make_pair(int64_t(0), int64_t(21)));
  EXPECT_EQ(l->ownerLane(3, 21), 5);
  EXPECT_EQ(l->ownerReg(3, 21), 11);
}

TEST(CoopLayout, NarrowTileSharesColumnsAndMasksTail) {
  std::string why;
  auto l = coopLayout({5, 4}, 16, &why);  // 4 lanes per row, 4 row groups, 2 registers, rows 5..7 masked
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->I, 4);
  EXPECT_EQ(l->g, 4);
  EXPECT_EQ(l->ru, 2);
  EXPECT_TRUE(l->masked());
  // Lane 9: column 1, rows 2 and 6 (6 >= 5: masked).
  EXPECT_EQ(held(*l, 9, 0), std::make_pair(int64_t(2), int64_t(1)));
  EXPECT_EQ(held(*l, 9, 1), std::make_pair(int64_t(-1), int64_t(-1)));
  // Lane 1: rows 0 and 4 of column 1.
  EXPECT_EQ(held(*l, 1, 1), std::make_pair(int64_t(4), int64_t(1)));
  EXPECT_EQ(l->ownerLane(4, 1), 1);
  EXPECT_EQ(l->ownerReg(4, 1), 1);
}

// Widths that are neither a multiple nor a divisor of S are padded: 24 -> 32 on 16 lanes (the
// second column block's lanes 8..15 idle), 12 -> 16 (lanes 12..15 idle), 6 -> 8 (two row groups).
TEST(CoopLayout, PadsWidthsThatDoNotDivide) {
  std::string why;
  auto l = coopLayout({8, 24}, 16, &why);
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->pcols, 32);
  EXPECT_EQ(l->I, 16);
  EXPECT_EQ(l->g, 1);
  EXPECT_EQ(l->kb, 2);
  EXPECT_EQ(l->numRegs(), 16);
  EXPECT_TRUE(l->masked());
  EXPECT_TRUE(l->colMasked());
  EXPECT_FALSE(l->rowMasked());
  EXPECT_EQ(held(*l, 7, 8), std::make_pair(int64_t(0), int64_t(23)));  // lane 7, block 1: column 23
  EXPECT_EQ(held(*l, 8, 8), std::make_pair(int64_t(-1), int64_t(-1)));  // lane 8, block 1: column 24, padding
  l = coopLayout({8, 12}, 16, &why);
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->pcols, 16);
  EXPECT_EQ(l->kb, 1);
  EXPECT_EQ(l->ru, 8);
  EXPECT_EQ(held(*l, 12, 0), std::make_pair(int64_t(-1), int64_t(-1)));
  l = coopLayout({3, 6}, 16, &why);  // 8 lanes a row, 2 row groups, 2 registers; row 3 and columns 6, 7 padding
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->pcols, 8);
  EXPECT_EQ(l->g, 2);
  EXPECT_EQ(l->ru, 2);
  EXPECT_TRUE(l->rowMasked());
  EXPECT_EQ(held(*l, 13, 0), std::make_pair(int64_t(1), int64_t(5)));
  EXPECT_EQ(held(*l, 13, 1), std::make_pair(int64_t(-1), int64_t(-1)));
  l = coopLayout({8, 12}, 8, &why);  // dg2's 8 lanes: 16 columns, two blocks
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->pcols, 16);
  EXPECT_EQ(l->kb, 2);
  EXPECT_FALSE(coopLayout({2, 2, 2}, 16, &why));
}

// Every element is held by exactly one (lane, register), and ownerLane/ownerReg find it.
TEST(CoopLayout, BijectionOverShapes) {
  for (int64_t rows : {1, 2, 3, 5, 8, 13, 16, 33})
    for (int64_t cols : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64}) {
      std::string why;
      auto l = coopLayout({rows, cols}, 16, &why);
      ASSERT_TRUE(l) << rows << "x" << cols << ": " << why;
      std::set<std::pair<int64_t, int64_t>> seen;
      for (int64_t p = 0; p < 16; ++p)
        for (int64_t v = 0; v < l->numRegs(); ++v) {
          auto e = held(*l, p, v);
          if (e.first < 0) continue;
          ASSERT_LT(e.second, cols);
          EXPECT_TRUE(seen.insert(e).second) << rows << "x" << cols << " element held twice";
          EXPECT_EQ(l->ownerLane(e.first, e.second), p);
          EXPECT_EQ(l->ownerReg(e.first, e.second), v);
        }
      EXPECT_EQ(static_cast<int64_t>(seen.size()), rows * cols) << rows << "x" << cols;
    }
}

// Against ir/layout's coopMatrixLayout(S, M = cols, N = rows): its dim0 is our column (tinytc's
// contiguous dimension), its dim1 our row; same register order.
TEST(CoopLayout, MatchesLayoutLibraryTransposed) {
  for (int rows : {1, 2, 4, 8, 16, 32})
    for (int cols : {1, 2, 4, 8, 16, 32, 64}) {
      auto hw = layout::coopMatrixLayout(16, cols, rows, layout::ElemType::F32, layout::CoopUse::Acc);
      if (!hw) continue;  // shapes whose mapping is not linear there
      std::string why;
      auto l = coopLayout({rows, cols}, 16, &why);
      ASSERT_TRUE(l) << why;
      for (int p = 0; p < 16; ++p)
        for (int v = 0; v < l->numRegs(); ++v) {
          auto e = held(*l, p, v);
          if (e.first < 0) continue;
          layout::NamedIndex out = hw->layout.apply({{"register", v}, {"lane", p}});
          ASSERT_EQ(out.size(), 2u);
          EXPECT_EQ(out[0].second, e.second) << rows << "x" << cols << " lane " << p << " reg " << v;
          EXPECT_EQ(out[1].second, e.first) << rows << "x" << cols << " lane " << p << " reg " << v;
        }
    }
}

}  // namespace
}  // namespace xtc::passes
