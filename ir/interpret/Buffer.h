// A dense row-major array of one element type, stored exactly as a device stores it (bf16/f16 as
// their 16 raw bits, i1 as one byte 0/1, index as i64). Kernel memref arguments, SLM and .npy files
// all use it.
#pragma once

#include "ir/Type.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace xtc::interp {

// Which workgroup wrote each element of a buffer (`xtc run --check-sample`: the interpreter runs a
// few workgroups and only what they wrote is compared). Writers are numbered from 1 in the order the
// interpreter runs the workgroups (16 bits, so a 4096x4096 buffer's log takes 32 MB); `current` is
// set by the interpreter before each workgroup. A second writer of an element is remembered as a
// conflict (the first conflict only).
struct WriteLog {
  std::vector<uint16_t> writer;  // per element: 0 (not written) or the writer's number
  uint16_t current = 0;
  int64_t written = 0;           // elements with a writer
  int64_t conflictAt = -1;       // first element written by two workgroups
  uint16_t conflictFirst = 0;    // ... its first writer (the second is writer[conflictAt])
  void note(int64_t i) {
    uint16_t& w = writer[static_cast<size_t>(i)];
    if (w == 0) {
      w = current;
      ++written;
    } else if (w != current && conflictAt < 0) {
      conflictAt = i;
      conflictFirst = w;
      w = current;
    }
  }
};

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

  // When set, setFloat/setInt record their writer (shared by copies of the buffer: set it on the
  // copy that is about to be written, see WriteLog). Starts a log with no writer.
  std::shared_ptr<WriteLog> writes;
  void trackWrites() {
    writes = std::make_shared<WriteLog>();
    writes->writer.assign(static_cast<size_t>(numElements()), 0);
  }
};

// The same values in another element type (floats RNE; float -> int truncates and saturates).
Buffer convertBuffer(const Buffer& in, ir::ElemKind to);

// Product of the dims (1 for rank 0).
int64_t shapeElements(const std::vector<int64_t>& shape);

}  // namespace xtc::interp
