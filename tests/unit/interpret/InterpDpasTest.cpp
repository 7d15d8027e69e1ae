// Interpreter: xe.dpas per lane for the s8 forms (i8 x i8 -> i32, k = 32) on pvc (16 lanes, 2 bytes
// of a row of A per lane) and dg2 (8 lanes, 4 bytes per lane). Operands are placed in registers by
// the tables of INTEL_XE_REFERENCE.md §4, written out here (aPlace), not taken from the interpreter:
//   pvc s8: A element m of lane n = bytes A[m][2n], A[m][2n+1]  -> lane k/2, register 2m + k%2
//   dg2 s8: A element m of lane j = bytes A[m][4j .. 4j+3]      -> lane k/4, register 4m + k%4
//   B register k of lane n = B[k][n]; C/D register m of lane n = C[m][n].
// The one-hot and edge-value cases have their expected registers computed by hand (in the comments).
#include "DpasKernelText.h"

#include "ir/Module.h"
#include "ir/interpret/Interpreter.h"
#include "../ir/IrTestUtil.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace xtc;
using namespace xtc::interp;
using ir::ElemKind;
using xtc::test::DpasForm;

namespace {

const DpasForm kPvcS8{"pvc", 16, 8, 32, "i8", "i32"};
const DpasForm kDg2S8{"dg2", 8, 8, 32, "i8", "i32"};

// (lane, register) of A[m][k], from the reference's table above.
std::pair<int64_t, int64_t> aPlace(const DpasForm& f, int64_t m, int64_t k) {
  int64_t bytesPerLane = f.lanes == 16 ? 2 : 4;
  return {k / bytesPerLane, bytesPerLane * m + k % bytesPerLane};
}

using Fn = std::function<int64_t(int64_t, int64_t)>;

struct Result {
  bool ok;
  std::string diags;
  Buffer c;  // lane n, register m at n * M + m
};

// Fills A, B, C from the matrices a(m, k), b(k, n), c(m, n) and runs the kernel.
Result runDpas(const DpasForm& f, const Fn& a, const Fn& b, const Fn& c, bool chained = false) {
  Buffer A(ElemKind::I8, {f.lanes * f.aRegs()}), B(ElemKind::I8, {f.lanes * f.bRegs()}), C(ElemKind::I32, {f.lanes * f.cRegs()});
  for (int64_t m = 0; m < f.m; ++m)
    for (int64_t k = 0; k < f.k; ++k) {
      auto [lane, reg] = aPlace(f, m, k);
      A.setInt(lane * f.aRegs() + reg, a(m, k));
    }
  for (int64_t k = 0; k < f.k; ++k)
    for (int64_t n = 0; n < f.lanes; ++n) B.setInt(n * f.bRegs() + k, b(k, n));
  for (int64_t m = 0; m < f.m; ++m)
    for (int64_t n = 0; n < f.lanes; ++n) C.setInt(n * f.cRegs() + m, c(m, n));
  auto p = ir::testing::parse(xtc::test::dpasKernelText(f, chained), "dpas.ir");
  if (!p->module) return {false, "parse failed: " + p->messages(), {}};
  KernelArgs args{{KernelArg::fromBuffer(A), KernelArg::fromBuffer(B), KernelArg::fromBuffer(C)}};
  bool ok = runKernel(*ir::moduleKernels(p->module.get()).at(0), args, *p->diags);
  return {ok, p->messages(), args.args[2].buffer};
}

// Checks every register against want(m, n).
void expectRegisters(const DpasForm& f, const Result& r, const Fn& want) {
  ASSERT_TRUE(r.ok) << r.diags;
  for (int64_t n = 0; n < f.lanes; ++n)
    for (int64_t m = 0; m < f.m; ++m) ASSERT_EQ(r.c.getInt(n * f.m + m), want(m, n)) << "lane " << n << ", register " << m;
}

int64_t sign(int64_t m) { return m % 2 ? -1 : 1; }

// Row m of A is +-1 at one k (even m: +1, odd m: -1), so D[m][n] = C[m][n] +- B[k_m][n].
TEST(InterpDpas, Dg2S8OneHotRowsPickRowsOfB) {
  // k_m = 4m + 3: the last byte of lane m's dword m; B[k][n] = 4k - 16n; C[m][n] = 1000m + n.
  // D[m][n] = 1000m + n +- (4(4m + 3) - 16n) = 1000m + n +- (16m + 12 - 16n).
  Result r = runDpas(kDg2S8, [](int64_t m, int64_t k) { return k == 4 * m + 3 ? sign(m) : 0; },
                     [](int64_t k, int64_t n) { return 4 * k - 16 * n; }, [](int64_t m, int64_t n) { return 1000 * m + n; });
  expectRegisters(kDg2S8, r, [](int64_t m, int64_t n) { return 1000 * m + n + sign(m) * (16 * m + 12 - 16 * n); });
}

TEST(InterpDpas, PvcS8OneHotRowsPickRowsOfB) {
  // k_m = 2m + 1: the high byte of lane m's register pair m; B[k][n] = 4k - 8n; C[m][n] = 1000m + n.
  // D[m][n] = 1000m + n +- (8m + 4 - 8n).
  Result r = runDpas(kPvcS8, [](int64_t m, int64_t k) { return k == 2 * m + 1 ? sign(m) : 0; },
                     [](int64_t k, int64_t n) { return 4 * k - 8 * n; }, [](int64_t m, int64_t n) { return 1000 * m + n; });
  expectRegisters(kPvcS8, r, [](int64_t m, int64_t n) { return 1000 * m + n + sign(m) * (8 * m + 4 - 8 * n); });
}

// Edge values: 32 products of -128 x -128 = 16384 sum to 524288; of 127 x -128 = -16256 to -520192.
TEST(InterpDpas, S8ExtremesAccumulateExactly) {
  for (const DpasForm* f : {&kPvcS8, &kDg2S8}) {
    SCOPED_TRACE(f->target);
    auto c = [](int64_t m, int64_t n) { return -7 * (m + 1) + n; };
    expectRegisters(*f, runDpas(*f, [](int64_t, int64_t) { return -128; }, [](int64_t, int64_t) { return -128; }, c),
                    [&](int64_t m, int64_t n) { return c(m, n) + 524288; });
    expectRegisters(*f, runDpas(*f, [](int64_t, int64_t) { return 127; }, [](int64_t, int64_t) { return -128; }, c),
                    [&](int64_t m, int64_t n) { return c(m, n) - 520192; });
    // Chained: the second DPAS adds the products again to the first's result: C + 2 * 524288.
    expectRegisters(*f, runDpas(*f, [](int64_t, int64_t) { return -128; }, [](int64_t, int64_t) { return -128; }, c, true),
                    [&](int64_t m, int64_t n) { return c(m, n) + 1048576; });
  }
}

// Mixed signs over the whole range (seeded), chained: D = C + 2 A B, summed here in int64.
TEST(InterpDpas, S8RandomMixedSignsChained) {
  for (const DpasForm* f : {&kPvcS8, &kDg2S8}) {
    SCOPED_TRACE(f->target);
    std::mt19937 rng(1234u + static_cast<unsigned>(f->lanes));
    std::uniform_int_distribution<int> i8(-128, 127), i32(-1000000, 1000000);
    std::vector<int64_t> a(static_cast<size_t>(f->m * f->k)), b(static_cast<size_t>(f->k * f->lanes)), c(static_cast<size_t>(f->m * f->lanes));
    for (int64_t& v : a) v = i8(rng);
    for (int64_t& v : b) v = i8(rng);
    for (int64_t& v : c) v = i32(rng);
    auto at = [](const std::vector<int64_t>& v, int64_t cols) { return [&v, cols](int64_t i, int64_t j) { return v[static_cast<size_t>(i * cols + j)]; }; };
    Result r = runDpas(*f, at(a, f->k), at(b, f->lanes), at(c, f->lanes), true);
    expectRegisters(*f, r, [&](int64_t m, int64_t n) {
      int64_t s = 0;
      for (int64_t k = 0; k < f->k; ++k) s += a[static_cast<size_t>(m * f->k + k)] * b[static_cast<size_t>(k * f->lanes + n)];
      return c[static_cast<size_t>(m * f->lanes + n)] + 2 * s;
    });
  }
}

// k = 16 on 8-bit elements is half a DPAS row (a row is always 256 bits): refused, not guessed.
TEST(InterpDpas, S8WithK16IsNotImplemented) {
  DpasForm half{"dg2", 8, 8, 16, "i8", "i32"};
  Result r = runDpas(half, [](int64_t, int64_t) { return 1; }, [](int64_t, int64_t) { return 1; }, [](int64_t, int64_t) { return 1; });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("xe.dpas with k = 16 on 8-bit elements and 8 lanes is not implemented yet"), std::string::npos) << r.diags;
}

}  // namespace
