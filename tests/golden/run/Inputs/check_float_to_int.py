# Checks float-to-int-saturate.test's reference outputs against X independently of xtc (no numpy):
# each element of Y, Z, W is trunc(x * scale) clamped to the type's range (the product rounded to
# float32, as the kernel multiplies in f32), V is 0 where sqrt(x) is NaN (x < 0); and both clamp
# ends occur, so the device comparison covers saturated values.
import ast
import math
import struct
import sys


def load(path):
    b = open(path, "rb").read()
    n = int.from_bytes(b[8:10], "little")
    descr = ast.literal_eval(b[10:10 + n].decode())["descr"]
    fmt = {"<f4": "f", "|i1": "b", "<i1": "b", "<i2": "h", "<i4": "i"}[descr]
    data = b[10 + n:]
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


p = sys.argv[1]
x = load(p + ".x.npy")
for name, scale, bits in (("y", 300.0, 8), ("z", 3.0e9, 32), ("w", 1.0e5, 16)):
    got = load(p + "." + name + ".npy")
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    want = [min(hi, max(lo, math.trunc(f32(xi * f32(scale))))) for xi in x]
    assert got == want, name
    assert lo in got and hi in got, name
    print(f"{name.upper()} ok: {lo} and {hi} occur")
v = load(p + ".v.npy")
assert any(xi < 0 for xi in x) and all(vi == 0 for xi, vi in zip(x, v) if xi < 0)
print("V ok: 0 for every negative x")
