#!/usr/bin/env python3
"""bf16 rounding, checked without xtc's code (issue #10; bf16-rounding.test), pure Python:
    bf16_round.py gen PREFIX    writes PREFIX.x.npy and PREFIX.z.npy (16x40 bf16 as <u2 bits)
    bf16_round.py check PREFIX  reads PREFIX.{add,sub,mul,div,max,min,neg,sel}.npy (bf16_round.xt's
                                outputs) and checks every element against the exact result of the op
                                on the bf16 operands (Fraction arithmetic) rounded once to bf16
The rounding here is the textbook one, not the interpreter's bit trick: the exact value divided by
the bf16 quantum of its binade (2^(e-7), subnormals 2^-133), the nearest integer, ties to even; past
the largest finite bf16 (its quantum's half included) inf. Inputs: pairs whose sums, differences and
products fall exactly halfway between two bf16 values (both ways of breaking the tie), overflow,
subnormal results, signed zeros, inf and NaN, then random bit patterns. `check` also asserts that
ties, overflows, subnormal results and NaNs occur, so the comparison covers them.
    bf16_round.py gen-convert PREFIX / check-convert PREFIX: the same for bf16_convert.xt, i32, i64,
                                f64 and f32 inputs (PREFIX.{i,l,d,f}.npy) converted to bf16
                                (PREFIX.{yi,yl,yd,yf}.npy): values on and next to ties, ones that
                                round twice through f32 (or through f64, for i64), overflow, NaN."""
import math
import random
import struct
import sys
from fractions import Fraction

ROWS, COLS = 16, 40


FORMATS = {"<u2": "H", "<i4": "i", "<i8": "q", "<f8": "d", "<f4": "f"}


def write(path, values, descr="<u2"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, ROWS, COLS)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), FORMATS[descr]), *values))


def read(path, descr="<u2"):
    b = open(path, "rb").read()
    n = struct.unpack("<H", b[8:10])[0]
    assert "'%s'" % descr in b[10:10 + n].decode(), path
    data = b[10 + n:]
    fmt = FORMATS[descr]
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def value(bits):  # a bf16 bit pattern as a Python float (exact: the upper half of an f32)
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def bits_of(v):  # an exactly representable bf16 value (or inf/NaN) as its bit pattern
    u = struct.unpack("<I", struct.pack("<f", v))[0]
    assert math.isnan(v) or u & 0xFFFF == 0, v
    return u >> 16


MAX_BF16 = Fraction(2**8 - 1, 2**7) * 2**127  # 0x7F7F


def round_bf16(q):
    """The exact rational q rounded to the nearest bf16 value, ties to even: (a Python float, whether
    q lay exactly halfway)."""
    if q == 0:
        return 0.0, False
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2^e <= a < 2^(e+2)
    if Fraction(2)**e > a:
        e -= 1
    quantum = Fraction(2)**(max(e, -126) - 7)
    k = a / quantum
    n = k.numerator // k.denominator
    rest = k - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = n * quantum
    r_f = math.inf if r > MAX_BF16 else float(r)  # float(r) is exact: 8 significant bits
    return (-r_f if q < 0 else r_f), rest == Fraction(1, 2)


