#!/usr/bin/env python3
"""Tests of benchmarks/run (label bench).

1. Its ISA classifier and loop finder on a hand-written disassembly whose counts are known by
   construction (so a wrong regex shows as a wrong count, not as a plausible table), and the block
   path of a guarded kernel (the per-lane fallback arm dropped).
2. The real command on examples/gemm_f16.xt for generic and pvc: it must compile, run ocloc and report,
   per K step, the dpas count of the example's stated ideal ((16/8)(32/16)(16/16) = 4, written in
   benchmarks/ideals.json and re-derived here), no spills, and a JSON file that a later commit can be
   compared with.
"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
xtc = sys.argv[2]
loader = importlib.machinery.SourceFileLoader("bench_run", os.path.join(root, "benchmarks", "run"))
spec = importlib.util.spec_from_loader("bench_run", loader)
bench = importlib.util.module_from_spec(spec)
loader.exec_module(bench)
failures = 0


def check(what, got, want):
    global failures
    if got != want:
        print("FAIL: %s: got %r, expected %r" % (what, got, want))
        failures += 1
    else:
        print("ok: %s = %r" % (what, got))


asm = """\
(W)     mov (1|M0)               r10.7<1>:ud   0xF0F:uw
        add (16|M0)              r3.0<1>:d     r3.0<1;1,0>:d     32:w
L200:
        send.ugm (16|M0)         r20      r10     null:0  0x0   0x02800203  // load_block2d.ugm.d16.a64
        send.ugm (16|M0)         null     r11     null:0  0x0   0x02000203  // load_block2d.ugm.d16.a64.ca.ca
        send.ugm (16|M0)         null     r12     null:0  0x0   0x02000203  // load.ugm.d32.a64.ca.ca
        dpas.8x8 (16|M0)         r30:f    r30:f   r20:bf  r40.0:bf
        dpas.8x8 (16|M0)         r38:f    r38:f   r21:bf  r40.0:bf
        mov (16|M0)              r50.0<1>:f    r[a0.0]<1,0>:f
        mov (16|M0)              r51.0<1>:f    r52.0<1;1,0>:f
        mad (16|M0)              r53.0<1>:f    r53.0<1;1,0>:f   r54.0<1;1,0>:f  r55.0<1;1,0>:f
(W)     mad (1|M0)               r9.2<1>:d     r3.1<0;0>:d       r57.2<0;0>:d      12:w
        sync.nop                 null
        send.dc1 (8|M0)          r44      r5      null:0  0x0   0x02106E00  // untyped surface read with x
(f0.0)  jmpi                     L200
        send.ugm (16|M0)         null     r10     r30:8   0x0   0x02000407  // store_block2d.ugm.d32.a64
"""
lines = asm.splitlines()
loop = bench.outer_loop(lines)
check("loop length (label to jmpi)", len(loop), 13)
c = bench.classify(loop)
# The integer mad (an address: row pitch x 12 + base) is `other`, the f32 one `mad`.
for key, want in [("instructions", 12), ("load1d", 1), ("load2d", 1), ("prefetch", 2), ("dpas", 2), ("shuffle", 1),
                  ("mov", 1), ("mad", 1), ("sync", 1), ("other", 2), ("store2d", 0)]:
    check("classify " + key, c[key], want)
check("store outside the loop", bench.classify(lines)["store2d"], 1)
check("no loop -> None", bench.outer_loop(lines[:2]), None)

# A versioned K loop (dg2, edge_loops): the interior loop (2 block reads) first, the longer edge loop
# (4 gathers) second, a short unrelated loop before both; the interior is the first of the two longest.
asm2 = """\
L10:
        add (8|M0)               r3.0<1>:d     r3.0<1;1,0>:d     1:w
(f0.0)  jmpi                     L10
L20:
        send.dc1 (8|M0)          r20      r10     null:0  0x0   0x0218A0FF  // a64 aligned oword block read x2
        send.dc1 (8|M0)          r22      r11     null:0  0x0   0x0228A0FF  // a64 aligned oword block read x4
        dpas.8x8 (8|M0)          r30:f    r30:f   r20:hf  r22.0:hf
