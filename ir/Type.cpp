// Type storage, factories, structural equality and printing.
#include "ir/Type.h"

#include "ir/Attribute.h"

#include <cassert>
#include <stdexcept>

namespace xtc::ir {

struct Type::Storage {
  TypeKind kind = TypeKind::Scalar;
  ElemKind elem = ElemKind::I32;
  std::vector<int64_t> shape;
  MemSpace space = MemSpace::Global;
  std::vector<int64_t> strides;
  TileInfo tile;
  std::shared_ptr<const Attribute> vlayout;
};

namespace {
const char* kElemNames[] = {"i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "tf32", "index"};

bool attrPtrEq(const std::shared_ptr<const Attribute>& a, const std::shared_ptr<const Attribute>& b) {
  if (!a || !b) return !a && !b;
  return *a == *b;
}
}  // namespace

std::string_view elemName(ElemKind k) { return kElemNames[static_cast<int>(k)]; }

std::optional<ElemKind> parseElemKind(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(ElemKind::Index); ++i)
    if (s == kElemNames[i]) return static_cast<ElemKind>(i);
  return std::nullopt;
}

unsigned elemBits(ElemKind k) {
  switch (k) {
    case ElemKind::I1: return 1;
    case ElemKind::I8: return 8;
    case ElemKind::I16: case ElemKind::F16: case ElemKind::BF16: return 16;
    case ElemKind::I32: case ElemKind::F32: case ElemKind::TF32: return 32;
    case ElemKind::I64: case ElemKind::F64: case ElemKind::Index: return 64;
  }
  return 0;
}

bool isFloatElem(ElemKind k) {
  return k == ElemKind::F16 || k == ElemKind::BF16 || k == ElemKind::F32 || k == ElemKind::F64 || k == ElemKind::TF32;
}
bool isIntElem(ElemKind k) { return !isFloatElem(k); }

Type::Type() : s_(std::make_shared<Storage>()) {}

Type Type::scalar(ElemKind k) {
  auto s = std::make_shared<Storage>();
  s->elem = k;
  return Type(std::move(s));
}

Type Type::memref(std::vector<int64_t> shape, ElemKind elem, MemSpace space, std::vector<int64_t> strides) {
  auto s = std::make_shared<Storage>();
  s->kind = TypeKind::MemRef;
  s->elem = elem;
  s->shape = std::move(shape);
  s->space = space;
  s->strides = std::move(strides);
  return Type(std::move(s));
}

Type Type::tile(std::vector<int64_t> shape, ElemKind elem, TileInfo info) {
  auto s = std::make_shared<Storage>();
  s->kind = TypeKind::Tile;
  s->elem = elem;
  s->shape = std::move(shape);
  s->tile = std::move(info);
  return Type(std::move(s));
}

Type Type::vector(std::vector<int64_t> shape, ElemKind elem, std::shared_ptr<const Attribute> layout) {
  auto s = std::make_shared<Storage>();
  s->kind = TypeKind::Vector;
  s->elem = elem;
  s->shape = std::move(shape);
  s->vlayout = std::move(layout);
  return Type(std::move(s));
}

TypeKind Type::kind() const { return s_->kind; }
ElemKind Type::elem() const { return s_->elem; }
const std::vector<int64_t>& Type::shape() const { return s_->shape; }

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : s_->shape) {
    if (d == kDynamic) return kDynamic;
    n *= d;
  }
  return n;
}

bool Type::hasStaticShape() const { return numElements() != kDynamic; }
MemSpace Type::memSpace() const { return s_->kind == TypeKind::Tile ? s_->tile.space : s_->space; }
const std::vector<int64_t>& Type::strides() const { return s_->strides; }
const TileInfo& Type::tileInfo() const { return s_->tile; }
const std::shared_ptr<const Attribute>& Type::vectorLayout() const { return s_->vlayout; }

Type Type::withShape(std::vector<int64_t> shape) const {
  auto s = std::make_shared<Storage>(*s_);
  s->shape = std::move(shape);
  return Type(std::move(s));
}
Type Type::withElem(ElemKind k) const {
  auto s = std::make_shared<Storage>(*s_);
  s->elem = k;
  return Type(std::move(s));
}
Type Type::withVectorLayout(std::shared_ptr<const Attribute> layout) const {
  auto s = std::make_shared<Storage>(*s_);
  s->vlayout = std::move(layout);
  return Type(std::move(s));
}
Type Type::withTileInfo(TileInfo info) const {
  auto s = std::make_shared<Storage>(*s_);
  s->tile = std::move(info);
  return Type(std::move(s));
}

