// Interpreter: lane.atomic (the lane-level form of tile.atomic_rmw). Several lanes of a subgroup and
// several workgroups update the same elements; the result must be the serial combination of all
// updates, masked-off and out-of-bounds lanes must do nothing and read 0 as their old value.
// Expected values by hand.
#include "InterpTestUtil.h"

#include <gtest/gtest.h>

using namespace xtc;
using namespace xtc::interp;
using namespace xtc::interp::test;

namespace {

// A 16-lane generic-target kernel over (C, old): lane l of workgroup g atomically combines x(l) into
// C[l % 4] (lanes 4 apart contend for one element) when l < 12; old[g][l] = the value it saw.
struct AtomicKernel {
  KernelBuilder kb;
  AtomicKernel(ElemKind ek, const std::string& kind, int64_t numGroups)
      : kb({"C", "old"}, {Type::memref({4}, ek), Type::memref({numGroups, 16}, ek)}) {
    kb.kernel->setAttr("sg_size", ir::Attribute::integer(16));
    kb.kernel->setAttr("wg_size", ir::Attribute::intArray({16, 1, 1}));
    kb.kernel->setAttr("target", ir::Attribute::string("generic"));
    Value* lane = kb.op("gpu.lane_id", {}, Type::index());
    Value* g = kb.op("gpu.group_id", {}, Type::index(), {{"dim", ir::Attribute::integer(0)}});
    // x(l) = l + 1 (as the element type; f32 values stay exact).
    Value* x = kb.op("arith.convert", {kb.op("arith.addi", {lane, kb.idx(1)}, Type::index())}, Type::scalar(ek));
    Value* at = kb.op("arith.remui", {lane, kb.idx(4)}, Type::index());
    Value* on = kb.op("arith.cmpi", {lane, kb.idx(12)}, Type::scalar(ElemKind::I1),
                      {{"predicate", ir::Attribute::enumValue("cmpi", "ult")}});
    Value* o = kb.op("lane.atomic", {x, kb.arg(0), at, on}, Type::scalar(ek),
                     {{"kind", ir::Attribute::enumValue("atomic", kind)}});
    kb.b.create("lane.store", {o, kb.arg(1), g, lane}, {});
    kb.finish(numGroups);
  }
};

}  // namespace

TEST(InterpLaneAtomic, AddfSumsEveryLaneOfEveryWorkgroup) {
  AtomicKernel k(ElemKind::F32, "addf", 3);
  KernelArgs args{{buf(ElemKind::F32, {4}, {0.5, -1.0, 2.0, 7.25}), buf(ElemKind::F32, {3, 16})}};
  RunResult r = run(k.kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& c = args.args[0].buffer;
  // C[j] += 3 workgroups x (x(j) + x(j + 4) + x(j + 8)) = 3 * (3j + 15).
  const double init[4] = {0.5, -1.0, 2.0, 7.25};
  for (int j = 0; j < 4; ++j) EXPECT_EQ(c.getFloat(j), init[j] + 3 * (3 * j + 15)) << j;
  const Buffer& old = args.args[1].buffer;
  // Lanes run in order: lane j of workgroup 0 sees the initial value, lane j + 4 that plus x(j).
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(old.getFloat(j), init[j]) << j;
    EXPECT_EQ(old.getFloat(4 + j), init[j] + j + 1) << j;
  }
  // Masked-off lanes 12..15 did nothing and read 0.
  for (int g = 0; g < 3; ++g)
    for (int l = 12; l < 16; ++l) EXPECT_EQ(old.getFloat(g * 16 + l), 0.0) << g << " " << l;
}

TEST(InterpLaneAtomic, IntegerMaxAndXor) {
  {
    AtomicKernel k(ElemKind::I32, "maxs", 2);
    KernelArgs args{{buf(ElemKind::I32, {4}, {-5, 9, 3, 12}), buf(ElemKind::I32, {2, 16})}};
    RunResult r = run(k.kb, args);
    ASSERT_TRUE(r.ok) << r.diags;
    // max(C[j], j + 9) (lane j + 8 brings the largest x).
    const int64_t want[4] = {9, 10, 11, 12};
    for (int j = 0; j < 4; ++j) EXPECT_EQ(args.args[0].buffer.getInt(j), want[j]) << j;
  }
  {
    AtomicKernel k(ElemKind::I32, "xor", 1);
    KernelArgs args{{buf(ElemKind::I32, {4}, {6, 0, 1, 2}), buf(ElemKind::I32, {1, 16})}};
    RunResult r = run(k.kb, args);
    ASSERT_TRUE(r.ok) << r.diags;
    // C[j] ^ (j + 1) ^ (j + 5) ^ (j + 9).
    for (int j = 0; j < 4; ++j) {
      int64_t init[4] = {6, 0, 1, 2};
      EXPECT_EQ(args.args[0].buffer.getInt(j), init[j] ^ (j + 1) ^ (j + 5) ^ (j + 9)) << j;
    }
  }
}

TEST(InterpLaneAtomic, OutOfBoundsLanesDoNothing) {
  // C has 4 elements; index lane (not lane % 4) puts lanes 4..11 out of bounds.
  KernelBuilder kb({"C", "old"}, {Type::memref({4}, ElemKind::F32), Type::memref({16}, ElemKind::F32)});
  kb.kernel->setAttr("sg_size", ir::Attribute::integer(16));
  kb.kernel->setAttr("wg_size", ir::Attribute::intArray({16, 1, 1}));
  kb.kernel->setAttr("target", ir::Attribute::string("generic"));
  Value* lane = kb.op("gpu.lane_id", {}, Type::index());
  Value* o = kb.op("lane.atomic", {kb.b.constantFloat(2.0, ElemKind::F32), kb.arg(0), lane}, Type::scalar(ElemKind::F32),
                   {{"kind", ir::Attribute::enumValue("atomic", "assign")}});
  kb.b.create("lane.store", {o, kb.arg(1), lane}, {});
  kb.finish();
  KernelArgs args{{buf(ElemKind::F32, {4}, {1, 3, 5, 7}), buf(ElemKind::F32, {16})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(args.args[0].buffer.getFloat(j), 2.0) << j;
    EXPECT_EQ(args.args[1].buffer.getFloat(j), 1 + 2 * j) << j;
  }
  for (int l = 4; l < 16; ++l) EXPECT_EQ(args.args[1].buffer.getFloat(l), 0.0) << l;
}
