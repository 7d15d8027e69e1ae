// Interpreter: the xe.* hardware ops at lane level (16 lanes), each checked register by register
// against the per-lane formulas of INTEL_XE_REFERENCE.md §2.3 (2D block reads), §2.5 (bounds: reads
// padded with zero, stores dropped) and the 1-D block IO rule of docs/passes.md (register i of lane l =
// flat element start + 16 i + l). The expected values are written here from those tables, not from
// the interpreter's response-layout code. Surfaces hold S[r][c] = 100 r + c (or small bytes for d8).
#include "InterpTestUtil.h"

#include "../ir/IrTestUtil.h"

#include <gtest/gtest.h>

#include <functional>

using namespace xtc;
using namespace xtc::interp;
using ir::ElemKind;

namespace {

struct Msg {
  int64_t bits, w, h, blocks;
  bool vnni = false, transpose = false;
};

std::string i32c(const std::string& name, int64_t v) {
  return "  %" + name + " = arith.constant {value = " + std::to_string(v) + " : i32} : () -> (i32)\n";
}

std::string attrs(const Msg& m) {
  return "{array_len = " + std::to_string(m.blocks) + ", block_h = " + std::to_string(m.h) + ", block_w = " + std::to_string(m.w) +
         ", elem_bits = " + std::to_string(m.bits) + ", transpose = " + (m.transpose ? "true" : "false") +
         ", vnni = " + (m.vnni ? "true" : "false") + "}";
}

// A one-workgroup pvc kernel (16 lanes) with `params`, named by `names`, and `body`.
std::string pvcKernel(const std::string& params, const std::string& names, const std::string& extraAttrs, const std::string& body) {
  return "xtc.kernel @k(" + params + ") {arg_names = [" + names + "], sg_size = 16, target = \"pvc\"" + extraAttrs + "} launch {\n"
         "  %one = arith.constant {value = 1 : index} : () -> (index)\n"
         "  xtc.grid %one, %one, %one : (index, index, index) -> ()\n"
         "} body {\n" + body + "  xtc.return : () -> ()\n}\n";
}

// A pvc kernel over surface S (rows x cols of `st`) that loads one message at (x, y) with `n`
// registers of `rt` per lane and stores register k of lane j to O[j][k]. The surface's width is
// `widthElems` elements and its height `height` rows (pitch = cols: the whole row).
std::string loadKernel(const Msg& m, const std::string& st, const std::string& rt, int64_t n, int64_t cols, int64_t widthElems,
                       int64_t height, int64_t x, int64_t y) {
  int64_t eb = m.bits / 8;
  std::string o = "memref<16x" + std::to_string(n) + "x" + rt + ">";
  std::string body = "  %base = xe.base_address %S : (memref<?x?x" + st + ">) -> (i64)\n" + i32c("w", widthElems * eb) + i32c("h", height) +
                     i32c("p", cols * eb) + i32c("x", x) + i32c("y", y) + "  %v = xe.load_2d %base, %w, %h, %p, %x, %y " + attrs(m) +
                     " : (i64, i32, i32, i32, i32, i32) -> (vector<" + std::to_string(n) + "x" + rt + ">) loc(\"x.xt\":7:5)\n" +
                     "  %lane = gpu.lane_id : () -> (index)\n";
  for (int64_t k = 0; k < n; ++k) {
    std::string ks = std::to_string(k);
    body += "  %e" + ks + " = vector.extract %v {index = " + ks + "} : (vector<" + std::to_string(n) + "x" + rt + ">) -> (" + rt + ")\n" +
            "  %c" + ks + " = arith.constant {value = " + ks + " : index} : () -> (index)\n" + "  lane.store %e" + ks + ", %O, %lane, %c" +
            ks + " : (" + rt + ", " + o + ", index, index) -> ()\n";
  }
  return pvcKernel("%S: memref<?x?x" + st + ">, %O: " + o, "\"S\", \"O\"", "", body);
}

struct Ran {
  bool ok;
  std::string diags;
  KernelArgs args;
};

// Parses and runs `text` (one kernel) on `args`.
Ran runText(const std::string& text, KernelArgs args) {
  auto p = ir::testing::parse(text, "x.ir");
  if (!p->module) return {false, "parse failed: " + p->messages(), {}};
  ir::Operation* kernel = ir::moduleKernels(p->module.get()).at(0);
  bool ok = runKernel(*kernel, args, *p->diags);
  return {ok, p->messages(), std::move(args)};
}

Buffer surfaceOf(ElemKind k, int64_t rows, int64_t cols, const std::function<double(int64_t, int64_t)>& f) {
  Buffer b(k, {rows, cols});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) b.setFloat(r * cols + c, f(r, c));
  return b;
}

