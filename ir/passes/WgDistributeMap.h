// The ownership function of a wg_map (XeTile RFC, "Workgroup Level XeTile extension"): which blocks of
// a workgroup-level tile or vector each subgroup owns. Plain integer math with no IR, so the rules are
// unit-testable alone and the wg-distribute pass can check per-subgroup facts numerically (e.g. "does
// every subgroup already hold the input block this transpose needs?") before choosing a strategy.
//
// Rules (RFC): the linear subgroup id is split row-major over sg_layout. Along dimension i the tile of
// size W_i is dealt out in pieces of sg_data D_i, round-robin over the L_i = sg_layout[i] subgroups:
//   - L_i*D_i <  W_i: every subgroup gets W_i/(L_i*D_i) pieces, piece k at s_i*D_i + k*L_i*D_i;
//   - L_i*D_i >= W_i: one piece at (s_i*D_i) mod W_i; L_i*D_i/W_i subgroups share (replicate) each piece.
// A subgroup's blocks are numbered row-major over the per-dimension piece index k (the last dimension
// varies fastest); that numbering is the order of the values wg-distribute creates.
#pragma once

#include "ir/Attribute.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xtc::passes {

class SgDistribution {
public:
  SgDistribution(std::vector<int64_t> shape, ir::WgMap map) : shape_(std::move(shape)), map_(std::move(map)) {}

  // Checks the RFC's rules for `map` on a tile/vector of `shape`; returns "" when they hold, else
  // the reason (a sentence fragment for a diagnostic).
  static std::string check(const std::vector<int64_t>& shape, const ir::WgMap& map);

  const std::vector<int64_t>& shape() const { return shape_; }
  const ir::WgMap& map() const { return map_; }
  size_t rank() const { return shape_.size(); }
  const std::vector<int64_t>& blockShape() const { return map_.sgData; }
  int64_t numSubgroups() const { return map_.numSubgroups(); }

  // Pieces per subgroup along each dimension (round-robin count, >= 1).
  std::vector<int64_t> blocksPerDim() const;
  int64_t numBlocks() const;
  // Subgroups sharing one piece along each dimension (wrap-around replication, >= 1).
  std::vector<int64_t> replicasPerDim() const;
  bool isReplicated() const;

  // The subgroup's coordinates in sg_layout (row-major split of the linear id).
  std::vector<int64_t> sgCoords(int64_t sgId) const;
  // Per-dimension piece index of block `block` (row-major over blocksPerDim()).
  std::vector<int64_t> blockIndex(int64_t block) const;
  // Element offset of the subgroup's block `block` within the workgroup-level tile.
  std::vector<int64_t> blockOffset(int64_t sgId, int64_t block) const;
  std::vector<std::vector<int64_t>> blockOffsets(int64_t sgId) const;
  // True for the one subgroup of each replica set that performs side effects (stores, atomics): the
  // one whose coordinates lie in the first round along every replicated dimension.
  bool isPrimaryReplica(int64_t sgId) const;

  bool operator==(const SgDistribution& o) const { return shape_ == o.shape_ && map_ == o.map_; }
  // Same blocks (offsets and shape) for every subgroup, even if the wg_maps are spelled differently.
  bool sameOwnership(const SgDistribution& o) const;

private:
  std::vector<int64_t> shape_;
  ir::WgMap map_;
};

}  // namespace xtc::passes
