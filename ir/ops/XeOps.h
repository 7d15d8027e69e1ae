// The hardware-level `xe.*` ops (pvc/dg2): one op per Intel Xe instruction class, lane level (every
// value belongs to one work-item; vectors are a lane's registers, as in ir/ops/LaneOps.h), with every
// parameter of the instruction explicit. Produced by ir/passes/LowerXe.cpp, emitted as Intel builtins
// by backends/spirv/XeBuiltins.cpp. The contract of each op is in docs/passes.md, "xe ops".
//
// Also the IR form of linear layouts: `linear<{register=[...], lane=[...]} -> {dim0=R, dim1=C}>` as a
// vector layout attribute (LinearLayoutValue), used by layout assignment and resolution.
#pragma once

#include "ir/Attribute.h"
#include "ir/Operation.h"
#include "ir/layout/LinearLayout.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace xtc::ir {

// Registers xe.base_address, xe.load_2d, xe.store_2d, xe.prefetch_2d, xe.dpas, xe.block_read,
// xe.block_write and xe.lane_read with their verifiers, and the `linear` layout attribute parser. Idempotent.
void registerXeOps();

// xe.block_read / xe.block_write (and xe.lane_read) move `elem_bits` (default: the element's bits) per lane and register
// of the message; with elem_bits = 32 on 16-bit (8-bit) data, P = 2 (4) consecutive elements move as
// one dword (docs/passes.md, "xe ops"). blockUnit is P (nullopt when elem_bits is neither the
// element's bits nor 32 over 8- or 16-bit elements); blockElement the flat element that register r of lane l moves: start +
// P * ((r / P) * lanes + l) + r % P (P = 1: start + r * lanes + l).
std::optional<int64_t> blockUnit(const Operation& op);
inline int64_t blockElement(int64_t start, int64_t r, int64_t l, int64_t lanes, int64_t P) {
  return start + P * ((r / P) * lanes + l) + r % P;
}

// A linear layout (ir/layout) as an IR layout attribute value.
class LinearLayoutValue : public LayoutValue {
public:
  explicit LinearLayoutValue(layout::LinearLayout l) : layout_(std::move(l)) {}
  std::string print() const override { return layout_.print(); }
  bool equals(const LayoutValue& other) const override;
  const layout::LinearLayout& layout() const { return layout_; }

private:
  layout::LinearLayout layout_;
};

// The attribute for a linear layout, and the linear layout of a vector type (null when it has none
// or a layout of another kind).
std::shared_ptr<const Attribute> linearLayoutAttr(layout::LinearLayout l);
const layout::LinearLayout* vectorLinearLayout(const Type& t);

}  // namespace xtc::ir
