// `xtc run FILE`: compile a kernel, launch it on a device (Level Zero or OpenCL) with seeded random
// or .npy inputs, optionally compare every buffer with the reference interpreter running the
// source-level IR (--check) and time it (--bench N).
#include "driver/CommandDiagnostics.h"
#include "driver/Commands.h"
#include "driver/Pipeline.h"
#include "driver/RunArgs.h"
#include "driver/runtime/Runtime.h"

#include "frontend/Frontend.h"
#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"
#include "ir/interpret/Interpreter.h"
#include "ir/interpret/Npy.h"
#include "ir/ops/Ops.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

namespace xtc::driver {

namespace {

struct RunOptions {
  std::string input;
  std::string kernel;
  std::vector<std::string> args, inputs, outputs, expects;
  bool check = false;
  int64_t checkSample = 0;  // --check-sample N: the interpreter runs N chosen workgroups only
  unsigned bench = 0;
  std::string runtime = "auto";
  std::string target = "generic";
  unsigned device = 0;
  bool listDevices = false;
  std::string emulateXe;  // --emulate-xe[=all|except-block-io]; "" without the flag
  bool poisonBadSurfaces = false;
  bool surfaceFallback = false;
  std::string xeCodegen = "visa";
  bool verifyIsa = false;
  unsigned slmSize = 0;  // --slm-size: instead of the device's (generic) or the target's (pvc/dg2) SLM size
  uint64_t seed = 1;
};

using Clock = std::chrono::steady_clock;

// Prints "xtc run: STAGE: T ms" with -v.
struct StageTimer {
  bool verbose;
  Clock::time_point t0 = Clock::now();
  void done(const std::string& stage) {
    auto t1 = Clock::now();
    if (verbose) std::cerr << fmt::format("xtc run: {}: {:.2f} ms\n", stage, std::chrono::duration<double, std::milli>(t1 - t0).count());
    t0 = t1;
  }
};

int listDevices() {
  std::string clErr, zeErr;
  auto ze = runtime::listLevelZeroDevices(&zeErr);
  auto cl = runtime::listOpenCLDevices(&clErr);
  std::cout << "level-zero:" << (ze.empty() ? " none (" + zeErr + ")" : "") << "\n";
  auto slm = [](const runtime::DeviceInfo& d) { return d.localMemBytes ? fmt::format(", {} bytes of SLM", d.localMemBytes) : ""; };
  for (size_t i = 0; i < ze.size(); ++i) std::cout << fmt::format("  [{}] {}{}\n", i, ze[i].name, slm(ze[i]));
  std::cout << "opencl:" << (cl.empty() ? " none (" + clErr + ")" : "") << "\n";
  for (size_t i = 0; i < cl.size(); ++i)
    std::cout << fmt::format("  [{}] {} ({}){}{}\n", i, cl[i].name, cl[i].platform, cl[i].isGpu ? ", GPU" : "", slm(cl[i]));
  return 0;
}

// Comparison tolerance: |dev - ref| <= rtol * max(|ref|, scale) where scale is the largest |ref|
// in the buffer (so results that cancel to ~0 are judged against the buffer's magnitude). rtol
// allows the output rounding plus an f32 accumulation error that grows like sqrt(K).
double relTolerance(ir::ElemKind k, int64_t K) {
  double epsOut = 0;
  switch (k) {
    case ir::ElemKind::BF16: epsOut = std::ldexp(1.0, -8); break;
    case ir::ElemKind::F16: epsOut = std::ldexp(1.0, -11); break;
    case ir::ElemKind::F64: epsOut = std::ldexp(1.0, -53); break;
    default: epsOut = std::ldexp(1.0, -24); break;
  }
  return 2 * epsOut + 16 * std::sqrt(static_cast<double>(std::max<int64_t>(K, 1))) * std::ldexp(1.0, -24);
}

// The coordinates of element `lin` of a buffer: row-major, or in the memref's dense order when it has
// strides (a column-major buffer's element lin is at [lin % rows, lin / rows]).
std::string coords(const std::vector<int64_t>& shape, int64_t lin, const ir::Type* memref = nullptr) {
  std::vector<int64_t> order;
  for (size_t d = 0; d < shape.size(); ++d) order.push_back(static_cast<int64_t>(d));
  if (memref)
    if (auto o = ir::denseMemRefOrder(*memref); o && o->size() == shape.size()) order = *o;
  std::vector<int64_t> c(shape.size());
  for (size_t i = order.size(); i-- > 0;) {
    auto d = static_cast<size_t>(order[i]);
    c[d] = lin % shape[d];
    lin /= shape[d];
  }
  std::string s = "[";
  for (size_t d = 0; d < c.size(); ++d) s += (d ? ", " : "") + std::to_string(c[d]);
  return s + "]";
}

// Compares a device buffer with the interpreter's; prints a summary line; false on mismatch. With
// `only` (--check-sample), just the elements it names a writer for.
bool compareBuffer(const std::string& name, const interp::Buffer& dev, const interp::Buffer& ref, int64_t K,
                   DiagnosticEngine& diags, const std::string& against = "the reference interpreter",
                   const interp::WriteLog* only = nullptr, const ir::Type* memref = nullptr) {
  int64_t n = ref.numElements();
  auto skip = [&](int64_t i) { return only && only->writer[static_cast<size_t>(i)] == 0; };
  std::string count = only ? fmt::format("{} of {}", only->written, n) : std::to_string(n);
  std::string sampled = only ? " (those the sampled workgroups wrote)" : "";
  if (!ir::isFloatElem(ref.elem)) {
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; ++i)
      if (!skip(i) && dev.getInt(i) != ref.getInt(i) && bad++ == 0) first = i;
    if (bad) {
      diags.error(SourceLoc{}, fmt::format("{}: {} of {} elements differ from {}; first at {}: device {}, expected {}",
                                           name, bad, count, against, coords(ref.shape, first, memref), dev.getInt(first), ref.getInt(first)));
      return false;
    }
    std::cout << fmt::format("check {}: {} elements{} equal (exact)\n", name, count, sampled);
    return true;
  }
  double scale = 0;
  for (int64_t i = 0; i < n; ++i)
    if (!skip(i)) scale = std::max(scale, std::fabs(ref.getFloat(i)));
  double rtol = relTolerance(ref.elem, K), maxAbs = 0, maxRel = 0;
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (skip(i)) continue;
    double d = dev.getFloat(i), r = ref.getFloat(i);
    double err = std::fabs(d - r);
    bool same = (std::isnan(d) && std::isnan(r)) || d == r;
    if (!same && std::isnan(err)) err = INFINITY;
    if (same) err = 0;
    maxAbs = std::max(maxAbs, err);
    if (r != 0) maxRel = std::max(maxRel, err / std::fabs(r));
    if (err > rtol * std::max(std::fabs(r), scale) && bad++ == 0) first = i;
  }
  if (bad) {
    diags.error(SourceLoc{}, fmt::format("{}: {} of {} elements differ from {} (max abs error {:.3g}, max rel error {:.3g}, "
                                         "tolerance {:.3g} relative to max(|expected|, {:.3g})); first at {}: device {}, expected {}",
                                         name, bad, count, against, maxAbs, maxRel, rtol, scale, coords(ref.shape, first, memref), dev.getFloat(first),
                                         ref.getFloat(first)));
    return false;
  }
  std::cout << fmt::format("check {}: {} elements{} match (max abs error {:.3g}, max rel error {:.3g}, tolerance {:.3g})\n", name, count,
                           sampled, maxAbs, maxRel, rtol);
  return true;
}

