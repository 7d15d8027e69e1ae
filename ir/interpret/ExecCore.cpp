// The executor core: block walking, value access, checked memory access, the subgroup scheduler
// for barriers, and the structural ops (scf.*, gpu.*, memref.dim).
#include "ir/interpret/Exec.h"

#include "ir/interpret/Numeric.h"

#include <cstdio>
#include <thread>

namespace xtc::interp {

Tensor::Tensor(ir::ElemKind e, std::vector<int64_t> s) : elem(e), shape(std::move(s)) {
  int64_t n = shapeElements(shape);
  if (isFloat()) f.assign(static_cast<size_t>(n), 0.0);
  else i.assign(static_cast<size_t>(n), 0);
}

std::unordered_map<std::string_view, OpHandler>& handlerTable() {
  static std::unordered_map<std::string_view, OpHandler> table;
  return table;
}

// A message starting "internal error: interpreter:" re-checks what the op verifiers (ir/ops/) already
// guarantee: xtc run verifies the module before the interpreter runs it, so seeing one is a bug.
void fail(const ir::Operation& op, const std::string& msg) { throw InterpError(op.loc(), msg); }

int64_t attrInt(const ir::Operation& op, const std::string& name, int64_t dflt) {
  const ir::Attribute* a = op.attr(name);
  if (!a) return dflt;
  if (a->kind() == ir::AttrKind::Int) return a->getInt();
  if (a->kind() == ir::AttrKind::Enum) {
    // e.g. locality<3>: the value is a number in text form
    try { return std::stoll(a->getString()); } catch (...) { return dflt; }
  }
  fail(op, "internal error: interpreter: attribute '" + name + "' is not an integer");
}

std::vector<int64_t> attrInts(const ir::Operation& op, const std::string& name) {
  const ir::Attribute* a = op.attr(name);
  if (!a) return {};
  if (a->kind() == ir::AttrKind::Int) return {a->getInt()};
  if (a->kind() != ir::AttrKind::Array) fail(op, "internal error: interpreter: attribute '" + name + "' is not an integer list");
  std::vector<int64_t> r;
  for (const ir::Attribute& e : a->getArray()) {
    if (e.kind() != ir::AttrKind::Int) fail(op, "internal error: interpreter: attribute '" + name + "' is not an integer list");
    r.push_back(e.getInt());
  }
  return r;
}

// ----- values ---------------------------------------------------------------------------------

const RtValue& Executor::get(const ir::Value* v, const ir::Operation& user) const {
  auto it = env_.find(v);
  if (it == env_.end()) fail(user, "internal error: interpreter: operand has no value (used before it is defined?)");
  return it->second;
}

const Tensor& Executor::tensor(const ir::Operation& op, unsigned operand) const {
  const RtValue& r = get(op.operand(operand), op);
  if (!r.t) fail(op, "internal error: interpreter: operand " + std::to_string(operand) + " is not a scalar or vector");
  return *r.t;
}

const MemRefVal& Executor::memref(const ir::Operation& op, unsigned operand) const {
  const RtValue& r = get(op.operand(operand), op);
  if (!r.m) fail(op, "internal error: interpreter: operand " + std::to_string(operand) + " is not a memref");
  return *r.m;
}

const TileVal& Executor::tile(const ir::Operation& op, unsigned operand) const {
  const RtValue& r = get(op.operand(operand), op);
  if (!r.tile) fail(op, "internal error: interpreter: operand " + std::to_string(operand) + " is not a tile");
  return *r.tile;
}

int64_t Executor::scalarInt(const ir::Operation& op, unsigned operand) const {
  const Tensor& t = tensor(op, operand);
  if (t.isFloat()) fail(op, "internal error: interpreter: operand " + std::to_string(operand) + " is not an integer scalar");
  if (t.shape.empty()) return t.i[0];
  if (lanes() > 0 && t.shape == std::vector<int64_t>{lanes()}) {
    // A subgroup-uniform operand: every active lane must agree.
    int64_t first = -1;
    for (int64_t l = 0; l < lanes(); ++l) {
      if (!laneActive(l)) continue;
      if (first < 0) first = l;
      else if (t.i[l] != t.i[first])
        fail(op, "operand " + std::to_string(operand) + " must be uniform across the subgroup but differs between its lanes (lane " +
                     std::to_string(first) + ": " + std::to_string(t.i[first]) + ", lane " + std::to_string(l) + ": " +
                     std::to_string(t.i[l]) + ")");
    }
    return t.i[static_cast<size_t>(first < 0 ? 0 : first)];
  }
  fail(op, "internal error: interpreter: operand " + std::to_string(operand) + " is not an integer scalar");
}

bool Executor::allLanesActive() const {
  for (uint8_t a : active_)
    if (!a) return false;
  return true;
}

bool Executor::elemActive(const Tensor& t, int64_t k) const {
  if (active_.empty() || lanes() == 0 || t.shape.empty() || t.shape[0] != lanes()) return true;
  return laneActive(k / (t.size() / lanes()));
}

Tensor Executor::uniformIndex(int64_t v) const {
  Tensor t(ir::ElemKind::Index, lanes() > 0 ? std::vector<int64_t>{lanes()} : std::vector<int64_t>{});
  std::fill(t.i.begin(), t.i.end(), v);
  return t;
}

WorkgroupCtx& Executor::needWg(const ir::Operation& op) const {
  if (!wg_) fail(op, "'" + op.name() + "' cannot be evaluated here (no workgroup: e.g. in the launch region)");
  return *wg_;
}

namespace {
// Ops all lanes of a subgroup must execute together (docs/passes.md "Lane level").
bool isConvergent(const ir::Operation& op) {
  return op.is("lane.broadcast") || op.is("lane.shuffle") || op.is("lane.reduce") || op.is("gpu.barrier") ||
         (op.dialect() == "xe" && !op.is("xe.base_address") && !op.is("xe.oword_align_bits"));
}

std::string inactiveLanes(const std::vector<uint8_t>& mask) {
  std::string s;
  int n = 0;
  for (size_t l = 0; l < mask.size(); ++l)
    if (!mask[l] && n++ < 4) s += (s.empty() ? "lane " : ", ") + std::to_string(l);
  if (n > 4) s += ", ... (" + std::to_string(n) + " lanes)";
  return s;
}
}  // namespace

std::vector<RtValue> Executor::runBlock(const ir::Block& block, const std::vector<RtValue>& args) {
  for (unsigned a = 0; a < block.numArguments() && a < args.size(); ++a) env_[block.argument(a)] = args[a];
  auto& table = handlerTable();
  for (const auto& opPtr : block.opList()) {
    const ir::Operation& op = *opPtr;
    if (op.is("scf.yield") || op.is("xtc.grid")) {
      std::vector<RtValue> r;
      for (unsigned k = 0; k < op.numOperands(); ++k) r.push_back(get(op.operand(k), op));
      return r;
    }
    if (op.is("xtc.return")) return {};
    auto it = table.find(op.name());
    if (it == table.end()) fail(op, "interpreter: op '" + op.name() + "' is not implemented yet");
    if (!active_.empty() && isConvergent(op) && !allLanesActive())
      fail(op, "'" + op.name() + "' needs every lane of the subgroup, but it is inside lane-divergent control flow (" +
                   inactiveLanes(active_) + " inactive here)");
    if (wg_ && wg_->stats) ++wg_->stats->opsExecuted;
    it->second(*this, op);
  }
  return {};
}

// ----- memory ---------------------------------------------------------------------------------

Buffer* globalBufferAt(Executor& ex, uintptr_t addr, size_t n) {
  WorkgroupCtx* wg = ex.wg();
  if (!wg || !wg->globalBuffers) return nullptr;
  for (Buffer* b : *wg->globalBuffers) {
    auto lo = reinterpret_cast<uintptr_t>(b->bytes.data());
    if (addr >= lo && addr + n <= lo + b->bytes.size()) return b;
  }
  return nullptr;
}

std::string hexAddress(uint64_t a) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(a));
  return s;
}

