#!/usr/bin/env python3
"""Writes a little-endian f32 .npy file (format version 1.0) without numpy:
    write_npy.py PATH D0[xD1...] [--header TEXT] [--version N] [--magic TEXT] [--extra-bytes N]
Element i is 0.25 * (i + 1) (non-zero, exact in f32). The options make broken files for the .npy
reader's errors: another header dict text, format version, magic, or N more data bytes."""
import argparse
import struct

ap = argparse.ArgumentParser()
ap.add_argument("path")
ap.add_argument("shape")
ap.add_argument("--header")
ap.add_argument("--version", type=int, default=1)
ap.add_argument("--magic", default="\x93NUMPY")
ap.add_argument("--extra-bytes", type=int, default=0)
a = ap.parse_args()
dims = [int(d) for d in a.shape.split("x")]
n = 1
for d in dims:
    n *= d
header = a.header if a.header is not None else "{'descr': '<f4', 'fortran_order': False, 'shape': (%s%s), }" % (
    ", ".join(map(str, dims)), "," if len(dims) == 1 else "")
header += " " * (63 - (10 + len(header)) % 64) + "\n"  # the data starts at a multiple of 64 bytes
with open(a.path, "wb") as f:
    f.write(a.magic.encode("latin-1") + bytes([a.version, 0]) + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % n, *[0.25 * (i + 1) for i in range(n)]) + b"\0" * a.extra_bytes)
