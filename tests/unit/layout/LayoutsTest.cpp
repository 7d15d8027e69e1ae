// Cell-by-cell tests of the hardware layout constructors against the documents: the XeTile RFC's
// wg_map examples (seed 001), the DPAS operand table (reference §4), the per-lane block-load table
// (reference §2.3) and seed 000's offset/iteration/load listings, seed 003's cooperative-matrix tables,
// the PTX swizzle atoms (seed 004) and bank conflicts. Expected values are typed from those texts.
#include "ir/layout/Layouts.h"

#include <set>

#include <gtest/gtest.h>

using namespace xtc::layout;

namespace {

std::vector<int32_t> at(const LinearLayout& l, int32_t reg, int32_t lane) {
  return l.apply(std::vector<int32_t>{reg, lane});
}

// The set of linear subgroup ids owning an element of a wg_map layout (register, subgroup).
std::set<int32_t> subgroupsOf(const LinearLayout& l, int32_t i, int32_t j) {
  std::set<int32_t> s;
  for (const auto& o : l.allOwners({i, j})) s.insert(o[1]);
  return s;
}

}  // namespace

// ---------------------------------------------------------------- wg_map

TEST(WgMap, RfcExample128x128RoundRobin) {
  // RFC: tile [128,128], sg_layout [2,2], sg_data [32,128]:
  //   [0:31]  -> subgroups 0,1   [32:63] -> 2,3   [64:95] -> 0,1   [96:127] -> 2,3
  auto l = wgMapLayout({{2, 2}, {32, 128}}, {128, 128});
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(subgroupsOf(*l, 0, 0), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(subgroupsOf(*l, 31, 127), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(subgroupsOf(*l, 32, 0), (std::set<int32_t>{2, 3}));
  EXPECT_EQ(subgroupsOf(*l, 63, 64), (std::set<int32_t>{2, 3}));
  EXPECT_EQ(subgroupsOf(*l, 64, 5), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(subgroupsOf(*l, 95, 100), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(subgroupsOf(*l, 96, 0), (std::set<int32_t>{2, 3}));
  EXPECT_EQ(subgroupsOf(*l, 127, 127), (std::set<int32_t>{2, 3}));
  // Registers: one 32x128 block row-major (4096), then the second block of the subgroup.
  EXPECT_EQ(l->inDimSize("register"), 8192);
  EXPECT_EQ(l->apply(std::vector<int32_t>{4096 + 5, 0}), (std::vector<int32_t>{64, 5}));
  EXPECT_EQ(l->apply(std::vector<int32_t>{130, 3}), (std::vector<int32_t>{33, 2}));
  // Subgroup 1 wraps around along dim1: it holds the same data as subgroup 0.
  EXPECT_EQ(l->apply(std::vector<int32_t>{7, 1}), l->apply(std::vector<int32_t>{7, 0}));
  EXPECT_EQ(l->replication(), 2);
}

TEST(WgMap, BriefExample32x256WrapAround) {
  // tile [32,256], sg_layout [4,8], sg_data [32,64]. dim0: 4*32 = 128 >= 32, one block: the 4 subgroup
  // rows share it. dim1: 8*64 = 512 >= 256, 4 blocks: subgroup columns c and c+4 share block c.
  auto l = wgMapLayout({{4, 8}, {32, 64}}, {32, 256});
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(subgroupsOf(*l, 0, 0), (std::set<int32_t>{0, 4, 8, 12, 16, 20, 24, 28}));
  EXPECT_EQ(subgroupsOf(*l, 31, 63), (std::set<int32_t>{0, 4, 8, 12, 16, 20, 24, 28}));
  EXPECT_EQ(subgroupsOf(*l, 0, 64), (std::set<int32_t>{1, 5, 9, 13, 17, 21, 25, 29}));
  EXPECT_EQ(subgroupsOf(*l, 5, 200), (std::set<int32_t>{3, 7, 11, 15, 19, 23, 27, 31}));
  auto o = l->allOwners({5, 200});
  ASSERT_FALSE(o.empty());
  EXPECT_EQ(o[0][0], 5 * 64 + 8);  // register: row 5, column 200 - 192 of the block
  EXPECT_EQ(l->replication(), 8);
}

TEST(WgMap, RfcGemmBTile) {
  // RFC appendix 2.1: tile<32x256, sg_layout=[8,4], sg_data=[32,64]>: all 8 subgroup rows share
  // the 32 rows; subgroup column c owns columns [64c, 64c+64).
  auto l = wgMapLayout({{8, 4}, {32, 64}}, {32, 256});
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(subgroupsOf(*l, 0, 64), (std::set<int32_t>{1, 5, 9, 13, 17, 21, 25, 29}));
  EXPECT_EQ(subgroupsOf(*l, 17, 255), (std::set<int32_t>{3, 7, 11, 15, 19, 23, 27, 31}));
}

TEST(WgMap, LegalityRules) {
  EXPECT_FALSE(checkWgMap({{2, 2}, {32, 128}}, {128, 128}).has_value());
  EXPECT_FALSE(checkWgMap({{8, 4}, {32, 32}}, {256, 32}).has_value());
  auto bad = checkWgMap({{3, 2}, {32, 128}}, {128, 128});
  ASSERT_TRUE(bad);
  EXPECT_EQ(*bad, "dimension 0: sg_layout*sg_data = 3*32 = 96 and the tile size 128 must divide one another");
  auto rank = checkWgMap({{2, 2}, {32}}, {128, 128});
  ASSERT_TRUE(rank);
  EXPECT_NE(rank->find("rank"), std::string::npos);
  auto big = checkWgMap({{1, 1}, {256, 32}}, {128, 32});
  ASSERT_TRUE(big);
  EXPECT_EQ(*big, "dimension 0: sg_data 256 must divide the tile size 128");
  // Legal for the RFC, but not a power of two: the layout builder says so.
  EXPECT_FALSE(checkWgMap({{2, 1}, {48, 16}}, {96, 16}).has_value());
  auto np = wgMapLayout({{2, 1}, {48, 16}}, {96, 16});
  ASSERT_FALSE(np);
  EXPECT_NE(np.error().find("powers of two"), std::string::npos);
}

TEST(WgMap, WithPerSubgroupLaneLayout) {
  // 16x32 tile, 2 subgroups side by side, each holding a 16x16 block in the pvc DPAS C layout
  // (lane = column, register = row).
  auto c = dpasLayout(Target::Pvc, ElemType::BF16, Operand::C, 2, 1);
  ASSERT_TRUE(c);
  auto l = wgMapLayout({{1, 2}, {16, 16}}, {16, 32}, &c->layout);
  ASSERT_TRUE(l) << l.error();
  // register 9 (row 9), lane 3, subgroup 1 -> (9, 16+3)
  EXPECT_EQ(l->apply(NamedIndex{{"register", 9}, {"lane", 3}, {"subgroup", 1}}),
            (NamedIndex{{"dim0", 9}, {"dim1", 19}}));
  EXPECT_TRUE(l->isBijective());
}

// ---------------------------------------------------------------- DPAS (reference §4)

TEST(Dpas, PvcBf16A) {
  // A <8 x i16> (8x16): element m of lane n is A[m][n]; one element per 16-bit slot.
  auto a = dpasLayout(Target::Pvc, ElemType::BF16, Operand::A);
  ASSERT_TRUE(a) << a.error();
  for (int n = 0; n < 16; ++n)
    for (int m = 0; m < 8; ++m) EXPECT_EQ(at(a->layout, m, n), (std::vector<int32_t>{m, n}));
  EXPECT_EQ(a->packing.slotBits, 16);
  EXPECT_EQ(a->packing.elementsPerSlot, 1);
  EXPECT_EQ(a->layout.print(),
            "linear<{register=[[1,0],[2,0],[4,0]], lane=[[0,1],[0,2],[0,4],[0,8]]} -> {dim0=8, dim1=16}>");
}

TEST(Dpas, FewerRowsKeepOnlyThoseRows) {
  // A DPAS of repeat count 4 (reference §4: pvc A <4 x i16>, C <4 x float>): element m of lane n is
  // A[m][n] and C[m][n] for m < 4, so the layouts are the 8-row ones without the row-4 basis.
  auto a = dpasLayout(Target::Pvc, ElemType::F16, Operand::A, 1, 1, 4);
  ASSERT_TRUE(a) << a.error();
  for (int n = 0; n < 16; ++n)
    for (int m = 0; m < 4; ++m) EXPECT_EQ(at(a->layout, m, n), (std::vector<int32_t>{m, n}));
  EXPECT_EQ(a->layout.print(), "linear<{register=[[1,0],[2,0]], lane=[[0,1],[0,2],[0,4],[0,8]]} -> {dim0=4, dim1=16}>");
  EXPECT_EQ(a->name, "dpas<pvc, f16, A, m=4>");
  // Repeat count 1 with two column repetitions (C 1x32): register r, lane n -> (0, 16r + n).
  auto c = dpasLayout(Target::Pvc, ElemType::F16, Operand::C, 1, 2, 1);
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->layout.print(), "linear<{register=[[0,16]], lane=[[0,1],[0,2],[0,4],[0,8]]} -> {dim0=1, dim1=32}>");
  // dg2 bf16 A with 2 rows: two K-adjacent elements per dword (register bases [0,1] first), rows next.
  auto d = dpasLayout(Target::Dg2, ElemType::BF16, Operand::A, 1, 1, 2);
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->layout.print(), "linear<{register=[[0,1],[1,0]], lane=[[0,2],[0,4],[0,8]]} -> {dim0=2, dim1=16}>");
  // No repetition along the rows of a short DPAS, no 3 rows, no tf32.
  EXPECT_FALSE(dpasLayout(Target::Pvc, ElemType::F16, Operand::A, 2, 1, 4));
  auto three = dpasLayout(Target::Pvc, ElemType::F16, Operand::A, 1, 1, 3);
  ASSERT_FALSE(three);
  EXPECT_EQ(three.error(), "no 3-row DPAS layout (1, 2 or 4 rows, one repetition along them; not tf32)");
  EXPECT_FALSE(dpasLayout(Target::Pvc, ElemType::TF32, Operand::A, 1, 1, 4));
}

TEST(Dpas, PvcBf16BIsVnni) {
  // B <8 x i32> (16x16): dword i of lane n = B[2i][n] | B[2i+1][n] << 16; register 2i+h is half h.
  auto b = dpasLayout(Target::Pvc, ElemType::BF16, Operand::B);
  ASSERT_TRUE(b);
  for (int n = 0; n < 16; ++n)
    for (int i = 0; i < 8; ++i)
      for (int h = 0; h < 2; ++h) EXPECT_EQ(at(b->layout, 2 * i + h, n), (std::vector<int32_t>{2 * i + h, n}));
  EXPECT_EQ(b->packing.slotBits, 32);
  EXPECT_EQ(b->packing.elementsPerSlot, 2);
}

TEST(Dpas, PvcC) {
  auto c = dpasLayout(Target::Pvc, ElemType::F16, Operand::C);
  ASSERT_TRUE(c);
  for (int n = 0; n < 16; ++n)
    for (int m = 0; m < 8; ++m) EXPECT_EQ(at(c->layout, m, n), (std::vector<int32_t>{m, n}));
  EXPECT_EQ(c->packing.elementBits, 32);
}

TEST(Dpas, PvcInt8) {
  // A (8x32): element m of lane n = bytes A[m][2n], A[m][2n+1] -> register 2m+b holds A[m][2n+b].
  auto a = dpasLayout(Target::Pvc, ElemType::I8, Operand::A);
  ASSERT_TRUE(a);
  for (int n = 0; n < 16; ++n)
    for (int m = 0; m < 8; ++m)
      for (int b = 0; b < 2; ++b) EXPECT_EQ(at(a->layout, 2 * m + b, n), (std::vector<int32_t>{m, 2 * n + b}));
  EXPECT_EQ(a->packing.elementsPerSlot, 2);
  // B (32x16): dword i = bytes B[4i..4i+3][n] -> register 4i+b holds B[4i+b][n].
  auto b = dpasLayout(Target::Pvc, ElemType::U8, Operand::B);
  ASSERT_TRUE(b);
  for (int n = 0; n < 16; ++n)
    for (int i = 0; i < 8; ++i)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(at(b->layout, 4 * i + k, n), (std::vector<int32_t>{4 * i + k, n}));
  EXPECT_EQ(b->packing.elementsPerSlot, 4);
}

TEST(Dpas, PvcTf32) {
  // A (8x8): lanes 0-7 hold the even rows, 8-15 the odd rows: element i of lane n = A[2i + n/8][n%8].
  auto a = dpasLayout(Target::Pvc, ElemType::TF32, Operand::A);
  ASSERT_TRUE(a);
  for (int n = 0; n < 16; ++n)
    for (int i = 0; i < 4; ++i) EXPECT_EQ(at(a->layout, i, n), (std::vector<int32_t>{2 * i + n / 8, n % 8}));
  // B (8x16): element i of lane n = B[i][n].
  auto b = dpasLayout(Target::Pvc, ElemType::TF32, Operand::B);
  ASSERT_TRUE(b);
  for (int n = 0; n < 16; ++n)
    for (int i = 0; i < 8; ++i) EXPECT_EQ(at(b->layout, i, n), (std::vector<int32_t>{i, n}));
}

TEST(Dpas, Dg2) {
  // A lane j element m = A[m][2j] | A[m][2j+1] << 16 (subgroup 8, K = 16).
  auto a = dpasLayout(Target::Dg2, ElemType::BF16, Operand::A);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->layout.inDimSize("lane"), 8);
  for (int j = 0; j < 8; ++j)
    for (int m = 0; m < 8; ++m)
      for (int h = 0; h < 2; ++h) EXPECT_EQ(at(a->layout, 2 * m + h, j), (std::vector<int32_t>{m, 2 * j + h}));
  EXPECT_EQ(a->packing.slotBits, 32);
  // 8-bit A: 4 bytes A[m][4j..4j+3].
  auto a8 = dpasLayout(Target::Dg2, ElemType::I8, Operand::A);
  ASSERT_TRUE(a8);
  for (int j = 0; j < 8; ++j)
    for (int m = 0; m < 8; ++m)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(at(a8->layout, 4 * m + k, j), (std::vector<int32_t>{m, 4 * j + k}));
  // B and C as pvc with N = 8.
  auto b = dpasLayout(Target::Dg2, ElemType::F16, Operand::B);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->layout.outDimSize("dim1"), 8);
  for (int n = 0; n < 8; ++n)
    for (int r = 0; r < 16; ++r) EXPECT_EQ(at(b->layout, r, n), (std::vector<int32_t>{r, n}));
  auto c = dpasLayout(Target::Dg2, ElemType::BF16, Operand::C);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->shape, (std::vector<int64_t>{8, 8}));
  auto tf = dpasLayout(Target::Dg2, ElemType::TF32, Operand::A);
  ASSERT_FALSE(tf);
  EXPECT_NE(tf.error().find("tf32"), std::string::npos);
}

