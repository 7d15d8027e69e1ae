// Internal to the lower-xe pass: the per-kernel lowering state, shared by the files that lower
// groups of ops (LowerXe.cpp: tiles, block IO, DPAS, layouts, control flow; further LowerXe*.cpp files
// for other op families) so each family can live in a file of its own. Not a public API.
#pragma once

#include "ir/Module.h"
#include "ir/ops/XeOps.h"
#include "ir/passes/LoweredValues.h"
#include "ir/passes/PassManager.h"
#include "ir/passes/RegisterBudget.h"
#include "ir/passes/XeCommon.h"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace xtc::passes::lowerxe {

using ir::Attribute;
using ir::AttrKind;
using ir::ElemKind;
using ir::Operation;
using ir::Type;
using ir::Value;

struct LowerError {};

// An SLM buffer of rows x cols stored in column panels `panel` (the subgroup size) wide
// (LowerXeSlm.cpp): element (r, c) at flat element (c / panel) * rows * panel + (r / pairs) * pairs *
// panel + pairs * (c % panel) + r % pairs of its rank-1 lowered buffer. pairs = 1: rows one after the
// other; pairs = 2 (the VNNI panels of a buffer read only as DPAS B operands): rows 2i and 2i+1
// interleaved, one dword per column.
struct SlmPanels {
  int64_t rows, cols, panel, pairs = 1;
};

// The surface of a 2D block message (i32 values but the base): what an init_tile's memref, shape
// and strides describe.
struct Surface {
  Value *base = nullptr, *width = nullptr, *height = nullptr, *pitch = nullptr;
};

struct TileState {
  Value* mem = nullptr;
  Type type;
  std::vector<Value*> offs;
  Surface surf;
  bool denseSurface = false;  // global, no explicit shape/strides: the surface is the whole memref
  // A global tile whose explicit shape (and row stride) is not its memref's own: the view's rows,
  // columns and row stride (index values) that per-lane accesses keep to (viewAccess); null otherwise.
  // viewFlat: the memref flattened (memref.flatten), set when the row stride is not provably the
  // memref's row width, so view element (r, c) is element r * stride + c of viewFlat (no division by
  // the width per access: the run-time bounds check of a flat index is one compare).
  Value *viewRows = nullptr, *viewCols = nullptr, *viewStride = nullptr, *viewFlat = nullptr;
  // A view pad-columns clamped (isClampedInit): checked by its memref's surface rules
  // (clampedSurfaceLegal), its per-lane accesses kept to the view like any other's.
  bool clamped = false;
  // A view on pvc whose surface rules are not known at compile time: the op after which its
  // condition is built (viewSurfaceRule), the last op of its surface, so the condition is defined
  // wherever the tile (and its surface) is used; null otherwise.
  Operation* viewAnchor = nullptr;
};

class KernelLowerXe {
public:
  KernelLowerXe(Operation* k, const targets::Target& t, DiagnosticEngine& d, bool inlineVisa = true,
                bool surfaceFallback = false)
      : kernel_(k), t_(t), S_(t.subgroupSize), diags_(d), inlineVisa_(inlineVisa), surfaceFallback_(surfaceFallback) {}
  void run();

private:
  [[noreturn]] void fail(const Operation& op, const std::string& msg) {
    diags_.error(op.loc(), "lower-xe: " + msg);
    throw LowerError{};
  }
  template <class T>
  T need(layout::Expected<T> e, const Operation& op) {
    if (!e) fail(op, e.error());
    return *e;
  }

  // Registers of `big` holding the block at (r0, c0) in the register order of the one-block layout
  // `one`, or nullopt when some lane holds another element there.
  std::optional<std::vector<int32_t>> gatherBlock(const layout::LinearLayout& big, const layout::LinearLayout& one,
                                                  int64_t r0, int64_t c0);
  Value* cIndex(int64_t v) {
    auto it = constIndex_.find(v);
    if (it != constIndex_.end()) return it->second;
    return constIndex_[v] = pro_.constantIndex(v);
  }
  Value* add(Value* a, Value* b) { return b_.create("arith.addi", {a, b}, {Type::index()})->result(); }
  Value* addC(Value* a, int64_t c) { return c == 0 ? a : add(a, cIndex(c)); }
  // Index arithmetic `name` (arith.*), an index compare (arith.cmpi `pred`) and i1 `and` for the
  // guards lower-xe builds.
  Value* indexOp(const char* name, Value* a, Value* b) { return b_.create(name, {a, b}, {Type::index()})->result(); }
  Value* cmpIndex(const char* pred, Value* a, Value* b) {
    return b_.create("arith.cmpi", {a, b}, {Type::scalar(ElemKind::I1)}, {{"predicate", Attribute::enumValue("cmpi", pred)}})
        ->result();
  }
  Value* andI1(Value* a, Value* b) { return b_.create("arith.andi", {a, b}, {Type::scalar(ElemKind::I1)})->result(); }
  Value* toI32(Value* v) { return b_.create("arith.convert", {v}, {Type::scalar(ElemKind::I32)})->result(); }
  std::vector<Value*> extractAll(Value* vec);
  Value* fromElements(const std::vector<Value*>& regs, ElemKind k) {
    return b_.create("vector.from_elements", regs, {Type::vector({static_cast<int64_t>(regs.size())}, k)})->result();
  }

