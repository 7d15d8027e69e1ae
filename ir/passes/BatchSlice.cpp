// The `batch-slice` pass (every target; after wg-distribute and order-transpose, before the lowering).
//
// Why: a batched kernel keeps its matrices in a memref of rank 3 or more (`memref<?x?x?xf16>`, matrix
// b at [b, 0, 0]) and makes 2-D tiles at [b, m, n]. The Xe passes address a tile by its rank-2
// memref (a 2D block message's surface is one matrix: its base, width, height and pitch; dg2's row
// reads the same), so such kernels took the portable path: a batched GEMM ran on FMAs, without DPAS
// or block messages, and without a word to the user.
//
// What: an init_tile over a dense row-major global memref of rank r >= 3, without explicit shape
// or strides, with a rank-2 tile, becomes an init_tile over `memref.slice` (r - 2 times: the matrix
// at the leading offsets) at its last two offsets. The slice is a dense rank-2 memref whose base is
// the batch's matrix, so every later pass sees an ordinary matrix; its index is uniform. Only
// leading offsets lower-xe can compute in the kernel's prologue (where it builds each memref's
// surface and base address once) are taken: kernel arguments, group ids and counts, memref dims,
// constants and integer arithmetic on them (prologueComputable), all the same in every subgroup of
// a workgroup (a K loop lower-xe versions on a slice's alignment may hold a barrier, which every
// subgroup must then meet in the same iteration). A batch index that is a loop variable or a
// subgroup id keeps the kernel on the portable path, as before.
// A column-major batch (`strides = [?, 1, ?]`) is already a memref.transpose view here
// (order-transpose), dense row-major, so it is sliced the same way. Kernels without such a tile are
// left as they were.
#include "ir/Builder.h"
#include "ir/Module.h"
#include "ir/passes/PassManager.h"

#include <map>
#include <optional>
#include <set>