def exact(op, x, z):
    """(expected float, kind) for one op; kind notes what the case exercises."""
    special = any(math.isinf(v) or math.isnan(v) for v in (x, z)) or (op == "div" and z == 0)
    if op in ("add", "sub", "mul", "div"):
        if special:  # IEEE on the host: inf/NaN results (and finite / inf = signed zero) are exact
            with_inf = {"add": lambda: x + z, "sub": lambda: x - z, "mul": lambda: x * z,
                        "div": lambda: (math.copysign(math.inf, x) * math.copysign(1, z) if x != 0 and not math.isnan(x)
                                        else math.nan) if z == 0 else x / z}[op]
            return with_inf(), "special"
        fx, fz = Fraction(x), Fraction(z)
        q = {"add": lambda: fx + fz, "sub": lambda: fx - fz, "mul": lambda: fx * fz, "div": lambda: fx / fz}[op]()
        r, tie = round_bf16(q)
        if q == 0 or r == 0:  # the sign of a zero result: IEEE rules
            if op == "add":
                neg = (q == 0 and math.copysign(1, x) < 0 and math.copysign(1, z) < 0) or (q < 0)
            elif op == "sub":
                neg = (q == 0 and math.copysign(1, x) < 0 and math.copysign(1, z) > 0) or (q < 0)
            else:
                neg = (math.copysign(1, x) < 0) != (math.copysign(1, z) < 0)
            r = -0.0 if neg else 0.0
        kind = "finite"
        if math.isinf(r):
            kind = "overflow"
        elif r != 0 and abs(r) < 2.0**-126:
            kind = "subnormal"
        elif tie:
            kind = "tie"
        return r, kind
    if op in ("max", "min"):  # IEEE maxNum/minNum: a NaN operand loses
        if math.isnan(x) or math.isnan(z):
            return (z if math.isnan(x) else x), "special"
        return (max if op == "max" else min)(x, z), "finite"
    if op == "neg":
        return -x, "finite"
    if op == "sel":
        return (x if x < z else z), "finite"
    raise ValueError(op)


def gen(prefix):
    rnd = random.Random(10)
    pairs = [
        (1.0, 2.0**-8), (1.0 + 2.0**-7, 2.0**-8),            # add ties: to even down, to even up
        (-1.0, -(2.0**-8)), (1.0 + 2.0**-7, -(2.0**-8)),
        (35.0 / 32, 11.0 / 8), (35.0 / 32, -11.0 / 8),      # product 385/256: a tie
        (2.0**127 * 1.5, 2.0**127 * 1.5), (2.0**127 * 1.25, 4.0),      # overflow to inf (add, mul)
        (2.0**-120, 2.0**-15), (2.0**-126, 0.75),           # subnormal products
        (0.0, -0.0), (-0.0, -0.0), (1.0, 1.0), (-2.0, 2.0),  # signed zeros
        (math.inf, 1.0), (math.inf, -math.inf), (math.inf, 0.0), (-math.inf, 3.0),
        (math.nan, 1.0), (2.0, math.nan), (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0),
        (value(0x0001), value(0x0001)), (value(0x0081), -value(0x0080)),  # subnormal operands
    ]
    xs, zs = [bits_of(a) for a, _ in pairs], [bits_of(b) for _, b in pairs]
    n = ROWS * COLS
    while len(xs) < n:
        if len(xs) % 2 == 0:  # nearby exponents: sums and products often land on ties
            e = rnd.randint(-20, 20)
            m1, m2 = rnd.randint(128, 255), rnd.randint(128, 255)
            x = m1 * 2.0**(e - 7) * rnd.choice((1, -1))
            z = m2 * 2.0**(e - 7 - rnd.randint(0, 9)) * rnd.choice((1, -1))
            xs.append(bits_of(x))
            zs.append(bits_of(z))
        else:  # any bit pattern
            xs.append(rnd.randrange(0x10000))
            zs.append(rnd.randrange(0x10000))
    write(prefix + ".x.npy", xs)
    write(prefix + ".z.npy", zs)


def f32(v):  # the nearest f32 of a Python float (inputs of the f32 conversion)
    return struct.unpack("<f", struct.pack("<f", v))[0]


