#!/usr/bin/env python3
"""Inputs and expected outputs of loop_step.xt (tests/golden/run/loop-step.test), without numpy:
    loop_step.py DIR N...
X (8x16 f32, flat element i) is 0.25 * (i + 1); for each N, DIR/expect_N.npy is N * X (exact:
quarters times a small integer), the result of a loop that runs N times. Writes DIR/x.npy too."""
import struct
import sys

def write(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 16), }"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([1, 0]) + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))

x = [0.25 * (i + 1) for i in range(128)]
write(f"{sys.argv[1]}/x.npy", x)
for n in map(int, sys.argv[2:]):
    write(f"{sys.argv[1]}/expect_{n}.npy", [n * v for v in x])
