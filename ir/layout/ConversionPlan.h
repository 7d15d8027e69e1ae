// Layout conversion planner: given the source and destination layouts of one tensor (in dims register,
// lane and optionally subgroup; same out dims), choose the cheapest legal data movement — nothing, a
// per-work-item register permutation, subgroup shuffles, or a round trip through shared local memory
// with a swizzle that keeps both sides free of bank conflicts — and describe it exactly.
// Everything is derived from the layouts' basis vectors (a linear map from destination hardware index
// to a source hardware index holding the same element); only the per-register tables are enumerated.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/layout/Layouts.h"
#include "ir/layout/LinearLayout.h"

namespace xtc::layout {

enum class ConversionKind { Identity, RegisterPermutation, Shuffle, SharedMemory };
std::string_view toString(ConversionKind k);

// Where one destination value comes from.
struct LaneSource {
  int32_t lane = 0;
  int32_t reg = 0;
  bool operator==(const LaneSource&) const = default;
};

// One subgroup shuffle: every lane l with srcLane[l] >= 0 receives register `srcRegister` of lane
// srcLane[l] into register `dstRegister`. Lanes with -1 take this destination register from another op.
struct ShuffleOp {
  int32_t dstRegister = 0;
  int32_t srcRegister = 0;
  std::vector<int32_t> srcLane;
  std::string laneExpr;  // "lane ^ 3" (shuffle_xor), "5" (broadcast), or a per-bit xor expression
};

struct SlmPlan {
  Swizzle swizzle;                  // chosen swizzle of the row-major tile (byte addresses)
  int storeConflictWays = 1;        // worst ways of conflict of one store (source side)
  int loadConflictWays = 1;         // worst ways of conflict of one load (destination side)
  int unswizzledStoreWays = 1;      // the same without swizzle, for comparison
  int unswizzledLoadWays = 1;
  int64_t bytes = 0;                // SLM footprint of the tile
  int storesPerSubgroup = 0;        // one per source register
  int loadsPerSubgroup = 0;         // one per destination register
  LinearLayout placement;           // addr (element slot) → tensor
};

struct ConversionPlan {
  ConversionKind kind = ConversionKind::Identity;
  // For Identity/RegisterPermutation/Shuffle: destination (register, lane, subgroup) → the source
  // (register, lane, subgroup) holding the same element (a linear map; subgroup preserved).
  std::optional<LinearLayout> dstToSrc;
  // sources[r][l]: for subgroup 0, destination register r of lane l comes from this source.
  std::vector<std::vector<LaneSource>> sources;
  // RegisterPermutation whose source register does not depend on the lane: dst r ← src perm[r].
  std::vector<int32_t> registerPermutation;
  bool laneDependentRegisters = false;  // the source register index varies with the lane
  // True when the tables differ between subgroups (P's subgroup bits also move registers or lanes);
  // then dstToSrc gives the movement of subgroup s: apply it to (r, l, s).
  bool subgroupDependent = false;
  std::vector<ShuffleOp> shuffles;      // Shuffle: the exact list for subgroup 0
  int shuffleCount = 0;                 // shuffle instructions
  int moveCount = 0;                    // register moves inside a lane
  std::optional<SlmPlan> slm;
  std::string summary() const;  // multi-line, human-readable
};

struct ConversionOptions {
  int elemBytes = 4;   // element size, for SLM addressing and bank conflicts
  BankModel banks;     // SLM bank model of the target
};

// Plans src → dst. Errors: different output dims, unsupported input dims, different lane/subgroup
// counts, or a destination element that the source does not hold.
Expected<ConversionPlan> planConversion(const LinearLayout& src, const LinearLayout& dst,
                                        const ConversionOptions& options = {});

// The swizzle (searched over Swizzle<B,M,S>) minimising bank conflicts of `store` then `load`
// on a row-major rows x cols tile; reports the ways of both.
Expected<SlmPlan> chooseSwizzle(const LinearLayout& store, const LinearLayout& load, int elemBytes,
                                const BankModel& banks);

// The access of one block of a row-major rows x cols SLM buffer by one subgroup (the model
// wg-distribute plans its exchange buffers for): the block's elements in row-major order, `lanes` at a
// time — lane l takes element l of each group, register r the r-th group — mapped to dim0, dim1 of
// the buffer for the block at offset 0 (block offsets are multiples of the block size, so another
// offset only xors a constant into every address and changes no bank conflict). With fewer elements
// than lanes, the extra lanes repeat the block. Sizes must be powers of two.
Expected<LinearLayout> slmBlockAccessLayout(int rows, int cols, int blockRows, int blockCols, int lanes);

// The swizzle for an exchange through a row-major rows x cols buffer written in blocks of
// writeBlock and read in blocks of readBlock (each {rows, cols}, accessed as slmBlockAccessLayout
// describes): chooseSwizzle on the two accesses.
Expected<SlmPlan> planSlmExchange(int rows, int cols, int elemBytes, std::array<int, 2> writeBlock,
                                  std::array<int, 2> readBlock, int lanes, const BankModel& banks);

}  // namespace xtc::layout
