"""A 2-D little-endian f32 .npy file (format 1.0) without numpy, for the run tests' reference scripts
(cond_gemm.py, tri_gemm.py, swiglu.py import it; xtc run converts the values to the memref's type)."""
import struct


def write(path, rows, cols, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"  # the data starts at a multiple of 64 bytes
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([1, 0]) + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
