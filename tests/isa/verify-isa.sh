#!/usr/bin/env bash
# verify-isa.sh: `xtc compile --verify-isa` end to end (backends/isa, docs/hardware.md):
#   1. examples/gemm_bf16.xt for pvc passes and writes its .spv;
#   2. a DPAS builtin misspelled in the emitted module (the hidden test double
#      --rename-builtin-for-testing) becomes an unresolved `calla`: exit 3, the builtin named, no file;
#   3. the 16x8x2 load renamed to the 16-row form IGC drops without a word (reference §2.2 pitfalls):
#      exit 3 naming the load, no file;
#   3b. the dg2 uchar block read misspelled: exit 3 naming it, no file;
#   4. no ocloc (XTC_OCLOC points nowhere): exit 1 with a clear message;
#   5. --target generic: exit 1 (nothing to verify);
#   6. an ocloc that drops the 2D stores (a wrapper deleting store_block2d from the disassembly, a test
#      double of a silent IGC): exit 3 naming the inline-vISA store;
#   7. the 16x8x2 A load renamed to the m4 form (`--xe-codegen=builtins`): IGC still emits a d16 2D
#      load, but its header says 16x4x2: exit 3 naming the shape;
#   8. an ocloc that drops the dpas of the whole-loop asm statement: exit 3 naming it; the same on
#      dg2's statement (gemm_i8), and an ocloc that drops dg2's A row reads (gemm_f16; gemm_bf16's
#      B rows), its row gathers (gemm_bf16), its B^T lane reads (RFC 2.3) or its per-lane
#      prefetches (RFC 2.1);
#   9. `xtc run --verify-isa` goes through the same check (no ocloc: exit 1 before anything runs);
#  10. the predicated per-lane messages pass, and an ocloc whose disassembly drops the predicates of
#      the sends (a wrapper) makes them an internal error naming the statement.
# Needs XTC_BINARY (set by ctest) and ocloc with its disassembler.
set -u
xtc=${XTC_BINARY:?XTC_BINARY must point at the xtc binary}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/xtc-verify-isa-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }
gemm=$src/examples/gemm_bf16.xt
dpas=_Z40intel_sub_group_bf16_bf16_matrix_mad_k16Dv8_sDv8_iDv8_f
load=__builtin_IB_subgroup_block_read_flat_u16_m8k16v2

# expect NAME CODE GREP -- ARGS...: runs xtc ARGS, checks the exit code and that stderr matches GREP.
expect() {
  local name=$1 code=$2 re=$3; shift 4
  "$@" 2>"$work/$name.err"
  local rc=$?
  [ $rc -eq "$code" ] || fail "$name: exit $rc, expected $code ($(cat "$work/$name.err"))"
  [ -z "$re" ] || grep -Eq -e "$re" "$work/$name.err" || fail "$name: stderr does not match /$re/: $(cat "$work/$name.err")"
  echo "$name: exit $rc: $(head -c 300 "$work/$name.err")"
}

expect ok 0 "" -- "$xtc" compile "$gemm" --target pvc --verify-isa -o "$work/ok.spv"
[ -s "$work/ok.spv" ] || fail "ok: no .spv written"

# (--xe-codegen=builtins: in vISA mode the K loop, dpas included, is one inline-vISA statement.)
expect calla 3 "^xtc: internal error: .*calla.*$dpas" -- \
  "$xtc" compile "$gemm" --target pvc --xe-codegen=builtins --verify-isa -o "$work/calla.spv" \
  --rename-builtin-for-testing "$dpas=${dpas/matrix_mad/matrix_mbd}"
[ -e "$work/calla.spv" ] && fail "calla: an output file was written"

# (--xe-codegen=builtins: the default vISA mode loads A with inline vISA, not this builtin.)
expect dropped 3 "^xtc: internal error: .*dropped a hardware call: $load" -- \
  "$xtc" compile "$gemm" --target pvc --xe-codegen=builtins --verify-isa -o "$work/dropped.spv" \
  --rename-builtin-for-testing "$load=${load/m8k16v2/m16k16v2}"
[ -e "$work/dropped.spv" ] && fail "dropped: an output file was written"

# The dg2 uchar block read (cl_intel_subgroups_char, block_read_dg2_global_d8.ir) misspelled: the
# SPIR-V translator no longer turns it into OpSubgroupBlockReadINTEL, IGC leaves a call: exit 3.
uc=_Z30intel_sub_group_block_read_uc2PU3AS1Kh
expect uchar 3 "^xtc: internal error: .*calla.*$uc" -- \
  "$xtc" compile "$src/tests/isa/builtins/block_read_dg2_global_d8.ir" --target dg2 --verify-isa -o "$work/uchar.spv" \
  --rename-builtin-for-testing "$uc=${uc/block_read/block_raed}"
[ -e "$work/uchar.spv" ] && fail "uchar: an output file was written"

