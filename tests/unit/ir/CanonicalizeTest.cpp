// Unit tests of the canonicalize pass: folding results worked out by hand, identities, CSE across
// regions respecting dominance, DCE, and the scf folds.
#include "IrTestUtil.h"

#include "ir/Module.h"
#include "ir/passes/PassManager.h"

#include <gtest/gtest.h>

namespace xtc::ir {
namespace {

// Parses `body` inside a kernel, canonicalizes, verifies and returns the printed body ops only.
std::string canon(const std::string& params, const std::string& argNames, const std::string& body) {
  passes::registerAllPasses();
  auto p = testing::parse(testing::kernelWith(params, body, argNames));
  if (!p->module) return "parse failed: " + p->messages();
  passes::PassContext ctx{*p->diags, nullptr};
  passes::PassManager pm(ctx);
  if (!pm.addPipeline({"canonicalize"}) || !pm.run(p->module.get())) return "failed: " + p->messages();
  std::string text = printToString(*p->module);
  size_t b = text.find("} body {\n");
  size_t e = text.find("    xtc.return");
  return text.substr(b + 9, e - b - 9);
}

TEST(Canonicalize, FoldsIntegerArithmeticAtItsWidth) {
  std::string out = canon("%A: memref<?xi32>", "\"A\"",
                          "  %a = arith.constant {value = 2147483647 : i32} : () -> (i32)\n"
                          "  %b = arith.constant {value = 1 : i32} : () -> (i32)\n"
                          "  %s = arith.addi %a, %b : (i32, i32) -> (i32)\n"
                          "  %m7 = arith.constant {value = -7 : i32} : () -> (i32)\n"
                          "  %two = arith.constant {value = 2 : i32} : () -> (i32)\n"
                          "  %d = arith.divsi %m7, %two : (i32, i32) -> (i32)\n"
                          "  %f = arith.floordivsi %m7, %two : (i32, i32) -> (i32)\n"
                          "  %c = arith.ceildivsi %m7, %two : (i32, i32) -> (i32)\n"
                          "  %u = arith.shrui %m7, %two : (i32, i32) -> (i32)\n"
                          "  %v = vector.splat %s : (i32) -> (vector<4xi32>)\n"
                          "  %w = vector.splat %d : (i32) -> (vector<4xi32>)\n"
                          "  %x = vector.splat %f : (i32) -> (vector<4xi32>)\n"
                          "  %y = vector.splat %c : (i32) -> (vector<4xi32>)\n"
                          "  %z = vector.splat %u : (i32) -> (vector<4xi32>)\n"
                          "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
                          "  %t = tile.init_tile %A, %c0 : (memref<?xi32>, index) -> (tile<4xi32>)\n"
                          "  tile.store_tile %v, %t : (vector<4xi32>, tile<4xi32>) -> ()\n"
                          "  tile.store_tile %w, %t : (vector<4xi32>, tile<4xi32>) -> ()\n"
                          "  tile.store_tile %x, %t : (vector<4xi32>, tile<4xi32>) -> ()\n"
                          "  tile.store_tile %y, %t : (vector<4xi32>, tile<4xi32>) -> ()\n"
                          "  tile.store_tile %z, %t : (vector<4xi32>, tile<4xi32>) -> ()");
  // INT32_MAX + 1 wraps to INT32_MIN; -7/2 = -3 (toward zero), floor -4, ceil -3; -7 >>u 2 on 32 bits
  // is 0xFFFFFFF9 >> 2 = 0x3FFFFFFE = 1073741822.
  EXPECT_NE(out.find("dense<-2147483648> : vector<4xi32>"), std::string::npos) << out;
  EXPECT_NE(out.find("dense<-3> : vector<4xi32>"), std::string::npos) << out;
  EXPECT_NE(out.find("dense<-4> : vector<4xi32>"), std::string::npos) << out;
  EXPECT_NE(out.find("dense<1073741822> : vector<4xi32>"), std::string::npos) << out;
  EXPECT_EQ(out.find("arith.addi"), std::string::npos) << out;
  EXPECT_EQ(out.find("vector.splat"), std::string::npos) << out;
}

TEST(Canonicalize, DoesNotFoldDivisionByZeroOrF16) {
  std::string out = canon("%A: memref<?xi32>, %H: memref<?xf16>", "\"A\", \"H\"",
                          "  %a = arith.constant {value = 5 : i32} : () -> (i32)\n"
                          "  %z = arith.constant {value = 0 : i32} : () -> (i32)\n"
                          "  %d = arith.divsi %a, %z : (i32, i32) -> (i32)\n"
                          "  %h = arith.constant {value = 0.1 : f16} : () -> (f16)\n"
                          "  %s = arith.addf %h, %h : (f16, f16) -> (f16)\n"
                          "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
                          "  %t = tile.init_tile %A, %c0 : (memref<?xi32>, index) -> (tile<1xi32>)\n"
                          "  %v = vector.splat %d : (i32) -> (vector<1xi32>)\n"
                          "  tile.store_tile %v, %t : (vector<1xi32>, tile<1xi32>) -> ()\n"
                          "  %th = tile.init_tile %H, %c0 : (memref<?xf16>, index) -> (tile<1xf16>)\n"
                          "  %vh = vector.splat %s : (f16) -> (vector<1xf16>)\n"
                          "  tile.store_tile %vh, %th : (vector<1xf16>, tile<1xf16>) -> ()");
  EXPECT_NE(out.find("arith.divsi"), std::string::npos) << out;
  EXPECT_NE(out.find("arith.addf"), std::string::npos) << out;
}

TEST(Canonicalize, FoldsF32WithSingleRounding) {
  // 0.1f + 0.2f in f32 is 0.300000011920928955078125 (the f32 nearest to 0.1f + 0.2f), not the
  // double 0.30000000000000004.
  std::string out = canon("%A: memref<?xf32>", "\"A\"",
                          "  %a = arith.constant {value = 0.10000000149011612 : f32} : () -> (f32)\n"
                          "  %b = arith.constant {value = 0.20000000298023224 : f32} : () -> (f32)\n"
                          "  %s = arith.addf %a, %b : (f32, f32) -> (f32)\n"
                          "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
                          "  %t = tile.init_tile %A, %c0 : (memref<?xf32>, index) -> (tile<1xf32>)\n"
                          "  %v = vector.splat %s : (f32) -> (vector<1xf32>)\n"
                          "  tile.store_tile %v, %t : (vector<1xf32>, tile<1xf32>) -> ()");
  EXPECT_NE(out.find("dense<0.30000001192092896> : vector<1xf32>"), std::string::npos) << out;
}

TEST(Canonicalize, IdentitiesAndIndexMath) {
  std::string out = canon("%n: index, %A: memref<?x?xf32>", "\"n\", \"A\"",
                          "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
                          "  %c1 = arith.constant {value = 1 : index} : () -> (index)\n"
                          "  %c32 = arith.constant {value = 32 : index} : () -> (index)\n"
                          "  %a = arith.addi %c0, %n : (index, index) -> (index)\n"
                          "  %b = arith.muli %a, %c1 : (index, index) -> (index)\n"
                          "  %m = arith.muli %b, %c32 : (index, index) -> (index)\n"
                          "  %q = arith.ceildivsi %m, %c32 : (index, index) -> (index)\n"
                          "  %z = arith.muli %q, %c0 : (index, index) -> (index)\n"
                          "  %t = tile.init_tile %A, %q, %z : (memref<?x?xf32>, index, index) -> (tile<8x8xf32>)\n"
                          "  tile.prefetch_tile %t : (tile<8x8xf32>) -> ()");
  EXPECT_NE(out.find("tile.init_tile %A, %n, %"), std::string::npos) << out;
  EXPECT_EQ(out.find("arith.muli"), std::string::npos) << out;
  EXPECT_EQ(out.find("ceildivsi"), std::string::npos) << out;
}

TEST(Canonicalize, CseAcrossRegionsRespectsDominance) {
  std::string out = canon("%n: index, %A: memref<?xf32>", "\"n\", \"A\"",
                          "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
                          "  %c1 = arith.constant {value = 1 : index} : () -> (index)\n"
                          "  %x = arith.addi %n, %c1 : (index, index) -> (index)\n"
                          "  scf.for %c0, %n, %c1 : (index, index, index) -> () ({\n"
                          "  ^bb0(%i: index):\n"
                          "    %y = arith.addi %n, %c1 : (index, index) -> (index)\n"
                          "    %w = arith.muli %i, %n : (index, index) -> (index)\n"
                          "    %t = tile.init_tile %A, %y : (memref<?xf32>, index) -> (tile<4xf32>)\n"
                          "    %t2 = tile.init_tile %A, %w : (memref<?xf32>, index) -> (tile<4xf32>)\n"
                          "    tile.prefetch_tile %t : (tile<4xf32>) -> ()\n"
                          "    tile.prefetch_tile %t2 : (tile<4xf32>) -> ()\n"
                          "    scf.yield : () -> ()\n"
                          "  })\n"
                          "  %w2 = arith.muli %c1, %n : (index, index) -> (index)\n"
                          "  %t3 = tile.init_tile %A, %x : (memref<?xf32>, index) -> (tile<4xf32>)\n"
                          "  tile.prefetch_tile %t3 : (tile<4xf32>) -> ()");
  // %y inside the loop reuses %x from before it; %t3 after the loop cannot reuse %t from inside.
  size_t addis = 0;
  for (size_t p = out.find("arith.addi"); p != std::string::npos; p = out.find("arith.addi", p + 1)) ++addis;
  EXPECT_EQ(addis, 1u) << out;
  EXPECT_NE(out.find("tile.init_tile %A, %x"), std::string::npos) << out;
  size_t inits = 0;
  for (size_t p = out.find("tile.init_tile"); p != std::string::npos; p = out.find("tile.init_tile", p + 1)) ++inits;
  EXPECT_EQ(inits, 3u) << out;
}

TEST(Canonicalize, ScfFolds) {
  std::string out = canon("%n: index, %A: memref<?xf32>", "\"n\", \"A\"",
                          "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
                          "  %c4 = arith.constant {value = 4 : index} : () -> (index)\n"
                          "  %true = arith.constant {value = 1 : i1} : () -> (i1)\n"
                          "  %r = scf.for %c4, %c0, %c4, %n : (index, index, index, index) -> (index) ({\n"
                          "  ^bb0(%i: index, %acc: index):\n"
                          "    %s = arith.addi %acc, %i : (index, index) -> (index)\n"
                          "    scf.yield %s : (index) -> ()\n"
                          "  })\n"
                          "  %k = scf.if %true : (i1) -> (index) ({\n"
                          "    %in = arith.addi %r, %c4 : (index, index) -> (index)\n"
                          "    scf.yield %in : (index) -> ()\n"
                          "  }, {\n"
                          "    scf.yield %c0 : (index) -> ()\n"
                          "  })\n"
                          "  %r2, %dead = scf.for %c0, %n, %c4, %k, %k : (index, index, index, index, index) -> (index, index) ({\n"
                          "  ^bb0(%j: index, %same: index, %unused: index):\n"
                          "    scf.yield %same, %unused : (index, index) -> ()\n"
                          "  })\n"
                          "  %t = tile.init_tile %A, %r2 : (memref<?xf32>, index) -> (tile<4xf32>)\n"
                          "  tile.prefetch_tile %t : (tile<4xf32>) -> ()");
  // Zero-trip loop -> %n; the if on true is inlined -> %n + 4; the pass-through loop-carried value
  // becomes the initial value and both loop-carried values are removed.
  EXPECT_EQ(out.find("scf.if"), std::string::npos) << out;
  EXPECT_NE(out.find("arith.addi %n, %c4"), std::string::npos) << out;
  EXPECT_NE(out.find("scf.for %c0, %n, %c4 : (index, index, index) -> ()"), std::string::npos) << out;
  EXPECT_NE(out.find("tile.init_tile %A, %in"), std::string::npos) << out;
}

TEST(Canonicalize, DeadPureOpsGoSideEffectsStay) {
  std::string out = canon("%n: index", "\"n\"",
                          "  %a = arith.addi %n, %n : (index, index) -> (index)\n"
                          "  %b = arith.muli %a, %a : (index, index) -> (index)\n"
                          "  %s = gpu.slm_alloc : () -> (memref<16xf32, slm>)\n"
                          "  gpu.barrier : () -> ()");
  EXPECT_EQ(out, "    %s = gpu.slm_alloc : () -> (memref<16xf32, slm>)\n    gpu.barrier : () -> ()\n");
}

}  // namespace
}  // namespace xtc::ir
