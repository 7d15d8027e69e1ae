// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0 read; 1.0 written, or 2.0
// when the header does not fit in 64 KiB). Element types map to NumPy dtypes as:
//   f16 '<f2'  f32 '<f4'  f64 '<f8'  tf32 '<f4'  i8 '|i1'  i16 '<i2'  i32 '<i4'  i64/index '<i8'
//   i1 '|b1' (one byte, 0 or 1)
//   bf16 '<u2': NumPy has no bfloat16, so a bf16 array is stored as its raw 16-bit patterns
//        (uint16); in Python, `(a.astype(np.uint32) << 16).view(np.float32)` recovers the values.
// Reading maps the dtype back the same way ('<u2' -> bf16); 'fortran_order': True arrays are
// reordered to row-major. Big-endian files are rejected.
#pragma once

#include "ir/interpret/Buffer.h"

#include <string>

namespace xtc::interp {

// The NumPy dtype string of an element kind (see above).
std::string npyDescr(ir::ElemKind k);

// Serializes/deserializes the whole file contents. On failure returns false with `error` set.
std::string encodeNpy(const Buffer& b);
bool decodeNpy(const std::string& bytes, Buffer& out, std::string* error);

bool writeNpy(const std::string& path, const Buffer& b, std::string* error);
bool readNpy(const std::string& path, Buffer& out, std::string* error);

}  // namespace xtc::interp