(f0.0)  jmpi                     L20
L30:
        send.dc1 (8|M0)          r40      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        send.dc1 (8|M0)          r41      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        send.dc1 (8|M0)          r42      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        send.dc1 (8|M0)          r43      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        dpas.8x8 (8|M0)          r30:f    r30:f   r40:hf  r42.0:hf
(f0.0)  jmpi                     L30
"""
pair = bench.interior_and_edge(asm2.splitlines())
check("interior loop: block reads", bench.classify(pair[0])["load1d"], 2)
check("interior loop: instructions", bench.classify(pair[0])["instructions"], 4)
check("edge loop: instructions", bench.classify(pair[1])["instructions"], 6)
check("one loop is no pair", bench.interior_and_edge(asm2.splitlines()[:3]), None)

# A split kernel (split_loops = edge_loops = 2) whose two slice loops are each versioned: interior 0
# (1 block read, 3 instructions), edge 0 (3 gathers, 5), a short loop between the pairs (not counted),
# interior 1 (2 block reads, 4), edge 1 (2 gathers, 4): interiors = 3 + 4 = 7 instructions and 3
# block reads, edges = 5 + 4 = 9. The second edge loop is as long as the second interior loop and
# shorter than the first edge loop: the pairs come from program order, not from length.
asm3 = """\
L100:
        send.dc0 (8|M0)          r20      r10     null:0  0x0   0x0218A0FF  // oword aligned block read x2
        dpas.8x8 (8|M0)          r30:f    r30:f   r20:hf  r22.0:hf
(f0.0)  jmpi                     L100
L110:
        send.dc1 (8|M0)          r40      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        send.dc1 (8|M0)          r41      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        send.dc1 (8|M0)          r42      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        dpas.8x8 (8|M0)          r30:f    r30:f   r40:hf  r42.0:hf
(f0.0)  jmpi                     L110
        send.dc1 (8|M0)          null     r10     r30:2   0x0   0x020E0000  // untyped surface write with x
L115:
        add (1|M0)               r3.0<1>:d     r3.0<0;1,0>:d     1:w
(f0.0)  jmpi                     L115
L120:
        send.dc0 (8|M0)          r20      r10     null:0  0x0   0x0218A0FF  // oword aligned block read x2
        send.dc0 (8|M0)          r21      r11     null:0  0x0   0x0218A0FF  // oword aligned block read x2
        dpas.8x8 (8|M0)          r31:f    r31:f   r20:hf  r22.0:hf
(f0.0)  jmpi                     L120
L130:
        send.dc1 (8|M0)          r40      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        send.dc1 (8|M0)          r41      r10     null:0  0x0   0x02106E00  // untyped surface read with x
        dpas.8x8 (8|M0)          r31:f    r31:f   r40:hf  r42.0:hf
(f0.0)  jmpi                     L130
"""
pairs = bench.interior_and_edge(asm3.splitlines(), 2)
check("split: interior loops' instructions", bench.classify(pairs[0])["instructions"], 7)
check("split: interior loops' block reads", bench.classify(pairs[0])["load1d"], 3)
check("split: interior loops' dpas", bench.classify(pairs[0])["dpas"], 2)
check("split: edge loops' instructions", bench.classify(pairs[1])["instructions"], 9)
check("split: edge loops' gathers", bench.classify(pairs[1])["load1d"], 5)
check("split: three loops are not two pairs", bench.interior_and_edge(asm3.splitlines()[:13], 2), None)

# Guarded dg2 kernels without a loop (block_path). Each case: one block read (an oword block
# message) and one gather (an untyped surface read) in the two arms of a guard, and the same tail
# (the join at L500, the EOT send). The block path keeps the block read and drops the gather's arm:
# 1 arm dropped, 1 block read, no gather, and the instructions counted by hand below.
BLOCK = "        send.dc0 (16|M0)         r18      r7      null:0  0x0            0x02484400           // oword aligned block read x8\n"
GATHER = "        send.dc1 (8|M0)          r59      r7      null:0  0x0            0x02106E00           // untyped surface read with x\n"
TAIL = """\
L500:
        join (8|M0)                          L520
