// tile.* — the XeTile ops (shared/seeds/001 RFC). Shapes follow the RFC: load/store values have the
// tile's shape and element type; tile_mma is C[MxN] = A[MxK] * B[KxN] (+ C); reduction and broadcast
// change only the dims they name, by reduction_size / broadcast_size when given.
#include "ir/ops/OpHelpers.h"

#include <algorithm>
#include <set>

namespace xtc::ir::ops {

namespace {

std::string isTile(const Value* v, const char* what) {
  XTC_REQUIRE(v->type().isTile(), std::string(what) + " must be a tile, got " + q(v->type()));
  return {};
}
std::string isVector(const Value* v, const char* what) {
  XTC_REQUIRE(v->type().isVector(), std::string(what) + " must be a vector, got " + q(v->type()));
  return {};
}
// A vector holding one element per element of `tile`.
std::string matchesTile(const Type& vec, const Type& tile, const std::string& what) {
  XTC_REQUIRE(vec.shape() == tile.shape() && vec.elem() == tile.elem(),
              what + " " + q(vec) + " must have the shape and element type of the tile " + q(tile));
  return {};
}

std::string verifyInitTile(const Operation& op) {
  XTC_CHECK(numOperandsAtLeast(op, 1));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isTile(op.result(), "result"));
  const Type& src = op.operand(0)->type();
  const Type& tile = op.result()->type();
  unsigned rest = op.numOperands() - 1;
  std::vector<int64_t> seg{static_cast<int64_t>(rest), 0, 0};
  bool hasSeg = false;
  XTC_CHECK(intArrayAttr(op, "segments", false, &seg, &hasSeg));
  XTC_REQUIRE(seg.size() == 3, "'segments' must be [offsets, shape, strides]");
  for (int64_t s : seg) XTC_REQUIRE(s >= 0, "'segments' entries must be non-negative");
  XTC_REQUIRE(seg[0] + seg[1] + seg[2] == static_cast<int64_t>(rest),
              "'segments' adds up to " + std::to_string(seg[0] + seg[1] + seg[2]) + " operands but the op has " +
                  std::to_string(rest) + " after the source");
  XTC_REQUIRE(tile.hasStaticShape() && tile.rank() >= 1, "tile must have a static shape, got " + q(tile));
  if (tile.tileInfo().scattered) {
    XTC_REQUIRE(src.isMemRef() && src.rank() == 1, "a scattered tile needs a 1-D memref source, got " + q(src));
    XTC_REQUIRE(seg[0] == 1 && seg[1] == 0 && seg[2] == 0, "a scattered tile takes exactly one offsets vector");
    const Type& offs = op.operand(1)->type();
    XTC_REQUIRE(offs.isVector() && offs.elem() == ElemKind::Index && offs.shape() == tile.shape(),
                "offsets of a scattered tile must be a vector of 'index' with the tile's shape, got " + q(offs));
    XTC_REQUIRE(src.elem() == tile.elem(), "tile element type must match the memref " + q(src));
    return {};
  }
  for (unsigned i = 1; i < op.numOperands(); ++i)
    XTC_REQUIRE(op.operand(i)->type().isIndex(), "offsets, shape and strides must be 'index', operand #" + std::to_string(i) +
                                                     " is " + q(op.operand(i)->type()));
  XTC_REQUIRE(seg[1] == seg[2], "shape and strides must have the same number of operands");
  if (src.isMemRef()) {
    XTC_REQUIRE(seg[0] == src.rank(), "needs one offset per memref dimension: " + std::to_string(src.rank()) + " for " +
                                          q(src) + ", got " + std::to_string(seg[0]));
    XTC_REQUIRE(seg[1] == 0 || seg[1] == src.rank(), "shape/strides operands must give every memref dimension");
    XTC_REQUIRE(tile.rank() <= src.rank(), "tile rank exceeds the memref rank");
    XTC_REQUIRE(src.elem() == tile.elem(), "tile element type must match the memref " + q(src) + ", got " + q(tile));
    XTC_REQUIRE(src.memSpace() == tile.memSpace(), "tile and memref must be in the same memory space");
  } else {
    XTC_REQUIRE(src == Type::scalar(ElemKind::I64), "source must be a memref or an 'i64' address, got " + q(src));
    XTC_REQUIRE(seg[0] >= 1 && seg[1] == seg[0], "an address source needs offsets, shape and strides of equal count");
  }
  const auto& order = tile.tileInfo().order;
  if (!order.empty()) {
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      XTC_REQUIRE(sorted[i] == static_cast<int64_t>(i) && static_cast<int64_t>(order.size()) == tile.rank(),
                  "tile 'order' must be a permutation of the tile's dimensions");
  }
  return {};
}

std::string verifyLoadTile(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isTile(op.operand(0), "operand"));
  XTC_CHECK(isVector(op.result(), "result"));
  XTC_REQUIRE(!op.operand(0)->type().tileInfo().scattered, "a scattered tile is read with 'tile.load_gather'");
  XTC_CHECK(matchesTile(op.result()->type(), op.operand(0)->type(), "result"));
  if (const Attribute* p = op.attr("padding"))
    XTC_REQUIRE(p->kind() == AttrKind::Float || p->kind() == AttrKind::Int, "'padding' must be a number");
  return {};
}

