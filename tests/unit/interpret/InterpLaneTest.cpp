// Interpreter: lane-level IR (lane.* and vector register ops), the 16 lanes of a subgroup running
// in lockstep. Expected values by hand: x = lane id as f32.
#include "InterpTestUtil.h"

#include <gtest/gtest.h>

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

TEST(InterpLane, DivergentLoopBoundIsReported) {
  KernelBuilder kb({"out"}, {Type::memref({16}, F32)});
  kb.kernel->setAttr("sg_size", ir::Attribute::integer(16));
  kb.kernel->setAttr("target", ir::Attribute::string("generic"));
  Value* lane = kb.op("gpu.lane_id", {}, Type::index());
  kb.b.setLoc(kb.loc(6, 2));
  ir::Operation* loop = kb.b.create("scf.for", {kb.idx(0), lane, kb.idx(1)}, {}, {}, 1);
  ir::Block& body = loop->region(0).addBlock();
  body.addArgument(Type::index());
  ir::Builder(&body).create("scf.yield", {}, {});
  kb.finish();
  KernelArgs args{{buf(F32, {16})}};
  RunResult r = run(kb, args);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("k.xt:6:2: error: operand 1 differs between the lanes of a subgroup (lane 0: 0, lane 1: 1)"), std::string::npos)
      << r.diags;
}
