// Interpreter: subgroup-level execution — every subgroup of every workgroup, shared SLM, barriers,
// the SLM race check and barrier divergence.
#include "InterpTestUtil.h"

#include <gtest/gtest.h>

using namespace xtc;
using namespace xtc::interp;
using namespace xtc::interp::test;

namespace {
const ElemKind I32 = ElemKind::I32;

Value* toI32(KernelBuilder& kb, Value* index) { return kb.op("arith.convert", {index}, Type::scalar(I32)); }

// Each subgroup writes 10*(sg+1) into slm[sg], (optionally) waits at a barrier, then copies
// slm[(sg+1) % 4] into out[sg].
void buildExchange(KernelBuilder& kb, bool withBarrier) {
  Value* slm = kb.op("gpu.slm_alloc", {}, Type::memref({4}, I32, ir::MemSpace::Slm));
  Value* sg = kb.op("gpu.subgroup_id", {}, Type::index());
  Value* sg1 = kb.op("arith.addi", {sg, kb.idx(1)}, Type::index());
  Value* val = kb.op("arith.muli", {toI32(kb, sg1), kb.b.constantInt(10, I32)}, Type::scalar(I32));
  Value* vec = kb.op("vector.splat", {val}, Type::vector({1}, I32));
  kb.store(vec, kb.initTile(slm, {sg}, Type::tile({1}, I32)));
  if (withBarrier) kb.b.create("gpu.barrier", {}, {});
  Value* nb = kb.op("arith.remsi", {sg1, kb.idx(4)}, Type::index());
  kb.b.setLoc(kb.loc(9, 4));
  Value* got = kb.load(kb.initTile(slm, {nb}, Type::tile({1}, I32)));
  kb.store(got, kb.initTile(kb.arg(0), {sg}, Type::tile({1}, I32)));
  kb.finish();
}
}  // namespace

