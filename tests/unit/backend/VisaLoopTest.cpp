// visaLoopHardwareCalls (backends/spirv/VisaLoop.h): what --verify-isa demands of a whole-loop
// inline-vISA statement, on hand-written statement texts. Expected patterns and shapes derived by
// hand from the descriptors (reference §2.1: bit 7 VNNI, bits 11:9 size, 24:20 response GRFs) and
// the header dword 7 ((w-1) | (h-1) << 8 | (blocks-1) << 16).
#include "backends/spirv/VisaLoop.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace xtc::backend {
namespace {

// The call whose builtin name contains `name`, or null.
const isa::HardwareCall* callNamed(const std::vector<isa::HardwareCall>& calls, const std::string& name) {
  for (const isa::HardwareCall& c : calls)
    if (c.builtin.find(name) != std::string::npos) return &c;
  return nullptr;
}

// `line` (an ISA line whose first 3 characters are `(W)`) satisfies `call`'s pattern, and the same
// line masked (without `(W)`) does not: the call demands NoMask.
void expectDemandsNoMask(const isa::HardwareCall& call, const std::string& line) {
  EXPECT_TRUE(std::regex_search(line, std::regex(call.isaPattern))) << line;
  EXPECT_FALSE(std::regex_search(std::string(line).replace(0, 3, "   "), std::regex(call.isaPattern))) << line;
}

const char* kLoop =
    "{\n"
    ".decl xtc_l0_h0 v_type=G type=ud num_elts=8 align=GRF\n"
    "mov (M1,1) xtc_l0_h0(0,7)<1> 0x11f0f:ud\n"
    "mov (M1,1) xtc_l0_h1(0,7)<1> 0x11f0f:ud\n"
    "mov (M1,1) xtc_l0_h2(0,7)<1> 0x1070f:ud\n"
    "xtc_l0_loop:\n"
    "raw_sends.15.1.0.31 (M1, 1) 0x0:ud 0x3f00203:ud xtc_l0_h0.0 %null.0 xtc_l0_m0.0\n"
    "raw_sends.15.1.0.31 (M1, 1) 0x0:ud 0x3f00283:ud xtc_l0_h1.0 %null.0 xtc_l0_m1.0\n"
    "raw_sends.15.1.0.0 (M1, 1) 0x0:ud 0x2080203:ud xtc_l0_h2.0 %null.0 %null.0\n"
    "dpas.bf.bf.8.8 (M1, 16) $0.0 $0.0 xtc_l0_m1.0 xtc_l0_m0(0,0)\n"
    "dpas.bf.bf.8.8 (M1, 16) $0.512 $0.512 xtc_l0_m1.512 xtc_l0_m0(4,0)\n"
    "(xtc_l0_p) jmp (M1,1) xtc_l0_loop\n"
    "xtc_l0_end:\n"
    "}\n";

TEST(VisaLoop, EveryMessageAndDpasOfTheStatementIsACall) {
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(kLoop);
  ASSERT_EQ(calls.size(), 4u);  // A load, B load, prefetch, dpas (the two dpas lines are one form)
  auto find = [&](const std::string& part) -> const isa::HardwareCall* {
    for (const isa::HardwareCall& c : calls)
      if (c.builtin.find(part) != std::string::npos) return &c;
    return nullptr;
  };
  const isa::HardwareCall* dpas = find("dpas 8x8");
  ASSERT_NE(dpas, nullptr);
  EXPECT_EQ(dpas->insideLoops, 2u);
  EXPECT_TRUE(std::regex_search("dpas.8x8 (16|M0) r100:f r100:f r35:bf r3.0:bf", std::regex(dpas->isaPattern)));
  const isa::HardwareCall* a = find("0x3f00203");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->blockShape, "16x32x2");
  const std::string aLine = "send.ugm (1|M0) r3 r228 null:0 0x0 0x03F00203 {A@1,$3} // wr:1+0, rd:31; load_block2d.ugm.d16.a64";
  const std::string bLine = "send.ugm (1|M0) r35 r229 null:0 0x0 0x03F00283 {$5} // wr:1+0, rd:31; load_block2d.ugm.d16v.a64";
  EXPECT_TRUE(std::regex_search(aLine, std::regex(a->isaPattern)));
  EXPECT_FALSE(std::regex_search(bLine, std::regex(a->isaPattern)));  // d16 is not d16v
  const isa::HardwareCall* b = find("0x3f00283");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->blockShape, "16x32x2");
  EXPECT_TRUE(std::regex_search(bLine, std::regex(b->isaPattern)));
  const isa::HardwareCall* pf = find("prefetch");
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(pf->blockShape, "16x8x2");
  EXPECT_TRUE(std::regex_search(
      "send.ugm (1|M0) null r230 null:0 0x0 0x02080203 {$7} // wr:1+0, rd:0; load_block2d.ugm.d16.a64.ca.ca",
      std::regex(pf->isaPattern)));
  EXPECT_FALSE(std::regex_search(aLine, std::regex(pf->isaPattern)));  // a load has a destination
}