expect no-ocloc 1 "^xtc: error: --verify-isa needs Intel's offline compiler" -- \
  env XTC_OCLOC=/nonexistent/ocloc "$xtc" compile "$gemm" --target pvc --verify-isa -o "$work/no.spv"
[ -e "$work/no.spv" ] && fail "no-ocloc: an output file was written"

expect generic 1 "--verify-isa needs --target pvc or dg2" -- \
  "$xtc" compile "$gemm" --target generic --verify-isa -o "$work/gen.spv"

cat >"$work/dropping-ocloc" <<'WRAP'
#!/usr/bin/env bash
ocloc "$@"; rc=$?
[ "$1" = disasm ] && sed -i '/store_block2d/d' dis/*_KernelHeap.asm
exit $rc
WRAP
chmod +x "$work/dropping-ocloc"
expect store-dropped 3 "^xtc: internal error: .*dropped a hardware call: inline vISA ./\* lsc_store_block2d" -- \
  env XTC_OCLOC="$work/dropping-ocloc" "$xtc" compile "$gemm" --target pvc --verify-isa -o "$work/sd.spv"
[ -e "$work/sd.spv" ] && fail "store-dropped: an output file was written"

# The whole-loop asm statement (backends/spirv/VisaLoop.cpp): each dpas and message in it is checked.
sed 's/store_block2d/dpas\\.8x8 /' "$work/dropping-ocloc" >"$work/dpas-dropping-ocloc"
chmod +x "$work/dpas-dropping-ocloc"
expect loop-dpas-dropped 3 "^xtc: internal error: .*dropped a hardware call: inline vISA loop: dpas 8x8" -- \
  env XTC_OCLOC="$work/dpas-dropping-ocloc" "$xtc" compile "$gemm" --target pvc --verify-isa -o "$work/ld.spv"
[ -e "$work/ld.spv" ] && fail "loop-dpas-dropped: an output file was written"

# dg2's whole-loop statement (backends/spirv/Dg2VisaLoop.cpp): gemm_f16 passes; an ocloc that drops
# its A row reads (the transposed LSC d32x8t loads), or its dpas, makes it an internal error.
sed 's/store_block2d/load\\.ugm\\.d32x8t/' "$work/dropping-ocloc" >"$work/rows-dropping-ocloc"
chmod +x "$work/rows-dropping-ocloc"
expect dg2-loop-ok 0 "" -- "$xtc" compile "$src/examples/gemm_f16.xt" --target dg2 --verify-isa -o "$work/dg2.spv"
expect dg2-rows-dropped 3 "^xtc: internal error: .*dropped a hardware call: inline vISA loop: row read d32x8t" -- \
  env XTC_OCLOC="$work/rows-dropping-ocloc" "$xtc" compile "$src/examples/gemm_f16.xt" --target dg2 --verify-isa -o "$work/dr.spv"
[ -e "$work/dr.spv" ] && fail "dg2-rows-dropped: an output file was written"
# gemm_bf16's slice loops, whose B rows are d32x8t reads (A's rows: gathers, below): the same.
expect dg2-split-rows-dropped 3 "^xtc: internal error: .*dropped a hardware call: inline vISA loop: row read d32x8t" -- \
  env XTC_OCLOC="$work/rows-dropping-ocloc" "$xtc" compile "$src/examples/gemm_bf16.xt" --target dg2 --verify-isa -o "$work/dsr.spv"
[ -e "$work/dsr.spv" ] && fail "dg2-split-rows-dropped: an output file was written"
expect dg2-dpas-dropped 3 "^xtc: internal error: .*dropped a hardware call: .*inline vISA loop: dpas 8x8" -- \
  env XTC_OCLOC="$work/dpas-dropping-ocloc" "$xtc" compile "$src/examples/gemm_i8.xt" --target dg2 --verify-isa -o "$work/dd.spv"
[ -e "$work/dd.spv" ] && fail "dg2-dpas-dropped: an output file was written"
# RFC 2.3's slice loops read B^T per lane (svm_gather4scaled: a64 untyped reads of 4 dwords): an
# ocloc that drops those sends makes it an internal error naming the statement's lane read.
sed 's/store_block2d/untyped surface read with xyzw/' "$work/dropping-ocloc" >"$work/lanes-dropping-ocloc"
chmod +x "$work/lanes-dropping-ocloc"
expect dg2-lane-reads-ok 0 "" -- "$xtc" compile "$src/examples/rfc_2_3_transpose_opt.xt" --target dg2 --verify-isa -o "$work/dl.spv"
expect dg2-lane-reads-dropped 3 "^xtc: internal error: .*dropped a hardware call: .*inline vISA loop: lane read xyzw" -- \
  env XTC_OCLOC="$work/lanes-dropping-ocloc" "$xtc" compile "$src/examples/rfc_2_3_transpose_opt.xt" --target dg2 --verify-isa -o "$work/dld.spv"
[ -e "$work/dld.spv" ] && fail "dg2-lane-reads-dropped: an output file was written"
# The row-pair slice loops read A's rows by row gathers since issue 11's session 19 (SIMD16 A64
# untyped reads of one dword per lane, the only `untyped surface read with x` sends): an ocloc that
# drops them makes gemm_bf16 an internal error naming the statement's row gather.
sed 's/store_block2d/untyped surface read with x$/' "$work/dropping-ocloc" >"$work/gathers-dropping-ocloc"
chmod +x "$work/gathers-dropping-ocloc"
expect dg2-row-gathers-dropped 3 "^xtc: internal error: .*dropped a hardware call: .*inline vISA loop: row gather x SIMD16" -- \
  env XTC_OCLOC="$work/gathers-dropping-ocloc" "$xtc" compile "$src/examples/gemm_bf16.xt" --target dg2 --verify-isa -o "$work/dgd.spv"
[ -e "$work/dgd.spv" ] && fail "dg2-row-gathers-dropped: an output file was written"
# RFC 2.1's first slice loop prefetches per lane inside its statement (walked, predicated sends): an
# ocloc that drops those sends (the only `load.ugm.d32.a64.ca.ca` ones) makes it an internal error
# naming them.
sed 's/store_block2d/load\\.ugm\\.d32\\.a64\\.ca\\.ca/' "$work/dropping-ocloc" >"$work/prefetch-dropping-ocloc"
chmod +x "$work/prefetch-dropping-ocloc"
expect dg2-prefetch-ok 0 "" -- "$xtc" compile "$src/examples/rfc_2_1_gemm_prefetch.xt" --target dg2 --verify-isa -o "$work/dp.spv"
expect dg2-prefetch-dropped 3 "^xtc: internal error: .*dropped a hardware call: .*inline vISA loop: predicated lane prefetch ca.ca" -- \
  env XTC_OCLOC="$work/prefetch-dropping-ocloc" "$xtc" compile "$src/examples/rfc_2_1_gemm_prefetch.xt" --target dg2 --verify-isa -o "$work/dpd.spv"
[ -e "$work/dpd.spv" ] && fail "dg2-prefetch-dropped: an output file was written"

# The predicated per-lane messages (backends/spirv/VisaLanes.cpp) must stay predicated: an ocloc whose
# disassembly loses the predicate of every send (a test double of an IGC that ignored it) fails them.
cat >"$work/unpredicating-ocloc" <<'WRAP'
#!/usr/bin/env bash
ocloc "$@"; rc=$?
[ "$1" = disasm ] && sed -i -E 's/^\(~?f[0-9]+\.[0-9]+\)( +send)/      \1/' dis/*_KernelHeap.asm
exit $rc
WRAP
chmod +x "$work/unpredicating-ocloc"
lanes=$src/tests/isa/builtins/visa_lane_predicated.ir
expect lanes-ok 0 "" -- "$xtc" compile "$lanes" --target pvc --verify-isa -o "$work/lanes.spv"
expect lanes-unpredicated 3 "^xtc: internal error: .*dropped a hardware call: inline vISA ./\* lsc_load\.ugm d32 predicated" -- \
  env XTC_OCLOC="$work/unpredicating-ocloc" "$xtc" compile "$lanes" --target pvc --verify-isa -o "$work/lu.spv"
[ -e "$work/lu.spv" ] && fail "lanes-unpredicated: an output file was written"
# So must dg2's walked prefetches (Dg2VisaLoop.cpp Walk): unpredicated, a lane outside would send.
expect dg2-prefetch-unpredicated 3 "^xtc: internal error: .*dropped a hardware call: .*inline vISA loop: predicated lane prefetch ca.ca" -- \
  env XTC_OCLOC="$work/unpredicating-ocloc" "$xtc" compile "$src/examples/rfc_2_1_gemm_prefetch.xt" --target dg2 --verify-isa -o "$work/dpu.spv"
[ -e "$work/dpu.spv" ] && fail "dg2-prefetch-unpredicated: an output file was written"

expect wrong-shape 3 "^xtc: internal error: .*shape 16x8x2 that $load" -- \
  "$xtc" compile "$gemm" --target pvc --xe-codegen=builtins --verify-isa -o "$work/ws.spv" \
  --rename-builtin-for-testing "$load=${load/m8k16v2/m4k16v2}"
[ -e "$work/ws.spv" ] && fail "wrong-shape: an output file was written"

expect run-no-ocloc 1 "^xtc: error: --verify-isa needs Intel's offline compiler" -- \
  env XTC_OCLOC=/nonexistent/ocloc "$xtc" run "$src/examples/gemm_f16.xt" --target pvc --verify-isa \
  --arg M=64 --arg N=64 --arg K=32

[ $bad -eq 0 ] && echo "verify-isa: PASS"
exit $bad
