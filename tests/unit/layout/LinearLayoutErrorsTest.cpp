// Every error of the linear-layout algebra (ir/layout/LinearLayout.cpp), one case each, with the
// whole message compared. The passes call these operations only on layouts they have already
// checked, so no kernel reaches these messages: the library's own preconditions are tested here.
// The numbers in each expected message are worked out by hand in the comments.
#include "ir/layout/LinearLayout.h"

#include <gtest/gtest.h>

#include "tests/unit/layout/ErrorOf.h"

using namespace xtc::layout;
using xtc::layout::testing::errorOf;

namespace {

// 4x4 tensor: register bits -> dim1 (1, 2), lane bits -> dim0 (1, 2). 4 input bits, 4 output bits.
LinearLayout square() {
  return LinearLayout({InDim{"register", {{0, 1}, {0, 2}}}, InDim{"lane", {{1, 0}, {2, 0}}}},
                      {OutDim{"dim0", 4}, OutDim{"dim1", 4}});
}

// Lane bit 1 moves nothing: rank 2 of 3 input bits, 2 owners per element of the 2x2 tensor.
LinearLayout replicated() {
  return LinearLayout({InDim{"register", {{0, 1}}}, InDim{"lane", {{1, 0}, {0, 0}}}},
                      {OutDim{"dim0", 2}, OutDim{"dim1", 2}});
}

// Rows 2 and 3 of the 4x2 tensor are never reached: rank 2 of 3 output bits.
LinearLayout partial() {
  return LinearLayout({InDim{"register", {{0, 1}}}, InDim{"lane", {{1, 0}}}}, {OutDim{"dim0", 4}, OutDim{"dim1", 2}});
}

}  // namespace

TEST(LinearLayoutErrors, Compose) {
  // Two output dims against one input dim.
  LinearLayout oneIn({InDim{"x", {{1}}}}, {OutDim{"y", 2}});
  EXPECT_EQ(errorOf(square().then(oneIn)), "cannot compose: 2 output dims feed 1 input dims");
  LinearLayout misnamed({InDim{"x", {{1}, {2}}}, InDim{"dim1", {{4}, {8}}}}, {OutDim{"y", 16}});
  EXPECT_EQ(errorOf(square().then(misnamed)), "cannot compose: output dim 'dim0' meets input dim 'x'");
  // dim0 has 4 rows; the next layout's dim0 input has one basis (size 2).
  LinearLayout narrow({InDim{"dim0", {{1}}}, InDim{"dim1", {{2}, {4}}}}, {OutDim{"y", 8}});
  EXPECT_EQ(errorOf(square().then(narrow)),
            "cannot compose: output dim 'dim0' has size 4 but the next layout's input has size 2");
}

TEST(LinearLayoutErrors, Inverses) {
  EXPECT_EQ(errorOf(replicated().leftInverse()),
            "layout is not injective (rank 2 < 3 input bits: 2 owners per element), so it has no left inverse");
  EXPECT_EQ(errorOf(partial().rightInverse()),
            "layout is not surjective (rank 2 < 3 output bits), so it has no right inverse");
  EXPECT_EQ(errorOf(replicated().invert()), "layout is not invertible: not injective (rank 2 < 3 input bits)");
  EXPECT_EQ(errorOf(partial().invert()), "layout is not invertible: not surjective (rank 2 < 3 output bits)");
}

