// LoopCoords (backends/spirv/LoopCoords.h): the coordinates of a loop body as base + constant and
// the step of each base, on a hand-written loop. Expected values by hand from the IR below: x is
// yielded as x + 32 (step 32), the induction variable j steps by the loop's 32, z is yielded as
// z * 4 (no constant step), and %row is defined outside (step 0).
#include "backends/spirv/LoopCoords.h"

#include "ir/Parser.h"
#include "ir/ops/Ops.h"

#include <gtest/gtest.h>

#include <sstream>

namespace xtc::backend {
namespace {

const char* kLoop = R"(builtin.module {
  xtc.kernel @k(%X: memref<?x?xf32>) {arg_names = ["X"], sg_size = 16, target = "pvc", wg_size = [16, 1, 1]} launch {
    %g = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %g, %g, %g : (index, index, index) -> ()
  } body {
    %c0 = arith.constant {value = 0 : index} : () -> (index)
    %c4 = arith.constant {value = 4 : index} : () -> (index)
    %c32 = arith.constant {value = 32 : index} : () -> (index)
    %n = memref.dim %X {index = 1} : (memref<?x?xf32>) -> (index)
    %row = gpu.group_id {dim = 0} : () -> (index)
    %row8 = arith.addi %row, %c4 : (index, index) -> (index)
    %o1, %o2 = scf.for %c0, %n, %c32, %c0, %c0 : (index, index, index, index, index) -> (index, index) ({
    ^bb0(%j: index, %x: index, %z: index):
      %a = arith.convert %x : (index) -> (i32)
      %c16 = arith.constant {value = 16 : index} : () -> (index)
      %b = arith.addi %x, %c16 : (index, index) -> (index)
      %bi = arith.convert %b : (index) -> (i32)
      %d = arith.subi %j, %c4 : (index, index) -> (index)
      %e = arith.addi %row8, %c16 : (index, index) -> (index)
      %f = arith.muli %x, %c4 : (index, index) -> (index)
      %s = arith.subi %c16, %x : (index, index) -> (index)
      %x2 = arith.addi %x, %c32 : (index, index) -> (index)
      %z2 = arith.muli %z, %c4 : (index, index) -> (index)
      scf.yield %x2, %z2 : (index, index) -> ()
    })
    xtc.return : () -> ()
  }
})";

class LoopCoords : public ::testing::Test {
 protected:
  void SetUp() override {
    ir::registerAllOps();
    module_ = ir::parseModule("t.ir", kLoop, diags_);
    ASSERT_TRUE(module_) << out_.str();
    module_->walk([&](ir::Operation* op) {
      if (op->is("scf.for")) loop_ = op;
      if (op->is("gpu.group_id")) row_ = op->result();
    });
    ASSERT_NE(loop_, nullptr);
    for (ir::Operation* op : loop_->region(0).block().opsSnapshot()) body_.push_back(op);
  }
  // The result of the body's op number i (in the order above).
  const ir::Value* r(size_t i) const { return body_.at(i)->result(); }
  const ir::Value* arg(unsigned i) const { return loop_->region(0).block().argument(i); }

  SourceManager sm_;
  std::ostringstream out_;
  DiagnosticEngine diags_{sm_, out_};
  std::unique_ptr<ir::Operation> module_;
  ir::Operation* loop_ = nullptr;
  const ir::Value* row_ = nullptr;  // %row
  std::vector<ir::Operation*> body_;
};

TEST_F(LoopCoords, BodyValuesAreBasePlusConstant) {
  std::optional<Sym> a = bodySym(r(0), *loop_), bi = bodySym(r(3), *loop_), d = bodySym(r(4), *loop_);
  ASSERT_TRUE(a && bi && d);
  EXPECT_EQ(a->base, arg(1));  // convert(x)
  EXPECT_EQ(a->off, 0);
  EXPECT_EQ(bi->base, arg(1));  // convert(x + 16)
  EXPECT_EQ(bi->off, 16);
  EXPECT_EQ(d->base, arg(0));  // j - 4
  EXPECT_EQ(d->off, -4);
  // (row + 4) + 16 inside the loop: the outer base %row, through the outer add.
  std::optional<Sym> e = bodySym(r(5), *loop_);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->base, row_);
  EXPECT_EQ(e->off, 20);
  std::optional<Sym> c16 = bodySym(r(1), *loop_);
  ASSERT_TRUE(c16);
  EXPECT_EQ(c16->base, nullptr);
  EXPECT_EQ(c16->off, 16);
  EXPECT_FALSE(bodySym(r(6), *loop_));  // x * 4
  EXPECT_FALSE(bodySym(r(7), *loop_));  // 16 - x: a base subtracted
}

TEST_F(LoopCoords, StepsOfTheBases) {
  EXPECT_EQ(baseStep(arg(0), *loop_), 32);  // the induction variable: the loop's step
  EXPECT_EQ(baseStep(arg(1), *loop_), 32);  // x, yielded as x + 32
  EXPECT_EQ(baseStep(arg(2), *loop_), std::nullopt);  // z, yielded as z * 4
  EXPECT_EQ(baseStep(nullptr, *loop_), 0);            // a constant
  std::optional<Sym> e = bodySym(r(5), *loop_);
  ASSERT_TRUE(e);
  EXPECT_EQ(baseStep(e->base, *loop_), 0);  // defined outside
}

TEST(LoopCoordsAlgebra, AddSymsKeepsOneBase) {
  int dummy = 0;
  auto* v = reinterpret_cast<const ir::Value*>(&dummy);  // identity only
  std::optional<Sym> s = addSyms(Sym{nullptr, 5}, Sym{v, 3}, false);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->base, v);
  EXPECT_EQ(s->off, 8);
  s = addSyms(Sym{v, 3}, Sym{nullptr, 5}, true);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->off, -2);
  // A dword coordinate (x / 2 of a transposed d32 message): the constant is added after the division.
  s = addSyms(Sym{v, 4, 2, 0}, Sym{nullptr, 1}, false);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->div, 2);
  EXPECT_EQ(s->off, 4);
  EXPECT_EQ(s->post, 1);
  EXPECT_FALSE(addSyms(Sym{v, 0}, Sym{v, 0}, false));        // two bases
  EXPECT_FALSE(addSyms(Sym{nullptr, 1}, Sym{v, 0}, true));   // a base subtracted
  EXPECT_EQ(carriedStep(v, Sym{v, 32}), 32);
  EXPECT_EQ(carriedStep(v, Sym{nullptr, 32}), std::nullopt);  // not the argument itself
  EXPECT_EQ(carriedStep(v, std::nullopt), std::nullopt);
}

}  // namespace
}  // namespace xtc::backend
