// Linear layouts over GF(2): validation, evaluation, owners (solution + kernel), composition,
// inverses, products, reshapes, quotients, and the `linear<...>` text form. See LinearLayout.h.
#include "ir/layout/LinearLayout.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace xtc::layout {

namespace {

constexpr int kMaxBits = 62;

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int log2i(int64_t v) { return v <= 1 ? 0 : 63 - std::countl_zero(uint64_t(v)); }

}  // namespace

// ---------------------------------------------------------------- Gf2Basis

bool Gf2Basis::insert(uint64_t v) {
  if (count_ >= 64) throw std::length_error("Gf2Basis: more than 64 insertions");
  uint64_t combo = uint64_t(1) << count_;
  ++count_;
  for (const Row& r : rows_) {
    uint64_t pivot = uint64_t(1) << (63 - std::countl_zero(r.vec));
    if (v & pivot) {
      v ^= r.vec;
      combo ^= r.combo;
    }
  }
  if (v == 0) {
    kernel_.push_back(combo);
    return false;
  }
  Row row{v, combo};
  auto pos = std::find_if(rows_.begin(), rows_.end(),
                          [&](const Row& r) { return std::countl_zero(r.vec) > std::countl_zero(v); });
  rows_.insert(pos, row);
  return true;
}

std::optional<uint64_t> Gf2Basis::solve(uint64_t target) const {
  uint64_t combo = 0;
  for (const Row& r : rows_) {
    uint64_t pivot = uint64_t(1) << (63 - std::countl_zero(r.vec));
    if (target & pivot) {
      target ^= r.vec;
      combo ^= r.combo;
    }
  }
  if (target != 0) return std::nullopt;
  return combo;
}

int gf2Rank(const std::vector<uint64_t>& vectors) {
  Gf2Basis b;
  for (uint64_t v : vectors) b.insert(v);
  return b.rank();
}

// ---------------------------------------------------------------- construction

std::optional<std::string> LinearLayout::validate(const std::vector<InDim>& ins,
                                                  const std::vector<OutDim>& outs) {
  std::set<std::string> names;
  int outBits = 0;
  for (const OutDim& o : outs) {
    if (o.name.empty()) return "an output dimension has an empty name";
    if (!names.insert(o.name).second) return fmt::format("output dimension '{}' appears twice", o.name);
    if (!isPow2(o.size))
      return fmt::format("output dimension '{}' has size {}, which is not a power of two", o.name, o.size);
    outBits += log2i(o.size);
  }
  if (outBits > kMaxBits) return fmt::format("output space has {} bits (at most {})", outBits, kMaxBits);
  names.clear();
  int inBits = 0;
  for (const InDim& d : ins) {
    if (d.name.empty()) return "an input dimension has an empty name";
    if (!names.insert(d.name).second) return fmt::format("input dimension '{}' appears twice", d.name);
    inBits += int(d.bases.size());
    for (size_t b = 0; b < d.bases.size(); ++b) {
      const auto& v = d.bases[b];
      if (v.size() != outs.size())
        return fmt::format("basis {} of '{}' has {} coordinates but there are {} output dimensions", b,
                           d.name, v.size(), outs.size());
      for (size_t k = 0; k < v.size(); ++k)
        if (v[k] < 0 || v[k] >= outs[k].size)
          return fmt::format("basis {} of '{}' has coordinate {} = {}, outside [0, {})", b, d.name,
                             outs[k].name, v[k], outs[k].size);
    }
  }
  if (inBits > kMaxBits) return fmt::format("input space has {} bits (at most {})", inBits, kMaxBits);
  return std::nullopt;
}

LinearLayout::LinearLayout(std::vector<InDim> ins, std::vector<OutDim> outs) {
  if (auto err = validate(ins, outs)) throw std::invalid_argument("linear layout: " + *err);
  ins_ = std::move(ins);
  outs_ = std::move(outs);
}

