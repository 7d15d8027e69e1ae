// Tests of the IR core through its public API: building, use lists and RAUW, erasing, block
// arguments and cloning ops with regions.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/Printer.h"

#include <gtest/gtest.h>

namespace xtc::ir {
namespace {

TEST(IrCore, BuildKernelAndUseLists) {
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {"n"}, {Type::index()}, {});
  Builder b(&kernelBody(k));
  Value* n = kernelBody(k).argument(0);
  Value* c = b.constantIndex(4);
  Operation* add = b.create("arith.addi", {n, c}, {Type::index()});
  Operation* mul = b.create("arith.muli", {add->result(), add->result()}, {Type::index()});
  EXPECT_EQ(n->uses().size(), 1u);
  ASSERT_EQ(add->result()->uses().size(), 2u);
  EXPECT_EQ(add->result()->uses()[0].user, mul);
  EXPECT_EQ(add->result()->uses()[1].index, 1u);
  EXPECT_EQ(mul->parentOp(), k);
  EXPECT_EQ(k->parentOp(), m.get());
  EXPECT_TRUE(m->isAncestorOf(mul));
  EXPECT_FALSE(mul->isAncestorOf(k));
  EXPECT_EQ(kernelName(k), "k");
  EXPECT_EQ(moduleKernels(m.get()).size(), 1u);
}

TEST(IrCore, ReplaceAllUsesWithAndErase) {
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {"n"}, {Type::index()}, {});
  Builder b(&kernelBody(k));
  Value* n = kernelBody(k).argument(0);
  Value* c0 = b.constantIndex(0);
  Operation* add = b.create("arith.addi", {n, c0}, {Type::index()});
  Operation* use1 = b.create("arith.muli", {add->result(), n}, {Type::index()});
  add->result()->replaceAllUsesWith(n);
  EXPECT_FALSE(add->result()->hasUses());
  EXPECT_EQ(use1->operand(0), n);
  EXPECT_EQ(n->uses().size(), 3u);  // add's operand, use1's two operands
  add->erase();
  EXPECT_EQ(n->uses().size(), 2u);
  EXPECT_EQ(kernelBody(k).size(), 2u);
  EXPECT_FALSE(c0->hasUses());  // its only user was the erased addi
}

TEST(IrCore, EraseUsedResultThrows) {
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {}, {}, {});
  Builder b(&kernelBody(k));
  Value* c = b.constantIndex(1);
  b.create("arith.addi", {c, c}, {Type::index()});
  EXPECT_THROW(c->definingOp()->erase(), std::logic_error);
}

TEST(IrCore, BlockArguments) {
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {"a", "b"}, {Type::index(), Type::scalar(ElemKind::F32)}, {});
  Block& body = kernelBody(k);
  ASSERT_EQ(body.numArguments(), 2u);
  EXPECT_EQ(body.argument(1)->type(), Type::scalar(ElemKind::F32));
  EXPECT_EQ(body.argument(1)->nameHint(), "b");
  Value* x = body.insertArgument(1, Type::scalar(ElemKind::I8));
  EXPECT_EQ(x->index(), 1u);
  EXPECT_EQ(body.argument(2)->index(), 2u);
  EXPECT_TRUE(x->isBlockArgument());
  EXPECT_EQ(x->ownerBlock(), &body);
  body.eraseArgument(1);
  EXPECT_EQ(body.numArguments(), 2u);
  EXPECT_EQ(body.argument(1)->nameHint(), "b");
}

TEST(IrCore, CloneWithRegionsRemapsInnerValues) {
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {"n"}, {Type::index()}, {});
  Builder b(&kernelBody(k));
  Value* n = kernelBody(k).argument(0);
  Value* c0 = b.constantIndex(0);
  Value* c1 = b.constantIndex(1);
  Operation* loop = b.create("scf.for", {c0, n, c1, c0}, {Type::index()}, {}, 1);
  Block& lb = loop->region(0).addBlock();
  Value* iv = lb.addArgument(Type::index());
  Value* acc = lb.addArgument(Type::index());
  acc->setNameHint("acc");
  Builder ib(&lb);
  Operation* sum = ib.create("arith.addi", {acc, iv}, {Type::index()});
  Operation* sum2 = ib.create("arith.addi", {sum->result(), n}, {Type::index()});
  ib.create("scf.yield", {sum2->result()}, {});

  IRMapping map;
  auto copy = loop->clone(map);
  ASSERT_EQ(copy->numRegions(), 1u);
  Block& cb = copy->region(0).block();
  ASSERT_EQ(cb.numArguments(), 2u);
  EXPECT_EQ(cb.argument(1)->nameHint(), "acc");
  Operation* csum = cb.front();
  // Inner values are remapped to the copy's; values from outside stay shared.
  EXPECT_EQ(csum->operand(0), cb.argument(1));
  EXPECT_EQ(csum->operand(1), cb.argument(0));
  EXPECT_EQ(csum->nextInBlock()->operand(0), csum->result());
  EXPECT_EQ(csum->nextInBlock()->operand(1), n);
  EXPECT_EQ(copy->operand(1), n);
  EXPECT_EQ(map.lookup(loop->result()), copy->result());
  EXPECT_EQ(cb.back()->operand(0), csum->nextInBlock()->result());
  // The original is untouched.
  EXPECT_EQ(sum->operand(0), acc);
  kernelBody(k).push_back(std::move(copy));
  EXPECT_EQ(kernelBody(k).size(), 4u);  // two constants, the loop and its copy
}

TEST(IrCore, MoveBeforeAndAfter) {
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {}, {}, {});
  Builder b(&kernelBody(k));
  Operation* a = b.constantIndex(1)->definingOp();
  Operation* c = b.constantIndex(2)->definingOp();
  Operation* d = b.constantIndex(3)->definingOp();
  d->moveBefore(a);
  EXPECT_EQ(kernelBody(k).front(), d);
  a->moveAfter(c);
  EXPECT_EQ(kernelBody(k).back(), a);
  EXPECT_EQ(c->prevInBlock(), d);
}

}  // namespace
}  // namespace xtc::ir
