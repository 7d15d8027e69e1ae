// Internal to backends/spirv: f32 `exp` and division for pvc/dg2 in vISA mode, written out in LLVM
// from the instructions IGC 1.0.12504 expands OpenCL's `exp` and `/` into, so that IGC's expansions
// (late, per call, each with its own flag registers) do not run. Why: softmax's 32 exps and 32
// divisions expanded at once need more predicates than pvc's 8 flag registers hold, and IGC moved
// them through GRFs (benchmarks/xe-isa-notes.md, "softmax on pvc"). Written out, neither needs a
// flag: the exp's range fix-ups are a clamp (min/max), and the division's scale comes from the
// divisor's exponent by integer min/max where IGC compares twice (with those two compares softmax's
// 8 divisor parts held 16 flags, 10 flag moves). The exp is IGC's instructions on the same values;
// the division's scale is another power of two where that keeps every step exact; both give IGC's
// results bit for bit (docs/hardware.md, "exp and division"). tests/unit/backend/XeMathModelTest.cpp
// checks the formulas' f32 arithmetic, tests/isa/builtins/xe_math_{pvc,dg2}_f32.ir the instructions.
#pragma once

#include <cstdint>

namespace llvm {
class IRBuilderBase;
class Module;
class Value;
}  // namespace llvm

namespace xtc::backend {

// IGC's constants (read in its ISA: benchmarks/floor-probes/exp_8x16.xt and div_8x16.xt on pvc).
namespace xemath {
inline constexpr uint32_t kLog2E = 0x3FB8AA3Bu;       // 1.442695f, log2(e)
inline constexpr uint32_t kMinusLn2Hi = 0xBF317200u;  // -ln 2, high part (15 significant bits)
inline constexpr uint32_t kMinusLn2Lo = 0xB5BFBE8Eu;  // -ln 2, the rest
// k = trunc(x * log2 e) is clamped to [-kMaxK, kMaxK]: a no-op where IGC's exp computes (|x| <= 105,
// |k| <= 151), and 2^+-152 is inf / 0, which is what IGC's range fix-ups give outside.
inline constexpr float kMaxK = 152.0f;
inline constexpr uint32_t kExpMask = 0x7F800000u;    // a divisor's exponent bits
inline constexpr uint32_t kOneBits = 0x3F800000u;    // 1.0f
inline constexpr uint32_t kScaleLoExp = 32u << 23;   // xtc's scale: 2^(32 - k) below exponent 32
inline constexpr uint32_t kScaleHiExp = 129u << 23;  // and 2^(129 - k) above 129
}  // namespace xemath

// exp(x) for an f32 x: k = clamp(trunc(x * log2e), -152, 152); r = fma(k, -ln2lo, fma(k, -ln2hi, x));
// native_exp2(k) * native_exp2(r * log2e) (native_exp2 is pvc/dg2's `math.exp`).
llvm::Value* emitXeExpF32(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* x);

// x / y for f32: (native_recip(y * s) * x) * s (native_recip is `math.inv`) with s = 2^(32 - k) for
// y's exponent field k < 32 (2^32 for a zero or denormal y, as IGC's), 1 for 32 <= k <= 129 and
// 2^(129 - k) above. IGC's s is 2^32, 1 and 2^-32 (k >= 200), which takes two compares; where the
// two differ, y * s, its reciprocal and the product with x stay normal f32s for every x whose
// quotient is one, so each step is IGC's scaled by a power of two: the same bits.
llvm::Value* emitXeDivF32(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* x, llvm::Value* y);

}  // namespace xtc::backend
