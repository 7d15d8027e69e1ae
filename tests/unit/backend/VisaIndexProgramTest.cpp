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

// Only the instructions `used` needs, as VisaLoop writes them.
std::string liveProgram(const VisaIndexProgram& p, const std::vector<Root>& used) {
  std::vector<bool> live = p.live(used);
  std::string s;
  for (size_t i = 0; i < p.insts().size(); ++i)
    if (live[i]) s += (p.insts()[i].invariant ? "inv: " : "") + p.text(i, "v", operandText);
  return s;
}

// Runs the program as 32-bit registers do (two's complement, shifts of the 32 bits, shr logical)
// and returns root r's value; `outer` stands for every outer value.
int32_t run(const VisaIndexProgram& p, const Root& r, uint32_t k, uint32_t outer) {
  std::vector<uint32_t> v;
  auto val = [&](const Root& x, int64_t imm) -> uint32_t {
    switch (x.kind) {
      case Root::Kind::None: return static_cast<uint32_t>(imm);
      case Root::Kind::Counter: return k;
      case Root::Kind::Outer: return outer;
      case Root::Kind::Inst: return v.at(static_cast<size_t>(x.inst));
    }
    return 0;
  };
  for (const VisaIndexProgram::Inst& in : p.insts()) {
    uint32_t a = val(in.a, 0), b = val(in.b, in.imm);
    std::string op = in.opcode;
    v.push_back(op == "add" ? a + b : op == "mul" ? a * b : op == "and" ? a & b : op == "shl" ? a << (b & 31) : op == "shr" ? a >> (b & 31) : 0xdeadbeef);
  }
  return static_cast<int32_t>(val(r, 0));
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
  // The stage scaled by 2^14 as a bit field of k: bits 5-6 of k at 14-15; the remainder's own shr
  // and and are written by rem() but nothing uses them.
  EXPECT_EQ(program(p),
            "shr (M1_NM,1) vi0(0,0)<1> K 5:d\n"
            "and (M1_NM,1) vi1(0,0)<1> vi0(0,0)<0;1,0> 3:d\n"
            "shl (M1_NM,1) vi2(0,0)<1> K 9:d\n"
            "and (M1_NM,1) vi3(0,0)<1> vi2(0,0)<0;1,0> 49152:d\n"
            "add (M1_NM,1) vi4(0,0)<1> OUT vi3(0,0)<0;1,0>\n");
  EXPECT_EQ(liveProgram(p, {base}),
            "shl (M1_NM,1) vi2(0,0)<1> K 9:d\n"
            "and (M1_NM,1) vi3(0,0)<1> vi2(0,0)<0;1,0> 49152:d\n"
            "add (M1_NM,1) vi4(0,0)<1> OUT vi3(0,0)<0;1,0>\n");
}

// RFC 2.4's four ring bases: the stage (k / 32) % 4 and the refilled stage (k / 32 + 3) % 4, each
// at 2^14 (A) and 2^10 (B) bytes per stage. One shl of k, an and per stage (the refilled one after
// an add of 3 << 14), the 2^10 scales shifted from the 2^14 ones: 6 instructions and the 4 adds of
// the buffers, where scaling the remainders took shr, and, add, and and 4 shl.
TEST(VisaIndexProgram, RingStagesScaleAsBitFieldsOfTheCounter) {
  VisaIndexProgram p(4095);
  int dummy[4];
  const ir::Value* buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = reinterpret_cast<const ir::Value*>(&dummy[i]);
  Aff q = *p.div(VisaIndexProgram::counter(), VisaIndexProgram::constant(32));
  Aff stage = *p.rem(q, VisaIndexProgram::constant(4));
  Aff next = *p.rem(*p.add(q, VisaIndexProgram::constant(3)), VisaIndexProgram::constant(4));
  std::vector<Root> used = {p.scaled(*p.mul(stage, VisaIndexProgram::constant(8192)), 2, buf[0]),
                            p.scaled(*p.mul(stage, VisaIndexProgram::constant(512)), 2, buf[1]),
                            p.scaled(*p.mul(next, VisaIndexProgram::constant(8192)), 2, buf[2]),
                            p.scaled(*p.mul(next, VisaIndexProgram::constant(512)), 2, buf[3])};
  EXPECT_EQ(liveProgram(p, used),
            "shl (M1_NM,1) vi4(0,0)<1> K 9:d\n"
            "and (M1_NM,1) vi5(0,0)<1> vi4(0,0)<0;1,0> 49152:d\n"
            "add (M1_NM,1) vi6(0,0)<1> OUT vi5(0,0)<0;1,0>\n"
            "shr (M1_NM,1) vi7(0,0)<1> vi5(0,0)<0;1,0> 4:d\n"
            "add (M1_NM,1) vi8(0,0)<1> OUT vi7(0,0)<0;1,0>\n"
            "add (M1_NM,1) vi9(0,0)<1> vi4(0,0)<0;1,0> 49152:d\n"
            "and (M1_NM,1) vi10(0,0)<1> vi9(0,0)<0;1,0> 49152:d\n"
            "add (M1_NM,1) vi11(0,0)<1> OUT vi10(0,0)<0;1,0>\n"
            "shr (M1_NM,1) vi12(0,0)<1> vi10(0,0)<0;1,0> 4:d\n"
            "add (M1_NM,1) vi13(0,0)<1> OUT vi12(0,0)<0;1,0>\n");
  // Against the kernel's formula for every k of the loop (any lower bound, any K) and an SLM base
  // that is not aligned to anything (the bit fields never touch the base's bits).
  for (uint32_t base : {0u, 0x10000000u, 0x10010000u, 0x1234567u})
    for (uint32_t k = 0; k < 4096; ++k) {
      int64_t s = k / 32 % 4, n = (k / 32 + 3) % 4;
      ASSERT_EQ(run(p, used[0], k, base), static_cast<int32_t>(base + s * 16384)) << k;
      ASSERT_EQ(run(p, used[1], k, base), static_cast<int32_t>(base + s * 1024)) << k;
      ASSERT_EQ(run(p, used[2], k, base), static_cast<int32_t>(base + n * 16384)) << k;
      ASSERT_EQ(run(p, used[3], k, base), static_cast<int32_t>(base + n * 1024)) << k;
    }
}

