#!/usr/bin/env python3
"""An independent reference for GEMMs at odd sizes (no xtc code, no numpy):
    gemm_int_ref.py write DIR M N K   writes DIR/a.npy (M x K) and DIR/b.npy (K x N), f32 small integers
                                      in [-4, 4] (exact in f16, bf16 and i8; xtc converts them to the
                                      kernel's element type), a pattern of period 9 along each index, so a
                                      dropped, doubled or misplaced term changes some sum
    gemm_int_ref.py check DIR C.npy   checks C == A x B exactly (f32 or i32 C: integer sums are exact)
Prints 'ok MxN' or the first mismatch."""
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the inputs
from colmajor_ref import read, write  # noqa: E402  # the .npy writer and reader (f32 written, f32 or i32 read)


def val(i, j, salt):
    return float((i * 5 + j * 3 + salt) % 9 - 4)


if sys.argv[1] == "write":
    d, m, n, k = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    write(d + "/a.npy", m, k, 1, False, lambda i, j: val(i, j, 1))
    write(d + "/b.npy", k, n, 2, False, lambda i, j: val(i, j, 2))
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
