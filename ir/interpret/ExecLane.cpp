// Lane-level ops (ir/ops/LaneOps.h, docs/passes.md "Lane level"): the subgroup's lanes run in
// lockstep, so a value holds one entry per lane (a scalar is [lanes], a register vector
// vector<N x T> is [lanes, N]) and cross-lane ops just index across the lane dimension.
#include "ir/interpret/Exec.h"

#include "ir/interpret/Numeric.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace xtc::interp {

namespace {

int64_t needLanes(Executor& ex, const ir::Operation& op) {
  if (ex.lanes() == 0) fail(op, "internal error: interpreter: '" + op.name() + "' is a lane-level op, but the kernel is not at lane level (no sg_size / target)");
  return ex.lanes();
}

const Tensor& perLane(Executor& ex, const ir::Operation& op, unsigned i) {
  const Tensor& t = ex.tensor(op, i);
  if (t.shape != std::vector<int64_t>{ex.lanes()}) fail(op, "internal error: interpreter: operand " + std::to_string(i) + " is not a per-lane scalar");
  return t;
}

double paddingOf(const ir::Operation& op) {
  const ir::Attribute* p = op.attr("padding");
  if (!p) return 0.0;
  return p->kind() == ir::AttrKind::Float ? p->getFloat() : static_cast<double>(p->getInt());
}

// Linear element index of lane `l`'s coordinates, or -1 when out of bounds.
int64_t laneAddress(Executor& ex, const ir::Operation& op, const MemRefVal& m, unsigned firstIndex, int64_t l) {
  int64_t lin = 0;
  for (size_t d = 0; d < m.shape.size(); ++d) {
    int64_t c = perLane(ex, op, firstIndex + static_cast<unsigned>(d)).i[l];
    if (c < 0 || c >= m.shape[d]) return -1;
    lin += c * m.strides[d];
  }
  return lin;
}

void execLoad(Executor& ex, const ir::Operation& op) {
  int64_t L = needLanes(ex, op);
  const MemRefVal& m = ex.memref(op, 0);
  unsigned rank = static_cast<unsigned>(m.shape.size());
  const Tensor* mask = op.numOperands() == 2 + rank ? &perLane(ex, op, 1 + rank) : nullptr;
  Tensor r(m.buf->elem, {L});
  double pad = paddingOf(op);
  // `in_bounds`: the producer promises every active lane's indices inside the memref, masked off or
  // not, unless the memref is empty (the backend then reads the element unconditionally, from a
  // constant of its own for an empty memref, and selects the padding in); a broken promise is an
  // error here, where the device would read outside the buffer.
  bool promised = op.boolAttr("in_bounds");
  for (int64_t e : m.shape) promised = promised && e > 0;
  for (int64_t l = 0; l < L; ++l) {
    int64_t lin = ex.laneActive(l) ? laneAddress(ex, op, m, 1, l) : -1;  // inactive lanes read nothing
    if (promised && ex.laneActive(l) && lin < 0)
      fail(op, "lane.load marked in_bounds reads outside its memref in lane " + std::to_string(l));
    bool on = lin >= 0 && (!mask || mask->i[l]);
    if (r.isFloat()) r.f[l] = on ? memLoadF(op, ex, m, lin) : roundToElem(pad, r.elem);
    else r.i[l] = on ? memLoadI(op, ex, m, lin) : wrapToElem(floatToIntSat(pad, r.elem), r.elem);
  }
  ex.setTensor(op.result(), std::move(r));
}

void execStore(Executor& ex, const ir::Operation& op) {
  int64_t L = needLanes(ex, op);
  const Tensor& v = perLane(ex, op, 0);
  const MemRefVal& m = ex.memref(op, 1);
  unsigned rank = static_cast<unsigned>(m.shape.size());
  const Tensor* mask = op.numOperands() == 3 + rank ? &perLane(ex, op, 2 + rank) : nullptr;
  // `in_bounds`: the producer promises the indices inside the memref wherever the mask is on (the
  // backend writes there without a bounds check); a broken promise is an error here, where the
  // device would write outside the buffer.
  bool promised = op.boolAttr("in_bounds");
  for (int64_t l = 0; l < L; ++l) {
    if (!ex.laneActive(l)) continue;
    int64_t lin = laneAddress(ex, op, m, 2, l);
    if (promised && lin < 0 && (!mask || mask->i[l]))
      fail(op, "lane.store marked in_bounds writes outside its memref in lane " + std::to_string(l));
    if (lin < 0 || (mask && !mask->i[l])) continue;
    if (v.isFloat()) memStoreF(op, ex, m, lin, v.f[l]);
    else memStoreI(op, ex, m, lin, v.i[l]);
  }
}

}  // namespace