// The f32 FMA GEMM's statement: its mads (A a scalar region) are one call whose ISA is a SIMD16 mad;
// the plain d32 1x8x8 A message (descriptor 3 | 2 << 9 | 4 << 20 | 1 << 25, header 0x707) is a d32 load.
TEST(VisaLoop, FmaStatementMadsAreACall) {
  const char* loop =
      "{\n"
      "mov (M1,1) xtc_l0_h0(0,7)<1> 0x707:ud\n"
      "xtc_l0_loop:\n"
      "raw_sends.15.1.0.4 (M1, 1) 0x0:ud 0x2400403:ud xtc_l0_h0.0 %null.0 xtc_l0_m0.0\n"
      "mad (M1, 16) $0(0,0)<1> xtc_l0_f0(0,0)<0;1,0> xtc_l0_f1(0,0)<1;1,0> $0(0,0)<1;1,0>\n"
      "mad (M1, 16) $0(1,0)<1> xtc_l0_f0(0,8)<0;1,0> xtc_l0_f1(0,0)<1;1,0> $0(1,0)<1;1,0>\n"
      "(xtc_l0_p) jmp (M1,1) xtc_l0_loop\n"
      "}\n";
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(loop);
  ASSERT_EQ(calls.size(), 2u);
  const isa::HardwareCall* mad = nullptr;
  const isa::HardwareCall* load = nullptr;
  for (const isa::HardwareCall& c : calls) (c.builtin.find("mad") != std::string::npos ? mad : load) = &c;
  ASSERT_NE(mad, nullptr);
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(mad->insideLoops, 2u);
  EXPECT_TRUE(std::regex_search("mad (16|M0)  r3.0<1>:f r3.0<1;0>:f r18.0<1;0>:f r13.8<0>:f {Compacted}",
                                std::regex(mad->isaPattern)));
  EXPECT_FALSE(std::regex_search("mad (8|M0)  r3.0<1>:f r3.0<1;0>:f r18.0<1;0>:f r13.8<0>:f", std::regex(mad->isaPattern)));
  EXPECT_EQ(load->blockShape, "8x8x1");
  EXPECT_TRUE(std::regex_search("send.ugm (1|M0) r13 r12 null:0 0x0 0x02400403 {A@2,$1} // wr:1+0, rd:4; load_block2d.ugm.d32.a64",
                                std::regex(load->isaPattern)));
}

