#!/usr/bin/env python3
"""Writes the inputs and the expected output of examples/gather_scatter.xt at its edges (no numpy):
    gather_scatter_edges.py DIR
DIR/src.npy: Src, 100 f32, Src[j] = -(j + 1) / 2 where j % 3 == 0 (not doubled), else (j + 1) / 2.
DIR/idx.npy: Idx, 1 x 40 i64 (n = 40: the third subgroup's lanes 40..47 are the tail past n, padded
  -1): the first and last elements of Src/Dst (0, 99), 1, 2, 98, 97, the first ones past the end
  (100, 101), -1 and -2^40 (masked off: negative), 2^40 and 2^32 + 5 (out of range though the low
  dword 5 is in range: the 64-bit bounds check must see the high dword), 2^32 - 1 (high dword 0,
  low dword past 100), then distinct in-range indices 10..36. No in-range index repeats.
DIR/dst.npy: Dst, 100 f32 sentinels -7.0.
DIR/expect.npy: Dst after the kernel, by hand: Dst[j] = 2 * Src[j] = j + 1 for every in-range j of
  Idx with Src[j] > 0 (j % 3 != 0), the sentinel everywhere else (no other element is touched)."""
import struct
import sys

def write(path, descr, shape, fmt, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([1, 0]) + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))

d = sys.argv[1]
n_src = 100
src = [(-(j + 1) if j % 3 == 0 else (j + 1)) / 2 for j in range(n_src)]
idx = [0, 99, 1, 2, 98, 97, 100, 101, -1, -(1 << 40), 1 << 40, (1 << 32) + 5, (1 << 32) - 1]
idx += list(range(10, 10 + 40 - len(idx)))
assert len(idx) == 40
inb = [j for j in idx if 0 <= j < n_src]
assert len(set(inb)) == len(inb)
dst = [-7.0] * n_src
expect = list(dst)
for j in inb:
    if src[j] > 0:
        expect[j] = 2 * src[j]
write(d + "/src.npy", "<f4", [n_src], "f", src)
write(d + "/idx.npy", "<i8", [1, 40], "q", idx)
write(d + "/dst.npy", "<f4", [n_src], "f", dst)
write(d + "/expect.npy", "<f4", [n_src], "f", expect)
