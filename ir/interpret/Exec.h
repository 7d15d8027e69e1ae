// Internals of the reference interpreter (not a public API): runtime values, the per-workgroup
// context and the executor that walks blocks op by op. Op semantics live in Exec*.cpp, one file per
// group of ops, each registering its handlers into the table below.
#pragma once

#include "ir/interpret/Interpreter.h"

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace xtc::interp {

// A scalar (rank 0) or an n-D vector of one element type. Float kinds keep their values (already
// rounded to the type) in `f`; integer kinds (i1..i64, index) keep wrapped values in `i`.
struct Tensor {
  ir::ElemKind elem = ir::ElemKind::F32;
  std::vector<int64_t> shape;
  std::vector<double> f;
  std::vector<int64_t> i;

  Tensor() = default;
  Tensor(ir::ElemKind e, std::vector<int64_t> s);  // zero-filled
  bool isFloat() const { return ir::isFloatElem(elem); }
  int64_t size() const { return isFloat() ? static_cast<int64_t>(f.size()) : static_cast<int64_t>(i.size()); }
  double getF(int64_t k) const { return isFloat() ? f[k] : static_cast<double>(i[k]); }
};

// Per-element bookkeeping of an SLM allocation for the race check: who wrote it last, in which
// barrier interval.
struct SlmState {
  std::vector<int32_t> writer;
  std::vector<int64_t> phase;
};

struct MemRefVal {
  Buffer* buf = nullptr;
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;  // element of buf at index 0 (memref.slice); every access adds it
  bool slm = false;
  SlmState* slmState = nullptr;
};

struct TileVal {
  std::shared_ptr<const MemRefVal> mem;
  ir::ElemKind elem = ir::ElemKind::F32;
  std::vector<int64_t> shape;                       // the tile's shape
  std::vector<int64_t> baseShape, baseStrides;      // of the base matrix (one per offset)
  std::vector<int64_t> offsets;                     // regular tiles
  int64_t baseElem = 0;                             // raw-address tiles: the address's element in `mem`
  bool scattered = false;
  std::shared_ptr<const Tensor> scatterOffsets;     // scattered tiles: element offsets, tile shape
};

struct RtValue {
  std::shared_ptr<const Tensor> t;
  std::shared_ptr<const MemRefVal> m;
  std::shared_ptr<const TileVal> tile;
};

class SubgroupScheduler;

// Everything the subgroups of one workgroup share.
struct WorkgroupCtx {
  std::array<int64_t, 3> groupId{0, 0, 0};
  std::array<int64_t, 3> numGroups{1, 1, 1};
  std::optional<std::array<int64_t, 3>> wgSize;   // from the kernel's wg_size attribute
  int64_t numSubgroups = 1;
  int64_t subgroupSize = 0;                        // 0 = unknown
  bool workgroupLevel = false;
  bool detectRaces = true;
  bool countOnly = false;
  // Lane level (after lower-generic): every value carries a leading dimension of `lanes` entries,
  // one per work-item of the subgroup, and the executor runs the subgroup's lanes in lockstep.
  // 0 = tile/subgroup level.
  int64_t lanes = 0;
  // The kernel's global buffers, for the byte addresses of xe.base_address / xe.load_2d.
  const std::vector<Buffer*>* globalBuffers = nullptr;
  std::map<const ir::Operation*, std::pair<std::unique_ptr<Buffer>, std::unique_ptr<SlmState>>> slm;
  SubgroupScheduler* scheduler = nullptr;          // null when subgroups run back to back
  RunStats* stats = nullptr;
  int64_t phase() const;
};

class Executor;
using OpHandler = void (*)(Executor&, const ir::Operation&);

// Op name -> handler; each Exec*.cpp adds its ops through registerHandlers.
std::unordered_map<std::string_view, OpHandler>& handlerTable();
void registerArithHandlers();
void registerTileHandlers();
void registerCoreHandlers();
void registerLaneHandlers();
void registerXeHandlers();

class Executor {
public:
  // `wg` may be null (the launch region: no ids, no memory).
  Executor(WorkgroupCtx* wg, int64_t subgroupId) : wg_(wg), sg_(subgroupId) {}

  // Runs the ops of `block` with its arguments bound to `args`; returns the operands of the
  // terminator (scf.yield, xtc.grid; empty for xtc.return).
  std::vector<RtValue> runBlock(const ir::Block& block, const std::vector<RtValue>& args);

  // Values.
  const RtValue& get(const ir::Value* v, const ir::Operation& user) const;
  const Tensor& tensor(const ir::Operation& op, unsigned operand) const;
  const MemRefVal& memref(const ir::Operation& op, unsigned operand) const;
  const TileVal& tile(const ir::Operation& op, unsigned operand) const;
  // Scalar integer operand (index or integer type).
  int64_t scalarInt(const ir::Operation& op, unsigned operand) const;
  void set(const ir::Value* v, RtValue r) { env_[v] = std::move(r); }
  void setTensor(const ir::Value* v, Tensor t) { env_[v] = RtValue{std::make_shared<const Tensor>(std::move(t)), {}, {}}; }

  WorkgroupCtx* wg() const { return wg_; }
  // Lanes per subgroup at lane level, else 0.
  int64_t lanes() const { return wg_ ? wg_->lanes : 0; }
  // A subgroup-uniform index value: a scalar, or one entry per lane at lane level.
  Tensor uniformIndex(int64_t v) const;
  int64_t subgroupId() const { return sg_; }
  // The context or an error when the op needs one (the launch region has none).
  WorkgroupCtx& needWg(const ir::Operation& op) const;

  // Lane level: the lanes executing the current block. Lane-divergent scf.if / scf.for narrow it
  // (docs/passes.md "Lane level": ops act per lane); memory ops skip inactive lanes, per-lane checks
  // (division by zero, bounds) ignore them, and convergent ops (cross-lane, xe messages, barriers)
  // are errors while some lane is inactive.
  bool laneActive(int64_t l) const { return active_.empty() || active_[static_cast<size_t>(l)] != 0; }
  bool allLanesActive() const;
  // Whether element k of `t` belongs to an active lane (true when `t` is not a per-lane value).
  bool elemActive(const Tensor& t, int64_t k) const;
  const std::vector<uint8_t>& activeMask() const { return active_; }
  void setActiveMask(std::vector<uint8_t> m) { active_ = std::move(m); }

private:
  WorkgroupCtx* wg_;
  int64_t sg_;
  std::unordered_map<const ir::Value*, RtValue> env_;
  std::vector<uint8_t> active_;  // empty = every lane
};

[[noreturn]] void fail(const ir::Operation& op, const std::string& msg);
// Integer attribute or a default.
int64_t attrInt(const ir::Operation& op, const std::string& name, int64_t dflt);
std::vector<int64_t> attrInts(const ir::Operation& op, const std::string& name);

// The kernel's global buffer holding host bytes [addr, addr + n), or null (raw addresses:
// xe.base_address results, i64 tile sources).
Buffer* globalBufferAt(Executor& ex, uintptr_t addr, size_t n);
// "0x..." for messages about raw addresses.
std::string hexAddress(uint64_t a);

// Memory access with the checks of the interpreter (buffer bounds, SLM races). `linear` is the
// element index into the memref's buffer.
double memLoadF(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear);
int64_t memLoadI(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear);
void memStoreF(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, double v);
void memStoreI(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, int64_t v);
// An atomic read-modify-write of element `linear` with `x` (kind of tile.atomic_rmw / lane.atomic,
// e.g. "addf"); returns the old value. Shared by tile.atomic_rmw and lane.atomic (ExecLane.cpp).
double atomicRmwF(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, const std::string& kind, double x);
int64_t atomicRmwI(const ir::Operation& op, Executor& ex, const MemRefVal& m, int64_t linear, const std::string& kind, int64_t x);

// Round-robin baton passing between the subgroup threads of one workgroup: exactly one subgroup
// runs at a time; a barrier passes the baton on, and a new barrier interval (phase) begins when
// every subgroup has arrived.
class SubgroupScheduler {
public:
  explicit SubgroupScheduler(int64_t n);
  // Runs `body(sg)` for every subgroup on its own thread. Returns the first error, if any.
  std::optional<InterpError> run(const std::function<void(int64_t)>& body);
  // Called by subgroup `sg` at a gpu.barrier.
  void barrier(int64_t sg, const ir::Operation& op);
  int64_t phase() const { return phase_; }

private:
  enum class State { Running, AtBarrier, Done };
  struct Abort {};
  void yieldFrom(int64_t sg, std::unique_lock<std::mutex>& lock);
  void waitTurn(int64_t sg, std::unique_lock<std::mutex>& lock);
  int64_t n_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t current_ = -1;
  int64_t phase_ = 0;
  bool abort_ = false;
  std::vector<State> state_;
  std::vector<const ir::Operation*> barrierOp_;
  std::optional<InterpError> error_;
};

}  // namespace xtc::interp
