// What the stub generator knows about one kernel: its C-level parameters (after the kernel ABI of
// docs/abi.md: memref -> buffer + one int64_t per dynamic dimension; scalar -> one value), the
// workgroup shape and the target rules. Built from the lowered `xtc.kernel` op by buildKernelModel.
#pragma once

#include "ir/Operation.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace xtc::backend::stub {

struct StubParam {
  std::string irName;                 // as written in the kernel (arg_names)
  std::string cName;                  // the C parameter name (renamed if it would clash)
  ir::Type type;
  // memref only: per dimension the C name of its size argument ("" for a static dimension).
  std::vector<std::string> dimNames;
  // memref only: lower-xe's `view_memrefs` lists it (every tile over it is an init_tile view, whose
  // surface rules the kernel checks itself): no pitch or width check at launch.
  bool viewOnly = false;
  bool isMemRef() const { return type.isMemRef(); }
};

struct KernelModel {
  const ir::Operation* op = nullptr;
  std::string name;                   // the SPIR-V entry point (= the .xt kernel name)
  std::vector<StubParam> params;
  std::array<int64_t, 3> wgSize{};    // work-items
  int64_t sgSize = 0;
  std::string target;                 // "" when the kernel has no `target` attribute
  std::string buildOptions;           // kernel attribute `build_options`, "" if none
  // 2D block IO targets (pvc): memrefs of rank >= 2 with a dynamic innermost dimension must have a
  // row pitch that is a multiple of 16 bytes; checked at launch.
  bool checkPitch = false;
  // lower-xe's `surface_fallback` (--surface-fallback): the kernel itself takes per-lane paths where
  // a surface breaks the pitch or width rule, so only the base alignment is checked.
  bool surfaceFallback = false;
};

// The C type a scalar of element kind `k` is passed as (index -> int64_t, bf16/f16 -> uint16_t
// bits, i1 -> uint8_t); empty if there is none (tf32).
std::string scalarCType(ir::ElemKind k);
// Bytes of one memref element in memory (i1 is one byte); 0 if the element has no host layout.
unsigned elemBytes(ir::ElemKind k);
// True for C99/C++17 keywords and names the generated code defines or includes (NULL, errno, ...).
bool isReservedCName(const std::string& s);
bool isCIdentifier(const std::string& s);

// Reads the kernel's signature and attributes. Errors go to `diags` at the kernel.
bool buildKernelModel(const ir::Operation& kernel, DiagnosticEngine& diags, KernelModel& out);

}  // namespace xtc::backend::stub
