// e2e: subgroup-level reductions and broadcasts (tile.reduction / tile.broadcast along either
// dimension) lowered by lower-generic, run on the CPU OpenCL device, checked against host loops:
//   O = X - broadcast(rowmax(X)) + broadcast(colsum(X))
// on tiles that are wide (lanes own whole columns), narrow (lanes share a column) and masked.
#include "backends/spirv/SpirvBackend.h"
#include "ir/Module.h"
#include "ir/Verifier.h"
#include "ir/ops/Ops.h"
#include "ir/passes/LowerGeneric.h"
#include "tests/e2e/OpenCLRunner.h"
#include "tests/common/BuildOp.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// One workgroup (one subgroup) per R x C tile of X/O (memref<?x?xf32>).
std::unique_ptr<ir::Operation> buildReduceKernel(int64_t R, int64_t C) {
  auto module = ir::createModule();
  Type mem = Type::memref({ir::kDynamic, ir::kDynamic}, ElemKind::F32);
  ir::Operation* k = ir::createKernel(module.get(), "red", {"X", "O"}, {mem, mem}, {});
  Type idx = Type::index();
  {
    ir::Builder b(&ir::kernelLaunch(k));
    Value* one = b.constantIndex(1);
    b.create("xtc.grid", {one, one, one}, {});
  }
  ir::Block& body = ir::kernelBody(k);
  ir::Builder b(&body);
  ir::AttrMap seg{{"segments", Attribute::intArray({2, 0, 0})}};
  Type tt = Type::tile({R, C}, ElemKind::F32), vt = Type::vector({R, C}, ElemKind::F32);
  Type rowT = Type::vector({R, 1}, ElemKind::F32), colT = Type::vector({1, C}, ElemKind::F32);
  Value* r0 = op1(b, "arith.muli", {op1(b, "gpu.group_id", {}, idx, {{"dim", Attribute::integer(0)}}), b.constantIndex(R)}, idx);
  Value* c0 = op1(b, "arith.muli", {op1(b, "gpu.group_id", {}, idx, {{"dim", Attribute::integer(1)}}), b.constantIndex(C)}, idx);
  Value* x = op1(b, "tile.load_tile", {op1(b, "tile.init_tile", {body.argument(0), r0, c0}, tt, seg)}, vt,
                 {{"padding", Attribute::floating(0.0)}});
  Value* rmax = op1(b, "tile.reduction", {x}, rowT,
                    {{"kind", Attribute::enumValue("reduce", "max")}, {"dims", Attribute::intArray({1})}});
  Value* csum = op1(b, "tile.reduction", {x}, colT,
                    {{"kind", Attribute::enumValue("reduce", "add")}, {"dims", Attribute::intArray({0})}});
  Value* bmax = op1(b, "tile.broadcast", {rmax}, vt, {{"dims", Attribute::intArray({1})}});
  Value* bsum = op1(b, "tile.broadcast", {csum}, vt, {{"dims", Attribute::intArray({0})}});
  Value* o = op1(b, "arith.addf", {op1(b, "arith.subf", {x, bmax}, vt), bsum}, vt);
  b.create("tile.store_tile", {o, op1(b, "tile.init_tile", {body.argument(1), r0, c0}, tt, seg)}, {});
  b.create("xtc.return", {}, {});
  return module;
}

// rows x cols matrix, tiles of R x C; out-of-matrix tile elements load as 0 (padding), so they take
// part in the column sums and row maxima like the kernel's tile semantics say.
void runReduce(int64_t rows, int64_t cols, int64_t R, int64_t C) {
  SCOPED_TRACE(testing::Message() << rows << "x" << cols << " tile " << R << "x" << C);
  auto module = buildReduceKernel(R, C);
  ir::registerAllOps();
  SourceManager sm;
  std::ostringstream diagText;
  DiagnosticEngine diags(sm, diagText);
  const targets::Target* t = targets::findTarget("generic");
  std::vector<uint32_t> spirv;
  backend::BackendOptions opts;
  opts.target = t;
  bool ok = ir::verify(*module, diags) && passes::lowerGeneric(module.get(), *t, diags) && ir::verify(*module, diags) &&
            backend::emitSpirv(*module, opts, diags, spirv);
  diags.flush();
  ASSERT_TRUE(ok) << diagText.str();

  std::mt19937 rng(static_cast<unsigned>(rows * 100 + cols));
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> x(static_cast<size_t>(rows * cols));
  for (float& v : x) {
    v = d(rng);
    if (v == 0.0f) v = 1.0f;  // never zero
  }
  std::vector<uint8_t> xb = e2e::toBytes(x), ob = e2e::toBytes(std::vector<float>(x.size(), std::nanf("")));
  std::vector<e2e::KernelArg> args = {e2e::KernelArg::buf(xb), e2e::KernelArg::i64(rows), e2e::KernelArg::i64(cols),
                                      e2e::KernelArg::buf(ob), e2e::KernelArg::i64(rows), e2e::KernelArg::i64(cols)};
  size_t global[3] = {static_cast<size_t>((rows + R - 1) / R) * 16, static_cast<size_t>((cols + C - 1) / C), 1};
  size_t local[3] = {16, 1, 1};
  std::string err;
  ASSERT_TRUE(e2e::runKernel(spirv, "red", args, global, local, &err)) << err;
  std::vector<float> got = e2e::toFloats(ob);
  auto at = [&](int64_t i, int64_t j) { return i < rows && j < cols ? x[static_cast<size_t>(i * cols + j)] : 0.0f; };
  int bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t ti = i / R * R, tj = j / C * C;  // the tile holding (i, j)
      float mx = at(i, tj);
      for (int64_t c = tj; c < tj + C; ++c) mx = std::max(mx, at(i, c));
      double sum = 0;
      for (int64_t r = ti; r < ti + R; ++r) sum += at(r, j);
      double ref = static_cast<double>(at(i, j)) - mx + sum;
      float g = got[static_cast<size_t>(i * cols + j)];
      if (!(std::fabs(g - ref) <= 1e-4 * (1.0 + std::fabs(ref))) && bad++ < 5)
        ADD_FAILURE() << "O[" << i << "][" << j << "] = " << g << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0);
}

TEST(E2EGenericReduce, WideTiles) { runReduce(40, 64, 20, 32); }          // lanes own 2 columns each
TEST(E2EGenericReduce, NarrowMaskedTiles) { runReduce(13, 21, 5, 8); }    // 2 lanes per column, tail row
TEST(E2EGenericReduce, TinyTiles) { runReduce(7, 9, 3, 4); }              // 4 lanes per column
TEST(E2EGenericReduce, TallTiles) { runReduce(40, 16, 33, 16); }          // rows beyond one 16-row block

}  // namespace
}  // namespace xtc
