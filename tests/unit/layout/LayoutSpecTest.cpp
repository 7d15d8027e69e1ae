// Tests of the SPEC parser and the hw / tensor / JSON / SVG renderers behind `xtc layout`.
#include "ir/layout/LayoutSpec.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

using namespace xtc::layout;

namespace {
std::vector<int64_t> shape(int64_t r, int64_t c) { return {r, c}; }
}  // namespace

TEST(LayoutSpec, ParsesEveryKind) {
  auto wg = parseLayoutSpec("wg_map<sg_layout=[8,4], sg_data=[32,32]>", shape(256, 32));
  ASSERT_TRUE(wg) << wg.error();
  EXPECT_EQ(wg->layout.inDimSize("subgroup"), 32);
  EXPECT_EQ(wg->name, "wg_map<sg_layout=[8,4], sg_data=[32,32]>");
  auto d = parseLayoutSpec("dpas<pvc, bf16, A>", std::nullopt);
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->shape, shape(8, 16));
  auto rep = parseLayoutSpec("dpas<pvc, bf16, A>", shape(32, 32));
  ASSERT_TRUE(rep) << rep.error();
  EXPECT_EQ(rep->layout, dpasLayout(Target::Pvc, ElemType::BF16, Operand::A, 4, 2)->layout);
  auto rep2 = parseLayoutSpec("dpas<dg2, f16, C, rep=2x2>", std::nullopt);
  ASSERT_TRUE(rep2) << rep2.error();
  EXPECT_EQ(rep2->shape, shape(16, 16));
  auto bl = parseLayoutSpec("block_load<pvc, d16, 16x8x2>", std::nullopt);
  ASSERT_TRUE(bl) << bl.error();
  EXPECT_EQ(bl->shape, shape(8, 32));
  auto vn = parseLayoutSpec("block_load<pvc, d16, 16x16, vnni>", shape(16, 16));
  ASSERT_TRUE(vn) << vn.error();
  EXPECT_EQ(vn->packing.elementsPerSlot, 2);
  auto tr = parseLayoutSpec("block_load<pvc, d32, 8x16, transpose>", std::nullopt);
  ASSERT_TRUE(tr) << tr.error();
  EXPECT_EQ(tr->shape, shape(8, 16));
  auto trb = parseLayoutSpec("block_load<d32, 8x16, transpose, data=bf16>", std::nullopt);
  ASSERT_TRUE(trb) << trb.error();
  EXPECT_EQ(trb->layout, dpasLayout(Target::Pvc, ElemType::BF16, Operand::B)->layout);
  auto cm = parseLayoutSpec("coopmatrix<16, 32x16, f32>", std::nullopt);
  ASSERT_TRUE(cm) << cm.error();
  EXPECT_EQ(cm->shape, shape(32, 16));
  auto sw = parseLayoutSpec("swizzle<3,4,3>", shape(8, 64));
  ASSERT_TRUE(sw) << sw.error();
  EXPECT_EQ(sw->layout.inDims()[0].name, "addr");
  auto lin = parseLayoutSpec("linear<{register=[[0,1],[0,2]], lane=[[1,0],[2,0]]} -> {dim0=4, dim1=4}>", shape(4, 4));
  ASSERT_TRUE(lin) << lin.error();
  EXPECT_EQ(lin->layout.print(), "linear<{register=[[0,1],[0,2]], lane=[[1,0],[2,0]]} -> {dim0=4, dim1=4}>");
}

TEST(LayoutSpec, ClearErrors) {
  auto e1 = parseLayoutSpec("wg_map<sg_layout=[3,4], sg_data=[32,32]>", shape(256, 32));
  ASSERT_FALSE(e1);
  EXPECT_EQ(e1.error(),
            "wg_map<sg_layout=[3,4], sg_data=[32,32]> cannot distribute a 256x32 tile: dimension 0: "
            "sg_layout*sg_data = 3*32 = 96 and the tile size 256 must divide one another");
  auto e2 = parseLayoutSpec("wg_map<sg_layout=[8,4], sg_data=[32,32]>", std::nullopt);
  ASSERT_FALSE(e2);
  EXPECT_NE(e2.error().find("needs --shape"), std::string::npos);
  auto e3 = parseLayoutSpec("dpas<pvc, bf16, A>", shape(12, 16));
  ASSERT_FALSE(e3);
  EXPECT_NE(e3.error().find("8x16"), std::string::npos);
  auto e4 = parseLayoutSpec("block_load<pvc, d16, 16x16, transpose>", std::nullopt);
  ASSERT_FALSE(e4);
  EXPECT_NE(e4.error().find("not a legal transposed load"), std::string::npos);
  auto e5 = parseLayoutSpec("frobnicate<1>", std::nullopt);
  ASSERT_FALSE(e5);
  EXPECT_NE(e5.error().find("unknown layout kind 'frobnicate'"), std::string::npos);
  EXPECT_FALSE(parseLayoutSpec("dpas<pvc, bf16", std::nullopt).ok());
  EXPECT_FALSE(parseLayoutSpec("dpas<xe9, bf16, A>", std::nullopt).ok());
  EXPECT_FALSE(parseLayoutSpec("block_load<dg2, d16, 16x8>", std::nullopt).ok());
  EXPECT_FALSE(parseLayoutSpec("coopmatrix<16, 32x16, f32>", shape(16, 16)).ok());
  EXPECT_FALSE(parseLayoutSpec("linear<{lane=[[1]]} -> {x=2}>", shape(4, 4)).ok());
  EXPECT_TRUE(parseShape("12").ok());  // "12" is accepted as 1x12
  EXPECT_EQ(*parseShape("12"), shape(1, 12));
  EXPECT_FALSE(parseShape("0x4").ok());
  EXPECT_FALSE(parseShape("4y4").ok());
}

