// frontend_parse: the .xt frontend's speed (source text -> checked tile IR, in process) on a
// generated 1 MB kernel of straight-line index math and on the RFC 2.2 example (goal: 1 MB in < 2 s
// on one core). Reports bytes/second.
#include "frontend/Frontend.h"
#include "ir/support/Diagnostics.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string bigKernel() {
  std::string text = "kernel big(A: memref<?x?xf32>, n: index) grid(1) {\n  x = n\n";
  while (text.size() < (1u << 20)) text += "  x = x * 3 + (x / 2) - 1 // a comment to make the line longer\n";
  text += "  store_tile(zeros() : vector<8x16xf32>, init_tile A[x, 0] : tile<8x16xf32>)\n}\n";
  return text;
}

std::string example() {
  std::ifstream in(XTC_SOURCE_DIR "/examples/rfc_2_2_gemm_transpose_bcast_reduce.xt");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void compileOnce(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    xtc::SourceManager sm;
    std::ostringstream out;
    xtc::DiagnosticEngine diags(sm, out);
    sm.addBuffer("bench.xt", text);
    auto module = xtc::frontend::compileToTileIR("bench.xt", diags);
    if (!module) state.SkipWithError("the benchmark input did not compile");
    benchmark::DoNotOptimize(module.get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_Frontend1MB(benchmark::State& state) { compileOnce(state, bigKernel()); }
void BM_FrontendRfc22(benchmark::State& state) { compileOnce(state, example()); }

// Real time: the frontend runs on its own (large-stack) thread, so main-thread CPU time says nothing.
BENCHMARK(BM_Frontend1MB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FrontendRfc22)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
