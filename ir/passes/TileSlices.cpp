// Power-of-two slice ranges and the combining op of partial reductions (TileSlices.h).
#include "ir/passes/TileSlices.h"

#include <bit>

namespace xtc::passes {

SliceRanges powerOfTwoRanges(int64_t total, int64_t unit) {
  SliceRanges r;
  if (total <= 0 || total % unit) return r;
  int64_t at = 0;
  for (int64_t size = static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(total))); at < total; size /= 2)
    if (total - at >= size) {
      r.emplace_back(at, size);
      at += size;
    }
  return r;
}

std::string combineOp(const std::string& kind, ir::ElemKind elem) {
  bool fl = ir::isFloatElem(elem);
  if (kind == "add") return fl ? "arith.addf" : "arith.addi";
  if (kind == "mul") return fl ? "arith.mulf" : "arith.muli";
  if (kind == "max") return fl ? "arith.maxf" : "arith.maxsi";
  if (kind == "min") return fl ? "arith.minf" : "arith.minsi";
  if (fl) return "";
  if (kind == "and") return "arith.andi";
  if (kind == "or") return "arith.ori";
  if (kind == "xor") return "arith.xori";
  return "";
}

}  // namespace xtc::passes
