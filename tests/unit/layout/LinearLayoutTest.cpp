// Unit tests of the GF(2) linear-layout algebra: apply, owners, composition, inverses, products,
// reshapes, quotients and the text form. Expected values are worked out by hand in the comments.
#include "ir/layout/LinearLayout.h"

#include <gtest/gtest.h>

using namespace xtc::layout;

namespace {

// register bits → dim1, lane bits → dim0, on a 4x4 tensor.
LinearLayout small() {
  return LinearLayout({InDim{"register", {{0, 1}, {0, 2}}}, InDim{"lane", {{1, 0}, {2, 0}}}},
                      {OutDim{"dim0", 4}, OutDim{"dim1", 4}});
}

}  // namespace

TEST(LinearLayout, ApplyCombinesBasesByXor) {
  LinearLayout l = small();
  EXPECT_EQ(l.apply(std::vector<int32_t>{3, 2}), (std::vector<int32_t>{2, 3}));
  NamedIndex out = l.apply(NamedIndex{{"lane", 1}, {"register", 2}});
  EXPECT_EQ(out, (NamedIndex{{"dim0", 1}, {"dim1", 2}}));
  // Overlapping bases: register 1 -> (1,1), register 2 -> (1,0); register 3 -> (1,1)^(1,0) = (0,1).
  LinearLayout x({InDim{"register", {{1, 1}, {1, 0}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 2}});
  EXPECT_EQ(x.apply(std::vector<int32_t>{3}), (std::vector<int32_t>{0, 1}));
}

TEST(LinearLayout, ValidationRejectsMalformedLayouts) {
  EXPECT_FALSE(LinearLayout::make({InDim{"r", {{5}}}}, {OutDim{"x", 4}}).ok());   // coordinate out of range
  EXPECT_FALSE(LinearLayout::make({InDim{"r", {{1}}}}, {OutDim{"x", 6}}).ok());   // not a power of two
  EXPECT_FALSE(LinearLayout::make({InDim{"r", {{1, 0}}}}, {OutDim{"x", 4}}).ok()); // wrong length
  EXPECT_FALSE(LinearLayout::make({InDim{"r", {}}, InDim{"r", {}}}, {}).ok());     // duplicate name
  EXPECT_THROW(LinearLayout({InDim{"r", {{9}}}}, {OutDim{"x", 8}}), std::invalid_argument);
}

TEST(LinearLayout, RankInjectivitySurjectivity) {
  EXPECT_TRUE(small().isBijective());
  EXPECT_EQ(small().rank(), 4);
  // Broadcast: lane bit 1 contributes nothing -> 2 owners per element.
  LinearLayout rep({InDim{"register", {{0, 1}}}, InDim{"lane", {{1, 0}, {0, 0}}}},
                   {OutDim{"dim0", 2}, OutDim{"dim1", 2}});
  EXPECT_FALSE(rep.isInjective());
  EXPECT_TRUE(rep.isSurjective());
  EXPECT_EQ(rep.replication(), 2);
  // Non-surjective: dim0 has size 4 but only rows 0 and 1 are reached.
  LinearLayout ns({InDim{"register", {{0, 1}}}, InDim{"lane", {{1, 0}}}}, {OutDim{"dim0", 4}, OutDim{"dim1", 2}});
  EXPECT_TRUE(ns.isInjective());
  EXPECT_FALSE(ns.isSurjective());
}

TEST(LinearLayout, OwnersAreSolutionPlusKernel) {
  LinearLayout rep({InDim{"register", {{0, 1}}}, InDim{"lane", {{1, 0}, {0, 0}}}},
                   {OutDim{"dim0", 2}, OutDim{"dim1", 2}});
  auto o = rep.owners({1, 1});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->count(), 2);
  // (1,1) is register 1 of lane 1 and of lane 3 (lane bit 1 is replicated).
  auto all = rep.allOwners({1, 1});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(all[1], (std::vector<int32_t>{1, 3}));
  LinearLayout ns({InDim{"register", {{0, 1}}}, InDim{"lane", {{1, 0}}}}, {OutDim{"dim0", 4}, OutDim{"dim1", 2}});
  EXPECT_FALSE(ns.owners({2, 0}).has_value());
  EXPECT_TRUE(ns.allOwners({3, 1}).empty());
  auto one = ns.allOwners({1, 1});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], (std::vector<int32_t>{1, 1}));
}

