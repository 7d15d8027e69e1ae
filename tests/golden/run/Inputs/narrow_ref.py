#!/usr/bin/env python3
"""An independent reference for Inputs/narrow_out.xt (no xtc code, no numpy):
    narrow_ref.py write DIR R C             writes DIR/x.npy (R x C, f32 small integers in [-5, 5])
    narrow_ref.py check X.npy H B Y         checks H == 2 x (f16), B == x / 2 (bf16), Y == x - 1 (i8),
                                            every value exact in its type
Prints 'ok RxC' or the first mismatch."""
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the inputs
from colmajor_ref import read, write  # noqa: E402  # the .npy writer and reader

if sys.argv[1] == "write":
    write(sys.argv[2] + "/x.npy", int(sys.argv[3]), int(sys.argv[4]), 3, False)
elif sys.argv[1] == "check":
    x, shape = read(sys.argv[2])
    for path, name, fn in ((sys.argv[3], "H", lambda v: 2 * v), (sys.argv[4], "B", lambda v: v / 2),
                           (sys.argv[5], "Y", lambda v: v - 1)):
        y, yshape = read(path)
        if yshape != shape:
            sys.exit("%s is %r, X %r" % (name, yshape, shape))
        for i in range(shape[0]):
            for j in range(shape[1]):
                if y[i][j] != fn(x[i][j]):
                    sys.exit("%s[%d][%d] = %r, want %r" % (name, i, j, y[i][j], fn(x[i][j])))
    print("ok %dx%d" % shape)
