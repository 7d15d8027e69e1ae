// Types of the tile IR: scalars (including `index`), memrefs, tiles and vectors.
// A Type is an immutable value with structural equality; copies share storage.
// Text forms (printed by str(), parsed by ir/Parser):
//   i1 i8 i16 i32 i64 f16 bf16 f32 f64 tf32 index
//   memref<?x128xbf16>   memref<64x64xf32, slm>   memref<?x?xf16, strides=[?, 1]>
//   tile<256x32xbf16, wg_map<sg_layout = [8, 4], sg_data = [32, 32]>, order = [0, 1]>
//   vector<32x64xf32>    vector<8x16xf32, #layout-attribute>
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xtc::ir {

class Attribute;

enum class ElemKind : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64, TF32, Index };

std::string_view elemName(ElemKind k);
std::optional<ElemKind> parseElemKind(std::string_view s);
// Storage size in bits (index is 64; i1 is 8 when stored in memory, 1 here).
unsigned elemBits(ElemKind k);
bool isFloatElem(ElemKind k);  // f16 bf16 f32 f64 tf32
bool isIntElem(ElemKind k);    // i1..i64 and index

enum class MemSpace : uint8_t { Global, Slm };

// A dynamic dimension or stride (`?`).
inline constexpr int64_t kDynamic = -1;

enum class TypeKind : uint8_t { Scalar, MemRef, Tile, Vector };

// Attributes a tile type carries (XeTile's tile_attr, plus what later passes add).
struct TileInfo {
  std::vector<int64_t> order;          // empty = default row-major [1, 0]
  std::shared_ptr<const Attribute> wgMap;   // workgroup-level distribution, or null
  std::shared_ptr<const Attribute> layout;  // lane layout after layout assignment, or null
  MemSpace space = MemSpace::Global;
  bool scattered = false;              // created from per-element offsets (load_gather/store_scatter)
  std::vector<int64_t> innerBlocks;    // after blocking: the hardware block shape, else empty
};

class Type {
public:
  Type();  // i32 scalar; prefer the factories

  static Type scalar(ElemKind k);
  static Type index() { return scalar(ElemKind::Index); }
  static Type memref(std::vector<int64_t> shape, ElemKind elem, MemSpace space = MemSpace::Global,
                     std::vector<int64_t> strides = {});
  static Type tile(std::vector<int64_t> shape, ElemKind elem, TileInfo info = {});
  static Type vector(std::vector<int64_t> shape, ElemKind elem, std::shared_ptr<const Attribute> layout = nullptr);

  TypeKind kind() const;
  bool isScalar() const { return kind() == TypeKind::Scalar; }
  bool isIndex() const { return isScalar() && elem() == ElemKind::Index; }
  bool isMemRef() const { return kind() == TypeKind::MemRef; }
  bool isTile() const { return kind() == TypeKind::Tile; }
  bool isVector() const { return kind() == TypeKind::Vector; }
  bool isShaped() const { return !isScalar(); }

  ElemKind elem() const;
  const std::vector<int64_t>& shape() const;    // empty for scalars
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  int64_t numElements() const;                  // kDynamic if any dim is dynamic; 1 for scalars
  bool hasStaticShape() const;

  // memref only
  MemSpace memSpace() const;                    // tiles: their info().space
  const std::vector<int64_t>& strides() const;  // empty = contiguous row-major
  // tile only
  const TileInfo& tileInfo() const;
  // vector only (null when none)
  const std::shared_ptr<const Attribute>& vectorLayout() const;

  // Same type with another shape / element / layout (keeps everything else).
  Type withShape(std::vector<int64_t> shape) const;
  Type withElem(ElemKind k) const;
  Type withVectorLayout(std::shared_ptr<const Attribute> layout) const;
  Type withTileInfo(TileInfo info) const;

  std::string str() const;
  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }

  struct Storage;
private:
  explicit Type(std::shared_ptr<const Storage> s) : s_(std::move(s)) {}
  std::shared_ptr<const Storage> s_;
};

// "256x32" for a shape (with `?` for dynamic dims).
std::string shapeStr(const std::vector<int64_t>& shape);

// The dimensions of a global memref from slowest to fastest when its strides describe a dense array:
// the identity for row-major (no strides, or the dense ones), the innermost two swapped for
// column-major (`strides = [1, N]` on a matrix: the stride-1 dimension is r-2). A `?` stride is the
// dense one (it is not passed at run time: docs/abi.md); a static stride must equal the dense one,
// which therefore must be computable (every faster dimension static). nullopt for anything else
// (padded leading dimensions, [?, ?], [?, 2]): xtc has no non-dense memref parameters.
std::optional<std::vector<int64_t>> denseMemRefOrder(const Type& memref);
// The dense strides of `shape` laid out in `order` (slowest to fastest); kDynamic where a faster
// dimension is dynamic.
std::vector<int64_t> denseStrides(const std::vector<int64_t>& shape, const std::vector<int64_t>& order);

}  // namespace xtc::ir