int64_t WorkgroupCtx::phase() const { return scheduler ? scheduler->phase() : 0; }

namespace {
void checkIndex(const ir::Operation& op, const MemRefVal& m, int64_t linear) {
  if (linear < 0 || linear >= m.buf->numElements())
    fail(op, std::string("out-of-bounds access: element ") + std::to_string(linear) + " of a" +
                 (m.slm ? "n SLM buffer" : " buffer") + " of " + std::to_string(m.buf->numElements()) +
                 " elements (the access is not guarded by the tile's bounds)");
}

void checkRace(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear) {
  WorkgroupCtx* wg = ex.wg();
  if (!m.slmState || !wg || wg->workgroupLevel || !wg->detectRaces) return;
  int32_t w = m.slmState->writer[static_cast<size_t>(linear)];
  if (w >= 0 && w != ex.subgroupId() && m.slmState->phase[static_cast<size_t>(linear)] == wg->phase())
    fail(op, "SLM race: subgroup " + std::to_string(ex.subgroupId()) + " reads SLM element " + std::to_string(linear) +
                 " that subgroup " + std::to_string(w) + " wrote since the last gpu.barrier");
}

void noteWrite(Executor& ex, const MemRefVal& m, int64_t linear) {
  if (!m.slmState || !ex.wg()) return;
  m.slmState->writer[static_cast<size_t>(linear)] = static_cast<int32_t>(ex.subgroupId());
  m.slmState->phase[static_cast<size_t>(linear)] = ex.wg()->phase();
}
}  // namespace