TEST(Dpas, RepetitionsFollowSeed000) {
  // Seed 000's A hardware view for a 32x32 subgroup tile: registers 0..31 walk rows 0..31 of columns
  // 0..15, registers 32..63 the same rows of columns 16..31: repetitions along M first, then K.
  auto a = dpasLayout(Target::Pvc, ElemType::BF16, Operand::A, 4, 2);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{32, 32}));
  for (int r = 0; r < 64; ++r)
    for (int n = 0; n < 16; r % 7 == 0 ? ++n : n += 5)
      EXPECT_EQ(at(a->layout, r, n), (std::vector<int32_t>{r % 32, n + 16 * (r / 32)}));
  EXPECT_FALSE(dpasLayout(Target::Pvc, ElemType::BF16, Operand::A, 3, 1).ok());
}

// ---------------------------------------------------------------- 2D block loads (reference §2.3)

TEST(BlockLoad, U16TwoBlocks) {
  // u16 16xMx2 (M = 8): i < M: S[i][j]; i >= M: S[i-M][16+j].
  auto l = blockLoadLayout({16, 16, 8, 2});
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->shape, (std::vector<int64_t>{8, 32}));
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(at(l->layout, i, j), (i < 8 ? std::vector<int32_t>{i, j} : std::vector<int32_t>{i - 8, 16 + j}));
}

