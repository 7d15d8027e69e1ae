// tile.transpose on the pvc/dg2 path; see XeTranspose.h.
#include "ir/passes/XeTranspose.h"

#include <map>

namespace xtc::passes::xe {

ir::Operation* foldedTranspose(const ir::Operation& load) {
  if (!load.is("tile.load_tile") || load.numResults() != 1) return nullptr;
  const auto& uses = load.result()->uses();
  if (uses.size() != 1 || !uses.front().user->is("tile.transpose")) return nullptr;
  ir::Operation* tr = uses.front().user;
  return tr->result()->type().rank() == 2 ? tr : nullptr;
}

std::optional<Message> transposedLoadMessage(const targets::Target& t, const ir::Type& tile) {
  if (!t.has2dBlockIO || tile.rank() != 2) return std::nullopt;
  const int bits = static_cast<int>(ir::elemBits(tile.elem()));
  if (bits != 32 && bits != 16 && bits != 8) return std::nullopt;
  std::optional<Message> best;
  for (const targets::BlockShape& s : t.blockLoads) {
    if (!s.transpose || s.elemBits != 32 || s.arrayLength != 1) continue;
    Message m;
    m.elemBits = 32;
    m.width = static_cast<int>(s.width);
    m.height = static_cast<int>(s.height);
    m.transpose = true;
    m.dataBits = bits == 32 ? 0 : bits;
    if (tile.shape()[0] % m.rows() != 0 || tile.shape()[1] % m.cols() != 0) continue;
    if (!best || m.rows() * m.cols() > best->rows() * best->cols()) best = m;
  }
  return best;
}

layout::Expected<layout::LinearLayout> transposedLayout(const layout::LinearLayout& l) { return l.transposeTensor(); }

}  // namespace xtc::passes::xe

