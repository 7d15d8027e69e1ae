// Property tests of the layout algebra on random layouts (fixed seed, so failures reproduce):
// owners(x) all map to x, apply of a composition, inverse of a composition, pseudo-inverse laws,
// product and reshape laws, and parse(print(x)) == x.
#include "ir/layout/LinearLayout.h"

#include <random>

#include <gtest/gtest.h>

using namespace xtc::layout;

namespace {

struct Rng {
  std::mt19937 gen{20260511u};
  int upTo(int n) { return std::uniform_int_distribution<int>(0, n)(gen); }
};

// Random bases over the given in dims (bit counts) into the given out dims.
LinearLayout randomLayout(Rng& rng, const std::vector<std::pair<std::string, int>>& ins,
                          const std::vector<OutDim>& outs) {
  std::vector<InDim> dims;
  for (const auto& [name, bits] : ins) {
    InDim d{name, {}};
    for (int b = 0; b < bits; ++b) {
      std::vector<int32_t> v;
      for (const auto& o : outs) v.push_back(rng.upTo(o.size - 1));
      d.bases.push_back(v);
    }
    dims.push_back(std::move(d));
  }
  return LinearLayout(std::move(dims), outs);
}

LinearLayout randomHw(Rng& rng) {
  return randomLayout(rng, {{"register", rng.upTo(3)}, {"lane", rng.upTo(4)}, {"subgroup", rng.upTo(2)}},
                      {OutDim{"dim0", 1 << rng.upTo(4)}, OutDim{"dim1", 1 << rng.upTo(4)}});
}

// A random bijection on `bits` bits: random invertible columns (by rejection).
LinearLayout randomBijection(Rng& rng, const std::vector<std::pair<std::string, int>>& ins,
                             const std::vector<OutDim>& outs) {
  for (;;) {
    LinearLayout l = randomLayout(rng, ins, outs);
    if (l.isBijective()) return l;
  }
}

std::vector<int32_t> randomIndex(Rng& rng, const LinearLayout& l) {
  std::vector<int32_t> idx;
  for (const auto& d : l.inDims()) idx.push_back(rng.upTo(d.size() - 1));
  return idx;
}

}  // namespace

TEST(LayoutProperties, OwnersMapBackToTheElement) {
  Rng rng;
  for (int iter = 0; iter < 200; ++iter) {
    LinearLayout l = randomHw(rng);
    auto idx = randomIndex(rng, l);
    auto x = l.apply(idx);
    auto owners = l.allOwners(x);
    ASSERT_EQ(int64_t(owners.size()), l.replication()) << l.print();
    bool found = false;
    for (const auto& o : owners) {
      EXPECT_EQ(l.apply(o), x) << l.print();
      found = found || o == idx;
    }
    EXPECT_TRUE(found) << l.print();
    auto sol = l.owners(x);
    ASSERT_TRUE(sol);
    for (const auto& k : sol->kernel) {
      auto zero = l.apply(k);
      for (int32_t c : zero) EXPECT_EQ(c, 0);
    }
  }
}

TEST(LayoutProperties, ApplyOfCompositionIsApplyOfApply) {
  Rng rng;
  for (int iter = 0; iter < 200; ++iter) {
    LinearLayout f = randomLayout(rng, {{"register", rng.upTo(3)}, {"lane", rng.upTo(3)}},
                                  {OutDim{"x", 1 << rng.upTo(4)}, OutDim{"y", 1 << rng.upTo(3)}});
    LinearLayout g = randomLayout(rng, {{"x", f.outDimBits("x")}, {"y", f.outDimBits("y")}},
                                  {OutDim{"dim0", 1 << rng.upTo(4)}, OutDim{"dim1", 1 << rng.upTo(4)}});
    auto h = f.then(g);
    ASSERT_TRUE(h) << h.error();
    auto idx = randomIndex(rng, f);
    EXPECT_EQ(h->apply(idx), g.apply(f.apply(idx)));
  }
}

TEST(LayoutProperties, InverseOfCompositionIsComposedInverses) {
  Rng rng;
  for (int iter = 0; iter < 100; ++iter) {
    int a = rng.upTo(3), b = rng.upTo(3);
    LinearLayout f = randomBijection(rng, {{"register", a}, {"lane", b}}, {OutDim{"x", 1 << b}, OutDim{"y", 1 << a}});
    LinearLayout g = randomBijection(rng, {{"x", b}, {"y", a}}, {OutDim{"dim0", 1 << a}, OutDim{"dim1", 1 << b}});
    auto fg = f.then(g);
    ASSERT_TRUE(fg);
    auto lhs = fg->invert();
    auto gi = g.invert();
    auto fi = f.invert();
    ASSERT_TRUE(lhs && gi && fi);
    auto rhs = gi->then(*fi);
    ASSERT_TRUE(rhs) << rhs.error();
    EXPECT_EQ(*lhs, *rhs);
    // f^-1 ∘ f = id
    auto id = f.then(*fi);
    ASSERT_TRUE(id);
    auto idx = randomIndex(rng, f);
    EXPECT_EQ(id->apply(idx), idx);
  }
}

