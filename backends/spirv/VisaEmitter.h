// Internal to backends/spirv: the xe.* ops that IGC 1.0.12504 has no builtin for (2D block store,
// 2D block prefetch), emitted as inline vISA through SPV_INTEL_inline_assembly (reference §3, §9) or,
// with --xe-codegen=builtins, as the portable per-lane forms the builtins path can express; and, in
// vISA mode, the d16 16x8x2 load as two 1x16x8 loads whose results are DPAS A operands as they are. Every
// vISA text this file writes has a probe in tests/isa/builtins/visa_*.ir that compiles it through
// xtc and checks the instruction and its decoded block shape.
#pragma once

#include "backends/spirv/SpirvBackend.h"
#include "backends/spirv/XeBuiltins.h"

#include <optional>
#include <string>

namespace xtc::backend {

// Emits `op` if it is one of this file's ops: "" on success, an error text otherwise; nullopt when
// the op is not handled here (the caller goes on to XeBuiltins.cpp).
std::optional<std::string> emitVisaOp(const ir::Operation& op, XeEmitContext& ctx, XeCodegen mode);

}  // namespace xtc::backend