TEST(BlockLoad, U16OneBlock) {
  auto l = blockLoadLayout({16, 16, 32, 1});  // u16 16xHx1, H = 32
  ASSERT_TRUE(l);
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 32; ++i) EXPECT_EQ(at(l->layout, i, j), (std::vector<int32_t>{i, j}));
}

TEST(BlockLoad, U8AsI16) {
  // u8 32xMx2 as i16 (M = 4): low byte S[i][2j], high byte S[i][2j+1]; i >= M: columns + 32.
  // Element granularity: register 2i + h is byte h of i16 slot i.
  auto l = blockLoadLayout({8, 32, 4, 2});
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->packing.slotBits, 16);
  EXPECT_EQ(l->packing.elementsPerSlot, 2);
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 8; ++i)
      for (int h = 0; h < 2; ++h)
        EXPECT_EQ(at(l->layout, 2 * i + h, j), (std::vector<int32_t>{i % 4, 2 * j + h + (i >= 4 ? 32 : 0)}));
}

TEST(BlockLoad, TransformU16AndU8) {
  // transform u16 16x16: dword i of lane j = S[2i][j] | S[2i+1][j] << 16.
  BlockLoad v16{16, 16, 16, 1, true};
  auto l = blockLoadLayout(v16);
  ASSERT_TRUE(l) << l.error();
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 8; ++i)
      for (int h = 0; h < 2; ++h) EXPECT_EQ(at(l->layout, 2 * i + h, j), (std::vector<int32_t>{2 * i + h, j}));
  // transform u8 (16 wide, 32 high): byte b of dword i = S[4i+b][j].
  BlockLoad v8{8, 16, 32, 1, true};
  auto l8 = blockLoadLayout(v8);
  ASSERT_TRUE(l8) << l8.error();
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 8; ++i)
      for (int b = 0; b < 4; ++b) EXPECT_EQ(at(l8->layout, 4 * i + b, j), (std::vector<int32_t>{4 * i + b, j}));
  // A VNNI array of two 16x32 blocks: the second block's columns are +16.
  BlockLoad v2{16, 16, 32, 2, true};
  auto l2 = blockLoadLayout(v2);
  ASSERT_TRUE(l2);
  EXPECT_EQ(at(l2->layout, 32 + 5, 3), (std::vector<int32_t>{5, 19}));
}

