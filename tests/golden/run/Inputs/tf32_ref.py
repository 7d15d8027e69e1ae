#!/usr/bin/env python3
"""tf32 rounding and a tf32 GEMM, checked without xtc's code (issue #10; tf32.test), pure Python:
    tf32_ref.py gen PREFIX         writes tf32_cast.xt's inputs PREFIX.{x,w}.npy (16x32 f32) and
                                   PREFIX.h.npy (f16), and tf32_gemm.xt's PREFIX.{a,b}.npy (16x24, 24x32)
    tf32_ref.py check-cast PREFIX  checks PREFIX.{y,p,hy}.npy bit for bit: Y = X rounded to tf32,
                                   P = the exact product of the rounded X and W rounded once to tf32,
                                   HY = the f16 values (exact in tf32)
    tf32_ref.py check-gemm PREFIX  checks PREFIX.c.npy: within the f32 accumulation bound of the exact
                                   GEMM of the rounded inputs, and outside it of the GEMM of the
                                   unrounded ones (for most elements), so the rounding is seen
The rounding here is the textbook one, not the interpreter's bit trick: the exact value divided by
the tf32 quantum of its binade (2^(e-10), subnormals 2^-136), the nearest integer, ties to even;
from the largest finite tf32 plus half a quantum on, infinity. Fixed seed."""
import math
import random
import struct
import sys
from fractions import Fraction

ROWS, COLS, K = 16, 32, 24
FORMATS = {"<f4": ("f", "I"), "<f2": ("e", "H")}


def write(path, bits, rows, cols, descr="<f4"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(bits), FORMATS[descr][1]), *bits))


