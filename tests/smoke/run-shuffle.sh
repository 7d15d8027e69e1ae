#!/usr/bin/env bash
# Smoke test (ctest "smoke-cpu-shuffle"): shuffle.ll -> llvm-as-15 -> llvm-spirv-15 -> spirv-val ->
# executed on the Intel CPU OpenCL device by run_spirv and checked element by element on the host.
# A negative control (shuffle_xor by 2 instead of 1) must be rejected by the same check.
# Usage: run-shuffle.sh RUN_SPIRV_BINARY
set -euo pipefail
run_spirv=${1:?usage: run-shuffle.sh RUN_SPIRV_BINARY}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "smoke-cpu-shuffle: FAIL: $*" >&2; exit 1; }

build() {  # build SRC.ll OUT.spv
  llvm-as-15 "$1" -o "$work/tmp.bc" || fail "llvm-as-15 rejected $1"
  llvm-spirv-15 --spirv-ext=+all "$work/tmp.bc" -o "$2" || fail "llvm-spirv-15 failed on $1"
  spirv-val "$2" || fail "spirv-val rejected the SPIR-V of $1"
}

build "$here/shuffle.ll" "$work/shuffle.spv"
spirv-dis "$work/shuffle.spv" > "$work/shuffle.spvasm"
grep -q "OpSubgroupShuffleINTEL" "$work/shuffle.spvasm" || fail "no OpSubgroupShuffleINTEL in the SPIR-V"
grep -q "OpSubgroupShuffleXorINTEL" "$work/shuffle.spvasm" || fail "no OpSubgroupShuffleXorINTEL in the SPIR-V"
grep -q "OpExecutionMode .* SubgroupSize 16" "$work/shuffle.spvasm" || fail "no SubgroupSize 16 execution mode"

args=(--kernel shuffle_smoke --global 4096 --local 16 --in f32:4096 --out f32:4096 --reference shuffle_smoke --seed 7)
"$run_spirv" "$work/shuffle.spv" "${args[@]}" || fail "the kernel's results on the CPU OpenCL device are wrong (see above)"

# Negative control: the checker must notice a kernel that shuffles the wrong lanes.
sed 's/@_Z27intel_sub_group_shuffle_xorfj(float %x, i32 1)/@_Z27intel_sub_group_shuffle_xorfj(float %x, i32 2)/' \
  "$here/shuffle.ll" > "$work/wrong.ll"
cmp -s "$here/shuffle.ll" "$work/wrong.ll" && fail "could not build the negative control (sed matched nothing)"
build "$work/wrong.ll" "$work/wrong.spv"
if "$run_spirv" "$work/wrong.spv" "${args[@]}" > "$work/wrong.log" 2>&1; then
  cat "$work/wrong.log"
  fail "run_spirv accepted a kernel with wrong results"
fi
grep -q "^mismatch: " "$work/wrong.log" || { cat "$work/wrong.log"; fail "negative control failed for another reason"; }
echo "smoke-cpu-shuffle: PASS (4096 elements exact on the CPU device; wrong kernel detected)"