TEST(LayoutSpec, HwViewLooksLikeTheSeedTables) {
  auto b = parseLayoutSpec("dpas<pvc, bf16, B>", std::nullopt);
  ASSERT_TRUE(b);
  std::string v = renderHwView(*b);
  // Seed 000's B table: work-item 0 holds "0, 0 : 1, 0" in its first slot, 15 holds "14, 15 : 15, 15".
  EXPECT_NE(v.find("slot0"), std::string::npos);
  EXPECT_NE(v.find("(0,0):(1,0)"), std::string::npos);
  EXPECT_NE(v.find("(14,15):(15,15)"), std::string::npos);
  EXPECT_NE(v.find("register bit 0 selects"), std::string::npos);
  auto cm = parseLayoutSpec("coopmatrix<16, 4x15, f32>", std::nullopt);
  ASSERT_TRUE(cm);
  std::string c = renderHwView(*cm);
  // Row r3 (".w") ends with masked "-" cells for lanes 12-15.
  auto r3 = c.find("\nr3");
  ASSERT_NE(r3, std::string::npos);
  std::string line = c.substr(r3 + 1, c.find('\n', r3 + 1) - r3 - 1);
  EXPECT_NE(line.find("(3,14)"), std::string::npos);
  EXPECT_EQ(line.substr(line.size() - 1), "-");
}

TEST(LayoutSpec, TensorViewShowsOwners) {
  auto wg = parseLayoutSpec("wg_map<sg_layout=[2,2], sg_data=[2,4]>", shape(4, 8));
  ASSERT_TRUE(wg);
  std::string t = renderTensorView(*wg);
  // Row 2 starts in subgroup 2; column 4 of row 0 is register 0 of subgroup 1.
  EXPECT_NE(t.find("2 | s2 r0 | s2 r1"), std::string::npos);
  EXPECT_NE(t.find("s0 r3 | s1 r0"), std::string::npos);
  // Replicated: sg_layout [1,2] over a 2x4 tile with sg_data [2,4]: both subgroups hold every element.
  auto rep = parseLayoutSpec("wg_map<sg_layout=[1,2], sg_data=[2,4]>", shape(2, 4));
  ASSERT_TRUE(rep);
  EXPECT_NE(renderTensorView(*rep).find("| s0,1 r0 | s0,1 r1"), std::string::npos);
}

TEST(LayoutSpec, JsonTensorAndHwViews) {
  auto rep = parseLayoutSpec("wg_map<sg_layout=[1,2], sg_data=[2,4]>", shape(2, 4));
  ASSERT_TRUE(rep);
  auto j = nlohmann::json::parse(renderJson(*rep, View::Tensor));
  ASSERT_EQ(j["elements"].size(), 8u);
  const auto& e = j["elements"][5];  // (1, 1)
  EXPECT_EQ(e["coord"], nlohmann::json::array({1, 1}));
  ASSERT_EQ(e["owners"].size(), 2u);
  EXPECT_EQ(e["owners"][0]["subgroup"], 0);
  EXPECT_EQ(e["owners"][1]["subgroup"], 1);
  EXPECT_EQ(e["owners"][1]["register"], 5);
  auto a = parseLayoutSpec("dpas<pvc, bf16, A>", std::nullopt);
  auto h = nlohmann::json::parse(renderJson(*a, View::Hardware));
  ASSERT_EQ(h["entries"].size(), 128u);
  // Entries are lane-major: entry 8*3 + 5 is lane 3, register 5 -> A[5][3].
  EXPECT_EQ(h["entries"][29]["lane"], 3);
  EXPECT_EQ(h["entries"][29]["register"], 5);
  EXPECT_EQ(h["entries"][29]["coord"], nlohmann::json::array({5, 3}));
  EXPECT_EQ(h["entries"][29]["subgroup"], 0);
}

TEST(LayoutSpec, SvgIsAPictureOfTheTensor) {
  auto a = parseLayoutSpec("dpas<pvc, bf16, A>", std::nullopt);
  std::string svg = renderSvg(*a);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // 128 coloured cells + 16 legend swatches + the background.
  size_t rects = 0;
  for (size_t p = svg.find("<rect"); p != std::string::npos; p = svg.find("<rect", p + 1)) ++rects;
  EXPECT_EQ(rects, 128u + 16u + 1u);
  EXPECT_NE(svg.find(">l3 r5<"), std::string::npos);
  EXPECT_NE(svg.find("dpas(pvc, bf16, A) on 8x16"), std::string::npos);
}
