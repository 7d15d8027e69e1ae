#!/usr/bin/env python3
# visa-fma-sim.py MSG=MATRIX... < module.ll: executes the `mad` lines of the first whole-loop
# inline-vISA statement (backends/spirv/VisaLoop.cpp, an f32 FMA GEMM) for one K step on random
# tiles and compares the accumulators with C0 + A x B computed here. It checks the numbers the
# statement computes, which no GPU run here can: which response dword each mad reads.
# Written from the reference, not from VisaLoop.cpp:
#   - a message's shape is its header dword 7 ((w-1) | (h-1) << 8) and its descriptor's bit 15
#     (transposed); a plain d32 block puts tile(r, c) at dword r * pow2(w) + c, a transposed one at
#     dword c * pow2(h) + r (reference §2.3); register i of `xtc_l0_f<n>` is dwords 16 i .. 16 i + 15;
#   - vISA `mad (M1, 16) dst s0 s1 s2` is dst = s0 * s1 + s2 per lane; <0;1,0> reads one dword for all
#     16 lanes, <1;1,0> 16 consecutive dwords;
#   - the accumulator outputs $j hold C rows 8 j .. 8 j + 7 (register r of $j = row 8 j + r, lane = column).
# Each MSG=MATRIX argument names what message MSG reads: A (M x K memory, tile rows m, columns k),
# B (K x N: rows k, columns n) or BT (N x K: rows n, columns k), the tile at the origin.
# The reference is C0 plus one f32 multiply-add per k in k order, each rounded once (vISA's mad is a
# fused multiply-add), so it is bit for bit: a statement that reorders an accumulator's k steps fails
# (a tolerance would pass it: the products of random inputs round differently in another order).
# Exit 0 and "ok" when every C element matches exactly, else 1 with the first differences.
import random
import re
import struct
import sys


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def main():
    roles = dict(a.split("=") for a in sys.argv[1:])
    text = sys.stdin.read()
    start = text.find('asm sideeffect "{')
    if start < 0:
        print("FAIL: no whole-loop statement")
        return 1
    body = text[start:text.find('}\\0A"', start)].replace("\\0A", "\n").splitlines()
    shape, transposed = {}, {}
    for line in body:
        m = re.match(r"mov \(M1,1\) xtc_l0_h(\d+)\(0,7\)<1> 0x([0-9a-f]+):ud$", line)
        if m:
            v = int(m.group(2), 16)
            shape[m.group(1)] = ((v & 255) + 1, ((v >> 8) & 255) + 1)
        m = re.match(r"raw_sends\.15\.1\.0\.\d+ \(M1, 1\) 0x0:ud 0x([0-9a-f]+):ud xtc_l0_h(\d+)\.0 ", line)
        if m:
            transposed[m.group(2)] = bool(int(m.group(1), 16) >> 15 & 1)
    mads = [l for l in body if l.startswith("mad ")]
    rng = random.Random(20261127)
    tiles, regs = {}, {}
    for msg, role in roles.items():
        w, h = shape[msg]
        tile = [[f32(rng.uniform(-1, 1)) for _ in range(w)] for _ in range(h)]
        pw, ph = 1 << (w - 1).bit_length(), 1 << (h - 1).bit_length()
        dwords = [0.0] * (pw * ph)
        for r in range(h):
            for c in range(w):
                dwords[c * ph + r if transposed[msg] else r * pw + c] = tile[r][c]
        tiles[role], regs[msg] = tile, dwords
    A = tiles["A"]
    B = tiles["B"] if "B" in tiles else [list(col) for col in zip(*tiles["BT"])]
    M, K, N = len(A), len(A[0]), len(B[0])
    if len(B) != K or N != 16:
        print("FAIL: tiles A %dx%d and B %dx%d do not multiply" % (M, K, len(B), N))
        return 1
    acc = {}
    c0 = [[f32(rng.uniform(-1, 1)) for _ in range(N)] for _ in range(M)]
    for m in range(M):
        acc[(m // 8, m % 8)] = list(c0[m])

    def read(op):
        m = re.match(r"\$(\d+)\((\d+),0\)<1;1,0>$", op)
        if m:
            return acc[(int(m.group(1)), int(m.group(2)))]
        m = re.match(r"xtc_l0_f(\d+)\((\d+),(\d+)\)<(0;1,0|1;1,0)>$", op)
        base = regs[m.group(1)]
        at = 16 * int(m.group(2)) + int(m.group(3))
        return [base[at]] * 16 if m.group(4) == "0;1,0" else base[at:at + 16]

    for line in mads:
        ops = line.split()[3:]
        d = re.match(r"\$(\d+)\((\d+),0\)<1>$", ops[0])
        s0, s1, s2 = read(ops[1]), read(ops[2]), read(ops[3])
        acc[(int(d.group(1)), int(d.group(2)))] = [f32(s0[l] * s1[l] + s2[l]) for l in range(16)]
    bad = []
    for m in range(M):
        for n in range(N):
            want = c0[m][n]
            for k in range(K):
                want = f32(A[m][k] * B[k][n] + want)
            got = acc[(m // 8, m % 8)][n]
            if got != want:
                bad.append("C(%d, %d) = %g, expected %g" % (m, n, got, want))
    if bad:
        print("FAIL: %d of %d elements differ: %s" % (len(bad), M * N, "; ".join(bad[:4])))
        return 1
    print("ok: %d mad, C %dx%d += A %dx%d x B %dx%d" % (len(mads), M, N, M, K, K, N))
    return 0


if __name__ == "__main__":
    sys.exit(main())
