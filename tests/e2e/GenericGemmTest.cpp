// e2e: subgroup-level kernels built as IR, lowered by lower-generic, compiled by the SPIR-V backend
// and executed on the Intel CPU OpenCL device; results compared element by element with plain C++
// loops written here (independent of the compiler). Random inputs use fixed seeds, never zeros.
#include "backends/spirv/SpirvBackend.h"
#include "ir/Module.h"
#include "ir/ops/Ops.h"
#include "ir/passes/LowerGeneric.h"
#include "ir/Verifier.h"
#include "tests/e2e/OpenCLRunner.h"
#include "tests/common/BuildOp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

namespace xtc {
namespace {

using ir::Attribute;
using ir::ElemKind;
using ir::Type;
using ir::Value;

using test::op1;

// C[M x N] = A[M x K] * B[K x N], f32, dynamic sizes; one subgroup per TM x TN tile of C; K loop
// with step TK carrying the accumulator and both tiles (the shape of examples/sg_gemm_f32.xt).
std::unique_ptr<ir::Operation> buildSgGemm(int64_t TM, int64_t TN, int64_t TK, bool withPrefetch = false) {
  auto module = ir::createModule();
  Type mem = Type::memref({ir::kDynamic, ir::kDynamic}, ElemKind::F32);
  ir::Operation* k = ir::createKernel(module.get(), "sg_gemm", {"A", "B", "C"}, {mem, mem, mem}, {});
  Type idx = Type::index();
  {  // launch: grid = (ceildiv(M, TM), ceildiv(N, TN), 1)
    ir::Builder b(&ir::kernelLaunch(k));
    ir::Block& l = ir::kernelLaunch(k);
    Value* m = op1(b, "memref.dim", {l.argument(2)}, idx, {{"index", Attribute::integer(0)}});
    Value* n = op1(b, "memref.dim", {l.argument(2)}, idx, {{"index", Attribute::integer(1)}});
    Value* gx = op1(b, "arith.ceildivsi", {m, b.constantIndex(TM)}, idx);
    Value* gy = op1(b, "arith.ceildivsi", {n, b.constantIndex(TN)}, idx);
    b.create("xtc.grid", {gx, gy, b.constantIndex(1)}, {});
  }
  ir::Block& body = ir::kernelBody(k);
  ir::Builder b(&body);
  Value *A = body.argument(0), *B = body.argument(1), *C = body.argument(2);
  Value* m = op1(b, "arith.muli", {op1(b, "gpu.group_id", {}, idx, {{"dim", Attribute::integer(0)}}), b.constantIndex(TM)}, idx);
  Value* n = op1(b, "arith.muli", {op1(b, "gpu.group_id", {}, idx, {{"dim", Attribute::integer(1)}}), b.constantIndex(TN)}, idx);
  Value* c0 = b.constantIndex(0);
  ir::AttrMap seg{{"segments", Attribute::intArray({2, 0, 0})}};
  Type ta = Type::tile({TM, TK}, ElemKind::F32), tb = Type::tile({TK, TN}, ElemKind::F32),
       tc = Type::tile({TM, TN}, ElemKind::F32);
  Type vacc = Type::vector({TM, TN}, ElemKind::F32);
  Value* tA = op1(b, "tile.init_tile", {A, m, c0}, ta, seg);
  Value* tB = op1(b, "tile.init_tile", {B, c0, n}, tb, seg);
  Value* acc = op1(b, "arith.constant", {}, vacc, {{"value", Attribute::denseFloat(vacc, {0.0})}});
  Value* K = op1(b, "memref.dim", {A}, idx, {{"index", Attribute::integer(1)}});
  ir::Operation* loop = b.create("scf.for", {c0, K, b.constantIndex(TK), acc, tA, tB}, {vacc, ta, tb}, {}, 1);
  ir::Block& lb = loop->region(0).addBlock();
  lb.addArgument(idx);
  Value* iacc = lb.addArgument(vacc);
  Value* itA = lb.addArgument(ta);
  Value* itB = lb.addArgument(tb);
  {
    ir::Builder lbld(&lb);
    if (withPrefetch) lbld.create("tile.prefetch_tile", {itA}, {});
    Value* a = op1(lbld, "tile.load_tile", {itA}, Type::vector({TM, TK}, ElemKind::F32));
    Value* bb = op1(lbld, "tile.load_tile", {itB}, Type::vector({TK, TN}, ElemKind::F32));
    Value* r = op1(lbld, "tile.tile_mma", {a, bb, iacc}, vacc);
    Value* nA = op1(lbld, "tile.update_tile_offset", {itA, lbld.constantIndex(0), lbld.constantIndex(TK)}, ta);
    Value* nB = op1(lbld, "tile.update_tile_offset", {itB, lbld.constantIndex(TK), lbld.constantIndex(0)}, tb);
    lbld.create("scf.yield", {r, nA, nB}, {});
  }
  Value* tC = op1(b, "tile.init_tile", {C, m, n}, tc, seg);
  b.create("tile.store_tile", {loop->result(0), tC}, {});
  b.create("xtc.return", {}, {});
  return module;
}

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) {
    x = d(rng);
    if (x == 0.0f) x = 0.5f;  // never zero
  }
  return v;
}

