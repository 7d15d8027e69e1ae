#!/usr/bin/env bash
# ISA smoke test (ctest "isa-shuffle-pvc" / "isa-shuffle-dg2"): compiles shuffle.ll's SPIR-V with Intel's
# offline compiler for DEVICE, disassembles it, and checks the shuffles became the expected register
# moves (register-indirect for the per-lane shuffle, strided regions for shuffle_xor) with no `calla`
# (unresolved builtin), no spills and no scratch. A negative control with a mis-mangled builtin must
# be rejected by the same checks (IGC turns unknown builtins into `calla` and still "succeeds").
# Usage: isa-shuffle.sh pvc|dg2
set -euo pipefail
device=${1:?usage: isa-shuffle.sh pvc|dg2}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "isa-shuffle-$device: FAIL: $*" >&2; exit 1; }

# compile NAME SRC.ll: leaves the kernel's disassembly in $work/NAME/dis/shuffle_smoke_KernelHeap.asm
compile() {
  local dir="$work/$1"
  mkdir -p "$dir"
  llvm-as-15 "$2" -o "$dir/k.bc" || fail "llvm-as-15 rejected $2"
  llvm-spirv-15 --spirv-ext=+all "$dir/k.bc" -o "$dir/k.spv" || fail "llvm-spirv-15 failed on $2"
  # ocloc writes its outputs into the working directory: run it inside $dir, under a timeout.
  if ! (cd "$dir" && timeout 300 ocloc compile -file k.spv -spirv_input -device "$device" -output k > ocloc.log 2>&1); then
    cat "$dir/ocloc.log"; fail "ocloc compile failed or timed out for $1"
  fi
  grep -q "Build succeeded" "$dir/ocloc.log" || { cat "$dir/ocloc.log"; fail "ocloc did not report success for $1"; }
  if grep -q "spilled" "$dir/ocloc.log"; then cat "$dir/ocloc.log"; fail "$1 spills registers"; fi
  local bins=("$dir"/k_*.bin)
  [ ${#bins[@]} -eq 1 ] && [ -f "${bins[0]}" ] || fail "expected one k_*.bin from ocloc, found: ${bins[*]}"
  if ! (cd "$dir" && timeout 300 ocloc disasm -file "$(basename "${bins[0]}")" -dump dis -device "$device" > disasm.log 2>&1); then
    cat "$dir/disasm.log"; fail "ocloc disasm failed (is libiga64.so installed? run scripts/setup)"
  fi
  [ -s "$dir/dis/shuffle_smoke_KernelHeap.asm" ] || { cat "$dir/disasm.log"; fail "no disassembly (libiga64.so missing? run scripts/setup)"; }
}

# check_isa ASM: prints each failed expectation, returns non-zero if any failed.
check_isa() {
  local asm=$1 bad=0
  grep -Eq 'mov \(16\|M0\) +r[0-9]+\.0<1>:ud +r\[a0\.[0-9]+\]<1,0>:ud' "$asm" \
    || { echo "  missing: register-indirect mov r[a0.N]<1,0> (per-lane intel_sub_group_shuffle)"; bad=1; }
  grep -Eq 'mov \(8\|M0\) +r[0-9]+\.0<2>:ud +r[0-9]+\.1<2;1,0>:ud' "$asm" \
    || { echo "  missing: strided mov rA.0<2> rB.1<2;1,0> (shuffle_xor 1, odd lanes to even)"; bad=1; }
  grep -Eq 'mov \(8\|M0\) +r[0-9]+\.1<2>:ud +r[0-9]+\.0<2;1,0>:ud' "$asm" \
    || { echo "  missing: strided mov rA.1<2> rB.0<2;1,0> (shuffle_xor 1, even lanes to odd)"; bad=1; }
  if grep -q 'calla' "$asm"; then echo "  found: calla (an unresolved builtin call)"; bad=1; fi
  if grep -q 'scratch' "$asm"; then echo "  found: scratch access (spill)"; bad=1; fi
  if grep -rq 'Intel_Symbol_Table_Void_Program' "$(dirname "$asm")"; then
    echo "  found: Intel_Symbol_Table_Void_Program (unresolved symbols)"; bad=1
  fi
  return $bad
}

compile good "$here/shuffle.ll"
if ! check_isa "$work/good/dis/shuffle_smoke_KernelHeap.asm"; then
  grep -E 'mov|send|calla' "$work/good/dis/shuffle_smoke_KernelHeap.asm" || true
  fail "the ISA of shuffle_smoke does not have the expected shuffle instructions (above)"
fi

# Negative control: a wrongly mangled builtin (length prefix 28 instead of 27) compiles "successfully".
sed 's/_Z27intel_sub_group_shuffle_xorfj/_Z28intel_sub_group_shuffle_xorfj/g' "$here/shuffle.ll" > "$work/wrong.ll"
cmp -s "$here/shuffle.ll" "$work/wrong.ll" && fail "could not build the negative control (sed matched nothing)"
compile wrong "$work/wrong.ll"
if check_isa "$work/wrong/dis/shuffle_smoke_KernelHeap.asm" > "$work/wrong.txt"; then
  fail "the ISA checks accepted a kernel with a mis-mangled builtin"
fi
grep -q "calla\|missing: strided" "$work/wrong.txt" || { cat "$work/wrong.txt"; fail "negative control failed for another reason"; }
echo "isa-shuffle-$device: PASS (indirect + strided shuffle movs, no calla/spill; mis-mangled builtin detected)"
