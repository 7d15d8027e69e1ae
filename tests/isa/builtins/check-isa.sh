#!/usr/bin/env bash
# check-isa.sh FILE.ir|FILE.xt DEVICE [--expect EXPECTFILE] [--patch FROM=TO] [--expect-fail]
#
# The ISA proof of one hardware call form (reference "The first rule" and §10): compiles FILE.ir, a
# lane-level kernel holding that one xe.* op, through xtc's own backend (`xtc compile --target
# DEVICE --emit=spirv --verify-isa`: xtc's own guard, which must pass too), validates it with
# spirv-val, compiles it with `ocloc -device DEVICE` (under timeout, in a temporary folder),
# disassembles it and checks
#   - every `// ISA: count 'REGEX' N` line of FILE: exactly N lines of the disassembly match REGEX;
#   - every `// ISA: loop 'REGEX' N` line: exactly N lines of the kernel's outermost loop body (from a
#     label to the backward jmpi to it) match REGEX (per K step for a GEMM);
#   - every `// ISA: shape WxHxB N` line: exactly N 2D block message headers decode to that shape
#     (dword 7 = (width-1) | (height-1) << 8 | (blocks-1) << 16, reference §2.1; the disassembler
#     prints the immediate as hex or, for some, as a float whose bits are the value);
#   - every `// ISA: regs 'REGEX' O1 O2 ...` line: on the lines matching REGEX, in order, the register
#     number its first matching capture group takes, minus the first line's, is exactly O1 O2 ... (which
#     register of a vector a message reads, e.g. a 2D load's destination and then stores of its
#     registers: `regs '...' 0 3 0` = the stores read registers 3 and 0 of what the load wrote);
#   - `// ISA-FLAGS: ...` lines of the expectations add xtc compile flags (e.g. --xe-codegen=builtins);
#     tests/isa/gemm/EXAMPLE.VARIANT.DEVICE.isa (ctest passes examples/EXAMPLE.VARIANT.xt, which does
#     not exist) compiles examples/EXAMPLE.xt with them;
#   - no `calla`, no `Intel_Symbol_Table_Void_Program` (what an unknown builtin turns into), no
#     `scratch` in the ISA and no `spilled` in ocloc's output.
# The ISA: lines come from FILE itself, or from EXPECTFILE (for kernels that live in examples/).
# ocloc gets the kernel's `build_options` attribute (e.g. the large register file, reference §7).
# --patch FROM=TO rewrites a same-length string in the SPIR-V before ocloc (the negative test uses it
# to misspell a builtin); --expect-fail inverts the verdict (exit 0 only if some check failed).
# Needs XTC_BINARY (set by ctest), ocloc with disassembler support, spirv-val, perl.
set -u
ir=$1 dev=$2; shift 2
patch="" expect_fail=0 expect=$ir
while [ $# -gt 0 ]; do
  case $1 in
    --patch) patch=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --expect-fail) expect_fail=1; shift ;;
    *) echo "check-isa: unknown argument $1"; exit 2 ;;
  esac
done
xtc=${XTC_BINARY:?XTC_BINARY must point at the xtc binary}
work=$(mktemp -d "${TMPDIR:-/tmp}/xtc-isa.XXXXXX")
trap 'rm -rf "$work"' EXIT
bad=0
problem() { echo "FAIL: $*"; bad=1; }

flags=$(sed -n 's|^// ISA-FLAGS: ||p' "$expect")
if [ ! -e "$ir" ] && [ -n "$flags" ]; then
  variant=${ir%.xt}; ir=${variant%.*}.xt