double atomicRmwF(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, const std::string& kind, double x) {
  double o = memLoadF(op, ex, m, linear), n = x;
  if (kind == "addf") n = o + x;
  else if (kind == "maxf") n = std::fmax(o, x);
  else if (kind == "minf") n = std::fmin(o, x);
  else if (kind != "assign") fail(op, "internal error: atomic kind '" + kind + "' needs an integer element type (the verifier checks it)");
  memStoreF(op, ex, m, linear, roundToElem(n, m.buf->elem));
  return o;
}

int64_t atomicRmwI(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, const std::string& kind, int64_t x) {
  int64_t o = memLoadI(op, ex, m, linear), n = x;
  if (kind == "addi") n = static_cast<int64_t>(static_cast<uint64_t>(o) + static_cast<uint64_t>(x));
  else if (kind == "maxs") n = std::max(o, x);
  else if (kind == "mins") n = std::min(o, x);
  else if (kind == "and") n = o & x;
  else if (kind == "or") n = o | x;
  else if (kind == "xor") n = o ^ x;
  else if (kind != "assign") fail(op, "internal error: unknown atomic kind '" + kind + "' (the verifier checks it)");
  memStoreI(op, ex, m, linear, wrapToElem(n, m.buf->elem));
  return o;
}

namespace {

// One lane after another, in lane order: lanes (and subgroups, workgroups) are serialized, so each
// read-modify-write is atomic and the final value is the one of some serial order.
void execAtomic(Executor& ex, const ir::Operation& op) {
  int64_t L = needLanes(ex, op);
  const Tensor& v = perLane(ex, op, 0);
  const MemRefVal& m = ex.memref(op, 1);
  if (m.slm) fail(op, "lane.atomic on SLM is not implemented yet");
  unsigned rank = static_cast<unsigned>(m.shape.size());
  const Tensor* mask = op.numOperands() == 3 + rank ? &perLane(ex, op, 2 + rank) : nullptr;
  const ir::Attribute* k = op.attr("kind");
  if (!k) fail(op, "internal error: interpreter: lane.atomic needs a 'kind'");
  const std::string& kind = k->getString();
  Tensor old(v.elem, {L});  // zero for lanes that do nothing
  for (int64_t l = 0; l < L; ++l) {
    if (!ex.laneActive(l)) continue;
    int64_t lin = laneAddress(ex, op, m, 2, l);
    if (lin < 0 || (mask && !mask->i[l])) continue;
    if (v.isFloat()) old.f[l] = atomicRmwF(op, ex, m, lin, kind, v.f[l]);
    else old.i[l] = atomicRmwI(op, ex, m, lin, kind, v.i[l]);
  }
  ex.setTensor(op.result(), std::move(old));
}

void crossLane(Executor& ex, const ir::Operation& op, bool uniform) {
  int64_t L = needLanes(ex, op);
  const Tensor& x = perLane(ex, op, 0);
  const Tensor& src = perLane(ex, op, 1);
  if (uniform) (void)ex.scalarInt(op, 1);  // checks that every lane names the same source lane
  Tensor r(x.elem, {L});
  for (int64_t l = 0; l < L; ++l) {
    int64_t s = src.i[l];
    if (s < 0 || s >= L) {
      // An out-of-range source lane gives an undefined value (OpenCL sub-group shuffles), which a
      // correct program never uses (lowerings select it away). It reads as NaN / a fixed garbage
      // integer here, so a use that reaches memory shows up as a mismatch.
      if (r.isFloat()) r.f[l] = std::numeric_limits<double>::quiet_NaN();
      else r.i[l] = wrapToElem(static_cast<int64_t>(0x5A5A5A5A5A5A5A5AULL), r.elem);
      continue;
    }
    if (r.isFloat()) r.f[l] = x.f[s];
    else r.i[l] = x.i[s];
  }
  ex.setTensor(op.result(), std::move(r));
}
void execBroadcast(Executor& ex, const ir::Operation& op) { crossLane(ex, op, true); }
void execShuffle(Executor& ex, const ir::Operation& op) { crossLane(ex, op, false); }

void execReduce(Executor& ex, const ir::Operation& op) {
  int64_t L = needLanes(ex, op);
  const Tensor& x = perLane(ex, op, 0);
  const ir::Attribute* k = op.attr("kind");
  if (!k) fail(op, "internal error: interpreter: lane.reduce needs a 'kind'");
  std::string kind = k->getString();
  Tensor r(x.elem, {L});
  if (x.isFloat()) {
    double acc = kind == "mul" ? 1.0 : 0.0;
    for (int64_t l = 0; l < L; ++l) {
      double v = x.f[l];
      if (kind == "add") acc += v;
      else if (kind == "mul") acc *= v;
      else if (kind == "max") acc = l == 0 ? v : std::fmax(acc, v);
      else if (kind == "min") acc = l == 0 ? v : std::fmin(acc, v);
      else fail(op, "internal error: reduction kind '" + kind + "' on floats (the verifier refuses it)");
    }
    std::fill(r.f.begin(), r.f.end(), roundToElem(acc, x.elem));
  } else {
    int64_t acc = kind == "mul" ? 1 : (kind == "and" ? -1 : 0);
    for (int64_t l = 0; l < L; ++l) {
      int64_t v = x.i[l];
      if (kind == "add") acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v));
      else if (kind == "mul") acc = static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v));
      else if (kind == "max") acc = l == 0 ? v : std::max(acc, v);
      else if (kind == "min") acc = l == 0 ? v : std::min(acc, v);
      else if (kind == "and") acc &= v;
      else if (kind == "or") acc |= v;
      else if (kind == "xor") acc ^= v;
      else fail(op, "unknown reduction kind '" + kind + "'");
    }
    std::fill(r.i.begin(), r.i.end(), wrapToElem(acc, x.elem));
  }
  ex.setTensor(op.result(), std::move(r));
}

