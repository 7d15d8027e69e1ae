// Linear layouts: maps from the bits of named hardware indices (register, lane, subgroup, offset,
// iteration, load, addr, ...) to named tensor coordinates (dim0, dim1, addr, ...), where every input bit
// contributes one basis vector and the contributions combine by xor (linear algebra over GF(2)).
// Sizes are powers of two. Layouts may be non-injective (replicated data: zero or repeated bases) and
// non-surjective (the output space is larger than the image). Every operation works on basis vectors;
// nothing here enumerates the tensor except the explicit enumeration helpers used for printing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xtc::layout {

// A failure with a human-readable reason (the driver prints it as `xtc: error: <message>`).
struct Error {
  std::string message;
};

// Value-or-error; g++ 12 has no std::expected.
template <class T>
class Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Error error) : error_(std::move(error.message)) {}
  explicit operator bool() const { return value_.has_value(); }
  bool ok() const { return value_.has_value(); }
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }
  const T& value() const { return *value_; }
  const std::string& error() const { return error_; }

private:
  std::optional<T> value_;
  std::string error_;
};

// An output (tensor) dimension: a name and a power-of-two size.
struct OutDim {
  std::string name;
  int32_t size = 1;
  bool operator==(const OutDim&) const = default;
};

// An input (hardware) dimension: a name and one basis vector per bit; its size is 2^bases.size().
// Each basis vector has one coordinate per output dimension, in the layout's output order.
struct InDim {
  std::string name;
  std::vector<std::vector<int32_t>> bases;
  int32_t size() const { return int32_t(1) << bases.size(); }
  bool operator==(const InDim&) const = default;
};

// A tuple of named values: an input index (e.g. {register=3, lane=5}) or a tensor coordinate.
using NamedIndex = std::vector<std::pair<std::string, int32_t>>;

class LinearLayout {
public:
  // The empty layout (no inputs, no outputs): the unit of `product`.
  LinearLayout() = default;
  // Builds and validates; throws std::invalid_argument on malformed input (non-power-of-two size,
  // a coordinate out of range, wrong basis length, duplicate names, more than 62 bits in or out).
  LinearLayout(std::vector<InDim> ins, std::vector<OutDim> outs);
  // Same validation, reported as an Error instead of an exception.
  static Expected<LinearLayout> make(std::vector<InDim> ins, std::vector<OutDim> outs);

  // `in` index i maps to `out` coordinate i (size must be a power of two).
  static LinearLayout identity1D(int32_t size, std::string in, std::string out);
  // Every `in` index maps to coordinate 0 of `out` (size `outSize`): broadcast/replication.
  static LinearLayout zeros1D(int32_t size, std::string in, std::string out, int32_t outSize = 1);
  // `in` index i maps to coordinate i*stride of `out` (stride and outSize powers of two).
  static LinearLayout strided1D(int32_t size, int32_t stride, std::string in, std::string out,
                                int32_t outSize);

  // ---- shape queries ----
  const std::vector<InDim>& inDims() const { return ins_; }
  const std::vector<OutDim>& outDims() const { return outs_; }
  bool hasInDim(std::string_view name) const;
  bool hasOutDim(std::string_view name) const;
  int32_t inDimSize(std::string_view name) const;   // 1 when absent
  int32_t outDimSize(std::string_view name) const;  // 1 when absent
  int inDimBits(std::string_view name) const;
  int outDimBits(std::string_view name) const;
  int totalInBits() const;
  int totalOutBits() const;
  int64_t totalInSize() const { return int64_t(1) << totalInBits(); }
  int64_t totalOutSize() const { return int64_t(1) << totalOutBits(); }
  const std::vector<int32_t>& basis(std::string_view inDim, int bit) const;

  // ---- evaluation ----
  // Input index → output coordinates (all output dims, in order). Missing inputs count as 0.
  NamedIndex apply(const NamedIndex& in) const;
  // Same with positional values (one per input dim, in order) → positional coordinates.
  std::vector<int32_t> apply(const std::vector<int32_t>& in) const;