TEST(LinearLayout, ComposeFeedsOutputsIntoInputs) {
  // f: lane (8) -> x, identity. g: x -> (dim0, dim1): x bit0 -> (0,1), bit1 -> (1,0), bit2 -> (0,2).
  LinearLayout f = LinearLayout::identity1D(8, "lane", "x");
  LinearLayout g({InDim{"x", {{0, 1}, {1, 0}, {0, 2}}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 4}});
  auto h = f.then(g);
  ASSERT_TRUE(h) << h.error();
  EXPECT_EQ(h->print(), "linear<{lane=[[0,1],[1,0],[0,2]]} -> {dim0=2, dim1=4}>");
  EXPECT_EQ(h->apply(std::vector<int32_t>{6}), (std::vector<int32_t>{1, 2}));
  // Mismatched names are refused.
  EXPECT_FALSE(g.then(f).ok());
}

TEST(LinearLayout, InverseOfBijection) {
  // register bit0 -> (1,0), bit1 -> (0,1), lane bit0 -> (1,2): three independent vectors onto 2x4.
  LinearLayout l({InDim{"register", {{1, 0}, {0, 1}}}, InDim{"lane", {{1, 2}}}},
                 {OutDim{"dim0", 2}, OutDim{"dim1", 4}});
  auto inv = l.invert();
  ASSERT_TRUE(inv) << inv.error();
  EXPECT_EQ(inv->inDims()[0].name, "dim0");
  EXPECT_EQ(inv->outDims()[1].name, "lane");
  // (1,3) = lane 1 (1,2) ^ register 2 (0,1).
  EXPECT_EQ(inv->apply(std::vector<int32_t>{1, 3}), (std::vector<int32_t>{2, 1}));
  // (1,1) = register 1 (1,0) ^ register 2 (0,1).
  EXPECT_EQ(inv->apply(std::vector<int32_t>{1, 1}), (std::vector<int32_t>{3, 0}));
  // (0,2) = lane 1 (1,2) ^ register 1 (1,0).
  EXPECT_EQ(inv->apply(std::vector<int32_t>{0, 2}), (std::vector<int32_t>{1, 1}));
  auto round = l.then(*inv);
  ASSERT_TRUE(round);
  for (int r = 0; r < 4; ++r)
    for (int ln = 0; ln < 2; ++ln) EXPECT_EQ(round->apply(std::vector<int32_t>{r, ln}), (std::vector<int32_t>{r, ln}));
}

TEST(LinearLayout, InverseReportsWhyItFails) {
  LinearLayout rep({InDim{"lane", {{1}, {0}}}}, {OutDim{"dim0", 2}});
  auto inv = rep.invert();
  ASSERT_FALSE(inv);
  EXPECT_NE(inv.error().find("not injective"), std::string::npos);
  EXPECT_FALSE(rep.leftInverse().ok());
  auto right = rep.rightInverse();
  ASSERT_TRUE(right) << right.error();
  // Element 1 is owned by lanes 1 and 3; the right inverse picks lane 1.
  EXPECT_EQ(right->apply(std::vector<int32_t>{1}), (std::vector<int32_t>{1}));
  LinearLayout ns({InDim{"lane", {{1}}}}, {OutDim{"dim0", 4}});
  auto ns_inv = ns.invert();
  ASSERT_FALSE(ns_inv);
  EXPECT_NE(ns_inv.error().find("not surjective"), std::string::npos);
  EXPECT_FALSE(ns.rightInverse().ok());
  auto left = ns.leftInverse();
  ASSERT_TRUE(left);
  EXPECT_EQ(left->apply(std::vector<int32_t>{1}), (std::vector<int32_t>{1}));
  EXPECT_EQ(left->apply(std::vector<int32_t>{2}), (std::vector<int32_t>{0}));  // outside the image -> 0
}