double memLoadF(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear) {
  linear += m.offset;
  checkIndex(op, m, linear);
  checkRace(op, ex, m, linear);
  return m.buf->getFloat(linear);
}

int64_t memLoadI(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear) {
  linear += m.offset;
  checkIndex(op, m, linear);
  checkRace(op, ex, m, linear);
  return m.buf->getInt(linear);
}

void memStoreF(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, double v) {
  linear += m.offset;
  checkIndex(op, m, linear);
  noteWrite(ex, m, linear);
  m.buf->setFloat(linear, v);
}

void memStoreI(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, int64_t v) {
  linear += m.offset;
  checkIndex(op, m, linear);
  noteWrite(ex, m, linear);
  m.buf->setInt(linear, v);
}

// ----- subgroup scheduler ------------------------------------------------------------------------

SubgroupScheduler::SubgroupScheduler(int64_t n)
    : n_(n), state_(static_cast<size_t>(n), State::Running), barrierOp_(static_cast<size_t>(n), nullptr) {}

void SubgroupScheduler::waitTurn(int64_t sg, std::unique_lock<std::mutex>& lock) {
  cv_.wait(lock, [&] { return abort_ || current_ == sg; });
  if (abort_) throw Abort{};
}

void SubgroupScheduler::yieldFrom(int64_t sg, std::unique_lock<std::mutex>&) {
  for (int64_t k = sg + 1; k < n_; ++k)
    if (state_[static_cast<size_t>(k)] == State::Running) {
      current_ = k;
      cv_.notify_all();
      return;
    }
  // Every subgroup has reached a barrier or the end: the barrier interval is over.
  int64_t firstDone = -1, firstWaiting = -1;
  for (int64_t k = 0; k < n_; ++k) {
    State s = state_[static_cast<size_t>(k)];
    if (s == State::Done && firstDone < 0) firstDone = k;
    if (s == State::AtBarrier && firstWaiting < 0) firstWaiting = k;
  }
  if (firstWaiting < 0) {  // all done
    current_ = -1;
    cv_.notify_all();
    return;
  }
  const ir::Operation* bop = barrierOp_[static_cast<size_t>(firstWaiting)];
  if (firstDone >= 0 && !error_) {
    error_ = InterpError(bop->loc(), "barrier divergence: subgroup " + std::to_string(firstWaiting) +
                                         " waits at this gpu.barrier but subgroup " + std::to_string(firstDone) +
                                         " finished the kernel without reaching it");
  }
  for (int64_t k = 0; k < n_ && !error_; ++k)
    if (state_[static_cast<size_t>(k)] == State::AtBarrier && barrierOp_[static_cast<size_t>(k)] != bop)
      error_ = InterpError(barrierOp_[static_cast<size_t>(k)]->loc(),
                           "barrier divergence: subgroup " + std::to_string(k) + " waits at this gpu.barrier, subgroup " +
                               std::to_string(firstWaiting) + " at another one");
  if (error_) {
    abort_ = true;
    cv_.notify_all();
    return;
  }
  ++phase_;
  for (auto& s : state_)
    if (s == State::AtBarrier) s = State::Running;
  current_ = firstWaiting;
  cv_.notify_all();
}