struct Compiled {
  std::vector<uint32_t> spirv;
  std::vector<int64_t> wgSize;
};

// lower-generic + verifier + backend; failures are reported through gtest with the diagnostics.
bool compileGeneric(ir::Operation* module, Compiled& out, int optLevel = 2) {
  ir::registerAllOps();
  SourceManager sm;
  std::ostringstream diagText;
  DiagnosticEngine diags(sm, diagText);
  const targets::Target* t = targets::findTarget("generic");
  bool ok = ir::verify(*module, diags) && passes::lowerGeneric(module, *t, diags) && ir::verify(*module, diags);
  backend::BackendOptions opts;
  opts.target = t;
  opts.optLevel = optLevel;
  ok = ok && backend::emitSpirv(*module, opts, diags, out.spirv);
  diags.flush();
  EXPECT_TRUE(ok) << diagText.str();
  if (ok) out.wgSize = ir::moduleKernels(module)[0]->attr("wg_size")->getIntArray();
  return ok;
}

void runGemm(int64_t M, int64_t N, int64_t K, int64_t TM, int64_t TN, int64_t TK, int optLevel = 2) {
  SCOPED_TRACE(testing::Message() << M << "x" << N << "x" << K << " tile " << TM << "x" << TN << "x" << TK);
  auto module = buildSgGemm(TM, TN, TK, /*withPrefetch=*/true);
  Compiled c;
  ASSERT_TRUE(compileGeneric(module.get(), c, optLevel));
  ASSERT_EQ(c.wgSize, (std::vector<int64_t>{16, 1, 1}));
  std::vector<float> a = randomFloats(static_cast<size_t>(M * K), 11), b = randomFloats(static_cast<size_t>(K * N), 23);
  // C starts as NaN: an element the kernel does not write fails the comparison.
  std::vector<float> cInit(static_cast<size_t>(M * N), std::nanf(""));
  std::vector<uint8_t> ab = e2e::toBytes(a), bb = e2e::toBytes(b), cb = e2e::toBytes(cInit);
  std::vector<e2e::KernelArg> args = {e2e::KernelArg::buf(ab), e2e::KernelArg::i64(M), e2e::KernelArg::i64(K),
                                      e2e::KernelArg::buf(bb), e2e::KernelArg::i64(K), e2e::KernelArg::i64(N),
                                      e2e::KernelArg::buf(cb), e2e::KernelArg::i64(M), e2e::KernelArg::i64(N)};
  size_t gx = static_cast<size_t>((M + TM - 1) / TM), gy = static_cast<size_t>((N + TN - 1) / TN);
  size_t global[3] = {gx * 16, gy, 1}, local[3] = {16, 1, 1};
  std::string err;
  ASSERT_TRUE(e2e::runKernel(c.spirv, "sg_gemm", args, global, local, &err)) << err;
  std::vector<float> got = e2e::toFloats(cb);
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        ref += static_cast<double>(a[static_cast<size_t>(i * K + k)]) * b[static_cast<size_t>(k * N + j)];
        mag += std::fabs(static_cast<double>(a[static_cast<size_t>(i * K + k)]) * b[static_cast<size_t>(k * N + j)]);
      }
      float g = got[static_cast<size_t>(i * N + j)];
      // f32 accumulation of K products: error bound ~ K * eps * sum|a*b|.
      double tol = 1e-6 + 2.0 * static_cast<double>(K) * 1.2e-7 * mag;
      if (!(std::fabs(g - ref) <= tol) && bad++ < 5)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << g << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0);
}

