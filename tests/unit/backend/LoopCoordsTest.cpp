// LoopCoords (backends/spirv/LoopCoords.h): the coordinates of a loop body as base + constant and
// the step of each base, on a hand-written loop. Expected values by hand from the IR below: x is
// yielded as x + 32 (step 32), the induction variable j steps by the loop's 32, z is yielded as
// z * 4 (no constant step), and %row is defined outside (step 0).
#include "backends/spirv/LoopCoords.h"

#include "ir/Parser.h"
#include "ir/ops/Ops.h"

#include <gtest/gtest.h>

#include <map>
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

// constantDifference (Dg2VisaFmaLoop.cpp's derived lane-read addresses, issue 10) on a second loop:
// x and y carried from 0 and 8, both + 32 a step; w from 0, + 16 a step. Expected by hand.
const char* kTwoWalks = R"(builtin.module {
  xtc.kernel @k(%X: memref<?x?xf32>) {arg_names = ["X"], sg_size = 8, target = "dg2", wg_size = [8, 1, 1]} launch {
    %g = arith.constant {value = 1 : index} : () -> (index)
    xtc.grid %g, %g, %g : (index, index, index) -> ()
  } body {
    %c0 = arith.constant {value = 0 : index} : () -> (index)
    %c4 = arith.constant {value = 4 : index} : () -> (index)
    %c8 = arith.constant {value = 8 : index} : () -> (index)
    %c16 = arith.constant {value = 16 : index} : () -> (index)
    %c32 = arith.constant {value = 32 : index} : () -> (index)
    %n = memref.dim %X {index = 1} : (memref<?x?xf32>) -> (index)
    %lane = gpu.lane_id : () -> (index)
    %row = gpu.group_id {dim = 0} : () -> (index)
    %r0 = arith.addi %row, %lane : (index, index) -> (index)
    %l8 = arith.addi %lane, %c8 : (index, index) -> (index)
    %r8 = arith.addi %row, %l8 : (index, index) -> (index)
    %m4 = arith.muli %row, %c4 : (index, index) -> (index)
    %m4b = arith.muli %c4, %row : (index, index) -> (index)
    %m4c = arith.subi %m4b, %c16 : (index, index) -> (index)
    %lx = arith.ori %row, %lane : (index, index) -> (index)
    %o1, %o2, %o3 = scf.for %c0, %n, %c32, %c0, %c8, %c0 : (index, index, index, index, index, index) -> (index, index, index) ({
    ^bb0(%j: index, %x: index, %y: index, %w: index):
      %x2 = arith.addi %x, %c32 : (index, index) -> (index)
      %y2 = arith.addi %y, %c32 : (index, index) -> (index)
      %w2 = arith.addi %w, %c16 : (index, index) -> (index)
      scf.yield %x2, %y2, %w2 : (index, index, index) -> ()
    })
    xtc.return : () -> ()
  }
})";

TEST(LoopCoordsDifference, ConstantOnlyWhenProven) {
  ir::registerAllOps();
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags{sm, out};
  std::unique_ptr<ir::Operation> module = ir::parseModule("t.ir", kTwoWalks, diags);
  ASSERT_TRUE(module) << out.str();
  ir::Operation* loop = nullptr;
  std::vector<const ir::Value*> outside;  // the body's values before the loop but its constants, in order
  module->walk([&](ir::Operation* op) {
    if (op->is("scf.for")) loop = op;
    else if (!op->is("arith.constant") && op->numResults() == 1 && !op->parentOp()->is("scf.for")) outside.push_back(op->result());
  });
  ASSERT_NE(loop, nullptr);
  // n, lane, row, r0, l8, r8, m4, m4b, m4c, lx
  ASSERT_EQ(outside.size(), 10u);
  const ir::Value *lane = outside[1], *row = outside[2], *r0 = outside[3], *r8 = outside[5], *m4 = outside[6], *m4b = outside[7],
                  *m4c = outside[8], *lx = outside[9];
  const ir::Block& body = loop->region(0).block();
  const ir::Value *x = body.argument(1), *y = body.argument(2), *w = body.argument(3);
  // row + (lane + 8) + 3 and row + lane: 11 (the two lane reads' rows of a tile, a constant apart).
  EXPECT_EQ(constantDifference(Sym{r8, 3}, Sym{r0, 0}), 11);
  EXPECT_EQ(constantDifference(Sym{r0, 0}, Sym{r8, 0}), -8);
  // row * 4 against 4 * row - 16 (a muli by a constant either side; a subi).
  EXPECT_EQ(constantDifference(Sym{m4, 0}, Sym{m4c, 0}), 16);
  // Not proven: row against lane, row * 4 against row, row | lane against row + lane (ori is a term).
  EXPECT_EQ(constantDifference(Sym{row, 0}, Sym{lane, 0}), std::nullopt);
  EXPECT_EQ(constantDifference(Sym{m4b, 0}, Sym{row, 0}), std::nullopt);
  EXPECT_EQ(constantDifference(Sym{lx, 0}, Sym{r0, 0}), std::nullopt);
  // Carried: y - x = 8 in every iteration (the same step), only when the loop is given; w steps by 16.
  EXPECT_EQ(constantDifference(Sym{y, 0}, Sym{x, 0}, loop), 8);
  EXPECT_EQ(constantDifference(Sym{y, 0}, Sym{x, 0}), std::nullopt);
  EXPECT_EQ(constantDifference(Sym{w, 0}, Sym{x, 0}, loop), std::nullopt);
  // A dword coordinate (div 2) is never compared.
  EXPECT_EQ(constantDifference(Sym{r0, 0, 2, 0}, Sym{r0, 0, 2, 0}), std::nullopt);
}

}  // namespace
}  // namespace xtc::backend