Expected<LinearLayout> LinearLayout::make(std::vector<InDim> ins, std::vector<OutDim> outs) {
  if (auto err = validate(ins, outs)) return Error{*err};
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::identity1D(int32_t size, std::string in, std::string out) {
  return strided1D(size, 1, std::move(in), std::move(out), size);
}

LinearLayout LinearLayout::zeros1D(int32_t size, std::string in, std::string out, int32_t outSize) {
  if (!isPow2(size)) throw std::invalid_argument("zeros1D: size must be a power of two");
  InDim d{std::move(in), std::vector<std::vector<int32_t>>(log2i(size), std::vector<int32_t>{0})};
  return LinearLayout({d}, {OutDim{std::move(out), outSize}});
}

LinearLayout LinearLayout::strided1D(int32_t size, int32_t stride, std::string in, std::string out,
                                     int32_t outSize) {
  if (!isPow2(size) || !isPow2(stride))
    throw std::invalid_argument("strided1D: size and stride must be powers of two");
  InDim d{std::move(in), {}};
  for (int b = 0; b < log2i(size); ++b) d.bases.push_back({int32_t(int64_t(stride) << b)});
  return LinearLayout({d}, {OutDim{std::move(out), outSize}});
}

// ---------------------------------------------------------------- queries

int LinearLayout::outIndex(std::string_view name) const {
  for (size_t i = 0; i < outs_.size(); ++i)
    if (outs_[i].name == name) return int(i);
  return -1;
}
int LinearLayout::inIndex(std::string_view name) const {
  for (size_t i = 0; i < ins_.size(); ++i)
    if (ins_[i].name == name) return int(i);
  return -1;
}
bool LinearLayout::hasInDim(std::string_view name) const { return inIndex(name) >= 0; }
bool LinearLayout::hasOutDim(std::string_view name) const { return outIndex(name) >= 0; }
int32_t LinearLayout::inDimSize(std::string_view name) const {
  int i = inIndex(name);
  return i < 0 ? 1 : ins_[i].size();
}
int32_t LinearLayout::outDimSize(std::string_view name) const {
  int i = outIndex(name);
  return i < 0 ? 1 : outs_[i].size;
}
int LinearLayout::inDimBits(std::string_view name) const { return log2i(inDimSize(name)); }
int LinearLayout::outDimBits(std::string_view name) const { return log2i(outDimSize(name)); }
int LinearLayout::totalInBits() const {
  int n = 0;
  for (const auto& d : ins_) n += int(d.bases.size());
  return n;
}
int LinearLayout::totalOutBits() const {
  int n = 0;
  for (const auto& o : outs_) n += log2i(o.size);
  return n;
}
const std::vector<int32_t>& LinearLayout::basis(std::string_view inDim, int bit) const {
  int i = inIndex(inDim);
  if (i < 0 || bit < 0 || bit >= int(ins_[i].bases.size()))
    throw std::out_of_range(fmt::format("no basis {} of input dimension '{}'", bit, inDim));
  return ins_[i].bases[bit];
}
int LinearLayout::inBitOffset(std::string_view inDim) const {
  int off = 0;
  for (const auto& d : ins_) {
    if (d.name == inDim) return off;
    off += int(d.bases.size());
  }
  return -1;
}

// ---------------------------------------------------------------- flat packing

uint64_t LinearLayout::packOut(const std::vector<int32_t>& coords) const {
  uint64_t flat = 0;
  int shift = 0;
  for (int k = int(outs_.size()) - 1; k >= 0; --k) {
    flat |= uint64_t(uint32_t(coords[k]) & uint32_t(outs_[k].size - 1)) << shift;
    shift += log2i(outs_[k].size);
  }
  return flat;
}

std::vector<int32_t> LinearLayout::unpackOut(uint64_t flat) const {
  std::vector<int32_t> coords(outs_.size());
  int shift = 0;
  for (int k = int(outs_.size()) - 1; k >= 0; --k) {
    coords[k] = int32_t((flat >> shift) & uint64_t(outs_[k].size - 1));
    shift += log2i(outs_[k].size);
  }
  return coords;
}

uint64_t LinearLayout::packIn(const std::vector<int32_t>& index) const {
  uint64_t flat = 0;
  int shift = 0;
  for (size_t k = 0; k < ins_.size(); ++k) {
    int32_t v = k < index.size() ? index[k] : 0;
    flat |= uint64_t(uint32_t(v) & uint32_t(ins_[k].size() - 1)) << shift;
    shift += int(ins_[k].bases.size());
  }
  return flat;
}

std::vector<int32_t> LinearLayout::unpackIn(uint64_t flat) const {
  std::vector<int32_t> index(ins_.size());
  int shift = 0;
  for (size_t k = 0; k < ins_.size(); ++k) {
    index[k] = int32_t((flat >> shift) & uint64_t(ins_[k].size() - 1));
    shift += int(ins_[k].bases.size());
  }
  return index;
}

uint64_t LinearLayout::column(int inBit) const {
  for (const auto& d : ins_) {
    if (inBit < int(d.bases.size())) return packOut(d.bases[inBit]);
    inBit -= int(d.bases.size());
  }
  throw std::out_of_range("linear layout: input bit out of range");
}

std::vector<uint64_t> LinearLayout::columns() const {
  std::vector<uint64_t> cols;
  for (const auto& d : ins_)
    for (const auto& b : d.bases) cols.push_back(packOut(b));
  return cols;
}

uint64_t LinearLayout::applyFlat(uint64_t inBits) const {
  uint64_t out = 0;
  int bit = 0;
  for (const auto& d : ins_)
    for (const auto& b : d.bases) {
      if ((inBits >> bit) & 1) out ^= packOut(b);
      ++bit;
    }
  return out;
}

LinearLayout LinearLayout::fromColumns(std::vector<InDim> ins, std::vector<OutDim> outs,
                                       const std::vector<uint64_t>& cols) const {
  LinearLayout shape;
  shape.outs_ = outs;
  size_t c = 0;
  for (auto& d : ins)
    for (auto& b : d.bases) b = shape.unpackOut(cols.at(c++));
  return LinearLayout(std::move(ins), std::move(outs));
}

// ---------------------------------------------------------------- evaluation

std::vector<int32_t> LinearLayout::apply(const std::vector<int32_t>& in) const {
  return unpackOut(applyFlat(packIn(in)));
}

NamedIndex LinearLayout::apply(const NamedIndex& in) const {
  std::vector<int32_t> pos(ins_.size(), 0);
  for (const auto& [name, value] : in) {
    int i = inIndex(name);
    if (i < 0) throw std::invalid_argument(fmt::format("linear layout has no input dimension '{}'", name));
    pos[i] = value;
  }
  std::vector<int32_t> out = apply(pos);
  NamedIndex named;
  for (size_t k = 0; k < outs_.size(); ++k) named.emplace_back(outs_[k].name, out[k]);
  return named;
}

std::optional<LinearLayout::Owners> LinearLayout::owners(const std::vector<int32_t>& coords) const {
  Gf2Basis basis;
  std::vector<uint64_t> cols = columns();
  for (uint64_t c : cols) basis.insert(c);
  auto combo = basis.solve(packOut(coords));
  if (!combo) return std::nullopt;
  Owners o;
  o.particular = unpackIn(*combo);
  for (uint64_t k : basis.kernel()) o.kernel.push_back(unpackIn(k));
  return o;
}

std::vector<std::vector<int32_t>> LinearLayout::allOwners(const std::vector<int32_t>& coords,
                                                          int64_t limit) const {
  std::vector<std::vector<int32_t>> result;
  Gf2Basis basis;
  for (uint64_t c : columns()) basis.insert(c);
  auto combo = basis.solve(packOut(coords));
  if (!combo) return result;
  const auto& ker = basis.kernel();
  std::vector<uint64_t> flats;
  int64_t n = int64_t(1) << std::min<size_t>(ker.size(), 40);
  for (int64_t m = 0; m < n && int64_t(flats.size()) < limit; ++m) {
    uint64_t v = *combo;
    for (size_t k = 0; k < ker.size(); ++k)
      if ((m >> k) & 1) v ^= ker[k];
    flats.push_back(v);
  }
  std::sort(flats.begin(), flats.end());
  for (uint64_t f : flats) result.push_back(unpackIn(f));
  return result;
}

int LinearLayout::rank() const { return gf2Rank(columns()); }

std::vector<std::vector<int32_t>> LinearLayout::kernel() const {
  Gf2Basis basis;
  for (uint64_t c : columns()) basis.insert(c);
  std::vector<std::vector<int32_t>> ker;
  for (uint64_t k : basis.kernel()) ker.push_back(unpackIn(k));
  return ker;
}

// ---------------------------------------------------------------- algebra

Expected<LinearLayout> LinearLayout::then(const LinearLayout& next) const {
  if (outs_.size() != next.ins_.size())
    return Error{fmt::format("cannot compose: {} output dims feed {} input dims", outs_.size(), next.ins_.size())};
  for (size_t k = 0; k < outs_.size(); ++k) {
    if (outs_[k].name != next.ins_[k].name)
      return Error{fmt::format("cannot compose: output dim '{}' meets input dim '{}'", outs_[k].name,
                               next.ins_[k].name)};
    if (outs_[k].size > next.ins_[k].size())
      return Error{fmt::format("cannot compose: output dim '{}' has size {} but the next layout's input has size {}",
                               outs_[k].name, outs_[k].size, next.ins_[k].size())};
  }
  std::vector<InDim> ins = ins_;
  for (auto& d : ins)
    for (auto& b : d.bases) b = next.apply(b);
  return LinearLayout(std::move(ins), next.outs_);
}

LinearLayout LinearLayout::pseudoInverse() const {
  // Basis of the out space: independent columns of F first (remembering which input bit), then unit
  // vectors completing it. G sends a column to its input bit and a completing vector to 0.
  std::vector<uint64_t> cols = columns();
  Gf2Basis basis;
  std::vector<int> insertedFrom;  // per insertion: input bit, or -1 for a completion vector
  for (size_t i = 0; i < cols.size(); ++i)
    if (!basis.contains(cols[i])) {
      basis.insert(cols[i]);
      insertedFrom.push_back(int(i));
    }
  int outBits = totalOutBits();
  for (int b = 0; b < outBits; ++b)
    if (!basis.contains(uint64_t(1) << b)) {
      basis.insert(uint64_t(1) << b);
      insertedFrom.push_back(-1);
    }
  std::vector<uint64_t> gcols;
  for (int b = 0; b < outBits; ++b) {
    uint64_t combo = *basis.solve(uint64_t(1) << b);
    uint64_t image = 0;
    for (size_t k = 0; k < insertedFrom.size(); ++k)
      if (((combo >> k) & 1) && insertedFrom[k] >= 0) image |= uint64_t(1) << insertedFrom[k];
    gcols.push_back(image);
  }
  // Inverse layout: input dims = our out dims (bit order of our flat packing: last out dim lowest).
  std::vector<InDim> gins;
  std::vector<uint64_t> orderedCols;
  int shift = 0;
  std::vector<int> dimShift(outs_.size());
  for (int k = int(outs_.size()) - 1; k >= 0; --k) {
    dimShift[k] = shift;
    shift += log2i(outs_[k].size);
  }
  for (size_t k = 0; k < outs_.size(); ++k) {
    InDim d{outs_[k].name, {}};
    for (int b = 0; b < log2i(outs_[k].size); ++b) {
      d.bases.emplace_back();
      orderedCols.push_back(gcols[dimShift[k] + b]);
    }
    gins.push_back(std::move(d));
  }
  std::vector<OutDim> gouts;
  for (const auto& d : ins_) gouts.push_back(OutDim{d.name, d.size()});
  // Columns are flat *input* masks of F; re-pack them as coordinates of G's outputs.
  LinearLayout shape(std::vector<InDim>{}, gouts);
  std::vector<uint64_t> packed;
  for (uint64_t c : orderedCols) packed.push_back(shape.packOut(unpackIn(c)));
  return fromColumns(std::move(gins), std::move(gouts), packed);
}

Expected<LinearLayout> LinearLayout::leftInverse() const {
  if (!isInjective())
    return Error{fmt::format("layout is not injective (rank {} < {} input bits: {} owners per element), so it has no left inverse",
                             rank(), totalInBits(), replication())};
  return pseudoInverse();
}

Expected<LinearLayout> LinearLayout::rightInverse() const {
  if (!isSurjective())
    return Error{fmt::format("layout is not surjective (rank {} < {} output bits), so it has no right inverse",
                             rank(), totalOutBits())};
  return pseudoInverse();
}

Expected<LinearLayout> LinearLayout::invert() const {
  if (!isInjective())
    return Error{fmt::format("layout is not invertible: not injective (rank {} < {} input bits)", rank(),
                             totalInBits())};
  if (!isSurjective())
    return Error{fmt::format("layout is not invertible: not surjective (rank {} < {} output bits)", rank(),
                             totalOutBits())};
  return pseudoInverse();
}

LinearLayout LinearLayout::operator*(const LinearLayout& other) const {
  std::vector<OutDim> outs = outs_;
  std::vector<int32_t> otherShift(other.outs_.size(), 0);  // multiplier for other's coords
  std::vector<int> otherPos(other.outs_.size());
  for (size_t k = 0; k < other.outs_.size(); ++k) {
    int i = outIndex(other.outs_[k].name);
    if (i >= 0) {
      otherShift[k] = log2i(outs[i].size);
      outs[i].size = int32_t(int64_t(outs[i].size) * other.outs_[k].size);
      otherPos[k] = i;
    } else {
      otherPos[k] = int(outs.size());
      outs.push_back(other.outs_[k]);
    }
  }
  std::vector<InDim> ins;
  for (const auto& d : ins_) {
    InDim nd{d.name, {}};
    for (const auto& b : d.bases) {
      std::vector<int32_t> v(outs.size(), 0);
      std::copy(b.begin(), b.end(), v.begin());
      nd.bases.push_back(v);
    }
    ins.push_back(std::move(nd));
  }
  for (const auto& d : other.ins_) {
    auto it = std::find_if(ins.begin(), ins.end(), [&](const InDim& x) { return x.name == d.name; });
    if (it == ins.end()) {
      ins.push_back(InDim{d.name, {}});
      it = ins.end() - 1;
    }
    for (const auto& b : d.bases) {
      std::vector<int32_t> v(outs.size(), 0);
      for (size_t k = 0; k < b.size(); ++k) v[otherPos[k]] = int32_t(int64_t(b[k]) << otherShift[k]);
      it->bases.push_back(v);
    }
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

Expected<LinearLayout> LinearLayout::divideLeft(const LinearLayout& divisor) const {
  // Output dims of the quotient: ours, shrunk by the divisor's size where shared.
  std::vector<OutDim> qouts;
  std::vector<int> shiftOf(outs_.size(), 0);
  for (size_t k = 0; k < outs_.size(); ++k) {
    int32_t ds = divisor.outDimSize(outs_[k].name);
    if (outs_[k].size % ds != 0)
      return Error{fmt::format("output dim '{}' of size {} is not divisible by the divisor's {}", outs_[k].name,
                               outs_[k].size, ds)};
    shiftOf[k] = log2i(ds);
    qouts.push_back(OutDim{outs_[k].name, outs_[k].size / ds});
  }
  for (const auto& o : divisor.outs_)
    if (!hasOutDim(o.name)) return Error{fmt::format("divisor output dim '{}' is not in the layout", o.name)};
  std::vector<InDim> qins;
  for (const auto& d : ins_) {
    int di = divisor.inIndex(d.name);
    size_t skip = di < 0 ? 0 : divisor.ins_[di].bases.size();
    if (skip > d.bases.size())
      return Error{fmt::format("divisor input dim '{}' is larger than the layout's", d.name)};
    for (size_t b = 0; b < skip; ++b) {
      // The divisor's basis, placed in our out dims.
      std::vector<int32_t> expect(outs_.size(), 0);
      for (size_t k = 0; k < divisor.outs_.size(); ++k)
        expect[outIndex(divisor.outs_[k].name)] = divisor.ins_[di].bases[b][k];
      if (expect != d.bases[b])
        return Error{fmt::format("basis {} of '{}' differs from the divisor's", b, d.name)};
    }
    InDim q{d.name, {}};
    for (size_t b = skip; b < d.bases.size(); ++b) {
      std::vector<int32_t> v(outs_.size());
      for (size_t k = 0; k < outs_.size(); ++k) {
        int32_t c = d.bases[b][k];
        if (c & ((int32_t(1) << shiftOf[k]) - 1))
          return Error{fmt::format("basis {} of '{}' has low bits in '{}' that the divisor owns", b, d.name,
                                   outs_[k].name)};
        v[k] = c >> shiftOf[k];
      }
      q.bases.push_back(v);
    }
    qins.push_back(std::move(q));
  }
  for (const auto& d : divisor.ins_)
    if (!hasInDim(d.name) && !d.bases.empty())
      return Error{fmt::format("divisor input dim '{}' is not in the layout", d.name)};
  LinearLayout q(std::move(qins), std::move(qouts));
  // The construction above is exact only if the product reproduces the layout (dim order included).
  LinearLayout check = divisor * q;
  if (!check.sameMap(*this)) return Error{"layout is not the product of the divisor and a quotient"};
  return q;
}

Expected<LinearLayout> LinearLayout::quotient(const std::vector<std::string>& dims) const {
  for (const auto& name : dims) {
    int i = inIndex(name), o = outIndex(name);
    if (o < 0) return Error{fmt::format("quotient: no output dim '{}'", name)};
    int32_t inSize = i < 0 ? 1 : ins_[i].size();
    if (inSize != outs_[o].size)
      return Error{fmt::format("quotient: '{}' has input size {} but output size {}", name, inSize, outs_[o].size)};
    for (size_t d = 0; d < ins_.size(); ++d)
      for (size_t b = 0; b < ins_[d].bases.size(); ++b) {
        int32_t want = (int(d) == i) ? (int32_t(1) << b) : 0;
        if (ins_[d].bases[b][o] != want)
          return Error{fmt::format("quotient: '{}' is not the identity on '{}' (basis {} of '{}')", name, name, b,
                                   ins_[d].name)};
        if (int(d) == i)
          for (size_t k = 0; k < outs_.size(); ++k)
            if (int(k) != o && ins_[d].bases[b][k] != 0)
              return Error{fmt::format("quotient: input '{}' also moves output '{}'", name, outs_[k].name)};
      }
  }
  std::vector<std::string> keepIn, keepOut;
  for (const auto& d : ins_)
    if (std::find(dims.begin(), dims.end(), d.name) == dims.end()) keepIn.push_back(d.name);
  for (const auto& o : outs_)
    if (std::find(dims.begin(), dims.end(), o.name) == dims.end()) keepOut.push_back(o.name);
  return sublayout(keepIn, keepOut);
}

int LinearLayout::commonPrefix(const LinearLayout& a, const LinearLayout& b, std::string_view inDim) {
  if (a.outs_ != b.outs_) return 0;
  int ia = a.inIndex(inDim), ib = b.inIndex(inDim);
  if (ia < 0 || ib < 0) return 0;
  const auto& x = a.ins_[ia].bases;
  const auto& y = b.ins_[ib].bases;
  int n = 0;
  while (n < int(x.size()) && n < int(y.size()) && x[n] == y[n]) ++n;
  return n;
}

Expected<LinearLayout> LinearLayout::reshapeOuts(const std::vector<OutDim>& newOuts) const {
  int bits = 0;
  for (const auto& o : newOuts) {
    if (!isPow2(o.size)) return Error{fmt::format("reshape: size {} of '{}' is not a power of two", o.size, o.name)};
    bits += log2i(o.size);
  }
  if (bits != totalOutBits())
    return Error{fmt::format("reshape: {} elements cannot become {}", totalOutSize(), int64_t(1) << bits)};
  std::vector<InDim> ins = ins_;
  for (auto& d : ins)
    for (auto& b : d.bases) b.clear();
  return fromColumns(std::move(ins), newOuts, columns());
}

LinearLayout LinearLayout::flattenOuts(std::string name) const {
  return *reshapeOuts({OutDim{std::move(name), int32_t(totalOutSize())}});
}

Expected<LinearLayout> LinearLayout::reshapeIns(const std::vector<std::pair<std::string, int32_t>>& newIns) const {
  int bits = 0;
  for (const auto& [n, s] : newIns) {
    if (!isPow2(s)) return Error{fmt::format("reshape: size {} of '{}' is not a power of two", s, n)};
    bits += log2i(s);
  }
  if (bits != totalInBits())
    return Error{fmt::format("reshape: {} input indices cannot become {}", totalInSize(), int64_t(1) << bits)};
  std::vector<std::vector<int32_t>> all;
  for (const auto& d : ins_)
    for (const auto& b : d.bases) all.push_back(b);
  std::vector<InDim> ins;
  size_t next = 0;
  for (const auto& [n, s] : newIns) {
    InDim d{n, {}};
    for (int b = 0; b < log2i(s); ++b) d.bases.push_back(all[next++]);
    ins.push_back(std::move(d));
  }
  return make(std::move(ins), outs_);
}

LinearLayout LinearLayout::flattenIns(std::string name) const {
  return *reshapeIns({{std::move(name), int32_t(totalInSize())}});
}

Expected<LinearLayout> LinearLayout::transposeOuts(const std::vector<std::string>& order) const {
  if (order.size() != outs_.size()) return Error{"transpose: the order must name every output dim once"};
  std::vector<int> perm;
  for (const auto& n : order) {
    int i = outIndex(n);
    if (i < 0) return Error{fmt::format("transpose: no output dim '{}'", n)};
    if (std::find(perm.begin(), perm.end(), i) != perm.end())
      return Error{fmt::format("transpose: '{}' named twice", n)};
    perm.push_back(i);
  }
  std::vector<OutDim> outs;
  for (int i : perm) outs.push_back(outs_[i]);
  std::vector<InDim> ins = ins_;
  for (auto& d : ins)
    for (auto& b : d.bases) {
      std::vector<int32_t> v;
      for (int i : perm) v.push_back(b[i]);
      b = v;
    }
  return LinearLayout(std::move(ins), std::move(outs));
}

Expected<LinearLayout> LinearLayout::transposeIns(const std::vector<std::string>& order) const {
  if (order.size() != ins_.size()) return Error{"transpose: the order must name every input dim once"};
  std::vector<InDim> ins;
  for (const auto& n : order) {
    int i = inIndex(n);
    if (i < 0) return Error{fmt::format("transpose: no input dim '{}'", n)};
    ins.push_back(ins_[i]);
  }
  return make(std::move(ins), outs_);
}

Expected<LinearLayout> LinearLayout::transposeTensor() const {
  if (outs_.size() != 2) return Error{"tensor transpose needs a 2-D layout"};
  auto t = transposeOuts({outs_[1].name, outs_[0].name});
  if (!t) return t;
  std::string a = outs_[0].name, b = outs_[1].name;
  return t->renameOutDim(b, "\x01tmp").renameOutDim(a, b).renameOutDim("\x01tmp", a);
}

LinearLayout LinearLayout::renameInDim(std::string_view from, std::string to) const {
  LinearLayout r = *this;
  for (auto& d : r.ins_)
    if (d.name == from) d.name = to;
  return LinearLayout(r.ins_, r.outs_);
}

LinearLayout LinearLayout::renameOutDim(std::string_view from, std::string to) const {
  LinearLayout r = *this;
  for (auto& o : r.outs_)
    if (o.name == from) o.name = to;
  return LinearLayout(r.ins_, r.outs_);
}

LinearLayout LinearLayout::sublayout(const std::vector<std::string>& inNames,
                                     const std::vector<std::string>& outNames) const {
  std::vector<int> keepOut;
  std::vector<OutDim> outs;
  for (size_t k = 0; k < outs_.size(); ++k)
    if (std::find(outNames.begin(), outNames.end(), outs_[k].name) != outNames.end()) {
      keepOut.push_back(int(k));
      outs.push_back(outs_[k]);
    }
  std::vector<InDim> ins;
  for (const auto& d : ins_) {
    if (std::find(inNames.begin(), inNames.end(), d.name) == inNames.end()) continue;
    InDim nd{d.name, {}};
    for (const auto& b : d.bases) {
      std::vector<int32_t> v;
      for (int k : keepOut) v.push_back(b[k]);
      nd.bases.push_back(v);
    }
    ins.push_back(std::move(nd));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

Expected<LinearLayout> LinearLayout::restrictInDim(std::string_view name, int32_t size) const {
  int i = inIndex(name);
  if (i < 0) return Error{fmt::format("no input dim '{}'", name)};
  if (!isPow2(size) || size > ins_[i].size())
    return Error{fmt::format("cannot restrict '{}' of size {} to {}", name, ins_[i].size(), size)};
  std::vector<InDim> ins = ins_;
  ins[i].bases.resize(log2i(size));
  return LinearLayout(std::move(ins), outs_);
}

Expected<LinearLayout> LinearLayout::resizeOutDim(std::string_view name, int32_t size) const {
  int o = outIndex(name);
  if (o < 0) return Error{fmt::format("no output dim '{}'", name)};
  std::vector<OutDim> outs = outs_;
  outs[o].size = size;
  return make(ins_, std::move(outs));
}

Expected<LinearLayout> LinearLayout::appendBases(std::string_view inDim,
                                                 const std::vector<std::vector<int32_t>>& bases) const {
  std::vector<InDim> ins = ins_;
  int i = inIndex(inDim);
  if (i < 0) {
    ins.push_back(InDim{std::string(inDim), {}});
    i = int(ins.size()) - 1;
  }
  for (const auto& b : bases) ins[i].bases.push_back(b);
  return make(std::move(ins), outs_);
}

bool LinearLayout::sameMap(const LinearLayout& o) const {
  auto norm = [](const LinearLayout& l) {
    std::map<std::string, int32_t> outs;
    for (const auto& d : l.outs_)
      if (d.size > 1) outs[d.name] = d.size;
    std::map<std::string, std::vector<std::map<std::string, int32_t>>> ins;
    for (const auto& d : l.ins_) {
      if (d.bases.empty()) continue;
      auto& v = ins[d.name];
      for (const auto& b : d.bases) {
        std::map<std::string, int32_t> m;
        for (size_t k = 0; k < b.size(); ++k)
          if (l.outs_[k].size > 1) m[l.outs_[k].name] = b[k];
        v.push_back(m);
      }
    }
    return std::make_pair(outs, ins);
  };
  return norm(*this) == norm(o);
}

// ---------------------------------------------------------------- text

std::string LinearLayout::print() const {
  std::string s = "linear<{";
  for (size_t i = 0; i < ins_.size(); ++i) {
    if (i) s += ", ";
    s += ins_[i].name + "=[";
    for (size_t b = 0; b < ins_[i].bases.size(); ++b) {
      if (b) s += ",";
      s += "[";
      for (size_t k = 0; k < ins_[i].bases[b].size(); ++k) {
        if (k) s += ",";
        s += std::to_string(ins_[i].bases[b][k]);
      }
      s += "]";
    }
    s += "]";
  }
  s += "} -> {";
  for (size_t k = 0; k < outs_.size(); ++k) {
    if (k) s += ", ";
    s += outs_[k].name + "=" + std::to_string(outs_[k].size);
  }
  s += "}>";
  return s;
}

namespace {

class Lexer {
public:
  explicit Lexer(std::string_view t) : text_(t) {}
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(std::string_view tok) {
    skip();
    if (text_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skip();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  std::optional<std::string> ident() {
    skip();
    size_t b = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    if (b == pos_ || std::isdigit(static_cast<unsigned char>(text_[b]))) {
      pos_ = b;
      return std::nullopt;
    }
    return std::string(text_.substr(b, pos_ - b));
  }
  std::optional<int64_t> number() {
    skip();
    size_t b = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (b == pos_ || pos_ - b > 12) {
      pos_ = b;
      return std::nullopt;
    }
    return std::stoll(std::string(text_.substr(b, pos_ - b)));
  }
  bool atEnd() {
    skip();
    return pos_ == text_.size();
  }
  size_t pos() const { return pos_; }
  Error error(std::string_view what) const {
    return Error{fmt::format("malformed linear layout at offset {}: expected {}", pos_, what)};
  }

private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Expected<LinearLayout> LinearLayout::parse(std::string_view text) {
  Lexer lx(text);
  if (!lx.accept("linear") || !lx.accept("<") || !lx.accept("{")) return lx.error("'linear<{'");
  std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>> rawIns;
  if (!lx.accept("}")) {
    do {
      auto name = lx.ident();
      if (!name) return lx.error("an input dimension name");
      if (!lx.accept("=") || !lx.accept("[")) return lx.error("'=[' after the input dimension name");
      std::vector<std::vector<int64_t>> bases;
      if (!lx.accept("]")) {
        do {
          if (!lx.accept("[")) return lx.error("'[' opening a basis vector");
          std::vector<int64_t> v;
          if (!lx.accept("]")) {
            do {
              auto n = lx.number();
              if (!n) return lx.error("a non-negative coordinate");
              v.push_back(*n);
            } while (lx.accept(","));
            if (!lx.accept("]")) return lx.error("']' closing a basis vector");
          }
          bases.push_back(std::move(v));
        } while (lx.accept(","));
        if (!lx.accept("]")) return lx.error("']' closing the basis list");
      }
      rawIns.emplace_back(*name, std::move(bases));
    } while (lx.accept(","));
    if (!lx.accept("}")) return lx.error("'}' closing the input dimensions");
  }
  if (!lx.accept("->") || !lx.accept("{")) return lx.error("'-> {'");
  std::vector<OutDim> outs;
  if (!lx.accept("}")) {
    do {
      auto name = lx.ident();
      if (!name) return lx.error("an output dimension name");
      if (!lx.accept("=")) return lx.error("'=' after the output dimension name");
      auto n = lx.number();
      if (!n || *n > (int64_t(1) << 30)) return lx.error("an output dimension size");
      outs.push_back(OutDim{*name, int32_t(*n)});
    } while (lx.accept(","));
    if (!lx.accept("}")) return lx.error("'}' closing the output dimensions");
  }
  if (!lx.accept(">")) return lx.error("'>'");
  if (!lx.atEnd()) return lx.error("end of text");
  std::vector<InDim> ins;
  for (auto& [name, bases] : rawIns) {
    InDim d{name, {}};
    for (auto& b : bases) {
      std::vector<int32_t> v;
      for (int64_t c : b) {
        if (c > (int64_t(1) << 30)) return Error{fmt::format("coordinate {} is too large", c)};
        v.push_back(int32_t(c));
      }
      d.bases.push_back(std::move(v));
    }
    ins.push_back(std::move(d));
  }
  return make(std::move(ins), std::move(outs));
}

std::string LinearLayout::describe() const {
  std::string s;
  for (const auto& d : ins_) {
    if (d.bases.empty()) {
      s += fmt::format(" - {} is a size 1 dimension\n", d.name);
      continue;
    }
    for (size_t b = 0; b < d.bases.size(); ++b) {
      s += b == 0 ? " - " : "   ";
      s += fmt::format("{}={} -> (", d.name, int64_t(1) << b);
      for (size_t k = 0; k < d.bases[b].size(); ++k) s += (k ? ", " : "") + std::to_string(d.bases[b][k]);
      s += ")\n";
    }
  }
  s += "where out dims are: [";
  for (size_t k = 0; k < outs_.size(); ++k)
    s += fmt::format("{}{} (size {})", k ? ", " : "", outs_[k].name, outs_[k].size);
  s += "]\n";
  return s;
}

}  // namespace xtc::layout
