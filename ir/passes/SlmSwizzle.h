// The SLM swizzle contract (docs/passes.md, wg-distribute "Swizzle" and lower-generic): a
// gpu.slm_alloc may carry `swizzle = [B, M, S]` (byte-offset bits [M+S, M+S+B) xor-ed into bits
// [M, M+B)); every access to the buffer must apply it. Shared by lower-generic and lower-xe so the
// two lowerings of the same buffer cannot disagree on an address.
#pragma once

#include "ir/Builder.h"
#include "ir/Operation.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xtc::passes {

// The swizzle of a gpu.slm_alloc in element units ([B, M - log2(element bytes), S]), empty when it has
// none (or B = 0). Sets `*error` (and returns empty) when the swizzle would split elements or a
// swizzled address could leave the buffer (its 2^(M'+B)-element blocks do not tile it).
std::vector<int64_t> slmSwizzleOf(const ir::Operation& alloc, std::string* error);

// Applies an element-unit swizzle `sw` to in-bounds indices `idx` (one or two) of a buffer of `shape`:
// e = row-major element index, e' = e ^ (((e >> (M + S)) & (2^B - 1)) << M), back to indices. An index
// past a row would wrap into the next one once swizzled, so the bounds check of the unswizzled indices
// is ANDed into `*mask` (created when null). `cst` makes index constants.
void swizzleSlmIndex(ir::Builder& b, const std::vector<int64_t>& sw, const std::vector<int64_t>& shape,
                     std::vector<ir::Value*>& idx, ir::Value** mask, const std::function<ir::Value*(int64_t)>& cst);

}  // namespace xtc::passes
