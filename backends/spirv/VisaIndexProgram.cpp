// VisaIndexProgram (the .h says what and why).
#include "backends/spirv/VisaIndexProgram.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace xtc::backend {

namespace {

constexpr int64_t kExact = int64_t{1} << 31;  // 32-bit registers hold values below this exactly

bool pow2(int64_t c) { return c > 0 && std::has_single_bit(static_cast<uint64_t>(c)); }
int64_t log2(int64_t c) { return std::countr_zero(static_cast<uint64_t>(c)); }

// a * b + c when every part is >= 0 and the result stays below 2^31.
std::optional<int64_t> boundedMulAdd(int64_t a, int64_t b, int64_t c) {
  if (a < 0 || b < 0 || c < 0 || a >= kExact || b >= kExact || c >= kExact) return std::nullopt;
  if (b != 0 && a > (kExact - 1 - c) / b) return std::nullopt;
  return a * b + c;
}

using Terms = std::vector<std::pair<VisaIndexProgram::Root, int64_t>>;

// Sorted by root, equal roots merged, zero coefficients dropped.
Terms normalized(Terms t) {
  std::sort(t.begin(), t.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  Terms out;
  for (const auto& [r, c] : t) {
    if (!out.empty() && out.back().first == r) out.back().second += c;
    else out.push_back({r, c});
    if (out.back().second == 0) out.pop_back();
  }
  return out;
}

}  // namespace

std::optional<int64_t> VisaIndexProgram::rootMax(const Root& r) const {
  switch (r.kind) {
    case Root::Kind::None: return 0;
    case Root::Kind::Counter: return counterMax_;
    case Root::Kind::Outer: return std::nullopt;
    case Root::Kind::Inst: return instMax_[static_cast<size_t>(r.inst)];
  }
  return std::nullopt;
}

std::optional<int64_t> VisaIndexProgram::maxOf(const Aff& a) const {
  std::optional<int64_t> m = boundedMulAdd(0, 0, a.add);
  for (const auto& [r, c] : a.terms) {
    std::optional<int64_t> rm = rootMax(r);
    if (!m || !rm) return std::nullopt;
    m = boundedMulAdd(*rm, c, *m);
  }
  return m;
}

VisaIndexProgram::Root VisaIndexProgram::outerRoot(const ir::Value* v) {
  auto [it, added] = outerOrdinals_.emplace(v, static_cast<int>(outerOrdinals_.size()));
  (void)added;
  return Root{Root::Kind::Outer, v, it->second};
}

bool VisaIndexProgram::invariant(const Root& r) const {
  return r.kind == Root::Kind::None || r.kind == Root::Kind::Outer ||
         (r.kind == Root::Kind::Inst && insts_[static_cast<size_t>(r.inst)].invariant);
}

VisaIndexProgram::Root VisaIndexProgram::emit(const char* opcode, const Root& a, const Root& b, int64_t imm,
                                              std::optional<int64_t> max) {
  auto key = std::make_tuple(std::string(opcode), a, b, imm);
  if (auto it = known_.find(key); it != known_.end()) return Root{Root::Kind::Inst, nullptr, -1, it->second};
  int id = static_cast<int>(insts_.size());
  insts_.push_back({opcode, a, b, imm, invariant(a) && invariant(b)});
  instMax_.push_back(max);
  known_[key] = id;
  return Root{Root::Kind::Inst, nullptr, -1, id};
}

// The invariant terms first (their partial sums are invariant too, so they go before the loop),
// then the others, each scaled by a shift or a multiply and added.
VisaIndexProgram::Root VisaIndexProgram::sumTerms(const Terms& terms) {
  Terms ordered = terms;
  std::stable_partition(ordered.begin(), ordered.end(), [&](const auto& t) { return invariant(t.first); });
  Root sum;
  Terms done;
  for (const auto& [r, c] : ordered) {
    Root x = r;
    if (c != 1) {
      std::optional<int64_t> rm = rootMax(r);
      std::optional<int64_t> m = rm ? boundedMulAdd(*rm, c, 0) : std::nullopt;
      std::optional<Root> f = pow2(c) ? scaledField(r, log2(c)) : std::nullopt;
      x = f ? *f : pow2(c) ? emit("shl", r, Root{}, log2(c), m) : emit("mul", r, Root{}, c, m);
    }
    done.push_back({r, c});
    sum = sum.kind == Root::Kind::None ? x : emit("add", sum, x, 0, maxOf(Aff{done, 0}));
  }
  return sum;
}

VisaIndexProgram::Root VisaIndexProgram::materialize(const Aff& a) {
  Root r = sumTerms(a.terms);  // never empty: constants stay in `add` (div and rem fold them)
  return a.add != 0 ? emit("add", r, Root{}, a.add, maxOf(a)) : r;
}

std::optional<VisaIndexProgram::Aff> VisaIndexProgram::add(const Aff& a, const Aff& b) {
  Terms t = a.terms;
  t.insert(t.end(), b.terms.begin(), b.terms.end());
  return Aff{normalized(std::move(t)), a.add + b.add};
}

std::optional<VisaIndexProgram::Aff> VisaIndexProgram::sub(const Aff& a, const Aff& b) {
  Aff nb = b;
  for (auto& t : nb.terms) t.second = -t.second;
  nb.add = -nb.add;
  return add(a, nb);
}

std::optional<VisaIndexProgram::Aff> VisaIndexProgram::mul(const Aff& a, const Aff& b) {
  const Aff* v = b.terms.empty() ? &a : a.terms.empty() ? &b : nullptr;
  if (!v) return std::nullopt;  // a product of two variables: not needed by any kernel yet
  int64_t c = b.terms.empty() ? b.add : a.add;
  Aff r = *v;
  for (auto& t : r.terms) t.second *= c;
  r.add *= c;
  r.terms = normalized(std::move(r.terms));
  return r;
}

std::optional<VisaIndexProgram::Aff> VisaIndexProgram::div(const Aff& a, const Aff& b) {
  if (!b.terms.empty() || b.add <= 0) return std::nullopt;
  int64_t c = b.add;
  std::optional<int64_t> m = maxOf(a);
  if (!m) return std::nullopt;
  if (a.terms.empty()) return constant(a.add / c);
  // Exact: every part divisible by c (the value >= 0, so unsigned division gives the same).
  bool exact = a.add % c == 0 && std::all_of(a.terms.begin(), a.terms.end(), [&](const auto& t) { return t.second % c == 0; });
  if (exact) {
    Aff r = a;
    for (auto& t : r.terms) t.second /= c;
    r.add /= c;
    return r;
  }
  if (!pow2(c)) return std::nullopt;
  return Aff{{{emit("shr", materialize(a), Root{}, log2(c), *m / c), 1}}, 0};
}

std::optional<VisaIndexProgram::Aff> VisaIndexProgram::rem(const Aff& a, const Aff& b) {
  if (!b.terms.empty() || b.add <= 0) return std::nullopt;
  int64_t c = b.add;
  std::optional<int64_t> m = maxOf(a);
  if (!m) return std::nullopt;
  if (a.terms.empty()) return constant(a.add % c);
  if (*m < c) return a;
  if (!pow2(c)) return std::nullopt;
  Root r = emit("and", materialize(a), Root{}, c - 1, c - 1);
  // ((y >> s) + c0) % 2^j: remembered as a bit field of y, for scaledField.
  if (a.terms.size() == 1 && a.terms[0].second == 1 && a.add >= 0 && a.terms[0].first.kind == Root::Kind::Inst) {
    const Inst& in = insts_[static_cast<size_t>(a.terms[0].first.inst)];
    if (std::string(in.opcode) == "shr" && in.b.kind == Root::Kind::None)
      fields_.emplace(r.inst, Field{in.a, in.imm, a.add, log2(c)});
  }
  return Aff{{{r, 1}}, 0};
}

// A field f = ((y >> s) + c0) % 2^j scaled by 2^b (b >= s) without the field's own instructions:
// (y << (b - s)) keeps y's bits s.. at b.., its lower bits stay below b, so adding c0 << b carries
// nothing from them into bits b .. b + j - 1, and those bits are then ((y >> s) + c0) mod 2^j; all
// of it modulo 2^32 (the register), which keeps bits below 32: exact when b + j <= 31 (the mask
// stays a positive :d). A scale of the same field already written is shifted instead (its bits
// are the field's, nothing else). RFC 2.4's ring stage at 2^14 and 2^10 and the refilled stage at
// both: shl, and, add, and, shr, shr instead of shr, and, add, and and four shl.
std::optional<VisaIndexProgram::Root> VisaIndexProgram::scaledField(const Root& r, int64_t b) {
  if (r.kind != Root::Kind::Inst) return std::nullopt;
  auto it = fields_.find(r.inst);
  if (it == fields_.end()) return std::nullopt;
  const Field& f = it->second;
  int64_t mask = (int64_t{1} << f.bits) - 1;
  if (b < f.shift || b + f.bits > 31 || (f.add << b) >= kExact) return std::nullopt;
  std::vector<std::pair<int64_t, Root>>& done = fieldScales_[r.inst];
  for (const auto& [b0, x] : done)
    if (b0 == b) return x;
  Root x;
  if (!done.empty()) {
    auto [b0, x0] = done.front();
    x = b0 > b ? emit("shr", x0, Root{}, b0 - b, mask << b) : emit("shl", x0, Root{}, b - b0, mask << b);
  } else {
    Root y = b > f.shift ? emit("shl", f.y, Root{}, b - f.shift, std::nullopt) : f.y;
    if (f.add) y = emit("add", y, Root{}, f.add << b, std::nullopt);
    x = emit("and", y, Root{}, mask << b, mask << b);
  }
  done.push_back({b, x});
  return x;
}

std::vector<bool> VisaIndexProgram::live(const std::vector<Root>& used) const {
  std::vector<bool> l(insts_.size(), false);
  for (const Root& r : used)
    if (r.kind == Root::Kind::Inst) l[static_cast<size_t>(r.inst)] = true;
  // Sources are always written before their users: one backward sweep.
  for (size_t i = insts_.size(); i-- > 0;) {
    if (!l[i]) continue;
    for (const Root* s : {&insts_[i].a, &insts_[i].b})
      if (s->kind == Root::Kind::Inst) l[static_cast<size_t>(s->inst)] = true;
  }
  return l;
}

VisaIndexProgram::Root VisaIndexProgram::scaled(const Aff& a, int64_t scale, const ir::Value* base) {
  Terms t = a.terms;
  for (auto& x : t) x.second *= scale;
  if (base) t.push_back({outerRoot(base), 1});
  t = normalized(std::move(t));
  return t.empty() ? Root{} : sumTerms(t);
}

std::string VisaIndexProgram::text(size_t i, const std::string& prefix,
                                   const std::function<std::string(const Root&)>& operand) const {
  const Inst& in = insts_[i];
  auto src = [&](const Root& r) {
    return r.kind == Root::Kind::Inst ? fmt::format("{}(0,0)<0;1,0>", varName(prefix, r.inst)) : operand(r);
  };
  std::string b = in.b.kind == Root::Kind::None ? fmt::format("{}:d", in.imm) : src(in.b);
  return fmt::format("{} (M1_NM,1) {}(0,0)<1> {} {}\n", in.opcode, varName(prefix, static_cast<int>(i)), src(in.a), b);
}

}  // namespace xtc::backend
