#!/usr/bin/env python3
"""dg2_visa_loop.py: a hand-written dg2 (SIMD8) GEMM K loop as ONE inline-vISA statement, and an
executable model of that statement's text (docs/hardware.md "dg2: inline vISA", benchmarks/
xe-isa-notes.md "dg2 K loops in one asm statement").

  dg2_visa_loop.py ll M N KSTEP TYPE [serial|bt|pf|pfif|pairs|addrend ...]
                                       LLVM IR of a kernel whose K loop is the statement (stdout);
                                       TYPE f: the f32 FMA GEMM's loop (fma_statement, KSTEP 8;
                                       bt: gemm_bt's, B^T by lane reads)
  dg2_visa_loop.py sim                 runs the statement text of every shape below on random tiles
                                       against C = A x B (and mutated texts, which must fail)
  dg2_visa_loop.py sim-ll M N KSTEP TYPE ROLES ORDER [OLD=>NEW...] < module.ll
                                       the same model run on the statement xtc emitted (sim_module)

The statement (TYPE hf, bf: f16/bf16 -> f32, K step 16 or 32; s8 -> s32, K step 32; M, N multiples of 8):
  - A: M row reads per K step, `lsc_load.ugm (M1_NM, 1) xA<i>:d32x8t flat[xa<i>]:a64` (SIMD1,
    transposed: 8 dwords of row i into one 32-byte GRF, lane j = dword j = the K pair 2j, 2j+1, or
    the 4 bytes 4j..4j+3). Row i of an 8-row block is register i of the DPAS A operand (reference
    §4, dg2), so the sends write the operand's registers: no copy. K step 32 in 16 bits (the split
    kernels' slice loops): a 64-byte row belongs to two DPAS operands (K 0-15, K 16-31); a response
    is consecutive registers, so each half is its own d32x8t read into its own operand (2 sends and
    2 address adds per row: no mov, no read waiting on another).
  - B: KSTEP row reads of N elements (d32x4t/x8t/x16t: 16/32/64 bytes), into a row buffer xR.
  - B packing: a DPAS B register i of n-block t holds in lane n the dword B[2i][n] | B[2i+1][n] << 16
    (8-bit: 4 rows, bytes), so each row slot (8 columns of one row) is one
    `mov (M1, 8) xB(8t+i, h)<2 or 4> xR(row, col)<1;1,0>` into its word/byte h: 64 per K step for
    every shape below, the term measured on IGC's own code (tests/isa/builtins/dpas_dg2_f16_b_rows.ir).
  - dpas.T.T.8.8 (M1, 8) per (m-block, n-block) into the accumulators, the statement's outputs,
    each tied to an initial value (zeros here; the model starts them at 0).
  - each message's address is a 64-bit scalar in its own GRF (an LSC payload must be GRF-aligned:
    vISA rejects an address alias at byte 8 of a register, "Raw operand should be GRF-aligned"),
    advanced by one `add (M1_NM, 1) … :uq` per message per step (native on dg2; a 2-wide add over
    two address registers is split into two by the finalizer, measured);
  - the counter's add, cmp.lt and the backward jmp.
TYPE f (f32, no DPAS: sg_gemm_f32, gemm_splitk, gemm_acc): the same row reads and addresses, no
packing, one `mad (M1, 8)` per multiply-add whose A element is a scalar region of its row's register
(fma_statement); with bt (gemm_bt) B's column blocks are lane reads of B^T, the mads' B the
registers of their SIMD8 untyped reads.
The row addresses come in as per-lane i64 values (lane l = row 8g + l) and are spread into the
address registers before the loop.
"""
import math
import random
import re
import struct
import sys

GRF = 32  # bytes per register on dg2
# What the model's memory holds outside A's and B's elements (the pitches' padding, past K): a step
# too many reads it, and it is not 0 (every byte 0x40: f16 2.125, bf16 and f32 3.0, s8 64), so a loop
# that runs past its end changes C.
PAD = 0x40