// RFC 2.4's loop: SLM block reads and writes (IGC's disassembly: "load.slm.d32x64t.a32" from a
// SIMD1 send, as in tests/isa/gemm/rfc_2_4_gemm_slm.pvc.isa).
TEST(VisaLoop, SlmBlockMessagesAreCalls) {
  const char* loop =
      "{\n"
      "xtc_l0_loop:\n"
      "raw_sends.15.1.0.4 (M1, 1) 0x0:ud 0x2400203:ud xtc_l0_h0.0 %null.0 xtc_l0_m0.0\n"
      "lsc_load.slm (M1_NM, 1) xtc_l0_m2c0:d32x64t flat[xtc_l0_a2c0]:a32\n"
      "lsc_load.slm (M1_NM, 1) xtc_l0_m3c0:d32x64t flat[xtc_l0_a3c0]:a32\n"
      "lsc_store.slm (M1_NM, 1) flat[xtc_l0_b0]:a32 xtc_l0_d0:d64x16t\n"
      "(xtc_l0_p) jmp (M1,1) xtc_l0_loop\n"
      "}\n";
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(loop);
  ASSERT_EQ(calls.size(), 3u);
  const isa::HardwareCall* rd = callNamed(calls, "SLM block load d32x64t");
  const isa::HardwareCall* wr = callNamed(calls, "SLM block store d64x16t");
  ASSERT_NE(rd, nullptr);
  ASSERT_NE(wr, nullptr);
  EXPECT_EQ(rd->insideLoops, 2u);
  EXPECT_EQ(wr->insideLoops, 1u);
  EXPECT_TRUE(std::regex_search("(W)     send.slm (1|M0)          r18      r17     null:0  0x0            0x0240F500 "
                                "{I@2,$29} // wr:1+0, rd:4; load.slm.d32x64t.a32",
                                std::regex(rd->isaPattern)));
  EXPECT_FALSE(std::regex_search("(W) send.slm (1|M0) r18 r17 null:0 0x0 0x0240F500 // wr:1+0, rd:4; load.slm.d32x32t.a32",
                                 std::regex(rd->isaPattern)));
  EXPECT_TRUE(std::regex_search("(W)     send.slm (1|M0)          null     r14     r12:2   0x0            0x0200D704 "
                                "{A@1,$15} // wr:1+2, rd:0; store.slm.d64x16t.a32",
                                std::regex(wr->isaPattern)));
}

TEST(VisaLoop, OtherAsmIsNotAWholeLoopStatement) {
  EXPECT_TRUE(visaLoopHardwareCalls("lsc_store_block2d.ugm (M1, 16) flat[$0,$1,$2,$3,$4,$5] $6:d32.1x16x8nn").empty());
  EXPECT_TRUE(visaLoopHardwareCalls("{\nmov (M1,1) x(0,0)<1> 0x1:ud\n}\n").empty());
}

// dg2's statement (Dg2VisaLoop.cpp): each transposed LSC row read is a call of its own size, the
// dpas a dpas 8x8 call; the packing movs and address adds are not hardware calls.
TEST(VisaLoop, Dg2RowReadsAreCalls) {
  const char* loop =
      "{\n"
      "xtc_d0_loop:\n"
      "lsc_load.ugm (M1_NM, 1) xtc_d0_A0:d32x8t flat[xtc_d0_a0]:a64\n"
      "lsc_load.ugm (M1_NM, 1) xtc_d0_A1:d32x8t flat[xtc_d0_a1]:a64\n"
      "lsc_load.ugm (M1_NM, 1) xtc_d0_R0:d32x16t flat[xtc_d0_a2]:a64\n"
      "mov (M1, 8) xtc_d0_B(0,0)<2> xtc_d0_R(0,0)<1;1,0>\n"
      "dpas.hf.hf.8.8 (M1, 8) $0.0 $0.0 xtc_d0_Bd.0 xtc_d0_A(0,0)\n"
      "add (M1_NM, 1) xtc_d0_a0(0,0)<1> xtc_d0_a0(0,0)<0;1,0> 0x20:uq\n"
      "(xtc_d0_p) jmp (M1,1) xtc_d0_loop\n"
      "}\n";
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(loop);
  ASSERT_EQ(calls.size(), 3u);
  const isa::HardwareCall* x8 = callNamed(calls, "inline vISA loop: row read d32x8t");
  const isa::HardwareCall* x16 = callNamed(calls, "inline vISA loop: row read d32x16t");
  const isa::HardwareCall* dp = callNamed(calls, "inline vISA loop: dpas 8x8");
  ASSERT_NE(x8, nullptr);
  ASSERT_NE(x16, nullptr);
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(x8->insideLoops, 2u);
  EXPECT_EQ(x16->insideLoops, 1u);
  // The disassembly line of dg2-visa.sh's measurement (send.ugm SIMD1, load.ugm.d32x16t.a64).
  EXPECT_TRUE(std::regex_search("(W)     send.ugm (1|M0)          r24      r104    null:0  0x0            0x0220D580           "
                                "{A@2,$6} // wr:1+0, rd:2; load.ugm.d32x16t.a64",
                                std::regex(x16->isaPattern)));
  EXPECT_FALSE(std::regex_search("(W) send.ugm (1|M0) r24 r104 null:0 0x0 0x0220D580 // wr:1+0, rd:2; load.ugm.d32x16t.a64",
                                 std::regex(x8->isaPattern)));
}

