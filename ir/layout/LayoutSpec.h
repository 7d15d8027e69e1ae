// Layout spec strings and views: parse a SPEC naming any layout kind (wg_map, dpas, block_load,
// coopmatrix, swizzle, or a literal linear<...>) plus a tensor shape into a HwLayout, and render it
// as the hardware view (who holds which element), the tensor view (an element's owners), JSON, or SVG.
// Used by `xtc layout` and by tests; errors are one-line strings (the driver prefixes "xtc: error: ").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/layout/Layouts.h"
#include "ir/layout/LinearLayout.h"

namespace xtc::layout {

// "RxC" (or "N") → {R, C}; both positive.
Expected<std::vector<int64_t>> parseShape(std::string_view text);

// Parses a SPEC (see layoutSpecHelp) for an optional tensor shape. `defaultTarget` is used by kinds
// whose target argument is omitted.
Expected<HwLayout> parseLayoutSpec(std::string_view spec, const std::optional<std::vector<int64_t>>& shape,
                                   Target defaultTarget = Target::Pvc);

// The accepted spellings, one per line with an example (for --help and docs/layouts.md).
std::string layoutSpecHelp();

enum class View { Hardware, Tensor };

// Hardware view: per subgroup, a table with one column per lane and one row per register (packed
// registers shown as one row per slot, "a:b" for the elements in it); "-" marks masked padding.
std::string renderHwView(const HwLayout& hw);
// Tensor view: a grid of the tensor with each element's owners ("s1 l3 r5"; "s0,1 r5" when subgroups 0
// and 1 both hold register 5; "+k" when k more owners do not fit that form), "." when nobody does.
std::string renderTensorView(const HwLayout& hw);
// JSON (pretty-printed). Tensor view: {"layout", "linear", "shape", "elements": [{"coord":[i,j],
// "owners":[{"subgroup":s,"lane":l,"register":r}, ...]}]}. Hardware view: {"layout", "linear",
// "shape", "entries": [{"subgroup":s,"lane":l,"register":r,"coord":[i,j] | null}]}.
std::string renderJson(const HwLayout& hw, View view);
// An SVG picture of the tensor: one cell per element, coloured by lane (hue) and subgroup (shade),
// labelled with its owner, with a title and a legend.
std::string renderSvg(const HwLayout& hw);

}  // namespace xtc::layout
