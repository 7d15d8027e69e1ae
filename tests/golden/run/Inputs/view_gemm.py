#!/usr/bin/env python3
"""Inputs and expected outputs of view_gemm.xt (tests/golden/run/view-surfaces.test), without numpy
and without xtc: each expected value follows from the view's definition (element (i, j) of a view
with row stride ld is flat element i * ld + j of its buffer), by hand.
    view_gemm.py DIR gemm M N K LDA LDB [LDC]     A: M x LDA buffer, B: K x LDB, C: M x N, or with LDC
                                                  a view of an M x LDC buffer (the rest keeps -7.0)
    view_gemm.py DIR gemm_sg M N K LDA LDB        vgemm_barrier: rows i with (i mod 16) / 8 = s (its
                                                  subgroup) sum over k < K - 8 s only
    view_gemm.py DIR scale M N NZ LDA LDC         X: M x LDA, Z: M x LDC (view M x NZ; the rest -7.0)
Values are quarters in [-1, 1] (exact in f16, bf16 and tf32; every product and sum of a GEMM with
K < 2^20 is exact in f32), written as f32 (xtc run converts). Writes DIR/{a,b,c,expect}.npy."""
import struct
import sys


def write(path, rows, cols, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([1, 0]) + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def quarters(n, seed):
    return [((k * 7 + seed) % 9 - 4) / 4.0 for k in range(n)]


d, kind = sys.argv[1], sys.argv[2]
args = list(map(int, sys.argv[3:]))
if kind in ("gemm", "gemm_sg"):
    M, N, K, lda, ldb = args[:5]
    ldc = args[5] if len(args) > 5 else None
    assert lda >= K and ldb >= N and (ldc is None or ldc >= N)
    a, b = quarters(M * lda, 3), quarters(K * ldb, 5)
    write(f"{d}/a.npy", M, lda, a)
    write(f"{d}/b.npy", K, ldb, b)
    cw = ldc if ldc else N
    c = [-7.0] * (M * cw)
    write(f"{d}/c.npy", M, cw, c)
    for i in range(M):
        for j in range(N):
            kv = K - 8 * ((i % 16) // 8) if kind == "gemm_sg" else K
            c[i * cw + j] = sum(a[i * lda + k] * b[k * ldb + j] for k in range(kv))
    write(f"{d}/expect.npy", M, cw, c)
else:
    M, N, NZ, lda, ldc = args
    assert lda >= N and ldc >= NZ
    x = quarters(M * lda, 1)
    write(f"{d}/a.npy", M, lda, x)
    z = [-7.0] * (M * ldc)
    write(f"{d}/c.npy", M, ldc, z)
    for i in range(M):
        for j in range(NZ):
            z[i * ldc + j] = 2 * (x[i * lda + j] if j < N else 3.0) + 1
    write(f"{d}/expect.npy", M, ldc, z)
