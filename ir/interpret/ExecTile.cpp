// The XeTile ops (tile.*) at workgroup or subgroup level: the semantics are the same (wg_map only
// says who computes what). Tile element (i, j) of a regular tile lives at base-matrix coordinates
// offsets + (i, j) (a tile of rank t covers the innermost t dims of its base), i.e. at element
// sum(coord[d] * stride[d]) of the buffer; `order` needs no handling here because the strides
// already say how the base matrix is laid out. An element is in bounds when every coordinate is
// within the base shape.
#include "ir/interpret/Exec.h"

#include "ir/interpret/Numeric.h"

#include <cmath>

namespace xtc::interp {

using ir::ElemKind;

namespace {

std::string enumValue(const ir::Operation& op, const std::string& name) {
  const ir::Attribute* a = op.attr(name);
  if (!a || (a->kind() != ir::AttrKind::Enum && a->kind() != ir::AttrKind::String)) fail(op, "internal error: interpreter: '" + op.name() + "' needs a '" + name + "' attribute");
  return a->getString();
}

// Calls f(k, inBounds, linear) for every element k (row-major) of the tile.
template <class F>
void forEachElem(const TileVal& t, F&& f) {
  int64_t n = shapeElements(t.shape);
  if (t.scattered) {
    const Tensor& offs = *t.scatterOffsets;
    int64_t limit = t.baseShape[0];
    for (int64_t k = 0; k < n; ++k) {
      int64_t o = offs.i[k];
      bool in = o >= 0 && o < limit;
      f(k, in, in ? o * t.baseStrides[0] : 0);
    }
    return;
  }
  size_t r = t.baseShape.size(), rank = t.shape.size(), lead = r - rank;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    bool in = true;
    int64_t linear = t.baseElem;
    for (size_t d = 0; d < r; ++d) {
      int64_t c = t.offsets[d] + (d >= lead ? idx[d - lead] : 0);
      if (c < 0 || c >= t.baseShape[d]) in = false;
      linear += c * t.baseStrides[d];
    }
    f(k, in, linear);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < t.shape[d]) break;
      idx[d] = 0;
    }
  }
}

double paddingValue(const ir::Operation& op) {
  const ir::Attribute* p = op.attr("padding");
  if (!p) return 0.0;
  if (p->kind() == ir::AttrKind::Float) return p->getFloat();
  if (p->kind() == ir::AttrKind::Int) return static_cast<double>(p->getInt());
  fail(op, "internal error: interpreter: 'padding' must be a number");
}

// ----- init / update ----------------------------------------------------------------------------

// An i64 tile source is a host address (the interpreter's memory is the kernel buffers): the
// buffer holding it, viewed flat, with the address's element index in `elem0`. Shape and strides
// come from the op's explicit operands; the address must be element-aligned in a buffer of the
// tile's element type.
std::shared_ptr<const MemRefVal> rawAddressView(Executor& ex, const ir::Operation& op, ElemKind elem, int64_t& elem0) {
  int64_t addr = ex.scalarInt(op, 0);
  Buffer* b = globalBufferAt(ex, static_cast<uintptr_t>(addr), 1);
  if (!b) fail(op, "tile.init_tile: the address " + hexAddress(static_cast<uint64_t>(addr)) + " is not inside any kernel buffer");
  int64_t byte = addr - static_cast<int64_t>(reinterpret_cast<uintptr_t>(b->bytes.data()));
  if (b->elem != elem || byte % b->elemSize() != 0)
    fail(op, "tile.init_tile: the address " + hexAddress(static_cast<uint64_t>(addr)) + " is byte " + std::to_string(byte) + " of a " + std::string(ir::elemName(b->elem)) +
                 " buffer, not an element of the tile's type " + std::string(ir::elemName(elem)));
  elem0 = byte / b->elemSize();
  auto m = std::make_shared<MemRefVal>();
  m->buf = b;
  m->shape = {b->numElements()};
  m->strides = {1};
  return m;
}

