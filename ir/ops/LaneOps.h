// Lane-level ops: the ops the generic lowering (ir/passes/LowerGeneric.cpp) produces besides
// arith/math/scf/gpu, where every value belongs to one work-item (lane) of a subgroup.
// The contract is documented in docs/passes.md, section "Lane level".
#pragma once

#include "ir/Type.h"

#include <string>

namespace xtc::ir {

// Whether the SPIR-V backend lowers `lane.reduce {kind}` on `elem` (to OpenCL's sub_group_reduce_*,
// a log2(S) tree IGC builds from uniform ops): add, max and min on f16, f32, f64, i32 and i64. The
// lowerings reduce over all lanes with it where it applies and fall back to xor-shuffle butterflies.
inline bool laneReduceLowers(const std::string& kind, ElemKind elem) {
  return (kind == "add" || kind == "max" || kind == "min") &&
         (elem == ElemKind::F16 || elem == ElemKind::F32 || elem == ElemKind::F64 || elem == ElemKind::I32 ||
          elem == ElemKind::I64);
}

// The element type a tile.reduction of `elem` combines in: bf16 (no arithmetic on the targets) and
// the f16 sums and products in f32, rounded once at the end as the interpreter does (an f16 sum of a
// 64-wide row combined in f16 was 3 ulps off the exactly rounded sum: kernel-sweep, #11); max and min
// round nothing, so f16 keeps them.
inline ElemKind reductionElem(const std::string& kind, ElemKind elem) {
  if (elem == ElemKind::BF16 || (elem == ElemKind::F16 && (kind == "add" || kind == "mul"))) return ElemKind::F32;
  return elem;
}

// Registers lane.load, lane.store, lane.atomic, lane.broadcast, lane.shuffle, lane.reduce, lane.fma,
// vector.extract, vector.insert and vector.from_elements with their verifiers. Idempotent.
void registerLaneOps();

}  // namespace xtc::ir
