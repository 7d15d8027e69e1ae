// indexRange (IndexBounds.h): a bound per op from its operands' bounds. A group id is below the
// kernel's grid size when that is a constant of its launch region, a subgroup id below its
// num_subgroups, a lane id below its sg_size; a static memref extent is itself; interval arithmetic
// with a known divisor (gcd for sums, products for products) over the ops lower-xe's offsets are
// made of.
#include "ir/passes/IndexBounds.h"

#include "ir/Attribute.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace xtc::passes {

namespace {

// Memo per top-level query: an expression DAG that reuses a value (x + x) is visited once per value,
// not once per path.
template <typename T>
using Memo = std::map<const ir::Value*, std::optional<T>>;

// 64-bit values only: a narrower one could wrap inside the ranges the rules add up.
bool wide(const ir::Value* v) {
  return v->type().isScalar() && (v->type().elem() == ir::ElemKind::Index || v->type().elem() == ir::ElemKind::I64);
}

// The kernel `op` is in (nullptr if none).
const ir::Operation* kernelOf(const ir::Operation* op) {
  for (const ir::Operation* p = op; p; p = p->parentOp())
    if (p->is("xtc.kernel")) return p;
  return nullptr;
}

std::optional<int64_t> constInt(const ir::Value* v) {
  const ir::Operation* d = v->definingOp();
  const ir::Attribute* a = d && d->is("arith.constant") ? d->attr("value") : nullptr;
  if (!a || !a->isa(ir::AttrKind::Int)) return std::nullopt;
  return a->getInt();
}

// The constant a kernel attribute or its grid gives as the count of an id: ids are in [0, count).
std::optional<int64_t> idCount(const ir::Operation* d) {
  const ir::Operation* k = kernelOf(d);
  if (!k) return std::nullopt;
  auto attrInt = [&](const char* n) -> std::optional<int64_t> {
    const ir::Attribute* a = k->attr(n);
    if (!a || !a->isa(ir::AttrKind::Int)) return std::nullopt;
    return a->getInt();
  };
  if (d->is("gpu.subgroup_id")) return attrInt("num_subgroups");
  if (d->is("gpu.lane_id")) return attrInt("sg_size");
  if (!d->is("gpu.group_id") || k->numRegions() < 2 || k->region(1).empty()) return std::nullopt;
  const ir::Attribute* dim = d->attr("dim");
  const ir::Operation* grid = k->region(1).block().terminator();
  if (!dim || !dim->isa(ir::AttrKind::Int) || !grid || !grid->is("xtc.grid")) return std::nullopt;
  int64_t i = dim->getInt();
  if (i < 0 || i >= static_cast<int64_t>(grid->numOperands())) return std::nullopt;
  return constInt(grid->operand(static_cast<unsigned>(i)));
}

constexpr int64_t kRangeLimit = int64_t(1) << 62;

std::optional<IndexRange> rangeOf(const ir::Value* v, int depth, Memo<IndexRange>& memo);

std::optional<IndexRange> range(const ir::Value* v, int depth, Memo<IndexRange>& memo) {
  if (auto it = memo.find(v); it != memo.end()) return it->second;
  return memo[v] = rangeOf(v, depth, memo);
}

// A result of an scf.for with constant bounds whose body yields that argument plus a constant c (or
// itself, c = 0): the loop runs its static trip count n, so the result is its init + n * c (RFC
// 2.5's prologue loops, which leave the prefetch tiles' offsets the K loop carries on).
std::optional<IndexRange> forResult(const ir::Operation& d, const ir::Value* v, int depth, Memo<IndexRange>& memo) {
  unsigned r = 0;
  while (d.result(r) != v) ++r;
  if (d.numRegions() != 1 || d.region(0).numBlocks() != 1 || d.numOperands() != 3 + d.numResults()) return std::nullopt;
  std::optional<IndexRange> lb = range(d.operand(0), depth - 1, memo), ub = range(d.operand(1), depth - 1, memo),
                            step = range(d.operand(2), depth - 1, memo), init = range(d.operand(3 + r), depth - 1, memo);
  if (!lb || !ub || !step || !init || lb->lo != lb->hi || ub->lo != ub->hi || step->lo != step->hi || step->lo <= 0)
    return std::nullopt;
  const ir::Block& body = d.region(0).block();
  const ir::Operation* yield = body.terminator();
  if (!yield || !yield->is("scf.yield") || yield->numOperands() != d.numResults() || body.numArguments() != 1 + d.numResults())
    return std::nullopt;
  const ir::Value* arg = body.argument(1 + r);
  const ir::Value* next = yield->operand(r);
  int64_t c = 0;
  if (next != arg) {
    const ir::Operation* add = next->definingOp();
    if (!add || !add->is("arith.addi")) return std::nullopt;
    unsigned k = add->operand(0) == arg ? 1 : add->operand(1) == arg ? 0 : 2;
    std::optional<int64_t> cv = k < 2 ? constInt(add->operand(k)) : std::nullopt;
    if (!cv) return std::nullopt;
    c = *cv;
  }
  __int128 n = std::max<__int128>(0, (__int128(ub->lo) - lb->lo + step->lo - 1) / step->lo);
  __int128 lo = init->lo + n * c, hi = init->hi + n * c;
  if (lo <= -kRangeLimit || hi >= kRangeLimit) return std::nullopt;
  return IndexRange{int64_t(lo), int64_t(hi), n == 0 ? init->multiple : std::gcd(init->multiple, std::abs(c))};
}

std::optional<IndexRange> rangeOf(const ir::Value* v, int depth, Memo<IndexRange>& memo) {
  if (depth == 0 || !wide(v)) return std::nullopt;
  if (std::optional<int64_t> c = constInt(v)) {
    if (*c <= -kRangeLimit || *c >= kRangeLimit) return std::nullopt;
    return IndexRange{*c, *c, std::abs(*c)};
  }
  const ir::Operation* d = v->definingOp();
  if (!d) return std::nullopt;
  if (d->is("gpu.group_id") || d->is("gpu.subgroup_id") || d->is("gpu.lane_id")) {
    std::optional<int64_t> n = idCount(d);
    if (!n || *n < 1 || *n > (int64_t(1) << 32)) return std::nullopt;
    return IndexRange{0, *n - 1, 1};
  }
  if (d->is("memref.dim")) {
    const ir::Attribute* i = d->attr("index");
    const ir::Type& mt = d->operand(0)->type();
    if (!i || !i->isa(ir::AttrKind::Int) || i->getInt() < 0 || i->getInt() >= mt.rank()) return std::nullopt;
    int64_t e = mt.shape()[static_cast<size_t>(i->getInt())];
    if (e == ir::kDynamic) return std::nullopt;
    return IndexRange{e, e, e};
  }
  if (d->is("scf.for")) return forResult(*d, v, depth, memo);
  if (d->dialect() != "arith" || d->numOperands() != 2) return std::nullopt;
  std::optional<IndexRange> a = range(d->operand(0), depth - 1, memo), b = range(d->operand(1), depth - 1, memo);
  if (!a || !b) return std::nullopt;
  auto fits = [](int64_t x) { return x > -kRangeLimit && x < kRangeLimit; };
  auto gcd = [](int64_t x, int64_t y) { return std::gcd(x, y); };
  std::optional<IndexRange> r;
  if (d->is("arith.addi")) {
    r = IndexRange{a->lo + b->lo, a->hi + b->hi, gcd(a->multiple, b->multiple)};
  } else if (d->is("arith.subi")) {
    r = IndexRange{a->lo - b->hi, a->hi - b->lo, gcd(a->multiple, b->multiple)};
  } else if (d->is("arith.muli")) {
    // Both operands bounded below 2^62: the corner products cannot overflow 128 bits; check them in 64.
    __int128 c[4] = {__int128(a->lo) * b->lo, __int128(a->lo) * b->hi, __int128(a->hi) * b->lo, __int128(a->hi) * b->hi};
    __int128 lo = *std::min_element(c, c + 4), hi = *std::max_element(c, c + 4);
    if (lo <= -kRangeLimit || hi >= kRangeLimit) return std::nullopt;
    __int128 m = __int128(a->multiple) * b->multiple;
    r = IndexRange{int64_t(lo), int64_t(hi), m >= kRangeLimit ? 1 : int64_t(m)};
  } else if ((d->is("arith.divui") || d->is("arith.divsi") || d->is("arith.floordivsi")) && a->lo >= 0 && b->lo == b->hi &&
             b->lo > 0) {
    int64_t k = b->lo;
    r = IndexRange{a->lo / k, a->hi / k, a->multiple % k == 0 ? a->multiple / k : 1};
  } else if ((d->is("arith.remui") || d->is("arith.remsi")) && a->lo >= 0 && b->lo == b->hi && b->lo > 0) {
    int64_t k = b->lo;
    // Below k, and a multiple of what divides both the dividend's divisor and k.
    r = a->hi < k ? *a : IndexRange{0, k - 1, gcd(a->multiple, k)};
  }
  if (r && fits(r->lo) && fits(r->hi) && r->lo <= r->hi && r->multiple >= 0) return r;
  return std::nullopt;
}
}  // namespace

std::optional<IndexRange> indexRange(const ir::Value* v) {
  Memo<IndexRange> memo;
  return range(v, 32, memo);
}

}  // namespace xtc::passes
