// SPEC parsing (wg_map, dpas, block_load, coopmatrix, swizzle, linear) and the hw / tensor / JSON /
// SVG renderers of `xtc layout`. Rendering is the only place that enumerates a layout.
#include "ir/layout/LayoutSpec.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace xtc::layout {

namespace {

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

constexpr int64_t kMaxPrint = int64_t(1) << 22;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> parseInt(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 12) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// "16x8x2" → {16, 8, 2}
std::optional<std::vector<int64_t>> parseDims(std::string_view s) {
  std::vector<int64_t> dims;
  s = trim(s);
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == 'x' || s[i] == 'X') {
      auto v = parseInt(s.substr(start, i - start));
      if (!v || *v <= 0) return std::nullopt;
      dims.push_back(*v);
      start = i + 1;
    }
  return dims;
}

// "[8, 4]" → {8, 4}
std::optional<std::vector<int64_t>> parseList(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<int64_t> v;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == ',') {
      auto n = parseInt(s.substr(start, i - start));
      if (!n) return std::nullopt;
      v.push_back(*n);
      start = i + 1;
    }
  return v;
}

std::string shapeStr(const std::vector<int64_t>& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "x" : "") + std::to_string(s[i]);
  return r;
}

// Splits "kind<a, b, [c, d]>" into kind and top-level arguments.
struct SpecParts {
  std::string kind;
  std::vector<std::string> args;
};
Expected<SpecParts> splitSpec(std::string_view spec) {
  spec = trim(spec);
  size_t lt = spec.find('<');
  if (lt == std::string_view::npos || spec.back() != '>')
    return Error{fmt::format("malformed layout '{}': expected KIND<ARGS> (see `xtc layout --help`)", spec)};
  SpecParts p;
  p.kind = std::string(trim(spec.substr(0, lt)));
  std::string_view inner = spec.substr(lt + 1, spec.size() - lt - 2);
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    char c = i < inner.size() ? inner[i] : ',';
    if (c == '[' || c == '<' || c == '{') ++depth;
    if (c == ']' || c == '>' || c == '}') --depth;
    if (depth < 0) return Error{fmt::format("malformed layout '{}': unbalanced brackets", spec)};
    if (c == ',' && depth == 0) {
      std::string_view a = trim(inner.substr(start, i - start));
      if (!a.empty() || i < inner.size()) p.args.emplace_back(a);
      start = i + 1;
    }
  }
  if (depth != 0) return Error{fmt::format("malformed layout '{}': unbalanced brackets", spec)};
  if (p.args.size() == 1 && p.args[0].empty()) p.args.clear();
  return p;
}

std::optional<int> parseAccessBits(std::string_view s) {
  if (s == "d8") return 8;
  if (s == "d16") return 16;
  if (s == "d32") return 32;
  if (auto t = parseElemType(s)) return elemBits(*t);
  return std::nullopt;
}

Error specError(std::string_view spec, const std::string& why) { return Error{fmt::format("{}: {}", spec, why)}; }

Expected<HwLayout> finish(HwLayout hw, std::string_view spec) {
  size_t outs = hw.layout.outDims().size();
  if (outs < 1 || outs > 2) return specError(spec, "views need a layout with one or two output dims");
  if (hw.layout.totalInSize() > kMaxPrint || hw.layout.totalOutSize() > kMaxPrint)
    return specError(spec, "layout too large to print");
  return hw;
}

Expected<HwLayout> parseWgMap(std::string_view spec, const SpecParts& p, const std::optional<std::vector<int64_t>>& shape) {
  WgMap map;
  bool haveLayout = false, haveData = false;
  for (const auto& a : p.args) {
    size_t eq = a.find('=');
    if (eq == std::string::npos) return specError(spec, fmt::format("expected sg_layout=[..] or sg_data=[..], got '{}'", a));
    std::string_view key = trim(std::string_view(a).substr(0, eq));
    auto list = parseList(std::string_view(a).substr(eq + 1));
    if (!list) return specError(spec, fmt::format("'{}' is not a list of integers like [8, 4]", a.substr(eq + 1)));
    if (key == "sg_layout") map.sgLayout = *list, haveLayout = true;
    else if (key == "sg_data") map.sgData = *list, haveData = true;
    else return specError(spec, fmt::format("unknown wg_map parameter '{}'", key));
  }
  if (!haveLayout || !haveData) return specError(spec, "wg_map needs sg_layout=[..] and sg_data=[..]");
  if (!shape) return specError(spec, "wg_map needs --shape (the workgroup tile, e.g. --shape 256x32)");
  if (shape->size() != 2) return specError(spec, "views are two-dimensional: give --shape RxC");
  auto l = wgMapLayout(map, *shape);
  if (!l) return Error{fmt::format("{} cannot distribute a {} tile: {}", map.print(), shapeStr(*shape), l.error())};
  return finish(HwLayout{*l, RegisterPacking{}, *shape, map.print()}, spec);
}

