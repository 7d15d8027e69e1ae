// The merged block guard of dg2's loopless kernels (lower-xe's mergeBlockGuards / compactCondition,
// ir/passes/LowerXeBlockRead.cpp) against the tiles' exact bounds. The guard decides whether
// unguarded block messages run, so a false "inside" reads or writes out of bounds; the e2e and golden
// tests can only reach small sizes. Here the guard's condition, taken from each example's lowered IR,
// is evaluated by the ops' documented meaning (index and i64 wrap at 64 bits, i32 at 32, convert
// truncates) for group ids, subgroup ids, sizes and bases around 2^30, 2^31, 2^32 and the tile ends,
// and compared with the bounds written out here from the .xt source:
//  - never "inside" unless every tile is inside its memref and the oword alignment holds;
//  - always "inside" when that holds, the group ids are below 2^32 (a payload field) and every
//    memref of the kernel is below 4 GiB (docs/abi.md: the tiles that can exist; the range the guard
//    narrows to, rangeCondition's, may drop only tiles outside it, which take the per-lane arm);
//  - both answers occur (a negative control against a constant condition);
//  - at the ABI's edge: for each group id the largest value whose tiles, with the sizes they need and
//    the other id 0, still fit in memrefs below 4 GiB, the guard says inside (one more is outside the
//    ABI: checked for soundness only). In the shipped examples the edge is far inside the guard's
//    range (sg_bias_relu's g0: 2^22 - 2 against 2^25); SgBiasReluWideStride's is not, and a range
//    form there fails it (the check that rangeCondition falls back, measured by disabling it).
#include "tests/unit/passes/ExampleSupport.h"

#include <functional>
#include <random>
#include <set>

using namespace xtc;

