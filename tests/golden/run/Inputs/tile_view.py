#!/usr/bin/env python3
"""Inputs and expected outputs of tile_view.xt (tests/golden/run/tile-view.test), without numpy:
    tile_view.py DIR ROWS COLS LD LDZ XSHAPE ZSHAPE        (shapes as RxC)
X (flat element k): f32 0.25 * (k + 1), i8 k % 50 - 20. Z before the kernel: f32 -7.0, i8 -7 (sentinels).
Expected Z, by the view's definition: for i < ROWS, j < COLS the flat element i * LDZ + j of Z is
f32 2 * X[i * LD + j] + 1 (exact: quarters), i8 3 * X[i * LD + j] + 1 (in [-59, 88], no wrap); every
other element keeps its sentinel. Writes DIR/{x,z,expect}_{f32,i8}.npy."""
import struct
import sys

def write(path, descr, shape, fmt, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, ", ".join(map(str, shape)))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([1, 0]) + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))

d, rows, cols, ld, ldz = sys.argv[1], *map(int, sys.argv[2:6])
xs, zs = [tuple(map(int, s.split("x"))) for s in sys.argv[6:8]]
assert (rows - 1) * ld + cols <= xs[0] * xs[1] and (rows - 1) * ldz + cols <= zs[0] * zs[1]
for t, descr, fmt, xv, zv, f in (("f32", "<f4", "f", lambda k: 0.25 * (k + 1), -7.0, lambda x: 2 * x + 1),
                                 ("i8", "|i1", "b", lambda k: k % 50 - 20, -7, lambda x: 3 * x + 1)):
    x = [xv(k) for k in range(xs[0] * xs[1])]
    z = [zv] * (zs[0] * zs[1])
    write(f"{d}/x_{t}.npy", descr, xs, fmt, x)
    write(f"{d}/z_{t}.npy", descr, zs, fmt, z)
    for i in range(rows):
        for j in range(cols):
            z[i * ldz + j] = f(x[i * ld + j])
    write(f"{d}/expect_{t}.npy", descr, zs, fmt, z)
