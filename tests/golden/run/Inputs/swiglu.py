#!/usr/bin/env python3
"""Inputs and expected output of swiglu.xt (tests/golden/run/swiglu.test), without numpy and without
xtc: G = X Wg and U = X Wu (exact: eighths times small integers, sums exact in f32), H = G / (exp(-G)
+ 1) * U in double precision, rounded to the nearest bf16 (ties to even) by hand.
    swiglu.py DIR M N K     writes DIR/{x,wg,wu,expect}.npy (f32; xtc run converts X, Wg, Wu to bf16)
Fixed seed; |G| stays below 8, so exp never overflows."""
import math
import random
import sys

sys.dont_write_bytecode = True  # importing npy_f32 must not leave __pycache__ in the source tree
from npy_f32 import write  # noqa: E402


def round_bf16(v):
    """v (a double) to the nearest bf16 value, ties to even."""
    if v == 0 or math.isinf(v) or math.isnan(v):
        return v
    m, e = math.frexp(abs(v))  # abs(v) = m 2^e, 0.5 <= m < 1: 8 significant bits keep m 2^8
    q = m * 256
    r = math.floor(q)
    if q - r > 0.5 or (q - r == 0.5 and r % 2 == 1):
        r += 1
    return math.copysign(math.ldexp(r / 256, e), v)


d = sys.argv[1]
M, N, K = map(int, sys.argv[2:5])
rng = random.Random(2427)
x = [rng.randint(-4, 4) / 8.0 for _ in range(M * K)]
wg = [rng.randint(-3, 3) / 4.0 for _ in range(K * N)]
wu = [rng.randint(-3, 3) / 4.0 for _ in range(K * N)]
expect = []
for i in range(M):
    for j in range(N):
        g = sum(x[i * K + k] * wg[k * N + j] for k in range(K))
        u = sum(x[i * K + k] * wu[k * N + j] for k in range(K))
        assert abs(g) < 8
        expect.append(round_bf16(g / (math.exp(-g) + 1.0) * u))
write(f"{d}/x.npy", M, K, x)
write(f"{d}/wg.npy", K, N, wg)
write(f"{d}/wu.npy", K, N, wu)
write(f"{d}/expect.npy", M, N, expect)