namespace {

// One run's inputs: per kernel parameter its dims and base address, the ids.
struct Point {
  std::vector<std::vector<uint64_t>> dims;
  std::vector<uint64_t> base;
  uint64_t group[3] = {0, 0, 0};
  uint64_t subgroup = 0;
};

uint64_t mask(const ir::Type& t) {
  switch (t.elem()) {
    case ir::ElemKind::I1: return 1;
    case ir::ElemKind::I32: return 0xffffffffu;
    case ir::ElemKind::Index:
    case ir::ElemKind::I64: return ~uint64_t(0);
    default: throw std::runtime_error("guard eval: unexpected type");
  }
}

// The value of `v` at `p` (unsigned, in v's width), by the ops' meaning in docs/ir.md.
uint64_t evalAt(ir::Value* v, const Point& p, std::map<ir::Value*, uint64_t>& memo) {
  auto hit = memo.find(v);
  if (hit != memo.end()) return hit->second;
  ir::Operation* d = v->definingOp();
  if (!d) throw std::runtime_error("guard eval: a block argument");
  const std::string& n = d->name();
  uint64_t m = mask(v->type());
  auto arg = [&](unsigned i) { return evalAt(d->operand(i), p, memo); };
  auto param = [&] { return d->operand(0)->index(); };
  uint64_t r = 0;
  if (n == "arith.constant") r = static_cast<uint64_t>(d->attr("value")->getInt());
  else if (n == "gpu.group_id") r = p.group[d->attr("dim")->getInt()];
  else if (n == "gpu.subgroup_id") r = p.subgroup;
  else if (n == "memref.dim") r = p.dims.at(param()).at(static_cast<size_t>(d->attr("index")->getInt()));
  else if (n == "xe.base_address") r = p.base.at(param());
  else if (n == "xe.oword_align_bits") r = arg(0);  // its operand (the interpreter's and emulate-xe's reading)
  else if (n == "arith.convert") r = arg(0);        // integer to integer: the low bits (no widening here)
  else if (n == "arith.addi") r = arg(0) + arg(1);
  else if (n == "arith.subi") r = arg(0) - arg(1);
  else if (n == "arith.muli") r = arg(0) * arg(1);
  else if (n == "arith.andi") r = arg(0) & arg(1);
  else if (n == "arith.ori") r = arg(0) | arg(1);
  else if (n == "arith.shrui" || n == "arith.shli") {
    uint64_t s = arg(1);
    if (s >= 64 || (m >> s) == 0) throw std::runtime_error("guard eval: shift by the width or more");
    r = n == "arith.shrui" ? arg(0) >> s : arg(0) << s;
  } else if (n == "arith.cmpi") {
    std::string pred = d->attr("predicate")->getString();
    uint64_t a = arg(0), b = arg(1);
    if (pred == "eq") r = a == b;
    else if (pred == "ne") r = a != b;
    else if (pred == "ult") r = a < b;
    else if (pred == "ule") r = a <= b;
    else throw std::runtime_error("guard eval: predicate " + pred);
  } else {
    throw std::runtime_error("guard eval: cannot evaluate " + n);
  }
  if (n == "arith.convert" && mask(d->operand(0)->type()) < m) throw std::runtime_error("guard eval: a widening convert");
  return memo[v] = r & m;
}

// A tile of the source: parameter, extent, offsets as functions of the point.
struct Tile {
  unsigned param;
  uint64_t rows, cols;
  std::function<uint64_t(const Point&)> r0, c0;
};

struct GuardCase {
  const char* example;
  std::vector<Tile> tiles;
  std::vector<std::vector<bool>> dynamic;  // per parameter, per dim: dynamic (else static: staticDims)
  std::vector<std::vector<uint64_t>> staticDims;
  bool subgroups = false;  // two subgroups (bias_relu)
};

// The merged guard's condition in the example's lowered dg2 IR: the one scf.if of the body whose
// then-arm holds block messages.
ir::Value* mergedCondition(ir::Operation* kernel) {
  ir::Value* cond = nullptr;
  int found = 0;
  for (ir::Operation* o : ir::kernelBody(kernel).opsSnapshot()) {
    if (!o->is("scf.if")) continue;
    bool block = false;
    o->walk([&](ir::Operation* x) {
      block = block || x->is("xe.block_read") || x->is("xe.block_write") || x->is("xe.lane_read");
    });
    if (block) {
      cond = o->operand(0);
      ++found;
    }
  }
  EXPECT_EQ(found, 1) << "one merged guard expected";
  return cond;
}

// `range`: whether the condition is rangeCondition's (an `ult` compare) or compactCondition's (`eq`
// alone), as the example's offsets decide.
void checkGuard(const GuardCase& c, const std::vector<std::pair<std::string, std::string>>& edits = {}, bool range = true) {
  SCOPED_TRACE(c.example);
  xtc::testing::ExampleFixture f;
  std::unique_ptr<ir::Operation> module = f.tileIR(c.example, edits);
  ASSERT_TRUE(module);
  const targets::Target* target = targets::findTarget("dg2");
  ASSERT_TRUE(f.lower(module.get(), *target));
  ir::Operation* kernel = ir::moduleKernels(module.get())[0];
  ir::Value* cond = mergedCondition(kernel);
  ASSERT_NE(cond, nullptr);
  bool ult = false;
  std::vector<ir::Value*> work = {cond};
  std::set<ir::Operation*> seen;
  while (!work.empty()) {
    ir::Operation* d = work.back()->definingOp();
    work.pop_back();
    if (!d || !seen.insert(d).second) continue;
    ult = ult || (d->is("arith.cmpi") && d->attr("predicate")->getString() == "ult");
    for (ir::Value* v : d->operands()) work.push_back(v);
  }
  EXPECT_EQ(ult, range) << "the guard's form";

  // Candidates: ids near the powers of two the guard's shifts split at; sizes near each tile's end
  // and near 2^30, 2^31, 2^32 (and the end plus 2^32, whose low half equals the end's).
  const uint64_t P30 = uint64_t(1) << 30, P31 = uint64_t(1) << 31, P32 = uint64_t(1) << 32;
  std::vector<uint64_t> ids = {0, 1, 2, 5, (1u << 21) - 2, (1u << 21) - 1, 1u << 21, (1u << 22) - 2, (1u << 22) - 1,
                               1u << 22, (1u << 25) - 1, 1u << 25, (1u << 26) - 1, 1u << 26, (1u << 27) - 1, 1u << 27,
                               (1u << 28) - 1, 1u << 28, (1u << 29) - 1, 1u << 29, P31 - 1, P31, P32 - 1,
                               // beyond a 32-bit payload field: the IR's index ids may be (the guard
                               // must stay sound there), and g * 8 wraps at 2^61
                               P32, P32 + 1, uint64_t(1) << 59, uint64_t(1) << 61};
  std::mt19937_64 rng(20261206);
  auto pick = [&](const std::vector<uint64_t>& v) { return v[rng() % v.size()]; };
  // The end each dim must reach: the largest over the tiles on it.
  auto needAt = [&](const Point& p) {
    std::vector<std::vector<uint64_t>> need(c.dynamic.size(), std::vector<uint64_t>(2, 0));
    for (const Tile& t : c.tiles) {
      need[t.param][0] = std::max(need[t.param][0], t.r0(p) + t.rows);
      need[t.param][1] = std::max(need[t.param][1], t.c0(p) + t.cols);
    }
    return need;
  };
  // The sizes a point's tiles need exactly (the static ones as they are).
  auto tight = [&](Point& p) {
    std::vector<std::vector<uint64_t>> need = needAt(p);
    p.dims = c.staticDims;
    for (size_t a = 0; a < c.dynamic.size(); ++a)
      for (size_t d = 0; d < 2; ++d)
        if (c.dynamic[a][d]) p.dims[a][d] = need[a][d];
  };
  // Every memref below 4 GiB (f32: rows x cols x 4 bytes), in 128-bit arithmetic.
  auto fits = [&](const Point& p) {
    for (const std::vector<uint64_t>& d : p.dims)
      if ((unsigned __int128)d[0] * d[1] * 4 >= (unsigned __int128)1 << 32) return false;
    return true;
  };
  int64_t inside = 0, outside = 0;
  auto check = [&](const Point& p) {
    std::map<ir::Value*, uint64_t> memo;
    bool guard = evalAt(cond, p, memo) != 0;
    bool exact = true, promised = p.group[0] < P32 && p.group[1] < P32 && fits(p);
    for (const Tile& t : c.tiles) {
      uint64_t r0 = t.r0(p), c0 = t.c0(p), rows = p.dims[t.param][0], cols = p.dims[t.param][1];
      exact = exact && r0 + t.rows <= rows && c0 + t.cols <= cols && ((p.base[t.param] | cols * 4) & 15) == 0 &&
              (c0 * 4) % 16 == 0;
    }
    EXPECT_TRUE(!guard || exact) << "a false inside at g = (" << p.group[0] << ", " << p.group[1] << "), sg " << p.subgroup;
    if (promised) {
      EXPECT_EQ(guard, exact) << "a false outside for memrefs below 4 GiB at g = (" << p.group[0] << ", " << p.group[1]
                              << "), sg " << p.subgroup;
    }
    (guard ? inside : outside) += 1;
    return guard;
  };
  // The ABI's edge per group id (the other 0, subgroup 1 where there are two: the larger rows).
  for (int gd = 0; gd < 2; ++gd) {
    Point p;
    p.subgroup = c.subgroups ? 1 : 0;
    p.base.assign(c.dynamic.size(), 0x10000);
    auto fitsAt = [&](uint64_t g) {
      p.group[gd] = g;
      tight(p);
      return fits(p);
    };
    uint64_t lo = 0, hi = P32;  // fitsAt(lo), !fitsAt(hi): the memrefs grow with each id a tile reads
    ASSERT_TRUE(fitsAt(lo));
    if (fitsAt(hi)) continue;  // no tile's offset depends on this id (softmax's g1)
    while (hi - lo > 1) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (fitsAt(mid)) lo = mid;
      else hi = mid;
    }
    for (uint64_t g : {lo, lo - 1, hi}) {
      fitsAt(g);
      bool at = check(p);
      if (g != hi) {
        EXPECT_TRUE(at) << "the ABI's edge: g" << gd << " = " << g << " is outside";
      }
    }
  }
  for (int trial = 0; trial < 60000; ++trial) {
    Point p;
    // Ids small most of the time so the sizes' choices matter, large otherwise.
    for (int g = 0; g < 2; ++g) p.group[g] = rng() % 4 ? rng() % 64 : pick(ids);
    p.subgroup = c.subgroups ? rng() % 2 : 0;
    p.dims = c.staticDims;
    std::vector<std::vector<uint64_t>> need = needAt(p);
    for (size_t a = 0; a < c.dynamic.size(); ++a)
      for (size_t d = 0; d < 2; ++d) {
        if (!c.dynamic[a][d]) continue;
        uint64_t e = need[a][d];
        std::vector<uint64_t> sizes = {e + 1, e + 7, e - 1, e + P32, e + P32 - 1, P30, P31 - 1, P31, P32 - 1, P32,
                                       P32 + 5, e + (rng() % 1000)};
        if (e > P32) sizes.push_back(e - P32);
        p.dims[a][d] = rng() % 2 ? e : pick(sizes);
      }
    p.base.assign(c.dynamic.size(), 0);
    for (size_t a = 0; a < c.dynamic.size(); ++a) p.base[a] = 0x10000 + (rng() % 8 ? 0 : 4 * (1 + rng() % 3));

    check(p);
    if (::testing::Test::HasFailure()) return;  // the first failing point is the one to read
  }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 1000);
}