TEST(BlockLoad, TransposeU32) {
  // transpose u32 (8 wide, 16 high): lane j element i = S[j][i]. The result tensor is S transposed.
  BlockLoad t{32, 8, 16, 1, false, true};
  auto l = blockLoadLayout(t);
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->shape, (std::vector<int64_t>{8, 16}));
  auto mem = l->layout.transposeTensor();  // back to memory coordinates S[row][col]
  ASSERT_TRUE(mem);
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 8; ++i) EXPECT_EQ(at(*mem, i, j), (std::vector<int32_t>{j, i}));
  // 32 rows (<16 x i32>): element 2i is row j, element 2i+1 is row 16+j, column i.
  BlockLoad t32{32, 8, 32, 1, false, true};
  auto l32 = blockLoadLayout(t32);
  ASSERT_TRUE(l32);
  auto mem32 = l32->layout.transposeTensor();
  ASSERT_TRUE(mem32);
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(at(*mem32, 2 * i, j), (std::vector<int32_t>{j, i}));
      EXPECT_EQ(at(*mem32, 2 * i + 1, j), (std::vector<int32_t>{16 + j, i}));
    }
}

TEST(BlockLoad, TransposeU32OfBf16IsTheVnniBLayout) {
  // Reference §2.3: transpose_u32_k8 on 16-bit B^T (N x K) gives lane n, element i =
  // B[2i][n] | B[2i+1][n] << 16, the VNNI B layout.
  BlockLoad t{32, 8, 16, 1, false, true, 16};
  auto l = blockLoadLayout(t);
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->shape, (std::vector<int64_t>{16, 16}));
  for (int n = 0; n < 16; ++n)
    for (int i = 0; i < 8; ++i)
      for (int h = 0; h < 2; ++h) EXPECT_EQ(at(l->layout, 2 * i + h, n), (std::vector<int32_t>{2 * i + h, n}));
  auto b = dpasLayout(Target::Pvc, ElemType::BF16, Operand::B);
  EXPECT_EQ(l->layout, b->layout);
}