// The 2^10 scale first: the 2^14 one is shifted left from it. And the largest counter a
// constant-bound loop has (2^31 - 1): k << 9 drops k's top bits, which the mask drops anyway.
TEST(VisaIndexProgram, BitFieldScalesDeriveEitherWayAndHoldForTheWholeCounterRange) {
  VisaIndexProgram p((int64_t{1} << 31) - 1);
  Aff q = *p.div(VisaIndexProgram::counter(), VisaIndexProgram::constant(32));
  Aff next = *p.rem(*p.add(q, VisaIndexProgram::constant(3)), VisaIndexProgram::constant(4));
  Root lo = p.scaled(*p.mul(next, VisaIndexProgram::constant(1024)), 1, nullptr);
  Root hi = p.scaled(*p.mul(next, VisaIndexProgram::constant(16384)), 1, nullptr);
  EXPECT_EQ(liveProgram(p, {lo, hi}),
            "shl (M1_NM,1) vi3(0,0)<1> K 5:d\n"
            "add (M1_NM,1) vi4(0,0)<1> vi3(0,0)<0;1,0> 3072:d\n"
            "and (M1_NM,1) vi5(0,0)<1> vi4(0,0)<0;1,0> 3072:d\n"
            "shl (M1_NM,1) vi6(0,0)<1> vi5(0,0)<0;1,0> 4:d\n");
  for (uint32_t k : {0u, 31u, 32u, 96u, 127u, 128u, 4064u, 65535u, 0x7fffffe0u, 0x7fffffffu, 0x40000020u, 0x3ffffff0u}) {
    int64_t n = (static_cast<int64_t>(k) / 32 + 3) % 4;
    EXPECT_EQ(run(p, lo, k, 0), n * 1024) << k;
    EXPECT_EQ(run(p, hi, k, 0), n * 16384) << k;
  }
}

// Where the bit field would not be exact or not a field, the remainder is scaled as before.
TEST(VisaIndexProgram, BitFieldNeedsAScaleAtOrAboveTheShiftAndBelowBit31) {
  // A scale below the field's shift: (k >> 5) % 4 * 2 keeps the remainder's and, then shl 1.
  VisaIndexProgram low(4095);
  Aff s = *low.rem(*low.div(VisaIndexProgram::counter(), VisaIndexProgram::constant(32)), VisaIndexProgram::constant(4));
  Root r = low.scaled(s, 2, nullptr);
  EXPECT_EQ(liveProgram(low, {r}),
            "shr (M1_NM,1) vi0(0,0)<1> K 5:d\n"
            "and (M1_NM,1) vi1(0,0)<1> vi0(0,0)<0;1,0> 3:d\n"
            "shl (M1_NM,1) vi2(0,0)<1> vi1(0,0)<0;1,0> 1:d\n");
  // The mask would reach bit 31 (2 bits at 30): not a field scale.
  VisaIndexProgram high(4095);
  s = *high.rem(*high.div(VisaIndexProgram::counter(), VisaIndexProgram::constant(32)), VisaIndexProgram::constant(4));
  std::optional<Aff> big = high.mul(s, VisaIndexProgram::constant(int64_t{1} << 30));
  r = high.scaled(*big, 1, nullptr);
  EXPECT_EQ(liveProgram(high, {r}),
            "shr (M1_NM,1) vi0(0,0)<1> K 5:d\n"
            "and (M1_NM,1) vi1(0,0)<1> vi0(0,0)<0;1,0> 3:d\n"
            "shl (M1_NM,1) vi2(0,0)<1> vi1(0,0)<0;1,0> 30:d\n");
  // A remainder of the counter itself (no shr): k % 8 * 2 stays and, shl.
  VisaIndexProgram plain(127);
  r = plain.scaled(*plain.rem(VisaIndexProgram::counter(), VisaIndexProgram::constant(8)), 2, nullptr);
  EXPECT_EQ(liveProgram(plain, {r}),
            "and (M1_NM,1) vi0(0,0)<1> K 7:d\n"
            "shl (M1_NM,1) vi1(0,0)<1> vi0(0,0)<0;1,0> 1:d\n");
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