const uint64_t kGroup0 = 0, kGroup1 = 1;
uint64_t g(const Point& p, uint64_t d) { return p.group[d]; }

TEST(MergedGuard, SgBiasRelu) {
  checkGuard({"sg_bias_relu",
              {{0, 8, 32, [](const Point& p) { return g(p, kGroup0) * 8; }, [](const Point& p) { return g(p, kGroup1) * 32; }},
               {1, 1, 32, [](const Point&) { return uint64_t(0); }, [](const Point& p) { return g(p, kGroup1) * 32; }},
               {2, 8, 32, [](const Point& p) { return g(p, kGroup0) * 8; }, [](const Point& p) { return g(p, kGroup1) * 32; }}},
              {{true, true}, {false, true}, {true, true}},
              {{0, 0}, {1, 0}, {0, 0}}});
}

// A stride the range form cannot take (rangeCondition): rows at g0, columns at 64 g1 give s = 24,
// and tiles at rows 2^24 to 2^25 - 9 fit in memrefs below 4 GiB (128-byte rows), so the guard keeps
// compactCondition's shifts (g0 >> 30, g1 >> 24; a range form fails the ABI's edge here).
TEST(MergedGuard, SgBiasReluWideStride) {
  auto row = [](const Point& p) { return g(p, kGroup0); };
  auto col = [](const Point& p) { return g(p, kGroup1) * 64; };
  checkGuard({"sg_bias_relu",
              {{0, 8, 32, row, col}, {1, 1, 32, [](const Point&) { return uint64_t(0); }, col}, {2, 8, 32, row, col}},
              {{true, true}, {false, true}, {true, true}},
              {{0, 0}, {1, 0}, {0, 0}}},
             {{"m = group_id(0) * 8", "m = group_id(0)"}, {"n = group_id(1) * 32", "n = group_id(1) * 64"}}, false);
}

