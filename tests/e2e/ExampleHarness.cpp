// Shared helpers of the example e2e tests; see ExampleHarness.h.
#include "tests/e2e/ExampleHarness.h"

#include "frontend/Frontend.h"
#include "ir/Module.h"
#include "ir/ops/Ops.h"
#include "tests/e2e/OpenCLRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>

#include <unistd.h>

namespace xtc::e2e {
namespace {

std::string xtcBinary() {
  const char* x = std::getenv("XTC_BINARY");
  return x && *x ? x : XTC_BINARY_PATH;
}

std::string tempPath(const std::string& name) {
  const char* d = std::getenv("TMPDIR");
  return std::string(d ? d : "/tmp") + "/xtc_e2e_ex_" + std::to_string(::getpid()) + "_" + name;
}

// examples/<file>, or <file> relative to the source tree when it names a folder (test-only kernels).
std::string sourcePath(const std::string& file) {
  return std::string(XTC_SOURCE_DIR) + (file.find('/') == std::string::npos ? "/examples/" : "/") + file;
}

bool readWords(const std::string& path, std::vector<uint32_t>& words) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty() || bytes.size() % 4) return false;
  words.resize(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return true;
}

}  // namespace

bool loadExample(const std::string& file, TileKernel& out, std::string* error) {
  ir::registerAllOps();
  std::string path = sourcePath(file);
  std::string readError;
  if (!out.sources.addFile(path, &readError)) {
    *error = "cannot read " + path + ": " + readError;
    return false;
  }
  out.diags = std::make_unique<DiagnosticEngine>(out.sources, out.diagText);
  out.diags->setColor(ColorMode::Never);
  out.module = frontend::compileToTileIR(path, *out.diags);
  out.diags->flush();
  if (!out.module) {
    *error = "frontend failed on " + path + ":\n" + out.diagText.str();
    return false;
  }
  std::vector<ir::Operation*> kernels = ir::moduleKernels(out.module.get());
  if (kernels.size() != 1) {
    *error = path + ": expected exactly one kernel";
    return false;
  }
  out.kernel = kernels[0];
  return true;
}

bool compileExampleFor(const std::string& file, std::vector<uint32_t>& spirv, std::string* error, const std::string& target) {
  std::string spv = tempPath(target + "_" + file.substr(file.rfind('/') + 1) + ".spv");
  // dg2 keeps its 1-D block reads and writes (the CPU device has Intel's subgroup block IO), as
  // `xtc run` does there: its block-message addresses run as compiled; pvc's go into inline vISA.
  std::string emulate = target == "generic" ? "" : target == "dg2" ? " --emulate-xe=except-block-io" : " --emulate-xe";
  std::string cmd = xtcBinary() + " compile " + sourcePath(file) + " --target " + target + emulate + " -o " + spv;
  bool ok = false;
  if (std::system(cmd.c_str()) != 0) *error = "failed: " + cmd;
  else if (std::system(("spirv-val " + spv).c_str()) != 0) *error = "spirv-val rejects the output of " + cmd;
  else if (!readWords(spv, spirv)) *error = "cannot read " + spv;
  else ok = true;
  std::remove(spv.c_str());
  return ok;
}

bool interpret(const ir::Operation& kernel, interp::KernelArgs& args, std::string* error) {
  SourceManager sm;
  std::ostringstream text;
  DiagnosticEngine diags(sm, text);
  diags.setColor(ColorMode::Never);
  bool ok = interp::checkKernelArgs(kernel, args, diags) && interp::runKernel(kernel, args, diags);
  diags.flush();
  if (!ok) *error = "interpreter: " + text.str();
  return ok;
}

