#!/usr/bin/env python3
"""An independent reference for GEMMs at odd sizes (no xtc code, no numpy):
    gemm_int_ref.py write DIR M N K   writes DIR/a.npy (M x K) and DIR/b.npy (K x N), f32 small integers
                                      in [-4, 4] (exact in f16, bf16 and i8; xtc converts them to the
                                      kernel's element type), every element of A and B nonzero-patterned
                                      so that a dropped, doubled or misplaced term changes some sum
    gemm_int_ref.py check DIR C.npy   checks C == A x B exactly (f32 or i32 C: integer sums are exact)
Prints 'ok MxN' or the first mismatch."""
import struct
import sys


def val(i, j, salt):
    return float((i * 5 + j * 3 + salt) % 9 - 4)


def write(path, rows, cols, salt):
    flat = [val(i, j, salt) for i in range(rows) for j in range(cols)]
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(flat), *flat))


def read(path):
    """The row-major elements and shape of a 2-D little-endian f32 or i32 .npy file."""
    b = open(path, "rb").read()
    hlen = struct.unpack("<H", b[8:10])[0]
    h = b[10:10 + hlen].decode()
    rows, cols = (int(x) for x in h.split("'shape': (")[1].split(")")[0].split(",") if x.strip())
    code = "f" if "'<f4'" in h else "i" if "'<i4'" in h else None
    if code is None or "'fortran_order': True" in h:
        sys.exit("unexpected .npy header: " + h)
    data = struct.unpack("<%d%s" % (rows * cols, code), b[10 + hlen:])
    return [list(data[i * cols:(i + 1) * cols]) for i in range(rows)], (rows, cols)


if sys.argv[1] == "write":
    d, m, n, k = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    write(d + "/a.npy", m, k, 1)
    write(d + "/b.npy", k, n, 2)
elif sys.argv[1] == "check":
    a, (m, k) = read(sys.argv[2] + "/a.npy")
    b, (k2, n) = read(sys.argv[2] + "/b.npy")
    c, shape = read(sys.argv[3])
    if k2 != k or shape != (m, n):
        sys.exit("shapes do not match: A %dx%d, B %dx%d, C %dx%d" % (m, k, k2, n, shape[0], shape[1]))
    for i in range(m):
        for j in range(n):
            want = sum(a[i][t] * b[t][j] for t in range(k))
            if c[i][j] != want:
                sys.exit("C[%d][%d] = %r, want %r" % (i, j, c[i][j], want))
    print("ok %dx%d" % (m, n))
