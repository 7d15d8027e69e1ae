// Target descriptions: plain data that passes and backends both read (no LLVM here).
// One table per target lives in ir/targets/Targets.cpp; facts come from
// shared/INTEL_XE_REFERENCE.md (measured with ocloc) and are extended only with measured shapes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xtc::targets {

enum class TargetKind { Pvc, Dg2, Generic };

// One legal 2D block load/store/prefetch shape (element bits, block width and height in elements,
// array length), optionally with the VNNI transform or the 32-bit transpose.
struct BlockShape {
  unsigned elemBits;
  unsigned width;
  unsigned height;
  unsigned arrayLength;
  bool vnni = false;
  bool transpose = false;
};

// One DPAS form: C[M x N] += A[M x K] * B[K x N] per subgroup instruction.
struct DpasShape {
  std::string aType, bType, accType;  // element type names: "bf16", "f16", "i8", "u8", "tf32", "f32", "i32"
  unsigned m, n, k;
};

struct Target {
  TargetKind kind;
  std::string name;               // "pvc", "dg2", "generic"
  unsigned subgroupSize;          // the required subgroup size of every kernel
  unsigned maxWorkgroupSize;      // work-items
  unsigned slmBytes;              // shared local memory per workgroup
  // Where slmBytes came from when it is not this table's value (driver: `xtc run` takes its device's
  // size, `xtc compile --slm-size` a chosen one); "" = the table. For diagnostics.
  std::string slmOrigin;
  unsigned slmBanks;              // 4-byte banks
  unsigned grfCount;              // registers per thread in the default mode
  unsigned grfCountLarge;         // in large-GRF mode (0 = none)
  unsigned grfBytes;              // bytes per register
  bool hasDpas;
  bool has2dBlockIO;
  bool hasFp64 = true;  // 64-bit floats (dg2 has none: ocloc fails "backend compiler failed build")
  std::vector<DpasShape> dpas;
  std::vector<BlockShape> blockLoads;
  std::vector<BlockShape> blockStores;
  std::vector<BlockShape> blockPrefetches;
  std::vector<std::string> spirvExtensions;
};

// "target 'NAME' has N" for SLM overflow diagnostics, saying where N comes from and, for generic's
// portable 32 KiB, how to compile for a device with more.
inline std::string slmLimitText(const Target& t) {
  std::string s = "target '" + t.name + "' has " + std::to_string(t.slmBytes);
  if (!t.slmOrigin.empty()) return s + " (" + t.slmOrigin + ")";
  if (t.kind == TargetKind::Generic)
    s += " (the portable minimum; `xtc run` takes its device's size, `xtc compile --slm-size BYTES` a device's with more)";
  return s;
}

// The table for a target name, or null for an unknown name.
const Target* findTarget(std::string_view name);
// "pvc, dg2, generic" for messages.
std::string targetNames();

}  // namespace xtc::targets
