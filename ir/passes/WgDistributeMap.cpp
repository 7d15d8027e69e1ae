// The ownership function of a wg_map: see WgDistributeMap.h for the rules.
#include "ir/passes/WgDistributeMap.h"

#include <fmt/format.h>

namespace xtc::passes {

static std::string listStr(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}

std::string SgDistribution::check(const std::vector<int64_t>& shape, const ir::WgMap& map) {
  if (map.sgLayout.size() != shape.size() || map.sgData.size() != shape.size())
    return fmt::format("wg_map has {} sg_layout and {} sg_data entries for a rank-{} shape", map.sgLayout.size(),
                       map.sgData.size(), shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t w = shape[i], l = map.sgLayout[i], d = map.sgData[i];
    if (w <= 0) return fmt::format("dimension {} of the shape is not static and positive", i);
    if (l <= 0 || d <= 0) return fmt::format("sg_layout {} and sg_data {} must be positive", listStr(map.sgLayout), listStr(map.sgData));
    if (d > w || w % d != 0)
      return fmt::format("sg_data[{}] = {} does not divide the tile size {} along dimension {}", i, d, w, i);
    if ((l * d) % w != 0 && w % (l * d) != 0)
      return fmt::format("sg_layout[{}] * sg_data[{}] = {} and the tile size {} along dimension {} do not divide one another", i,
                         i, l * d, w, i);
  }
  return "";
}

std::vector<int64_t> SgDistribution::blocksPerDim() const {
  std::vector<int64_t> r;
  for (size_t i = 0; i < rank(); ++i) {
    int64_t round = map_.sgLayout[i] * map_.sgData[i];
    r.push_back(round < shape_[i] ? shape_[i] / round : 1);
  }
  return r;
}

int64_t SgDistribution::numBlocks() const {
  int64_t n = 1;
  for (int64_t b : blocksPerDim()) n *= b;
  return n;
}

std::vector<int64_t> SgDistribution::replicasPerDim() const {
  std::vector<int64_t> r;
  for (size_t i = 0; i < rank(); ++i) {
    int64_t round = map_.sgLayout[i] * map_.sgData[i];
    r.push_back(round > shape_[i] ? round / shape_[i] : 1);
  }
  return r;
}

bool SgDistribution::isReplicated() const {
  for (int64_t r : replicasPerDim())
    if (r > 1) return true;
  return false;
}

std::vector<int64_t> SgDistribution::sgCoords(int64_t sgId) const {
  std::vector<int64_t> c(rank());
  for (size_t i = rank(); i-- > 0;) {
    c[i] = sgId % map_.sgLayout[i];
    sgId /= map_.sgLayout[i];
  }
  return c;
}

std::vector<int64_t> SgDistribution::blockIndex(int64_t block) const {
  std::vector<int64_t> per = blocksPerDim(), k(rank());
  for (size_t i = rank(); i-- > 0;) {
    k[i] = block % per[i];
    block /= per[i];
  }
  return k;
}

std::vector<int64_t> SgDistribution::blockOffset(int64_t sgId, int64_t block) const {
  std::vector<int64_t> s = sgCoords(sgId), k = blockIndex(block), off(rank());
  for (size_t i = 0; i < rank(); ++i) {
    int64_t d = map_.sgData[i], round = map_.sgLayout[i] * d;
    off[i] = round >= shape_[i] ? (s[i] * d) % shape_[i] : s[i] * d + k[i] * round;
  }
  return off;
}

std::vector<std::vector<int64_t>> SgDistribution::blockOffsets(int64_t sgId) const {
  std::vector<std::vector<int64_t>> r;
  for (int64_t b = 0; b < numBlocks(); ++b) r.push_back(blockOffset(sgId, b));
  return r;
}

bool SgDistribution::isPrimaryReplica(int64_t sgId) const {
  std::vector<int64_t> s = sgCoords(sgId);
  for (size_t i = 0; i < rank(); ++i)
    if (s[i] * map_.sgData[i] >= shape_[i]) return false;
  return true;
}

bool SgDistribution::sameOwnership(const SgDistribution& o) const {
  if (shape_ != o.shape_ || blockShape() != o.blockShape() || numSubgroups() != o.numSubgroups() ||
      numBlocks() != o.numBlocks())
    return false;
  for (int64_t s = 0; s < numSubgroups(); ++s)
    if (blockOffsets(s) != o.blockOffsets(s)) return false;
  return true;
}

}  // namespace xtc::passes