TEST(LinearLayout, ProductConcatenatesAndStacks) {
  LinearLayout p = LinearLayout::identity1D(4, "lane", "dim1") * LinearLayout::identity1D(2, "register", "dim0");
  EXPECT_EQ(p.print(), "linear<{lane=[[1,0],[2,0]], register=[[0,1]]} -> {dim1=4, dim0=2}>");
  // Shared out dim: the second factor lands in the high bits.
  LinearLayout q = LinearLayout::identity1D(4, "register", "d") * LinearLayout::identity1D(2, "lane", "d");
  EXPECT_EQ(q.print(), "linear<{register=[[1],[2]], lane=[[4]]} -> {d=8}>");
  // Shared in dim: bases appended.
  LinearLayout r = LinearLayout::identity1D(2, "register", "a") * LinearLayout::identity1D(2, "register", "b");
  EXPECT_EQ(r.print(), "linear<{register=[[1,0],[0,1]]} -> {a=2, b=2}>");
  // Empty layout is the unit.
  EXPECT_EQ((LinearLayout() * small()), small());
}

TEST(LinearLayout, DivideLeftUndoesProduct) {
  LinearLayout b = LinearLayout::identity1D(16, "lane", "dim1");
  LinearLayout c({InDim{"register", {{1, 0}, {2, 0}}}}, {OutDim{"dim0", 4}, OutDim{"dim1", 2}});
  LinearLayout a = b * c;
  auto q = a.divideLeft(b);
  ASSERT_TRUE(q) << q.error();
  EXPECT_TRUE(q->sameMap(c));
  // A layout whose lanes are not the divisor's identity does not divide.
  LinearLayout bad({InDim{"lane", {{2}, {1}, {4}, {8}}}}, {OutDim{"dim1", 16}});
  EXPECT_FALSE(a.divideLeft(bad).ok());
}

TEST(LinearLayout, QuotientStripsIdentityDims) {
  // A conversion map (register, lane) -> (register, lane) that keeps lanes and swaps the two register bits.
  LinearLayout conv({InDim{"register", {{2, 0}, {1, 0}}}, InDim{"lane", {{0, 1}, {0, 2}}}},
                    {OutDim{"register", 4}, OutDim{"lane", 4}});
  auto q = conv.quotient({"lane"});
  ASSERT_TRUE(q) << q.error();
  EXPECT_EQ(q->print(), "linear<{register=[[2],[1]]} -> {register=4}>");
  // If a register bit moves a lane, lanes are not a factor.
  LinearLayout moves({InDim{"register", {{2, 1}, {1, 0}}}, InDim{"lane", {{0, 1}, {0, 2}}}},
                     {OutDim{"register", 4}, OutDim{"lane", 4}});
  EXPECT_FALSE(moves.quotient({"lane"}).ok());
}