def statement(M, N, KS, T, serial=False, bt=False, pf=False, pairs=False, pfif=False, addrend=False, gathers=False):
    """The statement's vISA lines and its operand list (outputs, then inputs). serial (64-byte A
    rows only): the floor's form instead, one d32x16t read per row into registers X + i, X + i + 1 of
    a 9-register block and one mov of the second half into the other operand, Y + i (the next row's
    read overwrites X + i + 1, so it waits for that mov). pairs (64-byte A rows only): xtc's form
    (Dg2VisaLoop.cpp row pairs): one d32x16t read per row, row 2u into its own temporary pair xU<u>,
    row 2u + 1 into registers 2u, 2u + 1 of the K 16-31 operand (its K 0-15 half in row 2u's K 16-31
    place), then lo[2u] <- xU<u>.0, lo[2u + 1] <- hi[2u], hi[2u] <- xU<u>.1, each step for all pairs
    before the next (after all the reads). bt: B comes from B^T (N x K in memory, the
    RFC 2.2/2.3 kernels): each DPAS B operand (column block t, K half h2) is 8 dwords per lane, lane n
    at its own address (row 8t + n of B^T, 32 bytes per K half further), read by two SIMD8 A64
    untyped reads of 4 dwords, `svm_gather4scaled.RGBA (M1, 8) 0x0:uq xl<j>.0 xL<j>.0` (dwords 0-3)
    and the same from xm<j> = xl<j> + 16 into xH<j> = registers 4-7 of xL<j>: register c of a
    response holds dword c of every lane, the K pair 2c, 2c+1 (4 bytes 4c..4c+3) of column n, so xL<j>
    is the DPAS B operand itself: no packing mov. (An LSC load of 8 dwords, `lsc_load.ugm (M1, 8)
    …:d32x8`, is not: dg2's LSC pads SIMD8 to SIMD16, a response of 16 registers with lanes 0-7 in
    every other one, measured in dg2-visa.sh.) Each address (one uq per lane, 2 registers) advances
    by one `add (M1, 8) … :uq` per step. pf: two per-lane prefetches of A's lines in the form xtc
    emits for lower-xe's prefetch_1d (Dg2VisaLoop.cpp LaneProgram): each lane's column bytes from a
    carried column (a scalar dword stepped by KS per step) times 2 plus its lane part, a bounds mask
    (`cmp.lt` with a general destination: 0/-1 per lane) and-ed with the loop-invariant one, the
    line's offset (row offset + column bytes, & ~3) and-ed with that mask (a line outside prefetches
    the base), zero-extended and added to the base: `lsc_load.ugm.{ca.ca,uc.ca} (M1, 8) %null:d32
    flat[X]:a64`. Its inputs (after the others): the carried column's start (uniform), then per
    prefetch the lane part, the width in bytes, the invariant mask, the row offset, the base. pfif
    (with pf; RFC 2.5's L2 stream, KS 32): the second prefetch runs only every fourth step, in a
    block after the first: the counter `and` 127, `cmp.eq` with 0 into the loop's predicate, a
    predicated forward `jmp` over the block; in it the SLM fence and the barrier (IGC's own vISA for
    barrier(CLK_LOCAL_MEM_FENCE)), the prefetch from its own carried column (xc1, same start) and
    that column's step of 128, only there. addrend: no counter, the loop ends on a 64-bit compare of
    A row 0's address (advanced by its own add every step) with its end, xa0 + K * eb computed
    before the loop (docs/performance.md "dg2 loop floors": the floors' 2 per loop; xtc's statements
    end so since issue 11, their end from a span input: Dg2VisaCommon.h loopStart; `sim` runs it)."""
    assert not (addrend and pfif)  # pfif's block reads the counter
    eb = 1 if T == "s8" else 2
    pack = 4 // eb
    sub = "ub" if eb == 1 else "uw"
    # KH = 2: a 64-byte A row (bf16/f16, K step 32) is two messages, one per K half, each straight
    # into the register of its own DPAS operand (the split kernels' slice loops).
    KH = KS * eb // 32
    assert KH in (1, 2) and (KH == 1 or eb == 2) and M % 8 == 0 and N % 8 == 0
    rowb = N * eb
    G = max(1, rowb // GRF)
    bmsg = {16: "d32x4t", 32: "d32x8t", 64: "d32x16t"}[rowb]
    NB, MB = N // 8, M // 8
    NO = MB * NB
    assert not (serial or pairs or gathers) or KH == 2
    assert not (gathers and (serial or pairs or pf))
    # gathers: xtc's form of the 64-byte A rows since issue 11's session 19 (Dg2VisaLoop.cpp row
    # gathers): per two rows 2u, 2u + 1 of row block a and K half h one SIMD16 A64 untyped read of one
    # dword per lane, `svm_gather4scaled.R (M1_NM, 16) 0x0/0x20:uq xW<p>.0 xG<n>.0` (n = 2 p + h):
    # lanes 0-7 dword l of row 2u's half h, lanes 8-15 of row 2u + 1's, so the response's two
    # registers are registers 2u, 2u + 1 of operand (a, h) at register 16 a + 8 h: no mov. The 16
    # addresses are pair p's walked vector xW<p> (xW0 = xV: lanes 0-7 row 0 + 4 l, 8-15 a pitch on;
    # xW<p> = xV + row 2u's offset from row 0, made before the loop), one SIMD16 add a step each, the
    # K-high gather's 32 bytes its immediate offset. Inputs instead of A's address groups: xV's lanes
    # 0-7, then per row block its rows' offsets from row 0 (lane l: row 8 a + l). No A messages.
    NA = 0 if gathers else M if serial or pairs else M * KH  # A messages: (row block a, half h, row r) -> register 8 (a KH + h) + r
    NGA = M if gathers else 0  # row gathers
    NG = NA // 8  # A address groups
    L = []
    d = L.append
    NL = NB * KH if bt else 0  # B^T lane reads: operand (t, h2) is read j = t KH + h2
    if NA:
        d(f".decl xa v_type=G type=uq num_elts={4 * NA} align=GRF")
    if gathers:
        d(".decl xV v_type=G type=uq num_elts=16 align=GRF")
        for q in range(1, NGA // 2):
            d(f".decl xW{q} v_type=G type=uq num_elts=16 align=GRF")
    if not bt:
        d(f".decl xb v_type=G type=uq num_elts={4 * KS} align=GRF")
    d(f".decl xA v_type=G type=ud num_elts={8 * (9 * MB if serial else 2 * NA if pairs else 2 * M if gathers else NA)} align=GRF")
    for n in range(NGA):  # gather n = 2 pair + h: operand (pair / 4, h)'s registers 2 (pair % 4), + 1
        p, h = divmod(n, 2)
        d(f".decl xG{n} v_type=G type=ud num_elts=16 align=GRF alias=<xA,{GRF * (16 * (p // 4) + 8 * h + 2 * (p % 4))}>")
    if serial:
        d(f".decl xY v_type=G type=ud num_elts={64 * MB} align=GRF")
    if pairs:
        for q in range(NA // 2):
            d(f".decl xU{q} v_type=G type=ud num_elts=16 align=GRF")
    if not bt:
        d(f".decl xR v_type=G type={sub} num_elts={KS * G * GRF // eb} align=GRF")
        d(f".decl xB v_type=G type={sub} num_elts={NB * KH * 8 * GRF // eb} align=GRF")
        d(f".decl xBd v_type=G type=ud num_elts={NB * KH * 64} align=GRF alias=<xB,0>")
    for j in range(NL):
        d(f".decl xl{j} v_type=G type=uq num_elts=8 align=GRF")
        d(f".decl xm{j} v_type=G type=uq num_elts=8 align=GRF")
        d(f".decl xL{j} v_type=G type=ud num_elts=64 align=GRF")
        d(f".decl xH{j} v_type=G type=ud num_elts=32 align=GRF alias=<xL{j},{4 * GRF}>")
    assert not pfif or (pf and KS == 32)
    if pfif:
        d(".decl xc1 v_type=G type=ud num_elts=1 align=dword")
        d(".decl xq v_type=G type=d num_elts=1 align=dword")
    if pf:
        d(".decl xc0 v_type=G type=ud num_elts=1 align=dword")
        for q in range(2):
            for i in range(14):
                d(f".decl xt{q}_{i} v_type=G type={'q' if i in (11, 12, 13) else 'ud'} num_elts=8 align=GRF")
    d(".decl xk v_type=G type=d num_elts=1 align=dword")
    if addrend:
        d(".decl xe v_type=G type=uq num_elts=1 align=qword")
    d(".decl xp v_type=P num_elts=1")
    for i in range(NA):
        d(f".decl xa{i} v_type=G type=uq num_elts=1 alias=<xa,{GRF * i}>")
        if serial:
            d(f".decl xA{i} v_type=G type=ud num_elts=16 align=GRF alias=<xA,{GRF * (9 * (i // 8) + i % 8)}>")
        elif pairs and i % 2:  # odd row r: hi[r - 1], hi[r]
            d(f".decl xA{i} v_type=G type=ud num_elts=16 align=GRF alias=<xA,{GRF * (16 * (i // 8) + i % 8 + 7)}>")
        elif pairs:  # even row: its own temporary pair
            d(f".decl xA{i} v_type=G type=ud num_elts=16 align=GRF alias=<xU{i // 2},0>")
        else:
            d(f".decl xA{i} v_type=G type=ud num_elts=8 align=GRF alias=<xA,{GRF * i}>")
    BR = 0 if bt else KS  # B row reads
    for r in range(BR):
        d(f".decl xb{r} v_type=G type=uq num_elts=1 alias=<xb,{GRF * r}>")
        d(f".decl xR{r} v_type=G type=ud num_elts={8 * G} align=GRF alias=<xR,{GRF * G * r}>")
    NBI = NL if bt else KS // 8  # B inputs: per-lane addresses of 8 B rows, or of one lane read
    NGI = 1 + MB if gathers else NG  # A inputs: the address groups, or xV's lanes 0-7 and the row blocks' offsets
    ai = [2 * NO + g for g in range(NGI)]  # operands: NO outputs, NO tied initial values, then these
    bi = [2 * NO + NGI + g for g in range(NBI)]
    kin = 2 * NO + NGI + NBI
    bst = kin + 1
    pfin = bst + (0 if bt else 1)  # pf: the carried column's start, then 5 inputs per prefetch
    for g in range(NG):
        for q in range(4):
            d(f"mov (M1_NM, 2) xa({8 * g + 2 * q},0)<4> ${ai[g]}(0,{2 * q})<1;1,0>")
    if gathers:
        d(f"mov (M1_NM, 8) xV(0,0)<1> ${ai[0]}(0,0)<1;1,0>")
        d(f"add (M1_NM, 8) xV(2,0)<1> ${ai[0]}(0,0)<1;1,0> ${ai[1]}(0,1)<0;1,0>")
        for q in range(1, NGA // 2):
            d(f"add (M1_NM, 16) xW{q}(0,0)<1> xV(0,0)<1;1,0> ${ai[1 + q // 4]}(0,{2 * (q % 4)})<0;1,0>")
    for g in range(BR // 8):
        for q in range(4):
            d(f"mov (M1_NM, 2) xb({8 * g + 2 * q},0)<4> ${bi[g]}(0,{2 * q})<1;1,0>")
    for j in range(NL):
        d(f"mov (M1, 8) xl{j}(0,0)<1> ${bi[j]}(0,0)<1;1,0>")
        d(f"add (M1, 8) xm{j}(0,0)<1> ${bi[j]}(0,0)<1;1,0> 0x10:uq")
    if pf:
        d(f"mov (M1,1) xc0(0,0)<1> ${pfin}(0,0)<0;1,0>")
        if pfif:
            d(f"mov (M1,1) xc1(0,0)<1> ${pfin}(0,0)<0;1,0>")
        for q in range(2):
            for i, src in zip((0, 3, 5, 7, 12), range(pfin + 1 + 5 * q, pfin + 6 + 5 * q)):
                d(f"mov (M1, 8) xt{q}_{i}(0,0)<1> ${src}(0,0)<1;1,0>")
    w = "xV" if gathers else "xa0"  # A row 0's address
    if addrend:  # the end of A row 0's address: xa0 + K * eb
        d(f"mov (M1,1) xe(0,0)<1> ${kin}(0,0)<0;1,0>")
        if eb == 2:
            d("shl (M1,1) xe(0,0)<1> xe(0,0)<0;1,0> 0x1:uq")
        d(f"add (M1,1) xe(0,0)<1> xe(0,0)<0;1,0> {w}(0,0)<0;1,0>")
        d(f"cmp.lt (M1,1) xp {w}(0,0)<0;1,0> xe(0,0)<0;1,0>")
    else:
        d("mov (M1,1) xk(0,0)<1> 0x0:d")
        d(f"cmp.lt (M1,1) xp xk(0,0)<0;1,0> ${kin}(0,0)<0;1,0>")
    d("(!xp) jmp (M1,1) xend")
    d("xloop:")
    for i in range(NA):
        if pairs:
            d(f"lsc_load.ugm (M1_NM, 1) xA{i}:d32x16t flat[xa{i}]:a64")
        elif serial:
            d(f"lsc_load.ugm (M1_NM, 1) xA{i}:d32x16t flat[xa{i}]:a64")
            d(f"mov (M1, 8) xY({i},0)<1> xA({9 * (i // 8) + i % 8 + 1},0)<1;1,0>")
        else:
            d(f"lsc_load.ugm (M1_NM, 1) xA{i}:d32x8t flat[xa{i}]:a64")
    gq = [f"svm_gather4scaled.R (M1_NM, 16) {32 * (n % 2):#x}:uq {f'xW{n // 2}' if n > 1 else 'xV'}.0 xG{n}.0" for n in range(NGA)]
    if not bt:  # B rows: the gathers first (xtc's order); with lane reads one after each half, the rest after
        L.extend(gq)
        gq = []
    for r in range(BR):
        d(f"lsc_load.ugm (M1_NM, 1) xR{r}:{bmsg} flat[xb{r}]:a64")
    for j in range(NL):
        d(f"svm_gather4scaled.RGBA (M1, 8) 0x0:uq xl{j}.0 xL{j}.0")
        L.extend(gq[:1])
        del gq[:1]
        d(f"svm_gather4scaled.RGBA (M1, 8) 0x0:uq xm{j}.0 xH{j}.0")
        L.extend(gq[:1])
        del gq[:1]
    L.extend(gq)
    # each row pair (r even): row r's read is in a temporary pair U, row r + 1's in hi[r], hi[r + 1]
    # (its low half in hi[r]); lo[r] <- U, lo[r + 1] <- hi[r], hi[r] <- U + 1, each step for all pairs
    # before the next: no mov waits on both a read and the mov before it
    sw = [(16 * (i // 8) + i % 8, 16 * (i // 8) + 8 + i % 8, i) for i in range(0, NA if pairs else 0, 2)]
    for lo, hi, i in sw:
        d(f"mov (M1, 8) xA({lo},0)<1> xU{i // 2}(0,0)<1;1,0>")
    for lo, hi, i in sw:
        d(f"mov (M1, 8) xA({lo + 1},0)<1> xA({hi},0)<1;1,0>")
    for lo, hi, i in sw:
        d(f"mov (M1, 8) xA({hi},0)<1> xU{i // 2}(1,0)<1;1,0>")
    for q in range(2 if pf else 0):
        t = lambda i: f"xt{q}_{i}(0,0)<1>"
        u = lambda i: f"xt{q}_{i}(0,0)<1;1,0>"
        if pfif and q == 1:
            d("and (M1,1) xq(0,0)<1> xk(0,0)<0;1,0> 0x7f:d")
            d("cmp.eq (M1,1) xp xq(0,0)<0;1,0> 0x0:d")
            d("(!xp) jmp (M1,1) xs0")
            d("lsc_fence.slm.none.group")
            d("barrier")
        d(f"mul (M1, 8) {t(1)} xc{1 if pfif and q == 1 else 0}(0,0)<0;1,0> {eb:#x}:ud")
        d(f"add (M1, 8) {t(2)} {u(1)} {u(0)}")
        d(f"cmp.lt (M1, 8) {t(4)} {u(2)} {u(3)}")
        d(f"and (M1, 8) {t(6)} {u(5)} {u(4)}")
        d(f"add (M1, 8) {t(8)} {u(7)} {u(2)}")
        d(f"and (M1, 8) {t(9)} {u(8)} 0xfffffffc:ud")
        d(f"and (M1, 8) {t(10)} {u(9)} {u(6)}")
        d(f"mov (M1, 8) {t(11)} {u(10)}")
        d(f"add (M1, 8) {t(13)} {u(12)} {u(11)}")
        d(f"lsc_load.ugm.{('ca.ca', 'uc.ca')[q]} (M1, 8) %null:d32 flat[xt{q}_13]:a64")
        if pfif and q == 1:
            d("add (M1,1) xc1(0,0)<1> xc1(0,0)<0;1,0> 128:d")
            d("xs0:")
    epr = GRF // eb
    for h2 in range(0 if bt else KH):  # B operand (half h2, column block t) at register 8 (h2 NB + t)
        for t in range(NB):
            for i in range(8):
                for h in range(pack):
                    row = 8 * pack * h2 + pack * i + h
                    off = row * G * epr + t * 8  # columns 8t..8t+7
                    d(f"mov (M1, 8) xB({8 * (h2 * NB + t) + i},{h})<{pack}> xR({off // epr},{off % epr})<1;1,0>")
    o = 0
    for a in range(MB):
        for t in range(NB):
            for h2 in range(KH):
                a_op = (f"xA({9 * a},0)" if h2 == 0 else f"xY({8 * a},0)") if serial else f"xA({8 * (a * KH + h2)},0)"
                b_op = f"xL{t * KH + h2}.0" if bt else f"xBd.{8 * GRF * (h2 * NB + t)}"
                d(f"dpas.{T}.{T}.8.8 (M1, 8) ${o}.0 ${o}.0 {b_op} {a_op}")
            o += 1
    for i in range(NA):
        d(f"add (M1_NM, 1) xa{i}(0,0)<1> xa{i}(0,0)<0;1,0> {KS * eb:#x}:uq")
    for q in range(NGA // 2):
        d(f"add (M1_NM, 16) {f'xW{q}' if q else 'xV'}(0,0)<1> {f'xW{q}' if q else 'xV'}(0,0)<1;1,0> {KS * eb:#x}:uq")
    for r in range(BR):
        d(f"add (M1_NM, 1) xb{r}(0,0)<1> xb{r}(0,0)<0;1,0> ${bst}(0,0)<0;1,0>")
    for j in range(NL):
        d(f"add (M1, 8) xl{j}(0,0)<1> xl{j}(0,0)<1;1,0> {KS * eb:#x}:uq")
        d(f"add (M1, 8) xm{j}(0,0)<1> xm{j}(0,0)<1;1,0> {KS * eb:#x}:uq")
    if pf:
        d(f"add (M1,1) xc0(0,0)<1> xc0(0,0)<0;1,0> {KS}:d")
    if addrend:
        d(f"cmp.lt (M1,1) xp {w}(0,0)<0;1,0> xe(0,0)<0;1,0>")
    else:
        d(f"add (M1,1) xk(0,0)<1> xk(0,0)<0;1,0> {KS}:d")
        d(f"cmp.lt (M1,1) xp xk(0,0)<0;1,0> ${kin}(0,0)<0;1,0>")
    d("(xp) jmp (M1,1) xloop")
    d("xend:")
    return L


def fma_statement(M, N, KS=8, bt=False):
    """The f32 FMA GEMM's K loop (no DPAS for f32; sg_gemm_f32, gemm_splitk, gemm_acc): per K step M A
    row reads of KS f32 (`d32x8t`: register xA<i>, dword k = A(i, k)), KS B row reads of N f32
    (`d32x8t`/`d32x16t`: register t of xR<k> holds B(k, 8t..8t+7), lane n = column 8t + n) and one
    `mad (M1, 8)` per (k, i, t): C(i, 8t + n) += A(i, k) * B(k, 8t + n), A(i, k) a scalar region
    <0;1,0> of the row's register (the broadcast: no copy), B the whole register, C register i of the
    output of column block t and row block i / 8 (tied, in place); one 64-bit add per message, the
    counter's add, cmp.lt and jmp. bt (gemm_bt: B given as B^T, N x K): column block t is one lane
    read, lane n at its own address (row 8t + n of B^T), its KS = 8 f32 read by two SIMD8 A64 untyped
    reads of 4 dwords (`svm_gather4scaled.RGBA (M1, 8) 0x0:uq xl<t>.0 xL<t>.0`, dwords 0-3, and the
    same from xm<t> = xl<t> + 16 into xH<t> = registers 4-7 of xL<t>): register k of xL<t> holds
    dword k of every lane = B^T(8t + n, k) = B(k, 8t + n), the mad's B (`xLf<t>(k,0)`, an f view);
    each lane address advances by one `add (M1, 8) … :uq` (KS f32 = 32 bytes) per step."""
    assert M % 8 == 0 and N in (8, 16) and KS == 8
    G = N // 8  # B registers per row
    bmsg = {1: "d32x8t", 2: "d32x16t"}[G]
    MB, NB = M // 8, N // 8
    NO = MB * NB
    BR = 0 if bt else KS  # B row reads
    L = []
    d = L.append
    d(f".decl xa v_type=G type=uq num_elts={4 * M} align=GRF")
    if not bt:
        d(f".decl xb v_type=G type=uq num_elts={4 * KS} align=GRF")
    d(f".decl xA v_type=G type=ud num_elts={8 * M} align=GRF")
    d(f".decl xAf v_type=G type=f num_elts={8 * M} align=GRF alias=<xA,0>")
    if not bt:
        d(f".decl xR v_type=G type=ud num_elts={8 * G * KS} align=GRF")
        d(f".decl xRf v_type=G type=f num_elts={8 * G * KS} align=GRF alias=<xR,0>")
    for j in range(NB if bt else 0):
        d(f".decl xl{j} v_type=G type=uq num_elts=8 align=GRF")
        d(f".decl xm{j} v_type=G type=uq num_elts=8 align=GRF")
        d(f".decl xL{j} v_type=G type=ud num_elts=64 align=GRF")
        d(f".decl xH{j} v_type=G type=ud num_elts=32 align=GRF alias=<xL{j},{4 * GRF}>")
        d(f".decl xLf{j} v_type=G type=f num_elts=64 align=GRF alias=<xL{j},0>")
    d(".decl xk v_type=G type=d num_elts=1 align=dword")
    d(".decl xp v_type=P num_elts=1")
    for i in range(M):
        d(f".decl xa{i} v_type=G type=uq num_elts=1 alias=<xa,{GRF * i}>")
        d(f".decl xA{i} v_type=G type=ud num_elts=8 align=GRF alias=<xA,{GRF * i}>")
    for r in range(BR):
        d(f".decl xb{r} v_type=G type=uq num_elts=1 alias=<xb,{GRF * r}>")
        d(f".decl xR{r} v_type=G type=ud num_elts={8 * G} align=GRF alias=<xR,{GRF * G * r}>")
    NBI = NB if bt else KS // 8  # B inputs: per-lane addresses of 8 B rows, or of one lane read
    ai = [2 * NO + g for g in range(MB)]
    bi = [2 * NO + MB + g for g in range(NBI)]
    kin = 2 * NO + MB + NBI
    bst = kin + 1
    for g in range(MB):
        for q in range(4):
            d(f"mov (M1_NM, 2) xa({8 * g + 2 * q},0)<4> ${ai[g]}(0,{2 * q})<1;1,0>")
    for g in range(BR // 8):
        for q in range(4):
            d(f"mov (M1_NM, 2) xb({8 * g + 2 * q},0)<4> ${bi[g]}(0,{2 * q})<1;1,0>")
    for j in range(NB if bt else 0):
        d(f"mov (M1, 8) xl{j}(0,0)<1> ${bi[j]}(0,0)<1;1,0>")
        d(f"add (M1, 8) xm{j}(0,0)<1> ${bi[j]}(0,0)<1;1,0> 0x10:uq")
    d("mov (M1,1) xk(0,0)<1> 0x0:d")
    d(f"cmp.lt (M1,1) xp xk(0,0)<0;1,0> ${kin}(0,0)<0;1,0>")
    d("(!xp) jmp (M1,1) xend")
    d("xloop:")
    for i in range(M):
        d(f"lsc_load.ugm (M1_NM, 1) xA{i}:d32x8t flat[xa{i}]:a64")
    for r in range(BR):
        d(f"lsc_load.ugm (M1_NM, 1) xR{r}:{bmsg} flat[xb{r}]:a64")
    for j in range(NB if bt else 0):
        d(f"svm_gather4scaled.RGBA (M1, 8) 0x0:uq xl{j}.0 xL{j}.0")
        d(f"svm_gather4scaled.RGBA (M1, 8) 0x0:uq xm{j}.0 xH{j}.0")
    for k in range(KS):
        for i in range(M):
            for t in range(NB):
                o = (i // 8) * NB + t
                b = f"xLf{t}({k},0)" if bt else f"xRf({G * k + t},0)"
                d(f"mad (M1, 8) ${o}({i % 8},0)<1> xAf({i},{k})<0;1,0> {b}<1;1,0> ${o}({i % 8},0)<1;1,0>")
    for i in range(M):
        d(f"add (M1_NM, 1) xa{i}(0,0)<1> xa{i}(0,0)<0;1,0> {KS * 4:#x}:uq")
    for r in range(BR):
        d(f"add (M1_NM, 1) xb{r}(0,0)<1> xb{r}(0,0)<0;1,0> ${bst}(0,0)<0;1,0>")
    for j in range(NB if bt else 0):
        for h in "lm":
            d(f"add (M1, 8) x{h}{j}(0,0)<1> x{h}{j}(0,0)<1;1,0> {KS * 4:#x}:uq")
    d(f"add (M1,1) xk(0,0)<1> xk(0,0)<0;1,0> {KS}:d")
    d(f"cmp.lt (M1,1) xp xk(0,0)<0;1,0> ${kin}(0,0)<0;1,0>")
    d("(xp) jmp (M1,1) xloop")
    d("xend:")
    return L


def llvm(M, N, KS, T, serial=False, bt=False, pf=False, pairs=False, pfif=False, addrend=False, gathers=False):
    eb = 1 if T == "s8" else 2
    MB, NB = M // 8, N // 8
    NO = MB * NB
    KH = 1 if T == "f" else KS * eb // 32  # f32 B^T: one lane read of KS = 8 dwords per column block
    AKH = 1 if serial or pairs or T == "f" else KH  # serial, pairs, f32: whole rows, one address group per row block
    lines = fma_statement(M, N, KS, bt) if T == "f" else statement(M, N, KS, T, serial, bt, pf or pfif, pairs, pfif, addrend, gathers)
    NAI = 1 + MB if gathers else MB * AKH  # A inputs
    text = "{\\0A" + "\\0A".join(lines) + "\\0A}\\0A"
    V = f"<8 x {'i32' if T == 's8' else 'float'}>"
    S = "{ " + ", ".join([V] * NO) + " }"
    NBI = NB * KH if bt else KS // 8
    cons = ",".join(["=rw"] * NO + [str(o) for o in range(NO)] + ["rw"] * (NAI + NBI) + ["rw.u"] * (1 if bt else 2) +
                    (["rw.u"] + ["rw"] * 10 if pf or pfif else []))
    pfargs = ["i32 0"] + ["i32 0", "i32 %pw", "i32 -1", "i32 %prow", "i64 %ai"] * 2 if pf or pfif else []
    args = ", ".join([f"{V} zeroinitializer"] * NO + ([f"i64 %gv"] + [f"i64 %go{a}" for a in range(MB)] if gathers else [f"i64 %aa{g}x" for g in range(MB * AKH)]) + [f"i64 %bb{g}" for g in range(NBI)] +
                     ["i32 %K"] + ([] if bt else ["i64 %bstep"]) + pfargs)
    body = []
    for g in range(MB * AKH):  # row block g // AKH, K half g % AKH (32 bytes further)
        body.append(f"  %ar{g} = add i64 %lane, {8 * (g // AKH)}\n  %ao{g} = mul i64 %ar{g}, %lda\n"
                    f"  %aa{g} = add i64 %ai, %ao{g}\n  %aa{g}x = add i64 %aa{g}, {32 * (g % AKH)}")
    if gathers:  # xV's lanes 0-7: row 0 + 4 lane; row block a's offsets from row 0: (8 a + lane) lda
        body.append("  %gl = shl i64 %lane, 2\n  %gv = add i64 %ai, %gl")
        for a in range(MB):
            body.append(f"  %gr{a} = add i64 %lane, {8 * a}\n  %go{a} = mul i64 %gr{a}, %lda")
    for g in range(NBI):  # B rows 8g + lane; bt: B^T row 8 (g / KH) + lane, K half g % KH
        r, x = (8 * (g // KH), 32 * (g % KH)) if bt else (8 * g, 0)
        body.append(f"  %br{g} = add i64 %lane, {r}\n  %bo{g} = mul i64 %br{g}, %ldb\n  %bc{g} = add i64 %bi, %bo{g}\n"
                    f"  %bb{g} = add i64 %bc{g}, {x}")
    stores = []
    for o in range(NO):
        stores.append(f"  %c{o} = extractvalue {S} %r, {o}\n  %i{o} = bitcast {V} %c{o} to <8 x i32>\n"
                      f"  %p{o} = getelementptr i32, i32 addrspace(1)* %C, i64 {64 * o}\n"
                      f"  call spir_func void @_Z28intel_sub_group_block_write8PU3AS1jDv8_j(i32 addrspace(1)* %p{o}, <8 x i32> %i{o})")
    nl = "\n"
    return f'''target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
declare spir_func i32 @_Z22get_sub_group_local_idv()
declare spir_func void @_Z28intel_sub_group_block_write8PU3AS1jDv8_j(i32 addrspace(1)*, <8 x i32>)
define spir_kernel void @loop_{T}_{M}x{N}{'_bt' if bt else ''}(i8 addrspace(1)* %A, i8 addrspace(1)* %B, i32 addrspace(1)* %C, i32 %K, i64 %lda, i64 %ldb) !intel_reqd_sub_group_size !0 {{
  %lane32 = call spir_func i32 @_Z22get_sub_group_local_idv()
  %lane = zext i32 %lane32 to i64
  %ai = ptrtoint i8 addrspace(1)* %A to i64
  %bi = ptrtoint i8 addrspace(1)* %B to i64
{nl.join(body)}
  %bstep = mul i64 %ldb, {KS}
  %pw = trunc i64 %lda to i32
  %lane32x = trunc i64 %lane to i32
  %prow = mul i32 %lane32x, %pw
  %r = call {S} asm sideeffect "{text}", "{cons}"({args})
{nl.join(stores)}
  ret void
}}
!0 = !{{i32 8}}
'''


# ---- the model ---------------------------------------------------------------------------------
TS = {"ud": 4, "d": 4, "uq": 8, "q": 8, "uw": 2, "ub": 1, "f": 4}


def f32(x):  # x rounded to f32 (exact when x is a sum of two f32 whose exponents are close, as here)
    return struct.unpack("<f", struct.pack("<f", x))[0]


def half(bits):
    return struct.unpack("<e", bits.to_bytes(2, "little"))[0]


def bf16(bits):
    return struct.unpack("<f", (bits << 16).to_bytes(4, "little"))[0]


class _Any:
    """A prefetch address expression's ANY: equal to every address (the line's runs still count)."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


ANY = _Any()
OFF = "off"  # a prefetch lane whose predicate is off (it sends nothing): a walked prefetch's lane outside


def simulate(lines, M, N, KS, T, K, seed, roles=None, block=None, bt=False, pf=None, barrier=None, ldb=None, cell=None,
             back=False, ksets=1):
    """Runs the statement on random A (M x K) and B (K x N) in a byte memory with padded pitches;
    returns the number of output elements that differ from C = A x B (computed here in Python
    arithmetic from the same element values; TYPE f bit for bit: each multiply-add rounded to f32 in
    k order, as a chain of f32 fma, so a statement that reorders an accumulator's mads differs; with
    ksets = 2 two such chains, the even k from C's initial value and the odd k from -0.0, then their
    f32 sum: the FMA statement's two accumulator sets). `roles` names the inputs after the tied initial
    values: "A" / "B" (the per-lane row addresses of the next 8 rows of A / B at column 0, lane l =
    row 8g + l), "A+BYTES" (the last "A" rows' addresses BYTES further: a 64-byte row's second half), "K" (the trip bound), "lb" (the counter's start, 0), "span=BYTES" (a
    counter-free loop's end: the K steps, ceil(K / KSTEP), times the BYTES one step advances the
    address the loop ends on), "bstep" (B's bytes per step); back: the "A"/"B"/"T" addresses are one K
    step before the first step's (a statement whose address adds open each step);
    default this generator's order. `block(o)` is the (row block, column block) of C that output o
    holds; default o = row block * N / 8 + column block; or `cell(o, r)` the (C row, column block) of
    output o's register r (the FMA statement's SIMD16 pairs: a row's column blocks side by side). bt: B is stored transposed (B^T, N x K) and
    the role "T" ("T+BYTES") is the per-lane address of one lane read: lane l = row 8g + l of B^T at
    column 0 (BYTES further), g counting the "T" roles. The roles "V32=EXPR", "V64=EXPR" (per lane)
    and "U32=EXPR", "U64=EXPR" (uniform) give a value by a Python expression of l (the lane), A, B (the buffers'
    addresses), lda, ldb, K, T (the trip count). pf: per prefetch line of the text (in text order), an expression of k
    (its executions so far), s (the K step), l, A, B, lda, ldb, K: the address it must prefetch, or
    None in a step it must not run in, OFF in a lane that must send nothing (a predicated send's lane
    off); each execution and the count are checked. barrier: a function
    of the number of K steps giving how many `barrier` lines must execute (unchecked when None).
    The execution mask is a SIMD8 dispatch's with every lane on: a masked op (M1, n) runs channels
    0-7 only (a masked SIMD16 pair leaves its second register unwritten), a NoMask (M1_NM, n) all n."""
    eb = {"s8": 1, "f": 4}.get(T, 2)
    rnd = random.Random(seed)

    def chans(mask, n):  # channels run: a SIMD8 dispatch (every lane on) enables 0-7; NoMask runs all n
        return int(n) if mask == "M1_NM" else min(int(n), 8)
    lda, ldb = K * eb + 64, ldb or ((K * eb + 32) if bt else (N * eb + 32))
    Abase, Bbase = 0x10000, 0x400000
    mem = {}

    def element():
        if T == "s8":
            v = rnd.choice([x for x in range(-128, 128) if x])
            return v, v & 255
        if T == "f":
            b = int.from_bytes(struct.pack("<f", rnd.uniform(-2, 2)), "little")
            return struct.unpack("<f", b.to_bytes(4, "little"))[0], b
        while True:
            x = rnd.uniform(-2, 2)
            if T == "hf":
                b = int.from_bytes(struct.pack("<e", x), "little")
                v = half(b)
            else:
                b = int.from_bytes(struct.pack("<f", x), "little") >> 16
                v = bf16(b)
            if v != 0:
                return v, b

    Av = [[0] * K for _ in range(M)]
    Bv = [[0] * N for _ in range(K)]
    for rows, cols, vals, base, pitch, tr in ((M, K, Av, Abase, lda, False), (K, N, Bv, Bbase, ldb, bt)):
        for i in range(rows):
            for j in range(cols):
                v, b = element()
                vals[i][j] = v
                at = base + (j * pitch + i * eb if tr else i * pitch + j * eb)
                for y in range(eb):
                    mem[at + y] = (b >> (8 * y)) & 255
    MB, NB = M // 8, N // 8
    NO = MB * NB
    regs, types, alias, pred = {}, {}, {}, {}
    acct = "d" if T == "s8" else "f"  # TYPE f: f32 FMA (fma_statement)
    # C's initial value 0, but -0.0 for TYPE f without a step: its sign must survive (x + -0.0 = x)
    c0 = -0.0 if T == "f" and K == 0 else 0.0
    for o in range(NO):
        regs[f"${o}"] = bytearray(struct.pack("<f", c0) * (2 * GRF)) if T == "f" else bytearray(8 * GRF)
        types[f"${o}"] = acct
    n = 2 * NO  # operands NO..2NO-1 are the tied initial values: the outputs' own registers
    KH = KS * eb // 32
    if roles is None:
        roles = ["A" if h == 0 else "A+32" for _ in range(MB) for h in range(KH)]
        roles += ["T" if h == 0 else "T+32" for _ in range(NB) for h in range(KH)] + ["K"] if bt else ["B"] * (KS // 8) + ["K", "bstep"]
    groups = {"A": 0, "B": 0, "T": 0}
    for role in roles:
        if role[0] in groups and role[1:2] in ("", "+"):
            base, pitch = (Abase, lda) if role[0] == "A" else (Bbase, ldb)
            extra = int(role[2:]) if role[1:] else 0
            if not extra:
                groups[role[0]] += 1
            g = groups[role[0]] - 1
            if back:  # one K step before the loop's first: A's and B^T's columns, B's rows
                extra -= KS * eb if role[0] in "AT" else KS * pitch
            regs[f"${n}"] = bytearray(b"".join((base + (8 * g + l) * pitch + extra).to_bytes(8, "little") for l in range(8)))
            types[f"${n}"] = "uq"
        elif role[:4] in ("V32=", "V64=", "U32=", "U64="):
            env = {"A": Abase, "B": Bbase, "lda": lda, "ldb": ldb, "K": K, "T": -(-K // KS)}
            w = 8 if role[1:3] == "64" else 4
            regs[f"${n}"] = bytearray(b"".join((eval(role[4:], {}, dict(env, l=l)) % (1 << 8 * w)).to_bytes(w, "little") for l in range(8)))
            types[f"${n}"] = "q" if w == 8 else "d"
        elif role in ("K", "lb"):
            regs[f"${n}"] = bytearray((K if role == "K" else 0).to_bytes(4, "little"))
            types[f"${n}"] = "d"
        elif role.startswith("span="):  # the bytes a walked address covers over the whole loop
            regs[f"${n}"] = bytearray((-(-K // KS) * int(role[5:])).to_bytes(8, "little"))
            types[f"${n}"] = "uq"
        else:
            assert role == "bstep", role
            regs[f"${n}"] = bytearray((KS * ldb).to_bytes(8, "little"))
            types[f"${n}"] = "uq"
        n += 1
    # Row gathers (the row pairs' form since issue 11's session 19) take A's rows as V64 roles instead.
    # Lane reads addressed from another's (Dg2VisaFmaLoop.cpp's derived addresses, issue 10) take no
    # "T" role but a uniform offset (U64).
    want = {"A": MB, "B": 0, "T": NB} if bt else {"A": MB, "B": KS // 8, "T": 0}
    derived = bt and any(r.startswith("U64=") for r in roles)
    assert groups == want or groups == dict(want, A=0) or derived and 0 < groups["T"] <= NB and groups["A"] in (0, MB), groups

    def loc(name):
        return alias.get(name, (name, 0))

    def rd(root, off, t):
        b = bytes(regs[root][off:off + TS[t]])
        assert len(b) == TS[t], f"read past {root}"
        if t == "f":
            return struct.unpack("<f", b)[0]
        return int.from_bytes(b, "little", signed=t in ("d", "q"))

    def wr(root, off, t, v):
        assert off + TS[t] <= len(regs[root]), f"write past {root}"
        if t == "f":
            regs[root][off:off + 4] = struct.pack("<f", v)
        else:
            regs[root][off:off + TS[t]] = (v % (1 << (8 * TS[t]))).to_bytes(TS[t], "little")

    labels = {l[:-1]: i for i, l in enumerate(lines) if re.match(r"^\w+:$", l)}
    pflines = [i for i, l in enumerate(lines) if re.match(r"^(\(\w+\) )?lsc_load\.ugm\.", l) and "%null" in l]
    # A step written more than once (a two-step loop and its odd-count step: Dg2VisaLoop.cpp) has its
    # prefetch lines once per copy: line j is prefetch j % (the expressions given), and k counts that
    # prefetch's executions over every copy.
    npf = len(pf) if pf else max(len(pflines), 1)
    assert len(pflines) % npf == 0, "prefetch lines not a multiple of the expressions"
    pfdone = {j: 0 for j in range(npf)}  # executions so far
    pfbad = 0
    opnd = re.compile(r"^(\$?\w+)\((\d+),(\d+)\)(?:<(\d+)>|<(\d+);(\d+),(\d+)>)$")

    def addr(name, r, c):
        root, off = loc(name)
        return root, off + r * GRF + c * TS[types[name]]

    def src(s, i):
        m = re.match(r"^(0x[0-9a-f]+|\d+):(\w+)$", s)
        if m:  # an immediate; an f one is the float's bits (vISA: 0x80000000:f is -0.0)
            v = int(m.group(1), 0)
            return struct.unpack("<f", v.to_bytes(4, "little"))[0] if m.group(2) == "f" else v
        m = opnd.match(s)
        name, r, c = m.group(1), int(m.group(2)), int(m.group(3))
        vs, w, hs = int(m.group(5)), int(m.group(6)), int(m.group(7))
        return rd(*addr(name, r, c + (i // w) * vs + (i % w) * hs), types[name])

    pc, steps, step, barriers = 0, 0, 0, 0
    while pc < len(lines):
        l = lines[pc]
        pc += 1
        steps += 1
        # A loop that does not end (its end test on an address that never moves): 4 steps past the
        # trip count are enough to tell (fewer extra steps change C: the memory past K is not 0).
        if steps >= 10 ** 6 or step > -(-K // KS) + 4:
            print(f"note: {T} {M}x{N} K={K}: the loop does not end (counted as every element wrong, + 1)")
            return M * N + 1
        if re.match(r"^\w+:$", l):
            continue
        m = re.match(r"^\.decl (\w+) v_type=(\w)(?: type=(\w+))? num_elts=(\d+)(?: align=\w+)?(?: alias=<(\w+),(\d+)>)?$", l)
        if m:
            name, vt, t, cnt, base, off = m.groups()
            if vt == "P":
                pred[name] = False
            elif base:
                types[name] = t
                r, o = loc(base)
                alias[name] = (r, o + int(off))
            else:
                types[name] = t
                regs[name] = bytearray(int(cnt) * TS[t])
            continue
        m = re.match(r"^(?:\((!?)(\w+)\) )?jmp \(M1,1\) (\w+)$", l)
        if m:
            if m.group(2) is None or pred[m.group(2)] != (m.group(1) == "!"):
                step += labels[m.group(3)] < pc  # a backward jump: the next K step
                pc = labels[m.group(3)]
            continue
        m = re.match(r"^cmp\.(lt|eq|ne) \(M1,1\) (\w+) (\S+) (\S+)$", l)
        if m:
            a, b = src(m.group(3), 0), src(m.group(4), 0)
            pred[m.group(2)] = {"lt": a < b, "eq": a == b, "ne": a != b}[m.group(1)]
            continue
        if l in ("lsc_fence.slm.none.group", "barrier"):  # one subgroup: nothing to wait for; counted
            barriers += l == "barrier"
            continue
        m = re.match(r"^cmp\.(lt|le|gt|ge|eq|ne) \(M1, 8\) (\w+(?:\(\S+)?) (\S+) (\S+)$", l)
        if m:  # a general destination: all ones where true, else 0; a predicate: per lane
            rel, dst, s0, s1 = m.groups()
            fn = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
                  "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}[rel]
            if "(" not in dst:
                pred[dst] = [fn(src(s0, i), src(s1, i)) for i in range(8)]
                continue
            dm = opnd.match(dst)
            for i in range(8):
                wr(*addr(dm.group(1), int(dm.group(2)), int(dm.group(3)) + i), types[dm.group(1)], -1 if fn(src(s0, i), src(s1, i)) else 0)
            continue
        m = re.match(r"^(?:\((\w+)\) )?lsc_load\.ugm\.(ca\.ca|uc\.ca) \(M1, 8\) %null:d32 flat\[(\w+)\]:a64$", l)
        if m:  # a per-lane prefetch, predicated or not: checked against the expected line address
            j = pflines.index(pc - 1) % npf
            for lane in range(8):
                on = m.group(1) is None or pred[m.group(1)][lane]
                got = rd(*addr(m.group(3), 0, lane), types[m.group(3)]) if on else OFF
                if pf is not None:
                    env = {"A": Abase, "B": Bbase, "lda": lda, "ldb": ldb, "K": K, "k": pfdone[j], "l": lane, "s": step, "ANY": ANY,
                           "OFF": OFF}
                    pfbad += got != eval(pf[j], {}, env)  # None (a step it must skip) never equals
            pfdone[j] += 1
            continue
        m = re.match(r"^mad \((M1|M1_NM), ?(\d+)\) (\S+) (\S+) (\S+) (\S+)$", l)
        if m:  # dst = s0 * s1 + s2, one rounding (f32 products are exact in a double)
            mask, cnt, dst, s0, s1, s2 = m.groups()
            cnt = chans(mask, cnt)
            dm = opnd.match(dst)
            dn, dr, dc, ds = dm.group(1), int(dm.group(2)), int(dm.group(3)), int(dm.group(4))
            vals = [src(s0, i) * src(s1, i) + src(s2, i) for i in range(int(cnt))]
            for i, v in enumerate(vals):
                wr(*addr(dn, dr, dc + i * ds), types[dn], v)
            continue
        m = re.match(r"^(mov|add|mul|and|or|xor|shr|shl|min) \((M1|M1_NM), ?(\d+)\) (\S+) (\S+)(?: (\S+))?$", l)
        if m:
            op, mask, cnt, dst, s0, s1 = m.groups()
            cnt = chans(mask, cnt)
            dm = opnd.match(dst)
            dn, dr, dc, ds = dm.group(1), int(dm.group(2)), int(dm.group(3)), int(dm.group(4))
            fn = {"mov": lambda a, b: a, "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "and": lambda a, b: a & b,
                  "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b, "shr": lambda a, b: a >> b, "shl": lambda a, b: a << b,
                  "min": min}[op]  # min: of the values as their types read them (ud, uq unsigned)
            vals = [fn(src(s0, i), src(s1, i) if s1 else 0) for i in range(int(cnt))]
            for i, v in enumerate(vals):
                wr(*addr(dn, dr, dc + i * ds), types[dn], v)
            continue
        m = re.match(r"^lsc_load\.ugm \(M1_NM, 1\) (\w+):d32x(\d+)t flat\[(\w+)\]:a64$", l)
        if m:
            dst, cnt, a = m.group(1), int(m.group(2)), m.group(3)
            at = rd(*addr(a, 0, 0), "uq")
            root, off = addr(dst, 0, 0)
            assert off + 4 * cnt <= len(regs[root]), f"load past {root}"
            for y in range(4 * cnt):
                regs[root][off + y] = mem.get(at + y, PAD)
            continue
        m = re.match(r"^svm_gather4scaled\.(R?G?B?A?) \((M1|M1_NM), (8|16)\) (\S+) (\w+)\.0 (\w+)\.0$", l)
        if m:  # SIMD8/16 A64 untyped read: lane l at its own address (qword l of the address operand)
            # plus the message's offset (a uniform qword: an immediate or a scalar region); the response
            # in SoA order: dword c of lane l at dword c * n + l (n lanes: c in registers c for SIMD8,
            # 2c and 2c + 1 for SIMD16; vISA's svm_gather4scaled)
            cnt, n, a, dst = len(m.group(1)), int(m.group(3)), m.group(5), m.group(6)
            goff = src(m.group(4), 0)
            active = chans(m.group(2), n)
            assert m.group(1) == "RGBA"[:cnt], l
            root, off = addr(dst, 0, 0)
            assert off + 4 * n * cnt <= len(regs[root]), f"load past {root}"
            for lane in range(active):
                at = rd(*addr(a, 0, lane), "uq") + goff
                for v in range(cnt):
                    for y in range(4):
                        regs[root][off + 4 * (n * v + lane) + y] = mem.get(at + 4 * v + y, PAD)
            continue
        m = re.match(r"^dpas\.(\w+)\.\w+\.8\.8 \(M1, 8\) (\$\d+)\.0 (\$\d+)\.0 (\w+)\.(\d+) (\w+)\((\d+),0\)$", l)
        if m:
            t, dst, s0, bn, boff, an, ar = m.groups()
            broot, bo = loc(bn)
            bo += int(boff)
            aroot, ao = addr(an, int(ar), 0)
            bits = 8 if t == "s8" else 16

            def part(word, h):
                x = (word >> (bits * h)) & ((1 << bits) - 1)
                if t == "s8":
                    return x - 256 if x >= 128 else x
                return half(x) if t == "hf" else bf16(x)

            def dword(root, off):
                assert off + 4 <= len(regs[root]), f"operand past {root}"
                return int.from_bytes(regs[root][off:off + 4], "little")

            res = []
            for mr in range(8):
                for lane in range(8):
                    s = rd(s0, 4 * (8 * mr + lane), types[s0])
                    for i in range(8):  # B register i lane n; A register mr dword i
                        bw = dword(broot, bo + GRF * i + 4 * lane)
                        aw = dword(aroot, ao + GRF * mr + 4 * i)
                        for h in range(32 // bits):
                            s += part(aw, h) * part(bw, h)
                    res.append(s)
            for idx, v in enumerate(res):
                wr(dst, 4 * idx, types[dst], v)
            continue
        raise SystemExit(f"dg2_visa_loop: the model does not know the line: {l}")
    bad = pfbad
    def runs(j):  # the steps prefetch line j must run in: those its expression is not None for
        env = {"A": Abase, "B": Bbase, "lda": lda, "ldb": ldb, "K": K, "k": 0, "l": 0, "ANY": ANY, "OFF": OFF}
        return sum(eval(pf[j], {}, dict(env, s=s)) is not None for s in range(max(K // KS, 0)))
    if pf is not None and any(pfdone[j] != runs(j) for j in range(npf)):
        bad += 1  # a prefetch that did not run once per step (or per step its expression names)
    if barrier is not None and barriers != barrier(max(K // KS, 0)):
        bad += 1  # barriers executed: barrier(steps) expected
    for o in range(NO):
        a, t = block(o) if block else divmod(o, NB)
        for mr in range(8):
            row, t = cell(o, mr) if cell else (8 * a + mr, t)
            for nn in range(8):
                got = rd(f"${o}", 4 * (8 * mr + nn), types[f"${o}"])
                if T == "f":  # f32 FMA: one rounding per multiply-add, in k order, so the result is exact
                    chain = [c0, -0.0][:ksets]
                    for k in range(K):
                        chain[k % ksets] = f32(Av[row][k] * Bv[k][8 * t + nn] + chain[k % ksets])
                    want = f32(chain[0] + chain[1]) if ksets == 2 else chain[0]  # the sets' f32 add
                    bad += got != want or math.copysign(1, got) != math.copysign(1, want)
                    continue
                want = sum(Av[row][k] * Bv[k][8 * t + nn] for k in range(K))
                bad += got != want if T == "s8" else abs(got - want) > 1e-3 * (1 + abs(want))
    return bad


SHAPES = [(8, 32, 16, "hf"), (16, 32, 16, "hf"), (16, 16, 32, "s8"), (8, 16, 16, "bf"), (16, 16, 32, "bf")]
BT_SHAPES = [(16, 16, 32, "hf"), (8, 16, 32, "hf"), (8, 16, 16, "bf"), (16, 16, 32, "s8")]  # B from B^T
FMA_SHAPES = [(8, 16, 8), (16, 16, 8), (8, 8, 8)]  # sg_gemm_f32 / gemm_splitk, gemm_acc's subgroup tile, one column block
FMA_BT_SHAPES = [(8, 16, 8), (16, 16, 8)]  # gemm_bt (B^T by lane reads), and two row blocks


def fma_mutations(lines):
    """fma_statement texts with one plausible mistake each; every one must make the model disagree."""
    out = []
    md = [i for i, l in enumerate(lines) if l.startswith("mad ")]
    out.append(("A element from the wrong lane", md[0], lines[md[0]].replace("xAf(0,0)", "xAf(0,1)")))
    out.append(("A element of the wrong row", md[0], lines[md[0]].replace("xAf(0,0)", "xAf(1,0)")))
    if "xRf(0,0)" in lines[md[0]]:
        out.append(("B from the wrong row", md[0], lines[md[0]].replace("xRf(0,0)", "xRf(2,0)")))
    out.append(("into the wrong accumulator register", md[0], lines[md[0]].replace("$0(0,0)<1> ", "$0(1,0)<1> ")))
    ad = [i for i, l in enumerate(lines) if l.startswith("add (M1_NM, 1) xa0(")]
    out.append(("A row address not advanced", ad[0], re.sub(r"0x[0-9a-f]+:uq", "0x0:uq", lines[ad[0]])))
    ad = [i for i, l in enumerate(lines) if l.startswith("add (M1_NM, 1) xb3(")]
    if ad:
        out.append(("B row address not advanced", ad[0], re.sub(r"\$\d+\(0,0\)<0;1,0>$", "0x0:uq", lines[ad[0]])))
    else:  # B^T lane reads
        out.append(("B from the wrong lane read", md[0], lines[md[0]].replace("xLf0(0,0)", "xLf1(0,0)")))
        out.append(("B from the wrong K register", md[0], lines[md[0]].replace("xLf0(0,0)", "xLf0(4,0)")))
        ad = [i for i, l in enumerate(lines) if l.startswith("add (M1, 8) xm0(0,0)<1> xm0")]
        out.append(("lane read address not advanced", ad[0], re.sub(r"0x[0-9a-f]+:uq", "0x0:uq", lines[ad[0]])))
        ld = [i for i, l in enumerate(lines) if l.startswith("svm_gather4scaled.RGBA (M1, 8) 0x0:uq xm1.0")]
        out.append(("second 4 dwords from the first's address", ld[0], lines[ld[0]].replace("xm1.0", "xl1.0")))
        ad = [i for i, l in enumerate(lines) if l.startswith("add (M1, 8) xm0(0,0)<1> $")]
        out.append(("second address not 16 bytes on", ad[0], lines[ad[0]].replace("0x10:uq", "0x20:uq")))
    return out


def mutations(lines):
    """Texts with one plausible mistake each; every one must make the model disagree."""
    out = []
    movs = [i for i, l in enumerate(lines) if l.startswith("mov (M1, 8) xB(")]
    dp = [i for i, l in enumerate(lines) if l.startswith("dpas")]
    if movs:
        m = lines[movs[0]]
        out.append(("row into the wrong half", movs[0], m.replace(",0)<", ",1)<", 1)))
        out.append(("dpas on the wrong B operand", dp[0], lines[dp[0]].replace("xBd.0 ", "xBd.256 ")))
    else:  # B^T lane reads
        out.append(("dpas on the wrong lane read", dp[0], lines[dp[0]].replace("xL0.0 ", "xL1.0 ")))
        ad = [i for i, l in enumerate(lines) if l.startswith("add (M1, 8) xl1(")]
        out.append(("lane read address not advanced", ad[0], re.sub(r"0x[0-9a-f]+:uq", "0x0:uq", lines[ad[0]])))
        ld = [i for i, l in enumerate(lines) if l.startswith("svm_gather4scaled.RGBA (M1, 8) 0x0:uq xm0.0")]
        out.append(("second 4 dwords from the first's address", ld[0], lines[ld[0]].replace("xm0.0", "xl0.0")))
        ad = [i for i, l in enumerate(lines) if l.startswith("add (M1, 8) xm0(0,0)<1> $")]
        out.append(("second address not 16 bytes on", ad[0], lines[ad[0]].replace("0x10:uq", "0x20:uq")))
    ad = [i for i, l in enumerate(lines) if l.startswith("add (M1_NM, 1) xa0")]
    out.append(("A row address not advanced", ad[0], re.sub(r"0x[0-9a-f]+:uq", "0x0:uq", lines[ad[0]])))
    if any(l.startswith("add (M1_NM, 1) xa31") for l in lines):  # 64-byte A rows: a second half
        ad = [i for i, l in enumerate(lines) if l.startswith("add (M1_NM, 1) xa8(")]
        out.append(("second half's address not advanced", ad[0], re.sub(r"0x[0-9a-f]+:uq", "0x0:uq", lines[ad[0]])))
        dp = [i for i, l in enumerate(lines) if l.startswith("dpas") and "xA(8,0)" in l]
        out.append(("dpas on the wrong K half of A", dp[0], lines[dp[0]].replace("xA(8,0)", "xA(0,0)")))
    return out


def emitted(text, which=0):
    """Inline-vISA statement `which` (0: the first, in module order) of an LLVM module (xtc --emit=llvm)
    as lines, without braces: a kernel whose K loop split-accumulators cut into slice loops has one
    statement per slice."""
    found = re.findall(r'asm sideeffect "\{\\0A(.*?)\}\\0A"', text, re.S)
    if which >= len(found):
        raise SystemExit(f"dg2_visa_loop: no inline-vISA statement {which} in the module ({len(found)} found)")
    return [l for l in found[which].split("\\0A") if l]


def sim_module(args):
    """sim-ll M N KSTEP TYPE ROLES ORDER [MUTATION...] < module.ll: runs xtc's emitted statement.
    ROLES: the inputs after the tied values, comma-separated (see simulate); ORDER: "mfast" when
    output o is C block (o % MB, o / MB), "nfast" when (o / NB, o % NB), "pairs" when output o's
    register r is C row (8 o + r) / NB, column block (8 o + r) % NB; "list:R.C,..." output o's block
    given (a loop holding several accumulator slices, split-accumulators' uneven cut). A MUTATION "OLD=>NEW"
    replaces text in every line first (the test's deliberate mistakes); a "PF=EXPR" the address the
    next prefetch line must prefetch (see simulate), one per prefetch line when any is given (ANY:
    any address, the line's runs still checked; OFF: the lane sends nothing); "BAR=EXPR" the number of barriers that must run, an
    expression of n, the number of K steps (sim K = 9 KSTEP with it, else 3 KSTEP; KSTEP; 0); "LDB=BYTES" B's row pitch
    (default N * 2 + 32, or K * 2 + 32 for B^T: a pitch the kernel shares with another input);
    "BACK": the row groups' addresses one K step back (simulate's back); "KSETS=2": the FMA
    statement's two accumulator sets (simulate's ksets); "STMT=N": run the module's statement N (0-based,
    module order; default the first): each slice loop of a split kernel is its own statement."""
    M, N, KS, T = int(args[0]), int(args[1]), int(args[2]), args[3]
    roles = args[4].split(",")
    MB, NB = M // 8, N // 8
    block = (lambda o: (o % MB, o // MB)) if args[5] == "mfast" else (lambda o: divmod(o, NB))
    if args[5].startswith("list:"):  # output o is C block list[o] ("row block.column block", comma-separated)
        order = [tuple(int(x) for x in b.split(".")) for b in args[5][5:].split(",")]
        block = lambda o: order[o]
    cell = (lambda o, r: divmod(8 * o + r, NB)) if args[5] == "pairs" else None
    lines = emitted(sys.stdin.read(), next((int(a[5:]) for a in args[6:] if a.startswith("STMT=")), 0))
    pf = [a[3:] for a in args[6:] if a.startswith("PF=")] or None
    bar = next((a[4:] for a in args[6:] if a.startswith("BAR=")), None)
    ldb = next((int(a[4:]) for a in args[6:] if a.startswith("LDB=")), None)
    barrier = (lambda n: eval(bar, {}, {"n": n})) if bar else None
    back = "BACK" in args[6:]
    ksets = 2 if "KSETS=2" in args[6:] else 1
    for mut in (a for a in args[6:] if not a.startswith(("PF=", "BAR=", "LDB=", "STMT=")) and a not in ("BACK", "KSETS=2")):
        old, new = mut.split("=>")
        changed = [l.replace(old, new) for l in lines]
        assert changed != lines, f"mutation {mut} changes nothing"
        lines = changed
    bad = 0
    # odd and even step counts: a loop of two steps per iteration runs one step first when odd
    for K, seed in ((9 if bar else 3) * KS, 1), (KS, 2), (0, 3), (4 * KS, 4):  # a block every fourth step: 9 steps
        e = simulate(lines, M, N, KS, T, K, seed, roles, block, bt=any(r[0] == "T" for r in roles), pf=pf, barrier=barrier, ldb=ldb,
                     cell=cell, back=back, ksets=ksets)
        what = "elements or prefetch addresses" if pf else f"of {M * N} elements"
        print(f"{'ok' if e == 0 else 'FAIL'}: {T} {M}x{N} K={K}: {e} {what} differ")
        bad |= e != 0
    return 1 if bad else 0


def main():
    if len(sys.argv) >= 8 and sys.argv[1] == "sim-ll":
        return sim_module(sys.argv[2:])
    modes = sys.argv[6:]
    if len(sys.argv) >= 6 and sys.argv[1] == "ll" and set(modes) <= {"serial", "bt", "pf", "pfif", "pairs", "addrend", "gathers"}:
        sys.stdout.write(llvm(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], "serial" in modes,
                              "bt" in modes, "pf" in modes, "pairs" in modes, "pfif" in modes,
                              "addrend" in modes, "gathers" in modes))
        return 0
    if sys.argv[1:] != ["sim"]:
        print(__doc__)
        return 2
    bad = 0
    for M, N, KS, T, bt, addrend in ([s + (False, False) for s in SHAPES] + [s + (True, False) for s in BT_SHAPES] +
                                     [s + (False, True) for s in SHAPES]):
        lines = statement(M, N, KS, T, bt=bt, addrend=addrend)
        name = f"{T} {M}x{N}{' B^T' if bt else ''}{' addrend' if addrend else ''}"
        for K, seed in ((3 * KS, 1), (KS, 2), (0, 3)):
            e = simulate(lines, M, N, KS, T, K, seed, bt=bt)
            print(f"{'ok' if e == 0 else 'FAIL'}: {name} K={K}: {e} of {M * N} elements differ")
            bad |= e != 0
        for what, i, new in mutations(lines):
            mut = list(lines)
            mut[i] = new
            e = simulate(mut, M, N, KS, T, 2 * KS, 4, bt=bt)
            print(f"{'ok' if e else 'FAIL'}: {name} mutated ({what}): {e} elements differ")
            bad |= e == 0
    # Prefetches (xtc's LaneProgram form): the carried column starts at 0; lane 7's invariant mask is
    # off; the width lets steps 0 and 1 in (column bytes 64 k < 128): each line is A + l lda + 64 k
    # there, the base A elsewhere. Both prefetches (ca.ca, uc.ca) the same program.
    KS = 32
    lines = statement(16, 16, KS, "hf", pf=True)
    pfroles = ["A", "A+32", "A", "A+32", "B", "B", "B", "B", "K", "bstep", "U32=0"]
    pfroles += ["V32=0", "V32=128", "V32=0 if l == 7 else -1", "V32=l*lda", "V64=A"] * 2
    want = "A + (l * lda + 64 * k) if 64 * k < 128 and l != 7 else A"
    for K, seed in ((3 * KS, 1), (KS, 2), (0, 3)):
        e = simulate(lines, 16, 16, KS, "hf", K, seed, pfroles, pf=[want, want])
        print(f"{'ok' if e == 0 else 'FAIL'}: hf 16x16 prefetches K={K}: {e} elements or prefetch addresses differ")
        bad |= e != 0
    for what, old, new in (("no bounds mask", "and (M1, 8) xt0_10(0,0)<1> xt0_9(0,0)<1;1,0> xt0_6(0,0)<1;1,0>",
                            "and (M1, 8) xt0_10(0,0)<1> xt0_9(0,0)<1;1,0> 0xffffffff:ud"),
                           ("column not stepped", "add (M1,1) xc0(0,0)<1> xc0(0,0)<0;1,0> 32:d", "add (M1,1) xc0(0,0)<1> xc0(0,0)<0;1,0> 0:d"),
                           ("reversed compare", "cmp.lt (M1, 8) xt1_4", "cmp.gt (M1, 8) xt1_4")):
        mut = [x.replace(old, new) for x in lines]
        assert mut != lines, what
        e = simulate(mut, 16, 16, KS, "hf", 3 * KS, 4, pfroles, pf=[want, want])
        print(f"{'ok' if e else 'FAIL'}: hf 16x16 prefetches mutated ({what}): {e} differ")
        bad |= e == 0
    # pfif: the second prefetch every fourth step (k % 128 == 0) behind a barrier, its column
    # stepped by 128 only there (256 bytes per execution; width 1024 here, so 4 executions pass).
    lines = statement(16, 16, KS, "hf", pf=True, pfif=True)
    ifroles = pfroles[:16] + ["V32=0", "V32=1024", "V32=0 if l == 7 else -1", "V32=l*lda", "V64=A"]
    want1 = "(A + (l * lda + 256 * k) if 256 * k < 1024 and l != 7 else A) if s % 4 == 0 else None"
    quarter = lambda n: (n + 3) // 4
    for K, seed in ((9 * KS, 1), (KS, 2), (0, 3)):
        e = simulate(lines, 16, 16, KS, "hf", K, seed, ifroles, pf=[want, want1], barrier=quarter)
        print(f"{'ok' if e == 0 else 'FAIL'}: hf 16x16 prefetches, one every fourth step K={K}: {e} elements, prefetch addresses or barriers differ")
        bad |= e != 0
    for what, old, new in (("every second step", "xk(0,0)<0;1,0> 0x7f:d", "xk(0,0)<0;1,0> 0x3f:d"),
                           ("the block's column stepped by 64", "xc1(0,0)<0;1,0> 128:d", "xc1(0,0)<0;1,0> 64:d"),
                           ("the jump taken when the condition holds", "(!xp) jmp (M1,1) xs0", "(xp) jmp (M1,1) xs0"),
                           ("no barrier", "barrier", "lsc_fence.slm.none.group")):
        mut = [new if x == old else x.replace(old, new) if old != "barrier" else x for x in lines]
        assert mut != lines, what
        e = simulate(mut, 16, 16, KS, "hf", 9 * KS, 4, ifroles, pf=[want, want1], barrier=quarter)
        print(f"{'ok' if e else 'FAIL'}: hf 16x16 prefetches every fourth step mutated ({what}): {e} differ")
        bad |= e == 0
    for M, N, KS, bt in [s + (False,) for s in FMA_SHAPES] + [s + (True,) for s in FMA_BT_SHAPES]:
        lines = fma_statement(M, N, KS, bt)
        name = f"f {M}x{N}{' B^T' if bt else ''}"
        for K, seed in ((3 * KS, 1), (KS, 2), (0, 3)):
            e = simulate(lines, M, N, KS, "f", K, seed, bt=bt)
            print(f"{'ok' if e == 0 else 'FAIL'}: {name} K={K}: {e} of {M * N} elements differ")
            bad |= e != 0
        for what, i, new in fma_mutations(lines):
            assert new != lines[i], what
            mut = list(lines)
            mut[i] = new
            e = simulate(mut, M, N, KS, "f", 2 * KS, 4, bt=bt)
            print(f"{'ok' if e else 'FAIL'}: {name} mutated ({what}): {e} elements differ")
            bad |= e == 0
    lines = statement(16, 16, 32, "bf", serial=True)  # the floor's form of the 64-byte A rows
    for K, seed in ((96, 1), (32, 2)):
        e = simulate(lines, 16, 16, 32, "bf", K, seed, ["A", "A", "B", "B", "B", "B", "K", "bstep"])
        print(f"{'ok' if e == 0 else 'FAIL'}: bf 16x16 serial K={K}: {e} of 256 elements differ")
        bad |= e != 0
    lines = statement(16, 16, 32, "bf", pairs=True)
    for K, seed in ((96, 1), (32, 2)):
        e = simulate(lines, 16, 16, 32, "bf", K, seed, ["A", "A", "B", "B", "B", "B", "K", "bstep"])
        print(f"{'ok' if e == 0 else 'FAIL'}: bf 16x16 pairs K={K}: {e} of 256 elements differ")
        bad |= e != 0
    # The row gathers (xtc's form since issue 11's session 19), with B rows and with B^T, M 16 and 8;
    # a pair's odd row swapped for the next even one (xV's lanes 8-15 two rows on), the K-high gather
    # at the K-low half, a vector not advancing its lanes 8-15 (a masked SIMD16 add), a masked gather
    # (its lanes 8-15, the odd rows, not read) and a pair's vector at another pair's rows must fail.
    for M, N, T, bt in ((16, 16, "bf", False), (16, 16, "hf", True), (8, 16, "hf", True)):
        lines = statement(M, N, 32, T, bt=bt, gathers=True, addrend=True)
        MB = M // 8
        groles = ["V64=A+4*l"] + [f"V64=({8 * a}+l)*lda" for a in range(MB)]
        groles += (["T", "T+32"] * (N // 8) if bt else ["B"] * 4) + ["K"] + ([] if bt else ["bstep"])
        name = f"{T} {M}x{N}{' B^T' if bt else ''} gathers"
        for K, seed in ((96, 1), (32, 2), (0, 3)):
            e = simulate(lines, M, N, 32, T, K, seed, groles, bt=bt)
            print(f"{'ok' if e == 0 else 'FAIL'}: {name} K={K}: {e} of {M * N} elements differ")
            bad |= e != 0
        o1 = 2 * MB * (N // 8) + 1  # the input of row block 0's offsets
        for what, old, new in (("odd row swapped", f"${o1}(0,1)<0;1,0>", f"${o1}(0,2)<0;1,0>"),
                               ("K-high gather at the K-low half", "0x20:uq xW1.0", "0x0:uq xW1.0"),
                               ("xW2's add masked", "add (M1_NM, 16) xW2(0,0)<1> xW2", "add (M1, 16) xW2(0,0)<1> xW2"),
                               ("a masked gather", "svm_gather4scaled.R (M1_NM, 16) 0x0:uq xW1", "svm_gather4scaled.R (M1, 16) 0x0:uq xW1"),
                               ("pair 3's vector at pair 2's rows", f"xW3(0,0)<1> xV(0,0)<1;1,0> ${o1}(0,6)", f"xW3(0,0)<1> xV(0,0)<1;1,0> ${o1}(0,4)")):
            mut = [x.replace(old, new) for x in lines]
            assert mut != lines, what
            e = simulate(mut, M, N, 32, T, 64, 4, groles, bt=bt)
            print(f"{'ok' if e else 'FAIL'}: {name} mutated ({what}): {e} elements differ")
            bad |= e == 0
    lines = statement(16, 16, 32, "bf", pairs=True)
    mut = [x for x in lines if not x.startswith("mov (M1, 8) xA(8,0)<1> xU0(1,0)")]
    assert len(mut) == len(lines) - 1
    e = simulate(mut, 16, 16, 32, "bf", 64, 4, ["A", "A", "B", "B", "B", "B", "K", "bstep"])
    print(f"{'ok' if e else 'FAIL'}: bf 16x16 pairs mutated (a high half not moved): {e} elements differ")
    bad |= e == 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