void execInitTile(Executor& ex, const ir::Operation& op) {
  const ir::Type& rt = op.result()->type();
  if (!rt.isTile()) fail(op, "internal error: interpreter: tile.init_tile must produce a tile");
  const RtValue& src = ex.get(op.operand(0), op);
  std::vector<int64_t> seg = attrInts(op, "segments");
  int64_t nOff = seg.empty() ? op.numOperands() - 1 : seg.at(0);
  int64_t nShape = seg.size() > 1 ? seg[1] : 0, nStrides = seg.size() > 2 ? seg[2] : 0;
  if (1 + nOff + nShape + nStrides != op.numOperands()) fail(op, "internal error: interpreter: tile.init_tile: 'segments' does not match the operand count");
  auto t = std::make_shared<TileVal>();
  t->mem = src.m ? src.m : rawAddressView(ex, op, rt.elem(), t->baseElem);
  t->elem = rt.elem();
  t->shape = rt.shape();
  if (t->mem->buf->elem != t->elem) fail(op, "internal error: interpreter: tile.init_tile: the memref and the tile have different element types");
  if (rt.tileInfo().scattered) {
    if (nOff != 1) fail(op, "internal error: interpreter: a scattered tile takes one vector of offsets");
    if (!src.m || src.m->shape.size() != 1) fail(op, "internal error: interpreter: a scattered tile needs a 1-D memref");
    const RtValue& o = ex.get(op.operand(1), op);
    if (!o.t || o.t->isFloat() || o.t->shape != t->shape) fail(op, "internal error: interpreter: the offsets of a scattered tile must be an index vector of the tile's shape");
    t->scattered = true;
    t->scatterOffsets = o.t;
    t->baseShape = src.m->shape;
    t->baseStrides = src.m->strides;
  } else {
    for (int64_t k = 0; k < nOff; ++k) t->offsets.push_back(ex.scalarInt(op, static_cast<unsigned>(1 + k)));
    if (nShape > 0) {
      if (nShape != nOff || nStrides != nOff) fail(op, "internal error: interpreter: tile.init_tile: explicit shape and strides need one entry per offset");
      for (int64_t k = 0; k < nShape; ++k) t->baseShape.push_back(ex.scalarInt(op, static_cast<unsigned>(1 + nOff + k)));
      for (int64_t k = 0; k < nStrides; ++k) t->baseStrides.push_back(ex.scalarInt(op, static_cast<unsigned>(1 + nOff + nShape + k)));
    } else {
      if (!src.m) fail(op, "internal error: interpreter: tile.init_tile from an i64 address needs explicit shape and strides");
      if (nOff != static_cast<int64_t>(src.m->shape.size()))
        fail(op, "internal error: interpreter: tile.init_tile: " + std::to_string(nOff) + " offsets for a memref of rank " + std::to_string(src.m->shape.size()));
      t->baseShape = src.m->shape;
      t->baseStrides = src.m->strides;
    }
    if (t->shape.size() > t->baseShape.size()) fail(op, "internal error: interpreter: tile.init_tile: the tile has a higher rank than its base");
  }
  ex.set(op.result(), RtValue{{}, {}, std::move(t)});
}

void execUpdateOffset(Executor& ex, const ir::Operation& op) {
  const TileVal& in = ex.tile(op, 0);
  auto t = std::make_shared<TileVal>(in);
  if (in.scattered) {
    const Tensor& d = ex.tensor(op, 1);
    if (d.shape != in.shape || d.isFloat()) fail(op, "internal error: interpreter: tile.update_tile_offset: the deltas must be an index vector of the tile's shape");
    Tensor o = *in.scatterOffsets;
    for (int64_t k = 0; k < o.size(); ++k) o.i[k] += d.i[k];
    t->scatterOffsets = std::make_shared<const Tensor>(std::move(o));
  } else {
    size_t nd = op.numOperands() - 1;
    if (nd > t->offsets.size()) fail(op, "internal error: interpreter: tile.update_tile_offset: too many deltas");
    size_t lead = t->offsets.size() - nd;
    for (size_t k = 0; k < nd; ++k) t->offsets[lead + k] += ex.scalarInt(op, static_cast<unsigned>(1 + k));
  }
  ex.set(op.result(), RtValue{{}, {}, std::move(t)});
}

