#!/usr/bin/env python3
"""Writes an f32 .npy of R x C (without numpy) for reduce-f16-sum.test: every element 1.0 except
2048.0 at column 16 r of row r. In f16 (ulp 2 at 2048) 2048 + 1 rounds back to 2048, so a row sum
combined in f16 loses the ones it adds to the spike; the exact sum 2047 + C rounds once."""
import struct
import sys

path, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
data = [2048.0 if c == 16 * r else 1.0 for r in range(rows) for c in range(cols)]
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % len(data), *data))
