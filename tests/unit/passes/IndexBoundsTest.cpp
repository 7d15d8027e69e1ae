// IndexBounds (ir/passes/IndexBounds.h): the bit bound of an index from how the IR computes it, each
// expected value worked out by hand from the rules (ids below 2^32, extents below 2^57, constants
// their own width, + adds a bit, * adds the widths), and nothing where the IR does not show a
// non-negative value (a subtraction, a negative constant, a loaded or loop-carried value, i32
// arithmetic that could wrap).
#include "ir/passes/IndexBounds.h"

#include "tests/unit/passes/PassTestSupport.h"

#include <gtest/gtest.h>

namespace xtc::testing {
namespace {

const char* kKernel = R"(
builtin.module {
  xtc.kernel @k(%X: memref<?x?xf32>, %I: memref<?xindex>) {arg_names = ["X", "I"], sg_size = 16, target = "pvc", wg_size = [16, 1, 1]} launch {
    %g = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %g, %g, %g : (index, index, index) -> ()
  } body {
    %c8 = arith.constant {value = 8 : index} : () -> (index)
    %c32 = arith.constant {value = 32 : index} : () -> (index)
    %cm1 = arith.constant {value = -1 : index} : () -> (index)
    %gid = gpu.group_id {dim = 0} : () -> (index)
    %sg = gpu.subgroup_id : () -> (index)
    %rows = memref.dim %X {index = 0} : (memref<?x?xf32>) -> (index)
    %m = arith.muli %gid, %c8 : (index, index) -> (index)
    %r = arith.addi %m, %sg : (index, index) -> (index)
    %n = arith.muli %gid, %c32 : (index, index) -> (index)
    %q = arith.floordivsi %rows, %c8 : (index, index) -> (index)
    %k = arith.remsi %gid, %c32 : (index, index) -> (index)
    %lo = arith.minsi %q, %m : (index, index) -> (index)
    %sq = arith.muli %rows, %rows : (index, index) -> (index)
    %neg = arith.addi %m, %cm1 : (index, index) -> (index)
    %d = arith.subi %m, %c8 : (index, index) -> (index)
    %l = gpu.lane_id : () -> (index)
    %ld = lane.load %I, %l : (memref<?xindex>, index) -> (index)
    %ldm = arith.muli %ld, %c8 : (index, index) -> (index)
    %msk = arith.andi %ld, %c32 : (index, index) -> (index)
    %g32 = arith.convert %gid : (index) -> (i32)
    %c8i = arith.constant {value = 8 : i32} : () -> (i32)
    %m32 = arith.muli %g32, %c8i : (i32, i32) -> (i32)
    xtc.return : () -> ()
  }
}
)";

std::optional<int> boundOf(const ir::Operation& module, const std::string& name) {
  const ir::Value* found = nullptr;
  const_cast<ir::Operation&>(module).walk([&](ir::Operation* o) {
    for (unsigned i = 0; i < o->numResults(); ++i)
      if (o->result(i)->nameHint() == name) found = o->result(i);
  });
  EXPECT_TRUE(found) << name;
  return found ? passes::unsignedBits(found) : std::nullopt;
}

TEST(IndexBounds, BoundsFromTheRules) {
  IRFixture f;
  auto m = f.parse(kKernel);
  ASSERT_TRUE(m);
  EXPECT_EQ(boundOf(*m, "c8"), 4);     // 8 = 0b1000
  EXPECT_EQ(boundOf(*m, "gid"), 32);   // a group id
  EXPECT_EQ(boundOf(*m, "rows"), 57);  // a memref extent
  EXPECT_EQ(boundOf(*m, "m"), 36);     // 32 + 4
  EXPECT_EQ(boundOf(*m, "r"), 37);     // max(36, 32) + 1
  EXPECT_EQ(boundOf(*m, "n"), 38);     // 32 + 6
  EXPECT_EQ(boundOf(*m, "q"), 57);     // no larger than the dividend
  EXPECT_EQ(boundOf(*m, "k"), 6);      // below the divisor 32
  EXPECT_EQ(boundOf(*m, "lo"), 36);    // min(57, 36)
  EXPECT_EQ(boundOf(*m, "msk"), 6);    // and with 32: whatever the loaded side is
}

TEST(IndexBounds, NothingWhereTheIrDoesNotShowIt) {
  IRFixture f;
  auto m = f.parse(kKernel);
  ASSERT_TRUE(m);
  EXPECT_EQ(boundOf(*m, "cm1"), std::nullopt);  // a negative constant
  EXPECT_EQ(boundOf(*m, "neg"), std::nullopt);  // plus a negative constant
  EXPECT_EQ(boundOf(*m, "d"), std::nullopt);    // a subtraction
  EXPECT_EQ(boundOf(*m, "ld"), std::nullopt);   // a loaded value
  EXPECT_EQ(boundOf(*m, "ldm"), std::nullopt);  // arithmetic of one
  EXPECT_EQ(boundOf(*m, "sq"), std::nullopt);   // 57 + 57 bits: past 63
  EXPECT_EQ(boundOf(*m, "m32"), std::nullopt);  // i32 arithmetic may wrap
}

}  // namespace
}  // namespace xtc::testing
