// Hardware layout constructors (wg_map, DPAS operands, 2D block loads, cooperative matrix, SLM
// swizzles) and the bank-conflict counter. The tables they encode are cited next to each builder.
#include "ir/layout/Layouts.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace xtc::layout {

namespace {

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int log2i(int64_t v) { return v <= 1 ? 0 : 63 - std::countl_zero(uint64_t(v)); }

using Basis = std::vector<int32_t>;
using Bases = std::vector<Basis>;

// Row/column basis helpers for 2-D layouts.
Basis rc(int64_t r, int64_t c) { return {int32_t(r), int32_t(c)}; }

LinearLayout make2D(const std::vector<std::pair<std::string, Bases>>& ins, int64_t rows, int64_t cols) {
  std::vector<InDim> dims;
  for (const auto& [n, b] : ins) dims.push_back(InDim{n, b});
  return LinearLayout(std::move(dims), {OutDim{"dim0", int32_t(rows)}, OutDim{"dim1", int32_t(cols)}});
}

std::string joinDims(const std::vector<int64_t>& v, char sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? std::string(1, sep) : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

// ------------------------------------------------------------------ names

std::optional<Target> parseTarget(std::string_view s) {
  if (s == "pvc") return Target::Pvc;
  if (s == "dg2") return Target::Dg2;
  return std::nullopt;
}
std::optional<ElemType> parseElemType(std::string_view s) {
  if (s == "bf16") return ElemType::BF16;
  if (s == "f16") return ElemType::F16;
  if (s == "tf32") return ElemType::TF32;
  if (s == "f32") return ElemType::F32;
  if (s == "i8" || s == "s8") return ElemType::I8;
  if (s == "u8") return ElemType::U8;
  if (s == "i32") return ElemType::I32;
  return std::nullopt;
}
std::string_view toString(Target t) { return t == Target::Pvc ? "pvc" : "dg2"; }
std::string_view toString(ElemType t) {
  switch (t) {
    case ElemType::BF16: return "bf16";
    case ElemType::F16: return "f16";
    case ElemType::TF32: return "tf32";
    case ElemType::F32: return "f32";
    case ElemType::I8: return "i8";
    case ElemType::U8: return "u8";
    case ElemType::I32: return "i32";
  }
  return "?";
}
std::string_view toString(Operand o) { return o == Operand::A ? "A" : o == Operand::B ? "B" : "C"; }
int elemBits(ElemType t) {
  switch (t) {
    case ElemType::BF16:
    case ElemType::F16: return 16;
    case ElemType::I8:
    case ElemType::U8: return 8;
    default: return 32;
  }
}
int subgroupSize(Target t) { return t == Target::Pvc ? 16 : 8; }

std::string RegisterPacking::describe() const {
  if (elementsPerSlot == 1)
    return fmt::format("one {}-bit element per {}-bit register slot", elementBits, slotBits);
  int k = log2i(elementsPerSlot);
  return fmt::format("{} {}-bit elements packed per {}-bit register slot ({} the element inside the slot)",
                     elementsPerSlot, elementBits, slotBits,
                     k == 1 ? std::string("register bit 0 selects") : fmt::format("register bits 0..{} select", k - 1));
}

// ------------------------------------------------------------------ wg_map

std::string WgMap::print() const {
  return fmt::format("wg_map<sg_layout=[{}], sg_data=[{}]>", joinDims(sgLayout, ','), joinDims(sgData, ','));
}

std::optional<std::string> checkWgMap(const WgMap& map, const std::vector<int64_t>& shape) {
  if (map.sgLayout.size() != shape.size() || map.sgData.size() != shape.size())
    return fmt::format("wg_map has sg_layout of rank {} and sg_data of rank {}, but the tile has rank {}",
                       map.sgLayout.size(), map.sgData.size(), shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (map.sgLayout[i] <= 0 || map.sgData[i] <= 0 || shape[i] <= 0)
      return fmt::format("dimension {}: sg_layout ({}), sg_data ({}) and the tile size ({}) must be positive", i,
                         map.sgLayout[i], map.sgData[i], shape[i]);
    int64_t cover = map.sgLayout[i] * map.sgData[i];
    if (cover % shape[i] != 0 && shape[i] % cover != 0)
      return fmt::format("dimension {}: sg_layout*sg_data = {}*{} = {} and the tile size {} must divide one another", i,
                         map.sgLayout[i], map.sgData[i], cover, shape[i]);
    if (map.sgData[i] > shape[i] || shape[i] % map.sgData[i] != 0)
      return fmt::format("dimension {}: sg_data {} must divide the tile size {}", i, map.sgData[i], shape[i]);
  }
  return std::nullopt;
}

Expected<LinearLayout> wgMapLayout(const WgMap& map, const std::vector<int64_t>& shape,
                                   const LinearLayout* perSubgroup) {
  if (auto err = checkWgMap(map, shape)) return Error{*err};
  size_t rank = shape.size();
  for (size_t i = 0; i < rank; ++i)
    if (!isPow2(shape[i]) || !isPow2(map.sgLayout[i]) || !isPow2(map.sgData[i]))
      return Error{fmt::format("dimension {}: linear layouts need powers of two (tile {}, sg_layout {}, sg_data {})", i,
                               shape[i], map.sgLayout[i], map.sgData[i])};
  std::vector<OutDim> outs;
  for (size_t i = 0; i < rank; ++i) outs.push_back(OutDim{fmt::format("dim{}", i), int32_t(shape[i])});
  auto unit = [&](size_t dim, int64_t v) {
    Basis b(rank, 0);
    b[dim] = int32_t(v);
    return b;
  };
  std::vector<InDim> ins;
  if (perSubgroup) {
    if (perSubgroup->outDims().size() != rank)
      return Error{"the per-subgroup layout must have one output dim per tile dim"};
    for (size_t i = 0; i < rank; ++i) {
      const OutDim& o = perSubgroup->outDims()[i];
      if (o.name != fmt::format("dim{}", i))
        return Error{fmt::format("the per-subgroup layout's output {} is '{}', expected dim{}", i, o.name, i)};
      if (o.size != map.sgData[i])
        return Error{fmt::format("the per-subgroup layout covers {} in dim{}, but sg_data is {}", o.size, i,
                                 map.sgData[i])};
    }
    if (perSubgroup->hasInDim("subgroup")) return Error{"the per-subgroup layout must not use 'subgroup'"};
    for (const auto& d : perSubgroup->inDims()) {
      InDim nd{d.name, {}};
      for (const auto& b : d.bases) {
        Basis v(rank, 0);
        for (size_t k = 0; k < rank; ++k) v[k] = b[k];
        nd.bases.push_back(v);
      }
      ins.push_back(std::move(nd));
    }
  } else {
    InDim reg{"register", {}};
    for (size_t i = rank; i-- > 0;)
      for (int b = 0; b < log2i(map.sgData[i]); ++b) reg.bases.push_back(unit(i, int64_t(1) << b));
    ins.push_back(std::move(reg));
  }
  auto regIt = std::find_if(ins.begin(), ins.end(), [](const InDim& d) { return d.name == "register"; });
  if (regIt == ins.end()) {
    ins.insert(ins.begin(), InDim{"register", {}});
    regIt = ins.begin();
  }
  // Round-robin: blocks beyond sg_layout*sg_data go to the same subgroup (row-major over blocks).
  for (size_t i = rank; i-- > 0;) {
    int64_t cover = map.sgLayout[i] * map.sgData[i];
    for (int64_t s = cover; s < shape[i]; s *= 2) regIt->bases.push_back(unit(i, s));
  }
  // Subgroup id, row-major over sg_layout: the last dim's bits are the lowest. Wrap-around: a subgroup
  // coordinate past the tile's block count maps back onto the tile (zero basis: shared data).
  InDim sg{"subgroup", {}};
  for (size_t i = rank; i-- > 0;) {
    int64_t blocks = shape[i] / map.sgData[i];
    for (int b = 0; b < log2i(map.sgLayout[i]); ++b)
      sg.bases.push_back((int64_t(1) << b) < blocks ? unit(i, map.sgData[i] << b) : Basis(rank, 0));
  }
  ins.push_back(std::move(sg));
  return LinearLayout::make(std::move(ins), std::move(outs));
}

// ------------------------------------------------------------------ DPAS

Expected<DpasShape> dpasShape(Target target, ElemType type) {
  DpasShape s;
  s.subgroupSize = subgroupSize(target);
  s.m = 8;
  s.n = target == Target::Pvc ? 16 : 8;
  switch (type) {
    case ElemType::BF16:
    case ElemType::F16: s.k = 16; break;
    case ElemType::I8:
    case ElemType::U8: s.k = 32; break;
    case ElemType::TF32:
      if (target == Target::Dg2) return Error{"dg2 has no tf32 DPAS (the reference lists bf16, f16, s8, u8 only)"};
      s.k = 8;
      break;
    default:
      return Error{fmt::format("no DPAS takes {} multiplicands (use bf16, f16, tf32, i8 or u8)", toString(type))};
  }
  return s;
}

Expected<HwLayout> dpasLayout(Target target, ElemType type, Operand operand, int repDim0, int repDim1, int rowsM) {
  auto shape = dpasShape(target, type);
  if (!shape) return Error{shape.error()};
  if (!isPow2(repDim0) || !isPow2(repDim1))
    return Error{fmt::format("DPAS repetitions {}x{} must be powers of two", repDim0, repDim1)};
  if (rowsM && (!isPow2(rowsM) || rowsM > shape->m || repDim0 != 1 || (target == Target::Pvc && type == ElemType::TF32)))
    return Error{fmt::format("no {}-row DPAS layout (1, 2 or 4 rows, one repetition along them; not tf32)", rowsM)};
  const int S = shape->subgroupSize, M = rowsM ? rowsM : shape->m, N = shape->n, K = shape->k;
  const int bits = elemBits(type);
  Bases reg, lane;
  int rows = 0, cols = 0;
  RegisterPacking pk;
  pk.elementBits = bits;
  auto laneCols = [&](int firstStride) {
    for (int s = firstStride, n = 0; n < log2i(S); ++n, s *= 2) lane.push_back(rc(0, s));
  };
  if (operand == Operand::A) {
    rows = M;
    cols = K;
    if (target == Target::Pvc) {
      if (type == ElemType::TF32) {
        // Lanes 0-7 hold the even rows, 8-15 the odd rows; element i = row 2i + lane/8.
        reg = {rc(2, 0), rc(4, 0)};
        lane = {rc(0, 1), rc(0, 2), rc(0, 4), rc(1, 0)};
        pk.slotBits = 32;
        pk.elementsPerSlot = 1;
      } else {
        // <8 x i16>: element m of lane n is A[m][n] (16-bit), or bytes A[m][2n], A[m][2n+1] (8-bit).
        int per = 16 / bits;
        for (int b = 0; b < log2i(per); ++b) reg.push_back(rc(0, 1 << b));
        for (int m = 1; m < M; m *= 2) reg.push_back(rc(m, 0));
        laneCols(per);
        pk.slotBits = 16;
        pk.elementsPerSlot = per;
      }
    } else {
      // dg2: A packed in 32 bits: lane j element m = A[m][per*j .. per*j+per-1].
      int per = 32 / bits;
      for (int b = 0; b < log2i(per); ++b) reg.push_back(rc(0, 1 << b));
      for (int m = 1; m < M; m *= 2) reg.push_back(rc(m, 0));
      laneCols(per);
      pk.slotBits = 32;
      pk.elementsPerSlot = per;
    }
  } else if (operand == Operand::B) {
    rows = K;
    cols = N;
    // VNNI: dword i of lane n = B[per*i .. per*i+per-1][n].
    int per = 32 / bits;
    for (int k = 1; k < K; k *= 2) reg.push_back(rc(k, 0));
    laneCols(1);
    pk.slotBits = 32;
    pk.elementsPerSlot = per;
  } else {
    rows = M;
    cols = N;
    for (int m = 1; m < M; m *= 2) reg.push_back(rc(m, 0));
    laneCols(1);
    pk.elementBits = 32;
    pk.slotBits = 32;
    pk.elementsPerSlot = 1;
  }
  for (int r = 1; r < repDim0; r *= 2) reg.push_back(rc(int64_t(rows) * r, 0));
  for (int c = 1; c < repDim1; c *= 2) reg.push_back(rc(0, int64_t(cols) * c));
  HwLayout hw{make2D({{"register", reg}, {"lane", lane}}, int64_t(rows) * repDim0, int64_t(cols) * repDim1), pk,
              {int64_t(rows) * repDim0, int64_t(cols) * repDim1},
              fmt::format("dpas<{}, {}, {}>", toString(target), toString(type), toString(operand))};
  if (rowsM && rowsM != shape->m && operand != Operand::B) hw.name.insert(hw.name.size() - 1, fmt::format(", m={}", rowsM));
  if (repDim0 > 1 || repDim1 > 1) hw.name.insert(hw.name.size() - 1, fmt::format(", rep={}x{}", repDim0, repDim1));
  return hw;
}

// ------------------------------------------------------------------ 2D block loads

std::string BlockLoad::print() const {
  std::string s = fmt::format("block_load<d{}, {}x{}", elemBits, width, height);
  if (arrayLength > 1) s += fmt::format("x{}", arrayLength);
  if (vnni) s += ", vnni";
  if (transpose) s += ", transpose";
  if (dataBits && dataBits != elemBits) s += fmt::format(", data=d{}", dataBits);
  return s + ">";
}

std::optional<std::string> checkBlockLoad(Target target, const BlockLoad& l) {
  if (target == Target::Dg2)
    return "dg2 has no 2D block IO (cl_intel_subgroup_2d_block_io exists only on subgroup-16 devices)";
  const int W = l.width, H = l.height, A = l.arrayLength;
  auto in = [](int v, std::initializer_list<int> set) { return std::find(set.begin(), set.end(), v) != set.end(); };
  auto hRange = [&](int maxH) { return isPow2(H) && H >= 1 && H <= maxH; };
  std::string shape = fmt::format("d{} {}x{}x{}{}", l.elemBits, W, H, A, l.vnni ? " vnni" : l.transpose ? " transposed" : "");
  bool legal = false;
  if (l.vnni && l.transpose) return "a block load cannot be both VNNI-transformed and transposed";
  if (l.transpose) {
    legal = l.elemBits == 32 && W == 8 && in(H, {16, 32}) && A == 1;
    if (!legal) return fmt::format("{} is not a legal transposed load (only d32 8x16x1 and 8x32x1)", shape);
  } else if (l.vnni) {
    legal = (l.elemBits == 8 && W == 16 && H == 32 && in(A, {1, 2, 4})) ||
            (l.elemBits == 16 && W == 16 && in(H, {16, 32}) && in(A, {1, 2}));
    if (!legal) return fmt::format("{} is not a legal VNNI load (d8 16x32x{{1,2,4}}, d16 16x{{16,32}}x{{1,2}})", shape);
  } else {
    switch (l.elemBits) {
      case 8: legal = (W == 32 && hRange(32) && in(A, {1, 2})) || (W == 16 && in(H, {8, 16, 32}) && A == 4); break;
      case 16: legal = (W == 16 || W == 32) && hRange(32) && in(A, {1, 2}); break;
      case 32: legal = (W == 8 && hRange(32) && in(A, {1, 2})) || (W == 16 && hRange(32) && A == 1); break;
      default: return fmt::format("block loads move d8, d16 or d32 elements, not d{}", l.elemBits);
    }
    if (!legal) return fmt::format("{} is not a legal block load shape (reference §2.5)", shape);
  }
  return std::nullopt;
}

Expected<HwLayout> blockLoadLayout(const BlockLoad& l, int S) {
  const int W = l.width, H = l.height, A = l.arrayLength;
  const int dataBits = l.dataBits ? l.dataBits : l.elemBits;
  if (!isPow2(W) || !isPow2(H) || !isPow2(A) || !isPow2(S))
    return Error{fmt::format("block {}x{}x{} on {} lanes: sizes must be powers of two", W, H, A, S)};
  if (l.elemBits != 8 && l.elemBits != 16 && l.elemBits != 32)
    return Error{fmt::format("block loads move d8, d16 or d32 elements, not d{}", l.elemBits)};
  if (dataBits != l.elemBits && !(l.transpose && l.elemBits == 32 && (dataBits == 16 || dataBits == 8)))
    return Error{"a data size different from the access size is only meaningful for d32 transposed loads"};
  Bases f;  // basis of each bit of the response's flat data-element index
  int eps = 1, slotBits = 32;
  int rows = H, cols = W * A;
  std::string name = l.print();
  if (l.transpose) {
    if (A != 1) return Error{"transposed block loads have one block"};
    if (l.elemBits != 32) return Error{"transposed block loads move d32 elements only"};
    if (H < S) return Error{fmt::format("a transposed load needs at least {} rows (one per lane)", S)};
    // Lane j, dword e: memory row j + S*(e mod H/S), memory column e / (H/S) (reference §2.3). The
    // result tensor is the transpose; a dword holds q consecutive data elements of a memory row.
    int q = 32 / dataBits;
    eps = q;
    rows = W * q;
    cols = H;
    for (int d = 1; d < q; d *= 2) f.push_back(rc(d, 0));      // data element inside the dword
    for (int j = 1; j < S; j *= 2) f.push_back(rc(0, j));      // lane
    for (int t = S; t < H; t *= 2) f.push_back(rc(0, t));      // extra row groups, interleaved
    for (int c = 1; c < W; c *= 2) f.push_back(rc(int64_t(c) * q, 0));  // memory column
  } else if (l.vnni) {
    int p = 32 / l.elemBits;
    if (W != S) return Error{fmt::format("VNNI loads need a width equal to the subgroup size ({})", S)};
    if (H % p) return Error{fmt::format("VNNI packing of {} rows needs a height divisible by {}", p, p)};
    eps = p;
    for (int h = 1; h < p; h *= 2) f.push_back(rc(h, 0));
    for (int j = 1; j < W; j *= 2) f.push_back(rc(0, j));
    for (int i = p; i < H; i *= 2) f.push_back(rc(i, 0));
    for (int a = 1; a < A; a *= 2) f.push_back(rc(0, int64_t(W) * a));
  } else {
    slotBits = l.elemBits == 8 ? 16 : l.elemBits;  // d8 data arrives as i16 slots (two bytes)
    eps = slotBits / l.elemBits;
    if (A > 1 && int64_t(W) * H * l.elemBits / 8 % 64 != 0)
      return Error{"blocks smaller than a 64-byte register are padded inside an array load; not modelled"};
    for (int c = 1; c < W; c *= 2) f.push_back(rc(0, c));
    for (int r = 1; r < H; r *= 2) f.push_back(rc(r, 0));
    for (int a = 1; a < A; a *= 2) f.push_back(rc(0, int64_t(W) * a));
  }
  int lowBits = log2i(eps), laneBits = log2i(S);
  if (int(f.size()) < lowBits + laneBits)
    return Error{fmt::format("{} holds fewer elements than one register row of {} lanes", name, S)};
  Bases reg, lane;
  for (int b = 0; b < int(f.size()); ++b) {
    if (b < lowBits || b >= lowBits + laneBits) reg.push_back(f[b]);
    else lane.push_back(f[b]);
  }
  RegisterPacking pk{dataBits, slotBits, eps};
  return HwLayout{make2D({{"register", reg}, {"lane", lane}}, rows, cols), pk, {rows, cols}, name};
}

Expected<LinearLayout> blockOffsetLayout(const BlockLoad& l) {
  int rows = l.height, cols = l.width;
  if (l.vnni) rows /= 32 / l.elemBits;
  if (!isPow2(rows) || !isPow2(cols)) return Error{"block offset layout needs power-of-two sizes"};
  Bases off;
  for (int c = 1; c < cols; c *= 2) off.push_back(rc(0, c));
  for (int r = 1; r < rows; r *= 2) off.push_back(rc(r, 0));
  return make2D({{"offset", off}}, rows, cols);
}

std::vector<std::vector<int32_t>> blockIterationBases(int blockRows, int blockCols, int tileRows, int tileCols) {
  Bases it;
  for (int r = blockRows; r < tileRows; r *= 2) it.push_back(rc(r, 0));
  for (int c = blockCols; c < tileCols; c *= 2) it.push_back(rc(0, c));
  return it;
}

Expected<LinearLayout> blockTileLayout(const LinearLayout& offsetLayout, const std::vector<std::vector<int32_t>>& iterations,
                                       const std::vector<std::vector<int32_t>>& loads, int outRows, int outCols) {
  auto l = offsetLayout.resizeOutDim("dim0", outRows);
  if (!l) return l;
  l = l->resizeOutDim("dim1", outCols);
  if (!l) return l;
  l = l->appendBases("iteration", iterations);
  if (!l) return l;
  return l->appendBases("load", loads);
}

// ------------------------------------------------------------------ cooperative matrix

std::optional<CoopUse> parseCoopUse(std::string_view s) {
  if (s == "a" || s == "A" || s == "matrix_a") return CoopUse::A;
  if (s == "b" || s == "B" || s == "matrix_b") return CoopUse::B;
  if (s == "acc" || s == "c" || s == "C" || s == "matrix_acc") return CoopUse::Acc;
  return std::nullopt;
}

Expected<HwLayout> coopMatrixLayout(int S, int M, int N, ElemType type, CoopUse use) {
  if (!isPow2(S) || !isPow2(M)) return Error{fmt::format("coopmatrix needs a power-of-two subgroup size and row count (got {} and {})", S, M)};
  if (N <= 0) return Error{"coopmatrix needs a positive column count"};
  const int bytes = elemBits(type) / 8;
  const int64_t I = std::min(M, S);
  const int64_t J = (I * N + S - 1) / S * S / I;  // J = ceil(I*N/S)*S/I
  const int64_t K = M / I;
  int64_t K1 = 1;
  int omega = 1;  // channels packed per dword (matrix A, VNNI)
  if (use == CoopUse::B) {
    int omegaB = std::max(1, 2 / bytes);
    K1 = (M / S > 1) ? omegaB : 1;
  }
  if (use == CoopUse::A) {
    int w = std::max(1, 4 / bytes);
    if (w > 1 && N % w == 0) omega = w;
  }
  if (K % K1) return Error{"coopmatrix: K1 must divide M/I"};
  const int64_t K2 = K / K1;
  const int64_t Jp = (J + omega - 1) / omega;  // packed columns
  if (!isPow2(Jp) || I * Jp % S != 0)
    return Error{fmt::format("coopmatrix {}x{} on {} lanes: J = {} columns per row group is not a power of two, "
                             "so the mapping is not linear", M, N, S, J)};
  const int64_t VK = I * Jp / S;  // components per k (u range)
  Bases reg, lane;
  for (int c = 1; c < omega; c *= 2) reg.push_back(rc(0, c));                            // channel
  for (int64_t k1 = 1; k1 < K1; k1 *= 2) reg.push_back(rc(I * k1, 0));                   // w1
  for (int64_t u = 1; u < VK; u *= 2) reg.push_back(rc(0, (S / I) * u * omega));         // u
  for (int64_t k2 = 1; k2 < K2; k2 *= 2) reg.push_back(rc(I * K1 * k2, 0));              // w2
  for (int64_t i = 1; i < I; i *= 2) lane.push_back(rc(i, 0));                            // p mod I
  for (int64_t j = 1; j < S / I; j *= 2) lane.push_back(rc(0, j * omega));               // p / I
  int64_t cols = Jp * omega;
  RegisterPacking pk{elemBits(type), omega > 1 ? 32 : elemBits(type), omega};
  std::string useName = use == CoopUse::A ? "a" : use == CoopUse::B ? "b" : "acc";
  return HwLayout{make2D({{"register", reg}, {"lane", lane}}, M, cols), pk, {M, N},
                  fmt::format("coopmatrix<{}, {}x{}, {}, {}>", S, M, N, toString(type), useName)};
}

// ------------------------------------------------------------------ swizzles and banks

std::string Swizzle::print() const { return fmt::format("swizzle<{},{},{}>", bits, base, shift); }

Expected<LinearLayout> swizzleLayout(const Swizzle& s, int addrBits) {
  if (s.bits < 0 || s.base < 0 || s.shift < s.bits)
    return Error{fmt::format("{} is not a swizzle: need B >= 0, M >= 0 and S >= B", s.print())};
  if (addrBits < 0 || addrBits > 30) return Error{"swizzle address space out of range"};
  Bases off;
  for (int b = 0; b < addrBits; ++b) {
    int64_t v = int64_t(1) << b;
    if (b >= s.base + s.shift && b < s.base + s.shift + s.bits) v |= int64_t(1) << (b - s.shift);
    off.push_back({int32_t(v)});
  }
  return LinearLayout::make({InDim{"offset", off}}, {OutDim{"addr", int32_t(1) << addrBits}});
}

Expected<LinearLayout> slmLayout(int rows, int cols, int elemBytes, const Swizzle& s) {
  if (!isPow2(rows) || !isPow2(cols) || !isPow2(elemBytes))
    return Error{fmt::format("SLM tile {}x{} of {}-byte elements: sizes must be powers of two", rows, cols, elemBytes)};
  const int eb = log2i(elemBytes);
  if (s.bits > 0 && s.base < eb)
    return Error{fmt::format("{} would split {}-byte elements (needs M >= {})", s.print(), elemBytes, eb)};
  const int addrBits = log2i(rows) + log2i(cols) + eb;
  auto swz = swizzleLayout(s, addrBits);
  if (!swz) return swz;
  // tensor (dim0, dim1) → element slot, through the byte address.
  Bases d0, d1;
  for (int b = 0; b < log2i(cols); ++b) d1.push_back({swz->basis("offset", b + eb)[0] >> eb});
  for (int b = 0; b < log2i(rows); ++b) d0.push_back({swz->basis("offset", b + log2i(cols) + eb)[0] >> eb});
  LinearLayout fwd({InDim{"dim0", d0}, InDim{"dim1", d1}}, {OutDim{"addr", rows * cols}});
  return fwd.invert();
}

Expected<int> bankConflictWays(const LinearLayout& byteAddr, const BankModel& model, int accessBytes,
                               std::string_view laneDim) {
  if (byteAddr.outDims().size() != 1) return Error{"bank conflicts need a layout with one (byte address) output"};
  if (!isPow2(model.banks) || !isPow2(model.bankBytes) || !isPow2(accessBytes))
    return Error{"bank count, bank width and access size must be powers of two"};
  const int wordShift = log2i(model.bankBytes);
  std::vector<uint64_t> words;
  int off = byteAddr.inBitOffset(laneDim);
  if (off < 0) return Error{fmt::format("the access layout has no '{}' dimension", laneDim)};
  for (int b = 0; b < byteAddr.inDimBits(laneDim); ++b) words.push_back(byteAddr.column(off + b) >> wordShift);
  for (int w = 1; w < accessBytes / model.bankBytes; w *= 2) words.push_back(uint64_t(w));
  std::vector<uint64_t> banks;
  for (uint64_t w : words) banks.push_back(w & uint64_t(model.banks - 1));
  return 1 << (gf2Rank(words) - gf2Rank(banks));
}

Expected<int> slmAccessConflictWays(const LinearLayout& hw, const LinearLayout& slm, int elemBytes,
                                    const BankModel& model, std::string_view laneDim) {
  auto inv = slm.invert();
  if (!inv) return Error{"SLM placement is not a bijection: " + inv.error()};
  auto slots = hw.then(*inv);
  if (!slots) return Error{slots.error()};
  std::vector<InDim> ins = slots->inDims();
  for (auto& d : ins)
    for (auto& b : d.bases) b[0] *= elemBytes;
  auto bytes = LinearLayout::make(std::move(ins), {OutDim{"addr", slots->outDims()[0].size * elemBytes}});
  if (!bytes) return Error{bytes.error()};
  return bankConflictWays(*bytes, model, elemBytes, laneDim);
}

}  // namespace xtc::layout