Expected<HwLayout> parseDpas(std::string_view spec, const SpecParts& p, const std::optional<std::vector<int64_t>>& shape) {
  if (p.args.size() < 3 || p.args.size() > 4)
    return specError(spec, "expected dpas<TARGET, TYPE, A|B|C[, rep=RxC]>");
  auto target = parseTarget(p.args[0]);
  if (!target) return specError(spec, fmt::format("unknown target '{}' (pvc or dg2)", p.args[0]));
  auto type = parseElemType(p.args[1]);
  if (!type) return specError(spec, fmt::format("unknown element type '{}'", p.args[1]));
  Operand op;
  if (p.args[2] == "A" || p.args[2] == "a") op = Operand::A;
  else if (p.args[2] == "B" || p.args[2] == "b") op = Operand::B;
  else if (p.args[2] == "C" || p.args[2] == "c" || p.args[2] == "D" || p.args[2] == "d") op = Operand::C;
  else return specError(spec, fmt::format("unknown operand '{}' (A, B or C)", p.args[2]));
  auto block = dpasLayout(*target, *type, op);
  if (!block) return specError(spec, block.error());
  int64_t rows = block->shape[0], cols = block->shape[1];
  int64_t rep0 = 1, rep1 = 1;
  bool explicitRep = false;
  if (p.args.size() == 4) {
    std::string_view a = p.args[3];
    if (a.substr(0, 4) != "rep=") return specError(spec, fmt::format("expected rep=RxC, got '{}'", a));
    auto r = parseDims(a.substr(4));
    if (!r || r->size() != 2) return specError(spec, fmt::format("expected rep=RxC, got '{}'", a));
    rep0 = (*r)[0];
    rep1 = (*r)[1];
    explicitRep = true;
  }
  if (shape) {
    if (shape->size() != 2) return specError(spec, "views are two-dimensional: give --shape RxC");
    int64_t r = (*shape)[0], c = (*shape)[1];
    if (r % rows || c % cols || !isPow2(r / rows) || !isPow2(c / cols))
      return Error{fmt::format("{} blocks are {}x{}; a {}x{} tensor is not a power-of-two number of them in each dim",
                               block->name, rows, cols, r, c)};
    if (explicitRep && (r / rows != rep0 || c / cols != rep1))
      return Error{fmt::format("rep={}x{} gives {}x{}, but --shape is {}x{}", rep0, rep1, rows * rep0, cols * rep1, r, c)};
    rep0 = r / rows;
    rep1 = c / cols;
  }
  auto hw = dpasLayout(*target, *type, op, int(rep0), int(rep1));
  if (!hw) return specError(spec, hw.error());
  return finish(*hw, spec);
}