// dg2's f32 FMA loop (Dg2VisaFmaLoop.cpp): its row reads and each SIMD8 mad are calls, the mad
// demanded as `mad (8|M0)` (a pvc SIMD16 mad does not satisfy it).
TEST(VisaLoop, Dg2FmaMadsAreCalls) {
  const char* loop =
      "{\n"
      "xtc_f0_loop:\n"
      "lsc_load.ugm (M1_NM, 1) xtc_f0_R0:d32x8t flat[xtc_f0_a0]:a64\n"
      "lsc_load.ugm (M1_NM, 1) xtc_f0_R1:d32x16t flat[xtc_f0_a1]:a64\n"
      "mad (M1, 8) $0(0,0)<1> xtc_f0_Rf(0,0)<0;1,0> xtc_f0_Rf(1,0)<1;1,0> $0(0,0)<1;1,0>\n"
      "mad (M1, 8) $1(0,0)<1> xtc_f0_Rf(0,0)<0;1,0> xtc_f0_Rf(2,0)<1;1,0> $1(0,0)<1;1,0>\n"
      "(xtc_f0_p) jmp (M1,1) xtc_f0_loop\n"
      "}\n";
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(loop);
  ASSERT_EQ(calls.size(), 3u);
  const isa::HardwareCall* mad = callNamed(calls, "inline vISA loop: mad (8)");
  ASSERT_NE(mad, nullptr);
  EXPECT_EQ(mad->insideLoops, 2u);
  EXPECT_TRUE(std::regex_search("        mad (8|M0)               r25.0<1>:f    r25.0<1;0>:f      r65.0<1;0>:f      r57.0<0>:f",
                                std::regex(mad->isaPattern)));
  EXPECT_FALSE(std::regex_search("        mad (16|M0)              r25.0<1>:f    r25.0<1;0>:f      r65.0<1;0>:f      r57.0<0>:f",
                                 std::regex(mad->isaPattern)));
}

// dg2's SIMD16 mad pairs and gathers (Dg2VisaFmaLoop.cpp) are NoMask: a SIMD8 dispatch enables
// channels 0-7 only, so the ISA must show `(W)`; the same instruction masked does not satisfy them.
TEST(VisaLoop, Dg2Simd16PairsAreDemandedNoMask) {
  const char* loop =
      "{\n"
      "xtc_f0_loop:\n"
      "svm_gather4scaled.RGBA (M1_NM, 16) 0x0:uq xtc_f0_g0.0 xtc_f0_L0.0\n"
      "mad (M1_NM, 16) $0(0,0)<1> xtc_f0_Lf0(0,0)<0;1,0> xtc_f0_Rf(0,0)<1;1,0> $0(0,0)<1;1,0>\n"
      "(xtc_f0_p) jmp (M1,1) xtc_f0_loop\n"
      "}\n";
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(loop);
  ASSERT_EQ(calls.size(), 2u);
  const isa::HardwareCall* mad = callNamed(calls, "inline vISA loop: mad (W, 16)");
  const isa::HardwareCall* gather = callNamed(calls, "inline vISA loop: lane read xyzw SIMD16");
  ASSERT_NE(mad, nullptr);
  ASSERT_NE(gather, nullptr);
  expectDemandsNoMask(*mad, "(W)     mad (16|M0)              r29.0<1>:f    r29.0<1;0>:f      r5.0<1;0>:f       r21.0<0>:f       {Compacted}");
  expectDemandsNoMask(*gather, "(W)     send.dc1 (16|M0)         r21      r53     null:0  0x0            0x088450FF           {$9} // wr:4+0, "
                               "rd:8; a64 untyped surface read with xyzw");
}

