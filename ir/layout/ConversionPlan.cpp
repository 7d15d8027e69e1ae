// Layout conversion planner (see ConversionPlan.h). The core is one question asked at three levels:
// is there a linear map P from destination index to source index with src∘P = dst that keeps the
// subgroup and the lane (register permutation), keeps the subgroup (shuffles), or neither (SLM)?
// Each column of P is one GF(2) solve against the source's basis vectors.
#include "ir/layout/ConversionPlan.h"

#include <algorithm>
#include <array>
#include <bit>
#include <map>

#include <fmt/format.h>

namespace xtc::layout {

namespace {

int log2i(int64_t v) { return v <= 1 ? 0 : 63 - std::countl_zero(uint64_t(v)); }

const char* kDims[3] = {"register", "lane", "subgroup"};

// The three hardware dims of a layout as flat column lists.
struct Hw {
  std::vector<uint64_t> cols[3];
  int bits[3] = {0, 0, 0};
};

Expected<Hw> hwColumns(const LinearLayout& l, const char* which) {
  for (const auto& d : l.inDims())
    if (d.name != "register" && d.name != "lane" && d.name != "subgroup")
      return Error{fmt::format("the {} layout has input dim '{}'; conversions need register/lane/subgroup layouts",
                               which, d.name)};
  Hw h;
  for (int k = 0; k < 3; ++k) {
    h.bits[k] = l.inDimBits(kDims[k]);
    int off = l.inBitOffset(kDims[k]);
    for (int b = 0; b < h.bits[k]; ++b) h.cols[k].push_back(l.column(off + b));
  }
  return h;
}

// Solves target in the span of the allowed source columns, trying them in `order` (dim ids); returns
// the source index bits as (register mask, lane mask, subgroup mask).
std::optional<std::array<uint64_t, 3>> solveIn(const Hw& src, const std::vector<int>& order, uint64_t target) {
  Gf2Basis basis;
  std::vector<std::pair<int, int>> who;  // insertion index -> (dim, bit)
  for (int d : order)
    for (int b = 0; b < src.bits[d]; ++b) {
      basis.insert(src.cols[d][b]);
      who.emplace_back(d, b);
    }
  auto combo = basis.solve(target);
  if (!combo) return std::nullopt;
  std::array<uint64_t, 3> x{0, 0, 0};
  for (size_t i = 0; i < who.size(); ++i)
    if ((*combo >> i) & 1) x[who[i].first] |= uint64_t(1) << who[i].second;
  return x;
}

// P as a LinearLayout (register, lane, subgroup) → (register, lane, subgroup).
LinearLayout mapLayout(const Hw& src, const Hw& dst, const std::vector<std::array<uint64_t, 3>> cols[3]) {
  std::vector<InDim> ins;
  for (int d = 0; d < 3; ++d) {
    InDim in{kDims[d], {}};
    for (int b = 0; b < dst.bits[d]; ++b)
      in.bases.push_back({int32_t(cols[d][b][0]), int32_t(cols[d][b][1]), int32_t(cols[d][b][2])});
    ins.push_back(std::move(in));
  }
  std::vector<OutDim> outs;
  for (int d = 0; d < 3; ++d) outs.push_back(OutDim{kDims[d], int32_t(1) << src.bits[d]});
  return LinearLayout(std::move(ins), std::move(outs));
}

std::string laneExpression(const std::vector<int32_t>& srcLane, const std::vector<int32_t>& laneBitImage, int32_t c,
                           bool complete) {
  int n = int(laneBitImage.size());
  bool identity = true, zero = true;
  for (int b = 0; b < n; ++b) {
    identity = identity && laneBitImage[b] == (1 << b);
    zero = zero && laneBitImage[b] == 0;
  }
  (void)srcLane;
  if (complete && zero) return std::to_string(c);
  if (complete && identity) return c == 0 ? "lane" : fmt::format("lane ^ {}", c);
  std::string s;
  for (int b = 0; b < n; ++b)
    if (laneBitImage[b]) s += fmt::format("{}(lane bit {} ? {} : 0)", s.empty() ? "" : " ^ ", b, laneBitImage[b]);
  if (c || s.empty()) s += fmt::format("{}{}", s.empty() ? "" : " ^ ", c);
  return complete ? s : "per-lane table";
}

}  // namespace

std::string_view toString(ConversionKind k) {
  switch (k) {
    case ConversionKind::Identity: return "identity";
    case ConversionKind::RegisterPermutation: return "register-permutation";
    case ConversionKind::Shuffle: return "shuffle";
    case ConversionKind::SharedMemory: return "shared-memory";
  }
  return "?";
}

Expected<SlmPlan> chooseSwizzle(const LinearLayout& store, const LinearLayout& load, int elemBytes,
                                const BankModel& banks) {
  if (store.outDims().size() != 2) return Error{"SLM round trips are planned for 2-D tensors"};
  const int rows = store.outDims()[0].size, cols = store.outDims()[1].size;
  const int eb = log2i(elemBytes);
  const int addrBits = log2i(rows) + log2i(cols) + eb;
  SlmPlan best;
  bool have = false;
  auto evaluate = [&](const Swizzle& s) -> bool {
    auto slm = slmLayout(rows, cols, elemBytes, s);
    if (!slm) return false;
    auto st = slmAccessConflictWays(store, *slm, elemBytes, banks);
    auto ld = slmAccessConflictWays(load, *slm, elemBytes, banks);
    if (!st || !ld) return false;
    auto key = [](int a, int b, const Swizzle& z) { return std::make_tuple(std::max(a, b), a + b, z.bits, z.base, z.shift); };
    if (!have || key(*st, *ld, s) < key(best.storeConflictWays, best.loadConflictWays, best.swizzle)) {
      best.swizzle = s;
      best.storeConflictWays = *st;
      best.loadConflictWays = *ld;
      best.placement = *slm;
      have = true;
    }
    return true;
  };
  Swizzle none{0, std::max(eb, 0), 0};
  if (!evaluate(none)) return Error{"cannot place the tile in SLM"};
  best.unswizzledStoreWays = best.storeConflictWays;
  best.unswizzledLoadWays = best.loadConflictWays;
  for (int b = 1; b <= 5; ++b)
    for (int m = eb; m + b <= addrBits; ++m)
      for (int s = b; m + s + b <= addrBits; ++s) evaluate(Swizzle{b, m, s});
  best.bytes = int64_t(rows) * cols * elemBytes;
  return best;
}

Expected<LinearLayout> slmBlockAccessLayout(int rows, int cols, int blockRows, int blockCols, int lanes) {
  for (int v : {rows, cols, blockRows, blockCols, lanes})
    if (v < 1 || !std::has_single_bit(unsigned(v)))
      return Error{fmt::format("SLM block access {}x{} of a {}x{} buffer by {} lanes: sizes must be powers of two", blockRows,
                               blockCols, rows, cols, lanes)};
  if (blockRows > rows || blockCols > cols)
    return Error{fmt::format("SLM block {}x{} is larger than its {}x{} buffer", blockRows, blockCols, rows, cols)};
  const int wb = log2i(blockCols), hb = log2i(blockRows), lb = log2i(lanes);
  std::vector<std::vector<int32_t>> lane, reg;
  for (int i = 0; i < wb + hb; ++i) {
    std::vector<int32_t> v = i < wb ? std::vector<int32_t>{0, 1 << i} : std::vector<int32_t>{1 << (i - wb), 0};
    (i < lb ? lane : reg).push_back(std::move(v));
  }
  for (int i = wb + hb; i < lb; ++i) lane.push_back({0, 0});
  return LinearLayout::make({InDim{"register", reg}, InDim{"lane", lane}}, {OutDim{"dim0", rows}, OutDim{"dim1", cols}});
}

Expected<SlmPlan> planSlmExchange(int rows, int cols, int elemBytes, std::array<int, 2> writeBlock,
                                  std::array<int, 2> readBlock, int lanes, const BankModel& banks) {
  auto store = slmBlockAccessLayout(rows, cols, writeBlock[0], writeBlock[1], lanes);
  if (!store) return Error{store.error()};
  auto load = slmBlockAccessLayout(rows, cols, readBlock[0], readBlock[1], lanes);
  if (!load) return Error{load.error()};
  return chooseSwizzle(*store, *load, elemBytes, banks);
}

Expected<ConversionPlan> planConversion(const LinearLayout& src, const LinearLayout& dst,
                                        const ConversionOptions& options) {
  if (src.outDims() != dst.outDims())
    return Error{fmt::format("source and destination describe different tensors ({} vs {})", src.print(), dst.print())};
  auto hs = hwColumns(src, "source");
  if (!hs) return Error{hs.error()};
  auto hd = hwColumns(dst, "destination");
  if (!hd) return Error{hd.error()};
  const Hw& S = *hs;
  const Hw& D = *hd;
  if (S.bits[1] != D.bits[1])
    return Error{fmt::format("source has {} lanes, destination {}", 1 << S.bits[1], 1 << D.bits[1])};
  if (S.bits[2] != D.bits[2])
    return Error{fmt::format("source has {} subgroups, destination {}", 1 << S.bits[2], 1 << D.bits[2])};
  {
    std::vector<uint64_t> all;
    for (int d = 0; d < 3; ++d) all.insert(all.end(), S.cols[d].begin(), S.cols[d].end());
    Gf2Basis image;
    for (uint64_t c : all) image.insert(c);
    for (int d = 0; d < 3; ++d)
      for (uint64_t c : D.cols[d])
        if (!image.contains(c))
          return Error{"the destination needs elements that the source does not hold (its image is larger)"};
  }
  ConversionPlan plan;
  if (src.sameMap(dst)) {
    plan.kind = ConversionKind::Identity;
    std::vector<std::array<uint64_t, 3>> cols[3];
    for (int d = 0; d < 3; ++d)
      for (int b = 0; b < D.bits[d]; ++b) {
        std::array<uint64_t, 3> x{0, 0, 0};
        x[d] = uint64_t(1) << b;
        cols[d].push_back(x);
      }
    plan.dstToSrc = mapLayout(S, D, cols);
  } else {
    // Level 0: keep lane and subgroup (register permutation); level 1: keep subgroup (shuffles).
    for (int level = 0; level < 2 && !plan.dstToSrc; ++level) {
      std::vector<std::array<uint64_t, 3>> cols[3];
      bool ok = true;
      for (int d = 0; d < 3 && ok; ++d)
        for (int b = 0; b < D.bits[d] && ok; ++b) {
          uint64_t target = D.cols[d][b];
          std::array<uint64_t, 3> fixed{0, 0, 0};
          // Dims kept at this level move in step: the same bit of the source dim, the rest solved.
          bool kept = d == 2 || (d == 1 && level == 0);
          if (kept) {
            fixed[d] = uint64_t(1) << b;
            target ^= S.cols[d][b];
          }
          std::vector<int> order = level == 0 ? std::vector<int>{0} : (d == 1 ? std::vector<int>{1, 0} : std::vector<int>{0, 1});
          auto x = solveIn(S, order, target);
          if (!x) {
            ok = false;
            break;
          }
          for (int k = 0; k < 3; ++k) (*x)[k] ^= fixed[k];
          cols[d].push_back(*x);
        }
      if (ok) {
        plan.dstToSrc = mapLayout(S, D, cols);
        plan.kind = level == 0 ? ConversionKind::RegisterPermutation : ConversionKind::Shuffle;
      }
    }
  }
  if (!plan.dstToSrc) {
    plan.kind = ConversionKind::SharedMemory;
    auto slm = chooseSwizzle(src, dst, options.elemBytes, options.banks);
    if (!slm) return Error{slm.error()};
    slm->storesPerSubgroup = src.inDimSize("register");
    slm->loadsPerSubgroup = dst.inDimSize("register");
    plan.slm = *slm;
    return plan;
  }
  // Tables for subgroup 0.
  const int R = 1 << D.bits[0], L = 1 << D.bits[1];
  const LinearLayout& P = *plan.dstToSrc;
  for (int b = 0; b < D.bits[2]; ++b) {
    const auto& v = P.basis("subgroup", b);
    if (v[0] != 0 || v[1] != 0) plan.subgroupDependent = true;
  }
  plan.sources.assign(R, std::vector<LaneSource>(L));
  for (int r = 0; r < R; ++r)
    for (int l = 0; l < L; ++l) {
      auto s = P.apply(std::vector<int32_t>{r, l, 0});
      plan.sources[r][l] = LaneSource{s[1], s[0]};
      if (s[0] != plan.sources[r][0].reg) plan.laneDependentRegisters = true;
    }
  if (plan.kind == ConversionKind::Identity) return plan;
  if (plan.kind == ConversionKind::RegisterPermutation) {
    if (!plan.laneDependentRegisters)
      for (int r = 0; r < R; ++r) plan.registerPermutation.push_back(plan.sources[r][0].reg);
    plan.moveCount = R;
    return plan;
  }
  // Shuffles: per destination register, one op per distinct source register.
  std::vector<int32_t> laneImage;  // lane part of P on the dst lane bits
  for (int b = 0; b < D.bits[1]; ++b) laneImage.push_back(P.basis("lane", b)[1]);
  for (int r = 0; r < R; ++r) {
    std::map<int32_t, ShuffleOp> ops;
    for (int l = 0; l < L; ++l) {
      const LaneSource& s = plan.sources[r][l];
      auto& op = ops[s.reg];
      if (op.srcLane.empty()) {
        op.dstRegister = r;
        op.srcRegister = s.reg;
        op.srcLane.assign(L, -1);
      }
      op.srcLane[l] = s.lane;
    }
    for (auto& [reg, op] : ops) {
      bool moves = false, complete = true;
      for (int l = 0; l < L; ++l) {
        if (op.srcLane[l] < 0) complete = false;
        else if (op.srcLane[l] != l) moves = true;
      }
      if (!moves) {
        ++plan.moveCount;
        continue;
      }
      int32_t c = P.apply(std::vector<int32_t>{r, 0, 0})[1];
      op.laneExpr = laneExpression(op.srcLane, laneImage, c, complete);
      plan.shuffles.push_back(op);
    }
  }
  plan.shuffleCount = int(plan.shuffles.size());
  return plan;
}

std::string ConversionPlan::summary() const {
  std::string s = fmt::format("conversion: {}\n", toString(kind));
  switch (kind) {
    case ConversionKind::Identity: s += "  the layouts are equal; nothing to do\n"; break;
    case ConversionKind::RegisterPermutation:
      if (!registerPermutation.empty()) {
        s += "  dst register <- src register:";
        for (size_t r = 0; r < registerPermutation.size(); ++r) s += fmt::format(" {}<-{}", r, registerPermutation[r]);
        s += "\n";
      } else {
        s += "  the source register depends on the lane (see the per-lane table)\n";
      }
      break;
    case ConversionKind::Shuffle:
      s += fmt::format("  {} subgroup shuffles, {} register moves\n", shuffleCount, moveCount);
      for (const auto& op : shuffles)
        s += fmt::format("  dst r{} <- shuffle(src r{}, {})\n", op.dstRegister, op.srcRegister, op.laneExpr);
      break;
    case ConversionKind::SharedMemory:
      s += fmt::format("  through SLM: {} bytes, {}, store {}-way / load {}-way bank conflicts (unswizzled {} / {}), "
                       "{} stores and {} loads per subgroup, barrier between\n",
                       slm->bytes, slm->swizzle.print(), slm->storeConflictWays, slm->loadConflictWays,
                       slm->unswizzledStoreWays, slm->unswizzledLoadWays, slm->storesPerSubgroup, slm->loadsPerSubgroup);
      break;
  }
  return s;
}

}  // namespace xtc::layout
