// Interpreter: the tile.* ops (memory, mma, shape ops), with expected values worked out by hand;
// the GEMM is checked against a plain triple loop written here.
#include "InterpTestUtil.h"

#include <gtest/gtest.h>

#include <random>

using namespace xtc;
using namespace xtc::interp;
using namespace xtc::interp::test;

namespace {
const ElemKind F32 = ElemKind::F32, I32 = ElemKind::I32, BF16 = ElemKind::BF16;
using D = std::vector<double>;

std::vector<double> floats(const Buffer& b) {
  std::vector<double> r;
  for (int64_t i = 0; i < b.numElements(); ++i) r.push_back(b.getFloat(i));
  return r;
}

std::shared_ptr<const ir::Attribute> wgMap(std::vector<int64_t> layout, std::vector<int64_t> data) {
  return std::make_shared<const ir::Attribute>(ir::Attribute::wgMap(ir::WgMap{std::move(layout), std::move(data)}));
}
}  // namespace

TEST(InterpTile, LoadPadsOutOfBounds) {
  // src[i][j] = 10i + j, 3x5; a 4x4 tile at [1, 2] with padding 7.
  KernelBuilder kb({"src", "out"}, {Type::memref({3, 5}, F32), Type::memref({4, 4}, F32)});
  Value* t = kb.initTile(kb.arg(0), {kb.idx(1), kb.idx(2)}, Type::tile({4, 4}, F32));
  Value* v = kb.load(t, {{"padding", ir::Attribute::floating(7.0)}});
  kb.storeAll(v, kb.arg(1));
  kb.finish();
  D src;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) src.push_back(10 * i + j);
  KernelArgs args{{buf(F32, {3, 5}, src), buf(F32, {4, 4})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_EQ(floats(args.args[1].buffer), (D{12, 13, 14, 7, 22, 23, 24, 7, 7, 7, 7, 7, 7, 7, 7, 7}));
}

TEST(InterpTile, StoreDropsOutOfBounds) {
  KernelBuilder kb({"dst"}, {Type::memref({3, 5}, F32)});
  std::vector<double> ones(16);
  for (int i = 0; i < 16; ++i) ones[i] = i + 1;
  Value* v = kb.denseF(Type::vector({4, 4}, F32), ones);
  kb.store(v, kb.initTile(kb.arg(0), {kb.idx(1), kb.idx(2)}, Type::tile({4, 4}, F32)));
  kb.finish();
  KernelArgs args{{buf(F32, {3, 5})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  // Only tile rows 0-1 and columns 0-2 land inside: dst[1][2..4] = 1 2 3, dst[2][2..4] = 5 6 7.
  EXPECT_EQ(floats(args.args[0].buffer), (D{0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 5, 6, 7}));
}

TEST(InterpTile, StridedColumnMajorMemref) {
  // memref<4x3xf32, strides=[1, 4]>: element (i, j) is at i + 4j.
  KernelBuilder kb({"src", "out"}, {Type::memref({4, 3}, F32, ir::MemSpace::Global, {1, 4}), Type::memref({2, 2}, F32)});
  Value* v = kb.load(kb.initTile(kb.arg(0), {kb.idx(1), kb.idx(1)}, Type::tile({2, 2}, F32, ir::TileInfo{{0, 1}, nullptr, nullptr, ir::MemSpace::Global, false, {}})));
  kb.storeAll(v, kb.arg(1));
  kb.finish();
  D lin;
  for (int i = 0; i < 12; ++i) lin.push_back(i);
  KernelArgs args{{buf(F32, {4, 3}, lin), buf(F32, {2, 2})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  // (1,1) -> 5, (1,2) -> 9, (2,1) -> 6, (2,2) -> 10
  EXPECT_EQ(floats(args.args[1].buffer), (D{5, 9, 6, 10}));
}

TEST(InterpTile, ExplicitShapeOutsideTheBufferIsAnError) {
  // A dynamic memref described with a shape one row taller than the real buffer: the tile bounds
  // allow the access, the buffer does not.
  KernelBuilder kb({"src", "out"}, {Type::memref({ir::kDynamic, ir::kDynamic}, F32), Type::memref({3, 2}, F32)});
  Value* d0 = kb.op("memref.dim", {kb.arg(0)}, Type::index(), {{"index", ir::Attribute::integer(0)}});
  Value* d1 = kb.op("memref.dim", {kb.arg(0)}, Type::index(), {{"index", ir::Attribute::integer(1)}});
  Value* rows = kb.op("arith.addi", {d0, kb.idx(1)}, Type::index());
  kb.b.setLoc(kb.loc(7, 9));
  Value* t = kb.op("tile.init_tile", {kb.arg(0), kb.idx(0), kb.idx(0), rows, d1, d1, kb.idx(1)}, Type::tile({3, 2}, F32),
                   {{"segments", ir::Attribute::intArray({2, 2, 2})}});
  kb.b.setLoc(kb.loc(8, 11));
  Value* v = kb.load(t);
  kb.storeAll(v, kb.arg(1));
  kb.finish();
  KernelArgs args{{buf(F32, {2, 2}, {1, 2, 3, 4}), buf(F32, {3, 2})}};
  RunResult r = run(kb, args);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("k.xt:8:11: error: out-of-bounds access: element 4 of a buffer of 4 elements"), std::string::npos) << r.diags;

}

TEST(InterpTile, UpdateOffsetMovesTheTile) {
  KernelBuilder kb({"src", "out"}, {Type::memref({2, 6}, F32), Type::memref({2, 2}, F32)});
  Value* t = kb.initTile(kb.arg(0), {kb.idx(0), kb.idx(0)}, Type::tile({2, 2}, F32));
  Value* t2 = kb.op("tile.update_tile_offset", {t, kb.idx(0), kb.idx(3)}, t->type());
  kb.storeAll(kb.load(t2), kb.arg(1));
  kb.finish();
  KernelArgs args{{buf(F32, {2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), buf(F32, {2, 2})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_EQ(floats(args.args[1].buffer), (D{3, 4, 9, 10}));
}

// C = A x B at workgroup level: tiles with wg_map, a K loop with update_tile_offset, unaligned
// sizes (so padding is exercised) and a grid from the launch region.
TEST(InterpTile, GemmMatchesTripleLoop) {
  const int64_t M = 70, N = 50, K = 40, TM = 32, TN = 32, TK = 16;
  Type dyn = Type::memref({ir::kDynamic, ir::kDynamic}, BF16);
  KernelBuilder kb({"A", "B", "C"}, {dyn, dyn, Type::memref({ir::kDynamic, ir::kDynamic}, F32)});
  // launch: grid(ceildiv(dim(C, 0), TM), ceildiv(dim(C, 1), TN))
  {
    auto& l = kb.launch;
    Value* c0 = l.create("memref.dim", {kb.launchArg(2)}, {Type::index()}, {{"index", ir::Attribute::integer(0)}})->result();
    Value* c1 = l.create("memref.dim", {kb.launchArg(2)}, {Type::index()}, {{"index", ir::Attribute::integer(1)}})->result();
    Value* gx = l.create("arith.ceildivsi", {c0, l.constantIndex(TM)}, {Type::index()})->result();
    Value* gy = l.create("arith.ceildivsi", {c1, l.constantIndex(TN)}, {Type::index()})->result();
    l.create("xtc.grid", {gx, gy, l.constantIndex(1)}, {});
  }
  auto wa = wgMap({2, 2}, {16, 8}), wb = wgMap({2, 2}, {8, 16}), wc = wgMap({2, 2}, {16, 16});
  Value* gx = kb.op("gpu.group_id", {}, Type::index(), {{"dim", ir::Attribute::integer(0)}});
  Value* gy = kb.op("gpu.group_id", {}, Type::index(), {{"dim", ir::Attribute::integer(1)}});
  Value* m = kb.op("arith.muli", {gx, kb.idx(TM)}, Type::index());
  Value* n = kb.op("arith.muli", {gy, kb.idx(TN)}, Type::index());
  Type ta = Type::tile({TM, TK}, BF16, ir::TileInfo{{}, wa, nullptr, ir::MemSpace::Global, false, {}});
  Type tb = Type::tile({TK, TN}, BF16, ir::TileInfo{{}, wb, nullptr, ir::MemSpace::Global, false, {}});
  Type tc = Type::tile({TM, TN}, F32, ir::TileInfo{{}, wc, nullptr, ir::MemSpace::Global, false, {}});
  Type vc = Type::vector({TM, TN}, F32, wc);
  Value* a0 = kb.initTile(kb.arg(0), {m, kb.idx(0)}, ta);
  Value* b0 = kb.initTile(kb.arg(1), {kb.idx(0), n}, tb);
  Value* acc0 = kb.denseF(vc, {0.0});
  Value* kdim = kb.op("memref.dim", {kb.arg(0)}, Type::index(), {{"index", ir::Attribute::integer(1)}});
  ir::Operation* loop = kb.b.create("scf.for", {kb.idx(0), kdim, kb.idx(TK), a0, b0, acc0}, {ta, tb, vc}, {}, 1);
  ir::Block& body = loop->region(0).addBlock();
  body.addArgument(Type::index());
  Value* ia = body.addArgument(ta);
  Value* ib = body.addArgument(tb);
  Value* iacc = body.addArgument(vc);
  {
    ir::Builder lb(&body);
    Value* va = lb.create("tile.load_tile", {ia}, {Type::vector({TM, TK}, BF16, wa)})->result();
    Value* vb = lb.create("tile.load_tile", {ib}, {Type::vector({TK, TN}, BF16, wb)})->result();
    Value* acc = lb.create("tile.tile_mma", {va, vb, iacc}, {vc})->result();
    Value* k16 = lb.constantIndex(TK);
    Value* z = lb.constantIndex(0);
    Value* na = lb.create("tile.update_tile_offset", {ia, z, k16}, {ta})->result();
    Value* nb = lb.create("tile.update_tile_offset", {ib, k16, z}, {tb})->result();
    lb.create("scf.yield", {na, nb, acc}, {});
  }
  kb.store(loop->result(2), kb.initTile(kb.arg(2), {m, n}, tc));
  kb.finish();

  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  Buffer A(BF16, {M, K}), B(BF16, {K, N});
  for (int64_t i = 0; i < M * K; ++i) A.setFloat(i, dist(rng));
  for (int64_t i = 0; i < K * N; ++i) B.setFloat(i, dist(rng));
  KernelArgs args{{KernelArg::fromBuffer(A), KernelArg::fromBuffer(B), KernelArg::fromBuffer(Buffer(F32, {M, N}))}};
  EXPECT_EQ(evaluateLaunchGrid(*kb.kernel, args), (std::array<int64_t, 3>{3, 2, 1}));
  RunStats st;
  RunResult r = run(kb, args, {}, &st);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_TRUE(st.workgroupLevel);
  EXPECT_EQ(st.workgroups, 6);
  EXPECT_EQ(st.mmaFlops, 6 * 3 * 2 * TM * TN * TK);  // 6 workgroups x 3 K steps
  // Reference: f32 accumulation in k order (bf16 products are exact in f32).
  const Buffer& C = args.args[2].buffer;
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) acc += static_cast<float>(A.getFloat(i * K + k)) * static_cast<float>(B.getFloat(k * N + j));
      if (C.getFloat(i * N + j) != static_cast<double>(acc) && bad++ < 5) ADD_FAILURE() << "C[" << i << "][" << j << "] = " << C.getFloat(i * N + j) << ", expected " << acc;
    }
  EXPECT_EQ(bad, 0);
}

TEST(InterpTile, MmaWithoutCAndInt8) {
  KernelBuilder kb({"out", "outi"}, {Type::memref({2, 2}, F32), Type::memref({1, 1}, I32)});
  Value* a = kb.denseF(Type::vector({2, 3}, BF16), {1, 2, 3, 4, 5, 6});
  Value* b = kb.denseF(Type::vector({3, 2}, BF16), {1, 0, 0, 1, 1, 1});
  kb.storeAll(kb.op("tile.tile_mma", {a, b}, Type::vector({2, 2}, F32)), kb.arg(0));
  Value* ai = kb.denseI(Type::vector({1, 2}, ElemKind::I8), {-128, 127});
  Value* bi = kb.denseI(Type::vector({2, 1}, ElemKind::I8), {-128, 127});
  kb.storeAll(kb.op("tile.tile_mma", {ai, bi}, Type::vector({1, 1}, I32)), kb.arg(1));
  kb.finish();
  KernelArgs args{{buf(F32, {2, 2}), buf(I32, {1, 1})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  // [[1,2,3],[4,5,6]] x [[1,0],[0,1],[1,1]] = [[4,5],[10,11]]
  EXPECT_EQ(floats(args.args[0].buffer), (D{4, 5, 10, 11}));
  EXPECT_EQ(args.args[1].buffer.getInt(0), 16384 + 16129);
}

TEST(InterpTile, ReductionWithSize) {
  KernelBuilder kb({"o1", "o2", "o3"}, {Type::memref({2, 4}, I32), Type::memref({4, 1}, I32), Type::memref({4, 2}, F32)});
  std::vector<int64_t> v;
  for (int i = 0; i < 16; ++i) v.push_back(i);  // v[r][c] = 4r + c
  Value* x = kb.denseI(Type::vector({4, 4}, I32), v);
  auto red = [&](const char* kind, int64_t dim, int64_t size) {
    ir::AttrMap a{{"kind", ir::Attribute::enumValue("reduce", kind)}, {"dims", ir::Attribute::intArray({dim})}};
    if (size) a["reduction_size"] = ir::Attribute::integer(size);
    return a;
  };
  kb.storeAll(kb.op("tile.reduction", {x}, Type::vector({2, 4}, I32), red("add", 0, 2)), kb.arg(0));
  kb.storeAll(kb.op("tile.reduction", {x}, Type::vector({4, 1}, I32), red("add", 1, 0)), kb.arg(1));
  Value* xf = kb.denseF(Type::vector({4, 4}, F32), {3, 1, -2, 5, 0, 0, 0, 0, -1, -7, 2, 2, 9, 8, 7, 6});
  kb.storeAll(kb.op("tile.reduction", {xf}, Type::vector({4, 2}, F32), red("max", 1, 2)), kb.arg(2));
  kb.finish();
  KernelArgs args{{buf(I32, {2, 4}), buf(I32, {4, 1}), buf(F32, {4, 2})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  // rows 0+1 and 2+3
  EXPECT_EQ(floats(args.args[0].buffer), (D{4, 6, 8, 10, 20, 22, 24, 26}));
  EXPECT_EQ(floats(args.args[1].buffer), (D{6, 22, 38, 54}));
  EXPECT_EQ(floats(args.args[2].buffer), (D{3, 5, 0, 0, -1, 2, 9, 7}));
}

TEST(InterpTile, BroadcastAndTranspose) {
  KernelBuilder kb({"o1", "o2", "o3"}, {Type::memref({4, 3}, F32), Type::memref({2, 3}, F32), Type::memref({3, 2}, F32)});
  Value* x = kb.denseF(Type::vector({2, 3}, F32), {1, 2, 3, 4, 5, 6});
  kb.storeAll(kb.op("tile.broadcast", {x}, Type::vector({4, 3}, F32),
                    {{"dims", ir::Attribute::intArray({0})}, {"broadcast_size", ir::Attribute::integer(2)}}),
              kb.arg(0));
  Value* col = kb.denseF(Type::vector({2, 1}, F32), {7, 8});
  kb.storeAll(kb.op("tile.broadcast", {col}, Type::vector({2, 3}, F32), {{"dims", ir::Attribute::intArray({1})}}), kb.arg(1));
  kb.storeAll(kb.op("tile.transpose", {x}, Type::vector({3, 2}, F32), {{"permutation", ir::Attribute::intArray({1, 0})}}), kb.arg(2));
  kb.finish();
  KernelArgs args{{buf(F32, {4, 3}), buf(F32, {2, 3}), buf(F32, {3, 2})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  EXPECT_EQ(floats(args.args[0].buffer), (D{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_EQ(floats(args.args[1].buffer), (D{7, 7, 7, 8, 8, 8}));
  EXPECT_EQ(floats(args.args[2].buffer), (D{1, 4, 2, 5, 3, 6}));
}

TEST(InterpTile, GatherScatterWithMasks) {
  Type mem = Type::memref({ir::kDynamic}, F32);
  KernelBuilder kb({"src", "dst", "out"}, {mem, mem, Type::memref({4}, F32)});
  Type scat = Type::tile({4}, F32, ir::TileInfo{{}, nullptr, nullptr, ir::MemSpace::Global, true, {}});
  Value* offs = kb.denseI(Type::vector({4}, ElemKind::Index), {3, 9, 12, -1});
  Value* mask = kb.denseI(Type::vector({4}, ElemKind::I1), {1, 0, 1, 1});
  Value* t = kb.op("tile.init_tile", {kb.arg(0), offs}, scat, {{"segments", ir::Attribute::intArray({1, 0, 0})}});
  Value* g = kb.op("tile.load_gather", {t, mask}, Type::vector({4}, F32), {{"padding", ir::Attribute::floating(5.0)}});
  kb.storeAll(g, kb.arg(2));
  Value* soffs = kb.denseI(Type::vector({4}, ElemKind::Index), {0, 2, 10, 4});
  Value* smask = kb.denseI(Type::vector({4}, ElemKind::I1), {1, 1, 1, 0});
  Value* st = kb.op("tile.init_tile", {kb.arg(1), soffs}, scat, {{"segments", ir::Attribute::intArray({1, 0, 0})}});
  kb.b.create("tile.store_scatter", {kb.denseF(Type::vector({4}, F32), {100, 200, 300, 400}), smask, st}, {});
  kb.finish();
  D src;
  for (int i = 0; i < 10; ++i) src.push_back(1.5 * i);
  KernelArgs args{{buf(F32, {10}, src), buf(F32, {6}, {-1, -1, -1, -1, -1, -1}), buf(F32, {4})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  // offset 3 -> 4.5; masked off -> pad; 12 and -1 out of bounds -> pad
  EXPECT_EQ(floats(args.args[2].buffer), (D{4.5, 5, 5, 5}));
  // 0 <- 100, 2 <- 200, 10 out of bounds dropped, 4 masked off
  EXPECT_EQ(floats(args.args[1].buffer), (D{100, -1, 200, -1, -1, -1}));
}

TEST(InterpTile, AtomicRmwReturnsOldValues) {
  KernelBuilder kb({"mem", "old"}, {Type::memref({5}, F32), Type::memref({4}, F32)});
  Value* t = kb.initTile(kb.arg(0), {kb.idx(2)}, Type::tile({4}, F32));
  Value* old = kb.op("tile.atomic_rmw", {kb.denseF(Type::vector({4}, F32), {10, 20, 30, 40}), t}, Type::vector({4}, F32),
                     {{"kind", ir::Attribute::enumValue("atomic", "addf")}});
  kb.storeAll(old, kb.arg(1));
  kb.finish();
  KernelArgs args{{buf(F32, {5}, {1, 2, 3, 4, 5}), buf(F32, {4})}};
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  // elements 2..4 are in bounds; the 4th lane is out of bounds (dropped, reads 0)
  EXPECT_EQ(floats(args.args[0].buffer), (D{1, 2, 13, 24, 35}));
  EXPECT_EQ(floats(args.args[1].buffer), (D{3, 4, 5, 0}));
}

TEST(InterpTile, ArgumentMismatchIsReported) {
  KernelBuilder kb({"A"}, {Type::memref({4, ir::kDynamic}, F32)});
  kb.finish();
  KernelArgs args{{buf(BF16, {4, 2})}};
  RunResult r = run(kb, args);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("argument 'A' has element type bf16, the kernel expects f32"), std::string::npos) << r.diags;
  args.args[0] = buf(F32, {3, 2});
  r = run(kb, args);
  EXPECT_NE(r.diags.find("argument 'A' has shape 3x2, the kernel expects memref<4x?xf32>"), std::string::npos) << r.diags;
  args.args[0] = buf(F32, {8});
  r = run(kb, args);
  EXPECT_NE(r.diags.find("argument 'A' has rank 1, the kernel expects memref<4x?xf32>"), std::string::npos) << r.diags;
}

namespace {
// A 3x2 f32 tile at [1, 2] of the 3x4 row-major matrix that starts at address p (i64); stored to
// out (3x2). shape = [3, 4], strides = [4, 1].
struct RawAddressKernel : KernelBuilder {
  RawAddressKernel()
      : KernelBuilder({"p", "A", "out"}, {Type::scalar(ElemKind::I64), Type::memref({20}, F32), Type::memref({3, 2}, F32)}) {
    b.setLoc(loc(5, 7));
    Value* t = op("tile.init_tile", {arg(0), idx(1), idx(2), idx(3), idx(4), idx(4), idx(1)}, Type::tile({3, 2}, F32),
                  {{"segments", Attribute::intArray({2, 2, 2})}});
    storeAll(load(t, {{"padding", Attribute::floating(-1.0)}}), arg(2));
    finish();
  }
};
}  // namespace

TEST(InterpTile, RawAddressTile) {
  // p = &A[4]: tile element (i, j) is matrix (1 + i, 2 + j) = A[4 + 4 (1 + i) + 2 + j] = A[10 + 4i + j];
  // row 3 (i = 2) is outside the 3-row shape and reads the padding.
  RawAddressKernel kb;
  std::vector<double> a(20);
  for (int k = 0; k < 20; ++k) a[k] = 3 * k + 1;
  KernelArgs args{{KernelArg::fromScalar(ScalarArg::integer(0, ElemKind::I64)), buf(F32, {20}, a), buf(F32, {3, 2})}};
  args.args[0].scalar.i = static_cast<int64_t>(reinterpret_cast<uintptr_t>(args.args[1].buffer.bytes.data())) + 4 * 4;
  RunResult r = run(kb, args);
  ASSERT_TRUE(r.ok) << r.diags;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(args.args[2].buffer.getFloat(i * 2 + j), i < 2 ? a[10 + 4 * i + j] : -1.0) << i << ", " << j;
}

TEST(InterpTile, RawAddressOutsideEveryBufferIsAnError) {
  RawAddressKernel kb;
  KernelArgs args{{KernelArg::fromScalar(ScalarArg::integer(64, ElemKind::I64)), buf(F32, {20}), buf(F32, {3, 2})}};
  RunResult r = run(kb, args);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diags.find("k.xt:5:7: error: tile.init_tile: the address 0x40 is not inside any kernel buffer"), std::string::npos) << r.diags;
}