// dg2's row gathers (Dg2VisaLoop.cpp: a row pair's halves, one dword per lane) are SIMD16 and NoMask
// too: the pattern demands `(W)` and the one-channel response of 2 registers.
TEST(VisaLoop, Dg2RowGathersAreDemandedNoMask) {
  const char* loop =
      "{\n"
      "xtc_d0_loop:\n"
      "svm_gather4scaled.R (M1_NM, 16) xtc_d0_o(0,1)<0;1,0> xtc_d0_V.0 xtc_d0_G1.0\n"
      "(xtc_d0_p) jmp (M1,1) xtc_d0_loop\n"
      "}\n";
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(loop);
  ASSERT_EQ(calls.size(), 1u);
  const isa::HardwareCall* gather = callNamed(calls, "inline vISA loop: row gather x SIMD16");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->insideLoops, 1u);
  // gemm_bf16's disassembly line, and the 4-dword form, which must not satisfy it.
  const char* readW = "(W)     send.dc1 (16|M0)         r104     r8      null:0  0x0            0x08245EFF           {A@4,$5} // wr:4+0, "
                      "rd:2; a64 untyped surface read with x";
  expectDemandsNoMask(*gather, readW);
  EXPECT_FALSE(std::regex_search(std::string(readW).replace(std::string(readW).find("rd:2"), 4, "rd:8") + "yzw",
                                 std::regex(gather->isaPattern)));
}

// dg2's block path statement (Dg2VisaBlock.cpp, no loop): every message is a call that must leave
// its own instruction (outside loops: counted, not just present), the stores included.
TEST(VisaLoop, Dg2BlockStatementMessagesAreCallsEach) {
  const char* block =
      "{\n"
      ".decl xtc_b0_a0 v_type=G type=uq num_elts=1 align=GRF\n"
      "lsc_load.ugm (M1_NM, 1) xtc_b0_R0:d32x32t flat[xtc_b0_a0]:a64\n"
      "lsc_load.ugm (M1_NM, 1) xtc_b0_R1:d32x32t flat[xtc_b0_a1]:a64\n"
      "svm_gather4scaled.RGBA (M1, 8) 0x0:uq xtc_b0_l2.0 xtc_b0_R2.0\n"
      "add (M1, 8) xtc_b0_P3(0,0)<1> xtc_b0_R0(0,0)<1;1,0> xtc_b0_R1(0,0)<1;1,0>\n"
      "lsc_store.ugm (M1_NM, 1) flat[xtc_b0_a2]:a64 xtc_b0_P3:d32x32t\n"
      "}\n";
  std::vector<isa::HardwareCall> calls = visaLoopHardwareCalls(block);
  ASSERT_EQ(calls.size(), 3u);
  const isa::HardwareCall* rd = callNamed(calls, "inline vISA loop: row read d32x32t");
  const isa::HardwareCall* wr = callNamed(calls, "inline vISA: row write d32x32t");
  const isa::HardwareCall* lane = callNamed(calls, "inline vISA loop: lane read xyzw");
  ASSERT_NE(rd, nullptr);
  ASSERT_NE(wr, nullptr);
  ASSERT_NE(lane, nullptr);
  EXPECT_EQ(rd->outsideLoops, 2u);
  EXPECT_EQ(rd->insideLoops, 0u);
  EXPECT_EQ(wr->outsideLoops, 1u);
  EXPECT_EQ(lane->outsideLoops, 1u);
  // The disassembly line of dg2-visa.sh's `block` measurement.
  EXPECT_TRUE(std::regex_search("(W)     send.ugm (1|M0)          null     r7      r15:4   0x0            0x0200E584           "
                                "{A@1,$3} // wr:1+4, rd:0; store.ugm.d32x32t.a64",
                                std::regex(wr->isaPattern)));
  EXPECT_FALSE(std::regex_search("(W)     send.ugm (1|M0)          null     r8      r13:2   0x0            0x0200D584           "
                                 "{$4} // wr:1+2, rd:0; store.ugm.d32x16t.a64",
                                 std::regex(wr->isaPattern)));
}

}  // namespace
}  // namespace xtc::backend