// ----- memory ops -------------------------------------------------------------------------------

Tensor loadElems(Executor& ex, const ir::Operation& op, const TileVal& t, const Tensor* mask) {
  Tensor r(t.elem, t.shape);
  double pad = paddingValue(op);
  const MemRefVal& m = *t.mem;
  if (r.isFloat()) {
    double p = roundToElem(pad, r.elem);
    forEachElem(t, [&](int64_t k, bool in, int64_t lin) {
      r.f[k] = in && (!mask || mask->i[k]) ? memLoadF(op, ex, m, lin) : p;
    });
  } else {
    int64_t p = wrapToElem(floatToIntSat(pad, r.elem), r.elem);
    forEachElem(t, [&](int64_t k, bool in, int64_t lin) {
      r.i[k] = in && (!mask || mask->i[k]) ? memLoadI(op, ex, m, lin) : p;
    });
  }
  return r;
}

void storeElems(Executor& ex, const ir::Operation& op, const Tensor& v, const TileVal& t, const Tensor* mask) {
  if (shapeElements(v.shape) != shapeElements(t.shape)) fail(op, "internal error: interpreter: the value's shape " + ir::shapeStr(v.shape) + " does not match the tile's " + ir::shapeStr(t.shape));
  if (v.elem != t.elem) fail(op, "internal error: interpreter: the value's element type does not match the tile's");
  const MemRefVal& m = *t.mem;
  forEachElem(t, [&](int64_t k, bool in, int64_t lin) {
    if (!in || (mask && !mask->i[k])) return;  // out-of-bounds and masked-off writes are dropped
    if (v.isFloat()) memStoreF(op, ex, m, lin, v.f[k]);
    else memStoreI(op, ex, m, lin, v.i[k]);
  });
}

void execLoadTile(Executor& ex, const ir::Operation& op) {
  const TileVal& t = ex.tile(op, 0);
  ex.setTensor(op.result(), loadElems(ex, op, t, nullptr));
}

void execStoreTile(Executor& ex, const ir::Operation& op) {
  storeElems(ex, op, ex.tensor(op, 0), ex.tile(op, 1), nullptr);
}

void execPrefetch(Executor& ex, const ir::Operation& op) {
  (void)ex.tile(op, 0);  // a cache hint: no effect on values
}

const Tensor& maskOperand(Executor& ex, const ir::Operation& op, unsigned i, const TileVal& t) {
  const Tensor& m = ex.tensor(op, i);
  if (m.isFloat() || m.shape != t.shape) fail(op, "internal error: interpreter: the mask must be an i1 vector of the tile's shape");
  return m;
}

void execLoadGather(Executor& ex, const ir::Operation& op) {
  const TileVal& t = ex.tile(op, 0);
  ex.setTensor(op.result(), loadElems(ex, op, t, &maskOperand(ex, op, 1, t)));
}

void execStoreScatter(Executor& ex, const ir::Operation& op) {
  const TileVal& t = ex.tile(op, 2);
  storeElems(ex, op, ex.tensor(op, 0), t, &maskOperand(ex, op, 1, t));
}