L520:
        send.gtwy (8|M0)         null     r127    null:0  0x0            0x02000010           {EOT} // end of thread
"""


def check_block_path(what, asm, instructions):
    kept, dropped = bench.block_path(asm.splitlines())
    cb = bench.classify(kept)
    check(what + ": arms dropped, instructions, block reads, gathers",
          (dropped, cb["instructions"], cb["load1d"], sum("untyped" in l for l in kept)), (1, instructions, 1, 0))


# The fallback falls through (sg_bias_relu on dg2): the guard `(f0.0) goto L400` skips the fallback
# arm (a per-lane load with its own bounds if/else: the gather, the zero fill, and an add), which ends
# in `goto L400 L500`; the block arm (L400: join, the block read, an add) runs to L500. Kept: the mov,
# the guard's goto, the block arm's join, read and add, the join at L500 and the EOT = 7. The inner
# bounds if/else alone (its arm after L200 is the zero fill, no block message) is no guard.
fallthrough = ("""\
        mov (8|M0)               r2.0<1>:d     r1.0<1;1,0>:d
(f0.0)  goto (8|M0)                          L400                  L400
L100:
(~f1.0) goto (8|M0)                          L200                  L200
L120:
""" + GATHER + """\
        goto (8|M0)                          L200                  L220
L200:
        join (8|M0)                          L220
        mov (8|M0)               r59.0<1>:f    0.0:f
L220:
        join (8|M0)                          L300
L300:
        add (8|M0)               r60.0<1>:f    r59.0<1;1,0>:f    r61.0<1;1,0>:f
        goto (8|M0)                          L400                  L500
L400:
        join (8|M0)                          L500
""" + BLOCK + """\
        add (8|M0)               r60.0<1>:f    r18.0<1;1,0>:f    r61.0<1;1,0>:f
""" + TAIL)
check_block_path("fallback first", fallthrough, 7)
check("a per-lane bounds if/else is no guard", bench.block_path(fallthrough.splitlines()[3:11])[1], 0)
# The other order (softmax on dg2): `(~f0.0) goto L400` jumps to the fallback, the block arm falls
# through and ends in `goto L400 L500`; the fallback (L400: join, the gather) runs to L500. Kept: the
# mov, the guard's goto, the block read, the closing goto, the join at L500 and the EOT = 6.
def block_arm_first(arm):
    return """\
        mov (8|M0)               r2.0<1>:d     r1.0<1;1,0>:d
(~f0.0) goto (8|M0)                          L400                  L400
L100:
""" + arm + """\
        goto (8|M0)                          L400                  L500
L400:
        join (8|M0)                          L500
