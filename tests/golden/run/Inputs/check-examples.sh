#!/usr/bin/env bash
# Runs `xtc run --check` on every example of examples/ for one target (generic, or pvc/dg2: emulated
# on the CPU device) at small, unaligned sizes, so the compiled kernel is compared with the reference
# interpreter element by element; then the lowered IR (--emit=ir, lane level) runs in the interpreter
# against the source's result. Prints one line per example: "NAME: ok", or "NAME: skipped (...)"
# when the example does not compile for the target yet (a missing-feature error: the day it
# compiles, it is checked) or has static full-size shapes. Exit 1 when a compiled example fails its
# check, when an example fails in another way, or when an example has no sizes below (add them).
# Usage: check-examples.sh XTC TARGET EXAMPLES_DIR
set -u
xtc=$1 target=$2 dir=$3

# Small sizes per example, unaligned to the tile sizes so edges and padding are exercised; given as
# whole shapes (the lowered IR has no tile_mma, so GEMM size names would not apply to it). `outputs`:
# the memrefs the kernel writes.
declare -A sizes=(
  [bias_relu]="--arg X=37x70 --arg bias=1x70 --arg Y=37x70"
  [gather_scatter]="--arg Src=100 --arg Idx=1x40 --arg Dst=100"
  [gemm_acc]="--arg A=37x29 --arg B=29x45 --arg C=37x45"
  [gemm_bf16]="--arg A=70x40 --arg B=40x40 --arg C=70x40"
  [gemm_bt]="--arg A=37x29 --arg BT=45x29 --arg C=37x45"
  [gemm_f16]="--arg A=37x29 --arg B=29x70 --arg C=37x70"
  [gemm_i8]="--arg A=37x40 --arg B=40x45 --arg C=37x45"
  [gemm_splitk]="--arg A=37x130 --arg B=130x45 --arg C=37x45"
  [row_sum]="--arg X=37x70 --arg S=37x1"
  [sg_bias_relu]="--arg X=37x70 --arg bias=1x70 --arg Y=37x70"
  [sg_gemm_f16]="--arg A=37x29 --arg B=29x45 --arg C=37x45"
  [sg_gemm_f32]="--arg A=37x29 --arg B=29x45 --arg C=37x45"
  [softmax]="--arg X=37x64 --arg Y=37x64"
  [transpose]="--arg X=37x45 --arg Y=45x37"
)
declare -A outputs=(
  [bias_relu]=Y [gather_scatter]=Dst [gemm_acc]=C [gemm_bf16]=C [gemm_bt]=C [gemm_f16]=C [gemm_i8]=C
  [gemm_splitk]=C [row_sum]=S [sg_bias_relu]=Y [sg_gemm_f16]=C [sg_gemm_f32]=C [softmax]=Y [transpose]=Y
)
# The RFC examples are written for fixed 4096x4096 matrices (memref types with static shapes): too
# big for the interpreter in a cheap test: rfc-shrunk-*.test and slm-examples.test run them shrunk
# (sed of the sizes) with --check, rfc-check-sample.test at full size with --check-sample.
static_rfc="rfc_2_1_gemm_prefetch rfc_2_2_gemm_transpose_bcast_reduce rfc_2_3_transpose_opt rfc_2_4_gemm_slm rfc_2_5_gemm_two_cache_levels"

# Device runs left out of a sweep, as [target:name]="reason" (the lowered IR still runs in the
# interpreter). None today: dg2 gemm_bf16 was (its unrolled DPAS emulation took the CPU runtime ~70 s
# to build) until emulate-xe emulated DPAS with a loop.
declare -A device_skip=()

# A compile error that states a missing feature (lower-generic's "not implemented yet", emulate-xe's
# "only ... is emulated yet").
unsupported="not implemented yet|is emulated yet|not emulated yet"
# The lowered IR itself (lane level; for pvc the xe.* messages and DPAS, not emulated) in the
# interpreter must give what the source gives: a device-free check of the lowering. With `quiet`, an
# example whose IR does not compile is not an error (it was skipped on the device for that reason).
lowered_check() {
  local o=${outputs[$name]} lowered
  rm -f "$tmp/$name.ir"
  # shellcheck disable=SC2086
  if lowered=$("$xtc" compile "$f" --target "$target" --emit=ir -o "$tmp/$name.ir" 2>&1) &&
    lowered=$("$xtc" run "$f" ${sizes[$name]} --runtime interpreter --output "$o=$tmp/$name.npy" 2>&1) &&
    lowered=$("$xtc" run "$tmp/$name.ir" ${sizes[$name]} --runtime interpreter --expect "$o=$tmp/$name.npy" 2>&1); then
    echo "$name: lowered IR in the interpreter: $(echo "$lowered" | grep -m1 "^check $o:" | sed 's/ (.*//')"
  elif [ "${1:-}" = quiet ] && [ ! -s "$tmp/$name.ir" ]; then
    return 0  # the IR does not compile either: skipped above for that reason
  else
    echo "$name: FAILED (the lowered IR in the interpreter)"
    echo "$lowered" | sed 's/^/  /'
    status=1
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for f in "$dir"/*.xt; do
  name=$(basename "$f" .xt)
  if [[ " $static_rfc " == *" $name "* ]]; then
    echo "$name: skipped (static 4096x4096 shapes: see rfc-shrunk-*.test, rfc-check-sample.test)"
    continue
  fi
  if [ -z "${sizes[$name]+x}" ]; then
    echo "$name: error: no sizes for this example in $0"
    status=1
    continue
  fi
  if [ -n "${device_skip[$target:$name]+x}" ]; then
    echo "$name: device run skipped ($target: ${device_skip[$target:$name]})"
    lowered_check
    continue
  fi
  # shellcheck disable=SC2086
  out=$("$xtc" run "$f" --target "$target" ${sizes[$name]} --check -v 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "$name: ok"
    echo "$out" | grep -E "^xtc run: build options" | sed "s/^xtc run: /$name: /"
    lowered_check
  elif ! echo "$out" | grep -q "xtc run: compile (" && echo "$out" | grep -qE "$unsupported"; then
    echo "$name: skipped (does not compile for $target: $(echo "$out" | grep -m1 -E "$unsupported" | sed 's/.*error: //'))"
    lowered_check quiet  # e.g. an xe.dpas form emulate-xe lacks still runs in the interpreter
  else
    echo "$name: FAILED (exit $rc)"
    echo "$out" | grep -v "^xtc run: .*: [0-9.]* ms$" | sed 's/^/  /'
    status=1
  fi
done
exit $status
