// Unit tests of the order-transpose pass: column-major tiles become row-major tiles over the
// transposed view (checked structurally and by the interpreter before/after), and every tile.transpose
// gets the strategy the RFC and the target allow.
#include "ir/passes/OrderTranspose.h"
#include "ir/passes/WgDistribute.h"
#include "tests/unit/passes/PassTestSupport.h"

using namespace xtc;
using xtc::testing::IndexEval;
using xtc::testing::IRFixture;
using xtc::testing::opsNamed;
using xtc::testing::substitute;

namespace {

const targets::Target& pvc() { return *targets::findTarget("pvc"); }

// Subgroup level: C = A + 1 where A and C are column-major views (logical 48x64, strides [1, 48]) of
// 64x48 row-major buffers, through a loop that moves the tiles.
const char* kColumnMajor = R"(
xtc.kernel @k(%A: memref<64x48xf32>, %C: memref<64x48xf32>) {arg_names = ["A", "C"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  %c8 = arith.constant {value = 8 : index} : () -> (index)
  %c16 = arith.constant {value = 16 : index} : () -> (index)
  %c48 = arith.constant {value = 48 : index} : () -> (index)
  %c64 = arith.constant {value = 64 : index} : () -> (index)
  %c2 = arith.constant {value = 2 : index} : () -> (index)
  %ta = tile.init_tile %A, %c8, %c16, %c48, %c64, %c1, %c48 {segments = [2, 2, 2]} : (memref<64x48xf32>, index, index, index, index, index, index) -> (tile<32x16xf32, order = [0, 1]>)
  %tc = tile.init_tile %C, %c8, %c16, %c48, %c64, %c1, %c48 {segments = [2, 2, 2]} : (memref<64x48xf32>, index, index, index, index, index, index) -> (tile<32x16xf32, order = [0, 1]>)
  %one = arith.constant {value = dense<1.0> : vector<32x16xf32>} : () -> (vector<32x16xf32>)
  %ra, %rc = scf.for %c0, %c2, %c1, %ta, %tc : (index, index, index, tile<32x16xf32, order = [0, 1]>, tile<32x16xf32, order = [0, 1]>) -> (tile<32x16xf32, order = [0, 1]>, tile<32x16xf32, order = [0, 1]>) ({
  ^bb0(%i: index, %xa: tile<32x16xf32, order = [0, 1]>, %xc: tile<32x16xf32, order = [0, 1]>):
    %v = tile.load_tile %xa : (tile<32x16xf32, order = [0, 1]>) -> (vector<32x16xf32>)
    %w = arith.addf %v, %one : (vector<32x16xf32>, vector<32x16xf32>) -> (vector<32x16xf32>)
    tile.store_tile %w, %xc : (vector<32x16xf32>, tile<32x16xf32, order = [0, 1]>) -> ()
    %na = tile.update_tile_offset %xa, %c0, %c16 : (tile<32x16xf32, order = [0, 1]>, index, index) -> (tile<32x16xf32, order = [0, 1]>)
    %nc = tile.update_tile_offset %xc, %c0, %c16 : (tile<32x16xf32, order = [0, 1]>, index, index) -> (tile<32x16xf32, order = [0, 1]>)
    scf.yield %na, %nc : (tile<32x16xf32, order = [0, 1]>, tile<32x16xf32, order = [0, 1]>) -> ()
  })
  xtc.return : () -> ()
}
)";

}  // namespace

