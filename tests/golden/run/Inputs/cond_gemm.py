#!/usr/bin/env python3
"""Inputs and expected output of cond_gemm.xt (tests/golden/run/cond-store.test), without numpy and
without xtc: C = A B rounded to bf16 where the workgroup's first row m = 8 * group_id(0) is below
lim, C's initial -7.0 elsewhere.
    cond_gemm.py DIR M N K LIM     writes DIR/{a,b,c,expect}.npy (f32; xtc run converts)
A holds integers in [-64, 64], B quarters in [-2, 2] (both exact in bf16; every product and sum exact in
f32), fixed seed; the sums, up to some thousands, have more than bf16's 8 significant bits, so the
rounding to bf16 (nearest, ties to even: the textbook rule on the exact sum, here) matters."""
import math
import random
import sys

from fractions import Fraction

sys.dont_write_bytecode = True  # importing npy_f32 must not leave __pycache__ in the source tree
from npy_f32 import write  # noqa: E402


def round_bf16(q):
    """The exact rational q to the nearest bf16 (8 significant bits), ties to even; no overflow here."""
    if q == 0:
        return 0.0
    a = abs(q)
    e = 0
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (e - 7)
    n = a / quantum
    r = math.floor(n)
    if n - r > Fraction(1, 2) or (n - r == Fraction(1, 2) and r % 2 == 1):
        r += 1
    return math.copysign(float(r * quantum), q)


d = sys.argv[1]
M, N, K, lim = map(int, sys.argv[2:6])
rng = random.Random(4040)
a = [float(rng.randint(-64, 64)) for _ in range(M * K)]
b = [rng.randint(-8, 8) / 4.0 for _ in range(K * N)]
write(f"{d}/a.npy", M, K, a)
write(f"{d}/b.npy", K, N, b)
write(f"{d}/c.npy", M, N, [-7.0] * (M * N))
expect = []
rounded = 0
for i in range(M):
    for j in range(N):
        if (i // 8) * 8 >= lim:
            expect.append(-7.0)
            continue
        s = sum(Fraction(a[i * K + k]) * Fraction(b[k * N + j]) for k in range(K))
        expect.append(round_bf16(s))
        rounded += expect[-1] != s
assert rounded > M * N // 8, rounded  # the bf16 rounding is visible
write(f"{d}/expect.npy", M, N, expect)