bool Type::operator==(const Type& o) const {
  if (s_ == o.s_) return true;
  const Storage& a = *s_;
  const Storage& b = *o.s_;
  if (a.kind != b.kind || a.elem != b.elem || a.shape != b.shape) return false;
  switch (a.kind) {
    case TypeKind::Scalar: return true;
    case TypeKind::MemRef: return a.space == b.space && a.strides == b.strides;
    case TypeKind::Tile:
      return a.tile.order == b.tile.order && attrPtrEq(a.tile.wgMap, b.tile.wgMap) &&
             attrPtrEq(a.tile.layout, b.tile.layout) && a.tile.space == b.tile.space &&
             a.tile.scattered == b.tile.scattered && a.tile.innerBlocks == b.tile.innerBlocks;
    case TypeKind::Vector: return attrPtrEq(a.vlayout, b.vlayout);
  }
  return false;
}

std::string shapeStr(const std::vector<int64_t>& shape) {
  std::string r;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) r += 'x';
    r += shape[i] == kDynamic ? std::string("?") : std::to_string(shape[i]);
  }
  return r;
}

static std::string intList(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) r += ", ";
    r += v[i] == kDynamic ? std::string("?") : std::to_string(v[i]);
  }
  return r + "]";
}

std::string Type::str() const {
  const Storage& s = *s_;
  std::string e(elemName(s.elem));
  auto prefix = [&](const char* kw) {
    std::string r = std::string(kw) + "<";
    if (!s.shape.empty()) r += shapeStr(s.shape) + "x";
    return r + e;
  };
  switch (s.kind) {
    case TypeKind::Scalar: return e;
    case TypeKind::MemRef: {
      std::string r = prefix("memref");
      if (!s.strides.empty()) r += ", strides = " + intList(s.strides);
      if (s.space == MemSpace::Slm) r += ", slm";
      return r + ">";
    }
    case TypeKind::Tile: {
      std::string r = prefix("tile");
      if (s.tile.wgMap) r += ", " + s.tile.wgMap->str();
      if (!s.tile.order.empty()) r += ", order = " + intList(s.tile.order);
      if (s.tile.layout) r += ", layout = " + s.tile.layout->str();
      if (!s.tile.innerBlocks.empty()) r += ", inner_blocks = " + intList(s.tile.innerBlocks);
      if (s.tile.space == MemSpace::Slm) r += ", slm";
      if (s.tile.scattered) r += ", scattered";
      return r + ">";
    }
    case TypeKind::Vector: {
      std::string r = prefix("vector");
      if (s.vlayout) r += ", " + s.vlayout->str();
      return r + ">";
    }
  }
  return "?";
}

std::vector<int64_t> denseStrides(const std::vector<int64_t>& shape, const std::vector<int64_t>& order) {
  std::vector<int64_t> st(shape.size(), 1);
  int64_t acc = 1;
  for (size_t i = order.size(); i-- > 0;) {
    auto d = static_cast<size_t>(order[i]);
    st[d] = acc;
    acc = acc == kDynamic || shape[d] == kDynamic ? kDynamic : acc * shape[d];
  }
  return st;
}

std::optional<std::vector<int64_t>> denseMemRefOrder(const Type& m) {
  const std::vector<int64_t>& s = m.strides();
  const auto r = static_cast<size_t>(m.rank());
  std::vector<int64_t> order;
  for (size_t d = 0; d < r; ++d) order.push_back(static_cast<int64_t>(d));
  if (s.empty()) return order;
  if (s.size() != r || r == 0) return std::nullopt;
  // The fastest dimension is the one with a written stride of 1: the last (row-major) or, on a
  // matrix, the one before it (column-major). A `?` there says nothing, so the other must be 1.
  if (s[r - 1] != 1) {
    if (r < 2 || s[r - 2] != 1) return std::nullopt;
    std::swap(order[r - 2], order[r - 1]);
  }
  std::vector<int64_t> dense = denseStrides(m.shape(), order);
  for (size_t d = 0; d < r; ++d)
    if (s[d] != kDynamic && s[d] != dense[d]) return std::nullopt;
  return order;
}

}  // namespace xtc::ir
