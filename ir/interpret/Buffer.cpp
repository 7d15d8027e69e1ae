// Buffer: element access through the exact conversions of Numeric.h.
#include "ir/interpret/Buffer.h"

#include "ir/interpret/Numeric.h"

#include <stdexcept>

namespace xtc::interp {

int64_t shapeElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("shapeElements: negative or dynamic dimension");
    n *= d;
  }
  return n;
}

Buffer::Buffer(ir::ElemKind e, std::vector<int64_t> s) : elem(e), shape(std::move(s)) {
  bytes.assign(static_cast<size_t>(shapeElements(shape)) * elemBytes(elem), 0);
}

int64_t Buffer::numElements() const { return shapeElements(shape); }
unsigned Buffer::elemSize() const { return elemBytes(elem); }

double Buffer::getFloat(int64_t i) const {
  if (ir::isFloatElem(elem)) return loadFloat(elem, at(i));
  return static_cast<double>(loadInt(elem, at(i)));
}

int64_t Buffer::getInt(int64_t i) const { return loadInt(elem, at(i)); }

void Buffer::setFloat(int64_t i, double v) {
  if (writes) writes->note(i);
  if (ir::isFloatElem(elem)) return storeFloat(elem, at(i), v);
  storeInt(elem, at(i), floatToIntSat(v, elem));
}

void Buffer::setInt(int64_t i, int64_t v) {
  if (writes) writes->note(i);
  if (ir::isFloatElem(elem)) return storeFloat(elem, at(i), static_cast<double>(v));
  storeInt(elem, at(i), v);
}

Buffer convertBuffer(const Buffer& in, ir::ElemKind to) {
  Buffer out(to, in.shape);
  int64_t n = in.numElements();
  bool fromFloat = ir::isFloatElem(in.elem);
  for (int64_t i = 0; i < n; ++i) {
    if (fromFloat) out.setFloat(i, in.getFloat(i));
    else out.setInt(i, in.getInt(i));
  }
  return out;
}

}  // namespace xtc::interp
