// Benchmark: the reference interpreter running a 512x512x512 bf16 GEMM (f32 accumulation) at
// workgroup tile level — 256x256 workgroup tiles, K steps of 32 — as `xtc run --check` does for
// the source-level IR. Target: under 2 s on one core.
#include "ir/Module.h"
#include "ir/interpret/Interpreter.h"

#include <benchmark/benchmark.h>

#include <random>
#include <sstream>

using namespace xtc;
using namespace xtc::ir;

namespace {

std::shared_ptr<const Attribute> wgMap(std::vector<int64_t> layout, std::vector<int64_t> data) {
  return std::make_shared<const Attribute>(Attribute::wgMap(WgMap{std::move(layout), std::move(data)}));
}

// kernel gemm(A: memref<?x?xbf16>, B: memref<?x?xbf16>, C: memref<?x?xf32>)
//     grid(ceildiv(dim(C, 0), 256), ceildiv(dim(C, 1), 256)) { ... }
std::unique_ptr<Operation> buildGemm(SourceManager& sm) {
  const int64_t TM = 256, TN = 256, TK = 32;
  auto module = createModule();
  Type ab = Type::memref({kDynamic, kDynamic}, ElemKind::BF16), c = Type::memref({kDynamic, kDynamic}, ElemKind::F32);
  SourceLoc loc{sm.intern("gemm.xt"), 1, 1};
  Operation* k = createKernel(module.get(), "gemm", {"A", "B", "C"}, {ab, ab, c}, loc);
  Builder l(&kernelLaunch(k));
  auto dim = [](Builder& b, Value* m, int64_t d) {
    return b.create("memref.dim", {m}, {Type::index()}, {{"index", Attribute::integer(d)}})->result();
  };
  Value* gx = l.create("arith.ceildivsi", {dim(l, kernelLaunch(k).argument(2), 0), l.constantIndex(TM)}, {Type::index()})->result();
  Value* gy = l.create("arith.ceildivsi", {dim(l, kernelLaunch(k).argument(2), 1), l.constantIndex(TN)}, {Type::index()})->result();
  l.create("xtc.grid", {gx, gy, l.constantIndex(1)}, {});

  Block& body = kernelBody(k);
  Builder b(&body);
  auto wa = wgMap({8, 4}, {32, 32}), wb = wgMap({8, 4}, {32, 64}), wc = wgMap({8, 4}, {32, 64});
  auto tinfo = [](std::shared_ptr<const Attribute> w) { return TileInfo{{}, std::move(w), nullptr, MemSpace::Global, false, {}}; };
  Type ta = Type::tile({TM, TK}, ElemKind::BF16, tinfo(wa)), tb = Type::tile({TK, TN}, ElemKind::BF16, tinfo(wb));
  Type tc = Type::tile({TM, TN}, ElemKind::F32, tinfo(wc));
  Type vc = Type::vector({TM, TN}, ElemKind::F32, wc);
  Value* m = b.create("arith.muli", {b.create("gpu.group_id", {}, {Type::index()}, {{"dim", Attribute::integer(0)}})->result(), b.constantIndex(TM)}, {Type::index()})->result();
  Value* n = b.create("arith.muli", {b.create("gpu.group_id", {}, {Type::index()}, {{"dim", Attribute::integer(1)}})->result(), b.constantIndex(TN)}, {Type::index()})->result();
  Value* z = b.constantIndex(0);
  auto seg = AttrMap{{"segments", Attribute::intArray({2, 0, 0})}};
  Value* a0 = b.create("tile.init_tile", {body.argument(0), m, z}, {ta}, seg)->result();
  Value* b0 = b.create("tile.init_tile", {body.argument(1), z, n}, {tb}, seg)->result();
  Value* acc0 = b.create("arith.constant", {}, {vc}, {{"value", Attribute::denseFloat(vc, {0.0})}})->result();
  Operation* loop = b.create("scf.for", {z, dim(b, body.argument(0), 1), b.constantIndex(TK), a0, b0, acc0}, {ta, tb, vc}, {}, 1);
  Block& lb = loop->region(0).addBlock();
  lb.addArgument(Type::index());
  Value* ia = lb.addArgument(ta);
  Value* ib = lb.addArgument(tb);
  Value* iacc = lb.addArgument(vc);
  Builder in(&lb);
  Value* va = in.create("tile.load_tile", {ia}, {Type::vector({TM, TK}, ElemKind::BF16, wa)})->result();
  Value* vb = in.create("tile.load_tile", {ib}, {Type::vector({TK, TN}, ElemKind::BF16, wb)})->result();
  Value* acc = in.create("tile.tile_mma", {va, vb, iacc}, {vc})->result();
  Value* kk = in.constantIndex(TK);
  Value* zz = in.constantIndex(0);
  Value* na = in.create("tile.update_tile_offset", {ia, zz, kk}, {ta})->result();
  Value* nb = in.create("tile.update_tile_offset", {ib, kk, zz}, {tb})->result();
  in.create("scf.yield", {na, nb, acc}, {});
  Value* ct = b.create("tile.init_tile", {body.argument(2), m, n}, {tc}, seg)->result();
  b.create("tile.store_tile", {loop->result(2), ct}, {});
  b.create("xtc.return", {}, {});
  return module;
}

void BM_InterpGemm512(benchmark::State& state) {
  const int64_t S = 512;
  SourceManager sm;
  auto module = buildGemm(sm);
  Operation* kernel = moduleKernels(module.get())[0];
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  interp::Buffer A(ElemKind::BF16, {S, S}), B(ElemKind::BF16, {S, S});
  for (int64_t i = 0; i < S * S; ++i) {
    A.setFloat(i, dist(rng));
    B.setFloat(i, dist(rng));
  }
  for (auto _ : state) {
    interp::KernelArgs args{{interp::KernelArg::fromBuffer(A), interp::KernelArg::fromBuffer(B),
                             interp::KernelArg::fromBuffer(interp::Buffer(ElemKind::F32, {S, S}))}};
    std::ostringstream out;
    DiagnosticEngine diags(sm, out);
    if (!interp::runKernel(*kernel, args, diags)) {
      diags.flush();
      state.SkipWithError(out.str().c_str());
      break;
    }
    benchmark::DoNotOptimize(args.args[2].buffer.bytes.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * S * S * S * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate,
                                                 benchmark::Counter::kIs1000);
}
BENCHMARK(BM_InterpGemm512)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