// --check-sample: n distinct workgroups of `grid`: the corners first (they hold the partial tiles of
// unaligned sizes), then seeded random ones. Deterministic for a seed. The first corners each differ
// from (0, 0, 0) in one dimension only, so a sample of 3 (2-D grid) holds two workgroups sharing
// each grid row and each grid column: workgroups of one row or column writing the same elements
// (e.g. per-block partial row sums stored to one vector) are then found.
std::vector<std::array<int64_t, 3>> sampleWorkgroups(const std::array<int64_t, 3>& grid, int64_t n, uint64_t seed) {
  std::vector<std::array<int64_t, 3>> out;
  std::set<std::array<int64_t, 3>> seen;
  int64_t total = grid[0] * grid[1] * grid[2];
  auto add = [&](const std::array<int64_t, 3>& g) {
    if (static_cast<int64_t>(out.size()) < std::min(n, total) && seen.insert(g).second) out.push_back(g);
  };
  for (int c : {0, 1, 2, 4, 3, 5, 6, 7})  // bit d set: the last workgroup in dimension d
    add({c & 1 ? grid[0] - 1 : 0, c & 2 ? grid[1] - 1 : 0, c & 4 ? grid[2] - 1 : 0});
  std::mt19937_64 rng(seed);
  while (static_cast<int64_t>(out.size()) < std::min(n, total))
    add({static_cast<int64_t>(rng() % static_cast<uint64_t>(grid[0])), static_cast<int64_t>(rng() % static_cast<uint64_t>(grid[1])),
         static_cast<int64_t>(rng() % static_cast<uint64_t>(grid[2]))});
  return out;
}

