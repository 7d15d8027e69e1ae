// Helpers for interpreter unit tests: build a one-kernel module with the IR builder (no parser
// needed), run it, and collect diagnostics.
#pragma once

#include "ir/Module.h"
#include "ir/interpret/Interpreter.h"
#include "tests/common/BuildOp.h"

#include <memory>
#include <sstream>
#include <string>

namespace xtc::interp::test {

using ir::Attribute;
using ir::ElemKind;
using ir::Type;
using ir::Value;

struct KernelBuilder {
  SourceManager sm;
  std::unique_ptr<ir::Operation> module = ir::createModule();
  ir::Operation* kernel = nullptr;
  ir::Builder b;       // body
  ir::Builder launch;  // launch region

  KernelBuilder(const std::vector<std::string>& names, const std::vector<Type>& types) {
    kernel = ir::createKernel(module.get(), "k", names, types, loc(1, 1));
    b.setInsertionPointToEnd(&ir::kernelBody(kernel));
    launch.setInsertionPointToEnd(&ir::kernelLaunch(kernel));
    b.setLoc(loc(2, 3));
  }
  SourceLoc loc(uint32_t line, uint32_t col) { return SourceLoc{sm.intern("k.xt"), line, col}; }
  Value* arg(unsigned i) { return ir::kernelBody(kernel).argument(i); }
  Value* launchArg(unsigned i) { return ir::kernelLaunch(kernel).argument(i); }

  // Ends both regions; the grid is constant unless the launch region was filled by the test.
  void finish(int64_t gx = 1, int64_t gy = 1, int64_t gz = 1) {
    b.create("xtc.return", {}, {});
    if (ir::kernelLaunch(kernel).empty()) {
      Value* x = launch.constantIndex(gx);
      Value* y = launch.constantIndex(gy);
      Value* z = launch.constantIndex(gz);
      launch.create("xtc.grid", {x, y, z}, {});
    }
  }

  // Common op shapes.
  Value* idx(int64_t v) { return b.constantIndex(v); }
  Value* op(const std::string& name, std::vector<Value*> operands, Type result, ir::AttrMap attrs = {}) {
    return xtc::test::op1(b, name, std::move(operands), result, std::move(attrs));
  }
  Value* initTile(Value* mem, std::vector<Value*> offsets, Type tileType) {
    std::vector<Value*> ops{mem};
    ops.insert(ops.end(), offsets.begin(), offsets.end());
    return op("tile.init_tile", ops, tileType,
              {{"segments", Attribute::intArray({static_cast<int64_t>(offsets.size()), 0, 0})}});
  }
  Value* load(Value* tile, ir::AttrMap attrs = {}) {
    const Type& t = tile->type();
    return op("tile.load_tile", {tile}, Type::vector(t.shape(), t.elem(), t.tileInfo().wgMap), std::move(attrs));
  }
  void store(Value* v, Value* tile) { b.create("tile.store_tile", {v, tile}, {}); }
  // Stores a vector to memref `mem` at [0, ..] (whole-vector tile, no wg_map).
  void storeAll(Value* v, Value* mem) {
    std::vector<Value*> offs;
    for (size_t d = 0; d < mem->type().shape().size(); ++d) offs.push_back(idx(0));
    store(v, initTile(mem, offs, Type::tile(v->type().shape(), v->type().elem())));
  }
  Value* denseF(Type vt, std::vector<double> vals) { return op("arith.constant", {}, vt, {{"value", Attribute::denseFloat(vt, std::move(vals))}}); }
  Value* denseI(Type vt, std::vector<int64_t> vals) { return op("arith.constant", {}, vt, {{"value", Attribute::denseInt(vt, std::move(vals))}}); }
};

struct RunResult {
  bool ok;
  std::string diags;
};

inline RunResult run(KernelBuilder& kb, KernelArgs& args, const RunOptions& opts = {}, RunStats* stats = nullptr) {
  std::ostringstream out;
  bool ok;
  {
    DiagnosticEngine diags(kb.sm, out);
    ok = runKernel(*kb.kernel, args, diags, opts, stats);
    diags.flush();
  }
  return {ok, out.str()};
}

inline KernelArg buf(ElemKind k, std::vector<int64_t> shape, const std::vector<double>& vals = {}) {
  Buffer b(k, std::move(shape));
  for (size_t i = 0; i < vals.size(); ++i) b.setFloat(static_cast<int64_t>(i), vals[i]);
  return KernelArg::fromBuffer(std::move(b));
}

}  // namespace xtc::interp::test