TEST(OrderTranspose, ColumnMajorTileBecomesRowMajorOverTheTransposedView) {
  IRFixture f;
  auto m = f.parse(kColumnMajor);
  ASSERT_TRUE(m);
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  auto args = xtc::testing::randomArgs(k, 99);
  auto expected = args;
  ASSERT_TRUE(interp::runKernel(*k, expected, f.diags)) << f.text();

  ASSERT_TRUE(passes::runOrderTranspose(m.get(), f.diags, pvc())) << f.text();
  std::string text = ir::printToString(*m);
  ASSERT_TRUE(f.verify(*m)) << f.text() << text;
  EXPECT_EQ(text.find("order = [0, 1]"), std::string::npos) << text;
  auto inits = opsNamed(k, "tile.init_tile");
  ASSERT_EQ(inits.size(), 2u);
  for (auto* init : inits) {
    EXPECT_EQ(init->result()->type().str(), "tile<16x32xf32>");
    IndexEval ev;
    // offsets (8, 16) -> (16, 8); shape (48, 64) -> (64, 48); strides (1, 48) -> (48, 1)
    std::vector<int64_t> got;
    for (unsigned i = 1; i < init->numOperands(); ++i) got.push_back(ev.eval(init->operand(i)));
    EXPECT_EQ(got, (std::vector<int64_t>{16, 8, 64, 48, 48, 1}));
  }
  auto updates = opsNamed(k, "tile.update_tile_offset");
  ASSERT_EQ(updates.size(), 2u);
  for (auto* u : updates) {
    EXPECT_EQ(IndexEval{}.eval(u->operand(1)), 16);  // deltas (0, 16) -> (16, 0)
    EXPECT_EQ(IndexEval{}.eval(u->operand(2)), 0);
  }
  auto trs = opsNamed(k, "tile.transpose");
  ASSERT_EQ(trs.size(), 2u);
  // The load's transpose folds into a transposed 2D block load (f32 on pvc); the store's is in registers.
  EXPECT_EQ(trs[0]->attr("strategy")->getString(), "load");
  EXPECT_TRUE(trs[0]->operand(0)->definingOp()->is("tile.load_tile"));
  EXPECT_EQ(trs[1]->attr("strategy")->getString(), "register");

  ASSERT_TRUE(interp::runKernel(*k, args, f.diags)) << f.text();
  EXPECT_EQ(args.args[1].buffer.bytes, expected.args[1].buffer.bytes);
  EXPECT_NE(expected.args[1].buffer.bytes, xtc::testing::randomArgs(k, 99).args[1].buffer.bytes);
}

TEST(OrderTranspose, RowMajorSourceIsADiagnostic) {
  IRFixture f;
  auto m = f.parse(R"(
xtc.kernel @k(%A: memref<64x48xf32>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %t = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<64x48xf32>, index, index) -> (tile<16x16xf32, order = [0, 1]>) loc("k.xt":4:9)
  xtc.return : () -> ()
}
)");
  ASSERT_TRUE(m);
  EXPECT_FALSE(passes::runOrderTranspose(m.get(), f.diags, pvc()));
  EXPECT_NE(f.text().find("k.xt:4:9: error: order-transpose: tile with order = [0, 1] needs a column-major source"), std::string::npos)
      << f.text();
}

TEST(OrderTranspose, StaticColumnMajorMemrefGetsExplicitShapeAndStrides) {
  IRFixture f;
  auto m = f.parse(R"(
xtc.kernel @k(%A: memref<48x64xf16, strides = [1, 48]>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %c4 = arith.constant {value = 4 : index} : () -> (index)
  %t = tile.init_tile %A, %c4, %c0 {segments = [2, 0, 0]} : (memref<48x64xf16, strides = [1, 48]>, index, index) -> (tile<16x32xf16, order = [0, 1]>)
  tile.prefetch_tile %t : (tile<16x32xf16, order = [0, 1]>) -> ()
  xtc.return : () -> ()
}
)");
  ASSERT_TRUE(m);
  ASSERT_TRUE(passes::runOrderTranspose(m.get(), f.diags, pvc())) << f.text();
  ASSERT_TRUE(f.verify(*m)) << f.text();
  auto inits = opsNamed(ir::moduleKernels(m.get())[0], "tile.init_tile");
  ASSERT_EQ(inits.size(), 1u);
  EXPECT_EQ(inits[0]->result()->type().str(), "tile<32x16xf16>");
  std::vector<int64_t> got;
  for (unsigned i = 1; i < inits[0]->numOperands(); ++i) got.push_back(IndexEval{}.eval(inits[0]->operand(i)));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 4, 64, 48, 48, 1}));
}