TEST(BlockLoad, Legality) {
  EXPECT_FALSE(checkBlockLoad(Target::Pvc, {16, 16, 8, 2}).has_value());
  EXPECT_FALSE(checkBlockLoad(Target::Pvc, {16, 16, 32, 2, true}).has_value());
  EXPECT_FALSE(checkBlockLoad(Target::Pvc, {32, 8, 16, 1, false, true}).has_value());
  EXPECT_FALSE(checkBlockLoad(Target::Pvc, {8, 16, 32, 4, true}).has_value());
  EXPECT_TRUE(checkBlockLoad(Target::Pvc, {16, 16, 16, 4}).has_value());              // array 4 of d16
  EXPECT_TRUE(checkBlockLoad(Target::Pvc, {16, 16, 16, 1, false, true}).has_value());  // d16 transpose
  EXPECT_TRUE(checkBlockLoad(Target::Pvc, {32, 16, 16, 2}).has_value());              // d32 16 wide x2
  EXPECT_TRUE(checkBlockLoad(Target::Dg2, {16, 16, 8, 1}).has_value());
}

// ---------------------------------------------------------------- seed 000's offset/iteration/load view

TEST(BlockLoadSeed, AMatrix) {
  auto off = blockOffsetLayout({16, 16, 8, 1});
  ASSERT_TRUE(off);
  // "offset=1 -> (0, 1) ... offset=8 -> (0, 8), offset=16 -> (1, 0), 32 -> (2, 0), 64 -> (4, 0)"
  EXPECT_EQ(off->print(),
            "linear<{offset=[[0,1],[0,2],[0,4],[0,8],[1,0],[2,0],[4,0]]} -> {dim0=8, dim1=16}>");
  // The offset is the per-lane layout read as offset = lane + 16 * register.
  auto lanes = blockLoadLayout({16, 16, 8, 1});
  auto flat = lanes->layout.transposeIns({"lane", "register"});
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->flattenIns("offset"), *off);
  // "iteration=1 -> (8, 0), iteration=2 -> (16, 0), iteration=4 -> (0, 16)", load size 1, 32x32.
  auto it = blockIterationBases(8, 16, 32, 32);
  EXPECT_EQ(it, (std::vector<std::vector<int32_t>>{{8, 0}, {16, 0}, {0, 16}}));
  auto tile = blockTileLayout(*off, it, {}, 32, 32);
  ASSERT_TRUE(tile) << tile.error();
  EXPECT_EQ(tile->inDimSize("load"), 1);
  // Seed table "iteration, offset : row, col".
  const int table[16][4] = {{0, 0, 0, 0},   {0, 127, 7, 15},  {1, 0, 8, 0},   {1, 127, 15, 15},
                            {2, 0, 16, 0},  {2, 127, 23, 15}, {3, 0, 24, 0},  {3, 127, 31, 15},
                            {4, 0, 0, 16},  {4, 127, 7, 31},  {5, 0, 8, 16},  {5, 127, 15, 31},
                            {6, 0, 16, 16}, {6, 127, 23, 31}, {7, 0, 24, 16}, {7, 127, 31, 31}};
  for (const auto& row : table)
    EXPECT_EQ(tile->apply(NamedIndex{{"iteration", row[0]}, {"offset", row[1]}}),
              (NamedIndex{{"dim0", row[2]}, {"dim1", row[3]}}));
  EXPECT_TRUE(tile->isBijective());
}