std::string verifyStoreTile(const Operation& op) {
  XTC_CHECK(numOperands(op, 2));
  XTC_CHECK(numResults(op, 0));
  XTC_CHECK(isVector(op.operand(0), "value"));
  XTC_CHECK(isTile(op.operand(1), "second operand"));
  XTC_REQUIRE(!op.operand(1)->type().tileInfo().scattered, "a scattered tile is written with 'tile.store_scatter'");
  return matchesTile(op.operand(0)->type(), op.operand(1)->type(), "value");
}

std::string verifyPrefetch(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 0));
  XTC_CHECK(isTile(op.operand(0), "operand"));
  if (const Attribute* l = op.attr("locality")) {
    if (l->kind() == AttrKind::Int) XTC_REQUIRE(l->getInt() >= 0 && l->getInt() <= 3, "'locality' must be 0..3");
    else XTC_REQUIRE(l->kind() == AttrKind::Enum && l->enumName() == "locality", "'locality' must be 0..3");
  }
  return {};
}

std::string verifyUpdateOffset(const Operation& op) {
  XTC_CHECK(numOperandsAtLeast(op, 1));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isTile(op.operand(0), "first operand"));
  const Type& tile = op.operand(0)->type();
  XTC_REQUIRE(op.result()->type() == tile, "result type " + q(op.result()->type()) + " must be the tile type " + q(tile));
  if (tile.tileInfo().scattered) {
    XTC_REQUIRE(op.numOperands() == 2, "a scattered tile is moved by one offsets vector");
    const Type& o = op.operand(1)->type();
    XTC_REQUIRE(o.isVector() && o.elem() == ElemKind::Index && o.shape() == tile.shape(),
                "offsets must be a vector of 'index' with the tile's shape, got " + q(o));
    return {};
  }
  XTC_REQUIRE(op.numOperands() == 1 + tile.rank(), "needs one offset per tile dimension (" + std::to_string(tile.rank()) +
                                                       "), got " + std::to_string(op.numOperands() - 1));
  for (unsigned i = 1; i < op.numOperands(); ++i)
    XTC_REQUIRE(op.operand(i)->type().isIndex(), "offsets must be 'index', got " + q(op.operand(i)->type()));
  return {};
}

std::string verifyMma(const Operation& op) {
  XTC_REQUIRE(op.numOperands() == 2 || op.numOperands() == 3, "expects 2 or 3 operands (a, b[, c]), got " + std::to_string(op.numOperands()));
  XTC_CHECK(numResults(op, 1));
  for (unsigned i = 0; i < op.numOperands(); ++i) XTC_CHECK(isVector(op.operand(i), "operands"));
  XTC_CHECK(isVector(op.result(), "result"));
  const Type& a = op.operand(0)->type();
  const Type& b = op.operand(1)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(a.rank() == 2 && b.rank() == 2 && r.rank() == 2, "operands and result must be 2-D");
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  XTC_REQUIRE(b.shape()[0] == k, "A is " + shapeStr(a.shape()) + " so B must have " + std::to_string(k) + " rows, got " + shapeStr(b.shape()));
  XTC_REQUIRE(r.shape() == std::vector<int64_t>({m, n}),
              "result must be " + std::to_string(m) + "x" + std::to_string(n) + ", got " + shapeStr(r.shape()));
  XTC_REQUIRE(a.elem() == b.elem(), "A and B must have the same element type, got " + q(a) + " and " + q(b));
  ElemKind in = a.elem(), acc = r.elem();
  bool legal = ((in == ElemKind::BF16 || in == ElemKind::F16 || in == ElemKind::TF32 || in == ElemKind::F32) && acc == ElemKind::F32) ||
               (in == ElemKind::I8 && acc == ElemKind::I32);
  XTC_REQUIRE(legal, "unsupported element types: " + std::string(elemName(in)) + " x " + std::string(elemName(in)) + " -> " +
                         std::string(elemName(acc)) + " (bf16/f16/tf32/f32 accumulate in f32, i8 in i32)");
  if (op.numOperands() == 3) {
    const Type& c = op.operand(2)->type();
    XTC_REQUIRE(c.shape() == r.shape() && c.elem() == r.elem(), "C " + q(c) + " must have the result's shape and element type " + q(r));
  }
  return {};
}