TEST(LinearLayout, ReshapeFlattenAndTranspose) {
  LinearLayout l = small();
  auto flat = l.reshapeOuts({OutDim{"x", 16}});
  ASSERT_TRUE(flat);
  // Row-major: (i, j) -> 4i + j; register bits -> 1, 2; lane bits -> 4, 8.
  EXPECT_EQ(flat->print(), "linear<{register=[[1],[2]], lane=[[4],[8]]} -> {x=16}>");
  auto back = flat->reshapeOuts({OutDim{"dim0", 4}, OutDim{"dim1", 4}});
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, l);
  auto bad = l.reshapeOuts({OutDim{"x", 8}});
  EXPECT_FALSE(bad.ok());
  // Inputs: first dim least significant.
  EXPECT_EQ(l.flattenIns("offset").print(), "linear<{offset=[[0,1],[0,2],[1,0],[2,0]]} -> {dim0=4, dim1=4}>");
  auto t = l.transposeOuts({"dim1", "dim0"});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->print(), "linear<{register=[[1,0],[2,0]], lane=[[0,1],[0,2]]} -> {dim1=4, dim0=4}>");
  auto tt = l.transposeTensor();
  ASSERT_TRUE(tt);
  EXPECT_EQ(tt->print(), "linear<{register=[[1,0],[2,0]], lane=[[0,1],[0,2]]} -> {dim0=4, dim1=4}>");
}

TEST(LinearLayout, SublayoutAndRestriction) {
  LinearLayout l = small();
  EXPECT_EQ(l.sublayout({"lane"}, {"dim0"}).print(), "linear<{lane=[[1],[2]]} -> {dim0=4}>");
  auto r = l.restrictInDim("register", 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->print(), "linear<{register=[[0,1]], lane=[[1,0],[2,0]]} -> {dim0=4, dim1=4}>");
  EXPECT_FALSE(l.restrictInDim("register", 8).ok());
  EXPECT_EQ(LinearLayout::commonPrefix(l, *r, "register"), 1);
  EXPECT_EQ(LinearLayout::commonPrefix(l, *r, "lane"), 2);
}

TEST(LinearLayout, TextRoundTripAndErrors) {
  const std::string text =
      "linear<{register=[[0,1],[0,2]], lane=[[1,0],[2,0]], subgroup=[]} -> {dim0=16, dim1=16}>";
  auto l = LinearLayout::parse(text);
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->print(), text);
  EXPECT_EQ(l->inDimSize("subgroup"), 1);
  // Whitespace is free.
  auto spaced = LinearLayout::parse(" linear < { lane = [ [1] ] } -> { x = 2 } > ");
  ASSERT_TRUE(spaced) << spaced.error();
  EXPECT_EQ(spaced->print(), "linear<{lane=[[1]]} -> {x=2}>");
  EXPECT_EQ(LinearLayout::parse("linear<{} -> {}>")->print(), "linear<{} -> {}>");
  auto bad = LinearLayout::parse("linear<{lane=[[1]} -> {x=2}>");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("expected"), std::string::npos);
  auto range = LinearLayout::parse("linear<{lane=[[4]]} -> {x=2}>");
  ASSERT_FALSE(range);
  EXPECT_NE(range.error().find("outside"), std::string::npos);
  EXPECT_FALSE(LinearLayout::parse("linear<{lane=[[1]]} -> {x=2}> trailing").ok());
}

TEST(LinearLayout, DescribeListsBasesLikeSeed000) {
  LinearLayout l({InDim{"offset", {{0, 1}, {1, 0}}}, InDim{"load", {}}}, {OutDim{"dim0", 2}, OutDim{"dim1", 2}});
  EXPECT_EQ(l.describe(),
            " - offset=1 -> (0, 1)\n   offset=2 -> (1, 0)\n - load is a size 1 dimension\n"
            "where out dims are: [dim0 (size 2), dim1 (size 2)]\n");
}

TEST(Gf2Basis, SolveAndKernel) {
  Gf2Basis b;
  EXPECT_TRUE(b.insert(0b011));
  EXPECT_TRUE(b.insert(0b110));
  EXPECT_FALSE(b.insert(0b101));  // = first ^ second
  EXPECT_EQ(b.rank(), 2);
  ASSERT_EQ(b.kernel().size(), 1u);
  EXPECT_EQ(b.kernel()[0], 0b111u);
  EXPECT_EQ(b.solve(0b101), std::optional<uint64_t>(0b011));
  EXPECT_FALSE(b.solve(0b100).has_value());
}
