// The SLM swizzle arithmetic shared by lower-generic and lower-xe (SlmSwizzle.h; seed 004).
#include "ir/passes/SlmSwizzle.h"

#include <fmt/format.h>

namespace xtc::passes {

using ir::Attribute;
using ir::ElemKind;
using ir::Type;
using ir::Value;

std::vector<int64_t> slmSwizzleOf(const ir::Operation& alloc, std::string* error) {
  const Attribute* a = alloc.attr("swizzle");
  if (!a) return {};
  std::vector<int64_t> sw = a->getIntArray();
  const Type& t = alloc.result()->type();
  int64_t eb = std::max<int64_t>(8, ir::elemBits(t.elem())) / 8, lg = 0, n = 1;
  while ((int64_t(1) << lg) < eb) ++lg;
  for (int64_t d : t.shape()) n *= d;
  if (sw.size() != 3 || sw[0] < 0 || sw[2] < sw[0] || sw[1] < lg || sw[1] + sw[2] + sw[0] > 40) {
    *error = fmt::format("invalid SLM swizzle {} for {}-byte elements (needs [B, M, S] with S >= B and M >= {})",
                         a->str(), eb, lg);
    return {};
  }
  // The swizzle only permutes within aligned blocks of 2^(M - lg + B) elements: the buffer must hold
  // whole blocks, or a swizzled address could leave it.
  int64_t block = int64_t(1) << (sw[1] - lg + sw[0]);
  if (t.rank() > 2 || n % block != 0) {
    *error = fmt::format("SLM swizzle {} needs a rank-1 or rank-2 buffer of a multiple of {} elements", a->str(), block);
    return {};
  }
  if (sw[0] == 0) return {};
  sw[1] -= lg;
  return sw;
}

void swizzleSlmIndex(ir::Builder& b, const std::vector<int64_t>& sw, const std::vector<int64_t>& shape,
                     std::vector<Value*>& idx, Value** mask, const std::function<Value*(int64_t)>& cst) {
  Type i1 = Type::scalar(ElemKind::I1), index = Type::index();
  auto op = [&](const char* name, Value* x, Value* y, const Type& t) { return b.create(name, {x, y}, {t})->result(); };
  auto opC = [&](const char* name, Value* x, int64_t c) { return op(name, x, cst(c), index); };
  auto ult = [&](Value* x, int64_t n) {
    return b.create("arith.cmpi", {x, cst(n)}, {i1}, {{"predicate", Attribute::enumValue("cmpi", "ult")}})->result();
  };
  int64_t B = sw[0], M = sw[1], S = sw[2];
  Value* inb = ult(idx[0], shape[0]);
  Value* e = idx[0];
  if (idx.size() == 2) {
    inb = op("arith.andi", inb, ult(idx[1], shape[1]), i1);
    e = op("arith.addi", opC("arith.muli", idx[0], shape[1]), idx[1], index);
  }
  Value* bits = opC("arith.andi", opC("arith.shrui", e, M + S), (int64_t(1) << B) - 1);
  e = op("arith.xori", e, opC("arith.shli", bits, M), index);
  if (idx.size() == 2) idx = {opC("arith.divui", e, shape[1]), opC("arith.remui", e, shape[1])};
  else idx = {e};
  *mask = *mask ? op("arith.andi", *mask, inb, i1) : inb;
}

}  // namespace xtc::passes
