#!/usr/bin/env python3
"""Inputs and expected output of batch_gemm.xt (tests/golden/run/batch-gemm.test), without numpy:
    batch_gemm.py DIR BATCH M N K
A (BATCH x M x K) and B (BATCH x K x N) are f16 small integers (seeded), so every C[b] = A[b] B[b]
is exact in f32. Writes DIR/a.npy, DIR/b.npy (logical order; xtc run lays out a column-major
memref itself) and DIR/c.npy (the expected C)."""
import random
import struct
import sys

def write(path, descr, fmt, shape, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, ", ".join(map(str, shape)))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([1, 0]) + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))

d, nb, m, n, k = sys.argv[1], *map(int, sys.argv[2:6])
rng = random.Random(2612)
a = [float(rng.randint(-3, 3)) for _ in range(nb * m * k)]
b = [float(rng.randint(-3, 3)) for _ in range(nb * k * n)]
c = [sum(a[(q * m + i) * k + p] * b[(q * k + p) * n + j] for p in range(k))
     for q in range(nb) for i in range(m) for j in range(n)]
write(f"{d}/a.npy", "<f2", "e", (nb, m, k), a)
write(f"{d}/b.npy", "<f2", "e", (nb, k, n), b)
write(f"{d}/c.npy", "<f4", "f", (nb, m, n), c)
