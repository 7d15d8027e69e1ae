// IndexBounds (ir/passes/IndexBounds.h): indexRange on RFC 2.5's subgroup offsets (grid 8 x 16, 32
// subgroups), each interval and divisor worked out by hand, and nothing where the IR does not bound
// a value.
#include "ir/passes/IndexBounds.h"

#include "tests/unit/passes/PassTestSupport.h"

#include <gtest/gtest.h>

namespace xtc::testing {
namespace {

// The value the IR text names %name (its name hint); fails the test if there is none.
const ir::Value* valueNamed(const ir::Operation& module, const std::string& name) {
  const ir::Value* found = nullptr;
  const_cast<ir::Operation&>(module).walk([&](ir::Operation* o) {
    for (unsigned i = 0; i < o->numResults(); ++i)
      if (o->result(i)->nameHint() == name) found = o->result(i);
  });
  EXPECT_TRUE(found) << name;
  return found;
}

// RFC 2.5's offsets after wg-distribute (examples/rfc_2_5_gemm_two_cache_levels.xt on dg2): a row
// i + (sg / 4) * 64 + 48 of A and a column j + (sg % 4) * 64 + 16 of B.
const char* kRanges = R"(
builtin.module {
  xtc.kernel @k(%A: memref<4096x4096xf16>, %D: memref<?x?xf16>) {arg_names = ["A", "D"], num_subgroups = 32} launch {
    %c8 = arith.constant {value = 8 : index} : () -> (index)
    %c16 = arith.constant {value = 16 : index} : () -> (index)
    %c1 = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %c8, %c16, %c1 : (index, index, index) -> ()
  } body {
    %sg_id = gpu.subgroup_id : () -> (index)
    %c4 = arith.constant {value = 4 : index} : () -> (index)
    %c6 = arith.constant {value = 6 : index} : () -> (index)
    %c16 = arith.constant {value = 16 : index} : () -> (index)
    %c48 = arith.constant {value = 48 : index} : () -> (index)
    %c64 = arith.constant {value = 64 : index} : () -> (index)
    %c256 = arith.constant {value = 256 : index} : () -> (index)
    %c512 = arith.constant {value = 512 : index} : () -> (index)
    %g0 = gpu.group_id {dim = 0} : () -> (index)
    %g1 = gpu.group_id {dim = 1} : () -> (index)
    %g2 = gpu.group_id {dim = 2} : () -> (index)
    %i = arith.muli %g0, %c512 : (index, index) -> (index)
    %j = arith.muli %g1, %c256 : (index, index) -> (index)
    %q = arith.divui %sg_id, %c4 : (index, index) -> (index)
    %r = arith.remui %sg_id, %c4 : (index, index) -> (index)
    %qo = arith.muli %q, %c64 : (index, index) -> (index)
    %ro = arith.muli %r, %c64 : (index, index) -> (index)
    %row0 = arith.addi %i, %qo : (index, index) -> (index)
    %row = arith.addi %row0, %c48 : (index, index) -> (index)
    %col0 = arith.addi %j, %ro : (index, index) -> (index)
    %col = arith.addi %col0, %c16 : (index, index) -> (index)
    %odd = arith.addi %col, %c6 : (index, index) -> (index)
    %back = arith.subi %row, %c512 : (index, index) -> (index)
    %rows = memref.dim %A {index = 0} : (memref<4096x4096xf16>) -> (index)
    %drows = memref.dim %D {index = 0} : (memref<?x?xf16>) -> (index)
    xtc.return : () -> ()
  }
}
)";

std::optional<passes::IndexRange> rangeOf(const ir::Operation& module, const std::string& name) {
  const ir::Value* v = valueNamed(module, name);
  return v ? passes::indexRange(v) : std::nullopt;
}

void expectRange(const ir::Operation& m, const std::string& name, int64_t lo, int64_t hi, int64_t multiple) {
  std::optional<passes::IndexRange> r = rangeOf(m, name);
  ASSERT_TRUE(r) << name;
  EXPECT_EQ(r->lo, lo) << name;
  EXPECT_EQ(r->hi, hi) << name;
  EXPECT_EQ(r->multiple, multiple) << name;
}

TEST(IndexBounds, RangesOfRfc25Offsets) {
  IRFixture f;
  auto m = f.parse(kRanges);
  ASSERT_TRUE(m);
  expectRange(*m, "g0", 0, 7, 1);         // grid 8 along dim 0
  expectRange(*m, "g1", 0, 15, 1);        // grid 16 along dim 1
  expectRange(*m, "g2", 0, 0, 1);         // grid 1
  expectRange(*m, "sg_id", 0, 31, 1);     // num_subgroups = 32
  expectRange(*m, "i", 0, 3584, 512);     // 7 * 512
  expectRange(*m, "q", 0, 7, 1);          // 31 / 4
  expectRange(*m, "r", 0, 3, 1);          // below 4
  expectRange(*m, "row", 48, 4080, 16);   // 3584 + 448 + 48; gcd(512, 64, 48) = 16
  expectRange(*m, "col", 16, 4048, 16);   // 15 * 256 + 192 + 16
  expectRange(*m, "odd", 22, 4054, 2);    // + 6: gcd(16, 6) = 2
  expectRange(*m, "back", -464, 3568, 16);
  expectRange(*m, "rows", 4096, 4096, 4096);
  EXPECT_FALSE(rangeOf(*m, "drows").has_value());  // a dynamic extent
}

// Grid 1 x 1 x 1 (a constant in the launch region), no num_subgroups attribute.
const char* kUnbounded = R"(
builtin.module {
  xtc.kernel @k(%X: memref<?x?xf32>, %I: memref<?xindex>) {arg_names = ["X", "I"], sg_size = 16, target = "pvc", wg_size = [16, 1, 1]} launch {
    %g = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %g, %g, %g : (index, index, index) -> ()
  } body {
    %gid = gpu.group_id {dim = 0} : () -> (index)
    %sg = gpu.subgroup_id : () -> (index)
    %rows = memref.dim %X {index = 0} : (memref<?x?xf32>) -> (index)
    %l = gpu.lane_id : () -> (index)
    %ld = lane.load %I, %l : (memref<?xindex>, index) -> (index)
    xtc.return : () -> ()
  }
}
)";