Expected<HwLayout> parseBlockLoad(std::string_view spec, const SpecParts& p, const std::optional<std::vector<int64_t>>& shape,
                                  Target defaultTarget) {
  size_t i = 0;
  Target target = defaultTarget;
  if (i < p.args.size())
    if (auto t = parseTarget(p.args[i])) target = *t, ++i;
  if (i + 2 > p.args.size()) return specError(spec, "expected block_load<TARGET, dN, WxH[xA][, vnni|transpose][, data=TYPE]>");
  BlockLoad load;
  auto bits = parseAccessBits(p.args[i]);
  if (!bits || p.args[i][0] != 'd') return specError(spec, fmt::format("expected an access size d8, d16 or d32, got '{}'", p.args[i]));
  load.elemBits = *bits;
  auto dims = parseDims(p.args[i + 1]);
  if (!dims || dims->size() < 2 || dims->size() > 3)
    return specError(spec, fmt::format("expected the block as WxH or WxHxA, got '{}'", p.args[i + 1]));
  load.width = int((*dims)[0]);
  load.height = int((*dims)[1]);
  load.arrayLength = dims->size() == 3 ? int((*dims)[2]) : 1;
  for (size_t k = i + 2; k < p.args.size(); ++k) {
    std::string_view a = p.args[k];
    if (a == "vnni") load.vnni = true;
    else if (a == "transpose") load.transpose = true;
    else if (a.substr(0, 5) == "data=") {
      auto d = parseAccessBits(a.substr(5));
      if (!d) return specError(spec, fmt::format("unknown data type '{}'", a.substr(5)));
      load.dataBits = *d;
    } else return specError(spec, fmt::format("unknown block_load option '{}' (vnni, transpose, data=TYPE)", a));
  }
  if (auto why = checkBlockLoad(target, load)) return specError(spec, *why);
  auto hw = blockLoadLayout(load, subgroupSize(target));
  if (!hw) return specError(spec, hw.error());
  hw->name = fmt::format("block_load<{}, {}", toString(target), hw->name.substr(std::string_view("block_load<").size()));
  if (shape && *shape != hw->shape)
    return Error{fmt::format("{} produces a {} tensor; --shape {} does not match", hw->name, shapeStr(hw->shape), shapeStr(*shape))};
  return finish(*hw, spec);
}

Expected<HwLayout> parseCoop(std::string_view spec, const SpecParts& p, const std::optional<std::vector<int64_t>>& shape) {
  if (p.args.size() < 3 || p.args.size() > 4) return specError(spec, "expected coopmatrix<SUBGROUP, MxN, TYPE[, a|b|acc]>");
  auto s = parseInt(p.args[0]);
  auto mn = parseDims(p.args[1]);
  auto type = parseElemType(p.args[2]);
  if (!s || *s <= 0) return specError(spec, fmt::format("'{}' is not a subgroup size", p.args[0]));
  if (!mn || mn->size() != 2) return specError(spec, fmt::format("expected the matrix shape as MxN, got '{}'", p.args[1]));
  if (!type) return specError(spec, fmt::format("unknown element type '{}'", p.args[2]));
  CoopUse use = CoopUse::Acc;
  if (p.args.size() == 4) {
    auto u = parseCoopUse(p.args[3]);
    if (!u) return specError(spec, fmt::format("unknown use '{}' (a, b or acc)", p.args[3]));
    use = *u;
  }
  if (shape && *shape != *mn)
    return Error{fmt::format("{} is a {} matrix; --shape {} does not match", spec, shapeStr(*mn), shapeStr(*shape))};
  auto hw = coopMatrixLayout(int(*s), int((*mn)[0]), int((*mn)[1]), *type, use);
  if (!hw) return specError(spec, hw.error());
  return finish(*hw, spec);
}

Expected<HwLayout> parseSwizzle(std::string_view spec, const SpecParts& p, const std::optional<std::vector<int64_t>>& shape) {
  if (p.args.size() < 3 || p.args.size() > 4) return specError(spec, "expected swizzle<B, M, S[, TYPE]>");
  auto b = parseInt(p.args[0]), m = parseInt(p.args[1]), s = parseInt(p.args[2]);
  if (!b || !m || !s || *b > 8 || *m > 20 || *s > 20) return specError(spec, "swizzle parameters must be small non-negative integers");
  int bits = 16;
  if (p.args.size() == 4) {
    auto t = parseAccessBits(p.args[3]);
    if (!t) return specError(spec, fmt::format("unknown element type '{}'", p.args[3]));
    bits = *t;
  }
  if (!shape || shape->size() != 2) return specError(spec, "swizzle needs --shape RxC (the tile placed in SLM)");
  Swizzle swz{int(*b), int(*m), int(*s)};
  auto l = slmLayout(int((*shape)[0]), int((*shape)[1]), bits / 8, swz);
  if (!l) return specError(spec, l.error());
  RegisterPacking pk{bits, bits, 1};
  return finish(HwLayout{*l, pk, *shape, fmt::format("{} ({}-bit elements)", swz.print(), bits)}, spec);
}

}  // namespace

