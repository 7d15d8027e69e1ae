// xtc_stub_fixture: writes a host stub for the hand-written kernels of fixture.ll (or bad.ll) with the
// real generator (backends/stub), from lowered modules built here with the IR builder. This lets the
// stub runtime tests run without the compiler pipeline.
//   xtc_stub_fixture fixture|bad SPIRV_FILE OUT_DIR STUB_NAME
#include "backends/stub/StubGenerator.h"
#include "ir/Module.h"

#include <fstream>
#include <iostream>
#include <iterator>

using namespace xtc;
using ir::Attribute;
using ir::ElemKind;
using ir::Type;
using ir::Value;

namespace {

Value* op1(ir::Builder& b, const std::string& name, std::vector<Value*> operands, Type t, ir::AttrMap attrs = {}) {
  return b.create(name, operands, {t}, std::move(attrs))->result();
}
Value* dim(ir::Builder& b, Value* m, int64_t d) {
  return op1(b, "memref.dim", {m}, Type::index(), {{"index", Attribute::integer(d)}});
}
void finish(ir::Operation* k, std::vector<int64_t> wg, const std::string& target) {
  k->setAttr("wg_size", Attribute::intArray(wg));
  k->setAttr("sg_size", Attribute::integer(16));
  k->setAttr("target", Attribute::string(target));
  // What the pvc lowering sets; the OpenCL launcher must not pass it to the CPU device (which
  // rejects it), so every run of the stub tests checks that too.
  k->setAttr("build_options", Attribute::string("-ze-opt-large-register-file"));
  ir::Builder b(&ir::kernelBody(k));
  b.create("xtc.return", {}, {});
}

// axpy: grid (ceildiv(dim(X, 0), 64), 1, 1), workgroup 64, generic.
void addAxpy(ir::Operation* module) {
  Type v = Type::memref({ir::kDynamic}, ElemKind::F32);
  ir::Operation* k = ir::createKernel(module, "axpy", {"X", "Y", "a"}, {v, v, Type::scalar(ElemKind::F32)}, {});
  ir::Builder b(&ir::kernelLaunch(k));
  Value* gx = op1(b, "arith.ceildivsi", {dim(b, ir::kernelLaunch(k).argument(0), 0), b.constantIndex(64)}, Type::index());
  b.create("xtc.grid", {gx, b.constantIndex(1), b.constantIndex(1)}, {});
  finish(k, {64, 1, 1}, "generic");
}

// widen: grid (ceildiv(dim(S, 1), bs), dim(S, 0), 1), workgroup 16, pvc (so the pitch rule applies).
void addWiden(ir::Operation* module) {
  Type s = Type::memref({4, ir::kDynamic}, ElemKind::BF16), d = Type::memref({4, ir::kDynamic}, ElemKind::F32);
  ir::Operation* k = ir::createKernel(module, "widen", {"S", "D", "bs"}, {s, d, Type::index()}, {});
  ir::Builder b(&ir::kernelLaunch(k));
  ir::Block& l = ir::kernelLaunch(k);
  Value* gx = op1(b, "arith.ceildivsi", {dim(b, l.argument(0), 1), l.argument(2)}, Type::index());
  b.create("xtc.grid", {gx, dim(b, l.argument(0), 0), b.constantIndex(1)}, {});
  finish(k, {16, 1, 1}, "pvc");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: xtc_stub_fixture fixture|bad SPIRV_FILE OUT_DIR STUB_NAME\n";
    return 2;
  }
  std::string which = argv[1], outDir = argv[3], name = argv[4];
  std::ifstream in(argv[2], std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return 1;
  if (bytes.empty() || bytes.size() % 4 != 0) {
    std::cerr << "xtc_stub_fixture: " << argv[2] << " is not a SPIR-V binary\n";
    return 1;
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  for (size_t i = 0; i < words.size(); ++i)
    for (int b = 0; b < 4; ++b) words[i] |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[4 * i + b])) << (8 * b);

  auto module = ir::createModule();
  addAxpy(module.get());
  if (which == "fixture") addWiden(module.get());

  SourceManager sm;
  DiagnosticEngine diags(sm, std::cerr);
  backend::StubFiles files;
  if (!backend::generateStub(*module, words, backend::StubOptions{name, which + ".ll"}, diags, files)) return 1;
  std::ofstream(outDir + "/" + name + ".h") << files.header;
  std::ofstream(outDir + "/" + name + ".c") << files.source;
  return 0;
}