""" + GATHER + TAIL
check_block_path("block arm first", block_arm_first(BLOCK), 6)

# The block arm as Dg2VisaBlock.cpp's statement (LSC transposed SIMD1 messages, no oword block
# message): the same guard, the fallback falling through; kept as in "fallback first".
LSC = "(W)     send.ugm (1|M0)          r13      r5      null:0  0x0            0x0240E580           {$6} // wr:1+0, rd:4; load.ugm.d32x32t.a64\n"
check_block_path("fallback first, LSC block read", fallthrough.replace(BLOCK, LSC), 7)
# An LSC message that is not transposed (a SIMD8 prefetch or gather) is no block message.
check("a SIMD8 LSC load is no block message", bench.block_path(fallthrough.replace(BLOCK, LSC.replace("(1|M0)", "(8|M0)").replace("d32x32t", "d32")).splitlines())[1], 0)
# Softmax's statement since session 20 (rows one per lane): its block arm's only block messages are
# NoMask SIMD16 A64 untyped writes of 4 dwords (its reads SIMD16 untyped reads, as the transpose's
# lane reads): "block arm first" with such a write in place of the block read keeps it and drops the
# fallback's gather; a SIMD8 untyped write (a per-lane store) is no block message.
SCATTER = "(W)     send.dc1 (16|M0)         null     r3      r94:8   0x0            0x080650FF           {A@7,$0} // wr:4+8, rd:0; a64 untyped surface write with xyzw\n"
softmax_arm = block_arm_first(SCATTER)
kept, dropped = bench.block_path(softmax_arm.splitlines())
check("SIMD16 untyped write: arms dropped, instructions, the write kept, the gather dropped",
      (dropped, bench.classify(kept)["instructions"], bench.classify(kept)["store1d"], sum("untyped surface read" in l for l in kept)), (1, 6, 1, 0))
check("a SIMD8 untyped write is no block message", bench.block_path(softmax_arm.replace("(16|M0)", "(8|M0)").splitlines())[1], 0)

# pvc with --surface-fallback (bias_relu, softmax, transpose): the guard is uniform, so IGC lays it out
# as `(W&f3.1) jmpi L300` with no join; the fallback (a per-lane LSC gather and an add) falls through
# and ends in `(W) jmpi L400`, the block arm (L300: a 2D block load and an add) runs to L400. Kept:
# the mov, the guard's jmpi, the 2D load, its add and the EOT = 5; the gather dropped.
PVC_BLOCK = "(W)     send.ugm (1|M0)          r6       r1      null:0  0x0            0x02800403           {A@1,$6} // wr:1+0, rd:8; load_block2d.ugm.d32.a64\n"
PVC_GATHER = "        send.ugm (16|M0)         r25      r22     null:0  0x0            0x04100580           {I@1,$9} // wr:2+0, rd:1; load.ugm.d32.a64\n"
PVC_ADD = "        add (16|M0)              r99.0<1>:f    r24.0<1;1,0>:f    r83.0<1;1,0>:f\n"
PVC_TAIL = """\
L400:
(W)     send.gtwy (8|M0)         null     r127    null:0  0x0            0x02000010           {EOT,F@1} // end of thread
"""


def pvc_guard(first, second, flag="f3.1"):
    return ("""\
        mov (16|M0)              r2.0<1>:d     r1.0<1;1,0>:d