Expected<std::vector<int64_t>> parseShape(std::string_view text) {
  auto d = parseDims(text);
  if (!d || d->empty() || d->size() > 2)
    return Error{fmt::format("malformed shape '{}': expected RxC with positive integers, e.g. 256x32", text)};
  if (d->size() == 1) d->insert(d->begin(), 1);
  return *d;
}

Expected<HwLayout> parseLayoutSpec(std::string_view spec, const std::optional<std::vector<int64_t>>& shape,
                                   Target defaultTarget) {
  spec = trim(spec);
  if (spec.substr(0, 6) == "linear") {
    auto l = LinearLayout::parse(spec);
    if (!l) return Error{l.error()};
    std::vector<int64_t> natural;
    for (const auto& o : l->outDims()) natural.push_back(o.size);
    if (natural.size() == 1) natural.insert(natural.begin(), 1);
    if (shape && *shape != natural)
      return Error{fmt::format("the layout covers {}; --shape {} does not match", shapeStr(natural), shapeStr(*shape))};
    return finish(HwLayout{*l, RegisterPacking{}, natural, "linear"}, spec);
  }
  auto parts = splitSpec(spec);
  if (!parts) return Error{parts.error()};
  if (shape && shape->size() != 2) return Error{"views are two-dimensional: give --shape RxC"};
  const std::string& k = parts->kind;
  if (k == "wg_map") return parseWgMap(spec, *parts, shape);
  if (k == "dpas") return parseDpas(spec, *parts, shape);
  if (k == "block_load") return parseBlockLoad(spec, *parts, shape, defaultTarget);
  if (k == "coopmatrix") return parseCoop(spec, *parts, shape);
  if (k == "swizzle") return parseSwizzle(spec, *parts, shape);
  return Error{fmt::format("unknown layout kind '{}' (wg_map, dpas, block_load, coopmatrix, swizzle, linear)", k)};
}

std::string layoutSpecHelp() {
  return "Layouts (SPEC):\n"
         "  wg_map<sg_layout=[A,B], sg_data=[C,D]>        workgroup -> subgroup distribution; needs --shape\n"
         "  dpas<pvc|dg2, bf16|f16|tf32|i8|u8, A|B|C[, rep=RxC]>\n"
         "                                                DPAS operand; --shape (a multiple of the block) sets rep\n"
         "  block_load<[pvc,] d8|d16|d32, WxH[xA][, vnni|transpose][, data=TYPE]>\n"
         "                                                2D block load result (data=bf16 for a d32 transpose of 16-bit data)\n"
         "  coopmatrix<SUBGROUP, MxN, TYPE[, a|b|acc]>    portable cooperative-matrix layout\n"
         "  swizzle<B,M,S[, TYPE]>                        SLM placement of a --shape tile (default 16-bit elements)\n"
         "  linear<{register=[[0,1],...], lane=[...]} -> {dim0=R, dim1=C}>   a literal linear layout\n"
         "Examples:\n"
         "  xtc layout 'wg_map<sg_layout=[8,4], sg_data=[32,32]>' --shape 256x32\n"
         "  xtc layout 'dpas<pvc, bf16, B>' --view=tensor\n"
         "  xtc layout 'block_load<pvc, d16, 16x8x2>' --json\n"
         "  xtc layout 'swizzle<3,4,3>' --shape 8x64 --svg swizzle.svg\n";
}

// ------------------------------------------------------------------ rendering