void SubgroupScheduler::barrier(int64_t sg, const ir::Operation& op) {
  std::unique_lock<std::mutex> lock(mu_);
  state_[static_cast<size_t>(sg)] = State::AtBarrier;
  barrierOp_[static_cast<size_t>(sg)] = &op;
  yieldFrom(sg, lock);
  waitTurn(sg, lock);
}

std::optional<InterpError> SubgroupScheduler::run(const std::function<void(int64_t)>& body) {
  auto worker = [&](int64_t sg) {
    try {
      {
        std::unique_lock<std::mutex> lock(mu_);
        waitTurn(sg, lock);
      }
      body(sg);
      std::unique_lock<std::mutex> lock(mu_);
      state_[static_cast<size_t>(sg)] = State::Done;
      yieldFrom(sg, lock);
    } catch (const Abort&) {
    } catch (const InterpError& e) {
      std::unique_lock<std::mutex> lock(mu_);
      if (!error_) error_ = e;
      abort_ = true;
      cv_.notify_all();
    } catch (const std::exception& e) {
      std::unique_lock<std::mutex> lock(mu_);
      if (!error_) error_ = InterpError(SourceLoc{}, std::string("interpreter: ") + e.what());
      abort_ = true;
      cv_.notify_all();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n_));
  for (int64_t sg = 0; sg < n_; ++sg) threads.emplace_back(worker, sg);
  {
    std::unique_lock<std::mutex> lock(mu_);
    current_ = 0;
    cv_.notify_all();
  }
  for (auto& t : threads) t.join();
  return error_;
}

// ----- structural ops -------------------------------------------------------------------------

