// unsignedBits (IndexBounds.h): a bound per op from its operands' bounds. Group, subgroup and lane
// ids and counts are below 2^32 (the hardware's 32-bit dispatch registers); a memref extent counts
// elements of an allocation in a 57-bit virtual address space. Any bound past 63 bits is no bound.
#include "ir/passes/IndexBounds.h"

#include "ir/Attribute.h"

#include <algorithm>
#include <bit>

namespace xtc::passes {

namespace {

constexpr int kIdBits = 32;      // gpu ids, counts and sizes
constexpr int kExtentBits = 57;  // memref.dim

std::optional<int> constBits(const ir::Value* v) {
  const ir::Operation* d = v->definingOp();
  if (!d || !d->is("arith.constant")) return std::nullopt;
  const ir::Attribute* a = d->attr("value");
  if (!a || !a->isa(ir::AttrKind::Int) || a->getInt() < 0) return std::nullopt;
  return static_cast<int>(std::bit_width(static_cast<uint64_t>(a->getInt())));
}

std::optional<int> bits(const ir::Value* v, int depth) {
  // 64-bit values only: a narrower one would wrap below the bounds this adds up.
  if (depth == 0 || !v->type().isScalar() || (v->type().elem() != ir::ElemKind::Index && v->type().elem() != ir::ElemKind::I64))
    return std::nullopt;
  if (std::optional<int> c = constBits(v)) return c;
  const ir::Operation* d = v->definingOp();
  if (!d) return std::nullopt;
  for (const char* n : {"gpu.group_id", "gpu.num_groups", "gpu.subgroup_id", "gpu.num_subgroups", "gpu.lane_id",
                        "gpu.local_size", "gpu.subgroup_size"})
    if (d->is(n)) return kIdBits;
  if (d->is("memref.dim")) return kExtentBits;
  if (d->dialect() != "arith" || d->numOperands() == 0) return std::nullopt;
  std::vector<std::optional<int>> in;  // the operands' bounds
  for (const ir::Value* o : d->operands()) in.push_back(bits(o, depth - 1));
  auto both = [&]() { return d->numOperands() == 2 && in[0] && in[1]; };
  std::optional<int> r;
  if (d->is("arith.addi") && both()) r = std::max(*in[0], *in[1]) + 1;
  else if (d->is("arith.muli") && both()) r = *in[0] + *in[1];
  else if ((d->is("arith.ori") || d->is("arith.maxsi") || d->is("arith.maxui")) && both()) r = std::max(*in[0], *in[1]);
  else if ((d->is("arith.minsi") || d->is("arith.minui")) && both()) r = std::min(*in[0], *in[1]);
  else if (d->is("arith.andi") && d->numOperands() == 2 && (in[0] || in[1]))
    r = std::min(in[0].value_or(64), in[1].value_or(64));  // a non-negative side bounds the and
  else if (d->is("arith.shli") && both()) {
    std::optional<int> k = constBits(d->operand(1));
    const ir::Attribute* a = k ? d->operand(1)->definingOp()->attr("value") : nullptr;
    if (a && a->getInt() < 64) r = *in[0] + static_cast<int>(a->getInt());
  } else if ((d->is("arith.shrui") || d->is("arith.divui")) && in[0]) {
    r = *in[0];  // no larger than the dividend
  } else if ((d->is("arith.divsi") || d->is("arith.floordivsi") || d->is("arith.ceildivsi")) && both()) {
    std::optional<int> k = constBits(d->operand(1));
    if (k && *k > 0) r = *in[0];  // a non-negative value over a positive constant
  } else if ((d->is("arith.remui") || d->is("arith.remsi")) && both()) {
    std::optional<int> k = constBits(d->operand(1));
    if (k && *k > 0) r = *k;
  } else if (d->is("arith.select") && d->numOperands() == 3 && in[1] && in[2]) {
    r = std::max(*in[1], *in[2]);
  }
  if (r && *r <= 63) return r;
  return std::nullopt;
}

}  // namespace

std::optional<int> unsignedBits(const ir::Value* v) { return bits(v, 32); }

}  // namespace xtc::passes
