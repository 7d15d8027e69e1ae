// Benchmark of the IR text round trip on a 100,000-op module: build it with the Builder, print it,
// parse the text back, and verify it. The whole round trip (build + print + parse + verify) must stay
// well under a second; BM_RoundTrip measures exactly that sequence.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "ir/ops/Ops.h"

#include <benchmark/benchmark.h>

#include <sstream>
#include <stdexcept>

namespace {

using namespace xtc;
using namespace xtc::ir;

constexpr int kTargetOps = 100000;

size_t countOps(Operation* m) {
  size_t n = 0;
  m->walk([&](Operation*) { ++n; });
  return n;
}

// A kernel whose body mixes index math, tile ops and loops (with loop-carried values and nested
// ops), repeated until the module holds kTargetOps ops. The IR is valid.
std::unique_ptr<Operation> buildModule() {
  auto m = createModule();
  Type mem = Type::memref({kDynamic, kDynamic}, ElemKind::BF16);
  Type memC = Type::memref({kDynamic, kDynamic}, ElemKind::F32);
  Operation* k = createKernel(m.get(), "big", {"A", "C", "n"}, {mem, memC, Type::index()}, {});
  Builder lb(&kernelLaunch(k));
  Value* one = lb.constantIndex(1);
  lb.create("xtc.grid", {one, one, one}, {});
  Builder b(&kernelBody(k));
  Value* n = kernelBody(k).argument(2);
  Value* A = kernelBody(k).argument(0);
  Value* C = kernelBody(k).argument(1);
  Value* step = b.constantIndex(1);
  Type ta = Type::tile({32, 16}, ElemKind::BF16);
  Type va = Type::vector({32, 16}, ElemKind::BF16);
  Type tc = Type::tile({32, 32}, ElemKind::F32);
  Type vc = Type::vector({32, 32}, ElemKind::F32);
  Type vb = Type::vector({16, 32}, ElemKind::BF16);
  size_t ops = 5;
  for (int i = 0; ops < kTargetOps; ++i) {
    Value* c = b.constantIndex(i);
    Value* x = b.create("arith.addi", {n, c}, {Type::index()})->result();
    x->setNameHint("x");
    Value* y = b.create("arith.muli", {x, c}, {Type::index()})->result();
    Value* t = b.create("tile.init_tile", {A, x, y}, {ta})->result();
    t->setNameHint("ta");
    Value* a = b.create("tile.load_tile", {t}, {va})->result();
    Value* bt = b.create("tile.init_tile", {A, y, x}, {Type::tile({16, 32}, ElemKind::BF16)})->result();
    Value* bv = b.create("tile.load_tile", {bt}, {vb})->result();
    Value* acc = b.create("arith.constant", {}, {vc}, {{"value", Attribute::denseFloat(vc, {0.0})}})->result();
    Operation* loop = b.create("scf.for", {c, n, step, acc}, {vc}, {}, 1);
    Block& body = loop->region(0).addBlock();
    body.addArgument(Type::index())->setNameHint("k");
    Value* carried = body.addArgument(vc);
    carried->setNameHint("acc");
    Builder ib(&body);
    Value* cur = carried;
    for (int j = 0; j < 4; ++j) cur = ib.create("tile.tile_mma", {a, bv, cur}, {vc})->result();
    Value* scaled = ib.create("arith.addf", {cur, cur}, {vc})->result();
    ib.create("scf.yield", {scaled}, {});
    Value* tcv = b.create("tile.init_tile", {C, x, y}, {tc})->result();
    b.create("tile.store_tile", {loop->result(), tcv}, {});
    ops += 17;
  }
  b.create("xtc.return", {}, {});
  return m;
}

struct Quiet {
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags{sm, out};
};

void BM_Build(benchmark::State& state) {
  size_t n = 0;
  for (auto _ : state) {
    auto m = buildModule();
    n = countOps(m.get());
    benchmark::DoNotOptimize(m.get());
  }
  state.counters["ops"] = static_cast<double>(n);
}

void BM_Print(benchmark::State& state) {
  auto m = buildModule();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = printToString(*m);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_Parse(benchmark::State& state) {
  std::string text = printToString(*buildModule());
  for (auto _ : state) {
    Quiet q;
    auto m = parseModule("big.ir", text, q.diags);
    if (!m) throw std::runtime_error("parse failed: " + (q.diags.flush(), q.out.str()));
    benchmark::DoNotOptimize(m.get());
  }
}

void BM_Verify(benchmark::State& state) {
  registerAllOps();
  auto m = buildModule();
  for (auto _ : state) {
    Quiet q;
    if (!verify(*m, q.diags)) throw std::runtime_error("verify failed: " + (q.diags.flush(), q.out.str()));
  }
}

void BM_RoundTrip(benchmark::State& state) {
  registerAllOps();
  for (auto _ : state) {
    auto m = buildModule();
    std::string text = printToString(*m);
    Quiet q;
    auto back = parseModule("big.ir", text, q.diags);
    if (!back || !verify(*back, q.diags)) throw std::runtime_error("round trip failed: " + (q.diags.flush(), q.out.str()));
    // Not part of the measured round trip: the exactness check and freeing both modules.
    state.PauseTiming();
    if (printToString(*back) != text) throw std::runtime_error("round trip is not exact");
    m.reset();
    back.reset();
    state.ResumeTiming();
  }
}

}  // namespace

BENCHMARK(BM_Build)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Print)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Verify)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoundTrip)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