TEST(BlockLoadSeed, BMatrixVnniTwoLoadsIsNotSurjective) {
  auto off = blockOffsetLayout({16, 16, 16, 1, true});
  ASSERT_TRUE(off);
  // VNNI: 16x16 counted in packed rows -> dims [8, 16], same bases as A.
  EXPECT_EQ(off->print(),
            "linear<{offset=[[0,1],[0,2],[0,4],[0,8],[1,0],[2,0],[4,0]]} -> {dim0=8, dim1=16}>");
  EXPECT_EQ(blockIterationBases(8, 16, 32, 32), (std::vector<std::vector<int32_t>>{{8, 0}, {16, 0}, {0, 16}}));
  // After adding loads: iteration=1 -> (0,16), 2 -> (8,0); load=1 -> (128,0); out [256, 32].
  auto tile = blockTileLayout(*off, {{0, 16}, {8, 0}}, {{128, 0}}, 256, 32);
  ASSERT_TRUE(tile) << tile.error();
  const int table[16][5] = {{0, 0, 0, 0, 0},     {0, 0, 127, 7, 15},   {0, 1, 0, 0, 16},     {0, 1, 127, 7, 31},
                            {0, 2, 0, 8, 0},     {0, 2, 127, 15, 15},  {0, 3, 0, 8, 16},     {0, 3, 127, 15, 31},
                            {1, 0, 0, 128, 0},   {1, 0, 127, 135, 15}, {1, 1, 0, 128, 16},   {1, 1, 127, 135, 31},
                            {1, 2, 0, 136, 0},   {1, 2, 127, 143, 15}, {1, 3, 0, 136, 16},   {1, 3, 127, 143, 31}};
  for (const auto& row : table)
    EXPECT_EQ(tile->apply(NamedIndex{{"load", row[0]}, {"iteration", row[1]}, {"offset", row[2]}}),
              (NamedIndex{{"dim0", row[3]}, {"dim1", row[4]}}));
  EXPECT_TRUE(tile->isInjective());
  EXPECT_FALSE(tile->isSurjective());  // rows 16..127 and 144..255 are not loaded
  EXPECT_FALSE(tile->owners({20, 0}).has_value());
}

TEST(BlockLoadSeed, BTransposedD32) {
  // d32 transposed, 8 dwords wide, 16 rows: "offset=1,2,4 -> (0,1),(0,2),(0,4); 8..64 -> (1..8, 0)", [16, 8].
  auto off = blockOffsetLayout({32, 8, 16, 1, false, true});
  ASSERT_TRUE(off);
  EXPECT_EQ(off->print(),
            "linear<{offset=[[0,1],[0,2],[0,4],[1,0],[2,0],[4,0],[8,0]]} -> {dim0=16, dim1=8}>");
  EXPECT_EQ(blockIterationBases(16, 8, 32, 8), (std::vector<std::vector<int32_t>>{{16, 0}}));
  auto tile = blockTileLayout(*off, {{16, 0}}, {{0, 16}, {128, 0}}, 256, 32);
  ASSERT_TRUE(tile) << tile.error();
  EXPECT_EQ(tile->inDimSize("load"), 4);
  EXPECT_EQ(tile->apply(NamedIndex{{"load", 3}, {"iteration", 1}, {"offset", 9}}),
            (NamedIndex{{"dim0", 128 + 16 + 1}, {"dim1", 16 + 1}}));
  EXPECT_FALSE(tile->isSurjective());
}

// ---------------------------------------------------------------- cooperative matrix (seed 003)