double rc(int64_t r, int64_t c) { return static_cast<double>(100 * r + c); }

// Runs a load and returns O (16 x n); S is rows x cols with S[r][c] = f(r, c).
Ran runLoad(const Msg& m, ElemKind st, const std::string& sts, ElemKind rt, const std::string& rts, int64_t n, int64_t rows, int64_t cols,
            int64_t widthElems, int64_t height, int64_t x, int64_t y, const std::function<double(int64_t, int64_t)>& f = rc) {
  KernelArgs args{{KernelArg::fromBuffer(surfaceOf(st, rows, cols, f)), KernelArg::fromBuffer(Buffer(rt, {16, n}))}};
  return runText(loadKernel(m, sts, rts, n, cols, widthElems, height, x, y), std::move(args));
}

// Expected S value at (r, c), zero outside the surface's width x height.
double in(int64_t r, int64_t c, int64_t width, int64_t height, const std::function<double(int64_t, int64_t)>& f = rc) {
  return r < 0 || c < 0 || r >= height || c >= width ? 0.0 : f(r, c);
}

}  // namespace

TEST(InterpXe, PlainD16BlockWiderThanTheSubgroup) {
  // d16 32x4x1: a row of 32 elements is 2 registers of 16 lanes, so lane j, register i =
  // S[y + i/2][x + 16 (i%2) + j] (response element 16 i + j). Width 40 elements and height 5 cut
  // the block at column 40 and row 5 (x = 20, y = 2): those read 0.
  Ran r = runLoad({16, 32, 4, 1}, ElemKind::I16, "i16", ElemKind::I16, "i16", 8, 8, 64, 40, 5, 20, 2);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(o.getFloat(j * 8 + i), in(2 + i / 2, 20 + 16 * (i % 2) + j, 40, 5)) << "lane " << j << " reg " << i;
}

TEST(InterpXe, PlainD16TwoBlocksOfOneRow) {
  // §2.3 u16 16xMx2 with M = 1: register 0 = S[y][x+j], register 1 = S[y][x+16+j] (each block fills
  // whole 16-bit registers, so no padding between them).
  Ran r = runLoad({16, 16, 1, 2}, ElemKind::I16, "i16", ElemKind::I16, "i16", 2, 4, 64, 64, 4, 3, 1);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j) {
    EXPECT_EQ(o.getFloat(j * 2 + 0), rc(1, 3 + j)) << j;
    EXPECT_EQ(o.getFloat(j * 2 + 1), rc(1, 19 + j)) << j;
  }
}

TEST(InterpXe, PlainD8ReadAsI16) {
  // §2.3 u8 32xMx2 as i16 (M = 2): register i of lane j = low byte S[y+i][x+2j], high byte
  // S[y+i][x+2j+1]; i >= M: columns + 32. Bytes (r + 3c) % 128 stay positive.
  auto byteAt = [](int64_t r, int64_t c) { return static_cast<double>((r + 3 * c) % 128); };
  Ran r = runLoad({8, 32, 2, 2}, ElemKind::I8, "i8", ElemKind::I16, "i16", 4, 4, 128, 128, 4, 4, 1, byteAt);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t i = 0; i < 4; ++i) {
      int64_t row = 1 + i % 2, col = 4 + 32 * (i / 2) + 2 * j;
      EXPECT_EQ(o.getInt(j * 4 + i), static_cast<int64_t>(byteAt(row, col)) + 256 * static_cast<int64_t>(byteAt(row, col + 1)))
          << "lane " << j << " reg " << i;
    }
}