def gen_convert(prefix):
    rnd = random.Random(11)
    n = ROWS * COLS
    ints, longs, doubles, floats = [], [], [], []
    for k in range(9, 31):  # a tie at 2^k (quantum 2^(k-7)), just below and just above it
        t = 2**k + 2**(k - 8)
        ints += [t, t - 1, t + 1, -t, 2**k + 3 * 2**(k - 8)]
    ints += [2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 2**31 - 1, -2**31, 0, 1, -1]
    for k in range(9, 63):
        t = 2**k + 2**(k - 8)
        longs += [t, t + 1, -t - 1, t - 1]
    longs += [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**63 - 1, -2**63, 0]
    for e in range(-130, 128, 3):  # a bf16 tie, ties missed by an f32 rounding, overflow, tiny values
        t = 2.0**e * (1 + 2.0**-8)
        doubles += [t, t * (1 + 2.0**-30), -t * (1 - 2.0**-30), 2.0**e * (1 + 3 * 2.0**-8)]
    doubles += [3.4028234663852886e38, 3.5e38, 1e300, -1e300, 1e-300, -1e-300, 0.0, -0.0,
                math.inf, -math.inf, math.nan]
    for e in range(-133, 128, 2):
        floats += [f32(2.0**e * (1 + 2.0**-8)) if e >= -126 else 2.0**e, f32(2.0**e * (1 + 2.0**-8 + 2.0**-20)) if e >= -120 else 0.0]
    floats += [3.4028234663852886e38, -3.4028234663852886e38, math.inf, math.nan, -0.0]
    while len(ints) < n:
        ints.append(rnd.randint(-2**31, 2**31 - 1))
    while len(longs) < n:
        longs.append(rnd.randint(-2**63, 2**63 - 1))
    while len(doubles) < n:
        doubles.append(rnd.uniform(-1, 1) * 2.0**rnd.randint(-140, 130))
    while len(floats) < n:
        floats.append(struct.unpack("<f", struct.pack("<I", rnd.randrange(2**32)))[0])
    write(prefix + ".i.npy", ints[:n], "<i4")
    write(prefix + ".l.npy", longs[:n], "<i8")
    write(prefix + ".d.npy", doubles[:n], "<f8")
    write(prefix + ".f.npy", floats[:n], "<f4")


def check_convert(prefix):
    bad, ties, inf_nan = 0, 0, 0
    for src, descr, out in (("i", "<i4", "yi"), ("l", "<i8", "yl"), ("d", "<f8", "yd"), ("f", "<f4", "yf")):
        xs = read("%s.%s.npy" % (prefix, src), descr)
        got = read("%s.%s.npy" % (prefix, out))
        assert len(got) == len(xs), out
        for i, (x, gb) in enumerate(zip(xs, got)):
            if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
                want, tie = x, False
                inf_nan += 1
            else:
                want, tie = round_bf16(Fraction(x))
                if want == 0 and math.copysign(1, float(x)) < 0:
                    want = -0.0
            ties += tie
            g = value(gb)
            ok = math.isnan(g) if math.isnan(want) else (not math.isnan(g) and bits_of(want) == gb)
            if not ok:
                bad += 1
                if bad <= 5:
                    print("%s[%d]: %r: got %r (0x%04x), want %r" % (out, i, x, g, gb, want))
    assert ties >= 100 and inf_nan >= 4, (ties, inf_nan)
    print("bf16 conversions: %d mismatches; ties %d" % (bad, ties))
    return 1 if bad else 0


def check(prefix):
    xs, zs = read(prefix + ".x.npy"), read(prefix + ".z.npy")
    seen = {}
    bad = 0
    for op in ("add", "sub", "mul", "div", "max", "min", "neg", "sel"):
        got = read("%s.%s.npy" % (prefix, op))
        assert len(got) == len(xs), op
        for i, (xb, zb, gb) in enumerate(zip(xs, zs, got)):
            x, z, g = value(xb), value(zb), value(gb)
            want, kind = exact(op, x, z)
            seen[kind] = seen.get(kind, 0) + 1
            if math.isnan(want):
                ok = math.isnan(g)
            elif want == 0 and op in ("max", "min"):
                ok = g == 0  # maxNum(+0, -0) may be either zero
            else:
                ok = not math.isnan(g) and bits_of(want) == gb
            if not ok:
                bad += 1
                if bad <= 5:
                    print("%s[%d, %d]: x %r z %r: got %r (0x%04x), want %r" % (op, i // COLS, i % COLS, x, z, g, gb, want))
    for kind, least in (("tie", 20), ("overflow", 2), ("subnormal", 2), ("special", 20)):
        assert seen.get(kind, 0) >= least, "too few %s cases: %d" % (kind, seen.get(kind, 0))
    print("bf16 rounding: %d mismatches; ties %d, overflows %d, subnormal results %d, inf/NaN cases %d" % (
        bad, seen["tie"], seen["overflow"], seen["subnormal"], seen["special"]))
    return 1 if bad else 0


if __name__ == "__main__":
    commands = {"gen": gen, "check": check, "gen-convert": gen_convert, "check-convert": check_convert}
    sys.exit(commands[sys.argv[1]](sys.argv[2]))
