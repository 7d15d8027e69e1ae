// Verifier tests: one case per verifier rule (structure, dominance, kernel conventions and each op
// verifier). Each case is a small kernel body and the message the verifier must report.
#include "IrTestUtil.h"

#include "ir/Builder.h"
#include "ir/Module.h"

#include <gtest/gtest.h>

namespace xtc::ir {
namespace {

using testing::kernelWith;
using testing::verifyText;

struct Case {
  const char* name;
  const char* params;
  const char* argNames;
  const char* body;
  const char* error;  // expected substring of the diagnostics ("" = valid)
};

class VerifierRules : public ::testing::TestWithParam<Case> {};

TEST_P(VerifierRules, Reports) {
  const Case& c = GetParam();
  std::string msg = verifyText(kernelWith(c.params, c.body, c.argNames));
  if (std::string(c.error).empty()) {
    EXPECT_EQ(msg, "");
  } else {
    EXPECT_NE(msg.find(c.error), std::string::npos) << "expected: " << c.error << "\ngot: " << msg;
    EXPECT_NE(msg.find("test.ir:"), std::string::npos) << "errors point at the op: " << msg;
  }
}

#define C0(n) "  %" n " = arith.constant {value = 0 : index} : () -> (index)\n"
#define MR "memref<?x?xbf16>"
#define T1 "tile<32x16xbf16>"
#define V1 "vector<32x16xbf16>"

const Case kCases[] = {
    // ---- valid programs (the rules below must not fire on them)
    {"valid_gemm_step", "%A: " MR ", %B: " MR ", %C: memref<?x?xf32>", "\"A\", \"B\", \"C\"",
     C0("c0")
     "  %ta = tile.init_tile %A, %c0, %c0 : (" MR ", index, index) -> (tile<32x16xbf16>)\n"
     "  %tb = tile.init_tile %B, %c0, %c0 : (" MR ", index, index) -> (tile<16x64xbf16>)\n"
     "  %tc = tile.init_tile %C, %c0, %c0 : (memref<?x?xf32>, index, index) -> (tile<32x64xf32>)\n"
     "  %a = tile.load_tile %ta : (tile<32x16xbf16>) -> (vector<32x16xbf16>)\n"
     "  %b = tile.load_tile %tb : (tile<16x64xbf16>) -> (vector<16x64xbf16>)\n"
     "  %c = tile.tile_mma %a, %b : (vector<32x16xbf16>, vector<16x64xbf16>) -> (vector<32x64xf32>)\n"
     "  tile.store_tile %c, %tc : (vector<32x64xf32>, tile<32x64xf32>) -> ()\n",
     ""},
    // ---- structure
    {"unknown_op", "", "", "  tile.frobnicate : () -> ()\n", "'tile.frobnicate' op unknown op"},
    {"terminator_not_last", "", "", "  xtc.return : () -> ()\n", "is a terminator and must be the last op of its block"},
 // the parser already rejects it
    // ---- kernel conventions
    {"yield_outside", "", "", "  scf.yield : () -> ()\n", "must be inside 'scf.for' or 'scf.if'"},
    {"grid_in_body", "", "", C0("c") "  xtc.grid %c, %c, %c : (index, index, index) -> ()\n", "must be the terminator of a kernel's launch region"},
    {"arg_names_count", "%n: index", "", "", "'arg_names' has 0 names for 1 parameters"},
    // ---- scf
    {"for_bounds_index", "%n: i32", "\"n\"",
     "  scf.for %n, %n, %n : (i32, i32, i32) -> () ({\n  ^bb0(%i: index):\n    scf.yield : () -> ()\n  })\n",
     "lower bound must be 'index'"},
    {"for_result_types", "%n: index", "\"n\"",
     "  %f = arith.constant {value = 1.0 : f32} : () -> (f32)\n"
     "  %r = scf.for %n, %n, %n, %f : (index, index, index, f32) -> (f16) ({\n  ^bb0(%i: index, %x: f16):\n"
     "    scf.yield %x : (f16) -> ()\n  })\n",
     "initial value #0 has type 'f32' but result #0 has type 'f16'"},
    {"for_block_args", "%n: index", "\"n\"",
     "  scf.for %n, %n, %n : (index, index, index) -> () ({\n    scf.yield : () -> ()\n  })\n",
     "body block must have 1 arguments"},
    {"for_yield_types", "%n: index", "\"n\"",
     "  %f = arith.constant {value = 1.0 : f32} : () -> (f32)\n"
     "  %r = scf.for %n, %n, %n, %f : (index, index, index, f32) -> (f32) ({\n  ^bb0(%i: index, %x: f32):\n"
     "    scf.yield %i : (index) -> ()\n  })\n",
     "loop body yields 'index' as value #0 but the op's result #0 has type 'f32'"},
    {"for_missing_yield", "%n: index", "\"n\"",
     "  scf.for %n, %n, %n : (index, index, index) -> () ({\n  ^bb0(%i: index):\n  })\n", "loop body must end in 'scf.yield'"},
    {"if_cond_type", "%n: index", "\"n\"", "  scf.if %n : (index) -> () ({\n    scf.yield : () -> ()\n  }, {})\n",
     "condition must be 'i1'"},
    {"if_else_missing", "%c: i1, %n: index", "\"c\", \"n\"",
     "  %r = scf.if %c : (i1) -> (index) ({\n    scf.yield %n : (index) -> ()\n  }, {})\n",
     "'else' region is required when the op has results"},
    {"if_yield_mismatch", "%c: i1, %n: index", "\"c\", \"n\"",
     "  %r = scf.if %c : (i1) -> (index) ({\n    scf.yield %n : (index) -> ()\n  }, {\n    scf.yield %c : (i1) -> ()\n  })\n",
     "'else' region yields 'i1' as value #0"},
    // ---- arith
    {"binary_types_equal", "%n: index, %m: i32", "\"n\", \"m\"", "  %x = arith.addi %n, %m : (index, i32) -> (index)\n",
     "operand #1 has type 'i32' but the result has type 'index'"},
    {"int_op_on_float", "%f: f32", "\"f\"", "  %x = arith.addi %f, %f : (f32, f32) -> (f32)\n",
     "operands must be integer or index scalars or vectors"},
    {"float_op_on_int", "%n: i32", "\"n\"", "  %x = arith.addf %n, %n : (i32, i32) -> (i32)\n",
     "operands must be floating-point scalars or vectors"},
    {"constant_missing_value", "", "", "  %x = arith.constant : () -> (index)\n", "requires attribute 'value'"},
    {"constant_type_mismatch", "", "", "  %x = arith.constant {value = 1 : i32} : () -> (index)\n",
     "'value' has type 'i32' but the result has type 'index'"},
    {"constant_float_for_int", "", "", "  %x = arith.constant {value = 1.0 : f32} : () -> (i32)\n",
     "must be an integer"},
    {"constant_dense_shape", "", "",
     "  %x = arith.constant {value = dense<0.0> : vector<2x2xf32>} : () -> (vector<4xf32>)\n",
     "'value' has type 'vector<2x2xf32>' but the result has type 'vector<4xf32>'"},
    {"cmp_predicate", "%n: index", "\"n\"", "  %x = arith.cmpi %n, %n {predicate = cmpf<olt>} : (index, index) -> (i1)\n",
     "attribute 'predicate' must be a 'cmpi<...>' enum"},
    {"cmp_result", "%n: index", "\"n\"", "  %x = arith.cmpi %n, %n {predicate = cmpi<eq>} : (index, index) -> (index)\n",
     "result must be 'i1'"},
    {"select_cond", "%n: index", "\"n\"", "  %x = arith.select %n, %n, %n : (index, index, index) -> (index)\n",
     "condition must be 'i1'"},
    {"convert_shape", "%v: vector<4xf32>", "\"v\"", "  %x = arith.convert %v : (vector<4xf32>) -> (vector<8xf16>)\n",
     "must have the same shape"},
    {"bitcast_width", "%v: f32", "\"v\"", "  %x = arith.bitcast %v : (f32) -> (f16)\n", "same bit width"},
    {"splat_elem", "%v: f32", "\"v\"", "  %x = vector.splat %v : (f32) -> (vector<4xf16>)\n", "result element type must be"},
    {"math_on_int", "%v: i32", "\"v\"", "  %x = math.exp %v : (i32) -> (i32)\n", "floating-point"},
    // ---- gpu / memref
    {"group_id_dim", "", "", "  %x = gpu.group_id {dim = 3} : () -> (index)\n", "'dim' must be 0, 1 or 2"},
    {"group_id_result", "", "", "  %x = gpu.group_id {dim = 0} : () -> (i32)\n", "result must be 'index'"},
    {"slm_alloc_space", "", "", "  %x = gpu.slm_alloc : () -> (memref<16xf32>)\n", "result must be an 'slm' memref"},
    {"memref_dim_range", "%A: " MR, "\"A\"", "  %x = memref.dim %A {index = 2} : (" MR ") -> (index)\n", "'index' 2 is out of range"},
    // ---- tile
    {"init_tile_offsets", "%A: " MR, "\"A\"", C0("c0") "  %t = tile.init_tile %A, %c0 : (" MR ", index) -> (" T1 ")\n",
     "needs one offset per memref dimension: 2"},
    {"init_tile_elem", "%A: " MR, "\"A\"",
     C0("c0") "  %t = tile.init_tile %A, %c0, %c0 : (" MR ", index, index) -> (tile<32x16xf16>)\n",
     "tile element type must match the memref"},
    {"init_tile_segments", "%A: " MR, "\"A\"",
     C0("c0") "  %t = tile.init_tile %A, %c0, %c0 {segments = [1, 0, 0]} : (" MR ", index, index) -> (" T1 ")\n",
     "'segments' adds up to 1 operands but the op has 2"},
    {"init_tile_address", "%p: i64", "\"p\"", C0("c0") "  %t = tile.init_tile %p, %c0, %c0 : (i64, index, index) -> (" T1 ")\n",
     "an address source needs offsets, shape and strides of equal count"},
    {"init_tile_scattered", "%A: memref<?xf32>", "\"A\"",
     C0("c0") "  %t = tile.init_tile %A, %c0 : (memref<?xf32>, index) -> (tile<16xf32, scattered>)\n",
     "offsets of a scattered tile must be a vector of 'index'"},
    {"init_tile_order", "%A: " MR, "\"A\"",
     C0("c0") "  %t = tile.init_tile %A, %c0, %c0 : (" MR ", index, index) -> (tile<32x16xbf16, order = [0, 0]>)\n",
     "'order' must be a permutation"},
    {"load_tile_shape", "%t: " T1, "\"t\"", "  %v = tile.load_tile %t : (" T1 ") -> (vector<16x32xbf16>)\n",
     "must have the shape and element type of the tile"},
    {"load_tile_scattered", "%t: tile<16xf32, scattered>", "\"t\"",
     "  %v = tile.load_tile %t : (tile<16xf32, scattered>) -> (vector<16xf32>)\n", "is read with 'tile.load_gather'"},
    {"store_tile_value", "%t: " T1 ", %v: vector<32x16xf32>", "\"t\", \"v\"",
     "  tile.store_tile %v, %t : (vector<32x16xf32>, " T1 ") -> ()\n", "value 'vector<32x16xf32>' must have the shape and element type"},
    {"prefetch_locality", "%t: " T1, "\"t\"", "  tile.prefetch_tile %t {locality = 7} : (" T1 ") -> ()\n", "'locality' must be 0..3"},
    {"update_offset_count", "%t: " T1 ", %n: index", "\"t\", \"n\"",
     "  %u = tile.update_tile_offset %t, %n : (" T1 ", index) -> (" T1 ")\n", "needs one offset per tile dimension (2)"},
    {"update_offset_type", "%t: " T1 ", %n: index", "\"t\", \"n\"",
     "  %u = tile.update_tile_offset %t, %n, %n : (" T1 ", index, index) -> (tile<32x16xf16>)\n", "must be the tile type"},
    {"mma_k_mismatch", "%a: vector<32x16xbf16>, %b: vector<32x64xbf16>", "\"a\", \"b\"",
     "  %c = tile.tile_mma %a, %b : (vector<32x16xbf16>, vector<32x64xbf16>) -> (vector<32x64xf32>)\n",
     "A is 32x16 so B must have 16 rows, got 32x64"},
    {"mma_result_shape", "%a: vector<32x16xbf16>, %b: vector<16x64xbf16>", "\"a\", \"b\"",
     "  %c = tile.tile_mma %a, %b : (vector<32x16xbf16>, vector<16x64xbf16>) -> (vector<32x32xf32>)\n",
     "result must be 32x64, got 32x32"},
    {"mma_types", "%a: vector<32x16xbf16>, %b: vector<16x64xbf16>", "\"a\", \"b\"",
     "  %c = tile.tile_mma %a, %b : (vector<32x16xbf16>, vector<16x64xbf16>) -> (vector<32x64xi32>)\n",
     "unsupported element types: bf16 x bf16 -> i32"},
    {"mma_i8", "%a: vector<8x32xi8>, %b: vector<32x16xi8>", "\"a\", \"b\"",
     "  %c = tile.tile_mma %a, %b : (vector<8x32xi8>, vector<32x16xi8>) -> (vector<8x16xi32>)\n", ""},
    {"mma_c_shape", "%a: vector<32x16xf16>, %b: vector<16x64xf16>, %c: vector<32x32xf32>", "\"a\", \"b\", \"c\"",
     "  %d = tile.tile_mma %a, %b, %c : (vector<32x16xf16>, vector<16x64xf16>, vector<32x32xf32>) -> (vector<32x64xf32>)\n",
     "C 'vector<32x32xf32>' must have the result's shape"},
    {"atomic_kind", "%t: tile<8x16xi32>, %v: vector<8x16xi32>", "\"t\", \"v\"",
     "  %o = tile.atomic_rmw %v, %t {kind = atomic<addf>} : (vector<8x16xi32>, tile<8x16xi32>) -> (vector<8x16xi32>)\n",
     "atomic 'addf' needs a floating-point element type"},
    {"transpose_perm", "%v: vector<8x16xf32>", "\"v\"",
     "  %o = tile.transpose %v {permutation = [1, 1]} : (vector<8x16xf32>) -> (vector<16x8xf32>)\n", "not a permutation"},
    {"transpose_shape", "%v: vector<8x16xf32>", "\"v\"",
     "  %o = tile.transpose %v {permutation = [1, 0]} : (vector<8x16xf32>) -> (vector<8x16xf32>)\n", "result shape must be 16x8"},
    {"reduction_shape", "%v: vector<64x32xf32>", "\"v\"",
     "  %o = tile.reduction %v {dims = [1], kind = reduce<add>} : (vector<64x32xf32>) -> (vector<1x32xf32>)\n",
     "result shape must be 64x1"},
    {"reduction_size_divides", "%v: vector<64x64xf32>", "\"v\"",
     "  %o = tile.reduction %v {dims = [0], kind = reduce<add>, reduction_size = 24} : (vector<64x64xf32>) -> (vector<2x64xf32>)\n",
     "'reduction_size' 24 must divide dimension 0 of size 64"},
    {"reduction_size_ok", "%v: vector<64x64xf32>", "\"v\"",
     "  %o = tile.reduction %v {dims = [0], kind = reduce<add>, reduction_size = 32} : (vector<64x64xf32>) -> (vector<2x64xf32>)\n", ""},
    {"reduction_dims_range", "%v: vector<64x64xf32>", "\"v\"",
     "  %o = tile.reduction %v {dims = [2], kind = reduce<max>} : (vector<64x64xf32>) -> (vector<64x64xf32>)\n",
     "dimension 2 in 'dims' is out of range"},
    {"reduction_kind_type", "%v: vector<64x64xf32>", "\"v\"",
     "  %o = tile.reduction %v {dims = [1], kind = reduce<xor>} : (vector<64x64xf32>) -> (vector<64x1xf32>)\n",
     "reduction 'xor' needs an integer element type"},
    {"broadcast_source_one", "%v: vector<2x32xf32>", "\"v\"",
     "  %o = tile.broadcast %v {dims = [0]} : (vector<2x32xf32>) -> (vector<64x32xf32>)\n",
     "broadcast dimension 0 of the operand must be 1"},
    {"broadcast_size", "%v: vector<2x64xf32>", "\"v\"",
     "  %o = tile.broadcast %v {broadcast_size = 32, dims = [0]} : (vector<2x64xf32>) -> (vector<32x64xf32>)\n",
     "dimension 0 must become 64, got 32"},
    {"broadcast_size_ok", "%v: vector<64x2xf32>", "\"v\"",
     "  %o = tile.broadcast %v {broadcast_size = 32, dims = [1]} : (vector<64x2xf32>) -> (vector<64x64xf32>)\n", ""},
    {"broadcast_other_dim", "%v: vector<1x32xf32>", "\"v\"",
     "  %o = tile.broadcast %v {dims = [0]} : (vector<1x32xf32>) -> (vector<64x16xf32>)\n",
     "dimension 1 is not broadcast, so it must stay 32"},
    {"convert_layout_shape", "%v: vector<8x16xf32>", "\"v\"",
     "  %o = tile.convert_layout %v : (vector<8x16xf32>) -> (vector<16x8xf32>)\n", "must have the operand's shape"},
    {"gather_mask", "%t: tile<16xf32, scattered>, %m: vector<8xi1>", "\"t\", \"m\"",
     "  %v = tile.load_gather %t, %m : (tile<16xf32, scattered>, vector<8xi1>) -> (vector<16xf32>)\n",
     "mask must be a vector of 'i1' with the tile's shape"},
    {"scatter_tile", "%t: tile<16xf32>, %m: vector<16xi1>, %v: vector<16xf32>", "\"t\", \"m\", \"v\"",
     "  tile.store_scatter %v, %m, %t : (vector<16xf32>, vector<16xi1>, tile<16xf32>) -> ()\n", "needs a scattered tile"},
    // xe.block_read / xe.block_write: the access unit (elem_bits, ir/ops/XeOps.h).
    {"block_unit_pairs_ok", "%m: memref<64xf16>, %w: vector<4xf16>", "\"m\", \"w\"",
     C0("c") "  %v = xe.block_read %m, %c {elem_bits = 32} : (memref<64xf16>, index) -> (vector<4xf16>)\n"
     "  xe.block_write %w, %m, %c {elem_bits = 32} : (vector<4xf16>, memref<64xf16>, index) -> ()\n", ""},
    {"block_unit_bits", "%m: memref<64xf32>", "\"m\"",
     C0("c") "  %v = xe.block_read %m, %c {elem_bits = 16} : (memref<64xf32>, index) -> (vector<2xf32>)\n",
     "elem_bits must be the element's bits or 32 over 8- or 16-bit elements, got 16"},
    {"block_unit_quads_ok", "%m: memref<64xi8>", "\"m\"",
     C0("c") "  %v = xe.block_read %m, %c {elem_bits = 32} : (memref<64xi8>, index) -> (vector<8xi8>)\n", ""},
    {"block_unit_bytes_16", "%m: memref<64xi8>", "\"m\"",
     C0("c") "  %v = xe.block_read %m, %c {elem_bits = 16} : (memref<64xi8>, index) -> (vector<2xi8>)\n",
     "elem_bits must be the element's bits or 32 over 8- or 16-bit elements, got 16"},
    {"block_unit_quads_whole", "%m: memref<64xi8>", "\"m\"",
     C0("c") "  %v = xe.block_read %m, %c {elem_bits = 32} : (memref<64xi8>, index) -> (vector<6xi8>)\n",
     "6 elements per lane do not make whole 32-bit units"},
    {"block_unit_whole", "%m: memref<64xf16>, %w: vector<3xf16>", "\"m\", \"w\"",
     C0("c") "  xe.block_write %w, %m, %c {elem_bits = 32} : (vector<3xf16>, memref<64xf16>, index) -> ()\n",
     "3 elements per lane do not make whole 32-bit units"},
    // xe.oword_align_bits: an index in, an index out (lower-xe's guard bits).
    {"oword_align_bits_ok", "", "", C0("c") "  %b = xe.oword_align_bits %c : (index) -> (index)\n", ""},
    {"oword_align_bits_type", "%x: i32", "\"x\"", "  %b = xe.oword_align_bits %x : (i32) -> (i32)\n",
     "the operand and the result must be index"},
};

INSTANTIATE_TEST_SUITE_P(All, VerifierRules, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// Rules that need IR the text format cannot express are built directly.
TEST(Verifier, DominanceAcrossBlocksAndRegions) {
  registerAllOps();
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {"n"}, {Type::index()}, {});
  Builder lb(&kernelLaunch(k));
  Value* launchValue = lb.constantIndex(1);
  lb.create("xtc.grid", {launchValue, launchValue, launchValue}, {});
  Builder b(&kernelBody(k));
  // A value of the launch region used in the body: not visible there.
  b.create("arith.addi", {launchValue, launchValue}, {Type::index()});
  // A value defined inside a loop used after it.
  Value* n = kernelBody(k).argument(0);
  Operation* loop = b.create("scf.for", {n, n, n}, {}, {}, 1);
  Block& body = loop->region(0).addBlock();
  body.addArgument(Type::index());
  Builder ib(&body);
  Value* inner = ib.constantIndex(5);
  ib.create("scf.yield", {}, {});
  b.create("arith.addi", {inner, n}, {Type::index()});
  // An op using its own result.
  Operation* self = b.create("arith.addi", {n, n}, {Type::index()});
  self->setOperand(1, self->result());
  b.create("xtc.return", {}, {});

  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags(sm, out);
  diags.setErrorLimit(0);
  EXPECT_FALSE(verify(*m, diags));
  diags.flush();
  std::string msg = out.str();
  size_t count = 0;
  for (size_t p = msg.find("is not defined before this use"); p != std::string::npos; p = msg.find("is not defined before this use", p + 1)) ++count;
  // Two operands of the first addi, one of the addi after the loop, one of the self-using addi.
  EXPECT_EQ(count, 4u) << msg;
}

TEST(Verifier, RegionCountComesFromTheRegistry) {
  registerAllOps();
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {}, {}, {});
  Builder lb(&kernelLaunch(k));
  Value* one = lb.constantIndex(1);
  lb.create("xtc.grid", {one, one, one}, {});
  Builder b(&kernelBody(k));
  b.create("scf.for", {one, one, one}, {}, {}, 0);
  b.create("arith.addi", {one, one}, {Type::index()}, {}, 1);
  b.create("xtc.return", {}, {});
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags(sm, out);
  EXPECT_FALSE(verify(*m, diags));
  diags.flush();
  EXPECT_NE(out.str().find("'scf.for' op expects 1 regions, got 0"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("'arith.addi' op expects 0 regions, got 1"), std::string::npos) << out.str();
}

TEST(Verifier, ModuleHoldsOnlyUniqueKernels) {
  std::string k = kernelWith("", "", "");
  std::string msg = verifyText("builtin.module {\n" + k + k + "}\n");
  EXPECT_NE(msg.find("defines kernel 'k' twice"), std::string::npos) << msg;
  msg = verifyText("builtin.module {\n  %x = arith.constant {value = 1 : index} : () -> (index)\n}\n");
  EXPECT_NE(msg.find("may only contain 'xtc.kernel' ops"), std::string::npos) << msg;
}

TEST(Verifier, KernelParametersMustMatchAcrossRegions) {
  registerAllOps();
  auto m = createModule();
  Operation* k = createKernel(m.get(), "k", {"n"}, {Type::index()}, {});
  kernelLaunch(k).argument(0)->setType(Type::scalar(ElemKind::I32));
  Builder lb(&kernelLaunch(k));
  Value* one = lb.constantIndex(1);
  lb.create("xtc.grid", {one, one, one}, {});
  Builder(&kernelBody(k)).create("xtc.return", {}, {});
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags(sm, out);
  EXPECT_FALSE(verify(*m, diags));
  diags.flush();
  EXPECT_NE(out.str().find("parameter #0 has type 'index' in the body but 'i32' in the launch region"), std::string::npos) << out.str();
}

TEST(Verifier, ErrorsAreReportedAtTheOpLocation) {
  std::string text = kernelWith("%n: index", "  %x = arith.addf %n, %n : (index, index) -> (index)", "\"n\"");
  std::string msg = verifyText(text);
  // kernelWith puts the body's first op on line 5, indented by two spaces.
  EXPECT_EQ(msg.substr(0, msg.find('\n')),
            "test.ir:5:3: error: 'arith.addf' op operands must be floating-point scalars or vectors, got 'index'")
      << msg;
}

}  // namespace
}  // namespace xtc::ir
