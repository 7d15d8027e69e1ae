#!/usr/bin/env bash
# ISA test (ctest "isa-generic-sg-gemm-pvc" / "-dg2"): the generic target's SPIR-V of
# examples/sg_gemm_f32.xt must also be accepted by Intel's offline compiler for DEVICE, and the build
# must be real: the 8x16x8 tile_mma of one K step is 64 lane.fma, which must appear as 64 `mad`
# instructions, with no unresolved builtin (`calla`, Intel_Symbol_Table_Void_Program), no spills.
# Usage: generic-sg-gemm.sh XTC_BINARY pvc|dg2
set -euo pipefail
xtc=${1:?usage: generic-sg-gemm.sh XTC_BINARY pvc|dg2}
device=${2:?usage: generic-sg-gemm.sh XTC_BINARY pvc|dg2}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "isa-generic-sg-gemm-$device: FAIL: $*" >&2; exit 1; }

"$xtc" compile "$here/../../examples/sg_gemm_f32.xt" --target generic -o "$work/k.spv" || fail "xtc compile failed"
# ocloc writes into the working directory: run it inside $work, under a timeout.
if ! (cd "$work" && timeout 300 ocloc compile -file k.spv -spirv_input -device "$device" -output k > ocloc.log 2>&1); then
  cat "$work/ocloc.log"; fail "ocloc compile failed or timed out"
fi
grep -q "Build succeeded" "$work/ocloc.log" || { cat "$work/ocloc.log"; fail "ocloc did not report success"; }
if grep -q "spilled" "$work/ocloc.log"; then cat "$work/ocloc.log"; fail "the kernel spills registers"; fi
bins=("$work"/k_*.bin)
[ ${#bins[@]} -eq 1 ] && [ -f "${bins[0]}" ] || fail "expected one k_*.bin from ocloc, found: ${bins[*]}"
if ! (cd "$work" && timeout 300 ocloc disasm -file "$(basename "${bins[0]}")" -dump dis -device "$device" > disasm.log 2>&1); then
  cat "$work/disasm.log"; fail "ocloc disasm failed (is libiga64.so installed? run scripts/setup)"
fi
asm="$work/dis/sg_gemm_KernelHeap.asm"
[ -s "$asm" ] || fail "no disassembly of sg_gemm"
bad=0
mads=$(grep -Ec '^\s*mad \(' "$asm" || true)
[ "$mads" -ge 64 ] || { echo "  expected at least 64 mad (one per lane.fma of a K step), found $mads"; bad=1; }
if grep -Eq 'calla|Intel_Symbol_Table_Void_Program' "$asm"; then echo "  unresolved builtin (calla)"; bad=1; fi
if grep -q 'scratch' "$asm"; then echo "  scratch (spill) messages"; bad=1; fi
[ $bad -eq 0 ] || fail "ISA expectations not met (disassembly: $asm)"
echo "isa-generic-sg-gemm-$device: ok ($mads mad)"