void execFma(Executor& ex, const ir::Operation& op) {
  const Tensor& a = ex.tensor(op, 0);
  const Tensor& b = ex.tensor(op, 1);
  const Tensor& c = ex.tensor(op, 2);
  if (a.shape != b.shape || a.shape != c.shape || !a.isFloat()) fail(op, "internal error: interpreter: lane.fma needs float operands of one shape");
  Tensor r(a.elem, a.shape);
  for (int64_t k = 0; k < r.size(); ++k) {
    if (a.elem == ir::ElemKind::F32)  // one rounding, exactly as the hardware's fma
      r.f[k] = std::fmaf(static_cast<float>(a.f[k]), static_cast<float>(b.f[k]), static_cast<float>(c.f[k]));
    else
      r.f[k] = roundToElem(std::fma(a.f[k], b.f[k], c.f[k]), a.elem);
  }
  ex.setTensor(op.result(), std::move(r));
}

int64_t indexAttr(const ir::Operation& op, int64_t n) {
  int64_t k = attrInt(op, "index", -1);
  if (k < 0 || k >= n) fail(op, "internal error: interpreter: register index " + std::to_string(k) + " out of range (" + std::to_string(n) + " registers)");
  return k;
}

void execExtract(Executor& ex, const ir::Operation& op) {
  int64_t L = needLanes(ex, op);
  const Tensor& v = ex.tensor(op, 0);
  if (v.shape.size() != 2 || v.shape[0] != L) fail(op, "internal error: interpreter: vector.extract needs a register vector");
  int64_t n = v.shape[1], k = indexAttr(op, n);
  Tensor r(v.elem, {L});
  for (int64_t l = 0; l < L; ++l) {
    if (r.isFloat()) r.f[l] = v.f[l * n + k];
    else r.i[l] = v.i[l * n + k];
  }
  ex.setTensor(op.result(), std::move(r));
}

void execInsert(Executor& ex, const ir::Operation& op) {
  int64_t L = needLanes(ex, op);
  const Tensor& s = perLane(ex, op, 0);
  const Tensor& v = ex.tensor(op, 1);
  if (v.shape.size() != 2 || v.shape[0] != L) fail(op, "internal error: interpreter: vector.insert needs a register vector");
  int64_t n = v.shape[1], k = indexAttr(op, n);
  Tensor r = v;
  for (int64_t l = 0; l < L; ++l) {
    if (r.isFloat()) r.f[l * n + k] = s.f[l];
    else r.i[l * n + k] = s.i[l];
  }
  ex.setTensor(op.result(), std::move(r));
}

void execFromElements(Executor& ex, const ir::Operation& op) {
  int64_t L = needLanes(ex, op);
  int64_t n = op.numOperands();
  if (n == 0) fail(op, "internal error: interpreter: vector.from_elements needs operands");
  Tensor r(ex.tensor(op, 0).elem, {L, n});
  for (int64_t k = 0; k < n; ++k) {
    const Tensor& e = perLane(ex, op, static_cast<unsigned>(k));
    for (int64_t l = 0; l < L; ++l) {
      if (r.isFloat()) r.f[l * n + k] = e.f[l];
      else r.i[l * n + k] = e.i[l];
    }
  }
  ex.setTensor(op.result(), std::move(r));
}

}  // namespace

void registerLaneHandlers() {
  auto& t = handlerTable();
  t["lane.load"] = execLoad;
  t["lane.store"] = execStore;
  t["lane.atomic"] = execAtomic;
  t["lane.broadcast"] = execBroadcast;
  t["lane.shuffle"] = execShuffle;
  t["lane.reduce"] = execReduce;
  t["lane.fma"] = execFma;
  t["vector.extract"] = execExtract;
  t["vector.insert"] = execInsert;
  t["vector.from_elements"] = execFromElements;
}

}  // namespace xtc::interp
