// Bit-exact conversions between f32/f64 and the 16-bit float formats, and raw element access.
#include "ir/interpret/Numeric.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace xtc::interp {

using ir::ElemKind;

float bf16ToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

uint16_t floatToBf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)  // NaN: keep sign and top payload bits, force quiet
    return static_cast<uint16_t>((u >> 16) | 0x0040u);
  // Adding 0x7fff plus the lsb of the kept part rounds half to even; a carry out of the mantissa
  // correctly bumps the exponent (up to infinity).
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    u = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man == 0) {
    u = sign;
  } else {
    // Subnormal half: man * 2^-24 is a normal float; compute it exactly.
    float v = static_cast<float>(man) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(u);
}

uint16_t floatToHalf(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u)  // NaN: quiet, keep the top payload bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
  // 65520 is halfway between the largest half (65504) and 2^16; the tie goes to the even
  // neighbour, which is infinity.
  if (u >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (u >= 0x38800000u) {  // normal half range: rebias exponent by 127 - 15
    uint32_t v = u - (112u << 23);
    v += 0xfffu + ((v >> 13) & 1u);
    return static_cast<uint16_t>(sign | (v >> 13));
  }
  // Subnormal (or zero) half: the result counts units of 2^-24. 2^-25 exactly ties to 0.
  if (u <= 0x33000000u) return sign;
  uint32_t e = u >> 23;
  uint32_t m = (u & 0x7fffffu) | 0x800000u;  // value = m * 2^(e-150)
  uint32_t shift = 126u - e;                  // value / 2^-24 = m >> shift
  uint32_t h = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1u);
  if (rem > halfway || (rem == halfway && (h & 1u))) ++h;  // may become the smallest normal: fine
  return static_cast<uint16_t>(sign | h);
}

namespace {
// f64 -> f32 rounded to odd: truncate, then set the last bit if anything was lost. A later
// round-to-nearest-even to a format with at least two fewer mantissa bits is then exactly the
// single rounding of the original double.
float roundToOddFloat(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || !std::isfinite(f) || static_cast<double>(f) == d) return f;
  if ((std::bit_cast<uint32_t>(f) & 1u) == 0)
    f = std::nextafter(f, d > static_cast<double>(f) ? std::numeric_limits<float>::infinity()
                                                      : -std::numeric_limits<float>::infinity());
  return f;
}
}  // namespace

uint16_t doubleToHalf(double d) { return floatToHalf(roundToOddFloat(d)); }
uint16_t doubleToBf16(double d) { return floatToBf16(roundToOddFloat(d)); }

float floatToTf32(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::bit_cast<float>(u | 0x00400000u);
  u += 0xfffu + ((u >> 13) & 1u);
  u &= ~0x1fffu;
  return std::bit_cast<float>(u);
}

double roundToElem(double d, ElemKind k) {
  switch (k) {
    case ElemKind::F64: return d;
    case ElemKind::F32: return static_cast<double>(static_cast<float>(d));
    case ElemKind::F16: return static_cast<double>(halfToFloat(doubleToHalf(d)));
    case ElemKind::BF16: return static_cast<double>(bf16ToFloat(doubleToBf16(d)));
    case ElemKind::TF32: return static_cast<double>(floatToTf32(roundToOddFloat(d)));
    default: throw std::logic_error("roundToElem: not a float element kind");
  }
}

double roundIntToElem(int64_t v, ElemKind k) {
  if (k == ElemKind::F64) return static_cast<double>(v);
  // Round to odd at 53 bits (keep the leading 53 bits, set the last if a lower one was set): then
  // the double is exact and rounding it to k (at most 24 bits) is the single rounding of v.
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int len = 64 - std::countl_zero(u);
  if (len > 53) {
    int sh = len - 53;
    uint64_t low = u & ((uint64_t(1) << sh) - 1);
    u = (u >> sh << sh) | (low ? uint64_t(1) << sh : 0);
  }
  double d = static_cast<double>(u);
  return roundToElem(v < 0 ? -d : d, k);
}

