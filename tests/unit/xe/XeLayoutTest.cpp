// The layouts the pvc passes assign (ir/passes/XeCommon.h) checked element by element against the
// per-lane tables of the reference (§2.3 block reads, §4 DPAS operands), written out here as
// formulas independent of ir/layout; and the xe.* op verifiers (ir/ops/XeOps.cpp).
#include "ir/ops/XeOps.h"
#include "ir/passes/XeCommon.h"
#include "ir/targets/Target.h"

#include "../ir/IrTestUtil.h"

#include <gtest/gtest.h>

namespace xtc::passes::xe {
namespace {

std::pair<int32_t, int32_t> at(const layout::LinearLayout& l, int32_t reg, int32_t lane) {
  auto c = l.apply(std::vector<int32_t>{reg, lane});
  return {c[0], c[1]};
}

TEST(XeLayout, PlainD16LoadsOverATile) {
  // A 16x32 bf16 tile read by two d16 16x8x2 messages at rows 0 and 8 (issued row-major). §2.3: lane j,
  // element i < 8 is S[y+i][x+j], i >= 8 is S[y+i-8][x+16+j]; message q's registers follow q-1's.
  Message m{16, 16, 8, 2, false, false};
  auto l = tileLoadLayout(m, 16, 32, 16);
  ASSERT_TRUE(l.ok()) << l.error();
  ASSERT_EQ(registersOf(*l), 32);
  for (int32_t q = 0; q < 2; ++q)
    for (int32_t i = 0; i < 16; ++i)
      for (int32_t j = 0; j < 16; ++j) {
        std::pair<int32_t, int32_t> want = i < 8 ? std::pair{8 * q + i, j} : std::pair{8 * q + i - 8, 16 + j};
        EXPECT_EQ(at(*l, 16 * q + i, j), want) << "message " << q << " register " << i << " lane " << j;
      }
}

TEST(XeLayout, MessagesAlongColumnsComeFirst) {
  // 8x64 with 8x32 messages: message 1 is at column 32 (row-major message order).
  Message m{16, 16, 8, 2, false, false};
  auto l = tileLoadLayout(m, 8, 64, 16);
  ASSERT_TRUE(l.ok()) << l.error();
  EXPECT_EQ(at(*l, 16, 3), (std::pair<int32_t, int32_t>{0, 35}));
  EXPECT_EQ(messageOrigins(16, 64, 8, 32),
            (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {0, 32}, {8, 0}, {8, 32}}));
}

TEST(XeLayout, VnniLoadsAreTheDpasBLayout) {
  // §2.3 VNNI u16 16x16: 32-bit element e of lane j = S[y+2e][x+j] | S[y+2e+1][x+j] << 16, i.e. the
  // 16-bit register 2e+h holds row 2e+h of column j. A 32x16 tile takes two messages (rows 0, 16).
  Message m{16, 16, 16, 1, true, false};
  auto l = tileLoadLayout(m, 32, 16, 16);
  ASSERT_TRUE(l.ok()) << l.error();
  for (int32_t q = 0; q < 2; ++q)
    for (int32_t i = 0; i < 16; ++i)
      for (int32_t j = 0; j < 16; ++j) EXPECT_EQ(at(*l, 16 * q + i, j), (std::pair<int32_t, int32_t>{16 * q + i, j}));
  // §4: B element i of lane n = B[2i][n] | B[2i+1][n] << 16 — the same map, so no conversion.
  auto b = dpasOperandLayout(*targets::findTarget("pvc"), ir::ElemKind::BF16, layout::Operand::B, 32, 16);
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_TRUE(b->sameMap(*l));
}

TEST(XeLayout, DpasAAndCRepeatAlongRowsFirst) {
  // §4 pvc bf16: A lane n element m = A[m][n] (8x16), C lane n element m = C[m][n] (8x16).
  const targets::Target& pvc = *targets::findTarget("pvc");
  auto a = dpasOperandLayout(pvc, ir::ElemKind::BF16, layout::Operand::A, 16, 32);
  ASSERT_TRUE(a.ok()) << a.error();
  for (int32_t blk = 0; blk < 4; ++blk)
    for (int32_t mm = 0; mm < 8; ++mm)
      for (int32_t n = 0; n < 16; ++n)
        EXPECT_EQ(at(*a, 8 * blk + mm, n), (std::pair<int32_t, int32_t>{8 * (blk % 2) + mm, 16 * (blk / 2) + n}));
  auto c = dpasOperandLayout(pvc, ir::ElemKind::BF16, layout::Operand::C, 16, 16);
  ASSERT_TRUE(c.ok()) << c.error();
  for (int32_t r = 0; r < 16; ++r)
    for (int32_t n = 0; n < 16; ++n) EXPECT_EQ(at(*c, r, n), (std::pair<int32_t, int32_t>{r, n}));
}

TEST(XeLayout, NonPowerOfTwoTilesAreErrors) {
  Message m{16, 16, 8, 2, false, false};
  auto l = tileLoadLayout(m, 24, 32, 16);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().find("power-of-two"), std::string::npos) << l.error();
}