// --check-sample is only sound when no workgroup's result depends on another's: refuse kernels with
// atomics (workgroups adding into one element), at the first atomic op.
bool refuseSampleWithAtomics(const ir::Operation& kernel, DiagnosticEngine& diags) {
  const ir::Operation* atomic = nullptr;
  const_cast<ir::Operation&>(kernel).walk([&](ir::Operation* o) {
    if (!atomic && o->name().find("atomic") != std::string::npos) atomic = o;
  });
  if (!atomic) return false;
  diags.error(atomic->loc(), "--check-sample: '" + atomic->name() +
                                 "' lets workgroups update the same elements, so a sample of workgroups cannot be checked alone (use --check)");
  return true;
}

int runRun(const RunOptions& opts, const GlobalOptions& global) {
  if (opts.listDevices) return listDevices();
  if (opts.input.empty()) {
    std::cerr << "xtc: error: xtc run needs an input file (or --list-devices)\n";
    return 2;
  }
  CommandDiagnostics cmd(global);
  DiagnosticEngine& diags = cmd.diags;
  auto fail = [&] { return cmd.fail(); };
  StageTimer timer{global.verbose};

  // 1. Source-level IR: what the reference interpreter runs.
  ir::registerAllOps();
  std::string err;
  std::unique_ptr<ir::Operation> module = cmd.loadModule(opts.input);
  if (!module || !ir::verify(*module, diags)) return fail();
  timer.done("frontend");
  std::vector<ir::Operation*> kernels = ir::moduleKernels(module.get());
  ir::Operation* kernel = nullptr;
  for (ir::Operation* k : kernels)
    if (opts.kernel.empty() ? kernel == nullptr : ir::kernelName(k) == opts.kernel) kernel = k;
  if (!kernel) {
    std::string names;
    for (ir::Operation* k : kernels) names += (names.empty() ? "" : ", ") + ir::kernelName(k);
    diags.error(SourceLoc{}, opts.kernel.empty() ? "'" + opts.input + "' has no kernel"
                                                 : "no kernel '" + opts.kernel + "' in '" + opts.input + "' (kernels: " + names + ")");
    return fail();
  }
  if (opts.kernel.empty() && kernels.size() > 1 && global.verbose)
    std::cerr << "xtc run: running the first kernel, '" << ir::kernelName(kernel) << "' (choose with --kernel)\n";

  // 2. Arguments.
  RunArgRequest req{opts.args, opts.inputs, opts.seed};
  interp::KernelArgs initial;
  std::map<std::string, int64_t> sizes;
  if (!buildKernelArgs(*kernel, req, diags, initial, sizes)) return fail();
  const ir::Block& body = kernel->region(0).block();
  std::vector<std::string> argNames;
  if (const ir::Attribute* a = kernel->attr("arg_names"))
    for (const ir::Attribute& n : a->getArray()) argNames.push_back(n.getString());
  argNames.resize(body.numArguments());
  // --output and --expect are checked before anything runs (a typo must not cost a long run): each
  // names a memref parameter; an --expect file is read now and must have the parameter's shape.
  auto resultParam = [&](const std::string& flag, const std::string& x, std::string& name) -> int {
    size_t eq = x.find('=');
    name = eq == std::string::npos ? "" : x.substr(0, eq);
    if (eq == std::string::npos || eq == 0 || eq + 1 == x.size()) {
      diags.error(SourceLoc{}, flag + " '" + x + "' is not NAME=file.npy");
      return -1;
    }
    auto it = std::find(argNames.begin(), argNames.end(), name);
    if (it == argNames.end()) {
      diags.error(SourceLoc{}, flag + " names '" + name + "', which is not a parameter of kernel '" + ir::kernelName(kernel) + "'");
      return -1;
    }
    int i = static_cast<int>(it - argNames.begin());
    if (!initial.args[static_cast<size_t>(i)].isBuffer) {
      diags.error(SourceLoc{}, flag + " names '" + name + "', a scalar parameter: only memref parameters hold results");
      return -1;
    }
    return i;
  };
  struct Expected {
    int param;
    std::string name;
    interp::Buffer values;
  };
  std::vector<Expected> expected;
  std::vector<std::pair<int, std::string>> outputs;  // parameter, file
  for (const std::string& x : opts.expects) {
    Expected e;
    if ((e.param = resultParam("--expect", x, e.name)) < 0) continue;
    if (!interp::readNpy(x.substr(x.find('=') + 1), e.values, &err)) {
      diags.error(SourceLoc{}, err);
      continue;
    }
    const interp::Buffer& shapeOf = initial.args[static_cast<size_t>(e.param)].buffer;
    if (e.values.shape != shapeOf.shape) {
      diags.error(SourceLoc{}, "--expect " + e.name + ": the file has shape " + ir::shapeStr(e.values.shape) + ", but '" + e.name + "' is " +
                                   ir::shapeStr(shapeOf.shape));
      continue;
    }
    if (e.values.elem != shapeOf.elem) e.values = interp::convertBuffer(e.values, shapeOf.elem);
    e.values = toMemoryOrder(e.values, body.argument(static_cast<unsigned>(e.param))->type());
    expected.push_back(std::move(e));
  }
  for (const std::string& o : opts.outputs) {
    std::string name;
    if (int i = resultParam("--output", o, name); i >= 0) outputs.emplace_back(i, o.substr(o.find('=') + 1));
  }
  if (diags.hasErrors()) return fail();
  std::array<int64_t, 3> grid{};
  try {
    grid = interp::evaluateLaunchGrid(*kernel, initial);
  } catch (const interp::InterpError& e) {
    diags.error(e.loc.valid() ? e.loc : kernel->loc(), e.what());
    return fail();
  }
  timer.done("arguments");

  int64_t K = sizes.count("K") ? sizes["K"] : 0;

  // 3. Reference (also the FLOP count for --bench).
  interp::KernelArgs reference = initial;
  interp::RunStats stats;
  bool interpOnly = opts.runtime == "interpreter";
  bool sample = opts.checkSample > 0;
  if (sample && (interpOnly || opts.bench > 0)) {
    diags.error(SourceLoc{}, interpOnly ? "--check-sample compares a device run: it needs a device, not --runtime interpreter"
                                        : "--check-sample cannot be combined with --bench (the FLOP count needs every workgroup)");
    return fail();
  }
  if (sample && refuseSampleWithAtomics(*kernel, diags)) return fail();
  bool check = opts.check || sample;
  std::vector<std::array<int64_t, 3>> sampled;
  if (check || interpOnly || opts.bench > 0) {
    interp::RunOptions ro;
    ro.countOnly = !check && !interpOnly;
    if (sample) {
      ro.onlyWorkgroups = sampled = sampleWorkgroups(grid, opts.checkSample, opts.seed);
      std::string list;
      for (const auto& g : ro.onlyWorkgroups) list += fmt::format("{}({}, {}, {})", list.empty() ? "" : ", ", g[0], g[1], g[2]);
      std::cout << fmt::format("check-sample: the interpreter runs {} of {} workgroups: {}\n", ro.onlyWorkgroups.size(),
                               grid[0] * grid[1] * grid[2], list);
      for (auto& a : reference.args)
        if (a.isBuffer) a.buffer.trackWrites();
    }
    if (!interp::runKernel(*kernel, reference, diags, ro, &stats)) return fail();
    timer.done(ro.countOnly ? "interpreter (counting)" : "reference interpreter");
  }
  if (sample) {
    // Two sampled workgroups writing one element: the outputs are not disjoint per workgroup.
    auto gid = [&](uint16_t writer) {
      const auto& g = sampled.at(static_cast<size_t>(writer - 1));
      return fmt::format("({}, {}, {})", g[0], g[1], g[2]);
    };
    for (unsigned i = 0; i < body.numArguments(); ++i)
      if (const interp::WriteLog* w = reference.args[i].isBuffer ? reference.args[i].buffer.writes.get() : nullptr; w && w->conflictAt >= 0) {
        diags.error(kernel->loc(), fmt::format("--check-sample: workgroups {} and {} both write {}{}, so a sample of workgroups cannot be "
                                               "checked alone (use --check)",
                                               gid(w->conflictFirst), gid(w->writer[static_cast<size_t>(w->conflictAt)]), argNames[i],
                                               coords(reference.args[i].buffer.shape, w->conflictAt, &body.argument(i)->type())));
        return fail();
      }
  }
  if (K == 0 && stats.mmaFlops > 0) {
    // No named K: the mma work per element of the largest output gives the reduction length (with
    // --check-sample, per element the sampled workgroups wrote).
    int64_t biggest = 1;
    for (const auto& a : reference.args)
      if (a.isBuffer) biggest = std::max(biggest, sample ? (a.buffer.writes ? a.buffer.writes->written : 0) : a.buffer.numElements());
    K = stats.mmaFlops / (2 * biggest);
  }

  interp::KernelArgs result = initial;
  runtime::LaunchTiming timing;
  if (interpOnly) {
    result = reference;
    std::cout << fmt::format("ran {} in the reference interpreter: grid {}x{}x{}, {} level\n", ir::kernelName(kernel), grid[0], grid[1],
                             grid[2], stats.workgroupLevel ? "workgroup" : (stats.laneLevel ? "lane" : "subgroup"));
  } else {
    // 4. Device.
    std::unique_ptr<runtime::Runtime> rt;
    std::string zeErr, clErr;
    if (opts.runtime == "level-zero" || opts.runtime == "auto") rt = runtime::createLevelZeroRuntime(opts.device, &zeErr);
    if (!rt && opts.runtime == "auto" && global.verbose) std::cerr << "xtc run: Level Zero unavailable (" << zeErr << "); trying OpenCL\n";
    if (!rt && (opts.runtime == "opencl" || opts.runtime == "auto")) rt = runtime::createOpenCLRuntime(opts.device, &clErr);
    if (!rt) {
      std::string msg = "no device to run on; looked for ";
      if (!zeErr.empty()) msg += "a Level Zero GPU: " + zeErr;
      if (!zeErr.empty() && !clErr.empty()) msg += "; and ";
      if (!clErr.empty()) msg += clErr;
      diags.error(SourceLoc{}, msg);
      return fail();
    }
    timer.done("device: " + rt->device().name);

    // 5. Compile for the target.
    CompileOptions co;
    co.target = opts.target;
    co.emulateXe = !opts.emulateXe.empty();
    co.emulateBlockIo = opts.emulateXe != "except-block-io";
    co.poisonBadSurfaces = opts.poisonBadSurfaces;
    co.surfaceFallback = opts.surfaceFallback;
    co.xeCodegen = opts.xeCodegen;
    if (opts.target != "generic" && !rt->device().intelXe && opts.emulateXe.empty()) {
      // Emulate only what the device lacks: a device with Intel's subgroup block IO (the CPU runtime)
      // runs the 1-D block messages (dg2's global ones, the SLM ones of both) as compiled, so their
      // address arithmetic is executed, not replaced.
      co.emulateXe = true;
      co.emulateBlockIo = !rt->device().intelBlockIo;
      std::cerr << "xtc run: note: '" << rt->device().name << "' has no Intel Xe DPAS/2D block IO: compiling for " << opts.target
                << (co.emulateBlockIo ? " with --emulate-xe\n" : " with --emulate-xe=except-block-io (the device has subgroup block IO)\n");
    }
    co.verifyIsa = opts.verifyIsa;
    // SLM: generic guarantees only the portable 32 KiB, but a run compiles for the device it runs on
    // (like -march=native): the device's size. pvc/dg2 keep their hardware's (emulated or not).
    // --slm-size overrides both.
    const runtime::DeviceInfo& dev = rt->device();
    if (opts.slmSize > 0) {
      co.slmBytes = opts.slmSize;
      if (dev.localMemBytes > 0 && opts.slmSize > dev.localMemBytes)
        diags.warning(SourceLoc{}, fmt::format("--slm-size {} is more than the {} bytes '{}' has: a kernel using it will not launch",
                                               opts.slmSize, dev.localMemBytes, dev.name));
    } else if (opts.target == "generic" && dev.localMemBytes > 0) {
      co.slmBytes = static_cast<unsigned>(std::min<uint64_t>(dev.localMemBytes, UINT32_MAX));
      co.slmOrigin = fmt::format("the shared local memory of '{}', which xtc run compiles for; --slm-size overrides it", dev.name);
      if (global.verbose) std::cerr << fmt::format("xtc run: generic SLM size: {} bytes (the device's)\n", co.slmBytes);
    }
    CompileResult cr;
    ir::IRMapping mapping;
    if (!compileModule(module->clone(mapping), co, diags, cr)) {
      if (cr.internalError.empty()) return fail();
      diags.flush();
      std::cerr << "xtc: internal error: " << cr.internalError << "\n";
      return 3;
    }
    const KernelInfo* info = nullptr;
    for (const KernelInfo& ki : cr.kernels)
      if (ki.name == ir::kernelName(kernel)) info = &ki;
    if (!info || info->wgSize.size() != 3) {
      diags.error(kernel->loc(), "internal error: the compiled kernel has no wg_size");
      return fail();
    }
    timer.done("compile (" + opts.target + ")");

    runtime::LaunchConfig cfg;
    for (size_t d = 0; d < 3; ++d) {
      cfg.local[d] = static_cast<size_t>(info->wgSize[d]);
      cfg.global[d] = static_cast<size_t>(grid[d]) * cfg.local[d];
    }
    cfg.timedRuns = opts.bench;
    // The lowering's build_options (e.g. the large register file) go to the program build.
    for (ir::Operation* k : ir::moduleKernels(cr.module.get()))
      if (const ir::Attribute* a = k->attr("build_options"); a && a->isa(ir::AttrKind::String) && ir::kernelName(k) == info->name)
        cfg.buildOptions = a->getString();
    if (global.verbose)
      std::cerr << fmt::format("xtc run: build options \"{}\" -> {} \"{}\"{}\n", cfg.buildOptions,
                               rt->device().runtime == "opencl" ? "clBuildProgram" : "zeModuleCreate", rt->buildFlags(cfg.buildOptions),
                               rt->device().isGpu || cfg.buildOptions.empty() ? "" : " (GPU options: not given to a CPU device)");
    std::vector<runtime::LaunchArg> launch = abiArgs(*kernel, result);
    bool empty = cfg.global[0] == 0 || cfg.global[1] == 0 || cfg.global[2] == 0;
    if (!empty && !rt->run(cr.spirv, info->name, launch, cfg, timing, &err)) {
      diags.error(SourceLoc{}, "running '" + info->name + "' on " + rt->device().name + ": " + err);
      return fail();
    }
    timer.done("launch");
    std::cout << fmt::format("ran {} on {} ({}): grid {}x{}x{}, workgroup {}x{}x{}, {:.3f} ms\n", info->name, rt->device().name,
                             rt->device().runtime, grid[0], grid[1], grid[2], cfg.local[0], cfg.local[1], cfg.local[2], timing.firstMs);
  }

  // 6. Check.
  bool ok = true;
  if (check && !interpOnly) {
    // --check-sample: a buffer the sampled workgroups wrote is compared where they wrote it; one
    // they did not write (an input) everywhere.
    for (unsigned i = 0; i < body.numArguments(); ++i) {
      if (!result.args[i].isBuffer) continue;
      const interp::WriteLog* w = reference.args[i].buffer.writes.get();
      if (!compareBuffer(argNames[i], result.args[i].buffer, reference.args[i].buffer, K, diags, "the reference interpreter",
                         w && w->written > 0 ? w : nullptr, &body.argument(i)->type()))
        ok = false;
    }
    timer.done("check");
    if (!ok) return fail();
  }

  // Comparison with saved results (e.g. the interpreter's output of a known-good kernel).
  for (const Expected& e : expected)
    if (!compareBuffer(e.name, result.args[static_cast<size_t>(e.param)].buffer, e.values, K, diags, "the expected values", nullptr,
                       &body.argument(static_cast<unsigned>(e.param))->type()))
      ok = false;
  if (!ok) return fail();

  // 7. Bench.
  if (opts.bench > 0 && !interpOnly) {
    std::vector<double> t = timing.timedMs;
    std::sort(t.begin(), t.end());
    double median = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
    double bytes = 0;
    for (const auto& a : initial.args)
      if (a.isBuffer) bytes += static_cast<double>(a.buffer.bytes.size());
    double secs = median * 1e-3;
    std::cout << fmt::format("bench: {} runs after 1 warm-up: median {:.4f} ms (min {:.4f}, max {:.4f}), {:.3f} TFLOP/s, {:.2f} GB/s\n", t.size(),
                             median, t.front(), t.back(), secs > 0 ? static_cast<double>(stats.mmaFlops) / secs * 1e-12 : 0.0,
                             secs > 0 ? bytes / secs * 1e-9 : 0.0);
  }

  // 8. Outputs.
  for (const auto& [param, file] : outputs)
    if (!interp::writeNpy(file, fromMemoryOrder(result.args[static_cast<size_t>(param)].buffer, body.argument(static_cast<unsigned>(param))->type()), &err)) {
      diags.error(SourceLoc{}, err);
      return fail();
    }
  diags.flush();
  return diags.hasErrors() ? 1 : 0;
}

}  // namespace