  // The lane layout of a subgroup vector, checked to be one register set per lane of this subgroup.
  const layout::LinearLayout& laneLayout(const Type& t, const Operation& op);
  Type laneType(const Type& t, const Operation& op) {
    return Type::vector({xe::registersOf(laneLayout(t, op))}, t.elem());
  }
  Surface surface(Operation& init, const TileState& t);
  // Per out dim, this lane's share of the coordinate (the lane bits' contribution), as index values.
  std::vector<Value*> laneCoords(const layout::LinearLayout& l, const Operation& op);

  void lowerBlock(ir::Block& b);
  // pvc: the kernel attribute `view_memrefs` (memref parameters used only through views).
  void markViewOnlyMemRefs(ir::Block& body, const std::vector<std::unique_ptr<Operation>>& ops);
  void lowerOp(Operation& op);
  void lowerInitTile(Operation& op);
  void lowerUpdateOffset(Operation& op);
  void lowerLoadTile(Operation& op);
  void lowerPerLaneLoad(Operation& op);
  Value* perLaneLoadValue(Operation& op);
  // LowerXeBlockRead.cpp (dg2): a per-lane global load through row block reads behind a runtime
  // guard, the per-lane loads (`perLane`, built in the else branch) as the fallback; false when the
  // load's layout or memref does not allow block reads (nothing emitted).
  struct RowRead {
    int64_t row, col, q, n;      // tile-relative start, elements per slot, slots
    std::vector<int64_t> regs;   // the lane register of each element of the read, in read order
    // An xe.lane_read instead: each lane reads n units of q elements of its own row from (row, col)
    // plus its lane's coordinates (the layout's lane part); never a write.
    bool perLane = false;
  };
  std::optional<std::vector<RowRead>> planRowReads(const layout::LinearLayout& l, ElemKind ek);
  // Layouts whose low register bits run along the columns (each lane holds consecutive elements of
  // its own row: gemm_bt's and the RFC 2.2/2.3 B^T, a column of a tile in the lanes): lane reads.
  std::optional<std::vector<RowRead>> planLaneReads(const layout::LinearLayout& l, ElemKind ek);
  // The plan of a load of `rt` from tile `t` when the target, memref and layout allow block reads.
  std::optional<std::vector<RowRead>> readPlan(const TileState& t, const Type& rt, const Operation& op);
  // The block reads of `plan` (no guard), as the load's lane vector.
  Value* rowReads(const TileState& t, const Type& rt, const std::vector<RowRead>& plan, const Operation& op);
  // A memref's (base | row pitch in bytes) & 15 (surfaceLowBits) and whether it is 0 (alignedSurface).
  Value* surfaceLowBits(const TileState& t);
  Value* alignedSurface(const TileState& t);
  // Whether a block message of the whole `vt` tile at `t` is legal: inside the memref, aligned.
  Value* blockGuard(const TileState& t, const Type& vt);
  // The same condition as one compare of ORed bits, in 32-bit arithmetic (mergeBlockGuards chooses),
  // from its parts (recorded in compactParts_), which mergeBlockGuards ORs across guards.
  struct CompactParts {
    Value* align = nullptr;       // index: the bits that must be 0 for the messages' alignment (< 16)
    std::vector<Value*> offsets;  // index: the tile's offsets, each must be below 2^30
    std::vector<Value*> diffs;    // i32: per dimension i32(size) - (i32(offset) + extent), sign clear
    // Per offset, bytes of the memref up to the tile's last element per unit of the offset when the
    // tile is inside (rangeCondition): a row offset's unit is a row, at least the tile's columns
    // (C x element bytes); a column offset's R elements (the tile's last row starts R - 1 rows on,
    // each at least c0 elements long). Under the 4 GiB ABI (docs/abi.md) offset x unit < 2^32.
    std::vector<int64_t> units;
  };
  Value* compactGuard(const TileState& t, const Type& vt);
  Value* compactCondition(ir::Builder& b, const std::vector<const CompactParts*>& parts);
  // compactCondition's range form, one unsigned compare X < 2^s (and the high halves' == 0), when the
  // range it narrows to drops no tile the 4 GiB ABI allows; null otherwise (nothing emitted).
  Value* rangeCondition(ir::Builder& b, const std::vector<const CompactParts*>& parts);
  bool lowerBlockReadLoad(Operation& op, const std::function<Value*()>& perLane);
  // A two-armed scf.if on a subgroup-uniform `guard`: `block` emits the then arm (the block or 2D
  // messages), `fallback` the else arm (per lane); each returns the value its arm yields, or null
  // when the if has no result (`result` empty: stores, prefetches). The guards of lower-xe
  // (LowerXeBlockRead.cpp, LowerXeSurface.cpp) all take this form.
  Operation* guardedIf(Value* guard, const std::optional<Type>& result, const std::function<Value*()>& block,
                       const std::function<Value*()>& fallback);
  // A store_tile of `regs` (lane layout `l`) through row block writes under blockGuard, the per-lane
  // stores the fallback; false when the layout or memref does not allow it (nothing emitted).
  bool lowerBlockWriteStore(Operation& op, const TileState& t, const layout::LinearLayout& l, const std::vector<Value*>& regs);
  // A loop whose loads walk loop-carried tiles by constant steps as an interior loop (those loads
  // block reads, unguarded) and an edge loop (per-lane); false when no load qualifies (nothing emitted).
  bool lowerForVersioned(Operation& op);
  // A kernel without a loop with more than one such guard: one guard for all (mergeBlockGuards).
  void mergeBlockGuards(ir::Block& body);
  std::vector<Operation*> guards_;  // the scf.ifs of lowerBlockReadLoad/lowerBlockWriteStore, in order
  std::vector<Value*> compactGuards_;  // each guard's compactGuard
  std::vector<CompactParts> compactParts_;  // and its parts
  // The interior loop's 32-bit counting (index_bits = 32): the tiles it carries (each with its
  // constant step and its walk's load, if one reads it) when every index it carries is such a tile's
  // offset and its only tile loads are the walks; nullopt otherwise.
  struct Carried {
    TileState init;
    int64_t delta[2];
    Operation* load;
  };
  std::optional<std::vector<Carried>> narrowable(Operation& op, const std::vector<Operation*>& walks);
  // A loop with a barrier (lowerForVersioned): its trip count when the IR proves every walk (a load
  // from a tile the loop steps by `delta`) inside its static memref in every iteration of every
  // subgroup, its first column 16-byte aligned; nullopt otherwise. staticFits31: fits31 proven from
  // the same ranges (no run-time compare, which would differ between subgroups).
  struct StaticWalk {
    Operation* load;
    TileState init;
    int64_t delta[2];
  };
  std::optional<int64_t> staticInterior(Operation& op, const std::vector<StaticWalk>& walks);
  bool staticFits31(Operation& op, const std::vector<Carried>& carried, int64_t trips);
  // The condition (i1) that the counter and every carried offset and walk byte offset stay in
  // [0, 2^31) for iterations 0..n of a loop from lb by step.
  Value* fits31(const std::vector<Carried>& carried, Value* lb, int64_t step, Value* n);
  std::map<const Value*, Value*> alignedSurface_, surfaceLowBits_;
  std::map<const Operation*, bool> blockMode_;  // loads of a versioned loop: block reads or per-lane
  static bool holdsBarrier(Operation& loop);     // a gpu.barrier at any depth
  bool sliceBarrier_ = false;  // a slice loop (split-accumulators) holds a barrier: none is versioned
  void lowerStoreTile(Operation& op);
  // `emit` false: only whether the store (prefetch) has a block form; nothing is built.
  bool storeBlocks(Operation& op, const TileState& t, const layout::LinearLayout& l, const std::vector<Value*>& regs,
                   bool emit = true);
  bool prefetchBlocks(const TileState& t, int64_t cache, bool emit = true);
  // LowerXeSurface.cpp (pvc): the 2D block messages' surface rules (reference §2.5), which the run
  // time decides for a dynamic memref. surfaceRule: whether the tile's surface keeps them (known
  // at compile time, or an i1 value); surfaceChoice: how a 2D message at this point is emitted.
  struct SurfaceRule {
    std::optional<bool> known;
    Value* ok = nullptr;  // when !known
  };
  SurfaceRule surfaceRule(const TileState& t, bool build = true);
  // The same for an explicit view (base = its memref's, width = view columns x element bytes,
  // height = view rows, pitch = row stride x element bytes), checked by default; `build` false: only
  // what is known at compile time (nothing emitted).
  SurfaceRule viewSurfaceRule(const TileState& t, bool build);
  enum class Choice { Block, PerLane, Guarded };
  Choice surfaceChoice(const TileState& t, Value** guard);
  // A loop whose 2D messages' surfaces are not all known to keep the rules: an interior loop (the 2D
  // messages, unguarded) that runs every iteration when the rules hold and none otherwise, then an
  // edge loop (per-lane messages) for the rest; false when nothing needs it (nothing emitted).
  bool lowerForSurfaces(Operation& op);
  // The tile state a tile value of the tile-level IR has where `user` reads it, traced through loop
  // arguments, offset updates and init_tile (whose memref must be lowered): enough for surfaceRule
  // on a dense surface; nullopt otherwise.
  std::optional<TileState> traceTile(Value* v, const Operation& user);
  bool denseInit(Operation& init) const;  // init_tile's surface is its whole dense global memref
  static bool isMemRefDim(Value* v, Value* mem, int64_t d);  // v is provably dimension d of memref `mem`
  // The per-lane fallback of a 2D load (pvc surface rules): each register's row and column clamped
  // into the memref (to 0 when it is empty) and read unchecked (`in_bounds` lane.load), the padding
  // selected in where the unclamped element is outside.
  // Registers [lo, hi) only (hi < 0: all): one message's chunk of a guarded load.
  Value* surfaceLaneLoadValue(Operation& op, int64_t lo = 0, int64_t hi = -1);
  // The per-lane stores where a surface rule fails (--surface-fallback): masked in_bounds lane.stores.
  void surfaceLaneStores(Operation& op, const TileState& t, const layout::LinearLayout& l, const std::vector<Value*>& regs);
  struct MemDims {
    Value *rows = nullptr, *cols = nullptr;
    Value *lastRow = nullptr, *lastCol = nullptr;  // i32: the clamps' bounds (0 for an empty memref)
    Value* nonEmpty = nullptr;                     // i1, or null when the static extents decide
    bool emptyStatic = false;                      // a static extent is 0: padding only
  };
  std::map<const Value*, MemDims> memDims_;  // per memref, built in the prologue
  MemDims& surfaceDims(const TileState& t);  // built on first use
  // memref.slice (batch-slice): each memref's surface and base are prologue values, so a slice is
  // built there too, its index rebuilt from the chain batch-slice proved prologue-computable.
  void lowerMemRefSlice(Operation& op);
  Value* prologueValue(Value* v, const Operation& user);
  std::map<Value*, Value*> prologueValues_;                 // tile-level value -> its prologue copy
  std::map<std::pair<Value*, Value*>, Value*> slices_;      // (memref, prologue index) -> slice
  std::map<Value*, Value*> flatMemRefs_;                    // memref -> its memref.flatten (viewAccess)
  Value* sliceAligned(const TileState& t);                  // pvc: i1, a slice's base 64-byte aligned
  static bool sliceStaticallyAligned(const Value* mem);     // true also for a memref that is no slice
  enum class SurfaceMode { Guard, Block, PerLane };
  SurfaceMode surfaceMode_ = SurfaceMode::Guard;  // inside lowerForSurfaces' interior / edge loop
  std::map<std::pair<const Value*, int64_t>, SurfaceRule> surfaceRules_;  // per (memref, element bytes)
  // Per view (rows, columns, row stride, element bytes) and where its condition was built (the
  // view's anchor, or the block lowerForSurfaces built it in).
  std::map<std::tuple<const Value*, const Value*, const Value*, int64_t, const void*>, SurfaceRule> viewRules_;
  void lowerPrefetch(Operation& op);
  void lowerMma(Operation& op);
  void lowerConvert(Operation& op);
  void lowerFor(Operation& op);
  void lowerIf(Operation& op);
  void lowerElementwise(Operation& op);
  // LowerXeTranspose.cpp: tile.transpose (no code: the registers keep, the layout swaps); the x
  // coordinate of a message, in its access elements (dwords of 16-bit pairs for a transposed d32).
  void lowerTranspose(Operation& op);
  Value* transposedX(const xe::Message& m, Value* col);
  // Destination register r of a shuffle plan whose source register differs per lane.
  Value* shuffleVaryingRegister(const Operation& op, const std::vector<Value*>& src, const std::vector<int64_t>& regs,
                                const std::vector<int64_t>& lanes, int64_t r, ElemKind k);
  // A shuffle plan with lane-dependent source registers in three phases (xe::planDiagonal), or nullopt.
  std::optional<std::vector<Value*>> diagonalShuffles(const Operation& op, const std::vector<Value*>& src,
                                                      const std::vector<int64_t>& regs, const std::vector<int64_t>& lanes,
                                                      ElemKind k);
  // f(lane) of a table over the lanes that is affine over xor, as an index value (else an error).
  Value* laneAffine(const Operation& op, const std::vector<int64_t>& f, const char* what);
  // LowerXeRowOps.cpp: tile.reduction and tile.broadcast on lane layouts; LowerXeFma.cpp: f32 tile_mma.
  void lowerReduction(Operation& op);
  void lowerBroadcast(Operation& op);
  Value* combine(const std::string& kind, ElemKind ek, Value* a, Value* b);
  void lowerFmaMma(Operation& op);
  // LowerXeAtomic.cpp: one lane op `name` (lane.store, lane.atomic) per register of `regs` (lane layout
  // `l`) at its element of tile `t`, masked to one replica; the results of the ops that have one.
  std::vector<Value*> perLaneWrites(const std::string& name, const TileState& t, const layout::LinearLayout& l,
                                    const std::vector<Value*>& regs, const ir::AttrMap& attrs, const Operation& op);
  void lowerAtomic(Operation& op);