TEST(InterpXe, PlainD8OneBlockIntoI8Registers) {
  // d8 32x16x1 (gemm_i8's A on pvc) into i8 registers: the response arrives in 16-bit slots (§2.3
  // "u8 ... as i16"), so register 2i of lane j = low byte S[y+i][x+2j], register 2i+1 = the high byte
  // S[y+i][x+2j+1]: the pvc i8 DPAS A layout. Width 40 bytes and height 10 (x = 4, y = 1) cut the block
  // at column 40 and row 10: those read 0.
  auto byteAt = [](int64_t r, int64_t c) { return static_cast<double>((7 * r + 3 * c) % 128); };
  Ran r = runLoad({8, 32, 16, 1}, ElemKind::I8, "i8", ElemKind::I8, "i8", 32, 20, 64, 40, 10, 4, 1, byteAt);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t i = 0; i < 32; ++i)
      EXPECT_EQ(o.getInt(j * 32 + i), static_cast<int64_t>(in(1 + i / 2, 4 + 2 * j + i % 2, 40, 10, byteAt)))
          << "lane " << j << " reg " << i;
}

TEST(InterpXe, PlainD32EightWideOneBlock) {
  // d32 8x8x1 (an FMA A operand on pvc): rows of 8 dwords, so lane j of register i = S[y + 2i + j/8]
  // [x + j%8]. Height 6 (y = 1) cuts rows 6 and 7 of the surface: they read 0.
  Ran r = runLoad({32, 8, 8, 1}, ElemKind::F32, "f32", ElemKind::F32, "f32", 4, 8, 32, 32, 6, 3, 1);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(o.getFloat(j * 4 + i), in(1 + 2 * i + j / 8, 3 + j % 8, 32, 6)) << "lane " << j << " reg " << i;
}

TEST(InterpXe, PlainD32TwoBlocksOfHalfRegisterRows) {
  // d32 8x4x2: a block row is 8 dwords, so register i of block b holds rows 2i and 2i+1 (lanes 0-7 and
  // 8-15): lane j, register 2b + i = S[y + 2i + j/8][x + 8b + j%8].
  Ran r = runLoad({32, 8, 4, 2}, ElemKind::I32, "i32", ElemKind::I32, "i32", 4, 8, 32, 32, 8, 5, 2);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t k = 0; k < 4; ++k)
      EXPECT_EQ(o.getFloat(j * 4 + k), rc(2 + 2 * (k % 2) + j / 8, 5 + 8 * (k / 2) + j % 8)) << "lane " << j << " reg " << k;
}

TEST(InterpXe, VnniD16TwoBlocks) {
  // VNNI d16 16x16x2 typed as 16-bit registers: dword i of lane j = S[y+2i][x+j] | S[y+2i+1][x+j] << 16,
  // so register k = row k of column j; block 1 (registers 16..31) is 16 columns to the right.
  // Height 10 cuts rows 10.. (y = 0): zeros.
  Ran r = runLoad({16, 16, 16, 2, true}, ElemKind::I16, "i16", ElemKind::I16, "i16", 32, 16, 64, 64, 10, 8, 0);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t k = 0; k < 32; ++k) EXPECT_EQ(o.getFloat(j * 32 + k), in(k % 16, 8 + 16 * (k / 16) + j, 64, 10)) << "lane " << j << " reg " << k;
}

TEST(InterpXe, VnniD8PacksFourRows) {
  // §2.3 transform u8 32x16 (block 16 wide, 32 rows): byte b of dword i of lane j = S[y+4i+b][x+j],
  // typed as i8 registers: register k = S[y+k][x+j].
  auto byteAt = [](int64_t r, int64_t c) { return static_cast<double>((7 * r + c) % 100); };
  Ran r = runLoad({8, 16, 32, 1, true}, ElemKind::I8, "i8", ElemKind::I8, "i8", 32, 40, 64, 64, 40, 4, 3, byteAt);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t k = 0; k < 32; ++k) EXPECT_EQ(o.getInt(j * 32 + k), byteAt(3 + k, 4 + j)) << "lane " << j << " reg " << k;
}

TEST(InterpXe, TransposedD32ThirtyTwoRows) {
  // §2.3 transpose u32 32x8 (<16 x i32>): element 2i = S[y+j][x+i] (rows 0-15), 2i+1 = S[y+16+j][x+i].
  // Height 20 zero-fills rows 20..31.
  Ran r = runLoad({32, 8, 32, 1, false, true}, ElemKind::I32, "i32", ElemKind::I32, "i32", 16, 40, 16, 16, 20, 2, 0);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j)
    for (int64_t i = 0; i < 8; ++i) {
      EXPECT_EQ(o.getFloat(j * 16 + 2 * i), in(j, 2 + i, 16, 20)) << "lane " << j << " i " << i;
      EXPECT_EQ(o.getFloat(j * 16 + 2 * i + 1), in(16 + j, 2 + i, 16, 20)) << "lane " << j << " i " << i;
    }
}