namespace xtc::passes::xe {

namespace {

int bitsOf(int64_t n) {
  int b = 0;
  while ((int64_t(1) << b) < n) ++b;
  return b;
}

// The xor of cols[b] over the set bits b of v: a linear map given by its values at the single bits.
int64_t xorOf(const std::vector<int64_t>& cols, int64_t v) {
  int64_t r = 0;
  for (size_t b = 0; b < cols.size(); ++b)
    if (v >> b & 1) r ^= cols[b];
  return r;
}

// The table (over all n values) of the linear map taking basis[t] to image[t], or nullopt when the
// basis does not span the n values (n a power of two).
std::optional<std::vector<int64_t>> tableOf(const std::vector<int64_t>& basis, const std::vector<int64_t>& image, int64_t n) {
  if (int64_t(1) << basis.size() != n) return std::nullopt;
  std::vector<int64_t> t(static_cast<size_t>(n), -1);
  for (int64_t m = 0; m < n; ++m) {
    int64_t v = xorOf(basis, m), w = xorOf(image, m);
    if (v < 0 || v >= n || t[static_cast<size_t>(v)] != -1) return std::nullopt;
    t[static_cast<size_t>(v)] = w;
  }
  return t;
}

// Gaussian elimination over GF(2): adds v to `rows` (pivot = highest bit) when independent of them.
bool addIndependent(std::map<int, int64_t>& rows, int64_t v) {
  while (v) {
    int p = 63 - __builtin_clzll(static_cast<unsigned long long>(v));
    auto it = rows.find(p);
    if (it == rows.end()) {
      rows[p] = v;
      return true;
    }
    v ^= it->second;
  }
  return false;
}

bool isPermutation(const std::vector<int64_t>& t) {
  std::vector<bool> seen(t.size(), false);
  for (int64_t v : t) {
    if (v < 0 || v >= static_cast<int64_t>(t.size()) || seen[static_cast<size_t>(v)]) return false;
    seen[static_cast<size_t>(v)] = true;
  }
  return true;
}

}  // namespace

int64_t DiagonalPlan::shuffles() const {
  int64_t n = 0;
  for (int64_t r = 0; r < R; ++r) {
    bool moves = false;
    for (int64_t l = 0; l < S; ++l) moves |= (G[static_cast<size_t>(l)] ^ H[static_cast<size_t>(r)]) != l;
    n += moves;
  }
  return n;
}

int64_t DiagonalPlan::selects() const {
  int64_t n = 0;
  for (int64_t f : F) n += f != 0;
  for (int64_t k : K) n += k != 0;
  return n * R;
}

void simulateDiagonal(const DiagonalPlan& p, std::vector<int64_t>& regs, std::vector<int64_t>& lanes) {
  regs.assign(static_cast<size_t>(p.R * p.S), 0);
  lanes.assign(static_cast<size_t>(p.R * p.S), 0);
  for (int64_t r = 0; r < p.R; ++r)
    for (int64_t l = 0; l < p.S; ++l) {
      // Phase 3 read w[Q(r ^ K(l))] in lane l; phase 2 read that register of lane G(l) ^ H(r3);
      // phase 1 read register r3 ^ F(l2) of lane l2.
      int64_t r3 = p.Q[static_cast<size_t>(r ^ xorOf(p.K, l))];
      int64_t l2 = p.G[static_cast<size_t>(l)] ^ p.H[static_cast<size_t>(r3)];
      regs[static_cast<size_t>(r * p.S + l)] = r3 ^ xorOf(p.F, l2);
      lanes[static_cast<size_t>(r * p.S + l)] = l2;
    }
}

// Derivation. Write the plan as src(r, l) = (A r ^ B l, C r ^ D l) (A: registers -> registers, B:
// lanes -> registers, C: registers -> lanes, D: lanes -> lanes; all linear). The phases compute
//   z[r](l) = x[r3 ^ F l2](l2) with r3 = Q r ^ K l (K here before the renaming), l2 = G l ^ H r3,
// so matching the plan: C = H Q, D = G ^ H K, A = Q ^ F H Q = Q ^ F C, B = K ^ F D. Choose Q with
// Q v = A v on the kernel of C (where F C v = 0) and invertible elsewhere, preferring Q u = A u (then
// F C u = 0: no select stage); then F on the image of C is (A ^ Q) C^-1 (0 elsewhere), H = C Q^-1,
// K = B ^ F D, G = D ^ H K, which must be a permutation of the lanes. The result is checked against
// the plan by simulateDiagonal, so a mistake can only cost the faster form, never correctness.
std::optional<DiagonalPlan> planDiagonal(const std::vector<int64_t>& regs, const std::vector<int64_t>& lanes, int64_t R,
                                         int64_t S) {
  if (R < 1 || S < 1 || (R & (R - 1)) || (S & (S - 1)) || regs.size() != static_cast<size_t>(R * S) ||
      lanes.size() != regs.size())
    return std::nullopt;
  int nR = bitsOf(R), nL = bitsOf(S);
  auto at = [&](const std::vector<int64_t>& v, int64_t r, int64_t l) { return v[static_cast<size_t>(r * S + l)]; };
  std::vector<int64_t> A, B, C, D;
  for (int i = 0; i < nR; ++i) {
    A.push_back(at(regs, int64_t(1) << i, 0));
    C.push_back(at(lanes, int64_t(1) << i, 0));
  }
  for (int j = 0; j < nL; ++j) {
    B.push_back(at(regs, 0, int64_t(1) << j));
    D.push_back(at(lanes, 0, int64_t(1) << j));
  }
  for (int64_t r = 0; r < R; ++r)
    for (int64_t l = 0; l < S; ++l)
      if (at(regs, r, l) != (xorOf(A, r) ^ xorOf(B, l)) || at(lanes, r, l) != (xorOf(C, r) ^ xorOf(D, l)) ||
          at(regs, r, l) >= R)
        return std::nullopt;
  // The kernel of C and a complement (the registers whose lane part is independent), by elimination.
  std::map<int, std::pair<int64_t, int64_t>> piv;  // pivot bit of C v -> (C v, v)
  std::vector<int64_t> kernel, comp;
  for (int i = 0; i < nR; ++i) {
    int64_t c = C[static_cast<size_t>(i)], v = int64_t(1) << i;
    while (c) {
      int p = 63 - __builtin_clzll(static_cast<unsigned long long>(c));
      auto it = piv.find(p);
      if (it == piv.end()) break;
      c ^= it->second.first;
      v ^= it->second.second;
    }
    if (!c) kernel.push_back(v);
    else {
      piv[63 - __builtin_clzll(static_cast<unsigned long long>(c))] = {c, v};
      comp.push_back(v);
    }
  }
  // Q: A on the kernel; on the complement A where that keeps Q invertible, else the next free unit vector.
  std::map<int, int64_t> span;
  std::vector<int64_t> basis, image;
  for (int64_t k : kernel) {
    if (!addIndependent(span, xorOf(A, k))) return std::nullopt;
    basis.push_back(k);
    image.push_back(xorOf(A, k));
  }
  int nextUnit = 0;
  for (int64_t u : comp) {
    int64_t q = xorOf(A, u);
    if (!addIndependent(span, q)) {
      while (nextUnit < nR && !addIndependent(span, int64_t(1) << nextUnit)) ++nextUnit;
      if (nextUnit >= nR) return std::nullopt;
      q = int64_t(1) << nextUnit++;
    }
    basis.push_back(u);
    image.push_back(q);
  }
  auto Q = tableOf(basis, image, R);
  if (!Q || !isPermutation(*Q)) return std::nullopt;
  std::vector<int64_t> Qinv(static_cast<size_t>(R));
  for (int64_t r = 0; r < R; ++r) Qinv[static_cast<size_t>((*Q)[static_cast<size_t>(r)])] = r;
  // F on the image of C: F(C u) = (A ^ Q) u; 0 on unit vectors completing a basis of the lanes.
  std::vector<int64_t> lb, li;
  std::map<int, int64_t> lspan;
  for (int64_t u : comp) {
    int64_t cu = xorOf(C, u);
    if (!addIndependent(lspan, cu)) return std::nullopt;
    lb.push_back(cu);
    li.push_back(xorOf(A, u) ^ (*Q)[static_cast<size_t>(u)]);
  }
  for (int j = 0; j < nL; ++j)
    if (addIndependent(lspan, int64_t(1) << j)) {
      lb.push_back(int64_t(1) << j);
      li.push_back(0);
    }
  auto Ft = tableOf(lb, li, S);
  if (!Ft) return std::nullopt;
  DiagonalPlan p;
  p.R = R;
  p.S = S;
  p.Q = *Q;
  p.H.resize(static_cast<size_t>(R));
  for (int64_t r = 0; r < R; ++r) p.H[static_cast<size_t>(r)] = xorOf(C, Qinv[static_cast<size_t>(r)]);
  std::vector<int64_t> K(static_cast<size_t>(S));
  p.G.resize(static_cast<size_t>(S));
  for (int64_t l = 0; l < S; ++l) {
    K[static_cast<size_t>(l)] = xorOf(B, l) ^ (*Ft)[static_cast<size_t>(xorOf(D, l))];
    p.G[static_cast<size_t>(l)] = xorOf(D, l) ^ p.H[static_cast<size_t>(K[static_cast<size_t>(l)])];
  }
  if (!isPermutation(p.G)) return std::nullopt;
  for (int j = 0; j < nL; ++j) {
    p.F.push_back((*Ft)[static_cast<size_t>(int64_t(1) << j)]);
    p.K.push_back(Qinv[static_cast<size_t>(K[static_cast<size_t>(int64_t(1) << j)])]);
  }
  std::vector<int64_t> sr, sl;
  simulateDiagonal(p, sr, sl);
  if (sr != regs || sl != lanes) return std::nullopt;
  return p;
}

}  // namespace xtc::passes::xe
