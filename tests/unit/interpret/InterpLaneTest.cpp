// Interpreter: lane-level IR (lane.* and vector register ops), the 16 lanes of a subgroup running
// in lockstep. Expected values by hand: x = lane id as f32.
#include "InterpTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace xtc;
using namespace xtc::interp;
using namespace xtc::interp::test;

namespace {
const ElemKind F32 = ElemKind::F32;
}

TEST(InterpLane, CrossLaneOpsAndRegisters) {
  // out[lane][0..3] = {shuffle(x, (lane+1)%16), reduce_add(x), broadcast(x, 3), fma(x, x, 1)}
  KernelBuilder kb({"out", "in"}, {Type::memref({16, 4}, F32), Type::memref({20}, F32)});
  kb.kernel->setAttr("sg_size", ir::Attribute::integer(16));
  kb.kernel->setAttr("wg_size", ir::Attribute::intArray({16, 1, 1}));
  kb.kernel->setAttr("target", ir::Attribute::string("generic"));
  Value* lane = kb.op("gpu.lane_id", {}, Type::index());
  Value* x = kb.op("arith.convert", {lane}, Type::scalar(F32));
  Value* next = kb.op("arith.remsi", {kb.op("arith.addi", {lane, kb.idx(1)}, Type::index()), kb.idx(16)}, Type::index());
  Value* sh = kb.op("lane.shuffle", {x, next}, Type::scalar(F32));
  Value* red = kb.op("lane.reduce", {x}, Type::scalar(F32), {{"kind", ir::Attribute::enumValue("reduce", "add")}});
  Value* bc = kb.op("lane.broadcast", {x, kb.idx(3)}, Type::scalar(F32));
  Value* fm = kb.op("lane.fma", {x, x, kb.b.constantFloat(1.0, F32)}, Type::scalar(F32));
  Value* v = kb.op("vector.from_elements", {sh, red, bc, fm}, Type::vector({4}, F32));
  // Replace register 2 with a masked, padded load: in[lane + 10] for lanes < 8 (else padding 9),
  // out of bounds (index >= 20) also gives the padding.
  Value* idx = kb.op("arith.addi", {lane, kb.idx(10)}, Type::index());
  Value* mask = kb.op("arith.cmpi", {lane, kb.idx(8)}, Type::scalar(ElemKind::I1), {{"predicate", ir::Attribute::enumValue("cmpi", "slt")}});
  Value* ld = kb.op("lane.load", {kb.arg(1), idx, mask}, Type::scalar(F32), {{"padding", ir::Attribute::floating(9.0)}});
  v = kb.op("vector.insert", {ld, v}, Type::vector({4}, F32), {{"index", ir::Attribute::integer(2)}});
  for (int k = 0; k < 4; ++k) {
    Value* e = kb.op("vector.extract", {v}, Type::scalar(F32), {{"index", ir::Attribute::integer(k)}});
    kb.b.create("lane.store", {e, kb.arg(0), lane, kb.idx(k)}, {});
  }
  kb.finish();
  std::vector<double> in(20);
  for (int i = 0; i < 20; ++i) in[i] = 100 + i;
  KernelArgs args{{buf(F32, {16, 4}), buf(F32, {20}, in)}};
  RunStats st;
  RunResult r = run(kb, args, {}, &st);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_TRUE(st.laneLevel);
  const Buffer& out = args.args[0].buffer;
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(out.getFloat(l * 4 + 0), (l + 1) % 16) << l;
    EXPECT_EQ(out.getFloat(l * 4 + 1), 120) << l;
    EXPECT_EQ(out.getFloat(l * 4 + 2), l < 8 ? 110 + l : 9) << l;
    EXPECT_EQ(out.getFloat(l * 4 + 3), l * l + 1) << l;
  }
}

namespace {
// A generic-target lane-level kernel builder with 16 lanes and %lane = gpu.lane_id.
struct LaneKernel {
  KernelBuilder kb;
  Value* lane;
  explicit LaneKernel(const std::vector<std::string>& names, const std::vector<Type>& types) : kb(names, types) {
    kb.kernel->setAttr("sg_size", ir::Attribute::integer(16));
    kb.kernel->setAttr("wg_size", ir::Attribute::intArray({16, 1, 1}));
    kb.kernel->setAttr("target", ir::Attribute::string("generic"));
    lane = kb.op("gpu.lane_id", {}, Type::index());
  }
};
}  // namespace