namespace {
const char* kWgTranspose = R"(
xtc.kernel @k(%A: memref<256x32x#E>, %B: memref<32x256x#E>) {arg_names = ["A", "B"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<256x32x#E>, index, index) -> (tile<256x32x#E, #i>)
  %v = tile.load_tile %ta : (tile<256x32x#E, #i>) -> (vector<256x32x#E, #i>)
  %t = tile.transpose %v {permutation = [1, 0]} : (vector<256x32x#E, #i>) -> (vector<32x256x#E, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<32x256x#E>, index, index) -> (tile<32x256x#E, #o>)
  tile.store_tile %t, %tb : (vector<32x256x#E, #o>, tile<32x256x#E, #o>) -> ()
  xtc.return : () -> ()
}
)";

std::string strategyOf(const std::string& elem, const std::string& in, const std::string& out, std::string* inMapAfter = nullptr) {
  IRFixture f;
  auto m = f.parse(substitute(kWgTranspose, {{"E", elem}, {"i", in}, {"o", out}}));
  if (!m) return "";
  EXPECT_TRUE(passes::runOrderTranspose(m.get(), f.diags, pvc())) << f.text();
  EXPECT_TRUE(f.verify(*m)) << f.text();
  auto trs = opsNamed(ir::moduleKernels(m.get())[0], "tile.transpose");
  if (inMapAfter) *inMapAfter = trs[0]->operand(0)->type().str();
  return trs[0]->attr("strategy")->getString();
}
}  // namespace

TEST(OrderTranspose, WorkgroupTransposeStrategies) {
  const std::string b = "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>";
  // RFC appendix 2.3, optimized mapping: in registers, and on pvc folded into the load: f32 as
  // transposed d32, f16 in pairs moved as d32 (seed 000).
  EXPECT_EQ(strategyOf("f16", "wg_map<sg_layout = [32, 1], sg_data = [64, 32]>", b), "load");
  EXPECT_EQ(strategyOf("f32", "wg_map<sg_layout = [32, 1], sg_data = [64, 32]>", b), "load");
  // RFC 2.2's first mapping [4, 8] x [64, 32]: the load is re-mapped to 2.3's [32, 1] x [64, 32].
  std::string remapped;
  EXPECT_EQ(strategyOf("f16", "wg_map<sg_layout = [4, 8], sg_data = [64, 32]>", b, &remapped), "load");
  EXPECT_EQ(remapped, "vector<256x32xf16, wg_map<sg_layout = [32, 1], sg_data = [64, 32]>>");
}

TEST(OrderTranspose, TransposeThatNeedsSlm) {
  IRFixture f;
  // The loaded vector has a second use, so its load cannot be re-mapped: subgroups must exchange data.
  auto m = f.parse(substitute(R"(
xtc.kernel @k(%A: memref<256x32xf32>, %B: memref<32x256xf32>, %C: memref<256x32xf32>) {arg_names = ["A", "B", "C"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %ta = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<256x32xf32>, index, index) -> (tile<256x32xf32, #i>)
  %v = tile.load_tile %ta : (tile<256x32xf32, #i>) -> (vector<256x32xf32, #i>)
  %t = tile.transpose %v {permutation = [1, 0]} : (vector<256x32xf32, #i>) -> (vector<32x256xf32, #o>)
  %tb = tile.init_tile %B, %c0, %c0 {segments = [2, 0, 0]} : (memref<32x256xf32>, index, index) -> (tile<32x256xf32, #o>)
  tile.store_tile %t, %tb : (vector<32x256xf32, #o>, tile<32x256xf32, #o>) -> ()
  %tc = tile.init_tile %C, %c0, %c0 {segments = [2, 0, 0]} : (memref<256x32xf32>, index, index) -> (tile<256x32xf32, #i>)
  tile.store_tile %v, %tc : (vector<256x32xf32, #i>, tile<256x32xf32, #i>) -> ()
  xtc.return : () -> ()
}
)",
                              {{"i", "wg_map<sg_layout = [4, 8], sg_data = [64, 32]>"},
                               {"o", "wg_map<sg_layout = [8, 4], sg_data = [32, 64]>"}}));
  ASSERT_TRUE(m);
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  auto args = xtc::testing::randomArgs(k, 7);
  auto expected = args;
  ASSERT_TRUE(interp::runKernel(*k, expected, f.diags)) << f.text();
  ASSERT_TRUE(passes::runOrderTranspose(m.get(), f.diags, pvc())) << f.text();
  auto trs = opsNamed(k, "tile.transpose");
  ASSERT_EQ(trs.size(), 1u);
  EXPECT_EQ(trs[0]->attr("strategy")->getString(), "slm");
  ASSERT_TRUE(passes::runWgDistribute(m.get(), f.diags, pvc())) << f.text();
  ASSERT_TRUE(f.verify(*m)) << f.text();
  EXPECT_EQ(opsNamed(k, "gpu.slm_alloc").size(), 1u);
  ASSERT_TRUE(interp::runKernel(*k, args, f.diags)) << f.text();
  EXPECT_EQ(args.args[1].buffer.bytes, expected.args[1].buffer.bytes);
  EXPECT_EQ(args.args[2].buffer.bytes, expected.args[2].buffer.bytes);
}

// A column-major tile over the two innermost dimensions of a rank-3 source (a batch of 64x48
// row-major buffers viewed column-major as 48x64): the innermost offsets, sizes and strides swap, the
// batch dimension keeps its own. The interpreter gives the same C before and after.
TEST(OrderTranspose, ColumnMajorTileOverARank3Source) {
  IRFixture f;
  auto m = f.parse(R"(
xtc.kernel @k(%A: memref<2x64x48xf32>, %C: memref<2x64x48xf32>) {arg_names = ["A", "C"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  %c2 = arith.constant {value = 2 : index} : () -> (index)
  %c8 = arith.constant {value = 8 : index} : () -> (index)
  %c16 = arith.constant {value = 16 : index} : () -> (index)
  %c48 = arith.constant {value = 48 : index} : () -> (index)
  %c64 = arith.constant {value = 64 : index} : () -> (index)
  %c3072 = arith.constant {value = 3072 : index} : () -> (index)
  %ta = tile.init_tile %A, %c1, %c8, %c16, %c2, %c48, %c64, %c3072, %c1, %c48 {segments = [3, 3, 3]} : (memref<2x64x48xf32>, index, index, index, index, index, index, index, index, index) -> (tile<32x16xf32, order = [0, 1]>)
  %tc = tile.init_tile %C, %c1, %c8, %c16, %c2, %c48, %c64, %c3072, %c1, %c48 {segments = [3, 3, 3]} : (memref<2x64x48xf32>, index, index, index, index, index, index, index, index, index) -> (tile<32x16xf32, order = [0, 1]>)
  %v = tile.load_tile %ta : (tile<32x16xf32, order = [0, 1]>) -> (vector<32x16xf32>)
  %w = arith.addf %v, %v : (vector<32x16xf32>, vector<32x16xf32>) -> (vector<32x16xf32>)
  tile.store_tile %w, %tc : (vector<32x16xf32>, tile<32x16xf32, order = [0, 1]>) -> ()
  xtc.return : () -> ()
}
)");
  ASSERT_TRUE(m);
  ir::Operation* k = ir::moduleKernels(m.get())[0];
  auto args = xtc::testing::randomArgs(k, 7);
  auto expected = args;
  const auto initial = args;
  ASSERT_TRUE(interp::runKernel(*k, expected, f.diags)) << f.text();
  ASSERT_TRUE(passes::runOrderTranspose(m.get(), f.diags, pvc())) << f.text();
  std::string text = ir::printToString(*m);
  ASSERT_TRUE(f.verify(*m)) << f.text() << text;
  EXPECT_EQ(text.find("order = [0, 1]"), std::string::npos) << text;
  for (auto* init : opsNamed(k, "tile.init_tile")) {
    EXPECT_EQ(init->result()->type().str(), "tile<16x32xf32>");
    std::vector<int64_t> got;
    for (unsigned i = 1; i < init->numOperands(); ++i) got.push_back(IndexEval{}.eval(init->operand(i)));
    EXPECT_EQ(got, (std::vector<int64_t>{1, 16, 8, 2, 64, 48, 3072, 48, 1}));
  }
  ASSERT_TRUE(interp::runKernel(*k, args, f.diags)) << f.text() << text;
  EXPECT_NE(expected.args[1].buffer.bytes, initial.args[1].buffer.bytes);
  EXPECT_EQ(args.args[1].buffer.bytes, expected.args[1].buffer.bytes);
}
