#!/usr/bin/env python3
"""An independent reference for column-major memrefs (no xtc code, no numpy):
    colmajor_ref.py write DIR M N K   writes DIR/a.npy (M x K, row-major) and DIR/b.npy (K x N with
                                      fortran_order True: its bytes are the column-major array, i.e.
                                      the row-major N x K transpose), small integers (exact in f32)
    colmajor_ref.py gemm DIR C.npy    checks C == A x B exactly (integer sums are exact in f32)
    colmajor_ref.py scale X.npy Y.npy checks Y == 2 * X elementwise, both read as logical arrays
    colmajor_ref.py wrong DIR R C I J writes DIR/x.npy (R x C) and DIR/y-wrong.npy: 2 * x but for
                                      element [I][J], one more (an --expect file that must fail there)
Prints 'ok SHAPE' or the first mismatch."""
import struct
import sys


def val(i, j, salt):
    return float((i * 7 + j * 3 + salt) % 11 - 5)


def write(path, rows, cols, salt, fortran, fn=None):
    fn = fn or (lambda i, j: val(i, j, salt))
    flat = [fn(i, j) for j in range(cols) for i in range(rows)] if fortran else \
           [fn(i, j) for i in range(rows) for j in range(cols)]
    header = "{'descr': '<f4', 'fortran_order': %s, 'shape': (%d, %d), }" % (fortran, rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(flat), *flat))


def read(path):
    """The logical (row-major) elements and shape of a 2-D little-endian .npy file: f32, i32, and (as
    xtc writes them) f16 '<f2', bf16 '<u2' (the upper half of an f32), i16 '<i2', i8 '|i1'."""
    b = open(path, "rb").read()
    hlen = struct.unpack("<H", b[8:10])[0]
    h = b[10:10 + hlen].decode()
    shape = tuple(int(x) for x in h.split("'shape': (")[1].split(")")[0].split(",") if x.strip())
    rows, cols = shape
    code = {"'<i4'": "i", "'<f2'": "e", "'<u2'": "H", "'<i2'": "h", "'|i1'": "b"}
    code = next((c for d, c in code.items() if d in h), "f")
    data = struct.unpack("<%d%s" % (rows * cols, code), b[10 + hlen:])
    if code == "H":  # bf16: its 16 bits are the high half of the f32 of the same value
        data = [struct.unpack("<f", struct.pack("<I", x << 16))[0] for x in data]
    if "'fortran_order': True" in h:
        return [[data[j * rows + i] for j in range(cols)] for i in range(rows)], shape
    return [[data[i * cols + j] for j in range(cols)] for i in range(rows)], shape


if __name__ == "__main__":
    if sys.argv[1] == "write":
        d, m, n, k = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        write(d + "/a.npy", m, k, 1, False)
        write(d + "/b.npy", k, n, 4, True)
    elif sys.argv[1] == "wrong":
        d, r, c, wi, wj = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
        write(d + "/x.npy", r, c, 2, False)
        write(d + "/y-wrong.npy", r, c, 0, False, lambda i, j: 2 * val(i, j, 2) + (1 if (i, j) == (wi, wj) else 0))
    elif sys.argv[1] == "gemm":
        d = sys.argv[2]
        c, (m, n) = read(sys.argv[3])
        k = read(d + "/a.npy")[1][1]
        for i in range(m):
            for j in range(n):
                want = sum(val(i, l, 1) * val(l, j, 4) for l in range(k))
                if c[i][j] != want:
                    sys.exit("C[%d][%d] = %g, want %g" % (i, j, c[i][j], want))
        print("ok %dx%d" % (m, n))
    elif sys.argv[1] == "scale":
        x, shape = read(sys.argv[2])
        y, yshape = read(sys.argv[3])
        for i in range(shape[0]):
            for j in range(shape[1]):
                if y[i][j] != 2 * x[i][j]:
                    sys.exit("Y[%d][%d] = %g, want 2 * %g" % (i, j, y[i][j], x[i][j]))
        print("ok %dx%d" % shape)
