// Unit tests of the wg_map ownership function (ir/passes/WgDistributeMap.h) on the XeTile RFC's
// examples. Every expected offset below is worked out by hand from the RFC's text.
#include "ir/passes/WgDistributeMap.h"

#include <gtest/gtest.h>

using xtc::ir::WgMap;
using xtc::passes::SgDistribution;
using Offs = std::vector<std::vector<int64_t>>;

// RFC: tile [128, 128], sg_layout [2, 2], sg_data [32, 128]. Rows are dealt round-robin (two rounds of
// 2 x 32 rows); the 128 columns are one piece that both column subgroups share.
TEST(WgDistributeMap, Rfc128x128RoundRobinAndWrap) {
  SgDistribution d({128, 128}, WgMap{{2, 2}, {32, 128}});
  EXPECT_EQ(SgDistribution::check(d.shape(), d.map()), "");
  EXPECT_EQ(d.blocksPerDim(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(d.replicasPerDim(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(d.isReplicated());
  // The RFC's table: [0:31] and [64:95] -> subgroups 0 and 1; [32:63] and [96:127] -> 2 and 3.
  EXPECT_EQ(d.blockOffsets(0), (Offs{{0, 0}, {64, 0}}));
  EXPECT_EQ(d.blockOffsets(1), (Offs{{0, 0}, {64, 0}}));
  EXPECT_EQ(d.blockOffsets(2), (Offs{{32, 0}, {96, 0}}));
  EXPECT_EQ(d.blockOffsets(3), (Offs{{32, 0}, {96, 0}}));
  // One replica of each pair stores: the one in the first column of sg_layout.
  EXPECT_TRUE(d.isPrimaryReplica(0));
  EXPECT_FALSE(d.isPrimaryReplica(1));
  EXPECT_TRUE(d.isPrimaryReplica(2));
  EXPECT_FALSE(d.isPrimaryReplica(3));
}

// The task's second example: 32x256 with sg_layout [4, 8], sg_data [32, 64]: rows wrap 4 times,
// columns 2 times (8 x 64 = 512 = 2 x 256).
TEST(WgDistributeMap, Rfc32x256Replication) {
  SgDistribution d({32, 256}, WgMap{{4, 8}, {32, 64}});
  EXPECT_EQ(SgDistribution::check(d.shape(), d.map()), "");
  EXPECT_EQ(d.numBlocks(), 1);
  EXPECT_EQ(d.replicasPerDim(), (std::vector<int64_t>{4, 2}));
  for (int64_t s = 0; s < 32; ++s) {
    int64_t col = s % 8;  // row-major split: s = 8 * row + col
    EXPECT_EQ(d.sgCoords(s), (std::vector<int64_t>{s / 8, col}));
    EXPECT_EQ(d.blockOffset(s, 0), (std::vector<int64_t>{0, (col % 4) * 64})) << "subgroup " << s;
    EXPECT_EQ(d.isPrimaryReplica(s), s < 4) << "subgroup " << s;
  }
}

// RFC 256x256 GEMM: A 256x32 [8,4]/[32,32], B 32x256 [8,4]/[32,64], C 256x256 [8,4]/[32,64].
TEST(WgDistributeMap, RfcGemmOperands) {
  SgDistribution a({256, 32}, WgMap{{8, 4}, {32, 32}});
  SgDistribution b({32, 256}, WgMap{{8, 4}, {32, 64}});
  SgDistribution c({256, 256}, WgMap{{8, 4}, {32, 64}});
  for (auto* d : {&a, &b, &c}) EXPECT_EQ(SgDistribution::check(d->shape(), d->map()), "");
  for (int64_t s = 0; s < 32; ++s) {
    int64_t r = s / 4, q = s % 4;
    EXPECT_EQ(a.blockOffsets(s), (Offs{{32 * r, 0}}));
    EXPECT_EQ(b.blockOffsets(s), (Offs{{0, 64 * q}}));
    EXPECT_EQ(c.blockOffsets(s), (Offs{{32 * r, 64 * q}}));
    EXPECT_EQ(a.isPrimaryReplica(s), q == 0);
    EXPECT_EQ(b.isPrimaryReplica(s), r == 0);
    EXPECT_TRUE(c.isPrimaryReplica(s));
  }
  EXPECT_FALSE(c.isReplicated());
}

// sg_data [32, 32] on the same 256x256 C: two rounds along the columns (4 x 32 = 128 < 256).
TEST(WgDistributeMap, GemmRoundRobinColumns) {
  SgDistribution c({256, 256}, WgMap{{8, 4}, {32, 32}});
  EXPECT_EQ(c.blocksPerDim(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(c.blockOffsets(5), (Offs{{32, 32}, {32, 160}}));  // s = 5: row 1, column 1
  EXPECT_EQ(c.blockOffsets(31), (Offs{{224, 96}, {224, 224}}));
}

TEST(WgDistributeMap, RejectsWhatTheRfcForbids) {
  // 2 x 32 = 64 and 96 do not divide one another.
  EXPECT_NE(SgDistribution::check({96, 16}, WgMap{{2, 1}, {32, 16}}), "");
  // sg_data larger than the tile.
  EXPECT_NE(SgDistribution::check({16, 16}, WgMap{{1, 1}, {32, 16}}), "");
  // sg_data not dividing the tile.
  EXPECT_NE(SgDistribution::check({48, 16}, WgMap{{1, 1}, {32, 16}}), "");
  // rank mismatch.
  EXPECT_NE(SgDistribution::check({48, 16}, WgMap{{1}, {16}}), "");
  // Allowed: replication by 3 (3 x 32 = 96 is a multiple of 32).
  EXPECT_EQ(SgDistribution::check({32, 16}, WgMap{{3, 1}, {32, 16}}), "");
}

TEST(WgDistributeMap, SameOwnershipIgnoresSpelling) {
  // A [1, 4] layout with sg_data equal to the whole tile: every subgroup owns everything, like [4, 1].
  SgDistribution a({32, 32}, WgMap{{1, 4}, {32, 32}}), b({32, 32}, WgMap{{4, 1}, {32, 32}});
  EXPECT_TRUE(a.sameOwnership(b));
  SgDistribution c({64, 32}, WgMap{{2, 2}, {32, 32}}), d({64, 32}, WgMap{{4, 1}, {16, 32}});
  EXPECT_FALSE(c.sameOwnership(d));
}