namespace {

std::pair<int64_t, int64_t> coord2D(const std::vector<int32_t>& c) {
  return c.size() == 1 ? std::make_pair(int64_t(0), int64_t(c[0])) : std::make_pair(int64_t(c[0]), int64_t(c[1]));
}

bool inShape(const HwLayout& hw, std::pair<int64_t, int64_t> rc) {
  return rc.first < hw.shape[0] && rc.second < hw.shape[1];
}

std::string abbrev(const std::string& dim) {
  static const std::map<std::string, std::string> names = {
      {"register", "r"}, {"lane", "l"}, {"subgroup", "s"}, {"offset", "o"}, {"iteration", "i"}, {"load", "ld"}, {"addr", "a"}};
  auto it = names.find(dim);
  return it == names.end() ? dim + "=" : it->second;
}

// In dims in display order: subgroup, lane, register, then the others.
std::vector<int> displayOrder(const LinearLayout& l) {
  std::vector<int> order;
  for (const char* n : {"subgroup", "lane", "register"})
    for (size_t i = 0; i < l.inDims().size(); ++i)
      if (l.inDims()[i].name == n) order.push_back(int(i));
  for (size_t i = 0; i < l.inDims().size(); ++i)
    if (std::find(order.begin(), order.end(), int(i)) == order.end()) order.push_back(int(i));
  return order;
}

std::string ownerLabel(const LinearLayout& l, const std::vector<int32_t>& idx) {
  std::string s;
  for (int i : displayOrder(l)) {
    if (l.inDims()[i].size() == 1) continue;
    s += (s.empty() ? "" : " ") + abbrev(l.inDims()[i].name) + std::to_string(idx[i]);
  }
  return s.empty() ? "*" : s;
}

// A label for a set of owners: per dim the distinct values ("s0,1 r5" when subgroups 0 and 1 both hold
// register 5); " +k" when that product set would overstate the owners.
std::string ownersLabel(const LinearLayout& l, const std::vector<std::vector<int32_t>>& owners) {
  if (owners.size() == 1) return ownerLabel(l, owners[0]);
  std::string s;
  size_t product = 1;
  for (int i : displayOrder(l)) {
    if (l.inDims()[i].size() == 1) continue;
    std::vector<int32_t> vals;
    for (const auto& o : owners) vals.push_back(o[i]);
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    product *= vals.size();
    std::string part = abbrev(l.inDims()[i].name);
    if (vals.size() <= 4) {
      for (size_t k = 0; k < vals.size(); ++k) part += (k ? "," : "") + std::to_string(vals[k]);
    } else {
      part += fmt::format("{}..{}({})", vals.front(), vals.back(), vals.size());
    }
    s += (s.empty() ? "" : " ") + part;
  }
  if (product != owners.size()) s = ownerLabel(l, owners[0]) + fmt::format(" +{}", owners.size() - 1);
  return s;
}

// owners[r*cols + c] = input indices holding (r, c), in increasing flat-input order.
std::vector<std::vector<std::vector<int32_t>>> ownerTable(const HwLayout& hw) {
  const int64_t rows = hw.shape[0], cols = hw.shape[1];
  std::vector<std::vector<std::vector<int32_t>>> t(size_t(rows * cols));
  const LinearLayout& l = hw.layout;
  for (int64_t f = 0; f < l.totalInSize(); ++f) {
    auto rc = coord2D(l.unpackOut(l.applyFlat(uint64_t(f))));
    if (!inShape(hw, rc)) continue;
    t[size_t(rc.first * cols + rc.second)].push_back(l.unpackIn(uint64_t(f)));
  }
  return t;
}

std::string pad(const std::string& s, size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }

std::string header(const HwLayout& hw) {
  std::string s = fmt::format("# {}: tensor {}x{}", hw.name, hw.shape[0], hw.shape[1]);
  for (const auto& d : hw.layout.inDims()) s += fmt::format(", {}={}", d.name, d.size());
  s += "\n";
  if (hw.layout.hasInDim("register") && hw.layout.hasInDim("lane")) s += "# registers: " + hw.packing.describe() + "\n";
  int64_t rep = hw.layout.replication();
  if (rep > 1) s += fmt::format("# replicated: every element is held by {} hardware indices\n", rep);
  if (!hw.layout.isSurjective()) s += "# not surjective: some coordinates are held by nobody\n";
  s += "# " + hw.layout.print() + "\n";
  return s;
}

}  // namespace

