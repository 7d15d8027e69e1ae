// xtc run's argument marshalling (driver/RunArgs.cpp: buildKernelArgs, then abiArgs) into the
// launch arguments every runtime receives, per docs/abi.md: a memref is its buffer followed by one
// i64 per dynamic dimension (static ones are not passed); a scalar is its bytes in the element type
// (f32 4, bf16 2 rounded to nearest even, index 8, i1 1). LevelZeroRuntimeTest.cpp and
// OpenCLRuntimeTest.cpp take it from there to the driver calls. Expected bytes worked out by hand.
#include "driver/RunArgs.h"

#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/ops/Ops.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

using namespace xtc;

namespace {

const char* kKernel = R"(xtc.kernel @k(%A: memref<?x8xbf16>, %alpha: f32, %h: bf16, %n: index, %flag: i1, %B: memref<?x?xf32>) {arg_names = ["A", "alpha", "h", "n", "flag", "B"], sg_size = 16, target = "generic", wg_size = [16, 1, 1]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  xtc.return : () -> ()
}
)";

std::vector<uint8_t> bytesOf(std::initializer_list<uint8_t> b) { return b; }

TEST(AbiArgs, BuffersDynamicDimsAndScalarBytes) {
  ir::registerAllOps();
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags(sm, out);
  sm.addBuffer("k.ir", kKernel);
  std::unique_ptr<ir::Operation> module = ir::parseModule("k.ir", *sm.text("k.ir"), diags);
  ASSERT_TRUE(module) << out.str();
  ir::Operation* kernel = ir::moduleKernels(module.get()).at(0);

  // h = 1 + 2^-8 lies halfway between the bf16 neighbours 1.0 (0x3F80) and 1 + 2^-7 (0x3F81):
  // nearest even is 0x3F80.
  driver::RunArgRequest req{{"A=3x8", "alpha=0.5", "h=1.00390625", "n=7", "flag=1", "B=2x5"}, {}, 42};
  interp::KernelArgs args;
  std::map<std::string, int64_t> sizes;
  ASSERT_TRUE(driver::buildKernelArgs(*kernel, req, diags, args, sizes)) << out.str();
  std::vector<driver::runtime::LaunchArg> launch = driver::abiArgs(*kernel, args);

  // A, A_dim0 (dim 1 is static), alpha, h, n, flag, B, B_dim0, B_dim1.
  ASSERT_EQ(launch.size(), 9u);
  EXPECT_EQ(launch[0].buffer, &args.args[0].buffer.bytes);
  EXPECT_EQ(launch[0].buffer->size(), 3u * 8 * 2);
  EXPECT_EQ(launch[1].buffer, nullptr);
  EXPECT_EQ(launch[1].scalar, bytesOf({3, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(launch[2].scalar, bytesOf({0x00, 0x00, 0x00, 0x3F}));  // 0.5f = 0x3F000000, little-endian
  EXPECT_EQ(launch[3].scalar, bytesOf({0x80, 0x3F}));
  EXPECT_EQ(launch[4].scalar, bytesOf({7, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(launch[5].scalar, bytesOf({1}));
  EXPECT_EQ(launch[6].buffer, &args.args[5].buffer.bytes);
  EXPECT_EQ(launch[6].buffer->size(), 2u * 5 * 4);
  EXPECT_EQ(launch[7].scalar, bytesOf({2, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(launch[8].scalar, bytesOf({5, 0, 0, 0, 0, 0, 0, 0}));
  // Seeded random inputs, never all zeros.
  bool nonzero = false;
  for (uint8_t b : *launch[6].buffer) nonzero = nonzero || b != 0;
  EXPECT_TRUE(nonzero);
}

}  // namespace