void execAtomicRmw(Executor& ex, const ir::Operation& op) {
  const Tensor& v = ex.tensor(op, 0);
  const TileVal& t = ex.tile(op, 1);
  std::string kind = enumValue(op, "kind");
  if (v.shape != t.shape || v.elem != t.elem) fail(op, "internal error: tile.atomic_rmw: the value does not match the tile (the verifier checks it)");
  bool fl = v.isFloat();
  // assign (an exchange) takes any element type; the other kinds are float or integer ones.
  if (kind != "assign" && fl != (kind == "addf" || kind == "maxf" || kind == "minf"))
    fail(op, "internal error: atomic kind '" + kind + "' does not fit element type " + std::string(ir::elemName(v.elem)) +
         " (the verifier checks it)");
  Tensor old(v.elem, v.shape);
  const MemRefVal& m = *t.mem;
  forEachElem(t, [&](int64_t k, bool in, int64_t lin) {
    if (!in) return;  // dropped; the old value reads as 0
    if (fl) old.f[k] = atomicRmwF(op, ex, m, lin, kind, v.f[k]);
    else old.i[k] = atomicRmwI(op, ex, m, lin, kind, v.i[k]);
  });
  ex.setTensor(op.result(), std::move(old));
}

// ----- tile_mma ---------------------------------------------------------------------------------

void execMma(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  const Tensor& b = ex.tensor(op, 1);
  const Tensor* c = op.numOperands() > 2 ? &ex.tensor(op, 2) : nullptr;
  if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0])
    fail(op, "internal error: interpreter: tile.tile_mma: shapes " + ir::shapeStr(a.shape) + " and " + ir::shapeStr(b.shape) + " do not multiply");
  if (a.isFloat() != b.isFloat()) fail(op, "internal error: interpreter: tile.tile_mma: A and B must both be float or both be integer");
  const size_t M = static_cast<size_t>(a.shape[0]), K = static_cast<size_t>(a.shape[1]), N = static_cast<size_t>(b.shape[1]);
  if (c && (c->shape != std::vector<int64_t>{a.shape[0], b.shape[1]})) fail(op, "internal error: interpreter: tile.tile_mma: C has shape " + ir::shapeStr(c->shape));
  ElemKind rk = op.result()->type().elem();
  Tensor r(rk, {a.shape[0], b.shape[1]});
  WorkgroupCtx* wg = ex.wg();
  if (wg && wg->stats) wg->stats->mmaFlops += static_cast<int64_t>(2 * M * N * K);
  if (wg && wg->countOnly) {
    ex.setTensor(op.result(), std::move(r));
    return;
  }
  if (a.isFloat()) {
    // f32 accumulation in k order. bf16/f16 products are exact in f32; each add rounds to f32.
    std::vector<float> A(M * K), B(K * N), C(M * N, 0.0f);
    for (size_t k = 0; k < M * K; ++k) A[k] = static_cast<float>(a.f[k]);
    for (size_t k = 0; k < K * N; ++k) B[k] = static_cast<float>(b.f[k]);
    if (c)
      for (size_t k = 0; k < M * N; ++k) C[k] = static_cast<float>(c->getF(static_cast<int64_t>(k)));
    for (size_t i = 0; i < M; ++i) {
      float* crow = C.data() + i * N;
      for (size_t k = 0; k < K; ++k) {
        const float av = A[i * K + k];
        const float* brow = B.data() + k * N;
        for (size_t j = 0; j < N; ++j) crow[j] += av * brow[j];
      }
    }
    for (size_t k = 0; k < M * N; ++k) {
      if (r.isFloat()) r.f[k] = roundToElem(C[k], rk);
      else r.i[k] = wrapToElem(floatToIntSat(C[k], rk), rk);
    }
  } else {
    // i32 accumulation: wrapping at the end equals wrapping at every step (mod 2^32).
    std::vector<int64_t> C(M * N, 0);
    if (c)
      for (size_t k = 0; k < M * N; ++k) C[k] = c->isFloat() ? floatToIntSat(c->f[k], ElemKind::I32) : c->i[k];
    for (size_t i = 0; i < M; ++i)
      for (size_t k = 0; k < K; ++k) {
        const int64_t av = a.i[i * K + k];
        for (size_t j = 0; j < N; ++j)
          C[i * N + j] = static_cast<int64_t>(static_cast<uint64_t>(C[i * N + j]) + static_cast<uint64_t>(av * b.i[k * N + j]));
      }
    for (size_t k = 0; k < M * N; ++k) {
      int64_t v = wrapToElem(C[k], ElemKind::I32);
      if (r.isFloat()) r.f[k] = roundToElem(static_cast<double>(v), rk);
      else r.i[k] = wrapToElem(v, rk);
    }
  }
  ex.setTensor(op.result(), std::move(r));
}