std::string verifyAtomic(const Operation& op) {
  XTC_CHECK(numOperands(op, 2));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isVector(op.operand(0), "value"));
  XTC_CHECK(isTile(op.operand(1), "second operand"));
  XTC_CHECK(matchesTile(op.operand(0)->type(), op.operand(1)->type(), "value"));
  XTC_REQUIRE(op.result()->type() == op.operand(0)->type(), "result must have the value's type " + q(op.operand(0)->type()));
  std::string kind;
  XTC_CHECK(enumAttr(op, "kind", "atomic", true, &kind));
  bool fl = isFloatElem(op.operand(0)->type().elem());
  if (kind == "addf" || kind == "maxf" || kind == "minf") XTC_REQUIRE(fl, "atomic '" + kind + "' needs a floating-point element type");
  else if (kind != "assign") XTC_REQUIRE(!fl, "atomic '" + kind + "' needs an integer element type");
  return {};
}

std::string verifyTranspose(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isVector(op.operand(0), "operand"));
  XTC_CHECK(isVector(op.result(), "result"));
  const Type& s = op.operand(0)->type();
  const Type& r = op.result()->type();
  std::vector<int64_t> perm;
  XTC_CHECK(intArrayAttr(op, "permutation", true, &perm));
  XTC_REQUIRE(static_cast<int64_t>(perm.size()) == s.rank(), "'permutation' must have one entry per dimension (" + std::to_string(s.rank()) + ")");
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) XTC_REQUIRE(sorted[i] == static_cast<int64_t>(i), "'permutation' is not a permutation of the dimensions");
  std::vector<int64_t> expect;
  for (int64_t p : perm) expect.push_back(s.shape()[p]);
  XTC_REQUIRE(r.shape() == expect, "result shape must be " + shapeStr(expect) + " (the operand's permuted), got " + shapeStr(r.shape()));
  XTC_REQUIRE(r.elem() == s.elem(), "result element type must be the operand's");
  return {};
}

// The dims attribute: non-empty, distinct, in range.
std::string dimsAttr(const Operation& op, int64_t rank, std::vector<int64_t>* dims) {
  XTC_CHECK(intArrayAttr(op, "dims", true, dims));
  XTC_REQUIRE(!dims->empty(), "'dims' cannot be empty");
  std::set<int64_t> seen;
  for (int64_t d : *dims) {
    XTC_REQUIRE(d >= 0 && d < rank, "dimension " + std::to_string(d) + " in 'dims' is out of range for rank " + std::to_string(rank));
    XTC_REQUIRE(seen.insert(d).second, "dimension " + std::to_string(d) + " appears twice in 'dims'");
  }
  return {};
}

// An optional positive size attribute that, when given, applies to a single dim.
std::string sizeAttr(const Operation& op, const std::string& name, size_t numDims, int64_t* size) {
  *size = 0;
  if (!op.hasAttr(name)) return {};
  std::string err;
  const Attribute* a = getAttr(op, name, AttrKind::Int, true, &err);
  XTC_REQUIRE(a, err);
  XTC_REQUIRE(a->getInt() > 0, "'" + name + "' must be positive");
  XTC_REQUIRE(numDims == 1, "'" + name + "' needs exactly one dimension in 'dims'");
  *size = a->getInt();
  return {};
}

std::string verifyReduction(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isVector(op.operand(0), "operand"));
  XTC_CHECK(isVector(op.result(), "result"));
  const Type& s = op.operand(0)->type();
  const Type& r = op.result()->type();
  std::string kind;
  XTC_CHECK(enumAttr(op, "kind", "reduce", true, &kind));
  if (kind == "and" || kind == "or" || kind == "xor") XTC_REQUIRE(isIntElem(s.elem()), "reduction '" + kind + "' needs an integer element type");
  std::vector<int64_t> dims;
  XTC_CHECK(dimsAttr(op, s.rank(), &dims));
  int64_t size = 0;
  XTC_CHECK(sizeAttr(op, "reduction_size", dims.size(), &size));
  std::vector<int64_t> expect = s.shape();
  for (int64_t d : dims) {
    int64_t n = s.shape()[d];
    if (size) {
      XTC_REQUIRE(n != kDynamic && n % size == 0, "'reduction_size' " + std::to_string(size) + " must divide dimension " +
                                                       std::to_string(d) + " of size " + std::to_string(n));
      expect[d] = n / size;
    } else {
      expect[d] = 1;
    }
  }
  XTC_REQUIRE(r.shape() == expect, "result shape must be " + shapeStr(expect) + ", got " + shapeStr(r.shape()));
  XTC_REQUIRE(r.elem() == s.elem(), "result element type must be the operand's");
  return {};
}

