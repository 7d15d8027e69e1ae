#!/usr/bin/env python3
# visa-dpas-sim.py [--stmt N] (--acc MBxNB | --acc-rows R0,R1,...) MSG=ROLE[@ROW,COL]... < module.ll
# Executes one K step of the 2D loads and `dpas` lines of a whole-loop inline-vISA statement
# (backends/spirv/VisaLoop.cpp, a DPAS GEMM on pvc) on random tiles, byte by byte, and compares the
# accumulator outputs with C0 + A x B computed here. No GPU runs here: this is what checks the
# numbers the statement computes (which response bytes each dpas reads, which output it adds to).
# Written from the reference (shared/INTEL_XE_REFERENCE.md), not from VisaLoop.cpp:
#   - §2.1: header dword 7 = (bw-1) | (bh-1) << 8 | (blocks-1) << 16; descriptor bits 11:9 the
#     element size (0 d8, 1 d16, 2 d32), bit 7 VNNI, bit 15 transpose;
#   - §2.3: a response places block b after the blocks before it, each padded to whole 64-byte
#     GRFs; rows are padded to a power-of-two element count: element (r, c) of a plain block at
#     (r * pow2(bw) + c) * size; VNNI packs 32 / (8 size) rows into a dword: (r, c) at dword
#     (r / p) * pow2(bw) + c, byte (r % p) * size; a transposed d32 block puts (r, c) at dword
#     c * pow2(bh) + r;
#   - §4, pvc dpas 8x8 (M1, 16) dst src0 src1 src2 = src0 + src2 x src1 (dst/src0 the accumulator,
#     src1 B, src2 A): A element m of lane n at byte (16 m + n) * 2 of A's GRF range (bf/hf:
#     A[m][n]; s8: bytes A[m][2n], A[m][2n+1]); B dword i of lane n at (16 i + n) * 4 (bf/hf: B[2i][n]
#     low, B[2i+1][n] high; s8: byte b = B[4i + b][n]); C element m of lane n at (16 m + n) * 4.
# MSG is a message number (xtc_l<N>_m<MSG>); ROLE is A (M x K memory: rows m, columns k), B (K x N)
# or BT (N x K, B given transposed); ROW,COL (default 0,0) is where the message's box starts in
# that matrix, in elements of the dpas type. The accumulator outputs $j are 8x16 C blocks, j = mb +
# MB * nb (M blocks fastest), as the test states from the IR; with --acc-rows, output $j is instead
# R_j rows of one 16-column block, the rows after those of $0..$j-1 (uneven row slices, updated by
# DPAS of repeat count R_j <= 8: A rows m < R_j only, §4). Exit 0 and "ok" when every C element
# matches, else 1 with the first differences.
import random
import re
import struct
import sys

KINDS = {"bf": (2, "bf16"), "hf": (2, "f16"), "s8": (1, "s8")}


def pow2(n):
    return 1 << (n - 1).bit_length()


def encode(value, kind):
    if kind == "bf16":
        return struct.unpack("<I", struct.pack("<f", value))[0] >> 16
    if kind == "f16":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    return value & 0xFF


def decode(bits, kind):
    if kind == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    if kind == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    return bits - 256 if bits >= 128 else bits


def statement(text, index):
    starts = [m.start() for m in re.finditer(r'asm sideeffect "\{', text)]
    if index >= len(starts):
        return None
    start = starts[index]
    return text[start:text.find('}\\0A"', start)].replace("\\0A", "\n").splitlines()