  // The set of all input indices mapping to `coords` (positional, one per out dim): one particular
  // solution plus a kernel basis (the index set is particular ^ span(kernel)); nullopt when the element
  // is not in the image. Computed by elimination over GF(2); the tensor is never enumerated.
  struct Owners {
    std::vector<int32_t> particular;           // one value per input dim
    std::vector<std::vector<int32_t>> kernel;  // each: one value per input dim
    int64_t count() const { return int64_t(1) << kernel.size(); }
  };
  std::optional<Owners> owners(const std::vector<int32_t>& coords) const;
  // Every owner of `coords` (positional input indices), at most `limit` of them, in increasing order
  // of the flattened input index (first input dim least significant).
  std::vector<std::vector<int32_t>> allOwners(const std::vector<int32_t>& coords,
                                              int64_t limit = 1 << 20) const;

  // ---- structure ----
  int rank() const;
  bool isInjective() const { return rank() == totalInBits(); }
  bool isSurjective() const { return rank() == totalOutBits(); }
  bool isBijective() const { return isInjective() && isSurjective(); }
  // Kernel of the map: the input index vectors that map to 0 (a basis, positional per in dim).
  std::vector<std::vector<int32_t>> kernel() const;
  // How many input indices own each element of the image (2^(inBits - rank)).
  int64_t replication() const { return int64_t(1) << (totalInBits() - rank()); }

  // ---- algebra ----
  // x ↦ next(this(x)): this layout's out dims must be next's in dims (same names, same order) and
  // each out size must not exceed the matching in size.
  Expected<LinearLayout> then(const LinearLayout& next) const;
  // Exact inverse of a bijection (out dims become in dims and vice versa).
  Expected<LinearLayout> invert() const;
  // G with G∘F = id; exists iff F is injective. On the complement of F's image G maps to 0.
  Expected<LinearLayout> leftInverse() const;
  // G with F∘G = id; exists iff F is surjective. Picks, per output, the owner built from the earliest
  // input bits (register before lane before subgroup when listed in that order).
  Expected<LinearLayout> rightInverse() const;
  // A generalised inverse that always exists: F∘G∘F = F; it is a left inverse when F is injective
  // and a right inverse when F is surjective.
  LinearLayout pseudoInverse() const;

  // Product: in dims and out dims are concatenated; a dim present in both gets `other`'s bases after
  // this one's, and a shared out dim grows (`other`'s coordinates land in the high bits).
  LinearLayout operator*(const LinearLayout& other) const;
  // C with *this == divisor * C, or an error naming the first mismatch.
  Expected<LinearLayout> divideLeft(const LinearLayout& divisor) const;
  // For a layout whose in and out dims share names (e.g. a register/lane/subgroup → register/lane/
  // subgroup conversion map): succeeds when it is the identity on `dims` and the other inputs do not
  // touch `dims`; returns the layout with those dims removed from both sides.
  Expected<LinearLayout> quotient(const std::vector<std::string>& dims) const;
  // Number of leading bases of `inDim` that `a` and `b` share (same out dims required).
  static int commonPrefix(const LinearLayout& a, const LinearLayout& b, std::string_view inDim);