TEST(InterpXe, NegativeOffsetsReadZero) {
  // x = -4, y = -1: row -1 and columns -4..-1 are outside the surface.
  Ran r = runLoad({16, 16, 2, 1}, ElemKind::I16, "i16", ElemKind::I16, "i16", 2, 4, 32, 32, 4, -4, -1);
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& o = r.args.args[1].buffer;
  for (int64_t j = 0; j < 16; ++j) {
    EXPECT_EQ(o.getFloat(j * 2 + 0), 0.0) << j;
    EXPECT_EQ(o.getFloat(j * 2 + 1), in(0, j - 4, 32, 4)) << j;
  }
}

TEST(InterpXe, ResponseThatDoesNotFitTheRegistersIsAnError) {
  // d32 8x1x2 on 16 lanes: each 32-byte block is padded to a 64-byte register, 2 registers per lane,
  // but the value has 1.
  Ran r = runLoad({32, 8, 1, 2}, ElemKind::I32, "i32", ElemKind::I32, "i32", 1, 4, 32, 32, 4, 0, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:7:5: error: xe.load_2d: the message's response (2 block(s) of 32 bytes"), std::string::npos) << r.diags;
}

TEST(InterpXe, SurfaceBeyondTheBufferIsAnError) {
  // The surface claims 10 rows, the buffer has 4: row 4 is inside the surface but not in memory.
  Ran r = runLoad({16, 16, 8, 1}, ElemKind::I16, "i16", ElemKind::I16, "i16", 8, 4, 16, 16, 10, 0, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:7:5: error: xe.load_2d: element (4, 0) of the surface"), std::string::npos) << r.diags;
}

namespace {
// A kernel storing one d32 16x4 block (register i of lane j = 1000 + 16 i + j) at (x, y) of S
// (rows x 32 f32, surface width `width` elements, height `height`).
std::string storeKernel(int64_t width, int64_t height, int64_t x, int64_t y) {
  std::string body = "  %base = xe.base_address %S : (memref<?x?xf32>) -> (i64)\n" + i32c("w", width * 4) + i32c("h", height) + i32c("p", 128) +
                     i32c("x", x) + i32c("y", y) +
                     "  %lane = gpu.lane_id : () -> (index)\n"
                     "  %lf = arith.convert %lane : (index) -> (f32)\n";
  std::string regs;
  for (int k = 0; k < 4; ++k) {
    std::string ks = std::to_string(k);
    body += "  %k" + ks + " = arith.constant {value = " + std::to_string(1000 + 16 * k) + ".0 : f32} : () -> (f32)\n" + "  %r" + ks +
            " = arith.addf %lf, %k" + ks + " : (f32, f32) -> (f32)\n";
    regs += (k ? ", %r" : "%r") + ks;
  }
  body += "  %v = vector.from_elements " + regs + " : (f32, f32, f32, f32) -> (vector<4xf32>)\n" +
          "  xe.store_2d %base, %w, %h, %p, %x, %y, %v " + attrs({32, 16, 4, 1}) +
          " : (i64, i32, i32, i32, i32, i32, vector<4xf32>) -> () loc(\"x.xt\":9:3)\n";
  return pvcKernel("%S: memref<?x?xf32>", "\"S\"", "", body);
}
}  // namespace

TEST(InterpXe, Store2dWritesRowsAndDropsOutOfBounds) {
  // Register i of lane j goes to S[y+i][x+j]; the surface is 20 wide and 6 high, so with x = 10,
  // y = 3 columns 20.. and rows 6.. are dropped (the buffer itself is 8 x 32, all -1 before).
  KernelArgs args{{KernelArg::fromBuffer(surfaceOf(ElemKind::F32, 8, 32, [](int64_t, int64_t) { return -1.0; }))}};
  Ran r = runText(storeKernel(20, 6, 10, 3), std::move(args));
  ASSERT_TRUE(r.ok) << r.diags;
  const Buffer& s = r.args.args[0].buffer;
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      bool written = row >= 3 && row < 6 && c >= 10 && c < 20;
      EXPECT_EQ(s.getFloat(row * 32 + c), written ? 1000 + 16 * (row - 3) + (c - 10) : -1.0) << row << ", " << c;
    }
}

TEST(InterpXe, Store2dBeyondTheBufferIsAnError) {
  KernelArgs args{{KernelArg::fromBuffer(Buffer(ElemKind::F32, {4, 32}))}};
  Ran r = runText(storeKernel(32, 100, 0, 2), std::move(args));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:9:3: error: xe.store_2d: element (4, 0) of the surface"), std::string::npos) << r.diags;
}

namespace {
// 1-D block IO: reads 2 registers from G at `start`, writes them to SLM at 8, reads them back from
// SLM and block-writes them to O at `out`; also stores the first read per lane (O2[lane][k]).
std::string blockKernel(int64_t start, int64_t out = 0) {
  return pvcKernel("%G: memref<100xf32>, %O: memref<40xf32>, %O2: memref<16x2xf32>", "\"G\", \"O\", \"O2\"", ", wg_size = [16, 1, 1]",
         "  %s = arith.constant {value = " + std::to_string(start) + " : index} : () -> (index)\n"
         "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
         "  %c1 = arith.constant {value = 1 : index} : () -> (index)\n"
         "  %c8 = arith.constant {value = 8 : index} : () -> (index)\n"
         "  %out = arith.constant {value = " + std::to_string(out) + " : index} : () -> (index)\n"
         "  %v = xe.block_read %G, %s : (memref<100xf32>, index) -> (vector<2xf32>) loc(\"x.xt\":4:9)\n"
         "  %slm = gpu.slm_alloc : () -> (memref<64xf32, slm>)\n"
         "  xe.block_write %v, %slm, %c8 : (vector<2xf32>, memref<64xf32, slm>, index) -> ()\n"
         "  %w = xe.block_read %slm, %c8 : (memref<64xf32, slm>, index) -> (vector<2xf32>)\n"
         "  xe.block_write %w, %O, %out : (vector<2xf32>, memref<40xf32>, index) -> () loc(\"x.xt\":6:3)\n"
         "  %lane = gpu.lane_id : () -> (index)\n"
         "  %e0 = vector.extract %v {index = 0} : (vector<2xf32>) -> (f32)\n"
         "  %e1 = vector.extract %v {index = 1} : (vector<2xf32>) -> (f32)\n"
         "  lane.store %e0, %O2, %lane, %c0 : (f32, memref<16x2xf32>, index, index) -> ()\n"
         "  lane.store %e1, %O2, %lane, %c1 : (f32, memref<16x2xf32>, index, index) -> ()\n");
}
KernelArgs blockArgs() {
  Buffer g(ElemKind::F32, {100});
  for (int64_t i = 0; i < 100; ++i) g.setFloat(i, 0.5 * static_cast<double>(i) - 7);
  return KernelArgs{{KernelArg::fromBuffer(std::move(g)), KernelArg::fromBuffer(Buffer(ElemKind::F32, {40})),
                     KernelArg::fromBuffer(Buffer(ElemKind::F32, {16, 2}))}};
}
}  // namespace

TEST(InterpXe, BlockReadWriteGlobalAndSlm) {
  // Register i of lane l = G[start + 16 i + l]; the round trip through SLM puts G[start + k] at O[k].
  // start = 12: 48 bytes, 16-byte aligned (a global block read must be).
  Ran r = runText(blockKernel(12), blockArgs());
  ASSERT_TRUE(r.ok) << r.diags;
  for (int64_t k = 0; k < 32; ++k) EXPECT_EQ(r.args.args[1].buffer.getFloat(k), 0.5 * static_cast<double>(12 + k) - 7) << k;
  for (int64_t k = 32; k < 40; ++k) EXPECT_EQ(r.args.args[1].buffer.getFloat(k), 0.0) << k;
  for (int64_t l = 0; l < 16; ++l)
    for (int64_t i = 0; i < 2; ++i) EXPECT_EQ(r.args.args[2].buffer.getFloat(l * 2 + i), 0.5 * static_cast<double>(12 + 16 * i + l) - 7);
}

TEST(InterpXe, GlobalBlockReadMisalignedIsAnError) {
  // start = 5: byte 20 of the buffer; dg2's oword block read would drop the low address bits.
  Ran r = runText(blockKernel(5), blockArgs());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:4:9: error: xe.block_read: address "), std::string::npos) << r.diags;
  EXPECT_NE(r.diags.find("is not 16-byte aligned (a global block read needs it)"), std::string::npos) << r.diags;
}

TEST(InterpXe, GlobalBlockWriteMisalignedIsAnError) {
  // The write at element 2 of O: byte 8, which dg2's oword block write would round down to 0.
  Ran r = runText(blockKernel(12, 2), blockArgs());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:6:3: error: xe.block_write: address "), std::string::npos) << r.diags;
  EXPECT_NE(r.diags.find("is not 16-byte aligned (a global block write needs it)"), std::string::npos) << r.diags;
  // At element 4 (byte 16) the same write is legal.
  EXPECT_TRUE(runText(blockKernel(12, 4), blockArgs()).ok);
}

TEST(InterpXe, GlobalBlockReadOfF16PairsOnDg2) {
  // elem_bits = 32 on 8 lanes from a 4 x 48 f16 matrix at (1, 16): 2 slots of 2 elements, so lane l's
  // registers are (1, 16 + 2l), (1, 17 + 2l), (1, 32 + 2l), (1, 33 + 2l) (the dg2 DPAS A order: slot i,
  // low element first). Element (r, c) = 100 r + c (exact in f16); O[l][i] gets register i of lane l.
  std::string text =
      "xtc.kernel @k(%G: memref<?x?xf16>, %O: memref<8x4xf16>) {arg_names = [\"G\", \"O\"], sg_size = 8, target = \"dg2\"} "
      "launch {\n"
      "  %one = arith.constant {value = 1 : index} : () -> (index)\n"
      "  xtc.grid %one, %one, %one : (index, index, index) -> ()\n"
      "} body {\n"
      "  %r = arith.constant {value = 1 : index} : () -> (index)\n"
      "  %c = arith.constant {value = 16 : index} : () -> (index)\n"
      "  %v = xe.block_read %G, %r, %c {elem_bits = 32} : (memref<?x?xf16>, index, index) -> (vector<4xf16>)\n"
      "  %lane = gpu.lane_id : () -> (index)\n";
  for (int i = 0; i < 4; ++i)
    text += "  %e" + std::to_string(i) + " = vector.extract %v {index = " + std::to_string(i) + "} : (vector<4xf16>) -> (f16)\n" +
            "  %i" + std::to_string(i) + " = arith.constant {value = " + std::to_string(i) + " : index} : () -> (index)\n" +
            "  lane.store %e" + std::to_string(i) + ", %O, %lane, %i" + std::to_string(i) +
            " : (f16, memref<8x4xf16>, index, index) -> ()\n";
  text += "  xtc.return : () -> ()\n}\n";
  KernelArgs args{{KernelArg::fromBuffer(surfaceOf(ElemKind::F16, 4, 48, [](int64_t r, int64_t c) { return 100.0 * r + c; })),
                   KernelArg::fromBuffer(Buffer(ElemKind::F16, {8, 4}))}};
  Ran r = runText(text, std::move(args));
  ASSERT_TRUE(r.ok) << r.diags;
  for (int64_t l = 0; l < 8; ++l)
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(r.args.args[1].buffer.getFloat(l * 4 + i), 100.0 + 16 + 16 * (i / 2) + 2 * l + i % 2) << l << ", " << i;
}

TEST(InterpXe, BlockIoOfF16PairsMovesDwords) {
  // elem_bits = 32 on f16: registers 2i and 2i+1 of lane l are the low and high half of dword
  // 16 i + l, i.e. G[start + 2 (16 i + l) + h] (the DPAS B packing, reference §4). The read from G at
  // 8 (16 bytes: a global block read starts 16-byte aligned) goes per lane to O2, and through SLM
  // (written at 4 with the same unit) to O by a plain f16 read of 8 registers, which restores memory
  // order: O[k] = G[8 + k] for k < 128.
  std::string text = pvcKernel("%G: memref<200xf16>, %O: memref<128xf16>, %O2: memref<16x4xf16>", "\"G\", \"O\", \"O2\"",
                               ", wg_size = [16, 1, 1]",
                               "  %c8 = arith.constant {value = 8 : index} : () -> (index)\n"
                               "  %c4 = arith.constant {value = 4 : index} : () -> (index)\n"
                               "  %c0 = arith.constant {value = 0 : index} : () -> (index)\n"
                               "  %v = xe.block_read %G, %c8 {elem_bits = 32} : (memref<200xf16>, index) -> (vector<4xf16>)\n"
                               "  %slm = gpu.slm_alloc : () -> (memref<160xf16, slm>)\n"
                               "  %lo = xe.block_read %G, %c8 {elem_bits = 32} : (memref<200xf16>, index) -> (vector<8xf16>)\n"
                               "  xe.block_write %lo, %slm, %c4 {elem_bits = 32} : (vector<8xf16>, memref<160xf16, slm>, index) -> ()\n"
                               "  %w = xe.block_read %slm, %c4 : (memref<160xf16, slm>, index) -> (vector<8xf16>)\n"
                               "  xe.block_write %w, %O, %c0 : (vector<8xf16>, memref<128xf16>, index) -> ()\n"
                               "  %lane = gpu.lane_id : () -> (index)\n");
  std::string stores;
  for (int i = 0; i < 4; ++i) {
    std::string n = std::to_string(i);
    stores += "  %e" + n + " = vector.extract %v {index = " + n + "} : (vector<4xf16>) -> (f16)\n"
              "  %i" + n + " = arith.constant {value = " + n + " : index} : () -> (index)\n"
              "  lane.store %e" + n + ", %O2, %lane, %i" + n + " : (f16, memref<16x4xf16>, index, index) -> ()\n";
  }
  text.insert(text.find("  xtc.return"), stores);
  Buffer g(ElemKind::F16, {200});
  for (int64_t i = 0; i < 200; ++i) g.setFloat(i, static_cast<double>(i) - 60);  // exact in f16
  KernelArgs args{{KernelArg::fromBuffer(std::move(g)), KernelArg::fromBuffer(Buffer(ElemKind::F16, {128})),
                   KernelArg::fromBuffer(Buffer(ElemKind::F16, {16, 4}))}};
  Ran r = runText(text, std::move(args));
  ASSERT_TRUE(r.ok) << r.diags;
  // Lane 3, register 3 (dword 1, high half): G[8 + 2 * (16 + 3) + 1] = G[47] = -13.
  EXPECT_EQ(r.args.args[2].buffer.getFloat(3 * 4 + 3), -13.0);
  for (int64_t l = 0; l < 16; ++l)
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(r.args.args[2].buffer.getFloat(l * 4 + i), static_cast<double>(8 + 2 * (16 * (i / 2) + l) + i % 2) - 60) << l << ", " << i;
  for (int64_t k = 0; k < 128; ++k) EXPECT_EQ(r.args.args[1].buffer.getFloat(k), static_cast<double>(8 + k) - 60) << k;
}

TEST(InterpXe, BlockReadPastTheBufferIsAnError) {
  // 32 elements from 80 run past the 100-element buffer at element 100 (lane 4 of register 1).
  Ran r = runText(blockKernel(80), blockArgs());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:4:9: error: out-of-bounds access: element 100 of a buffer of 100 elements"), std::string::npos) << r.diags;
}

namespace {
std::string prefetchKernel(int64_t offset) {
  return pvcKernel("%G: memref<16xf32>", "\"G\"", "",
         "  %base = xe.base_address %G : (memref<16xf32>) -> (i64)\n"
         "  %lane = gpu.lane_id : () -> (index)\n"
         "  %l64 = arith.convert %lane : (index) -> (i64)\n"
         "  %four = arith.constant {value = 4 : i64} : () -> (i64)\n"
         "  %off = arith.constant {value = " + std::to_string(offset) + " : i64} : () -> (i64)\n"
         "  %b = arith.muli %l64, %four : (i64, i64) -> (i64)\n"
         "  %c = arith.addi %b, %off : (i64, i64) -> (i64)\n"
         "  %a = arith.addi %base, %c : (i64, i64) -> (i64)\n"
         "  xe.prefetch_1d %a {cache = 4} : (i64) -> () loc(\"x.xt\":3:3)\n");
}
}  // namespace

TEST(InterpXe, Prefetch1dChecksEveryLanesAddress) {
  KernelArgs ok{{KernelArg::fromBuffer(Buffer(ElemKind::F32, {16}))}};
  Ran r = runText(prefetchKernel(0), std::move(ok));
  EXPECT_TRUE(r.ok) << r.diags;
  // Offset 8: lanes 14 and 15 prefetch bytes 64 and 68 of a 64-byte buffer.
  KernelArgs bad{{KernelArg::fromBuffer(Buffer(ElemKind::F32, {16}))}};
  r = runText(prefetchKernel(8), std::move(bad));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:3:3: error: xe.prefetch_1d: lane 14 prefetches address 0x"), std::string::npos) << r.diags;
}

namespace {
// xe.lane_read on dg2 (8 lanes): lane l reads 4 units from row l of G at column `col`, and stores
// register i at O[l][i]. Element (r, c) = 100 r + c (exact in f16 and f32).
std::string laneReadKernel(const char* elem, int64_t col, const char* unit) {
  std::string e = elem, n = std::string(unit).empty() ? "4" : "8";
  std::string text = "xtc.kernel @k(%G: memref<8x16x" + e + ">, %O: memref<8x8x" + e +
                     ">) {arg_names = [\"G\", \"O\"], sg_size = 8, target = \"dg2\"} launch {\n"
                     "  %one = arith.constant {value = 1 : index} : () -> (index)\n"
                     "  xtc.grid %one, %one, %one : (index, index, index) -> ()\n} body {\n"
                     "  %lane = gpu.lane_id : () -> (index)\n"
                     "  %c = arith.constant {value = " + std::to_string(col) + " : index} : () -> (index)\n"
                     "  %v = xe.lane_read %G, %lane, %c " + unit + ": (memref<8x16x" + e + ">, index, index) -> (vector<" + n + "x" + e +
                     ">) loc(\"x.xt\":3:5)\n";
  for (int i = 0; i < std::stoi(n); ++i)
    text += "  %e" + std::to_string(i) + " = vector.extract %v {index = " + std::to_string(i) + "} : (vector<" + n + "x" + e + ">) -> (" + e +
            ")\n  %i" + std::to_string(i) + " = arith.constant {value = " + std::to_string(i) + " : index} : () -> (index)\n" +
            "  lane.store %e" + std::to_string(i) + ", %O, %lane, %i" + std::to_string(i) + " : (" + e + ", memref<8x8x" + e +
            ">, index, index) -> ()\n";
  return text + "  xtc.return : () -> ()\n}\n";
}
KernelArgs laneReadArgs(ElemKind k) {
  Buffer g(k, {8, 16});
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 16; ++c) g.setFloat(r * 16 + c, 100.0 * r + c);
  return KernelArgs{{KernelArg::fromBuffer(std::move(g)), KernelArg::fromBuffer(Buffer(k, {8, 8}))}};
}
}  // namespace

