// The preconditions of the hardware layout constructors (ir/layout/Layouts.cpp) that no kernel and no
// `xtc layout` spec reaches: the spec parser and the passes check shapes against the target tables
// (checkBlockLoad, the DPAS table) before they build a layout, so these are tested by calling the
// library directly, one case per message, the whole message compared. The `xtc layout` errors are in
// tests/golden/layout/errors-*.test.
#include "ir/layout/Layouts.h"

#include <gtest/gtest.h>

#include "tests/unit/layout/ErrorOf.h"

using namespace xtc::layout;
using xtc::layout::testing::errorOf;

namespace {

BlockLoad load(int bits, int w, int h, int a = 1) {
  BlockLoad l;
  l.elemBits = bits;
  l.width = w;
  l.height = h;
  l.arrayLength = a;
  return l;
}

}  // namespace

TEST(LayoutsErrors, WgMapPerSubgroupLayout) {
  WgMap map{{2, 2}, {4, 4}};  // an 8x8 tile, 4x4 per subgroup
  LinearLayout oneDim({InDim{"lane", {{1}, {2}}}}, {OutDim{"dim0", 4}});
  EXPECT_EQ(errorOf(wgMapLayout(map, {8, 8}, &oneDim)), "the per-subgroup layout must have one output dim per tile dim");
  LinearLayout named({InDim{"lane", {{1, 0}, {2, 0}}}}, {OutDim{"row", 4}, OutDim{"dim1", 4}});
  EXPECT_EQ(errorOf(wgMapLayout(map, {8, 8}, &named)), "the per-subgroup layout's output 0 is 'row', expected dim0");
  LinearLayout wide({InDim{"lane", {{1, 0}, {2, 0}}}}, {OutDim{"dim0", 4}, OutDim{"dim1", 8}});
  EXPECT_EQ(errorOf(wgMapLayout(map, {8, 8}, &wide)), "the per-subgroup layout covers 8 in dim1, but sg_data is 4");
  LinearLayout usesSubgroup({InDim{"subgroup", {{1, 0}}}}, {OutDim{"dim0", 4}, OutDim{"dim1", 4}});
  EXPECT_EQ(errorOf(wgMapLayout(map, {8, 8}, &usesSubgroup)), "the per-subgroup layout must not use 'subgroup'");
}

TEST(LayoutsErrors, BlockLoadLayout) {
  EXPECT_EQ(errorOf(blockLoadLayout(load(16, 12, 8))), "block 12x8x1 on 16 lanes: sizes must be powers of two");
  EXPECT_EQ(errorOf(blockLoadLayout(load(64, 8, 8))), "block loads move d8, d16 or d32 elements, not d64");
  BlockLoad t = load(32, 8, 16, 2);
  t.transpose = true;
  EXPECT_EQ(errorOf(blockLoadLayout(t)), "transposed block loads have one block");
  BlockLoad t16 = load(16, 8, 16);
  t16.transpose = true;
  EXPECT_EQ(errorOf(blockLoadLayout(t16)), "transposed block loads move d32 elements only");
  BlockLoad shortT = load(32, 8, 8);  // 8 rows for 16 lanes
  shortT.transpose = true;
  EXPECT_EQ(errorOf(blockLoadLayout(shortT)), "a transposed load needs at least 16 rows (one per lane)");
  BlockLoad narrowV = load(16, 8, 16);
  narrowV.vnni = true;
  EXPECT_EQ(errorOf(blockLoadLayout(narrowV)), "VNNI loads need a width equal to the subgroup size (16)");
  BlockLoad oddV = load(8, 16, 2);  // d8 packs 4 rows per dword
  oddV.vnni = true;
  EXPECT_EQ(errorOf(blockLoadLayout(oddV)), "VNNI packing of 4 rows needs a height divisible by 4");
  EXPECT_EQ(errorOf(blockOffsetLayout(load(16, 12, 8))), "block offset layout needs power-of-two sizes");
}

TEST(LayoutsErrors, CoopMatrixColumns) {
  EXPECT_EQ(errorOf(coopMatrixLayout(16, 8, 0, ElemType::F16)), "coopmatrix needs a positive column count");
}

TEST(LayoutsErrors, BankConflicts) {
  LinearLayout twoOuts({InDim{"lane", {{1, 0}}}}, {OutDim{"a", 2}, OutDim{"b", 2}});
  EXPECT_EQ(errorOf(bankConflictWays(twoOuts, BankModel{}, 4)),
            "bank conflicts need a layout with one (byte address) output");
  LinearLayout bytes({InDim{"lane", {{4}, {8}}}}, {OutDim{"byte", 16}});
  EXPECT_EQ(errorOf(bankConflictWays(bytes, BankModel{12, 4}, 4)),
            "bank count, bank width and access size must be powers of two");
  EXPECT_EQ(errorOf(bankConflictWays(bytes, BankModel{}, 4, "thread")), "the access layout has no 'thread' dimension");
}