std::string renderHwView(const HwLayout& hw) {
  const LinearLayout& l = hw.layout;
  std::string out = header(hw);
  const bool hasLane = l.hasInDim("lane");
  const int colDim = hasLane ? int(std::find_if(l.inDims().begin(), l.inDims().end(), [](const InDim& d) { return d.name == "lane"; }) -
                                   l.inDims().begin())
                             : 0;
  const int64_t colSize = l.inDims().empty() ? 1 : l.inDims()[colDim].size();
  const int64_t cols = hasLane ? colSize : std::min<int64_t>(colSize, 16);
  const int sgDim = l.hasInDim("subgroup") && !(l.inDims()[colDim].name == "subgroup")
                        ? int(std::find_if(l.inDims().begin(), l.inDims().end(), [](const InDim& d) { return d.name == "subgroup"; }) -
                              l.inDims().begin())
                        : -1;
  const int regDim = l.hasInDim("register")
                         ? int(std::find_if(l.inDims().begin(), l.inDims().end(), [](const InDim& d) { return d.name == "register"; }) -
                               l.inDims().begin())
                         : -1;
  const int eps = (hasLane && regDim >= 0) ? std::max(1, hw.packing.elementsPerSlot) : 1;
  // Row dims: everything but the column dim and subgroup; the column dim's high part when chunked.
  std::vector<int> rowDims;
  for (size_t i = 0; i < l.inDims().size(); ++i)
    if (int(i) != colDim && int(i) != sgDim) rowDims.push_back(int(i));
  int64_t chunks = colSize / cols;
  int64_t rowCount = chunks;
  for (int d : rowDims) rowCount *= (d == regDim ? l.inDims()[d].size() / eps : l.inDims()[d].size());
  int64_t sgCount = sgDim >= 0 ? l.inDims()[sgDim].size() : 1;
  auto cell = [&](std::vector<int32_t> idx) {
    std::string s;
    for (int e = 0; e < eps; ++e) {
      if (eps > 1) idx[regDim] = (idx[regDim] / eps) * eps + e;
      auto rc = coord2D(l.apply(idx));
      s += (e ? ":" : "") + (inShape(hw, rc) ? fmt::format("({},{})", rc.first, rc.second) : std::string("-"));
    }
    return s;
  };
  for (int64_t sg = 0; sg < sgCount; ++sg) {
    if (sgDim >= 0) out += fmt::format("subgroup {}:\n", sg);
    std::vector<std::string> labels;
    std::vector<std::vector<std::string>> cells;
    size_t width = 0, labelWidth = 0;
    for (int64_t row = 0; row < rowCount; ++row) {
      std::vector<int32_t> idx(l.inDims().size(), 0);
      if (sgDim >= 0) idx[sgDim] = int32_t(sg);
      int64_t rest = row;
      std::string label;
      for (int d : rowDims) {
        int64_t n = d == regDim ? l.inDims()[d].size() / eps : l.inDims()[d].size();
        idx[d] = int32_t((rest % n) * (d == regDim ? eps : 1));
        rest /= n;
        if (n > 1 || d == regDim)
          label += (label.empty() ? "" : " ") + (d == regDim && eps > 1 ? "slot" + std::to_string(idx[d] / eps)
                                                                          : abbrev(l.inDims()[d].name) + std::to_string(idx[d]));
      }
      int64_t chunk = rest;
      if (!hasLane) label += (label.empty() ? "" : " ") + fmt::format("{}{}..", abbrev(l.inDims()[colDim].name), chunk * cols);
      std::vector<std::string> r;
      for (int64_t c = 0; c < cols; ++c) {
        if (!l.inDims().empty()) idx[colDim] = int32_t(chunk * cols + c);
        r.push_back(cell(idx));
        width = std::max(width, r.back().size());
      }
      labelWidth = std::max(labelWidth, label.size());
      labels.push_back(label);
      cells.push_back(std::move(r));
    }
    std::string colName = l.inDims().empty() ? "" : (hasLane ? "lane" : abbrev(l.inDims()[colDim].name) + "+");
    out += std::string(labelWidth, ' ');
    for (int64_t c = 0; c < cols; ++c) out += "  " + pad(hasLane ? colName + " " + std::to_string(c) : colName + std::to_string(c), width);
    out += "\n";
    for (size_t r = 0; r < cells.size(); ++r) {
      out += labels[r] + std::string(labelWidth - labels[r].size(), ' ');
      for (const auto& c : cells[r]) out += "  " + pad(c, std::max(width, colName.size() + 3));
      out += "\n";
    }
  }
  return out;
}