def main():
    args, roles, stmt, acc_shape, acc_rows = sys.argv[1:], {}, 0, None, None
    while args:
        a = args.pop(0)
        if a == "--stmt":
            stmt = int(args.pop(0))
        elif a == "--acc":
            acc_shape = tuple(int(x) for x in args.pop(0).split("x"))
        elif a == "--acc-rows":
            acc_rows = [int(x) for x in args.pop(0).split(",")]
            acc_shape = (len(acc_rows), 1)
        else:
            msg, role = a.split("=")
            where = (0, 0)
            if "@" in role:
                role, at = role.split("@")
                where = tuple(int(x) for x in at.split(","))
            roles[msg] = (role, where)
    body = statement(sys.stdin.read(), stmt)
    if body is None or acc_shape is None:
        print("FAIL: no whole-loop statement %d (or no --acc)" % stmt)
        return 1
    shape, desc = {}, {}
    for line in body:
        m = re.match(r"mov \(M1,1\) xtc_l\d+_h(\d+)\(0,7\)<1> 0x([0-9a-f]+):ud$", line)
        if m:
            v = int(m.group(2), 16)
            shape[m.group(1)] = ((v & 255) + 1, ((v >> 8) & 255) + 1, ((v >> 16) & 255) + 1)
    dpas = [l for l in body if l.startswith("dpas.")]
    kinds = {l.split(".")[1] for l in dpas}
    if len(kinds) != 1 or next(iter(kinds)) not in KINDS:
        print("FAIL: dpas kinds %s" % sorted(kinds))
        return 1
    size, kind = KINDS[next(iter(kinds))]
    kstep = 32 if size == 1 else 16  # K of one dpas.8x8: 32 bytes per lane pair
    rng = random.Random(20261128)

    def rand():
        if kind == "s8":
            return rng.randint(-128, 127)
        return decode(encode(rng.uniform(-2, 2), kind), kind)

    # The matrices, big enough for every message box (filled lazily: element -> value).
    mats = {"A": {}, "B": {}}

    def elem(role, r, c):
        mat, key = (mats["B"], (c, r)) if role == "BT" else (mats[role], (r, c))
        if key not in mat:
            mat[key] = rand()
        return mat[key]

    regs = {}
    for line in body:
        m = re.match(r"raw_sends\.15\.1\.0\.(\d+) \(M1, 1\) 0x0:ud 0x([0-9a-f]+):ud "
                     r"xtc_l\d+_h(\d+)\.0 %null\.0 xtc_l\d+_m(\d+)\.0$", line)
        if not m or m.group(4) not in roles:
            continue
        d, hdr, msg = int(m.group(2), 16), m.group(3), m.group(4)
        esize = {0: 1, 1: 2, 2: 4}[d >> 9 & 7]
        vnni, transposed = bool(d >> 7 & 1), bool(d >> 15 & 1)
        bw, bh, blocks = shape[hdr]
        role, (row0, col0) = roles[msg]
        per = esize // size  # dpas elements per memory element (2 for f16 pairs in a d32 message)
        if vnni:
            p = 4 // esize
            block_bytes = -(-(bh // p) * pow2(bw) * 4 // 64) * 64
        else:
            block_bytes = -(-(pow2(bh) if transposed else bh) * pow2(bw) * esize // 64) * 64
        data = bytearray(block_bytes * blocks)
        for b in range(blocks):
            for r in range(bh):
                for c in range(bw):
                    bits = 0
                    for e in range(per):
                        v = elem(role, row0 + r, col0 + (b * bw + c) * per + e)
                        bits |= encode(v, kind) << (8 * size * e)
                    if vnni:
                        at = ((r // p) * pow2(bw) + c) * 4 + (r % p) * esize
                    elif transposed:
                        at = (c * pow2(bh) + r) * 4
                    else:
                        at = (r * pow2(bw) + c) * esize
                    data[b * block_bytes + at:b * block_bytes + at + esize] = bits.to_bytes(esize, "little")
        regs[msg] = data

    MB, NB = acc_shape
    # Output j: its first C row and column and its row count.
    if acc_rows:
        place = {j: (sum(acc_rows[:j]), 0, r) for j, r in enumerate(acc_rows)}
    else:
        place = {j: (8 * (j % MB), 16 * (j // MB), 8) for j in range(MB * NB)}
    rows_total = max(r0 + r for r0, _, r in place.values())
    c0 = [[rng.uniform(-1, 1) if kind != "s8" else rng.randint(-999, 999) for _ in range(16 * NB)]
          for _ in range(rows_total)]
    out = {}
    for j, (r0, n0, r) in place.items():
        out[j] = [[c0[r0 + m][n0 + n] for n in range(16)] for m in range(r)]

    def word(data, at, nbytes):
        return int.from_bytes(data[at:at + nbytes], "little")

    for line in dpas:
        m = re.match(r"dpas\.\w+\.\w+\.8\.(\d) \(M1, 16\) \$(\d+)\.0 \$(\d+)\.0 xtc_l\d+_m(\d+)\.(\d+) "
                     r"xtc_l\d+_m(\d+)\((\d+),0\)$", line)
        if not m or m.group(2) != m.group(3) or m.group(4) not in regs or m.group(6) not in regs or \
                int(m.group(2)) not in out or int(m.group(1)) != len(out[int(m.group(2))]):
            print("FAIL: cannot execute: %s" % line)
            return 1
        rc, acc = int(m.group(1)), out[int(m.group(2))]
        bdata, boff = regs[m.group(4)], int(m.group(5))
        adata, aoff = regs[m.group(6)], 64 * int(m.group(7))
        for mm in range(rc):
            for n in range(16):
                s = 0
                for k in range(kstep):
                    if size == 2:
                        a = decode(word(adata, aoff + (16 * mm + k) * 2, 2), kind)
                        b = decode(word(bdata, boff + (16 * (k // 2) + n) * 4 + (k % 2) * 2, 2), kind)
                    else:
                        a = decode(word(adata, aoff + (16 * mm + k // 2) * 2 + k % 2, 1), kind)
                        b = decode(word(bdata, boff + (16 * (k // 4) + n) * 4 + k % 4, 1), kind)
                    s += a * b
                acc[mm][n] += s
    ks = sorted({k for (_, k) in mats["A"]})
    K = len(ks)
    bad = []
    for j, acc in out.items():
        r0, n0, r = place[j]
        for mm in range(r):
            for n in range(16):
                row, col = r0 + mm, n0 + n
                want = c0[row][col] + sum(elem("A", row, k) * elem("B", k, col) for k in ks)
                if abs(acc[mm][n] - want) > 1e-9 * (1 + abs(want)):
                    bad.append("C(%d, %d) = %g, expected %g" % (row, col, acc[mm][n], want))
    if bad:
        print("FAIL: %d of %d elements differ: %s" % (len(bad), 16 * rows_total * NB, "; ".join(bad[:4])))
        return 1
    print("ok: %d dpas.%s, C %dx%d += A %dx%d x B %dx%d" % (len(dpas), kind, rows_total, 16 * NB,
                                                           rows_total, K, K, 16 * NB))
    return 0


if __name__ == "__main__":
    sys.exit(main())
