// Lane-level ops: the ops the generic lowering (ir/passes/LowerGeneric.cpp) produces besides
// arith/math/scf/gpu, where every value belongs to one work-item (lane) of a subgroup.
// The contract is documented in docs/passes.md, section "Lane level".
#pragma once

namespace xtc::ir {

// Registers lane.load, lane.store, lane.atomic, lane.broadcast, lane.shuffle, lane.reduce, lane.fma,
// vector.extract, vector.insert and vector.from_elements with their verifiers. Idempotent.
void registerLaneOps();

}  // namespace xtc::ir