TEST(LinearLayoutErrors, DivideLeft) {
  // dim0 has 4 rows, the divisor 8.
  LinearLayout tall({InDim{"lane", {{1}, {2}, {4}}}}, {OutDim{"dim0", 8}});
  EXPECT_EQ(errorOf(square().divideLeft(tall)), "output dim 'dim0' of size 4 is not divisible by the divisor's 8");
  LinearLayout other({InDim{"lane", {{1}}}}, {OutDim{"dim2", 2}});
  EXPECT_EQ(errorOf(square().divideLeft(other)), "divisor output dim 'dim2' is not in the layout");
  // The divisor's lane has 3 bases (one of them zero), ours 2; its 4 rows divide ours.
  LinearLayout manyLanes({InDim{"lane", {{1}, {2}, {0}}}}, {OutDim{"dim0", 4}});
  EXPECT_EQ(errorOf(square().divideLeft(manyLanes)), "divisor input dim 'lane' is larger than the layout's");
  // The divisor's register basis 0 is row 1; ours is column 1.
  LinearLayout rowFirst({InDim{"register", {{1}}}}, {OutDim{"dim0", 2}});
  EXPECT_EQ(errorOf(square().divideLeft(rowFirst)), "basis 0 of 'register' differs from the divisor's");
  // The divisor owns the low bit of dim1 (register basis 0); lane basis 0 also moves dim1 by 1.
  LinearLayout lowBit({InDim{"register", {{0, 1}}}, InDim{"lane", {{0, 1}, {1, 0}}}},
                      {OutDim{"dim0", 2}, OutDim{"dim1", 2}});
  LinearLayout colDivisor({InDim{"register", {{1}}}}, {OutDim{"dim1", 2}});
  EXPECT_EQ(errorOf(lowBit.divideLeft(colDivisor)), "basis 0 of 'lane' has low bits in 'dim1' that the divisor owns");
  // A divisor input dim with bases that the layout does not have.
  LinearLayout warp({InDim{"warp", {{0}}}}, {OutDim{"dim0", 1}});
  EXPECT_EQ(errorOf(square().divideLeft(warp)), "divisor input dim 'warp' is not in the layout");
}

TEST(LinearLayoutErrors, Quotient) {
  EXPECT_EQ(errorOf(square().quotient({"dim2"})), "quotient: no output dim 'dim2'");
  // y is an input of 2 indices and an output of 4.
  LinearLayout sizes({InDim{"x", {{1, 0}, {2, 0}}}, InDim{"y", {{0, 1}}}}, {OutDim{"x", 4}, OutDim{"y", 4}});
  EXPECT_EQ(errorOf(sizes.quotient({"y"})), "quotient: 'y' has input size 2 but output size 4");
  // x's basis 0 also moves y.
  LinearLayout leaks({InDim{"x", {{1, 1}, {2, 0}}}, InDim{"y", {{0, 1}}}}, {OutDim{"x", 4}, OutDim{"y", 2}});
  EXPECT_EQ(errorOf(leaks.quotient({"y"})), "quotient: 'y' is not the identity on 'y' (basis 0 of 'x')");
  // y's basis 0 moves x as well as y.
  LinearLayout moves({InDim{"x", {{1, 0}, {2, 0}}}, InDim{"y", {{1, 1}}}}, {OutDim{"x", 4}, OutDim{"y", 2}});
  EXPECT_EQ(errorOf(moves.quotient({"y"})), "quotient: input 'y' also moves output 'x'");
}

TEST(LinearLayoutErrors, Reshape) {
  EXPECT_EQ(errorOf(square().reshapeOuts({OutDim{"flat", 3}})), "reshape: size 3 of 'flat' is not a power of two");
  EXPECT_EQ(errorOf(square().reshapeOuts({OutDim{"flat", 8}})), "reshape: 16 elements cannot become 8");
  EXPECT_EQ(errorOf(square().reshapeIns({{"r", 6}})), "reshape: size 6 of 'r' is not a power of two");
  EXPECT_EQ(errorOf(square().reshapeIns({{"r", 32}})), "reshape: 16 input indices cannot become 32");
}

TEST(LinearLayoutErrors, Transpose) {
  EXPECT_EQ(errorOf(square().transposeOuts({"dim0"})), "transpose: the order must name every output dim once");
  EXPECT_EQ(errorOf(square().transposeOuts({"dim0", "dim2"})), "transpose: no output dim 'dim2'");
  EXPECT_EQ(errorOf(square().transposeOuts({"dim0", "dim0"})), "transpose: 'dim0' named twice");
  EXPECT_EQ(errorOf(square().transposeIns({"lane"})), "transpose: the order must name every input dim once");
  EXPECT_EQ(errorOf(square().transposeIns({"lane", "warp"})), "transpose: no input dim 'warp'");
  EXPECT_EQ(errorOf(LinearLayout::identity1D(4, "r", "x").transposeTensor()), "tensor transpose needs a 2-D layout");
}

TEST(LinearLayoutErrors, RestrictAndResize) {
  EXPECT_EQ(errorOf(square().restrictInDim("warp", 2)), "no input dim 'warp'");
  EXPECT_EQ(errorOf(square().restrictInDim("lane", 8)), "cannot restrict 'lane' of size 4 to 8");
  EXPECT_EQ(errorOf(square().resizeOutDim("dim2", 4)), "no output dim 'dim2'");
}
