#!/usr/bin/env python3
"""Inputs and expected output of tri_gemm.xt (tests/golden/run/gemm-names.test), without numpy and
without xtc: row i of C sums over k < min(16 * (i // 16) + 16, K) the products A[i][k] B[k][j], with
B's rows in odd blocks of 16 (k // 16 odd) doubled; A's columns past K and B's rows past K read as 0.
    tri_gemm.py DIR M N K     writes DIR/{a,b,expect}.npy (f32; xtc run converts A and B to f16)
Values are quarters in [-2, 2] (exact in f16; every product and sum here exact in f32), fixed seed."""
import random
import sys

sys.dont_write_bytecode = True  # importing npy_f32 must not leave __pycache__ in the source tree
from npy_f32 import write  # noqa: E402


d = sys.argv[1]
M, N, K = map(int, sys.argv[2:5])
rng = random.Random(77)
a = [rng.randint(-8, 8) / 4.0 for _ in range(M * K)]
b = [rng.randint(-8, 8) / 4.0 for _ in range(K * N)]
expect = []
for i in range(M):
    last = min(16 * (i // 16) + 16, K)
    for j in range(N):
        expect.append(sum(a[i * K + k] * b[k * N + j] * (2 if (k // 16) % 2 else 1) for k in range(last)))
write(f"{d}/a.npy", M, K, a)
write(f"{d}/b.npy", K, N, b)
write(f"{d}/expect.npy", M, N, expect)
