// `--verify-isa`: the guard against Intel's offline compiler dropping hardware calls silently
// (shared/INTEL_XE_REFERENCE.md, "The first rule" and §10). The SPIR-V backend reports every hardware
// call it emitted (HardwareCall: builtin name, the instruction it must leave in the ISA, how often it
// is called); this library compiles the SPIR-V with `ocloc` (a subprocess under `timeout`, in a
// temporary folder: ocloc writes into its working directory), disassembles it and checks the calls.
// Plain C++ (no LLVM): the driver and the unit tests use it directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xtc::isa {

// One hardware builtin as the backend emitted it.
struct HardwareCall {
  std::string builtin;     // the called function's name, e.g. "__builtin_IB_subgroup_block_read_flat_u16_m8k16v2"
  std::string isaPattern;  // ECMAScript regex of the disassembly line the call becomes; "" = no own
                           // instruction (e.g. a shuffle's mov): checked only for unresolved calls
  unsigned outsideLoops = 0;  // calls not inside a loop: the ISA holds the instruction at least as often
  unsigned insideLoops = 0;   // calls inside loops: the instruction must appear at least once
  // A 2D block message's shape "WxHxB" (width, height, array length): some header in the ISA must
  // decode to it (dword 7, reference §2.1), since IGC may compile a name to another shape (§2.2).
  std::string blockShape;
};

// The verdict on one module. `dropped` lists internal errors (a call that left no instruction, an
// unresolved call); `warnings` the spills; `toolError` a failure to run the tools at all.
struct IsaReport {
  std::vector<std::string> dropped;
  std::vector<std::string> warnings;
  std::string toolError;
  bool toolMissing = false;  // ocloc or timeout not found: an environment problem, not xtc's
};

// Checks already produced disassembly: `kernels` holds the text of each kernel's disassembly,
// `symbolTableProgram` whether ocloc produced an Intel_Symbol_Table_Void_Program (the sign of an
// unresolved builtin), `buildLog` ocloc's output. Pure: the unit tests feed it hand-written ISA.
IsaReport checkDisassembly(const std::vector<std::string>& kernels, bool symbolTableProgram,
                           const std::string& buildLog, const std::vector<HardwareCall>& calls);

struct IsaVerifyOptions {
  std::string device;        // ocloc -device: "pvc" or "dg2"
  std::string buildOptions;  // ocloc -options (the kernel's build_options, e.g. the large register file)
  unsigned timeoutSeconds = 300;
};

// Runs `ocloc compile` and `ocloc disasm` on `spirv`, then checkDisassembly. ocloc is found on PATH,
// or at $XTC_OCLOC when that is set.
IsaReport verifyIsa(const std::vector<uint32_t>& spirv, const std::vector<HardwareCall>& calls,
                    const IsaVerifyOptions& options);

}  // namespace xtc::isa
