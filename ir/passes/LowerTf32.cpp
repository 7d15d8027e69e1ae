// The `lower-tf32` pass (every target; first pass of the pipeline): tf32 values become f32 values
// whose low 13 mantissa bits are zero, each rounding explicit.
//
// Why: tf32 (8-bit exponent, 10-bit mantissa, stored in 32 bits) is an input format of tile_mma
// (`tile_mma(a as tf32, b as tf32, c)`), but no target of xtc has tf32 registers or tf32 arithmetic,
// and until this pass the SPIR-V backend and lower-generic refused every tf32 value. A tf32 value is
// exactly an f32 value with those bits zero, so the kernel can compute in f32 as long as every op
// whose result the interpreter rounds to tf32 rounds too: a conversion to tf32 and the arithmetic
// ops (+ - * /, math functions) get an explicit round-to-nearest-even on the bits after them (a few
// integer ops; the interpreter's floatToTf32 in ir/interpret/Numeric.cpp). f32 keeps at least
// 2 * 11 + 2 significand bits, so rounding an f32 + - * of tf32 operands once more to tf32 is the
// single rounding the interpreter does. Ops that return one of their operands or change only the
// sign (select, max, min, neg, abs, floor, ceil, transposes, broadcasts) stay as they are.
//
// A tile_mma of tf32 inputs is then an f32 tile_mma of rounded inputs: the products of two tf32
// values are exact in f32, so the FMA GEMM (lower-generic; blocking's `fma = true` on pvc/dg2)
// computes the interpreter's result with the same order of accumulation. pvc has a tf32 DPAS
// (reference §4) that xtc does not emit yet: such kernels run at f32 FMA speed (docs/language.md).
//
// Refused here, located: tf32 kernel parameters (memrefs of tf32: no target stores tf32; keep f32
// data and convert with `as tf32`), conversions to tf32 from a type f32 does not hold exactly (f64,
// i32, i64, index: rounding to f32 first would round twice), and any other op on tf32 values
// (reductions, loads), which would need their own rounding rule.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/passes/PassManager.h"

#include <fmt/format.h>

#include <bit>
#include <set>