std::string renderTensorView(const HwLayout& hw) {
  const int64_t rows = hw.shape[0], cols = hw.shape[1];
  auto table = ownerTable(hw);
  std::vector<std::string> text(table.size());
  size_t width = 1;
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].empty()) text[i] = ".";
    else text[i] = ownersLabel(hw.layout, table[i]);
    width = std::max(width, text[i].size());
  }
  std::string out = header(hw);
  size_t rw = std::to_string(rows - 1).size();
  out += std::string(rw, ' ');
  for (int64_t c = 0; c < cols; ++c) out += " | " + pad(std::to_string(c), width);
  out += "\n";
  for (int64_t r = 0; r < rows; ++r) {
    out += pad(std::to_string(r), rw);
    for (int64_t c = 0; c < cols; ++c) out += " | " + pad(text[size_t(r * cols + c)], width);
    out += "\n";
  }
  return out;
}

std::string renderJson(const HwLayout& hw, View view) {
  using json = nlohmann::ordered_json;
  const LinearLayout& l = hw.layout;
  json j;
  j["layout"] = hw.name;
  j["linear"] = l.print();
  j["shape"] = hw.shape;
  j["registers"] = hw.packing.describe();
  auto ownerJson = [&](const std::vector<int32_t>& idx) {
    json o = json::object();
    if (!l.hasInDim("subgroup")) o["subgroup"] = 0;
    for (int i : displayOrder(l)) o[l.inDims()[i].name] = idx[i];
    return o;
  };
  if (view == View::Tensor) {
    auto table = ownerTable(hw);
    json elems = json::array();
    for (int64_t r = 0; r < hw.shape[0]; ++r)
      for (int64_t c = 0; c < hw.shape[1]; ++c) {
        json e;
        e["coord"] = {r, c};
        json owners = json::array();
        for (const auto& idx : table[size_t(r * hw.shape[1] + c)]) owners.push_back(ownerJson(idx));
        e["owners"] = std::move(owners);
        elems.push_back(std::move(e));
      }
    j["elements"] = std::move(elems);
  } else {
    json entries = json::array();
    // Ordered subgroup-major, then lane, then register (the display order, slowest first).
    std::vector<int> order = displayOrder(l);
    int64_t total = l.totalInSize();
    std::vector<int32_t> idx(l.inDims().size(), 0);
    for (int64_t n = 0; n < total; ++n) {
      int64_t rest = n;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        int32_t sz = l.inDims()[*it].size();
        idx[*it] = int32_t(rest % sz);
        rest /= sz;
      }
      json e = ownerJson(idx);
      auto rc = coord2D(l.apply(idx));
      if (inShape(hw, rc)) e["coord"] = {rc.first, rc.second};
      else e["coord"] = nullptr;
      entries.push_back(std::move(e));
    }
    j["entries"] = std::move(entries);
  }
  return j.dump(1) + "\n";
}