namespace {


// Lane level: whether the integer operand holds different values in the active lanes.
bool laneDivergent(Executor& ex, const Tensor& t) {
  if (ex.lanes() == 0 || t.shape != std::vector<int64_t>{ex.lanes()}) return false;
  int64_t first = -1;
  for (int64_t l = 0; l < ex.lanes(); ++l) {
    if (!ex.laneActive(l)) continue;
    if (first < 0) first = l;
    else if (t.i[static_cast<size_t>(l)] != t.i[static_cast<size_t>(first)]) return true;
  }
  return false;
}

// The active mask of the enclosing block, made explicit (one entry per lane).
std::vector<uint8_t> currentMask(Executor& ex) {
  std::vector<uint8_t> m(static_cast<size_t>(ex.lanes()));
  for (int64_t l = 0; l < ex.lanes(); ++l) m[static_cast<size_t>(l)] = ex.laneActive(l) ? 1 : 0;
  return m;
}

// `into` with the lanes in `mask` taken from `from` (per-lane values: leading dim = lanes).
RtValue mergeLanes(const ir::Operation& op, Executor& ex, const RtValue& into, const RtValue& from, const std::vector<uint8_t>& mask) {
  if (into.t == from.t && into.m == from.m && into.tile == from.tile) return into;
  if (!into.t || !from.t || into.t->shape != from.t->shape || into.t->shape.empty() || into.t->shape[0] != ex.lanes())
    fail(op, "lane-divergent '" + op.name() + "' yields a value that is not per lane (a memref or tile): not supported");
  Tensor r = *into.t;
  int64_t per = r.size() / ex.lanes();
  for (int64_t l = 0; l < ex.lanes(); ++l)
    if (mask[static_cast<size_t>(l)])
      for (int64_t k = l * per; k < (l + 1) * per; ++k) {
        if (r.isFloat()) r.f[static_cast<size_t>(k)] = from.t->f[static_cast<size_t>(k)];
        else r.i[static_cast<size_t>(k)] = from.t->i[static_cast<size_t>(k)];
      }
  return RtValue{std::make_shared<const Tensor>(std::move(r)), {}, {}};
}

// Runs `body` with only the lanes in `mask` active, then restores the enclosing mask.
std::vector<RtValue> runMasked(Executor& ex, const ir::Block& body, const std::vector<RtValue>& args, std::vector<uint8_t> mask) {
  std::vector<uint8_t> saved = ex.activeMask();
  ex.setActiveMask(std::move(mask));
  std::vector<RtValue> y;
  try {
    y = ex.runBlock(body, args);
  } catch (...) {
    ex.setActiveMask(std::move(saved));
    throw;
  }
  ex.setActiveMask(std::move(saved));
  return y;
}

// scf.for whose bounds or step differ between lanes: each lane runs its own trip count (the
// others are inactive in the iterations they do not take).
void execForPerLane(Executor& ex, const ir::Operation& op) {
  int64_t L = ex.lanes();
  auto perLane = [&](unsigned i) {
    const Tensor& t = ex.tensor(op, i);
    std::vector<int64_t> v(static_cast<size_t>(L));
    for (int64_t l = 0; l < L; ++l) v[static_cast<size_t>(l)] = t.shape.empty() ? t.i[0] : t.i[static_cast<size_t>(l)];
    return v;
  };
  std::vector<int64_t> iv = perLane(0), ub = perLane(1), step = perLane(2);
  std::vector<uint8_t> outer = currentMask(ex);
  for (int64_t l = 0; l < L; ++l)
    if (outer[static_cast<size_t>(l)] && step[static_cast<size_t>(l)] <= 0)
      fail(op, "scf.for step must be positive, got " + std::to_string(step[static_cast<size_t>(l)]) + " in lane " + std::to_string(l));
  std::vector<RtValue> iters;
  for (unsigned k = 3; k < op.numOperands(); ++k) iters.push_back(ex.get(op.operand(k), op));
  const ir::Block& body = op.region(0).block();
  while (true) {
    std::vector<uint8_t> mask(static_cast<size_t>(L));
    bool any = false;
    for (size_t l = 0; l < mask.size(); ++l) any |= (mask[l] = outer[l] && iv[l] < ub[l]) != 0;
    if (!any) break;
    Tensor ivT(ir::ElemKind::Index, {L});
    ivT.i = iv;
    std::vector<RtValue> args{RtValue{std::make_shared<const Tensor>(std::move(ivT)), {}, {}}};
    args.insert(args.end(), iters.begin(), iters.end());
    std::vector<RtValue> y = runMasked(ex, body, args, mask);
    if (y.size() != iters.size()) fail(op, "internal error: interpreter: scf.for body yields " + std::to_string(y.size()) + " values, expected " + std::to_string(iters.size()));
    for (size_t k = 0; k < iters.size(); ++k) iters[k] = mergeLanes(op, ex, iters[k], y[k], mask);
    for (size_t l = 0; l < mask.size(); ++l)
      if (mask[l]) iv[l] += step[l];
  }
  for (unsigned k = 0; k < op.numResults(); ++k) ex.set(op.result(k), iters.at(k));
}

void execFor(Executor& ex, const ir::Operation& op) {
  if (op.numOperands() < 3) fail(op, "internal error: interpreter: scf.for needs lb, ub and step");
  for (unsigned i = 0; i < 3; ++i)
    if (laneDivergent(ex, ex.tensor(op, i))) return execForPerLane(ex, op);
  int64_t lb = ex.scalarInt(op, 0), ub = ex.scalarInt(op, 1), step = ex.scalarInt(op, 2);
  if (step <= 0) fail(op, "scf.for step must be positive, got " + std::to_string(step));
  std::vector<RtValue> iters;
  for (unsigned k = 3; k < op.numOperands(); ++k) iters.push_back(ex.get(op.operand(k), op));
  const ir::Block& body = op.region(0).block();
  std::vector<RtValue> args(1 + iters.size());
  for (int64_t iv = lb; iv < ub; iv += step) {
    args[0] = RtValue{std::make_shared<const Tensor>(ex.uniformIndex(iv)), {}, {}};
    for (size_t k = 0; k < iters.size(); ++k) args[k + 1] = iters[k];
    std::vector<RtValue> y = ex.runBlock(body, args);
    if (y.size() != iters.size()) fail(op, "internal error: interpreter: scf.for body yields " + std::to_string(y.size()) + " values, expected " + std::to_string(iters.size()));
    iters = std::move(y);
  }
  for (unsigned k = 0; k < op.numResults(); ++k) ex.set(op.result(k), iters.at(k));
}

// scf.if whose condition differs between lanes: each branch runs with the lanes that take it, and
// every lane gets the results of its own branch.
void execIfPerLane(Executor& ex, const ir::Operation& op, const Tensor& cond) {
  std::vector<uint8_t> outer = currentMask(ex);
  std::vector<uint8_t> mask[2] = {outer, outer};
  for (size_t l = 0; l < outer.size(); ++l) {
    mask[0][l] = outer[l] && cond.i[l] != 0;
    mask[1][l] = outer[l] && cond.i[l] == 0;
  }
  std::vector<RtValue> y[2];
  for (unsigned r = 0; r < 2; ++r)
    if (r < op.numRegions() && !op.region(r).empty()) {
      y[r] = runMasked(ex, op.region(r).block(), {}, mask[r]);
      if (y[r].size() != op.numResults())
        fail(op, "internal error: interpreter: scf.if branch yields " + std::to_string(y[r].size()) + " values, expected " + std::to_string(op.numResults()));
    }
  for (unsigned k = 0; k < op.numResults(); ++k) ex.set(op.result(k), mergeLanes(op, ex, y[1][k], y[0][k], mask[0]));
}

void execIf(Executor& ex, const ir::Operation& op) {
  const Tensor& cond = ex.tensor(op, 0);
  if (laneDivergent(ex, cond)) return execIfPerLane(ex, op, cond);
  unsigned r = ex.scalarInt(op, 0) ? 0 : 1;
  std::vector<RtValue> y;
  if (r < op.numRegions() && !op.region(r).empty()) y = ex.runBlock(op.region(r).block(), {});
  if (y.size() != op.numResults()) fail(op, "internal error: interpreter: scf.if branch yields " + std::to_string(y.size()) + " values, expected " + std::to_string(op.numResults()));
  for (unsigned k = 0; k < op.numResults(); ++k) ex.set(op.result(k), y[k]);
}

int64_t dimAttr(const ir::Operation& op) {
  int64_t d = attrInt(op, "dim", 0);
  if (d < 0 || d > 2) fail(op, "'dim' must be 0, 1 or 2");
  return d;
}

void execGroupId(Executor& ex, const ir::Operation& op) {
  ex.setTensor(op.result(), ex.uniformIndex(ex.needWg(op).groupId[static_cast<size_t>(dimAttr(op))]));
}
void execNumGroups(Executor& ex, const ir::Operation& op) {
  ex.setTensor(op.result(), ex.uniformIndex(ex.needWg(op).numGroups[static_cast<size_t>(dimAttr(op))]));
}
void execLocalSize(Executor& ex, const ir::Operation& op) {
  WorkgroupCtx& wg = ex.needWg(op);
  if (!wg.wgSize) fail(op, "gpu.local_size needs the kernel's wg_size attribute (set by the lowering)");
  ex.setTensor(op.result(), ex.uniformIndex((*wg.wgSize)[static_cast<size_t>(dimAttr(op))]));
}
void execLaneId(Executor& ex, const ir::Operation& op) {
  if (ex.lanes() == 0) fail(op, "'" + op.name() + "' is a per-lane value: it needs lane-level IR (after lower-generic)");
  Tensor t(ir::ElemKind::Index, {ex.lanes()});
  for (int64_t l = 0; l < ex.lanes(); ++l) t.i[l] = l;
  ex.setTensor(op.result(), std::move(t));
}
void execLocalId(Executor& ex, const ir::Operation& op) {
  WorkgroupCtx& wg = ex.needWg(op);
  if (ex.lanes() == 0) fail(op, "'" + op.name() + "' is a per-lane value: it needs lane-level IR (after lower-generic)");
  if (!wg.wgSize) fail(op, "gpu.local_id needs the kernel's wg_size attribute");
  int64_t d = dimAttr(op);
  Tensor t(ir::ElemKind::Index, {ex.lanes()});
  for (int64_t l = 0; l < ex.lanes(); ++l) {
    // Work-items are numbered x fastest; a subgroup holds consecutive linear ids.
    int64_t lin = ex.subgroupId() * ex.lanes() + l;
    int64_t x = lin % (*wg.wgSize)[0], y = (lin / (*wg.wgSize)[0]) % (*wg.wgSize)[1], z = lin / ((*wg.wgSize)[0] * (*wg.wgSize)[1]);
    t.i[l] = d == 0 ? x : (d == 1 ? y : z);
  }
  ex.setTensor(op.result(), std::move(t));
}
void execSubgroupId(Executor& ex, const ir::Operation& op) {
  WorkgroupCtx& wg = ex.needWg(op);
  if (wg.workgroupLevel) fail(op, "gpu.subgroup_id has no single value in workgroup-level code (tiles with wg_map)");
  ex.setTensor(op.result(), ex.uniformIndex(ex.subgroupId()));
}
void execNumSubgroups(Executor& ex, const ir::Operation& op) {
  ex.setTensor(op.result(), ex.uniformIndex(ex.needWg(op).numSubgroups));
}
void execSubgroupSize(Executor& ex, const ir::Operation& op) {
  WorkgroupCtx& wg = ex.needWg(op);
  if (wg.subgroupSize <= 0) fail(op, "gpu.subgroup_size needs the kernel's sg_size attribute (set once a target is chosen)");
  ex.setTensor(op.result(), ex.uniformIndex(wg.subgroupSize));
}
void execBarrier(Executor& ex, const ir::Operation& op) {
  WorkgroupCtx& wg = ex.needWg(op);
  if (wg.scheduler) wg.scheduler->barrier(ex.subgroupId(), op);
}

void execSlmAlloc(Executor& ex, const ir::Operation& op) {
  WorkgroupCtx& wg = ex.needWg(op);
  const ir::Type& t = op.result()->type();
  if (!t.isMemRef() || !t.hasStaticShape()) fail(op, "internal error: interpreter: gpu.slm_alloc must produce a statically shaped memref");
  auto& slot = wg.slm[&op];
  if (!slot.first) {
    slot.first = std::make_unique<Buffer>(t.elem(), t.shape());
    slot.second = std::make_unique<SlmState>();
    slot.second->writer.assign(static_cast<size_t>(slot.first->numElements()), -1);
    slot.second->phase.assign(static_cast<size_t>(slot.first->numElements()), -1);
  }
  auto m = std::make_shared<MemRefVal>();
  m->buf = slot.first.get();
  m->shape = t.shape();
  m->strides.assign(m->shape.size(), 1);
  for (size_t d = m->shape.size(); d-- > 1;) m->strides[d - 1] = m->strides[d] * m->shape[d];
  m->slm = true;
  m->slmState = slot.second.get();
  ex.set(op.result(), RtValue{{}, std::move(m), {}});
}

void execDim(Executor& ex, const ir::Operation& op) {
  const MemRefVal& m = ex.memref(op, 0);
  int64_t d = attrInt(op, "index", 0);
  if (d < 0 || d >= static_cast<int64_t>(m.shape.size())) fail(op, "internal error: interpreter: memref.dim index " + std::to_string(d) + " out of range");
  ex.setTensor(op.result(), ex.uniformIndex(m.shape[static_cast<size_t>(d)]));
}

// The same buffer with its dimensions (and their strides) permuted.
void execMemRefTranspose(Executor& ex, const ir::Operation& op) {
  auto m = std::make_shared<MemRefVal>(ex.memref(op, 0));
  const MemRefVal& src = ex.memref(op, 0);
  const ir::Attribute* perm = op.attr("permutation");
  if (!perm) fail(op, "internal error: interpreter: memref.transpose without a permutation");
  m->shape.clear();
  m->strides.clear();
  for (int64_t d : perm->getIntArray()) {
    m->shape.push_back(src.shape.at(static_cast<size_t>(d)));
    m->strides.push_back(src.strides.at(static_cast<size_t>(d)));
  }
  ex.set(op.result(), RtValue{{}, std::move(m), {}});
}

// Matrix i of a batch: the same buffer from element i * stride(0) on, without the first dimension.
// An index outside the batch is the kernel's error (the hardware would read another buffer).
void execMemRefSlice(Executor& ex, const ir::Operation& op) {
  const MemRefVal& src = ex.memref(op, 0);
  int64_t i = ex.scalarInt(op, 1);
  if (i < 0 || i >= src.shape.at(0))
    fail(op, "memref.slice: index " + std::to_string(i) + " is outside the batch of " + std::to_string(src.shape.at(0)));
  auto m = std::make_shared<MemRefVal>(src);
  m->offset = src.offset + i * src.strides.at(0);
  m->shape.erase(m->shape.begin());
  m->strides.erase(m->strides.begin());
  ex.set(op.result(), RtValue{{}, std::move(m), {}});
}

// A matrix as the vector of its elements: the same buffer, one dimension. Only a matrix whose rows
// follow each other in memory has one (the verifier's dense row-major type; a transposed column-major
// parameter is one too).
void execMemRefFlatten(Executor& ex, const ir::Operation& op) {
  const MemRefVal& src = ex.memref(op, 0);
  if (src.shape.size() != 2 || src.strides.at(1) != 1 || src.strides.at(0) != src.shape.at(1))
    fail(op, "internal error: interpreter: memref.flatten of a matrix whose rows are not contiguous");
  auto m = std::make_shared<MemRefVal>(src);
  m->shape = {src.shape[0] * src.shape[1]};
  m->strides = {1};
  ex.set(op.result(), RtValue{{}, std::move(m), {}});
}

}  // namespace

void registerCoreHandlers() {
  auto& t = handlerTable();
  t["scf.for"] = execFor;
  t["scf.if"] = execIf;
  t["gpu.group_id"] = execGroupId;
  t["gpu.num_groups"] = execNumGroups;
  t["gpu.local_size"] = execLocalSize;
  t["gpu.local_id"] = execLocalId;
  t["gpu.lane_id"] = execLaneId;
  t["gpu.subgroup_id"] = execSubgroupId;
  t["gpu.num_subgroups"] = execNumSubgroups;
  t["gpu.subgroup_size"] = execSubgroupSize;
  t["gpu.barrier"] = execBarrier;
  t["gpu.slm_alloc"] = execSlmAlloc;
  t["memref.dim"] = execDim;
  t["memref.transpose"] = execMemRefTranspose;
  t["memref.slice"] = execMemRefSlice;
  t["memref.flatten"] = execMemRefFlatten;
}

}  // namespace xtc::interp
