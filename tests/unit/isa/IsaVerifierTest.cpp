// backends/isa checkDisassembly on hand-written disassembly (lines in the form ocloc disasm prints,
// copied from the reference's measured ISA): a call is proven by its instruction, a dropped call or
// an unresolved one (calla / Intel_Symbol_Table_Void_Program) is reported naming the builtin, spills
// are warnings. verifyIsa's ocloc side is covered by the ctest isa tests (tests/isa).
#include "backends/isa/IsaVerifier.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace xtc::isa {
namespace {

const char* kDpasLine = "(W)     dpas.8x8 (16|M0)         r16:f         null:f            r7:bf             r2.0:bf";
const char* kLoadLine =
    "(W)     send.ugm (16|M0)         r7       r10  null:0  0x0  0x02480203  // load_block2d.ugm.d16.a64";

HardwareCall call(const char* name, const char* pattern, unsigned outside, unsigned inside = 0, const char* shape = "") {
  return HardwareCall{name, pattern, outside, inside, shape};
}

TEST(IsaVerifier, EveryCallLeftItsInstruction) {
  std::string k = std::string(kLoadLine) + "\n" + kDpasLine + "\n" + kDpasLine + "\n";
  IsaReport r = checkDisassembly({k}, false, "Build succeeded.\n",
                                 {call("load_u16", R"(load_block2d\.ugm\.d16\.a64)", 1),
                                  call("dpas_bf16", R"(\bdpas\.8x8 )", 2)});
  EXPECT_TRUE(r.dropped.empty());
  EXPECT_TRUE(r.warnings.empty());
}

// Header dword 7 of a 16x8x2 read, as the disassembler prints it: hex, or as a float whose bits count
// (9.43676e-41 is 0x1070F, reference §2.1).
TEST(IsaVerifier, BlockShapesComeFromTheHeaders) {
  std::string hex = std::string("(W)     mov (1|M0)               r10.7<1>:ud   0x1070F:ud\n") + kLoadLine + "\n";
  std::string flt = std::string("(W)     mov (1|M0)               r10.7<1>:f    9.43676e-41:f\n") + kLoadLine + "\n";
  auto load = [](const char* shape) { return call("u16_m8k16v2", R"(load_block2d\.ugm\.d16\.a64)", 1, 0, shape); };
  EXPECT_TRUE(checkDisassembly({hex}, false, "", {load("16x8x2")}).dropped.empty());
  EXPECT_TRUE(checkDisassembly({flt}, false, "", {load("16x8x2")}).dropped.empty());
  IsaReport r = checkDisassembly({hex}, false, "", {load("16x16x2")});
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_NE(r.dropped[0].find("16x16x2"), std::string::npos);
  EXPECT_NE(r.dropped[0].find("u16_m8k16v2"), std::string::npos);
}

TEST(IsaVerifier, DroppedCallNamesTheBuiltin) {
  std::string k = std::string(kDpasLine) + "\n";
  IsaReport r = checkDisassembly({k}, false, "", {call("_Z40intel_sub_group_bf16_bf16_matrix_mad_k16Dv8_sDv8_iDv8_f",
                                                       R"(\bdpas\.8x8 )", 2)});
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_NE(r.dropped[0].find("_Z40intel_sub_group_bf16_bf16_matrix_mad_k16Dv8_sDv8_iDv8_f"), std::string::npos);
  EXPECT_NE(r.dropped[0].find("only 1 times"), std::string::npos);
}

TEST(IsaVerifier, BuiltinsSharingAnInstructionShareItsCount) {
  // bf16 and f16 DPAS of one M are both dpas.8x8: two calls need two instructions, not one each.
  std::string k = std::string(kDpasLine) + "\n";
  IsaReport r = checkDisassembly({k}, false, "", {call("bf16", R"(\bdpas\.8x8 )", 1), call("f16", R"(\bdpas\.8x8 )", 1)});
  ASSERT_EQ(r.dropped.size(), 1u);
  EXPECT_NE(r.dropped[0].find("bf16, f16"), std::string::npos);
}

TEST(IsaVerifier, CallsInLoopsNeedOneInstruction) {
  std::string k = std::string(kDpasLine) + "\n";
  EXPECT_TRUE(checkDisassembly({k}, false, "", {call("d", R"(\bdpas\.8x8 )", 0, 4)}).dropped.empty());
  EXPECT_EQ(checkDisassembly({"nop\n"}, false, "", {call("d", R"(\bdpas\.8x8 )", 0, 4)}).dropped.size(), 1u);
}

TEST(IsaVerifier, UnresolvedCallsAreDropped) {
  IsaReport r = checkDisassembly({"(W)     calla (16|M0)  r125.0   r2.0\n"}, true, "", {call("shuffle", "", 1)});
  ASSERT_EQ(r.dropped.size(), 2u);
  EXPECT_NE(r.dropped[0].find("calla"), std::string::npos);
  EXPECT_NE(r.dropped[1].find("Intel_Symbol_Table_Void_Program"), std::string::npos);
}

TEST(IsaVerifier, SpillsAreWarnings) {
  IsaReport r = checkDisassembly(
      {"(W)     send.ugm (16|M0) null r2 r3:4 0x0 0x0  // hword scratch block write x4\n"}, false,
      "warning: kernel spill_200  compiled SIMD16 allocated 128 regs and spilled around 81\nBuild succeeded.\n", {});
  EXPECT_TRUE(r.dropped.empty());
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("spilled around 81"), std::string::npos);
  EXPECT_NE(r.warnings[1].find("1 scratch"), std::string::npos);
}

TEST(IsaVerifier, MissingOclocIsAToolError) {
  const char* old = std::getenv("XTC_OCLOC");
  std::string saved = old ? old : "";
  ::setenv("XTC_OCLOC", "/nonexistent/ocloc", 1);
  IsaReport r = verifyIsa({0x07230203u}, {}, IsaVerifyOptions{"pvc", "", 10});
  if (old) ::setenv("XTC_OCLOC", saved.c_str(), 1);
  else ::unsetenv("XTC_OCLOC");
  EXPECT_TRUE(r.toolMissing);
  EXPECT_NE(r.toolError.find("ocloc"), std::string::npos);
}

}  // namespace
}  // namespace xtc::isa