std::string renderSvg(const HwLayout& hw) {
  const LinearLayout& l = hw.layout;
  const int64_t rows = hw.shape[0], cols = hw.shape[1];
  auto table = ownerTable(hw);
  // Colour key: lane if any, else subgroup, else SLM bank (addr layouts), else the first input dim.
  std::string key;
  int keyDim = -1;
  for (const char* n : {"lane", "subgroup", "addr"})
    if (keyDim < 0 && l.hasInDim(n) && l.inDimSize(n) > 1) {
      key = n;
      keyDim = l.inBitOffset(n) >= 0 ? int(std::find_if(l.inDims().begin(), l.inDims().end(), [&](const InDim& d) { return d.name == n; }) -
                                           l.inDims().begin())
                                     : -1;
    }
  if (keyDim < 0 && !l.inDims().empty()) {
    keyDim = 0;
    key = l.inDims()[0].name;
  }
  const int elemBytes = std::max(1, hw.packing.elementBits / 8);
  auto keyValue = [&](const std::vector<int32_t>& idx) -> int64_t {
    if (keyDim < 0) return 0;
    if (key == "addr") return (int64_t(idx[keyDim]) * elemBytes / 4) % 16;  // bank of 16 x 4 B
    return idx[keyDim];
  };
  const int64_t keyCount = key == "addr" ? 16 : (keyDim < 0 ? 1 : l.inDims()[keyDim].size());
  const int sgDim = l.hasInDim("subgroup") && key != "subgroup"
                        ? int(std::find_if(l.inDims().begin(), l.inDims().end(), [](const InDim& d) { return d.name == "subgroup"; }) -
                              l.inDims().begin())
                        : -1;
  const int cell = cols <= 16 ? 44 : cols <= 32 ? 36 : cols <= 64 ? 18 : 8;
  const bool labels = cell >= 36;
  const int left = 40, top = 56;
  const int legendRows = int((std::min<int64_t>(keyCount, 64) + 15) / 16);
  const int64_t width = left + cols * cell + 20, height = top + rows * cell + 30 + legendRows * 22;
  auto color = [&](int64_t k, int64_t sg) {
    double hue = keyCount > 1 ? 330.0 * double(k % keyCount) / double(keyCount) : 210.0;  // no wrap to red
    int light = 82 - int(sg % 4) * 10;
    return fmt::format("hsl({:.0f},70%,{}%)", hue, light);
  };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"monospace\">\n",
      width, height, width, height);
  s += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", width, height);
  std::string title = hw.name;
  for (char& ch : title)
    if (ch == '<') ch = '(';
    else if (ch == '>') ch = ')';
  s += fmt::format("<text x=\"{}\" y=\"20\" font-size=\"14\">{} on {}x{}</text>\n", left, title, rows, cols);
  s += fmt::format("<text x=\"{}\" y=\"38\" font-size=\"11\">colour = {}{}; label = {}</text>\n", left,
                   key == "addr" ? "SLM bank (16 x 4 B)" : key, sgDim >= 0 ? ", shade = subgroup" : "",
                   "owners (s subgroup, l lane, r register, a SLM slot; s0,1 = subgroups 0 and 1; +k = k more)");
  for (int64_t c = 0; c < cols; c += (cell >= 18 ? 1 : 8))
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\">{}</text>\n", left + c * cell + cell / 2,
                     top - 4, c);
  for (int64_t r = 0; r < rows; r += (cell >= 18 ? 1 : 8))
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"end\">{}</text>\n", left - 4,
                     top + r * cell + cell / 2 + 3, r);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const auto& owners = table[size_t(r * cols + c)];
      int64_t x = left + c * cell, y = top + r * cell;
      if (owners.empty()) {
        s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"white\" stroke=\"#bbb\"/>\n", x, y, cell, cell);
        continue;
      }
      const auto& o = owners[0];
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#555\" stroke-width=\"0.5\"/>\n", x,
                       y, cell, cell, color(keyValue(o), sgDim >= 0 ? o[sgDim] : 0));
      if (labels) {
        std::string lab = ownersLabel(l, owners);
        // Two lines: the first two parts, then the rest.
        std::vector<std::string> parts;
        size_t st = 0;
        for (size_t i = 0; i <= lab.size(); ++i)
          if (i == lab.size() || lab[i] == ' ') {
            parts.push_back(lab.substr(st, i - st));
            st = i + 1;
          }
        std::string l1, l2;
        for (size_t i = 0; i < parts.size(); ++i) (i < 2 ? l1 : l2) += (i == 0 || i == 2 ? "" : " ") + parts[i];
        s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\">{}</text>\n", x + cell / 2,
                         y + cell / 2 - (l2.empty() ? -3 : 2), l1);
        if (!l2.empty())
          s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\">{}</text>\n", x + cell / 2,
                           y + cell / 2 + 10, l2);
      }
    }
  // Legend.
  int64_t ly = top + rows * cell + 16;
  for (int64_t k = 0; k < std::min<int64_t>(keyCount, 64); ++k) {
    int64_t x = left + (k % 16) * 44, y = ly + (k / 16) * 22;
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#555\" stroke-width=\"0.5\"/>\n", x,
                     y, color(k, 0));
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">{}{}</text>\n", x + 17, y + 11,
                     key == "addr" ? "b" : abbrev(key), k);
  }
  s += "</svg>\n";
  return s;
}

}  // namespace xtc::layout