TEST(InterpSubgroup, SlmExchangeThroughBarrier) {
  KernelBuilder kb({"out"}, {Type::memref({4}, I32)});
  buildExchange(kb, true);
  KernelArgs args{{buf(I32, {4})}};
  RunOptions o;
  o.numSubgroups = 4;
  RunStats st;
  RunResult r = run(kb, args, o, &st);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_FALSE(st.workgroupLevel);
  EXPECT_EQ(st.subgroupsPerWorkgroup, 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(args.args[0].buffer.getInt(i), 10 * ((i + 1) % 4 + 1)) << i;
}

TEST(InterpSubgroup, SubgroupCountFromKernelAttributes) {
  KernelBuilder kb({"out"}, {Type::memref({4}, I32)});
  kb.kernel->setAttr("wg_size", ir::Attribute::intArray({64, 1, 1}));
  kb.kernel->setAttr("sg_size", ir::Attribute::integer(16));
  buildExchange(kb, true);
  KernelArgs args{{buf(I32, {4})}};
  RunStats st;
  RunResult r = run(kb, args, {}, &st);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_EQ(st.subgroupsPerWorkgroup, 4);
  EXPECT_EQ(args.args[0].buffer.getInt(3), 10);
}

TEST(InterpSubgroup, MissingBarrierIsARace) {
  KernelBuilder kb({"out"}, {Type::memref({4}, I32)});
  buildExchange(kb, false);
  KernelArgs args{{buf(I32, {4})}};
  RunOptions o;
  o.numSubgroups = 4;
  RunResult r = run(kb, args, o);
  EXPECT_FALSE(r.ok);
  // Subgroups run in order, so subgroup 3 is the first to read an element another one wrote.
  EXPECT_NE(r.diags.find("k.xt:9:4: error: SLM race: subgroup 3 reads SLM element 0 that subgroup 0 wrote since the last gpu.barrier"),
            std::string::npos)
      << r.diags;
}

TEST(InterpSubgroup, BarrierDivergenceIsReported) {
  KernelBuilder kb({"out"}, {Type::memref({4}, I32)});
  Value* sg = kb.op("gpu.subgroup_id", {}, Type::index());
  Value* c = kb.op("arith.cmpi", {sg, kb.idx(0)}, Type::scalar(ElemKind::I1), {{"predicate", ir::Attribute::enumValue("cmpi", "eq")}});
  ir::Operation* ifop = kb.b.create("scf.if", {c}, {}, {}, 2);
  ir::Block& then = ifop->region(0).addBlock();
  ir::Builder tb(&then);
  tb.setLoc(kb.loc(4, 5));
  tb.create("gpu.barrier", {}, {});
  tb.create("scf.yield", {}, {});
  kb.finish();
  KernelArgs args{{buf(I32, {4})}};
  RunOptions o;
  o.numSubgroups = 2;
  RunResult r = run(kb, args, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("k.xt:4:5: error: barrier divergence: subgroup 0 waits at this gpu.barrier but subgroup 1 finished"),
            std::string::npos)
      << r.diags;
}

namespace {
// A 3x2 grid whose workgroup (x, y) stores x + 10 * y + 100 * num_groups(0) to out[y][x], or to
// out[0][0] with `atOrigin`.
void storeGroupIds(KernelBuilder& kb, bool atOrigin) {
  Value* x = kb.op("gpu.group_id", {}, Type::index(), {{"dim", ir::Attribute::integer(0)}});
  Value* y = kb.op("gpu.group_id", {}, Type::index(), {{"dim", ir::Attribute::integer(1)}});
  Value* nx = kb.op("gpu.num_groups", {}, Type::index(), {{"dim", ir::Attribute::integer(0)}});
  Value* v = kb.op("arith.addi", {x, kb.op("arith.muli", {y, kb.idx(10)}, Type::index())}, Type::index());
  v = kb.op("arith.addi", {v, kb.op("arith.muli", {nx, kb.idx(100)}, Type::index())}, Type::index());
  Value* vec = kb.op("vector.splat", {toI32(kb, v)}, Type::vector({1, 1}, I32));
  std::vector<Value*> at = atOrigin ? std::vector<Value*>{kb.idx(0), kb.idx(0)} : std::vector<Value*>{y, x};
  kb.store(vec, kb.initTile(kb.arg(0), at, Type::tile({1, 1}, I32)));
  kb.finish(3, 2, 1);
}
}  // namespace

TEST(InterpSubgroup, EveryWorkgroupRuns) {
  KernelBuilder kb({"out"}, {Type::memref({2, 3}, I32)});
  storeGroupIds(kb, false);
  KernelArgs args{{buf(I32, {2, 3})}};
  RunStats st;
  RunResult r = run(kb, args, {}, &st);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_EQ(st.workgroups, 6);
  std::vector<int64_t> got;
  for (int i = 0; i < 6; ++i) got.push_back(args.args[0].buffer.getInt(i));
  EXPECT_EQ(got, (std::vector<int64_t>{300, 301, 302, 310, 311, 312}));
}

// RunOptions::onlyWorkgroups (xtc run --check-sample) with a WriteLog on the output: only the chosen
// workgroups run, the grid they see is the whole launch grid, and each element records its writer
// (the chosen workgroup's number in the list, from 1).
TEST(InterpSubgroup, OnlyChosenWorkgroupsRunAndLogTheirWrites) {
  for (bool overlap : {false, true}) {
    KernelBuilder kb({"out"}, {Type::memref({2, 3}, I32)});
    storeGroupIds(kb, overlap);
    KernelArgs args{{buf(I32, {2, 3})}};
    args.args[0].buffer.trackWrites();
    RunOptions o;
    o.onlyWorkgroups = {{2, 1, 0}, {0, 0, 0}};
    RunStats st;
    RunResult r = run(kb, args, o, &st);
    ASSERT_TRUE(r.ok) << r.diags;
    EXPECT_EQ(st.workgroups, 2);
    const Buffer& out = args.args[0].buffer;
    std::vector<int64_t> got;
    for (int i = 0; i < 6; ++i) got.push_back(out.getInt(i));
    const WriteLog& w = *out.writes;
    if (!overlap) {
      EXPECT_EQ(got, (std::vector<int64_t>{300, 0, 0, 0, 0, 312}));
      EXPECT_EQ(w.writer, (std::vector<uint16_t>{2, 0, 0, 0, 0, 1}));
      EXPECT_EQ(w.written, 2);
      EXPECT_EQ(w.conflictAt, -1);
    } else {
      // (0, 0, 0) ran second and overwrote (2, 1, 0)'s value: a conflict at element 0.
      EXPECT_EQ(got, (std::vector<int64_t>{300, 0, 0, 0, 0, 0}));
      EXPECT_EQ(w.written, 1);
      EXPECT_EQ(w.conflictAt, 0);
      EXPECT_EQ(w.conflictFirst, 1);
      EXPECT_EQ(w.writer[0], 2);
    }
  }
}

TEST(InterpSubgroup, ScalarArgumentsAndLaunchErrors) {
  KernelBuilder kb({"out", "alpha"}, {Type::memref({2}, ElemKind::F32), Type::scalar(ElemKind::F32)});
  Value* v = kb.op("vector.splat", {kb.arg(1)}, Type::vector({2}, ElemKind::F32));
  kb.storeAll(v, kb.arg(0));
  kb.launch.setLoc(kb.loc(1, 20));
  Value* g = kb.launch.constantIndex(-1);
  kb.launch.create("xtc.grid", {g, g, g}, {});
  kb.finish();
  KernelArgs args{{buf(ElemKind::F32, {2}), KernelArg::fromScalar(ScalarArg::floating(0.1, ElemKind::F64))}};
  RunResult r = run(kb, args);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("k.xt:1:20: error: the launch grid is negative"), std::string::npos) << r.diags;
  RunOptions o;
  o.grid = std::array<int64_t, 3>{1, 1, 1};
  r = run(kb, args, o);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_EQ(args.args[0].buffer.getFloat(1), static_cast<double>(0.1f));
}