void registerRunCommand(CLI::App& root, const GlobalOptions& global, ExitStatus& status) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = root.add_subcommand("run", "Compile a kernel, run it on a device, check it against the reference interpreter, time it");
  cmd->add_option("input", opts->input, "Kernel source (.xt) or tile IR (.ir)");
  cmd->add_option("--kernel", opts->kernel, "Which kernel of the file to run (default: the first)");
  cmd->add_option("--arg", opts->args,
                  "NAME=VALUE: a scalar parameter, a memref's shape (A=1024x512), one dimension (A_dim1=512) or a GEMM size (M, N, K)");
  cmd->add_option("--input", opts->inputs, "NAME=file.npy: initial contents of a memref parameter (default: seeded random values)");
  cmd->add_option("--output", opts->outputs, "NAME=file.npy: write a memref parameter after the run (bf16 as raw uint16)");
  cmd->add_option("--expect", opts->expects, "NAME=file.npy: compare a memref parameter after the run with saved values (exit 1 on mismatch)");
  cmd->add_flag("--check", opts->check, "Compare every buffer with the reference interpreter (exit 1 on mismatch)");
  cmd->add_option("--check-sample", opts->checkSample,
                  "N: --check where the interpreter runs only N workgroups (the grid's corners, then seeded random ones) and only "
                  "what they write is compared; refused for kernels with atomics or workgroups writing the same elements")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--bench", opts->bench, "Time N launches after a warm-up: median/min/max, TFLOP/s, GB/s");
  cmd->add_option("--runtime", opts->runtime, "auto (Level Zero, else OpenCL), level-zero, opencl, or interpreter (no device)")
      ->check(CLI::IsMember({"auto", "level-zero", "opencl", "interpreter"}));
  cmd->add_option("--device", opts->device, "Device index within the runtime (see --list-devices)");
  cmd->add_flag("--list-devices", opts->listDevices, "List the Level Zero and OpenCL devices and exit");
  cmd->add_option("--target", opts->target, "Target: pvc, dg2 or generic")->check(CLI::IsMember({"pvc", "dg2", "generic"}));
  cmd->add_flag("--emulate-xe{all}", opts->emulateXe,
                "pvc/dg2: define the Xe builtins portably (run on any OpenCL device); =except-block-io keeps the 1-D "
                "block reads/writes (default without the flag on a device that has them but no DPAS)")
      ->check(CLI::IsMember({"all", "except-block-io"}));
  cmd->add_flag("--surface-fallback", opts->surfaceFallback,
                kSurfaceFallbackHelp);
  cmd->add_flag("--poison-bad-surfaces", opts->poisonBadSurfaces,
                kPoisonBadSurfacesHelp);
  cmd->add_option("--xe-codegen", opts->xeCodegen, "pvc: visa (inline vISA 2D stores/prefetches) or builtins")
      ->check(CLI::IsMember({"visa", "builtins"}));
  cmd->add_flag("--verify-isa", opts->verifyIsa,
                "pvc/dg2: check the SPIR-V it runs with ocloc, as `xtc compile --verify-isa` does");
  cmd->add_option("--slm-size", opts->slmSize,
                  "BYTES: shared local memory per workgroup to compile for (default: the device's for generic, the target's for "
                  "pvc/dg2)")
      ->check(CLI::Range(1u, 1u << 30));
  cmd->add_option("--seed", opts->seed, "Seed for the random inputs");
  cmd->callback([opts, &global, &status] { status.code = runRun(*opts, global); });
}

}  // namespace xtc::driver
