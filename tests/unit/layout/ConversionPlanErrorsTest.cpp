// The refusals of the conversion planner (ir/layout/ConversionPlan.cpp), one case per message, the
// whole message compared. resolve-layouts and wg-distribute hand it only layouts they built for one
// tensor on one subgroup shape, so no kernel reaches these: they are the planner's own preconditions.
#include "ir/layout/ConversionPlan.h"

#include <gtest/gtest.h>

#include "tests/unit/layout/ErrorOf.h"

using namespace xtc::layout;
using xtc::layout::testing::errorOf;

namespace {

// A 2x4 tensor: register bit -> dim0, lane bits -> dim1 (4 lanes).
LinearLayout twoByFour() {
  return LinearLayout({InDim{"register", {{1, 0}}}, InDim{"lane", {{0, 1}, {0, 2}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 4}});
}

}  // namespace

TEST(ConversionPlanErrors, PlanConversion) {
  LinearLayout wider({InDim{"register", {{1, 0}}}, InDim{"lane", {{0, 1}, {0, 2}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 8}});
  EXPECT_EQ(errorOf(planConversion(twoByFour(), wider)),
            "source and destination describe different tensors (linear<{register=[[1,0]], lane=[[0,1],[0,2]]} -> {dim0=2, dim1=4}> vs linear<{register=[[1,0]], lane=[[0,1],[0,2]]} -> {dim0=2, dim1=8}>)");
  LinearLayout warp({InDim{"register", {{1, 0}}}, InDim{"warp", {{0, 1}, {0, 2}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 4}});
  EXPECT_EQ(errorOf(planConversion(twoByFour(), warp)),
            "the destination layout has input dim 'warp'; conversions need register/lane/subgroup layouts");
  // 2 lanes (and 2 registers along dim1) against 4 lanes.
  LinearLayout twoLanes({InDim{"register", {{1, 0}, {0, 2}}}, InDim{"lane", {{0, 1}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 4}});
  EXPECT_EQ(errorOf(planConversion(twoByFour(), twoLanes)), "source has 4 lanes, destination 2");
  // The same 4 lanes, one of the two row bits held by a second subgroup instead of a register.
  LinearLayout twoSubgroups({InDim{"lane", {{0, 1}, {0, 2}}}, InDim{"subgroup", {{1, 0}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 4}});
  EXPECT_EQ(errorOf(planConversion(twoByFour(), twoSubgroups)), "source has 1 subgroups, destination 2");
  // The source holds row 0 only (its register bit is zero); the destination needs row 1.
  LinearLayout rowZero({InDim{"register", {{0, 0}}}, InDim{"lane", {{0, 1}, {0, 2}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 4}});
  EXPECT_EQ(errorOf(planConversion(rowZero, twoByFour())),
            "the destination needs elements that the source does not hold (its image is larger)");
}

TEST(ConversionPlanErrors, SlmExchange) {
  EXPECT_EQ(errorOf(slmBlockAccessLayout(16, 16, 12, 4, 16)),
            "SLM block access 12x4 of a 16x16 buffer by 16 lanes: sizes must be powers of two");
  EXPECT_EQ(errorOf(slmBlockAccessLayout(16, 16, 32, 4, 16)), "SLM block 32x4 is larger than its 16x16 buffer");
  LinearLayout flat({InDim{"lane", {{1}, {2}}}}, {OutDim{"dim0", 4}});
  EXPECT_EQ(errorOf(chooseSwizzle(flat, flat, 4, BankModel{})), "SLM round trips are planned for 2-D tensors");
  // No 'lane' input: the bank model cannot tell which accesses form one instruction.
  LinearLayout noLanes({InDim{"register", {{1, 0}, {0, 1}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 2}});
  EXPECT_EQ(errorOf(chooseSwizzle(noLanes, noLanes, 4, BankModel{})), "cannot place the tile in SLM");
}