TEST(CoopMatrix, Seed4x15) {
  // Seed 003, 4x15 on S = 16: columns p, rows .x .y .z .w; "-,-" is the masked tail (column 15).
  auto l = coopMatrixLayout(16, 4, 15, ElemType::F32);
  ASSERT_TRUE(l) << l.error();
  EXPECT_EQ(l->shape, (std::vector<int64_t>{4, 15}));
  const int x[16][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 1},
                        {0, 2}, {1, 2}, {2, 2}, {3, 2}, {0, 3}, {1, 3}, {2, 3}, {3, 3}};
  const int y[16][2] = {{0, 4}, {1, 4}, {2, 4}, {3, 4}, {0, 5}, {1, 5}, {2, 5}, {3, 5},
                        {0, 6}, {1, 6}, {2, 6}, {3, 6}, {0, 7}, {1, 7}, {2, 7}, {3, 7}};
  const int z[16][2] = {{0, 8},  {1, 8},  {2, 8},  {3, 8},  {0, 9},  {1, 9},  {2, 9},  {3, 9},
                        {0, 10}, {1, 10}, {2, 10}, {3, 10}, {0, 11}, {1, 11}, {2, 11}, {3, 11}};
  const int w[12][2] = {{0, 12}, {1, 12}, {2, 12}, {3, 12}, {0, 13}, {1, 13},
                        {2, 13}, {3, 13}, {0, 14}, {1, 14}, {2, 14}, {3, 14}};
  for (int p = 0; p < 16; ++p) {
    EXPECT_EQ(at(l->layout, 0, p), (std::vector<int32_t>{x[p][0], x[p][1]}));
    EXPECT_EQ(at(l->layout, 1, p), (std::vector<int32_t>{y[p][0], y[p][1]}));
    EXPECT_EQ(at(l->layout, 2, p), (std::vector<int32_t>{z[p][0], z[p][1]}));
    auto c = at(l->layout, 3, p);
    if (p < 12) EXPECT_EQ(c, (std::vector<int32_t>{w[p][0], w[p][1]}));
    else EXPECT_GE(c[1], 15);  // masked
  }
}

TEST(CoopMatrix, Seed1x17) {
  // .x: (0, p); .y: (0, 16) for p = 0, masked for p >= 1.
  auto l = coopMatrixLayout(16, 1, 17, ElemType::F32);
  ASSERT_TRUE(l) << l.error();
  for (int p = 0; p < 16; ++p) EXPECT_EQ(at(l->layout, 0, p), (std::vector<int32_t>{0, p}));
  EXPECT_EQ(at(l->layout, 1, 0), (std::vector<int32_t>{0, 16}));
  for (int p = 1; p < 16; ++p) EXPECT_GE(at(l->layout, 1, p)[1], 17);
  EXPECT_EQ(l->layout.inDimSize("register"), 2);
}

TEST(CoopMatrix, RowsPerWorkItemAndVnni) {
  // 32x16 f32 on 16 lanes: I = 16, K = 2 (two row blocks per work-item), J = 16: lane p holds rows p and
  // p + 16; component v = w2*16 + u -> (p + 16*w2, u).
  auto acc = coopMatrixLayout(16, 32, 16, ElemType::F32);
  ASSERT_TRUE(acc) << acc.error();
  EXPECT_EQ(at(acc->layout, 5, 3), (std::vector<int32_t>{3, 5}));
  EXPECT_EQ(at(acc->layout, 16 + 5, 3), (std::vector<int32_t>{19, 5}));
  // Matrix A in bf16 with N even is VNNI packed: two adjacent columns per dword, channel = register bit 0.
  auto a = coopMatrixLayout(16, 16, 32, ElemType::BF16, CoopUse::A);
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a->packing.elementsPerSlot, 2);
  // I = 16, J = 32, packed columns 16: lane p holds row p; register 2u + c holds column 2u + c.
  EXPECT_EQ(at(a->layout, 2 * 5 + 1, 7), (std::vector<int32_t>{7, 11}));
  // Matrix B: omega_b = max(1, 2/size). i8 with M/S > 1 uses K1 = 2: component w1 alternates row blocks.
  auto b = coopMatrixLayout(16, 32, 16, ElemType::I8, CoopUse::B);
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(at(b->layout, 1, 0), (std::vector<int32_t>{16, 0}));  // w1 = 1 -> row + I
  EXPECT_EQ(at(b->layout, 2, 0), (std::vector<int32_t>{0, 1}));   // u = 1 -> next column
  // bf16 B: omega_b = 1, so K1 = 1 and component 1 is the next column.
  auto b16 = coopMatrixLayout(16, 32, 16, ElemType::BF16, CoopUse::B);
  ASSERT_TRUE(b16);
  EXPECT_EQ(at(b16->layout, 1, 0), (std::vector<int32_t>{0, 1}));
}

// ---------------------------------------------------------------- swizzles and bank conflicts (seed 004)