def read_bits(path):
    b = open(path, "rb").read()
    n = struct.unpack("<H", b[8:10])[0]
    assert "'<f4'" in b[10:10 + n].decode(), path
    data = b[10 + n:]
    return list(struct.unpack("<%dI" % (len(data) // 4), data))


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits32(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


MAX_TF32 = Fraction(2**11 - 1, 2**10) * 2**127


def round_tf32(q):
    """The exact rational q rounded to the nearest tf32 value, ties to even (a Python float)."""
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    a = abs(q)
    if a >= MAX_TF32 + Fraction(2**127, 2**11):
        return sign * math.inf
    e = math.floor(math.log2(a))
    while Fraction(2) ** e > a:  # log2 of a rational can be off by one near powers of two
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, -126) - 10)
    n = a / quantum
    r = math.floor(n)
    if n - r > Fraction(1, 2) or (n - r == Fraction(1, 2) and r % 2 == 1):
        r += 1
    v = r * quantum
    if v > MAX_TF32:
        return sign * math.inf
    return sign * float(v)


def tf32_of_bits(u):
    """f32 bits rounded to tf32, as f32 bits (a NaN stays a NaN, made quiet)."""
    x = f32(u)
    if math.isnan(x):
        return u | 0x00400000
    if math.isinf(x):
        return u
    r = round_tf32(Fraction(x))
    return bits32(r) if r != 0 else u & 0x80000000


def special_bits():
    """f32 patterns on and next to tf32 ties (both ways of breaking them), the largest finite
    values (which overflow), subnormals, signed zeros, infinities and NaNs."""
    out = []
    for e in (0x3F800000, 0x40000000, 0x00800000, 0x7E800000, 0x00000000):
        for kept in (0x0000, 0x2000):  # even / odd last kept bit
            for low in (0x1000, 0x0FFF, 0x1001, 0x0001, 0x1FFF):
                out.append(e | kept | low)
    out += [0x7F7FFFFF, 0x7F7FF000, 0x7F7FEFFF, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFA00000,
            0x00000001, 0x807FFFFF]
    return out


def gen(prefix):
    rng = random.Random(1032)
    n = ROWS * COLS
    sp = special_bits()
    x = sp + [rng.getrandbits(32) & 0x807FFFFF | rng.randrange(0x3C, 0x43) << 23 for _ in range(n - len(sp))]
    rng.shuffle(x)
    # W: values whose products with X land on ties too (powers of two and random mantissas).
    w = [rng.choice([0x3F800000, 0x40000000, 0xBF000000]) if rng.random() < 0.4 else
         rng.getrandbits(32) & 0x807FFFFF | rng.randrange(0x3D, 0x42) << 23 for _ in range(n)]
    h = [rng.getrandbits(16) & 0x83FF | rng.randrange(0x8, 0x16) << 10 for _ in range(n)]
    write(prefix + ".x.npy", x, ROWS, COLS)
    write(prefix + ".w.npy", w, ROWS, COLS)
    write(prefix + ".h.npy", h, ROWS, COLS, "<f2")
    # GEMM operands in [-2, 2) with all 23 mantissa bits random: their tf32 roundings change every product.
    a = [rng.getrandbits(32) & 0x807FFFFF | rng.randrange(0x3D, 0x40) << 23 for _ in range(ROWS * K)]
    b = [rng.getrandbits(32) & 0x807FFFFF | rng.randrange(0x3D, 0x40) << 23 for _ in range(K * COLS)]
    write(prefix + ".a.npy", a, ROWS, K)
    write(prefix + ".b.npy", b, K, COLS)


def same(u, v):
    return u == v or (math.isnan(f32(u)) and math.isnan(f32(v)))


def check_cast(prefix):
    rd = lambda s: read_bits("%s.%s.npy" % (prefix, s))
    x, w, y, p, hy = rd("x"), rd("w"), rd("y"), rd("p"), rd("hy")
    hb = open(prefix + ".h.npy", "rb").read()
    hn = struct.unpack("<H", hb[8:10])[0]
    h = list(struct.unpack("<%de" % (ROWS * COLS), hb[10 + hn:]))
    bad = {"Y": 0, "P": 0, "H": 0}
    ties = inf = nan = 0
    for i in range(ROWS * COLS):
        r = tf32_of_bits(x[i])
        bad["Y"] += not same(y[i], r)
        ties += (x[i] & 0x1FFF) == 0x1000
        inf += math.isinf(f32(r)) and not math.isinf(f32(x[i]))
        nan += math.isnan(f32(r))
        rx, rw = f32(r), f32(tf32_of_bits(w[i]))
        if math.isnan(rx) or math.isnan(rw) or math.isinf(rx) or math.isinf(rw):
            exp = bits32(rx * rw)  # inf * finite, NaN: no rounding question
        else:
            exp = bits32(round_tf32(Fraction(rx) * Fraction(rw))) if rx * rw != 0 else bits32(rx * rw)
        bad["P"] += not same(p[i], exp)
        bad["H"] += not same(hy[i], bits32(h[i]))
    assert ties >= 10 and inf >= 2 and nan >= 3, (ties, inf, nan)
    print("tf32 conversions: %d %d %d mismatches (Y P H); ties %d" % (bad["Y"], bad["P"], bad["H"], ties))


def check_gemm(prefix):
    rd = lambda s: read_bits("%s.%s.npy" % (prefix, s))
    a, b, c = [list(map(f32, rd(s))) for s in ("a", "b", "c")]
    ra = [f32(tf32_of_bits(bits32(v))) for v in a]
    rb = [f32(tf32_of_bits(bits32(v))) for v in b]
    bad = seen = 0
    for i in range(ROWS):
        for j in range(COLS):
            exact = sum(Fraction(ra[i * K + k]) * Fraction(rb[k * COLS + j]) for k in range(K))
            unrounded = sum(Fraction(a[i * K + k]) * Fraction(b[k * COLS + j]) for k in range(K))
            # f32 accumulation of K exact products, in any order: |error| <= K * 2^-24 * sum |a b|.
            bound = K * Fraction(1, 2**24) * sum(abs(Fraction(ra[i * K + k]) * Fraction(rb[k * COLS + j])) for k in range(K))
            got = Fraction(c[i * COLS + j])
            bad += abs(got - exact) > bound
            seen += abs(got - unrounded) > bound
    assert seen > ROWS * COLS // 2, seen
    print("tf32 gemm: %d mismatches; %d of %d elements differ from the unrounded GEMM" % (bad, seen, ROWS * COLS))


if __name__ == "__main__":
    {"gen": gen, "check-cast": check_cast, "check-gemm": check_gemm}[sys.argv[1]](sys.argv[2])
