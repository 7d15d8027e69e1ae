#!/usr/bin/env python3
"""An independent reference for Y = max(X + bias, 0) (no xtc code, no numpy):
    bias_relu_ref.py write DIR M N   writes DIR/x.npy (M x N) and DIR/bias.npy (1 x N), small integers
                                     of both signs (exact in f32; about half the sums are negative)
    bias_relu_ref.py check DIR Y.npy checks Y == max(X + bias, 0) exactly
Prints 'ok MxN' or the first mismatch."""
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the inputs
from colmajor_ref import read, write  # noqa: E402  # the .npy writer and reader


def x(i, j):
    return float((i * 7 + j * 5) % 13 - 6)


def bias(j):
    return float(j % 5 - 2)


if sys.argv[1] == "write":
    d, m, n = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    write(d + "/x.npy", m, n, 0, False, x)
    write(d + "/bias.npy", 1, n, 0, False, lambda i, j: bias(j))
elif sys.argv[1] == "check":
    y, (m, n) = read(sys.argv[3])
    for i in range(m):
        for j in range(n):
            want = max(x(i, j) + bias(j), 0.0)
            if y[i][j] != want:
                sys.exit("Y[%d][%d] = %r, want %r" % (i, j, y[i][j], want))
    print("ok %dx%d" % (m, n))
