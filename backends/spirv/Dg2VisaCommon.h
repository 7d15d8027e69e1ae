// Internal to backends/spirv: what dg2's two whole-K-loop inline-vISA statements share (the DPAS one,
// Dg2VisaLoop.cpp, and the f32 FMA one, Dg2VisaFmaLoop.cpp): LLVM values they compute before the
// statement from the loop's IR. Kept in one place so both statements compute their inputs the same way.
#pragma once

#include "backends/spirv/XeBuiltins.h"

#include <llvm/IR/IRBuilder.h>

namespace xtc::backend {

// A value of `loop`'s body that is bodyInvariant (LoopCoords.h), or defined outside the loop, computed
// before the loop in its own width (an index: i64), as the per-op emitter computes it (a convert
// sign-extends, from i1 zero-extends): a lane read's row, a prefetch program's invariant input.
llvm::Value* hoistInvariant(const ir::Value* v, const ir::Operation& loop, XeEmitContext& ctx, llvm::IRBuilder<>& b);

}  // namespace xtc::backend