TEST(E2EGeneric, SgGemmAligned64) { runGemm(64, 64, 64, 8, 32, 16); }
TEST(E2EGeneric, SgGemmUnaligned) { runGemm(33, 47, 19, 8, 32, 16); }
TEST(E2EGeneric, SgGemmKSmallerThanStep) { runGemm(20, 40, 5, 8, 32, 16); }
TEST(E2EGeneric, SgGemmNarrowKTile) { runGemm(37, 50, 29, 16, 16, 8); }  // A tiles 16x8: lanes share columns
TEST(E2EGeneric, SgGemmUnoptimized) { runGemm(33, 47, 19, 8, 32, 16, /*optLevel=*/0); }  // -O0 path

// An element-wise kernel on a 5x8 tile: 8 < 16 lanes, so two lanes per column and a masked tail row.
// out = exp(x) * 2 + y, padding never reaches memory (stores are clipped to the matrix).
TEST(E2EGeneric, ElementwiseNarrowTileMasked) {
  const int64_t TR = 5, TC = 8, R = 13, Cn = 21;
  auto module = ir::createModule();
  Type mem = Type::memref({ir::kDynamic, ir::kDynamic}, ElemKind::F32);
  ir::Operation* k = ir::createKernel(module.get(), "ew", {"X", "Y", "O"}, {mem, mem, mem}, {});
  Type idx = Type::index();
  {
    ir::Builder b(&ir::kernelLaunch(k));
    Value* one = b.constantIndex(1);
    b.create("xtc.grid", {one, one, one}, {});
  }
  ir::Block& body = ir::kernelBody(k);
  ir::Builder b(&body);
  ir::AttrMap seg{{"segments", Attribute::intArray({2, 0, 0})}};
  Type tt = Type::tile({TR, TC}, ElemKind::F32);
  Type vt = Type::vector({TR, TC}, ElemKind::F32);
  Value* r0 = op1(b, "arith.muli", {op1(b, "gpu.group_id", {}, idx, {{"dim", Attribute::integer(0)}}), b.constantIndex(TR)}, idx);
  Value* c0 = op1(b, "arith.muli", {op1(b, "gpu.group_id", {}, idx, {{"dim", Attribute::integer(1)}}), b.constantIndex(TC)}, idx);
  Value* x = op1(b, "tile.load_tile", {op1(b, "tile.init_tile", {body.argument(0), r0, c0}, tt, seg)}, vt);
  Value* y = op1(b, "tile.load_tile", {op1(b, "tile.init_tile", {body.argument(1), r0, c0}, tt, seg)}, vt);
  Value* two = op1(b, "arith.constant", {}, vt, {{"value", Attribute::denseFloat(vt, {2.0})}});
  Value* e = op1(b, "math.exp", {x}, vt);
  Value* s = op1(b, "arith.addf", {op1(b, "arith.mulf", {e, two}, vt), y}, vt);
  b.create("tile.store_tile", {s, op1(b, "tile.init_tile", {body.argument(2), r0, c0}, tt, seg)}, {});
  b.create("xtc.return", {}, {});

  Compiled c;
  ASSERT_TRUE(compileGeneric(module.get(), c));
  std::vector<float> xs = randomFloats(R * Cn, 5), ys = randomFloats(R * Cn, 6);
  std::vector<float> out(R * Cn, std::nanf(""));
  std::vector<uint8_t> xb = e2e::toBytes(xs), yb = e2e::toBytes(ys), ob = e2e::toBytes(out);
  std::vector<e2e::KernelArg> args = {e2e::KernelArg::buf(xb), e2e::KernelArg::i64(R), e2e::KernelArg::i64(Cn),
                                      e2e::KernelArg::buf(yb), e2e::KernelArg::i64(R), e2e::KernelArg::i64(Cn),
                                      e2e::KernelArg::buf(ob), e2e::KernelArg::i64(R), e2e::KernelArg::i64(Cn)};
  size_t global[3] = {static_cast<size_t>((R + TR - 1) / TR) * 16, static_cast<size_t>((Cn + TC - 1) / TC), 1};
  size_t local[3] = {16, 1, 1};
  std::string err;
  ASSERT_TRUE(e2e::runKernel(c.spirv, "ew", args, global, local, &err)) << err;
  std::vector<float> got = e2e::toFloats(ob);
  for (int64_t i = 0; i < R * Cn; ++i) {
    float ref = std::exp(xs[static_cast<size_t>(i)]) * 2.0f + ys[static_cast<size_t>(i)];
    EXPECT_NEAR(got[static_cast<size_t>(i)], ref, 1e-5f * (1.0f + std::fabs(ref))) << "element " << i;
  }
}

}  // namespace
}  // namespace xtc