TEST(InterpXe, LaneReadEachLaneItsRow) {
  // Lane l, register i = G[l, 4 + i] = 100 l + 4 + i.
  Ran r = runText(laneReadKernel("f32", 4, ""), laneReadArgs(ElemKind::F32));
  ASSERT_TRUE(r.ok) << r.diags;
  for (int64_t l = 0; l < 8; ++l)
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(r.args.args[1].buffer.getFloat(l * 8 + i), 100.0 * l + 4 + i) << l << ", " << i;
}

TEST(InterpXe, LaneReadOutsideTheRowIsAnError) {
  // Columns 13..16 of a 16-column row: the last would be the next row's first element.
  Ran r = runText(laneReadKernel("f32", 13, ""), laneReadArgs(ElemKind::F32));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("x.xt:3:5: error: xe.lane_read: lane 0 reads [0, 13..16] outside the 8x16 memref (the message has no bounds check)"),
            std::string::npos)
      << r.diags;
}

TEST(InterpXe, LaneReadMisalignedUnitIsAnError) {
  // f16 pairs (elem_bits = 32) from column 1: byte 2 of the row, not a dword.
  Ran r = runText(laneReadKernel("f16", 1, "{elem_bits = 32} "), laneReadArgs(ElemKind::F16));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("xe.lane_read: lane 0 reads address "), std::string::npos) << r.diags;
  EXPECT_NE(r.diags.find(", not a multiple of its 4-byte unit"), std::string::npos) << r.diags;
}