// ----- shape ops --------------------------------------------------------------------------------

int64_t singleDim(const ir::Operation& op, const Tensor& src) {
  std::vector<int64_t> dims = attrInts(op, "dims");
  if (dims.size() != 1)
    fail(op, "'" + op.name() + "' over " + std::to_string(dims.size()) +
                 " dimensions is not implemented yet in the interpreter (give one entry in 'dims'; reduce or broadcast one dimension at a time)");
  if (dims[0] < 0 || dims[0] >= static_cast<int64_t>(src.shape.size())) fail(op, "'dims' is out of range");
  return dims[0];
}

// Splits a shape around dim d: outer * shape[d] * inner.
void split(const std::vector<int64_t>& shape, int64_t d, int64_t& outer, int64_t& inner) {
  outer = 1;
  inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= shape[static_cast<size_t>(k)];
  for (size_t k = static_cast<size_t>(d) + 1; k < shape.size(); ++k) inner *= shape[k];
}

void execReduction(Executor& ex, const ir::Operation& op) {
  const Tensor& s = ex.tensor(op, 0);
  int64_t d = singleDim(op, s);
  int64_t D = s.shape[static_cast<size_t>(d)];
  int64_t n = attrInt(op, "reduction_size", D);
  if (n <= 0 || D % n != 0) fail(op, "internal error: interpreter: reduction_size " + std::to_string(n) + " does not divide the dimension size " + std::to_string(D));
  std::string kind = enumValue(op, "kind");
  std::vector<int64_t> rshape = s.shape;
  rshape[static_cast<size_t>(d)] = D / n;
  if (shapeElements(op.result()->type().shape()) != shapeElements(rshape))
    fail(op, "internal error: interpreter: tile.reduction result shape " + ir::shapeStr(op.result()->type().shape()) + " should be " + ir::shapeStr(rshape));
  Tensor r(s.elem, op.result()->type().shape());
  int64_t outer, inner;
  split(s.shape, d, outer, inner);
  int64_t R = D / n;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t q = 0; q < R; ++q)
      for (int64_t in = 0; in < inner; ++in) {
        int64_t dst = (o * R + q) * inner + in;
        if (s.isFloat()) {
          double acc = kind == "mul" ? 1.0 : 0.0;
          for (int64_t t = 0; t < n; ++t) {
            double x = s.f[(o * D + q * n + t) * inner + in];
            if (kind == "add") acc += x;
            else if (kind == "mul") acc *= x;
            else if (kind == "max") acc = t == 0 ? x : std::fmax(acc, x);
            else if (kind == "min") acc = t == 0 ? x : std::fmin(acc, x);
            else fail(op, "internal error: interpreter: reduction kind '" + kind + "' needs integer elements");
          }
          r.f[dst] = roundToElem(acc, s.elem);
        } else {
          int64_t acc = kind == "mul" ? 1 : (kind == "and" ? -1 : 0);
          for (int64_t t = 0; t < n; ++t) {
            int64_t x = s.i[(o * D + q * n + t) * inner + in];
            if (kind == "add") acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x));
            else if (kind == "mul") acc = static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(x));
            else if (kind == "max") acc = t == 0 ? x : std::max(acc, x);
            else if (kind == "min") acc = t == 0 ? x : std::min(acc, x);
            else if (kind == "and") acc &= x;
            else if (kind == "or") acc |= x;
            else if (kind == "xor") acc ^= x;
            else fail(op, "unknown reduction kind '" + kind + "'");
          }
          r.i[dst] = wrapToElem(acc, s.elem);
        }
      }
  ex.setTensor(op.result(), std::move(r));
}