TEST(Swizzle, PtxAtomsOnByteOffsets) {
  // 128B: Swizzle<3,4,3>: 16-byte chunk c of 128-byte row r lands in chunk c ^ (r % 8).
  auto s128 = swizzleLayout({3, 4, 3}, 10);
  ASSERT_TRUE(s128);
  EXPECT_EQ(s128->apply(std::vector<int32_t>{128}), (std::vector<int32_t>{144}));            // r1 c0 -> c1
  EXPECT_EQ(s128->apply(std::vector<int32_t>{5 * 128 + 3 * 16}), (std::vector<int32_t>{736}));  // r5 c3 -> c6
  EXPECT_EQ(s128->apply(std::vector<int32_t>{7 * 128 + 7 * 16 + 9}), (std::vector<int32_t>{7 * 128 + 9}));
  EXPECT_TRUE(s128->isBijective());
  // 64B: Swizzle<2,4,3>: bits 7-8 into bits 4-5.
  auto s64 = swizzleLayout({2, 4, 3}, 10);
  EXPECT_EQ(s64->apply(std::vector<int32_t>{128}), (std::vector<int32_t>{144}));
  EXPECT_EQ(s64->apply(std::vector<int32_t>{384}), (std::vector<int32_t>{432}));
  EXPECT_EQ(s64->apply(std::vector<int32_t>{512}), (std::vector<int32_t>{512}));
  // 32B: Swizzle<1,4,3>: bit 7 into bit 4.
  auto s32 = swizzleLayout({1, 4, 3}, 10);
  EXPECT_EQ(s32->apply(std::vector<int32_t>{128}), (std::vector<int32_t>{144}));
  EXPECT_EQ(s32->apply(std::vector<int32_t>{256}), (std::vector<int32_t>{256}));
  EXPECT_FALSE(swizzleLayout({3, 4, 2}, 10).ok());  // S < B overlaps
}

TEST(Swizzle, SlmLayoutPlacesElements) {
  // 8x64 bf16 tile = 128-byte rows; Swizzle<3,4,3>: element (r, c) at byte r*128 + ((c/8) ^ r)*16 + (c%8)*2.
  auto slm = slmLayout(8, 64, 2, {3, 4, 3});
  ASSERT_TRUE(slm) << slm.error();
  // (1, 0) -> byte 128 + 16 = 144 -> slot 72.
  EXPECT_EQ(slm->allOwners({1, 0}), (std::vector<std::vector<int32_t>>{{72}}));
  // (3, 10): chunk 1 ^ 3 = 2 -> byte 384 + 32 + 4 = 420 -> slot 210.
  EXPECT_EQ(slm->apply(std::vector<int32_t>{210}), (std::vector<int32_t>{3, 10}));
  EXPECT_FALSE(slmLayout(8, 64, 4, {3, 1, 3}).ok());  // would split 4-byte elements
}

TEST(BankConflicts, ColumnAccessAndSwizzleFix) {
  BankModel banks16{16, 4};
  auto plain = slmLayout(16, 16, 4, {0, 4, 3});
  ASSERT_TRUE(plain);
  LinearLayout column({InDim{"lane", {{1, 0}, {2, 0}, {4, 0}, {8, 0}}}}, {OutDim{"dim0", 16}, OutDim{"dim1", 16}});
  LinearLayout row({InDim{"lane", {{0, 1}, {0, 2}, {0, 4}, {0, 8}}}}, {OutDim{"dim0", 16}, OutDim{"dim1", 16}});
  // f32 16x16 row-major: a column is 16 words 64 bytes apart -> all in bank 0: 16 ways.
  EXPECT_EQ(*slmAccessConflictWays(column, *plain, 4, banks16), 16);
  EXPECT_EQ(*slmAccessConflictWays(row, *plain, 4, banks16), 1);
  // Swizzle<4,2,4> xors the row into the word index: the column spreads over 16 banks.
  auto swz = slmLayout(16, 16, 4, {4, 2, 4});
  ASSERT_TRUE(swz) << swz.error();
  EXPECT_EQ(*slmAccessConflictWays(column, *swz, 4, banks16), 1);
  EXPECT_EQ(*slmAccessConflictWays(row, *swz, 4, banks16), 1);
  // 32 banks, 16 lanes reading bf16 pairs of a row: 32 bytes, 8 words, no conflict.
  LinearLayout bytes({InDim{"lane", {{2}, {4}, {8}, {16}}}}, {OutDim{"addr", 1024}});
  EXPECT_EQ(*bankConflictWays(bytes, {32, 4}, 2), 1);
  // 16 lanes 128 bytes apart with 32 banks: 16 ways; two lanes on the same word broadcast.
  LinearLayout strided({InDim{"lane", {{128}, {256}, {512}, {1024}}}}, {OutDim{"addr", 2048}});
  EXPECT_EQ(*bankConflictWays(strided, {32, 4}, 4), 16);
  LinearLayout same({InDim{"lane", {{0}, {4}}}}, {OutDim{"addr", 64}});
  EXPECT_EQ(*bankConflictWays(same, {16, 4}, 4), 1);
  // 8-byte accesses touch two words each: 16 lanes x 8 bytes contiguous = 128 bytes over 16 banks -> 2 ways.
  LinearLayout wide({InDim{"lane", {{8}, {16}, {32}, {64}}}}, {OutDim{"addr", 128}});
  EXPECT_EQ(*bankConflictWays(wide, {16, 4}, 8), 2);
}