// Two subgroups per workgroup: subgroup s's 8 rows start at 16 g0 + 8 s; both read the bias row.
TEST(MergedGuard, BiasRelu) {
  auto row = [](const Point& p) { return g(p, kGroup0) * 16 + p.subgroup * 8; };
  auto col = [](const Point& p) { return g(p, kGroup1) * 32; };
  checkGuard({"bias_relu",
              {{0, 8, 32, row, col}, {1, 1, 32, [](const Point&) { return uint64_t(0); }, col}, {2, 8, 32, row, col}},
              {{true, true}, {false, true}, {true, true}},
              {{0, 0}, {1, 0}, {0, 0}},
              true});
}

// Y[n, m] = X[m, n]: X's tile at (16 g0, 16 g1), Y's at (16 g1, 16 g0).
TEST(MergedGuard, Transpose) {
  auto a = [](const Point& p) { return g(p, kGroup0) * 16; };
  auto b = [](const Point& p) { return g(p, kGroup1) * 16; };
  checkGuard({"transpose", {{0, 16, 16, a, b}, {1, 16, 16, b, a}}, {{true, true}, {true, true}}, {{0, 0}, {0, 0}}});
}

// memref<?x64xf32>: the columns are static, the rows at 8 g0.
TEST(MergedGuard, Softmax) {
  auto r = [](const Point& p) { return g(p, kGroup0) * 8; };
  auto zero = [](const Point&) { return uint64_t(0); };
  checkGuard({"softmax", {{0, 8, 64, r, zero}, {1, 8, 64, r, zero}}, {{true, false}, {true, false}}, {{0, 64}, {0, 64}}});
}

}  // namespace