  // Regroups the output bits into new dims with row-major semantics (the last dim is the fastest):
  // reshapeOuts({{"x", 256}}) flattens a 16x16 tensor as i*16+j. Total size must be preserved.
  Expected<LinearLayout> reshapeOuts(const std::vector<OutDim>& newOuts) const;
  LinearLayout flattenOuts(std::string name = "flat") const;
  // Regroups the input bits into new dims, the first dim being least significant
  // (e.g. {offset=128} ↦ {lane=16, register=8} gives offset = lane + 16*register).
  Expected<LinearLayout> reshapeIns(const std::vector<std::pair<std::string, int32_t>>& newIns) const;
  LinearLayout flattenIns(std::string name = "flat") const;
  // Reorders the output dims (names kept): transposeOuts({"dim1","dim0"}).
  Expected<LinearLayout> transposeOuts(const std::vector<std::string>& order) const;
  // Reorders the input dims (names kept).
  Expected<LinearLayout> transposeIns(const std::vector<std::string>& order) const;
  // Tensor transpose of a 2-D layout: the element (i, j) of the result is (j, i) of the source;
  // out dims stay named dim0, dim1.
  Expected<LinearLayout> transposeTensor() const;
  LinearLayout renameInDim(std::string_view from, std::string to) const;
  LinearLayout renameOutDim(std::string_view from, std::string to) const;
  // Keeps only the listed in and out dims (original order); dropped out dims lose their coordinates.
  LinearLayout sublayout(const std::vector<std::string>& inNames,
                         const std::vector<std::string>& outNames) const;
  // Restricts an input dim to its first `size` indices (a sub-dimension).
  Expected<LinearLayout> restrictInDim(std::string_view name, int32_t size) const;
  // Changes an output dim's size (growing makes the layout non-surjective).
  Expected<LinearLayout> resizeOutDim(std::string_view name, int32_t size) const;
  // Adds or extends an input dim with extra bases (each given per out dim, out dims in order).
  Expected<LinearLayout> appendBases(std::string_view inDim,
                                     const std::vector<std::vector<int32_t>>& bases) const;
  // Same input and output dims in the same order, same bases.
  bool operator==(const LinearLayout& o) const { return ins_ == o.ins_ && outs_ == o.outs_; }
  bool operator!=(const LinearLayout& o) const { return !(*this == o); }
  // Same map, ignoring the order of dims and input dims of size 1 / output dims of size 1.
  bool sameMap(const LinearLayout& o) const;

  // ---- text ----
  // Compact attribute form: linear<{register=[[0,1],[0,2]], lane=[[1,0],[2,0]]} -> {dim0=16, dim1=16}>
  std::string print() const;
  static Expected<LinearLayout> parse(std::string_view text);
  // Multi-line listing in the style of seed 000 ("- offset=1 -> (0, 1)").
  std::string describe() const;

  // ---- flat bit-level access (for planners; bit i of the input is the i-th basis in dim order) ----
  // Output coordinates are packed row-major: the last out dim occupies the lowest bits.
  uint64_t column(int inBit) const;
  std::vector<uint64_t> columns() const;
  uint64_t applyFlat(uint64_t inBits) const;
  uint64_t packOut(const std::vector<int32_t>& coords) const;
  std::vector<int32_t> unpackOut(uint64_t flat) const;
  uint64_t packIn(const std::vector<int32_t>& index) const;
  std::vector<int32_t> unpackIn(uint64_t flat) const;
  int inBitOffset(std::string_view inDim) const;  // first flat bit of an input dim (-1 if absent)

private:
  std::vector<InDim> ins_;
  std::vector<OutDim> outs_;
  static std::optional<std::string> validate(const std::vector<InDim>& ins,
                                             const std::vector<OutDim>& outs);
  int outIndex(std::string_view name) const;
  int inIndex(std::string_view name) const;
  LinearLayout fromColumns(std::vector<InDim> ins, std::vector<OutDim> outs,
                           const std::vector<uint64_t>& cols) const;
};

// ---- GF(2) helpers shared by the planners ----
// Incremental row-echelon basis of bit vectors with, for each stored row, the combination of inserted
// vectors (by insertion index, < 64) that produced it; solves v = xor of inserted vectors.
class Gf2Basis {
public:
  // Inserts v (insertion index = number of earlier insertions). Returns false when v is already in
  // the span; its dependency (combination mask including itself) is then recorded in kernel().
  bool insert(uint64_t v);
  // A combination mask of inserted vectors whose xor is `target`, or nullopt if not in the span.
  std::optional<uint64_t> solve(uint64_t target) const;
  bool contains(uint64_t v) const { return solve(v).has_value(); }
  int rank() const { return int(rows_.size()); }
  int inserted() const { return count_; }
  const std::vector<uint64_t>& kernel() const { return kernel_; }

private:
  struct Row {
    uint64_t vec;
    uint64_t combo;
  };
  std::vector<Row> rows_;  // sorted by pivot (highest set bit), descending
  std::vector<uint64_t> kernel_;
  int count_ = 0;
};

int gf2Rank(const std::vector<uint64_t>& vectors);

}  // namespace xtc::layout
