// bf16 arithmetic for the lowerings to lane-level IR (lower-generic, lower-xe): no target of xtc
// has bf16 ALU instructions, so an element-wise arith/math op with a bf16 operand is emitted in f32:
// each bf16 operand widened (arith.convert, exact), the op done in f32, each bf16 result rounded
// back to nearest even (arith.convert) right away. One rounding per op, as the interpreter rounds
// every bf16 op once (ir/interpret/ExecArith.cpp). For + - * of bf16 operands (and max, min, neg,
// abs, floor, ceil, which are exact) the device's result is then the interpreter's bit for bit: f32
// keeps more than 2 * 8 + 2 significand bits, so rounding to f32 first is innocuous. Division and
// the math functions are as close as the device's f32 ones (pvc/dg2 divide like IGC, not correctly
// rounded), then rounded once. Compares keep their i1 results; select, constants and conversions
// are not arithmetic and keep their types.
#pragma once

#include "ir/Builder.h"
#include "ir/Operation.h"

#include <vector>

namespace xtc::passes {

// Creates `op`'s lane-level copy with the given (already lowered) operands, result types and
// attributes at `b`, widening bf16 arithmetic as above; returns the new results (bf16 where `op`'s
// are), each named after `op`'s.
std::vector<ir::Value*> createElementwise(ir::Builder& b, const ir::Operation& op, std::vector<ir::Value*> operands,
                                          std::vector<ir::Type> results, const ir::AttrMap& attrs);

}  // namespace xtc::passes