std::string xeKernel(const std::string& op, const std::string& types) {
  return ir::testing::kernelWith(
      "%A: memref<?x?xbf16>",
      "  %base = xe.base_address %A : (memref<?x?xbf16>) -> (i64)\n"
      "  %i = arith.constant {value = 64 : i32} : () -> (i32)\n"
      "  %acc = arith.constant {value = dense<0.0> : vector<8xf32>} : () -> (vector<8xf32>)\n"
      "  %a = arith.constant {value = dense<0.0> : vector<8xbf16>} : () -> (vector<8xbf16>)\n"
      "  %b = arith.constant {value = dense<0.0> : vector<16xbf16>} : () -> (vector<16xbf16>)\n"
      "  %r = " + op + " : " + types,
      "\"A\"");
}

TEST(XeOps, VerifierAcceptsTheGemmForms) {
  EXPECT_EQ(ir::testing::verifyText(xeKernel(
                "xe.load_2d %base, %i, %i, %i, %i, %i {array_len = 2, block_h = 8, block_w = 16, elem_bits = 16, "
                "transpose = false, vnni = false}",
                "(i64, i32, i32, i32, i32, i32) -> (vector<16xbf16>)")),
            "");
  EXPECT_EQ(ir::testing::verifyText(xeKernel(
                "xe.dpas %acc, %a, %b {a_type = \"bf16\", acc_type = \"f32\", b_type = \"bf16\", k = 16, m = 8, n = 16}",
                "(vector<8xf32>, vector<8xbf16>, vector<16xbf16>) -> (vector<8xf32>)")),
            "");
}

TEST(XeOps, VerifierRejectsWrongRegisterCounts) {
  // 16x8x2 d16 = 256 elements: 16 per lane on 16 lanes (or 32 on 8), never 8.
  std::string e = ir::testing::verifyText(xeKernel(
      "xe.load_2d %base, %i, %i, %i, %i, %i {array_len = 2, block_h = 8, block_w = 16, elem_bits = 16, "
      "transpose = false, vnni = false}",
      "(i64, i32, i32, i32, i32, i32) -> (vector<8xbf16>)"));
  EXPECT_NE(e.find("holds 8 elements per lane for a 256-element message"), std::string::npos) << e;
  // DPAS 8x16x16 on 16 lanes: A is 8x16/16 = 8 registers per lane, not 16.
  e = ir::testing::verifyText(xeKernel(
      "xe.dpas %acc, %b, %b {a_type = \"bf16\", acc_type = \"f32\", b_type = \"bf16\", k = 16, m = 8, n = 16}",
      "(vector<8xf32>, vector<16xbf16>, vector<16xbf16>) -> (vector<8xf32>)"));
  EXPECT_NE(e.find("A must hold 8 elements per lane"), std::string::npos) << e;
  e = ir::testing::verifyText(xeKernel(
      "xe.dpas %acc, %a, %b {a_type = \"f16\", acc_type = \"f32\", b_type = \"bf16\", k = 16, m = 8, n = 16}",
      "(vector<8xf32>, vector<8xbf16>, vector<16xbf16>) -> (vector<8xf32>)"));
  EXPECT_NE(e.find("'a_type' = \"f16\" does not match the operand element type bf16"), std::string::npos) << e;
}

TEST(XeOps, LinearLayoutAttributesRoundTrip) {
  const std::string t =
      "vector<16x16xf32, linear<{register=[[1,0],[2,0],[4,0],[8,0]], lane=[[0,1],[0,2],[0,4],[0,8]]} -> "
      "{dim0=16, dim1=16}>>";
  std::string text = ir::testing::kernelWith(
      "%A: memref<?x?xbf16>", "  %z = arith.constant {value = dense<0.0> : vector<16x16xf32>} : () -> (" + t + ")", "\"A\"");
  auto p = ir::testing::parse(text);
  ASSERT_TRUE(p->module) << p->messages();
  std::string printed = ir::printToString(*p->module);
  EXPECT_NE(printed.find(t), std::string::npos) << printed;
}

}  // namespace
}  // namespace xtc::passes::xe