namespace xtc::passes {

using ir::Operation;
using ir::Type;
using ir::Value;

namespace {

// Values lower-xe can rebuild in the prologue (LowerXe.cpp prologueValue): no loop variable, no
// load, no lane-dependent op. `seen` guards against walking a shared chain twice.
bool prologueComputable(Value* v, const ir::Block& body, std::set<Value*>& seen) {
  if (!seen.insert(v).second) return true;
  if (v->isBlockArgument()) return v->ownerBlock() == &body;  // a kernel parameter
  Operation* def = v->definingOp();
  static const std::set<std::string> pure{
      "arith.constant", "arith.addi",  "arith.subi",  "arith.muli",    "arith.divui",     "arith.divsi",    "arith.remui",
      "arith.remsi",    "arith.andi",  "arith.ori",   "arith.xori",    "arith.shli",      "arith.shrui",    "arith.shrsi",
      "arith.minui",    "arith.minsi", "arith.maxui", "arith.maxsi",   "arith.ceildivsi", "arith.floordivsi", "gpu.group_id",
      "gpu.num_groups", "memref.dim"};
  if (!def || !pure.count(def->name()) || def->numRegions() != 0) return false;
  for (Value* o : def->operands())
    if (!prologueComputable(o, body, seen)) return false;
  return true;
}

// A product of a constant and dims of `mem` (static dims folded into the constant), as far as the
// ops that make `v` show it; nullopt for anything else.
struct Product {
  int64_t constant = 1;
  std::multiset<int64_t> dims;  // the dynamic dims
  bool operator==(const Product&) const = default;
};
std::optional<Product> productOf(Value* v, Value* mem) {
  Operation* def = v->definingOp();
  if (!def) return std::nullopt;
  if (def->is("arith.constant") && def->attr("value")->isa(ir::AttrKind::Int)) return Product{def->attr("value")->getInt(), {}};
  if (def->is("memref.dim") && def->operand(0) == mem) {
    int64_t d = def->intAttr("index", -1), extent = mem->type().shape().at(static_cast<size_t>(d));
    return extent == ir::kDynamic ? Product{1, {d}} : Product{extent, {}};
  }
  if (def->is("arith.muli")) {
    std::optional<Product> a = productOf(def->operand(0), mem), b = productOf(def->operand(1), mem);
    if (!a || !b) return std::nullopt;
    a->constant *= b->constant;
    a->dims.insert(b->dims.begin(), b->dims.end());
    return a;
  }
  return std::nullopt;
}

// Offsets only, or explicit shape and strides that are the memref's own dense ones (order-transpose
// writes them out for a column-major batch's row-major view).
bool ownDenseView(const Operation& init) {
  Value* mem = init.operand(0);
  auto r = static_cast<unsigned>(mem->type().rank());
  if (init.numOperands() == 1 + r) return true;
  if (init.numOperands() != 1 + 3 * r) return false;
  const std::vector<int64_t>& shape = mem->type().shape();
  Product stride;  // of dimension i: the product of the extents after it
  for (unsigned i = r; i-- > 0;) {
    Product extent = shape[i] == ir::kDynamic ? Product{1, {static_cast<int64_t>(i)}} : Product{shape[i], {}};
    if (productOf(init.operand(1 + r + i), mem) != extent || productOf(init.operand(1 + 2 * r + i), mem) != stride) return false;
    stride.constant *= extent.constant;
    stride.dims.insert(extent.dims.begin(), extent.dims.end());
  }
  return true;
}

bool sliceable(const Operation& init) {
  const Type& src = init.operand(0)->type();
  const Type& tile = init.result()->type();
  if (!src.isMemRef() || src.rank() < 3 || !src.strides().empty() || src.memSpace() != ir::MemSpace::Global) return false;
  if (tile.rank() != 2 || tile.tileInfo().scattered) return false;
  return ownDenseView(init);
}

void sliceKernel(Operation* kernel) {
  ir::Block& body = ir::kernelBody(kernel);
  std::vector<Operation*> inits;
  kernel->walk([&](Operation* o) {
    if (o->is("tile.init_tile") && sliceable(*o)) inits.push_back(o);
  });
  // One slice per (memref, index) where it can be shared: a later pass compares tiles' memrefs as
  // values (split-accumulators: does the epilogue load the rectangle its store writes?), so the
  // same matrix must be the same value. A slice whose index is a parameter or defined in the body
  // goes before the body op holding the init_tile, where it dominates every later one.
  std::map<std::pair<Value*, Value*>, Value*> shared;
  for (Operation* init : inits) {
    auto rank = static_cast<unsigned>(init->operand(0)->type().rank());
    std::set<Value*> seen;
    bool ok = true;
    for (unsigned d = 0; d + 2 < rank; ++d) ok = ok && prologueComputable(init->operand(1 + d), body, seen);
    if (!ok) continue;
    Operation* top = init;
    while (top->parentBlock() != &body) top = top->parentOp();
    ir::Builder b;
    b.setLoc(init->loc());
    Value* mem = init->operand(0);
    bool here = false;  // a level went before the init_tile: the levels after it go there too
    for (unsigned d = 0; d + 2 < rank; ++d) {
      Value* index = init->operand(1 + d);
      Operation* def = index->definingOp();
      bool atTop = !here && (!def || def->parentBlock() == &body);  // a parameter or a body op (before `top`)
      here = !atTop;
      if (atTop)
        if (auto it = shared.find({mem, index}); it != shared.end()) {
          mem = it->second;
          continue;
        }
      b.setInsertionPoint(atTop ? top : init);
      const Type& mt = mem->type();
      std::vector<int64_t> inner(mt.shape().begin() + 1, mt.shape().end());
      Value* slice = b.create("memref.slice", {mem, index}, {Type::memref(inner, mt.elem(), mt.memSpace())})->result();
      if (atTop) shared[{mem, index}] = slice;
      mem = slice;
    }
    b.setInsertionPoint(init);
    Operation* sliced = b.create("tile.init_tile", {mem, init->operand(rank - 1), init->operand(rank)}, {init->result()->type()},
                                 init->attrs());
    sliced->removeAttr("segments");  // offsets only: the default
    sliced->result()->setNameHint(init->result()->nameHint());
    init->result()->replaceAllUsesWith(sliced->result());
    init->erase();
  }
}

class BatchSlicePass : public Pass {
public:
  std::string name() const override { return "batch-slice"; }
  std::string description() const override {
    return "2-D tiles of a batch (a memref of rank 3 or more) become tiles of its matrix (memref.slice)";
  }
  bool run(Operation* module, PassContext& ctx) override {
    (void)ctx;
    for (Operation* k : ir::moduleKernels(module))
      if (!k->hasAttr("target")) sliceKernel(k);  // already lowered kernels are lane-level
    return true;
  }
};

}  // namespace

void registerBatchSlicePass() {
  registerPass("batch-slice", [] { return std::make_unique<BatchSlicePass>(); });
}

}  // namespace xtc::passes