(W&%s) jmpi                                L300
L100:
""" % flag + first + PVC_ADD + """\
(W)     jmpi                                 L400
L300:
""" + second + PVC_ADD + PVC_TAIL)


def check_pvc_path(what, asm, instructions, block, gathers):
    kept, dropped = bench.block_path(asm.splitlines())
    check(what + ": arms dropped, instructions, 2D loads, gathers",
          (dropped, bench.classify(kept)["instructions"], bench.classify(kept)["load2d"], bench.classify(kept)["load1d"]),
          (1, instructions, block, gathers))


check_pvc_path("pvc, fallback first", pvc_guard(PVC_GATHER, PVC_BLOCK), 5, 1, 0)
# The block arm falling through (`(W&~f3.1) jmpi L300` to the fallback): kept the mov, the jmpi, the
# 2D load, its add, the closing jmpi and the EOT = 6.
check_pvc_path("pvc, block arm first", pvc_guard(PVC_BLOCK, PVC_GATHER, "~f3.1"), 6, 1, 0)
# A uniform branch whose arms are both per lane (or both 2D) is no guard: nothing dropped.
check("pvc, two per-lane arms are no guard", bench.block_path(pvc_guard(PVC_GATHER, PVC_GATHER).splitlines())[1], 0)
check("pvc, two 2D arms are no guard", bench.block_path(pvc_guard(PVC_BLOCK, PVC_BLOCK).splitlines())[1], 0)

# The gaps ratchet on synthetic rows: a shortfall must be recorded exactly, in both directions.
def row(dpas, mov, spills=0, error=None):
    if error:
        return {"example": "k", "target": "pvc", "error": error}
    counts = {k: 0 for k in bench.IDEAL_KEYS}
    counts.update(dpas=dpas, mov=mov)
    return {"example": "k", "target": "pvc", "ideal": {"dpas": 32, "mov": 0},
            "isa": {"spills": spills, "scratch": 0, "counts": counts}}


check("at the ideal, nothing recorded", bench.check_gaps([row(32, 0)], {}), True)
check("gap recorded exactly", bench.check_gaps([row(32, 7)], {"k/pvc": {"mov": 7}}), True)
check("new gap", bench.check_gaps([row(32, 7)], {}), False)
check("gap changed", bench.check_gaps([row(32, 5)], {"k/pvc": {"mov": 7}}), False)
check("gap closed but still recorded", bench.check_gaps([row(32, 0)], {"k/pvc": {"mov": 7}}), False)
check("spills must be recorded", bench.check_gaps([row(32, 0, spills=3)], {}), False)
check("not compiled, recorded", bench.check_gaps([row(0, 0, error="x: no")], {"k/pvc": {"not_compiled": "x: no"}}), True)
check("compiles now", bench.check_gaps([row(32, 0)], {"k/pvc": {"not_compiled": "x: no"}}), False)
check("current_gaps", bench.current_gaps([row(30, 7, spills=2)]), {"k/pvc": {"dpas": 30, "mov": 7, "spills": 2}})
# not_applicable in ideals.json: failing to compile is no gap; compiling is one.
na = {"not_applicable": "needs more SLM"}
check("not applicable, not compiled", bench.check_gaps([dict(row(0, 0, error="x: no"), ideal=na)], {}), True)
check("not applicable, compiles", bench.current_gaps([dict(row(32, 0), ideal=na)]),
      {"k/pvc": {"not_applicable": "compiles, but ideals.json says: needs more SLM"}})

# An ocloc that does not finish in time is that kernel's error, not a crash of the whole table: a
# test double named ocloc (a script that sleeps) first on PATH, with the timeout cut to 1 s.
with tempfile.TemporaryDirectory() as work:
    fake = os.path.join(work, "ocloc")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\nexec sleep 5\n")
    os.chmod(fake, 0o755)
    saved_path, saved_timeout = os.environ["PATH"], bench.OCLOC_TIMEOUT
    os.environ["PATH"], bench.OCLOC_TIMEOUT = work + os.pathsep + saved_path, 1
    try:
        timed_out = bench.isa_stats(xtc, "k.spv", "", "pvc", work)
    finally:
        os.environ["PATH"], bench.OCLOC_TIMEOUT = saved_path, saved_timeout
    check("ocloc timeout reported", timed_out.get("error"), "ocloc timed out after 1 s")

with tempfile.TemporaryDirectory() as work:
    out = os.path.join(work, "r.json")
    r = subprocess.run([sys.executable, os.path.join(root, "benchmarks", "run"), "--xtc", xtc,
                        "--examples", "gemm_f16", "--targets", "generic,pvc", "--repeat", "1", "--json", out],
                       capture_output=True, text=True)
    print(r.stdout, r.stderr)
    check("benchmarks/run exit code", r.returncode, 0)
    rows = {row["target"]: row for row in json.load(open(out))["results"]}
    check("targets measured", sorted(rows), ["generic", "pvc"])
    check("generic has no ISA section", "isa" in rows["generic"], False)
    check("generic SPIR-V is non-empty", rows["generic"].get("spirv_bytes", 0) > 0, True)
    isa = rows["pvc"].get("isa", {})
    check("pvc scope", isa.get("scope"), "loop")
    check("pvc dpas per K step", isa.get("counts", {}).get("dpas"), (16 // 8) * (32 // 16) * (16 // 16))
    check("pvc ideal dpas", rows["pvc"].get("ideal", {}).get("dpas"), 4)
    check("pvc spills", isa.get("spills", -1) + isa.get("scratch", -1), 0)
    check("pvc SIMD width", isa.get("simd"), 16)
sys.exit(1 if failures else 0)