  // LowerXeSlm.cpp: gpu.slm_alloc (its swizzle kept per lowered buffer) and per-lane SLM tile stores;
  // swizzleSlm applies a buffer's swizzle to the indices of an access (no-op for other buffers).
  void lowerSlmAlloc(Operation& op);
  void swizzleSlm(const TileState& t, std::vector<Value*>& idx, Value** mask);
  // A per-lane access to element idx = (row, col) of tile t: for a tile over an explicit view, idx
  // becomes the memref element the view puts there and *mask also requires (row, col) inside the
  // view's shape (a lane.load reads the padding, a lane.store drops the value outside it). No-op for
  // other tiles.
  // The memref a per-lane access at idx (row, col of the tile's memref) goes to; through a view,
  // idx becomes its index there and mask also drops what falls outside the view.
  Value* viewAccess(const TileState& t, std::vector<Value*>& idx, Value** mask);
  void lowerSlmStore(Operation& op, const TileState& t, const layout::LinearLayout& l, const std::vector<Value*>& regs);
  std::map<const Value*, std::vector<int64_t>> slmSwizzle_;
  // Panels: whether every access of a gpu.slm_alloc fits block messages; its messages for a lane
  // layout (first element relative to the tile origin, registers in message order); the flat element
  // of a tile's origin; a load through block reads.
  std::optional<SlmPanels> planSlmPanels(const Operation& alloc);
  std::vector<std::pair<int64_t, std::vector<int64_t>>> panelMessages(const layout::LinearLayout& l, const SlmPanels& p);
  Value* panelBase(const TileState& t, const SlmPanels& p);
  void lowerSlmBlockLoad(Operation& op, const TileState& t, const SlmPanels& p);
  std::map<const Value*, SlmPanels> slmPanels_;

  Operation* kernel_;
  const targets::Target& t_;
  int64_t S_;
  DiagnosticEngine& diags_;
  bool inlineVisa_;  // PassContext::inlineVisa
  bool surfaceFallback_;  // PassContext::surfaceFallback
  ir::Builder b_, pro_;
  Value* laneId_ = nullptr;
  std::map<int64_t, Value*> constIndex_;
  LoweredValues<TileState> vals_{[this](const Operation& op, const std::string& msg) { fail(op, msg); }};
  std::unordered_map<Value*, Value*> bases_;
  // A memref's xe.base_address, once, in the prologue.
  Value* baseAddress(Value* mem) {
    Value*& b = bases_[mem];
    if (!b) b = pro_.create("xe.base_address", {mem}, {Type::scalar(ElemKind::I64)})->result();
    return b;
  }
  std::map<std::string, std::vector<Value*>> laneCoordCache_;
  LoopRegisters worstLoopRegs_;           // the largest register estimate over the kernel's loops
  const Operation* worstLoop_ = nullptr;  // its loop (for the large file and the spill warning)
  std::map<const Operation*, int64_t> topEpilogue_;  // the epilogue estimate of each loop of the body
};

}  // namespace xtc::passes::lowerxe
