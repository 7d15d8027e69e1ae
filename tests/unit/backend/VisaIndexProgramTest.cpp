// VisaIndexProgram (backends/spirv/VisaIndexProgram.h): the affine forms of a whole-loop asm's index
// math, what is folded, what is computed, what is refused. Expected instruction texts written by
// hand from the forms (RFC 2.4's ring stage: ((k / 32) % 4) * 8192 + invariant, in bytes).
#include "backends/spirv/VisaIndexProgram.h"

#include <gtest/gtest.h>

namespace xtc::backend {
namespace {

using Root = VisaIndexProgram::Root;
using Aff = VisaIndexProgram::Aff;

std::string operandText(const Root& r) { return r.kind == Root::Kind::Counter ? "K" : "OUT"; }

std::string program(const VisaIndexProgram& p) {
  std::string s;
  for (size_t i = 0; i < p.insts().size(); ++i) s += (p.insts()[i].invariant ? "inv: " : "") + p.text(i, "v", operandText);
  return s;
}

TEST(VisaIndexProgram, RingStageAddressIsShiftMaskShiftAdd) {
  VisaIndexProgram p(4095);  // k in [0, 4096)
  int dummy = 0;  // stands for the SLM buffer (an outer value): only its identity matters
  auto* buffer = reinterpret_cast<const ir::Value*>(&dummy);
  Aff k = VisaIndexProgram::counter();
  std::optional<Aff> stage = p.div(k, VisaIndexProgram::constant(32));
  ASSERT_TRUE(stage);
  stage = p.rem(*stage, VisaIndexProgram::constant(4));
  ASSERT_TRUE(stage);
  // stage * 32 / 16 * 4096: exact divisions of a multiple fold into the coefficient (8192).
  std::optional<Aff> a = p.mul(*stage, VisaIndexProgram::constant(32));
  a = p.div(*a, VisaIndexProgram::constant(16));
  ASSERT_TRUE(a);
  a = p.mul(*a, VisaIndexProgram::constant(4096));
  ASSERT_EQ(a->terms.size(), 1u);
  EXPECT_EQ(a->terms[0].second, 8192);
  a = p.add(*a, VisaIndexProgram::constant(128));
  Root base = p.scaled(*a, 2, buffer);  // bytes of f16, plus the buffer
  EXPECT_EQ(a->add * 2, 256);           // the message's own constant, added per message
  EXPECT_EQ(base.kind, Root::Kind::Inst);
  EXPECT_EQ(program(p),
            "shr (M1_NM,1) vi0(0,0)<1> K 5:d\n"
            "and (M1_NM,1) vi1(0,0)<1> vi0(0,0)<0;1,0> 3:d\n"
            "shl (M1_NM,1) vi2(0,0)<1> vi1(0,0)<0;1,0> 14:d\n"
            "add (M1_NM,1) vi3(0,0)<1> OUT vi2(0,0)<0;1,0>\n");
}

TEST(VisaIndexProgram, InvariantTermsAreSummedFirstAndOnce) {
  VisaIndexProgram p(127);
  int dummy[2];
  auto* x = reinterpret_cast<const ir::Value*>(&dummy[0]);  // two distinct outer values (identity only)
  auto* y = reinterpret_cast<const ir::Value*>(&dummy[1]);
  std::optional<Aff> a = p.add(*p.mul(p.outer(x), VisaIndexProgram::constant(512)),
                               *p.rem(VisaIndexProgram::counter(), VisaIndexProgram::constant(8)));
  ASSERT_TRUE(a);
  Root r1 = p.scaled(*a, 2, y);
  Root r2 = p.scaled(*a, 2, y);  // the same base again: no new instruction
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(program(p),
            "and (M1_NM,1) vi0(0,0)<1> K 7:d\n"
            "inv: shl (M1_NM,1) vi1(0,0)<1> OUT 10:d\n"
            "inv: add (M1_NM,1) vi2(0,0)<1> vi1(0,0)<0;1,0> OUT\n"
            "shl (M1_NM,1) vi3(0,0)<1> vi0(0,0)<0;1,0> 1:d\n"
            "add (M1_NM,1) vi4(0,0)<1> vi2(0,0)<0;1,0> vi3(0,0)<0;1,0>\n");
}

TEST(VisaIndexProgram, DivisionNeedsAKnownNonNegativeRange) {
  int dummy = 0;
  auto* x = reinterpret_cast<const ir::Value*>(&dummy);
  VisaIndexProgram known(1000), unknown(std::nullopt);
  // An outer value may be negative: no shift stands for its division or remainder.
  EXPECT_FALSE(known.div(known.outer(x), VisaIndexProgram::constant(4)));
  EXPECT_FALSE(known.rem(known.outer(x), VisaIndexProgram::constant(4)));
  // A counter without constant bounds: neither.
  EXPECT_FALSE(unknown.div(VisaIndexProgram::counter(), VisaIndexProgram::constant(4)));
  // Not a power of two: no single instruction.
  EXPECT_FALSE(known.div(VisaIndexProgram::counter(), VisaIndexProgram::constant(3)));
  EXPECT_FALSE(known.rem(VisaIndexProgram::counter(), VisaIndexProgram::constant(6)));
  // Below the divisor already: the remainder is the value itself, no instruction.
  std::optional<Aff> small = known.rem(VisaIndexProgram::counter(), VisaIndexProgram::constant(1024));
  ASSERT_TRUE(small);
  EXPECT_TRUE(known.insts().empty());
  // A product of two variables is refused.
  EXPECT_FALSE(known.mul(VisaIndexProgram::counter(), known.outer(x)));
  // Division by zero or a negative constant is refused.
  EXPECT_FALSE(known.div(VisaIndexProgram::counter(), VisaIndexProgram::constant(0)));
  EXPECT_FALSE(known.rem(VisaIndexProgram::counter(), VisaIndexProgram::constant(-4)));
}

TEST(VisaIndexProgram, SubtractionCancelsTerms) {
  VisaIndexProgram p(100);
  std::optional<Aff> a = p.add(VisaIndexProgram::counter(), VisaIndexProgram::constant(5));
  std::optional<Aff> d = p.sub(*a, VisaIndexProgram::counter());
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->terms.empty());
  EXPECT_EQ(d->add, 5);
}

}  // namespace
}  // namespace xtc::backend
