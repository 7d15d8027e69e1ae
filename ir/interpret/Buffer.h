// A dense row-major array of one element type, stored exactly as a device stores it (bf16/f16 as
// their 16 raw bits, i1 as one byte 0/1, index as i64). Kernel memref arguments, SLM and .npy files
// all use it.
#pragma once

#include "ir/Type.h"

#include <cstdint>
#include <vector>

namespace xtc::interp {

struct Buffer {
  ir::ElemKind elem = ir::ElemKind::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  Buffer() = default;
  // A zero-filled buffer of `shape` (every dim >= 0).
  Buffer(ir::ElemKind e, std::vector<int64_t> shape);

  int64_t numElements() const;
  unsigned elemSize() const;
  uint8_t* at(int64_t linearIndex) { return bytes.data() + linearIndex * elemSize(); }
  const uint8_t* at(int64_t linearIndex) const { return bytes.data() + linearIndex * elemSize(); }

  // Element access by linear index with the conversions of Numeric.h. getFloat works on every
  // element type (integers converted); getInt on integer types only.
  double getFloat(int64_t i) const;
  int64_t getInt(int64_t i) const;
  void setFloat(int64_t i, double v);  // float types: RNE to the element type; ints: truncates
  void setInt(int64_t i, int64_t v);   // integer types: wraps; floats: converts
};

// The same values in another element type (floats RNE; float -> int truncates and saturates).
Buffer convertBuffer(const Buffer& in, ir::ElemKind to);

// Product of the dims (1 for rank 0).
int64_t shapeElements(const std::vector<int64_t>& shape);

}  // namespace xtc::interp
