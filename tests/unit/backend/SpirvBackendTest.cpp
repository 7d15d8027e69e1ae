// The SPIR-V backend on small hand-written lane-level kernels: the LLVM signature and metadata of the
// kernel ABI (docs/abi.md), diagnostics for input that is not lane level, and the SPIR-V binary
// (header, version <= 1.4, validation, determinism).
#include "backends/spirv/SpirvBackend.h"
#include "ir/Parser.h"
#include "ir/ops/LaneOps.h"
#include "ir/ops/Ops.h"

#include <gtest/gtest.h>

#include <sstream>

namespace xtc::backend {
namespace {

// A kernel with a partly static memref, a scalar, a bounds-checked load and a broadcast.
const char* kLaneKernel = R"(
xtc.kernel @k(%A: memref<4x?xf32>, %n: i32, %s: index) {arg_names = ["A", "n", "s"], sg_size = 16, target = "generic", wg_size = [48, 1, 1]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %lane = gpu.lane_id : () -> (index)
  %v = lane.load %A, %s, %lane : (memref<4x?xf32>, index, index) -> (f32)
  %c2 = arith.constant {value = 2 : index} : () -> (index)
  %b = lane.broadcast %v, %c2 : (f32, index) -> (f32)
  %w = arith.addf %v, %b : (f32, f32) -> (f32)
  lane.store %w, %A, %s, %lane : (f32, memref<4x?xf32>, index, index) -> ()
  xtc.return : () -> ()
}
)";

struct SpirvBackend : testing::Test {
  SourceManager sm;
  std::ostringstream text;
  DiagnosticEngine diags{sm, text};
  BackendOptions opts;
  void SetUp() override {
    ir::registerAllOps();
    ir::registerLaneOps();
    opts.target = targets::findTarget("generic");
  }
  std::unique_ptr<ir::Operation> parse(const std::string& src) {
    auto m = ir::parseModule("t.ir", src, diags);
    diags.flush();
    EXPECT_TRUE(m) << text.str();
    return m;
  }
};

TEST_F(SpirvBackend, KernelSignatureFollowsTheAbi) {
  auto m = parse(kLaneKernel);
  ASSERT_TRUE(m);
  std::string ll;
  opts.optLevel = 0;
  ASSERT_TRUE(emitLLVMText(*m, opts, diags, ll)) << text.str();
  // memref<4x?xf32>: pointer + the one dynamic dim; i32 and index scalars as i32 and i64.
  EXPECT_NE(ll.find("define spir_kernel void @k(float addrspace(1)* %A, i64 %A_dim1, i32 %n, i64 %s)"),
            std::string::npos)
      << ll;
  EXPECT_NE(ll.find("!{!\"float*\", !\"long\", !\"int\", !\"long\"}"), std::string::npos) << ll;
  EXPECT_NE(ll.find("!{i32 1, i32 0, i32 0, i32 0}"), std::string::npos) << ll;  // address spaces
  EXPECT_NE(ll.find("!{i32 48, i32 1, i32 1}"), std::string::npos) << ll;        // reqd_work_group_size
  EXPECT_NE(ll.find("!{i32 16}"), std::string::npos) << ll;                      // subgroup size
  EXPECT_NE(ll.find("target triple = \"spir64-unknown-unknown\""), std::string::npos);
  // The static dimension 0 (4) bounds the row index as a constant.
  EXPECT_NE(ll.find("icmp ult i64 %s, 4"), std::string::npos) << ll;
  EXPECT_NE(ll.find("@_Z19sub_group_broadcastfj(float"), std::string::npos) << ll;
  // Typed pointers: no opaque `ptr` anywhere.
  EXPECT_EQ(ll.find(" ptr "), std::string::npos) << ll;
}

TEST_F(SpirvBackend, SpirvHeaderValidityAndDeterminism) {
  auto m = parse(kLaneKernel);
  ASSERT_TRUE(m);
  std::vector<uint32_t> a, b;
  ASSERT_TRUE(emitSpirv(*m, opts, diags, a)) << text.str();
  ASSERT_TRUE(emitSpirv(*m, opts, diags, b)) << text.str();
  ASSERT_GT(a.size(), 5u);
  EXPECT_EQ(a[0], 0x07230203u);   // SPIR-V magic
  EXPECT_LE(a[1], 0x00010400u);   // version <= 1.4
  EXPECT_EQ(a, b);
  std::string why;
  EXPECT_TRUE(validateSpirv(a, &why)) << why;
  std::string dis;
  ASSERT_TRUE(disassembleSpirv(a, dis, &why)) << why;
  EXPECT_NE(dis.find("OpGroupBroadcast"), std::string::npos) << dis;
  EXPECT_NE(dis.find("SubgroupSize 16"), std::string::npos) << dis;
  EXPECT_NE(dis.find("LocalSize 48 1 1"), std::string::npos) << dis;
}

TEST_F(SpirvBackend, ValidatorRejectsACorruptBinary) {
  auto m = parse(kLaneKernel);
  ASSERT_TRUE(m);
  std::vector<uint32_t> words;
  ASSERT_TRUE(emitSpirv(*m, opts, diags, words));
  words.resize(words.size() - 3);  // cut into the last instructions
  std::string why;
  EXPECT_FALSE(validateSpirv(words, &why));
  EXPECT_FALSE(why.empty());
}

TEST_F(SpirvBackend, TileOpsAreNotLaneLevel) {
  auto m = parse(R"(
xtc.kernel @t(%A: memref<16x16xf32>) {arg_names = ["A"], sg_size = 16, target = "generic", wg_size = [16, 1, 1]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  %c0 = arith.constant {value = 0 : index} : () -> (index)
  %t = tile.init_tile %A, %c0, %c0 {segments = [2, 0, 0]} : (memref<16x16xf32>, index, index) -> (tile<16x16xf32>) loc("k.xt":3:8)
  xtc.return : () -> ()
}
)");
  ASSERT_TRUE(m);
  std::vector<uint32_t> words;
  EXPECT_FALSE(emitSpirv(*m, opts, diags, words));
  EXPECT_TRUE(words.empty());
  diags.flush();
  EXPECT_NE(text.str().find("k.xt:3:8: error: SPIR-V backend: 'tile.init_tile' is not a lane-level op"),
            std::string::npos)
      << text.str();
}

TEST_F(SpirvBackend, KernelWithoutTargetAttributesIsRejected) {
  auto m = parse(R"(
xtc.kernel @u(%A: memref<16xf32>) {arg_names = ["A"]} launch {
  %c1 = arith.constant {value = 1 : index} : () -> (index)
  xtc.grid %c1, %c1, %c1 : (index, index, index) -> ()
} body {
  xtc.return : () -> ()
}
)");
  ASSERT_TRUE(m);
  std::string ll;
  EXPECT_FALSE(emitLLVMText(*m, opts, diags, ll));
  diags.flush();
  EXPECT_NE(text.str().find("kernel 'u' has no `sg_size`/`wg_size` attributes"), std::string::npos) << text.str();
}

TEST_F(SpirvBackend, SubgroupSizeMustMatchTheTarget) {
  std::string src = kLaneKernel;
  src.replace(src.find("sg_size = 16"), 12, "sg_size = 8");
  auto m = parse(src);
  ASSERT_TRUE(m);
  std::string ll;
  EXPECT_FALSE(emitLLVMText(*m, opts, diags, ll));
  diags.flush();
  EXPECT_NE(text.str().find("requires subgroup size 8, but target 'generic' uses 16"), std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace xtc::backend
