// The target tables. Shapes here are only those the reference measured with ocloc
// (shared/INTEL_XE_REFERENCE.md §2.2, §2.5, §4) AND that an ISA probe (tests/isa/builtins/*.ir,
// compiled through xtc's backend) proves: tests/unit/isa/TargetTableProbesTest.cpp requires a probe
// for every entry and an entry for every probe, so an unproven shape never reaches the backend.
#include "ir/targets/Target.h"

namespace xtc::targets {
namespace {

Target makePvc() {
  Target t{};
  t.kind = TargetKind::Pvc;
  t.name = "pvc";
  t.subgroupSize = 16;
  t.maxWorkgroupSize = 1024;
  t.slmBytes = 128 * 1024;
  t.slmBanks = 16;
  t.grfCount = 128;
  t.grfCountLarge = 256;
  t.grfBytes = 64;
  t.hasDpas = true;
  t.has2dBlockIO = true;
  // §4: M may be 1, 2, 4 or 8; N is the subgroup size. Not here: u8 (the IR has no unsigned 8-bit
  // type) and tf32 (its builtin has no probe yet), both measured by the reference.
  for (unsigned m : {8u, 4u, 2u, 1u}) {
    t.dpas.push_back({"bf16", "bf16", "f32", m, 16, 16});
    t.dpas.push_back({"f16", "f16", "f32", m, 16, 16});
  }
  // i8 of 4, 2, 1 rows (issue #10; probes dpas_pvc_i8_m{1,2,4}.ir: not in the reference's table).
  for (unsigned m : {8u, 4u, 2u, 1u}) t.dpas.push_back({"i8", "i8", "i32", m, 16, 32});
  // §2.2 (builtins, measured): u16 16xMx2 for M in 1,2,4,8; u8 32xMx2; VNNI 16x16 (d16) and
  // 16x32 (d8); transposed d32 8x16.
  for (unsigned m : {1u, 2u, 4u, 8u}) {
    t.blockLoads.push_back({16, 16, m, 2});
    t.blockLoads.push_back({8, 32, m, 2});
  }
  t.blockLoads.push_back({16, 16, 16, 1, true, false});
  t.blockLoads.push_back({8, 16, 32, 1, true, false});
  t.blockLoads.push_back({32, 8, 16, 1, false, true});
  // Plain d16 loads 16 wide x {8,16} rows x 1 block (§2.5: d16 16x1..32x{1,2}), inline vISA in both
  // modes (no builtin reads one block, §2.2; probes visa_load_2d_d16_1x16xH.ir): the A operand of a
  // K-16 DPAS (gemm_f16, sg_gemm_f16), rows 0..7 and 8..15 each one operand. 1, 2 and 4 rows
  // (probes visa_load_2d_d16_1x16x{1,2,4}.ir; issue #10): the whole A operand of a 1/2/4-row DPAS at
  // K step 16 (sg_gemm_bf16_4x16, sg_gemm_f16_1x32), read per row before. After the taller forms, so
  // a tile that both forms tile keeps the taller message.
  for (unsigned h : {8u, 16u, 4u, 2u, 1u}) t.blockLoads.push_back({16, 16, h, 1});
  // Plain d32 loads, 16 wide x H rows x 1 block (§2.5 line ~84: d32 16x1..32x1 is legal; issues #10,
  // #11): inline vISA in both codegen modes (no builtin is proven, backends/spirv/VisaEmitter.cpp),
  // each with a tests/isa/builtins/visa_load_2d_d32_1x16xH.ir probe. H <= 8 like the stores: taller
  // responses (16, 32 registers) are legal but unmeasured for register pressure.
  for (unsigned h : {1u, 2u, 4u, 8u}) t.blockLoads.push_back({32, 16, h, 1});
  // Plain d32 loads 8 wide x 8 rows x 1 block (§2.5: d32 8x1..32x{1,2}), inline vISA in both modes
  // (probe visa_load_2d_d32_1x8x8.ir). Response row-major, 8 dwords per row: lane j holds column
  // j % 8 of rows j / 8 + 2i (ir/layout blockLoadLayout). Blocking offers it only to an FMA A
  // operand (any layout will do); B, C and row ops want lanes along 16 columns.
  t.blockLoads.push_back({32, 8, 8, 1});
  // Plain d8 loads 32 wide x 16 rows x 1 block (§2.5: d8 32x1..32x{1,2}; the builtins always read
  // 2 blocks, §2.2), inline vISA in both modes (probe visa_load_2d_d8_1x32x16.ir): the response comes
  // as i16 slots, lane j holding bytes 2j, 2j+1 of each row (§2.3), which is the pvc i8 DPAS A layout:
  // gemm_i8's 16x32 A is one message.
  t.blockLoads.push_back({8, 32, 16, 1});
  // The same 8 rows high (probe visa_load_2d_d8_1x32x8.ir; issue #10): an 8-row i8 A tile at K step
  // 32 (8x32, one DPAS A block) was read per lane, no other table shape tiling it. After the 16-row
  // form, so a tile that both forms tile keeps the taller message.
  t.blockLoads.push_back({8, 32, 8, 1});
  // 4, 2 and 1 rows (probes visa_load_2d_d8_1x32x{1,2,4}.ir; issue #10): the A of a 1/2/4-row i8 DPAS
  // at K step 32, one message where it was one per-lane load per row. After the taller forms.
  for (unsigned h : {4u, 2u, 1u}) t.blockLoads.push_back({8, 32, h, 1});
  // Inline vISA (issue #13, backends/spirv/VisaEmitter.cpp; no builtin exists, reference §3), each
  // with a tests/isa/builtins/visa_*.ir probe: the 2D store of one DPAS C block (d32 16x8), and 2D
  // prefetches of 64-byte rows (d16, 2 blocks of 16) 8 or 32 rows high. lower-xe uses only these.
  t.blockStores.push_back({32, 16, 8, 1});
  // d32 stores 16 wide x {1, 2, 4} rows (§2.5; probe visa_store_2d_d32_16xH.ir; issue #10): the C of
  // a 1/2/4-row DPAS tile, one message where it was one per-lane store per row.
  for (unsigned h : {1u, 2u, 4u}) t.blockStores.push_back({32, 16, h, 1});
  // d16 stores 16 wide x {1, 2, 4, 8} rows (§2.5: stores are 1 block, H in {1,2,4,8}, d16 16 wide;
  // probe visa_store_2d_d16_16xH.ir): f16/bf16 tiles, lane = column, register = row, the payload
  // laid out as the d16 load's response (§2.3).
  for (unsigned h : {1u, 2u, 4u, 8u}) t.blockStores.push_back({16, 16, h, 1});
  t.blockPrefetches.push_back({16, 16, 8, 2});
  t.blockPrefetches.push_back({16, 16, 32, 2});
  // One block of 32-byte rows, 8 or 32 rows (probes visa_prefetch_2d_d16_1x16x{8,32}.ir; issue #10):
  // a prefetch_tile 16 columns wide (an Mx16 A at K step 16, a 32x16 B) went per lane before. After
  // the two-block forms, so a tile that both forms tile at one height keeps the two-block message.
  t.blockPrefetches.push_back({16, 16, 8, 1});
  t.blockPrefetches.push_back({16, 16, 32, 1});
  t.spirvExtensions = {"SPV_INTEL_subgroups", "SPV_INTEL_vector_compute", "SPV_INTEL_inline_assembly"};
  return t;
}

Target makeDg2() {
  Target t{};
  t.kind = TargetKind::Dg2;
  t.name = "dg2";
  t.subgroupSize = 8;
  t.maxWorkgroupSize = 1024;
  t.slmBytes = 64 * 1024;
  t.slmBanks = 16;
  t.grfCount = 128;
  t.grfCountLarge = 256;
  t.grfBytes = 32;
  t.hasDpas = true;
  t.has2dBlockIO = false;  // §2.5: the 2D block IO extension exists only on minimum-subgroup-16 devices
  t.hasFp64 = false;       // measured: an f64 cross-lane probe fails in ocloc for dg2 (docs/hardware.md)
  // f16 M = 4, 2, 1 as bf16's (issue #10; the same overloads with f16 in the name, not in the
  // reference's table: probes dpas_dg2_f16_m{1,2,4}.ir, each a dpas.8xM in the ISA).
  for (unsigned m : {8u, 4u, 2u, 1u}) {
    t.dpas.push_back({"bf16", "bf16", "f32", m, 8, 16});
    t.dpas.push_back({"f16", "f16", "f32", m, 8, 16});
  }
  // u8: no unsigned 8-bit type in the IR. 4, 2, 1 rows: probes dpas_dg2_i8_m{1,2,4}.ir (issue #10).
  for (unsigned m : {8u, 4u, 2u, 1u}) t.dpas.push_back({"i8", "i8", "i32", m, 8, 32});
  // Inline vISA: the f32 row-sum tree (VisaEmitter.h, probe visa_reduce_dg2_add_f32.ir) and the
  // interior DPAS K loop as one statement (Dg2VisaLoop.h, forms measured by tests/isa/measure/dg2-visa.sh).
  t.spirvExtensions = {"SPV_INTEL_subgroups", "SPV_INTEL_inline_assembly"};
  return t;
}

Target makeGeneric() {
  Target t{};
  t.kind = TargetKind::Generic;
  t.name = "generic";
  t.subgroupSize = 16;
  t.maxWorkgroupSize = 1024;
  t.slmBytes = 32 * 1024;
  t.slmBanks = 32;
  t.grfCount = 0;
  t.grfCountLarge = 0;
  t.grfBytes = 0;
  t.hasDpas = false;
  t.has2dBlockIO = false;
  return t;
}

}  // namespace

const Target* findTarget(std::string_view name) {
  static const Target pvc = makePvc();
  static const Target dg2 = makeDg2();
  static const Target generic = makeGeneric();
  if (name == "pvc") return &pvc;
  if (name == "dg2") return &dg2;
  if (name == "generic") return &generic;
  return nullptr;
}

std::string targetNames() { return "pvc, dg2, generic"; }

}  // namespace xtc::targets