TEST(IndexBounds, NoRangeWithoutAStaticGrid) {
  IRFixture f;
  auto m = f.parse(kUnbounded);  // grid from a constant 1 in its launch: group ids are 0
  ASSERT_TRUE(m);
  expectRange(*m, "gid", 0, 0, 1);
  EXPECT_FALSE(rangeOf(*m, "rows").has_value());  // memref<?x?xf32>
  EXPECT_FALSE(rangeOf(*m, "ld").has_value());    // a loaded value
  EXPECT_FALSE(rangeOf(*m, "sg").has_value());    // no num_subgroups attribute
}

// A result of an scf.for with constant bounds: the carried offset's init plus the static trip count
// times its constant step (RFC 2.5's L2 prologue: two steps of 128 from i + 48 in [48, 3632]); a
// result yielded unchanged keeps its init's range; a step that is not "argument + constant" or a
// bound that is not constant gives none.
TEST(IndexBounds, ResultsOfStaticLoops) {
  IRFixture f;
  auto m = f.parse(R"(
builtin.module {
  xtc.kernel @k(%X: memref<?xf32>) {arg_names = ["X"]} launch {
    %c8 = arith.constant {value = 8 : index} : () -> (index)
    %c1 = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %c8, %c1, %c1 : (index, index, index) -> ()
  } body {
    %c0 = arith.constant {value = 0 : index} : () -> (index)
    %c1 = arith.constant {value = 1 : index} : () -> (index)
    %c2 = arith.constant {value = 2 : index} : () -> (index)
    %c48 = arith.constant {value = 48 : index} : () -> (index)
    %c128 = arith.constant {value = 128 : index} : () -> (index)
    %c512 = arith.constant {value = 512 : index} : () -> (index)
    %g0 = gpu.group_id {dim = 0} : () -> (index)
    %i = arith.muli %g0, %c512 : (index, index) -> (index)
    %row = arith.addi %i, %c48 : (index, index) -> (index)
    %stepped, %kept, %doubled = scf.for %c0, %c2, %c1, %row, %row, %row : (index, index, index, index, index, index) -> (index, index, index) ({
    ^bb0(%s: index, %a: index, %b: index, %d: index):
      %an = arith.addi %a, %c128 : (index, index) -> (index)
      %dn = arith.muli %d, %c2 : (index, index) -> (index)
      scf.yield %an, %b, %dn : (index, index, index) -> ()
    })
    %n = memref.dim %X {index = 0} : (memref<?xf32>) -> (index)
    %dyn = scf.for %c0, %n, %c1, %row : (index, index, index, index) -> (index) ({
    ^bb0(%t: index, %e: index):
      %en = arith.addi %e, %c128 : (index, index) -> (index)
      scf.yield %en : (index) -> ()
    })
    xtc.return : () -> ()
  }
}
)");
  ASSERT_TRUE(m);
  expectRange(*m, "stepped", 48 + 256, 7 * 512 + 48 + 256, 16);
  expectRange(*m, "kept", 48, 7 * 512 + 48, 16);
  EXPECT_FALSE(rangeOf(*m, "doubled").has_value());  // x * 2 per step: not "argument + constant"
  EXPECT_FALSE(rangeOf(*m, "dyn").has_value());      // a dynamic bound: no static trip count
}

// x_{i+1} = x_i + x_i, 30 times: each value is visited once (a walk of the paths would take 2^30
// steps). The range of x_30 = 2^30 * gid is [0, 2^30 * 7]; a multiple of 1 only (a sum's divisor is
// the gcd of its operands': the rule does not see that x + x is 2x).
TEST(IndexBounds, SharedOperandsAreVisitedOnce) {
  std::string body;
  for (int i = 0; i < 30; ++i) body += "    %x" + std::to_string(i + 1) + " = arith.addi %x" + std::to_string(i) + ", %x" +
                                      std::to_string(i) + " : (index, index) -> (index)\n";
  IRFixture f;
  auto m = f.parse(R"(
builtin.module {
  xtc.kernel @k(%X: memref<?xf32>) {arg_names = ["X"]} launch {
    %c8 = arith.constant {value = 8 : index} : () -> (index)
    %c1 = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %c8, %c1, %c1 : (index, index, index) -> ()
  } body {
    %x0 = gpu.group_id {dim = 0} : () -> (index)
)" + body + R"(    xtc.return : () -> ()
  }
}
)");
  ASSERT_TRUE(m);
  expectRange(*m, "x30", 0, int64_t(7) << 30, 1);
}

}  // namespace
}  // namespace xtc::testing