fi
"$xtc" compile "$ir" --target "$dev" $flags --emit=spirv --verify-isa -o "$work/k.spv" || { echo "FAIL: xtc compile"; exit $((1 - expect_fail)); }
if [ -n "$patch" ]; then
  from=${patch%%=*} to=${patch#*=}
  [ ${#from} -eq ${#to} ] || { echo "check-isa: --patch needs strings of equal length"; exit 2; }
  grep -q "$from" "$work/k.spv" || { echo "check-isa: '$from' is not in the SPIR-V"; exit 2; }
  perl -pi -e "s/\Q$from\E/$to/g" "$work/k.spv"
fi
# spirv-val rejects every module with inline vISA (OpAsmTargetINTEL, reference §3); xtc validated
# its twin in process (docs/hardware.md, "What is validated") or the compile above failed.
if spirv-dis "$work/k.spv" 2>/dev/null | grep -q OpAsmTargetINTEL; then
  echo "note: inline vISA: spirv-val not run on the module; xtc validated its twin"
else
  spirv-val "$work/k.spv" || problem "spirv-val"
fi
"$xtc" compile "$ir" --target "$dev" $flags --emit=ir -o "$work/k.ir" || problem "xtc compile --emit=ir"
opts=$(grep -o 'build_options = "[^"]*"' "$work/k.ir" | head -1 | sed 's/build_options = "\(.*\)"/\1/')
[ -n "$opts" ] && echo "ocloc options: $opts"
(cd "$work" && timeout 300 ocloc compile -file k.spv -spirv_input -device "$dev" -output kk ${opts:+-options "$opts"} >build.log 2>&1)
rc=$?
[ $rc -eq 0 ] || { cat "$work/build.log"; echo "FAIL: ocloc compile exit $rc"; exit $((1 - expect_fail)); }
bin=$(ls "$work"/kk_*.bin | head -1)
(cd "$work" && ocloc disasm -file "$(basename "$bin")" -dump dis -device "$dev" >disasm.log 2>&1) || problem "ocloc disasm"
asm=$(ls "$work"/dis/*KernelHeap*.asm 2>/dev/null | grep -v Intel_Symbol_Table | head -1)
[ -n "$asm" ] && [ -s "$asm" ] || { echo "FAIL: no kernel disassembly"; exit $((1 - expect_fail)); }

grep -q calla "$asm" && problem "calla in the ISA (an unresolved call: the builtin is unknown to IGC)"
ls "$work"/dis | grep -q Intel_Symbol_Table_Void_Program && problem "Intel_Symbol_Table_Void_Program (an unresolved builtin)"
grep -q scratch "$asm" && problem "scratch accesses (spills)"
grep -qi spilled "$work/build.log" && problem "ocloc reports spills: $(grep -i spilled "$work/build.log")"

# Shapes of the 2D block headers: mov (1|M0) rN.7<1>:ud|d|f IMM.
shapes=$(grep -E 'mov \(1\|M0\) +r[0-9]+\.7<1>:(ud|d|f) +' "$asm" | perl -ne '
  if (/r\d+\.7<1>:(?:ud|d|f)\s+(0x[0-9A-Fa-f]+|[-0-9.e+]+):(?:uw|ud|w|d|f)/) {
    my $v = $1; my $x = ($v =~ /^0x/i) ? hex($v) : unpack("L", pack("f", $v));
    printf "%dx%dx%d\n", ($x & 255) + 1, (($x >> 8) & 255) + 1, (($x >> 16) & 15) + 1; }')
# The outermost loop: the longest span from a label to a later jmpi (or goto.b, IGC's backward
# goto: its last label is the loop's head) back to it.
awk '/^L[0-9]+:/ { lab[substr($1, 1, length($1) - 1)] = NR }
     /jmpi|goto\.b/ { t = $NF; if (t in lab && lab[t] < NR && NR - lab[t] > best) { best = NR - lab[t]; s = lab[t]; e = NR } }
     { line[NR] = $0 }
     END { for (i = s; i <= e && e > 0; ++i) print line[i] }' "$asm" >"$work/loop.asm"
while IFS= read -r line; do
  spec=${line#*// ISA: }
  case $spec in
    count\ *)
      re=$(echo "$spec" | sed -E "s/^count '(.*)' [0-9]+$/\1/"); want=${spec##* }
      got=$(grep -cE -e "$re" "$asm")
      [ "$got" -eq "$want" ] && echo "ok: $got x /$re/" || problem "/$re/ matches $got lines, expected $want" ;;
    loop\ *)
      re=$(echo "$spec" | sed -E "s/^loop '(.*)' [0-9]+$/\1/"); want=${spec##* }
      got=$(grep -cE -e "$re" "$work/loop.asm")
      [ "$got" -eq "$want" ] && echo "ok: $got x /$re/ in the loop" || problem "/$re/ matches $got lines of the loop, expected $want" ;;
    shape\ *)
      s=$(echo "$spec" | awk '{print $2}'); want=${spec##* }
      got=$(printf '%s\n' "$shapes" | grep -cx "$s")
      [ "$got" -eq "$want" ] && echo "ok: $got x 2D block header $s" || problem "2D block header $s seen $got times, expected $want (headers: $(echo $shapes))" ;;
    regs\ *)
      re=$(echo "$spec" | sed -E "s/^regs '(.*)'( -?[0-9]+)+$/\1/"); want=$(echo "$spec" | sed -E "s/^regs '.*'(( -?[0-9]+)+)$/\1/")
      got=$(RE="$re" perl -ne 'if (/$ENV{RE}/) { my ($n) = grep { defined } @{^CAPTURE}; $f //= $n; print " ", $n - $f }' "$asm")
      [ "$got" = "$want" ] && echo "ok: registers$got of /$re/" || problem "/$re/ reads registers$got (relative), expected$want" ;;
    *) echo "check-isa: bad ISA line: $line"; exit 2 ;;
  esac
done < <(grep '^// ISA: ' "$expect")
echo "info: loop body $(grep -cE '^\s*(\(|[a-z])' "$work/loop.asm") instructions, $(grep -cE '\bmov\b' "$work/loop.asm") mov, $(grep -c 'send' "$work/loop.asm") send"

if [ $expect_fail -eq 1 ]; then
  [ $bad -eq 1 ] && { echo "ok: the checks failed, as expected"; exit 0; }
  echo "FAIL: every check passed, but this case must fail"; exit 1
fi
exit $bad
