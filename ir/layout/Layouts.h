// Constructors for the hardware layouts xtc uses, each built as a LinearLayout: wg_map (workgroup →
// subgroup distribution of the XeTile RFC), DPAS A/B/C operand layouts (pvc, dg2), 2D block-load
// layouts (per-lane register view and the offset/iteration/load view of seed 000), the portable
// cooperative-matrix layout (seed 003), and shared-local-memory swizzles with a bank-conflict counter.
//
// Conventions. Tensor dims are named dim0, dim1 (row, column). Hardware dims are `register`, `lane`,
// `subgroup` (and `offset`, `iteration`, `load`, `addr` where stated). `register` always counts
// *tensor elements* held by one lane; RegisterPacking says how they sit in hardware registers (one
// element per 16/32-bit slot, or 2/4 elements packed in one slot: then the low register bits select
// the element inside the slot, which is how VNNI packing is modelled).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/layout/LinearLayout.h"

namespace xtc::layout {

enum class Target { Pvc, Dg2 };
enum class ElemType { BF16, F16, TF32, F32, I8, U8, I32 };
enum class Operand { A, B, C };

std::optional<Target> parseTarget(std::string_view s);
std::optional<ElemType> parseElemType(std::string_view s);
std::string_view toString(Target t);
std::string_view toString(ElemType t);
std::string_view toString(Operand o);
int elemBits(ElemType t);
int subgroupSize(Target t);

// How `register` indices sit in a lane's hardware registers.
struct RegisterPacking {
  int elementBits = 32;     // bits of one tensor element
  int slotBits = 32;        // bits of one per-lane register slot (an element of the hardware vector)
  int elementsPerSlot = 1;  // consecutive register indices sharing one slot (register bits 0..k-1 pick it)
  std::string describe() const;
};

// A per-subgroup (or per-workgroup) layout plus what a reader needs to use it.
struct HwLayout {
  LinearLayout layout;
  RegisterPacking packing;
  // Logical tensor shape; may be smaller than the out dims (elements outside are masked padding).
  std::vector<int64_t> shape;
  std::string name;  // e.g. "dpas<pvc, bf16, A>"
};

// ------------------------------------------------------------------ wg_map (XeTile RFC)

struct WgMap {
  std::vector<int64_t> sgLayout;
  std::vector<int64_t> sgData;
  std::string print() const;  // wg_map<sg_layout=[8,4], sg_data=[32,32]>
};

// The RFC's legality rules for a wg_map on a tile shape; nullopt when legal, else the reason
// (one sentence, no trailing period, suitable after "error: ").
std::optional<std::string> checkWgMap(const WgMap& map, const std::vector<int64_t>& shape);

// The workgroup layout: `register` (the elements one subgroup holds) and `subgroup` (linear id,
// row-major over sg_layout) → dim0..dimN-1. Round-robin: when sg_layout*sg_data < tile, a subgroup owns
// several blocks (extra register bits, stride sg_layout*sg_data); wrap-around: when it is larger,
// subgroups past the tile's last block share data (zero subgroup bases). Registers enumerate one block
// row-major, then the blocks a subgroup owns row-major. With `perSubgroup` (in dims such as register
// and lane, out dims = the sg_data block), its registers/lanes replace the plain block enumeration.
// Needs power-of-two sizes.
Expected<LinearLayout> wgMapLayout(const WgMap& map, const std::vector<int64_t>& shape,
                                   const LinearLayout* perSubgroup = nullptr);

// ------------------------------------------------------------------ DPAS (reference §4)

struct DpasShape {
  int m = 8, n = 16, k = 16;
  int subgroupSize = 16;
};
Expected<DpasShape> dpasShape(Target target, ElemType type);

// The operand layout of one DPAS, repeated repDim0 x repDim1 times along the operand's dim0 (rows) and
// dim1 (columns) in registers: repetitions along dim0 come first (seed 000's iteration order).
// `type` is the multiplicand type (bf16, f16, tf32, i8, u8); the C/D operand of an i8 DPAS is i32,
// otherwise f32. Operand shapes: A m x k, B k x n, C m x n. `rows` other than 0 is a DPAS of fewer
// rows than 8 (a repeat count of 1, 2 or 4, reference §4: its A and C hold only those rows; no
// repetition along dim0 then).
Expected<HwLayout> dpasLayout(Target target, ElemType type, Operand operand, int repDim0 = 1,
                              int repDim1 = 1, int rows = 0);

// ------------------------------------------------------------------ 2D block loads (reference §2)

struct BlockLoad {
  int elemBits = 16;    // access element size: 8, 16 or 32 (d8/d16/d32)
  int width = 16;       // block width in access elements
  int height = 8;       // block height in rows
  int arrayLength = 1;  // blocks side by side
  bool vnni = false;    // transform: pack 32/elemBits consecutive rows into one dword
  bool transpose = false;  // d32 only: the result is the transpose of the block
  int dataBits = 0;     // tensor element size (0 = elemBits); 16 for bf16 data moved by a d32 transpose
  std::string print() const;  // block_load<d16, 16x8x2, vnni>
};

// The spec's legality rules for pvc (§2.5); nullopt when legal. dg2 has no 2D block IO.
std::optional<std::string> checkBlockLoad(Target target, const BlockLoad& load);

// Per-lane layout of the load's result (register, lane → result tensor), from §2.3: element i of
// lane j is element 16*i + j of the response, blocks one after another. The result tensor is the
// block (rows x width*arrayLength) for plain and VNNI loads and the transposed block for transposed
// loads, counted in data elements (so a d32 transpose of bf16 gives a (2*width) x height tensor).
Expected<HwLayout> blockLoadLayout(const BlockLoad& load, int subgroupSize = 16);

// Seed 000's view of one block: `offset` (row-major index into the loaded block, in the units the
// seed uses: VNNI rows counted in packed pairs, transposed d32 columns in dwords) → dim0, dim1.
Expected<LinearLayout> blockOffsetLayout(const BlockLoad& load);
// Seed 000's iteration bases: replicate a block of blockRows x blockCols over tileRows x tileCols,
// first along dim0 (outer), then along dim1.
std::vector<std::vector<int32_t>> blockIterationBases(int blockRows, int blockCols, int tileRows,
                                                      int tileCols);
// offset layout + iteration bases + load bases over an output of outRows x outCols (the load layout of
// seed 000; non-surjective when the loads skip rows or columns).
Expected<LinearLayout> blockTileLayout(const LinearLayout& offsetLayout,
                                       const std::vector<std::vector<int32_t>>& iterations,
                                       const std::vector<std::vector<int32_t>>& loads, int outRows,
                                       int outCols);

// ------------------------------------------------------------------ cooperative matrix (seed 003)

enum class CoopUse { A, B, Acc };
std::optional<CoopUse> parseCoopUse(std::string_view s);
// The tinytc work-item mapping of an rows x cols matrix on a subgroup of `subgroupSize` lanes:
// lane p, component v. Out dims are padded to powers of two; coordinates outside rows x cols are the
// masked tail. `use` A packs 32/bits columns per dword (VNNI) when cols is a multiple of that; B uses
// K1 = max(1, 2/bytes) when rows/subgroupSize > 1.
Expected<HwLayout> coopMatrixLayout(int subgroupSize, int rows, int cols, ElemType type,
                                    CoopUse use = CoopUse::Acc);

// ------------------------------------------------------------------ SLM swizzles (seed 004)

// CuTe's Swizzle<B,M,S> on byte offsets: bits [M+S, M+S+B) are xored into bits [M, M+B).
// PTX's 128/64/32-byte swizzles of 16-byte chunks are Swizzle<3,4,3>, <2,4,3>, <1,4,3>.
struct Swizzle {
  int bits = 0, base = 4, shift = 3;
  std::string print() const;  // swizzle<3,4,3>
  bool operator==(const Swizzle&) const = default;
};
// offset → addr (both 2^addrBits bytes); a bijection.
Expected<LinearLayout> swizzleLayout(const Swizzle& s, int addrBits);
// The SLM placement of a row-major rows x cols tile of elemBytes elements under a swizzle, as a
// hardware layout: `addr` (element slot in SLM: byte address / elemBytes) → dim0, dim1.
// The swizzle must not split an element (M >= log2(elemBytes)).
Expected<LinearLayout> slmLayout(int rows, int cols, int elemBytes, const Swizzle& s);

struct BankModel {
  int banks = 16;     // number of banks
  int bankBytes = 4;  // width of one bank
};
// Maximum ways of conflict of one access instruction. `byteAddr` maps the accessing hardware index to
// a byte address (single out dim); the lanes of `laneDim` form one instruction, all other inputs are
// fixed (the answer is the same for every value of them: the map is linear, a fixed part only xors a
// constant into every address). Lanes touching the same bank word are not a conflict (broadcast).
// Each access covers `accessBytes` consecutive bytes (a power of two).
Expected<int> bankConflictWays(const LinearLayout& byteAddr, const BankModel& model, int accessBytes,
                               std::string_view laneDim = "lane");
// Same for a register layout `hw` (… → dim0, dim1) reading/writing a tile placed by `slm`
// (addr → dim0, dim1) with elemBytes per element.
Expected<int> slmAccessConflictWays(const LinearLayout& hw, const LinearLayout& slm, int elemBytes,
                                    const BankModel& model, std::string_view laneDim = "lane");

}  // namespace xtc::layout