bool runOnDevice(const std::vector<uint32_t>& spirv, const ir::Operation& kernel, interp::KernelArgs& args,
                 const std::array<int64_t, 3>& grid, const std::array<int64_t, 3>& wgSize, std::string* error) {
  const ir::Block& body = const_cast<ir::Operation&>(kernel).region(0).block();
  if (body.numArguments() != args.args.size()) {
    *error = "argument count does not match the kernel";
    return false;
  }
  // Device copies of the buffers (the ABI's dense row-major storage is exactly Buffer::bytes).
  std::vector<std::vector<uint8_t>> bytes;
  bytes.reserve(args.args.size());
  std::vector<KernelArg> abi;
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    const ir::Type& t = body.argument(i)->type();
    interp::KernelArg& a = args.args[i];
    if (t.isMemRef()) {
      if (!a.isBuffer) {
        *error = "argument " + std::to_string(i) + " must be a buffer";
        return false;
      }
      bytes.push_back(a.buffer.bytes);
      abi.push_back(KernelArg::buf(bytes.back()));
      for (size_t d = 0; d < t.shape().size(); ++d)
        if (t.shape()[d] == ir::kDynamic) abi.push_back(KernelArg::i64(a.buffer.shape[d]));
    } else if (t.isScalar() && (t.elem() == ir::ElemKind::Index || t.elem() == ir::ElemKind::I64)) {
      abi.push_back(KernelArg::i64(a.scalar.i));
    } else {
      *error = "runOnDevice: parameter type " + t.str() + " is not implemented yet";
      return false;
    }
  }
  size_t global[3], local[3];
  for (int d = 0; d < 3; ++d) {
    global[d] = static_cast<size_t>(grid[static_cast<size_t>(d)] * wgSize[static_cast<size_t>(d)]);
    local[d] = static_cast<size_t>(wgSize[static_cast<size_t>(d)]);
  }
  if (!runKernel(spirv, ir::kernelName(&kernel), abi, global, local, error)) return false;
  size_t next = 0;
  for (interp::KernelArg& a : args.args)
    if (a.isBuffer) a.buffer.bytes = bytes[next++];
  return true;
}

const PreparedExample& prepareExample(const std::string& file, const std::string& target) {
  static std::map<std::string, std::unique_ptr<PreparedExample>> cache;
  std::unique_ptr<PreparedExample>& p = cache[target + ":" + file];
  if (!p) {
    p = std::make_unique<PreparedExample>();
    std::string err;
    if (!loadExample(file, p->tile, &err)) p->failure = err;
    else if (!compileExampleFor(file, p->spirv, &err, target)) p->failure = err;
  }
  return *p;
}

interp::KernelArgs runAndCheck(const std::string& file, const interp::KernelArgs& args, size_t out,
                               const std::array<int64_t, 3>& grid, int64_t subgroups,
                               const std::function<void(int64_t, double*, double*)>& expect, bool interpreter,
                               const std::string& target) {
  interp::KernelArgs onInterp = args, onDevice = args;
  const PreparedExample& p = prepareExample(file, target);
  if (!p.failure.empty()) {
    ADD_FAILURE() << p.failure;
    return onDevice;
  }
  EXPECT_EQ(interp::evaluateLaunchGrid(*p.tile.kernel, args), grid);
  std::string err;
  if ((interpreter && !interpret(*p.tile.kernel, onInterp, &err)) ||
      !runOnDevice(p.spirv, *p.tile.kernel, onDevice, grid, {targetLanes(target) * subgroups, 1, 1}, &err)) {
    ADD_FAILURE() << err;
    return onDevice;
  }
  const interp::Buffer &dev = onDevice.args[out].buffer, &itp = onInterp.args[out].buffer;
  bool isFloat = ir::isFloatElem(dev.elem);
  int bad = 0;
  for (int64_t e = 0; e < dev.numElements(); ++e) {
    double ref = 0, tol = 0;
    expect(e, &ref, &tol);
    double d = isFloat ? dev.getFloat(e) : static_cast<double>(dev.getInt(e));
    double i = !interpreter ? d : isFloat ? itp.getFloat(e) : static_cast<double>(itp.getInt(e));
    bool ok = std::fabs(d - ref) <= tol && std::fabs(i - ref) <= tol && std::fabs(d - i) <= 2 * tol;
    if (!ok && bad++ < 5)
      ADD_FAILURE() << "element " << e << ": device " << d << ", interpreter " << i << ", reference " << ref
                    << " (tolerance " << tol << ")";
  }
  EXPECT_EQ(bad, 0);
  return onDevice;
}

interp::Buffer randomBuffer(ir::ElemKind elem, std::vector<int64_t> shape, unsigned seed, double lo, double hi) {
  interp::Buffer b(elem, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::uniform_int_distribution<int64_t> ints(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
  bool isFloat = ir::isFloatElem(elem);
  for (int64_t i = 0; i < b.numElements(); ++i) {
    bool negative = rng() % 2;
    if (isFloat) {
      b.setFloat(i, negative ? -dist(rng) : dist(rng));
      if (b.getFloat(i) == 0.0) b.setFloat(i, hi);
    } else {
      b.setInt(i, negative ? -ints(rng) : ints(rng));
      if (b.getInt(i) == 0) b.setInt(i, static_cast<int64_t>(hi));
    }
  }
  return b;
}

interp::Buffer filledBuffer(ir::ElemKind elem, std::vector<int64_t> shape, double v) {
  interp::Buffer b(elem, std::move(shape));
  for (int64_t i = 0; i < b.numElements(); ++i) b.setFloat(i, v);
  return b;
}

}  // namespace xtc::e2e