namespace xtc::passes {

using ir::Attribute;
using ir::ElemKind;
using ir::Operation;
using ir::Type;
using ir::Value;

namespace {

bool isTf32(const Type& t) { return (t.isScalar() || t.isVector()) && t.elem() == ElemKind::TF32; }

// Round-to-nearest-even of an f32 to tf32 (NaNs stay NaNs, made quiet), for constants.
double roundConstant(double d) {
  uint32_t u = std::bit_cast<uint32_t>(static_cast<float>(d));
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<double>(std::bit_cast<float>(u | 0x00400000u));
  u = (u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu;
  return static_cast<double>(std::bit_cast<float>(u));
}

// Ops whose tf32 result is one of their operands' values or its negation: no rounding.
bool exactOp(const Operation& op) {
  static const std::set<std::string> exact{"arith.select", "arith.maxf", "arith.minf", "arith.negf", "arith.bitcast",
                                           "math.abs", "math.floor", "math.ceil", "tile.transpose", "tile.broadcast",
                                           "tile.convert_layout", "scf.for", "scf.if"};
  return exact.count(op.name()) != 0;
}

// Ops whose tf32 result the interpreter rounds once from the exact value.
bool roundedOp(const Operation& op) {
  return (op.dialect() == "arith" && (op.is("arith.addf") || op.is("arith.subf") || op.is("arith.mulf") ||
                                      op.is("arith.divf"))) ||
         op.dialect() == "math";
}

class Tf32Lowering {
public:
  Tf32Lowering(Operation* kernel, DiagnosticEngine& diags) : kernel_(kernel), diags_(diags) {}

  bool run() {
    for (Value* p : ir::kernelBody(kernel_).arguments())
      if ((p->type().isMemRef() || p->type().isScalar()) && p->type().elem() == ElemKind::TF32) {
        diags_.error(kernel_->loc(), fmt::format("parameter '{}' has element type tf32, which no target stores: keep the data "
                                                 "in f32 and round it with `as tf32` where it enters a tile_mma",
                                                 p->nameHint()));
        return false;
      }
    std::vector<Operation*> ops;
    kernel_->walk([&](Operation* op) { ops.push_back(op); });
    bool ok = true;
    for (Operation* op : ops) ok = lowerOp(op) && ok;
    for (Operation* op : dead_) op->erase();
    return ok;
  }

private:
  bool lowerOp(Operation* op) {
    // Loop-carried tf32 values (scf.for's block arguments) are f32 values as well.
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (Value* a : op->region(r).block().arguments())
        if (isTf32(a->type())) a->setType(a->type().withElem(ElemKind::F32));
    if (op->is("arith.convert")) return lowerConvert(op);
    bool any = false;
    for (Value* r : op->results()) any = any || isTf32(r->type());
    if (!any) return true;
    if (op->is("arith.constant")) {
      const Attribute* v = op->attr("value");
      Type ft = op->result()->type().withElem(ElemKind::F32);
      if (v->isa(ir::AttrKind::Dense)) {
        std::vector<double> vals = v->denseFloats();
        for (double& d : vals) d = roundConstant(d);
        op->setAttr("value", Attribute::denseFloat(ft, vals));
      } else {
        op->setAttr("value", Attribute::floating(roundConstant(v->getFloat()), ElemKind::F32));
      }
      op->result()->setType(ft);
      return true;
    }
    if (exactOp(*op)) {
      retype(op);
      return true;
    }
    if (roundedOp(*op)) {
      retype(op);
      Value* r = op->result();
      Value* rounded = roundAfter(op, r);
      r->replaceUsesWithIf(rounded, [&](const ir::Use& u) { return !ours_.count(u.user); });
      return true;
    }
    diags_.error(op->loc(), fmt::format("'{}' with a tf32 result is not implemented (tf32 values can be converted, "
                                        "added, multiplied, selected and passed to tile_mma): convert to f32 first",
                                        op->name()));
    return false;
  }

  // A conversion to tf32 is the rounding (after a widening to f32 when the source is narrower); one
  // from tf32 to f32 is the value itself; one from tf32 to another type converts the f32 value, which
  // holds the tf32 value exactly.
  bool lowerConvert(Operation* op) {
    ElemKind from = op->operand(0)->type().elem(), to = op->result()->type().elem();
    if (to != ElemKind::TF32) {
      if (from == ElemKind::F32 && to == ElemKind::F32) {
        op->result()->replaceAllUsesWith(op->operand(0));
        dead_.push_back(op);
      }
      return true;
    }
    if (from == ElemKind::F32) {  // f32 (or tf32, already exact) -> tf32
      Value* rounded = roundAfter(op, op->operand(0));
      rounded->setNameHint(op->result()->nameHint());
      op->result()->replaceAllUsesWith(rounded);
      dead_.push_back(op);
      return true;
    }
    bool exactInF32 = from == ElemKind::F16 || from == ElemKind::BF16 || from == ElemKind::I1 || from == ElemKind::I8 ||
                      from == ElemKind::I16;
    if (!exactInF32) {
      diags_.error(op->loc(), fmt::format("converting {} to tf32 is not implemented (f32 does not hold every {} value, "
                                          "so rounding through it would round twice): convert to f32 first",
                                          ir::elemName(from), ir::elemName(from)));
      return false;
    }
    retype(op);
    if (from != ElemKind::I16) return true;  // f16, bf16, i8 and i1 values are tf32 values: no rounding
    Value* r = op->result();
    Value* rounded = roundAfter(op, r);
    r->replaceUsesWithIf(rounded, [&](const ir::Use& u) { return !ours_.count(u.user); });
    return true;
  }

  void retype(Operation* op) {
    for (Value* r : op->results())
      if (isTf32(r->type())) r->setType(r->type().withElem(ElemKind::F32));
  }

  // After `after`, `x` (an f32 value) rounded to tf32; the rounding ops are marked as this pass's.
  Value* roundAfter(Operation* after, Value* x) {
    ir::Builder b;
    b.setInsertionPointAfter(after);
    b.setLoc(after->loc());
    return round(b, x);
  }

  // The integer form of the rounding: add 0xfff plus the lowest kept bit, clear the 13 low bits
  // (a carry into the exponent rounds up to the next binade or to infinity, as it should); a NaN
  // keeps its bits, made quiet, as the interpreter's.
  Value* round(ir::Builder& b, Value* x) {
    const Type& t = x->type();
    Type i32 = t.withElem(ElemKind::I32);
    auto make = [&](std::string name, std::vector<Value*> operands, Type rt, ir::AttrMap attrs = {}) {
      Operation* o = b.create(std::move(name), operands, {rt}, std::move(attrs));
      ours_.insert(o);
      return o->result();
    };
    auto c = [&](int64_t v) {
      Attribute a = t.isVector() ? Attribute::denseInt(i32, {v}) : Attribute::integer(v, ElemKind::I32);
      return make("arith.constant", {}, i32, {{"value", a}});
    };
    Value* bits = make("arith.bitcast", {x}, i32);
    Value* low = make("arith.andi", {make("arith.shrui", {bits, c(13)}, i32), c(1)}, i32);
    Value* up = make("arith.addi", {make("arith.addi", {bits, c(0xfff)}, i32), low}, i32);
    Value* cleared = make("arith.andi", {up, c(-0x2000)}, i32);
    Value* y = make("arith.bitcast", {cleared}, t);
    Value* quiet = make("arith.bitcast", {make("arith.ori", {bits, c(0x400000)}, i32)}, t);
    Value* nan = make("arith.cmpf", {x, x}, t.withElem(ElemKind::I1), {{"predicate", Attribute::enumValue("cmpf", "uno")}});
    return make("arith.select", {nan, quiet, y}, t);
  }

  Operation* kernel_;
  DiagnosticEngine& diags_;
  std::set<Operation*> ours_;         // the rounding ops this pass made (their uses of x stay)
  std::vector<Operation*> dead_;      // identity conversions, erased at the end
};

class LowerTf32Pass : public Pass {
public:
  std::string name() const override { return "lower-tf32"; }
  std::string description() const override {
    return "tf32 values become f32 values rounded to tf32 after each conversion and arithmetic op (no target has tf32 registers)";
  }
  bool run(Operation* module, PassContext& ctx) override {
    bool ok = true;
    for (Operation* k : ir::moduleKernels(module)) {
      if (k->hasAttr("target")) continue;  // already lowered
      bool uses = false;
      k->walk([&](Operation* op) {
        for (Value* r : op->results()) uses = uses || isTf32(r->type());
      });
      for (Value* p : ir::kernelBody(k).arguments()) uses = uses || p->type().elem() == ElemKind::TF32;
      if (!uses) continue;  // byte for byte as before
      ok = Tf32Lowering(k, ctx.diags).run() && ok;
    }
    return ok;
  }
};

}  // namespace

void registerLowerTf32Pass() {
  registerPass("lower-tf32", [] { return std::make_unique<LowerTf32Pass>(); });
}

}  // namespace xtc::passes