TEST(InterpLane, DivergentLoopRunsEachLanesTripCount) {
  // for i in [0, lane): acc += i + 1; cnt[lane] = i + 1. Lane l ends with acc = l (l + 1) / 2 and
  // cnt = l; lane 0 never runs the body (cnt keeps its 99).
  LaneKernel k({"out", "cnt"}, {Type::memref({16}, F32), Type::memref({16}, F32)});
  KernelBuilder& kb = k.kb;
  ir::Operation* loop = kb.b.create("scf.for", {kb.idx(0), k.lane, kb.idx(1), kb.b.constantFloat(0.0, F32)}, {Type::scalar(F32)}, {}, 1);
  ir::Block& body = loop->region(0).addBlock();
  Value* iv = body.addArgument(Type::index());
  Value* acc = body.addArgument(Type::scalar(F32));
  ir::Builder bb(&body);
  Value* i1 = bb.create("arith.addi", {iv, bb.constantIndex(1)}, {Type::index()})->result();
  Value* f = bb.create("arith.convert", {i1}, {Type::scalar(F32)})->result();
  Value* n = bb.create("arith.addf", {acc, f}, {Type::scalar(F32)})->result();
  bb.create("lane.store", {f, kb.arg(1), k.lane}, {});
  bb.create("scf.yield", {n}, {});
  kb.b.create("lane.store", {loop->result(0), kb.arg(0), k.lane}, {});
  kb.finish();
  KernelArgs args{{buf(F32, {16}), buf(F32, {16}, std::vector<double>(16, 99.0))}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  for (int l = 0; l < 16; ++l) {
    EXPECT_EQ(args.args[0].buffer.getFloat(l), l * (l + 1) / 2) << l;
    EXPECT_EQ(args.args[1].buffer.getFloat(l), l == 0 ? 99 : l) << l;
  }
}

TEST(InterpLane, DivergentIfGivesEachLaneItsBranch) {
  // d = lane - 3; q = d != 0 ? 12 / d : 100. Lane 3 takes the else branch, so the division by zero
  // in the then branch never happens for it.
  LaneKernel k({"out"}, {Type::memref({16}, F32)});
  KernelBuilder& kb = k.kb;
  Value* d = kb.op("arith.subi", {k.lane, kb.idx(3)}, Type::index());
  Value* c = kb.op("arith.cmpi", {d, kb.idx(0)}, Type::scalar(ElemKind::I1), {{"predicate", ir::Attribute::enumValue("cmpi", "ne")}});
  kb.b.setLoc(kb.loc(8, 4));
  ir::Operation* iff = kb.b.create("scf.if", {c}, {Type::index()}, {}, 2);
  ir::Builder tb(&iff->region(0).addBlock());
  tb.create("scf.yield", {tb.create("arith.divsi", {tb.constantIndex(12), d}, {Type::index()})->result()}, {});
  ir::Builder eb(&iff->region(1).addBlock());
  eb.create("scf.yield", {eb.constantIndex(100)}, {});
  kb.b.create("lane.store", {kb.op("arith.convert", {iff->result(0)}, Type::scalar(F32)), kb.arg(0), k.lane}, {});
  kb.finish();
  KernelArgs args{{buf(F32, {16})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  for (int l = 0; l < 16; ++l) EXPECT_EQ(args.args[0].buffer.getFloat(l), l == 3 ? 100 : 12 / (l - 3)) << l;
}

TEST(InterpLane, ConvergentOpInDivergentCodeIsReported) {
  // A subgroup reduction inside `if lane < 4`: the other 12 lanes never reach it.
  LaneKernel k({"out"}, {Type::memref({16}, F32)});
  KernelBuilder& kb = k.kb;
  Value* c = kb.op("arith.cmpi", {k.lane, kb.idx(4)}, Type::scalar(ElemKind::I1), {{"predicate", ir::Attribute::enumValue("cmpi", "slt")}});
  ir::Operation* iff = kb.b.create("scf.if", {c}, {}, {}, 2);
  ir::Builder tb(&iff->region(0).addBlock());
  tb.setLoc(kb.loc(6, 2));
  Value* x = tb.create("arith.convert", {k.lane}, {Type::scalar(F32)})->result();
  tb.create("lane.reduce", {x}, {Type::scalar(F32)}, {{"kind", ir::Attribute::enumValue("reduce", "add")}});
  tb.create("scf.yield", {}, {});
  kb.finish();
  KernelArgs args{{buf(F32, {16})}};
  RunResult r = run(kb, args);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("k.xt:6:2: error: 'lane.reduce' needs every lane of the subgroup, but it is inside lane-divergent control flow "
                         "(lane 4, 5, 6, 7, ... (12 lanes) inactive here)"),
            std::string::npos)
      << r.diags;
}

TEST(InterpLane, ShuffleFromAMissingLaneIsUndefinedNotAnError) {
  // y = shuffle(x, 2 lane): lanes 0-7 read lane 2l; lanes 8-15 name lanes 16..30, which do not
  // exist: an undefined value (NaN here) that lowerings select away, not an error.
  LaneKernel k({"out"}, {Type::memref({16}, F32)});
  KernelBuilder& kb = k.kb;
  Value* x = kb.op("arith.convert", {k.lane}, Type::scalar(F32));
  Value* src = kb.op("arith.muli", {k.lane, kb.idx(2)}, Type::index());
  Value* y = kb.op("lane.shuffle", {x, src}, Type::scalar(F32));
  kb.b.create("lane.store", {y, kb.arg(0), k.lane}, {});
  kb.finish();
  KernelArgs args{{buf(F32, {16})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  for (int l = 0; l < 16; ++l) {
    if (l < 8) EXPECT_EQ(args.args[0].buffer.getFloat(l), 2 * l) << l;
    else EXPECT_TRUE(std::isnan(args.args[0].buffer.getFloat(l))) << l;
  }
}
