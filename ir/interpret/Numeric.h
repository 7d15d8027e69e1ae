// Exact bit-level numeric helpers of the reference interpreter: bf16/f16 <-> f32 conversions with
// round-to-nearest-even (ties to even, subnormals kept, NaN stays NaN with its sign and is quieted,
// overflow rounds to infinity), rounding of a double to any float element type with a single
// rounding, integer wrap-around to an element width, and raw loads/stores of one element.
#pragma once

#include "ir/Type.h"

#include <cstdint>

namespace xtc::interp {

float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float f);
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float f);
// f64 -> f16 / bf16 with one rounding (not f64 -> f32 -> f16, which can round twice).
uint16_t doubleToHalf(double d);
uint16_t doubleToBf16(double d);
// tf32: an f32 whose low 13 mantissa bits are zero (round-to-nearest-even on the 10-bit mantissa).
float floatToTf32(float f);

// Rounds `d` to the nearest value of float element kind `k` (RNE) and returns it as a double.
double roundToElem(double d, ir::ElemKind k);
// Rounds the integer `v` once to float element kind `k` (RNE): not via the nearest double, which
// rounds twice for |v| > 2^53 (2^60 + 2^36 + 1 gave 2^60 in f32, not 2^60 + 2^37).
double roundIntToElem(int64_t v, ir::ElemKind k);
// Wraps `v` to the width of integer kind `k` (sign-extended; i1 is 0 or 1; index and i64 unchanged).
int64_t wrapToElem(int64_t v, ir::ElemKind k);
// The unsigned view of an integer of kind `k` (i1 0/1, i8 0..255, ...).
uint64_t unsignedOf(int64_t v, ir::ElemKind k);

// float -> integer of kind `k`: truncates toward zero, saturates at the type's range, NaN gives 0
// (C++ leaves these cases undefined; OpenCL's convert_*_sat does the same).
int64_t floatToIntSat(double v, ir::ElemKind k);

// Bytes one element of kind `k` takes in memory (i1 takes 1 byte, index 8, bf16/f16 2, tf32 4).
unsigned elemBytes(ir::ElemKind k);

// Raw element access in memory (`p` points at one element). Floats come back as double, exactly;
// integers sign-extended (i1 as 0/1).
double loadFloat(ir::ElemKind k, const uint8_t* p);
int64_t loadInt(ir::ElemKind k, const uint8_t* p);
// Stores with the conversion to the element type (floats: RNE; integers: wrap).
void storeFloat(ir::ElemKind k, uint8_t* p, double v);
void storeInt(ir::ElemKind k, uint8_t* p, int64_t v);

}  // namespace xtc::interp