TEST(LayoutProperties, PseudoInverseLaws) {
  Rng rng;
  for (int iter = 0; iter < 200; ++iter) {
    LinearLayout f = randomHw(rng);
    LinearLayout g = f.pseudoInverse();
    auto idx = randomIndex(rng, f);
    auto x = f.apply(idx);
    // f ∘ g ∘ f = f
    EXPECT_EQ(f.apply(g.apply(x)), x) << f.print();
    if (f.isInjective()) {
      auto left = f.leftInverse();
      ASSERT_TRUE(left);
      EXPECT_EQ(left->apply(x), idx);
    }
    if (f.isSurjective()) {
      auto right = f.rightInverse();
      ASSERT_TRUE(right);
      std::vector<int32_t> y;
      for (const auto& o : f.outDims()) y.push_back(rng.upTo(o.size - 1));
      EXPECT_EQ(f.apply(right->apply(y)), y);
    }
  }
}

TEST(LayoutProperties, ProductLaws) {
  Rng rng;
  for (int iter = 0; iter < 200; ++iter) {
    LinearLayout a = randomLayout(rng, {{"register", rng.upTo(3)}}, {OutDim{"dim1", 1 << rng.upTo(3)}});
    LinearLayout b = randomLayout(rng, {{"lane", rng.upTo(3)}}, {OutDim{"dim0", 1 << rng.upTo(3)}});
    LinearLayout p = a * b;
    // Disjoint factors: the product applies each factor to its own dims.
    int32_t r = rng.upTo(a.inDimSize("register") - 1), l = rng.upTo(b.inDimSize("lane") - 1);
    auto out = p.apply(NamedIndex{{"register", r}, {"lane", l}});
    EXPECT_EQ(out, (NamedIndex{{"dim1", a.apply(std::vector<int32_t>{r})[0]}, {"dim0", b.apply(std::vector<int32_t>{l})[0]}}));
    EXPECT_EQ(p.sublayout({"register"}, {"dim1"}), a);
    auto q = p.divideLeft(a);
    ASSERT_TRUE(q) << q.error();
    EXPECT_TRUE(q->sameMap(b));
    // Shared out dim: a's coordinates in the low bits, b's above them.
    LinearLayout c = randomLayout(rng, {{"lane", rng.upTo(3)}}, {OutDim{"dim1", 1 << rng.upTo(3)}});
    LinearLayout s = a * c;
    int32_t lc = rng.upTo(c.inDimSize("lane") - 1);
    EXPECT_EQ(s.apply(NamedIndex{{"register", r}, {"lane", lc}})[0].second,
              a.apply(std::vector<int32_t>{r})[0] + a.outDimSize("dim1") * c.apply(std::vector<int32_t>{lc})[0]);
    // Rank is additive for disjoint products.
    EXPECT_EQ(p.rank(), a.rank() + b.rank());
  }
}

TEST(LayoutProperties, ReshapeLaws) {
  Rng rng;
  for (int iter = 0; iter < 200; ++iter) {
    LinearLayout l = randomHw(rng);
    LinearLayout flat = l.flattenOuts("x");
    auto back = flat.reshapeOuts(l.outDims());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, l);
    auto idx = randomIndex(rng, l);
    auto c = l.apply(idx);
    EXPECT_EQ(flat.apply(idx)[0], c[0] * l.outDimSize("dim1") + c[1]);  // row-major
    // flattenIns keeps the map; the first in dim is least significant.
    LinearLayout fi = l.flattenIns("i");
    int64_t k = 0, mul = 1;
    for (size_t d = 0; d < idx.size(); ++d) {
      k += idx[d] * mul;
      mul *= l.inDims()[d].size();
    }
    EXPECT_EQ(fi.apply(std::vector<int32_t>{int32_t(k)}), c);
    // Transposing twice is the identity.
    auto t = l.transposeTensor();
    ASSERT_TRUE(t);
    EXPECT_EQ(t->apply(idx), (std::vector<int32_t>{c[1], c[0]}));
    EXPECT_EQ(*t->transposeTensor(), l);
  }
}

TEST(LayoutProperties, PrintParseRoundTrip) {
  Rng rng;
  for (int iter = 0; iter < 200; ++iter) {
    LinearLayout l = randomHw(rng);
    auto p = LinearLayout::parse(l.print());
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(*p, l);
    EXPECT_EQ(p->print(), l.print());
  }
}
