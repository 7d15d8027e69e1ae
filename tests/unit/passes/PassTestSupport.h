// Helpers shared by the distribution-pass unit tests: parse IR text (with `#name` placeholders for
// long wg_maps), verify it, evaluate subgroup-level index math for a given subgroup id, and run the
// reference interpreter on seeded random inputs.
#pragma once

#include "ir/Module.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "ir/interpret/Interpreter.h"
#include "ir/ops/Ops.h"
#include "ir/support/Diagnostics.h"
#include "ir/targets/Target.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace xtc::testing {

// Replaces every `#key` by its value (longest keys first so `#a` does not eat `#ab`).
inline std::string substitute(std::string text, const std::map<std::string, std::string>& defs) {
  std::vector<std::pair<std::string, std::string>> v(defs.begin(), defs.end());
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first.size() > b.first.size(); });
  for (auto& [k, val] : v) {
    std::string key = "#" + k;
    for (size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + val.size())) text.replace(p, key.size(), val);
  }
  return text;
}

struct IRFixture {
  SourceManager sm;
  std::ostringstream out;
  DiagnosticEngine diags{sm, out};

  // Parses and verifies; fails the test (and returns null) on error.
  std::unique_ptr<ir::Operation> parse(const std::string& text) {
    ir::registerAllOps();
    auto m = ir::parseModule("test.ir", text, diags);
    diags.flush();
    EXPECT_TRUE(m) << out.str();
    if (!m) return nullptr;
    bool ok = ir::verify(*m, diags);
    diags.flush();
    EXPECT_TRUE(ok) << out.str();
    return ok ? std::move(m) : nullptr;
  }
  bool verify(const ir::Operation& m) {
    bool ok = ir::verify(m, diags);
    diags.flush();
    return ok;
  }
  std::string text() {
    diags.flush();
    return out.str();
  }
};

// Evaluates index arithmetic of subgroup-level IR for one subgroup (independent of the passes: only
// the ops' documented meaning). Kernel parameters are looked up in `params` by position.
struct IndexEval {
  int64_t sgId = 0;
  std::map<unsigned, int64_t> params;
  int64_t eval(ir::Value* v) const {
    ir::Operation* d = v->definingOp();
    if (!d) {
      auto it = params.find(v->index());
      if (it == params.end()) throw std::runtime_error("IndexEval: unknown block argument");
      return it->second;
    }
    const std::string& n = d->name();
    if (n == "arith.constant") return d->attr("value")->getInt();
    if (n == "gpu.subgroup_id") return sgId;
    auto a = [&] { return eval(d->operand(0)); };
    auto b = [&] { return eval(d->operand(1)); };
    if (n == "arith.addi") return a() + b();
    if (n == "arith.subi") return a() - b();
    if (n == "arith.muli") return a() * b();
    if (n == "arith.divui" || n == "arith.divsi") return a() / b();
    if (n == "arith.remui" || n == "arith.remsi") return a() % b();
    if (n == "arith.cmpi") {
      std::string p = d->attr("predicate")->getString();
      if (p == "ult" || p == "slt") return a() < b();
      if (p == "eq") return a() == b();
    }
    if (n == "arith.andi") return a() & b();
    throw std::runtime_error("IndexEval: cannot evaluate " + n);
  }
};

// Ops named `name` in the kernel, in walk order.
inline std::vector<ir::Operation*> opsNamed(ir::Operation* root, const std::string& name) {
  std::vector<ir::Operation*> r;
  root->walk([&](ir::Operation* o) {
    if (o->is(name)) r.push_back(o);
  });
  return r;
}

// Seeded random buffer contents that are never all zero: small multiples of 1/4 (exact in bf16/f16),
// with zero replaced by 1.
inline interp::Buffer randomBuffer(ir::ElemKind elem, const std::vector<int64_t>& shape, std::mt19937& rng) {
  interp::Buffer b(elem, shape);
  std::uniform_int_distribution<int> dist(-8, 8);
  for (int64_t i = 0; i < b.numElements(); ++i) {
    int v = dist(rng);
    if (v == 0) v = 1;
    if (ir::isFloatElem(elem)) b.setFloat(i, v / 4.0);
    else b.setInt(i, v);
  }
  return b;
}

// Buffers for every memref parameter of the kernel (dynamic dims from `dynShape`), seeded.
inline interp::KernelArgs randomArgs(ir::Operation* kernel, uint32_t seed, const std::vector<int64_t>& dynShape = {}) {
  std::mt19937 rng(seed);
  interp::KernelArgs args;
  for (ir::Value* p : ir::kernelBody(kernel).arguments()) {
    const ir::Type& t = p->type();
    if (t.isMemRef()) {
      std::vector<int64_t> shape = t.shape();
      for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == ir::kDynamic) shape[i] = dynShape.at(i);
      args.args.push_back(interp::KernelArg::fromBuffer(randomBuffer(t.elem(), shape, rng)));
    } else {
      args.args.push_back(interp::KernelArg::fromScalar(interp::ScalarArg::integer(static_cast<int64_t>(rng() % 7 + 1))));
    }
  }
  return args;
}

}  // namespace xtc::testing