std::string verifyBroadcast(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isVector(op.operand(0), "operand"));
  XTC_CHECK(isVector(op.result(), "result"));
  const Type& s = op.operand(0)->type();
  const Type& r = op.result()->type();
  XTC_REQUIRE(r.rank() == s.rank(), "result rank must be the operand's");
  std::vector<int64_t> dims;
  XTC_CHECK(dimsAttr(op, s.rank(), &dims));
  int64_t size = 0;
  XTC_CHECK(sizeAttr(op, "broadcast_size", dims.size(), &size));
  for (int64_t d = 0; d < s.rank(); ++d) {
    bool b = std::find(dims.begin(), dims.end(), d) != dims.end();
    int64_t sd = s.shape()[d], rd = r.shape()[d];
    if (!b) XTC_REQUIRE(sd == rd, "dimension " + std::to_string(d) + " is not broadcast, so it must stay " + std::to_string(sd) + ", got " + std::to_string(rd));
    else if (size) XTC_REQUIRE(rd == sd * size, "with 'broadcast_size' " + std::to_string(size) + ", dimension " + std::to_string(d) +
                                                    " must become " + std::to_string(sd * size) + ", got " + std::to_string(rd));
    else XTC_REQUIRE(sd == 1, "broadcast dimension " + std::to_string(d) + " of the operand must be 1 (or give 'broadcast_size'), got " + std::to_string(sd));
  }
  XTC_REQUIRE(r.elem() == s.elem(), "result element type must be the operand's");
  return {};
}

std::string verifyConvertLayout(const Operation& op) {
  XTC_CHECK(numOperands(op, 1));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isVector(op.operand(0), "operand"));
  XTC_CHECK(isVector(op.result(), "result"));
  XTC_REQUIRE(sameShapeAndElem(op.operand(0)->type(), op.result()->type()),
              "result " + q(op.result()->type()) + " must have the operand's shape and element type " + q(op.operand(0)->type()));
  return {};
}

std::string maskFor(const Value* mask, const Type& tile) {
  const Type& m = mask->type();
  XTC_REQUIRE(m.isVector() && m.elem() == ElemKind::I1 && m.shape() == tile.shape(),
              "mask must be a vector of 'i1' with the tile's shape, got " + q(m));
  return {};
}

std::string verifyGather(const Operation& op) {
  XTC_CHECK(numOperands(op, 2));
  XTC_CHECK(numResults(op, 1));
  XTC_CHECK(isTile(op.operand(0), "first operand"));
  const Type& tile = op.operand(0)->type();
  XTC_REQUIRE(tile.tileInfo().scattered, "needs a scattered tile, got " + q(tile));
  XTC_CHECK(maskFor(op.operand(1), tile));
  XTC_CHECK(isVector(op.result(), "result"));
  return matchesTile(op.result()->type(), tile, "result");
}

std::string verifyScatter(const Operation& op) {
  XTC_CHECK(numOperands(op, 3));
  XTC_CHECK(numResults(op, 0));
  XTC_CHECK(isVector(op.operand(0), "value"));
  XTC_CHECK(isTile(op.operand(2), "third operand"));
  const Type& tile = op.operand(2)->type();
  XTC_REQUIRE(tile.tileInfo().scattered, "needs a scattered tile, got " + q(tile));
  XTC_CHECK(maskFor(op.operand(1), tile));
  return matchesTile(op.operand(0)->type(), tile, "value");
}

}  // namespace

void registerTileOps() {
  def("tile.init_tile", pure(), verifyInitTile, "creates a tile descriptor over a memref or address");
  def("tile.load_tile", effect(), verifyLoadTile, "loads a tile into a vector");
  def("tile.store_tile", effect(), verifyStoreTile, "stores a vector into a tile");
  def("tile.prefetch_tile", effect(), verifyPrefetch, "prefetches a tile into the cache");
  def("tile.update_tile_offset", pure(), verifyUpdateOffset, "moves a tile by offsets");
  def("tile.tile_mma", pure(), verifyMma, "matrix multiply-accumulate C = A x B (+ C)");
  def("tile.atomic_rmw", effect(), verifyAtomic, "atomic read-modify-write on a tile");
  def("tile.transpose", pure(), verifyTranspose, "permutes the dimensions of a vector");
  def("tile.reduction", pure(), verifyReduction, "reduces a vector along dims");
  def("tile.broadcast", pure(), verifyBroadcast, "broadcasts a vector along dims");
  def("tile.convert_layout", pure(), verifyConvertLayout, "changes the distribution/layout of a vector");
  def("tile.load_gather", effect(), verifyGather, "loads a scattered tile under a mask");
  def("tile.store_scatter", effect(), verifyScatter, "stores a scattered tile under a mask");
}

}  // namespace xtc::ir::ops
