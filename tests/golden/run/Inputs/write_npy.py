#!/usr/bin/env python3
"""Writes a little-endian f32 .npy file (format version 1.0) without numpy: write_npy.py PATH D0[xD1...].
Element i is 0.25 * (i + 1) (non-zero, exact in f32)."""
import struct
import sys

path, dims = sys.argv[1], [int(d) for d in sys.argv[2].split("x")]
n = 1
for d in dims:
    n *= d
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s%s), }" % (", ".join(map(str, dims)), "," if len(dims) == 1 else "")
header += " " * (63 - (10 + len(header)) % 64) + "\n"  # the data starts at a multiple of 64 bytes
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % n, *[0.25 * (i + 1) for i in range(n)]))