void execBroadcast(Executor& ex, const ir::Operation& op) {
  const Tensor& s = ex.tensor(op, 0);
  int64_t d = singleDim(op, s);
  const std::vector<int64_t>& rshape = op.result()->type().shape();
  if (rshape.size() != s.shape.size()) fail(op, "internal error: interpreter: tile.broadcast keeps the rank");
  int64_t S = s.shape[static_cast<size_t>(d)], R = rshape[static_cast<size_t>(d)];
  int64_t n = attrInt(op, "broadcast_size", S == 0 ? 0 : R / S);
  for (size_t k = 0; k < rshape.size(); ++k)
    if (static_cast<int64_t>(k) != d && rshape[k] != s.shape[k]) fail(op, "internal error: interpreter: tile.broadcast changes a dimension other than 'dims'");
  if (n <= 0 || S * n != R) fail(op, "internal error: interpreter: tile.broadcast: " + std::to_string(S) + " x broadcast_size " + std::to_string(n) + " != " + std::to_string(R));
  Tensor r(s.elem, rshape);
  int64_t outer, inner;
  split(rshape, d, outer, inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t x = 0; x < R; ++x)
      for (int64_t in = 0; in < inner; ++in) {
        int64_t dst = (o * R + x) * inner + in, src = (o * S + x / n) * inner + in;
        if (r.isFloat()) r.f[dst] = s.f[src];
        else r.i[dst] = s.i[src];
      }
  ex.setTensor(op.result(), std::move(r));
}

void execTranspose(Executor& ex, const ir::Operation& op) {
  const Tensor& s = ex.tensor(op, 0);
  size_t rank = s.shape.size();
  std::vector<int64_t> perm = attrInts(op, "permutation");
  if (perm.empty() && rank == 2) perm = {1, 0};
  if (perm.size() != rank) fail(op, "internal error: interpreter: tile.transpose: the permutation does not match the rank");
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) fail(op, "internal error: interpreter: tile.transpose: not a permutation");
    seen[static_cast<size_t>(p)] = true;
  }
  std::vector<int64_t> rshape(rank), sstr(rank, 1);
  for (size_t k = 0; k < rank; ++k) rshape[k] = s.shape[static_cast<size_t>(perm[k])];
  for (size_t k = rank; k-- > 1;) sstr[k - 1] = sstr[k] * s.shape[k];
  Tensor r(s.elem, rshape);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < r.size(); ++k) {
    int64_t src = 0;
    for (size_t q = 0; q < rank; ++q) src += idx[q] * sstr[static_cast<size_t>(perm[q])];
    if (r.isFloat()) r.f[k] = s.f[src];
    else r.i[k] = s.i[src];
    for (size_t q = rank; q-- > 0;) {
      if (++idx[q] < rshape[q]) break;
      idx[q] = 0;
    }
  }
  ex.setTensor(op.result(), std::move(r));
}

void execConvertLayout(Executor& ex, const ir::Operation& op) {
  ex.set(op.result(), ex.get(op.operand(0), op));  // layouts only say who holds what
}

}  // namespace

void registerTileHandlers() {
  auto& t = handlerTable();
  t["tile.init_tile"] = execInitTile;
  t["tile.update_tile_offset"] = execUpdateOffset;
  t["tile.load_tile"] = execLoadTile;
  t["tile.store_tile"] = execStoreTile;
  t["tile.prefetch_tile"] = execPrefetch;
  t["tile.load_gather"] = execLoadGather;
  t["tile.store_scatter"] = execStoreScatter;
  t["tile.atomic_rmw"] = execAtomicRmw;
  t["tile.tile_mma"] = execMma;
  t["tile.reduction"] = execReduction;
  t["tile.broadcast"] = execBroadcast;
  t["tile.transpose"] = execTranspose;
  t["tile.convert_layout"] = execConvertLayout;
}

}  // namespace xtc::interp