int64_t wrapToElem(int64_t v, ElemKind k) {
  switch (k) {
    case ElemKind::I1: return v & 1;
    case ElemKind::I8: return static_cast<int8_t>(static_cast<uint8_t>(v));
    case ElemKind::I16: return static_cast<int16_t>(static_cast<uint16_t>(v));
    case ElemKind::I32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    default: return v;
  }
}

uint64_t unsignedOf(int64_t v, ElemKind k) {
  uint64_t u = static_cast<uint64_t>(v);
  switch (k) {
    case ElemKind::I1: return u & 1u;
    case ElemKind::I8: return u & 0xffu;
    case ElemKind::I16: return u & 0xffffu;
    case ElemKind::I32: return u & 0xffffffffu;
    default: return u;
  }
}

int64_t floatToIntSat(double v, ElemKind k) {
  if (std::isnan(v)) return 0;
  double lo, hi;
  switch (k) {
    case ElemKind::I1: return v != 0.0 ? 1 : 0;
    case ElemKind::I8: lo = -128.0; hi = 127.0; break;
    case ElemKind::I16: lo = -32768.0; hi = 32767.0; break;
    case ElemKind::I32: lo = -2147483648.0; hi = 2147483647.0; break;
    default:
      // 2^63 is exactly representable; anything at or above it saturates.
      if (v >= 0x1p63) return std::numeric_limits<int64_t>::max();
      if (v < -0x1p63) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(std::trunc(v));
  }
  v = std::trunc(v);
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return static_cast<int64_t>(v);
}

unsigned elemBytes(ElemKind k) {
  switch (k) {
    case ElemKind::I1: case ElemKind::I8: return 1;
    case ElemKind::I16: case ElemKind::F16: case ElemKind::BF16: return 2;
    case ElemKind::I32: case ElemKind::F32: case ElemKind::TF32: return 4;
    case ElemKind::I64: case ElemKind::F64: case ElemKind::Index: return 8;
  }
  return 0;
}

double loadFloat(ElemKind k, const uint8_t* p) {
  switch (k) {
    case ElemKind::F16: { uint16_t h; std::memcpy(&h, p, 2); return halfToFloat(h); }
    case ElemKind::BF16: { uint16_t h; std::memcpy(&h, p, 2); return bf16ToFloat(h); }
    case ElemKind::F32: case ElemKind::TF32: { float f; std::memcpy(&f, p, 4); return f; }
    case ElemKind::F64: { double d; std::memcpy(&d, p, 8); return d; }
    default: throw std::logic_error("loadFloat: not a float element kind");
  }
}

int64_t loadInt(ElemKind k, const uint8_t* p) {
  switch (k) {
    case ElemKind::I1: return *p ? 1 : 0;
    case ElemKind::I8: return static_cast<int8_t>(*p);
    case ElemKind::I16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case ElemKind::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ElemKind::I64: case ElemKind::Index: { int64_t v; std::memcpy(&v, p, 8); return v; }
    default: throw std::logic_error("loadInt: not an integer element kind");
  }
}

void storeFloat(ElemKind k, uint8_t* p, double v) {
  switch (k) {
    case ElemKind::F16: { uint16_t h = doubleToHalf(v); std::memcpy(p, &h, 2); return; }
    case ElemKind::BF16: { uint16_t h = doubleToBf16(v); std::memcpy(p, &h, 2); return; }
    case ElemKind::F32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
    case ElemKind::TF32: { float f = static_cast<float>(roundToElem(v, k)); std::memcpy(p, &f, 4); return; }
    case ElemKind::F64: std::memcpy(p, &v, 8); return;
    default: throw std::logic_error("storeFloat: not a float element kind");
  }
}

void storeInt(ElemKind k, uint8_t* p, int64_t v) {
  switch (k) {
    case ElemKind::I1: *p = static_cast<uint8_t>(v & 1); return;
    case ElemKind::I8: *p = static_cast<uint8_t>(v); return;
    case ElemKind::I16: { auto x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); return; }
    case ElemKind::I32: { auto x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); return; }
    case ElemKind::I64: case ElemKind::Index: std::memcpy(p, &v, 8); return;
    default: throw std::logic_error("storeInt: not an integer element kind");
  }
}

}  // namespace xtc::interp
