#!/usr/bin/env python3
"""dg2_visa_block.py: an executable model of the dg2 block-path statement xtc emits for a kernel
without a loop (backends/spirv/Dg2VisaBlock.cpp): it runs the statement's vISA text on buffers of
random f32 values and checks what it stored against the kernel's meaning computed here.

  dg2_visa_block.py KERNEL ROLES [OLD=>NEW ...] < module.ll

KERNEL: transpose (Y = X^T on the 16x16 tile at X[m, n] -> Y[n, m]), bias_relu (Y = max(X + bias, 0)
on the 8x32 tile at [m, n]), copy8 (Y = X on the 8x8 tile at [m, n]), add_max (Y = max(X + Z, 1.5)
on the 8x16 tile at [m, n]) or softmax (each of the 8 rows m.. of X's 64 columns: Y = exp(X - max) /
sum exp(X - max), against the same formula in double precision, within 1e-5 relative + 1e-7; its odd
rows span [0, 200), so a wrong max or sign overflows the exp; and the row reductions themselves, read
from the statement's bank registers: each max bit for bit, each sum within a depth-6 tree's error
bound of the exact sum of what it divides: softmax_reductions; and since session 20 every stored value
bit for bit the f32 computation of softmax_f32, the exp and division written out and the reductions
in the trees' association); the tile origin is m = 16, n = 32 (n = 0
for softmax, whose pitches are 256 bytes: the memrefs' static 64 columns) in buffers X and Z
(40 x 72), Y (72 x 40 for transpose, else 40 x 72) and bias (1 x 72), each row padded to its pitch. ROLES names the statement's
inputs in order, comma-separated: "BASE=X|Y|bias" (a buffer's 64-bit address), "U32=EXPR" (a
uniform dword) or "V32=EXPR" (a dword per lane), EXPR a Python expression of m, n, l (the lane) and
px, py, pb (the pitches in bytes). OLD=>NEW replaces text in the statement first (a mutation: then
the check must fail). Prints one line per check; exits 1 when one fails.

The execution mask is a SIMD8 dispatch's with every lane on: a masked op runs channels 0-7 of its
width only (a masked (M1, 16) leaves its second register unwritten), a NoMask (M1_NM, n) all n.
The model: registers are 32 bytes (8 lanes of a dword); `add`/`mov`/`max`/`min`/`mul`/`mad`/`and`/
`rndz`/`exp`/`inv` on (M1_NM, 1), (M1_NM, 32) (four registers: a pair's exps), (M1_NM, 16) (two
registers), (M1_NM, 8), (M1, 16), (M1, 8), (M1, 4) or (M1, 1) with <1> destinations and <0;1,0> /
<1;1,0> sources or any <v;w,h> region (element i at v * (i / w) + h * (i % w): the transposed lane
trees' <8;4,1>, <4;2,1>, <2;1,0>; a `(-)` one negated) or immediates, in the declared types (a qword add of a dword
source sign-extends it; `exp` is 2^x and `inv` 1/x, rounded to f32, as exact as the hardware's math
unit is not: the check's tolerance covers it), an optional predicate `(P)` (lanes where P is off keep
the destination), `cmp.eq`/`cmp.ge` (M1, 8) into a predicate; `lsc_load.ugm (M1_NM, 1) D:d32xNt flat[A]:a64` reads
N dwords at A into D's registers in order (dword k = register k / 8, lane k % 8), `lsc_store.ugm
(M1_NM, 1) flat[A]:a64 S:d32xNt` writes them; `svm_gather4scaled.RGBA (M1, 8) 0x0:uq A.0 D.0` reads
4 dwords at lane l's address A[l] into lane l of D's registers 0-3, `(M1_NM, 16)` at 16 lanes'
addresses (A's 16 qwords) in SoA order, dword c of lane l in lane l % 8 of D's register 2c + l / 8
(`(M1, 16)`: lanes 0-7 only, registers 2c + 1 unwritten); `svm_scatter4scaled.RGBA (M1_NM, 16)
0x0:uq A.0 S.0` writes dword c of lane l from lane l % 8 of S's register 2c + l / 8 at A[l] + 4c (the
gather's layout). Every message address must be
4-byte aligned; seed 3 runs with bases and pitches 4 bytes past a multiple of 16.
"""
import math
import random
import re
import struct
import sys

GRF = 32
TS = {"uq": 8, "q": 8, "ud": 4, "d": 4, "f": 4}


def statement(ll):
    m = re.search(r'asm sideeffect "(\{\\0A\.decl xtc_b[^"]*)", "([^"]*)"\(', ll)
    assert m, "no block statement (xtc_b) in the module"
    text = m.group(1).replace("\\0A", "\n").replace("\\22", '"')
    cons = m.group(2).split(",")
    # The arguments up to the call's closing parenthesis: a base is the memref's pointer itself
    # (`float addrspace(1)* %X`, parentheses inside), the rest i32 values.
    args, depth, cur = [], 0, ""
    for ch in ll[m.end():]:
        if ch == ")" and depth == 0:
            break
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
    args.append(cur)
    types = [a.strip().rsplit(None, 1)[0] for a in args]
    return text, cons, types


def run(text, cons, argtypes, roles, kernel, seed, odd=False, far=False):
    """odd: every base and pitch 4 bytes past a multiple of 16 (the LSC messages need 4-byte alignment
    only, so the guard lets such buffers take the statement). far: X's pitch so large that the tile's
    byte offsets from X's base lie in [2^31, 2^32) (a buffer of 2 to 4 GiB, docs/abi.md): a 32-bit
    offset read as a signed dword would address below the base."""
    rnd = random.Random(seed)
    M, N = 40, 72
    m0, n0 = 16, 32
    px = N * 4 + 64 + 4 * odd
    ydims = (N, M) if kernel == "transpose" else (M, N)
    py = ydims[1] * 4 + 32 + 4 * odd
    if kernel == "softmax":  # the memrefs' static 64 columns: the statement's pitch is the constant 256
        n0, px, py = 0, 256, 256
    if far:  # X's tile rows (m0 .. m0 + 7, transpose's m0 .. m0 + 15) start at or past 2^31 bytes, end below 2^32
        px = (1 << 27) + 64
        assert m0 * px >= 1 << 31 and (m0 + 15) * px + 4 * N < 1 << 32
    pb = N * 4
    bases = {"X": 0x10000, "Y": 0x80000, "bias": 0x100000, "Z": 0x140000}
    if odd:
        bases = {k: v + 4 for k, v in bases.items()}
    mem = {}
    vals = {}
    pz = N * 4 + 16 + 4 * odd
    misaligned = 0  # message addresses that are not 4-byte aligned
    for buf, rows, cols, pitch in (("X", M, N, px), ("bias", 1, N, pb), ("Z", M, N, pz)):
        for i in range(rows):
            for j in range(cols):
                lo, hi = (0, 200) if kernel == "softmax" and i % 2 else (-2, 2)
                v = struct.unpack("<f", struct.pack("<f", rnd.uniform(lo, hi)))[0]
                vals[buf, i, j] = v
                mem.update({bases[buf] + i * pitch + 4 * j + k: b for k, b in enumerate(struct.pack("<f", v))})
    regs, types, alias, preds = {}, {}, {}, {}
    env = {"m": m0, "n": n0, "px": px, "py": py, "pb": pb, "pz": pz}
    assert len(roles) == len(cons) == len(argtypes), (len(roles), len(cons), len(argtypes))
    for i, (role, c, t) in enumerate(zip(roles, cons, argtypes)):
        w = 8 if t == "i64" or t.endswith("*") else 4
        assert role.startswith("BASE=") == (w == 8), (role, t)
        lanes = 1 if c == "rw.u" else 8
        if role.startswith("BASE="):
            vs = [bases[role[5:]]] * lanes
        else:
            assert role[:4] in ("U32=", "V32=") and (lanes == 8) == (role[0] == "V"), (role, c)
            vs = [eval(role[4:], {}, dict(env, l=l)) for l in range(lanes)]
        regs[f"${i}"] = bytearray(b"".join((v % (1 << 8 * w)).to_bytes(w, "little") for v in vs))
        types[f"${i}"] = "q" if w == 8 else "d"

    def loc(name):
        return alias.get(name, (name, 0))

    def rd(root, off, t):
        b = bytes(regs[root][off:off + TS[t]])
        assert len(b) == TS[t], f"read past {root}"
        return struct.unpack("<f", b)[0] if t == "f" else int.from_bytes(b, "little", signed=t in ("d", "q"))

    def wr(root, off, t, v):
        assert off + TS[t] <= len(regs[root]), f"write past {root}"
        regs[root][off:off + TS[t]] = struct.pack("<f", v) if t == "f" else (int(v) % (1 << 8 * TS[t])).to_bytes(TS[t], "little")

    opnd = re.compile(r"^(?:\(-\))?(\$?\w+)\((\d+),(\d+)\)<(?:(\d+)|(\d+);(\d+),(\d+))>$")

    def place(name, r, c, i, vs, w, hs, t):
        root, off = loc(name)
        return root, off + r * GRF + (c + (i // w) * vs + (i % w) * hs) * TS[t]

    def src(s, i, t):
        m = re.match(r"^(0x[0-9a-f]+):(\w+)$", s)
        if m:
            v = int(m.group(1), 16)
            return struct.unpack("<f", v.to_bytes(4, "little"))[0] if m.group(2) == "f" else v
        m = opnd.match(s)
        assert m, f"operand {s}"
        name = m.group(1)
        v = rd(*place(name, int(m.group(2)), int(m.group(3)), i, int(m.group(5)), int(m.group(6)), int(m.group(7)), types[name]), types[name])
        return -v if s.startswith("(-)") else v

    def mem32(a):
        return bytes(mem.get(a + k, 0) for k in range(4))

    stored = {}
    dividends = {}  # softmax: divisor lane -> the values its division's first mul (by D<k>v) multiplies
    for line in text.strip().split("\n"):
        if line in ("{", "}"):
            continue
        m = re.match(r"^\.decl (\w+) v_type=P num_elts=8$", line)
        if m:
            preds[m.group(1)] = [False] * 8
            continue
        m = re.match(r"^\.decl (\w+) v_type=G type=(\w+) num_elts=(\d+)(?: align=\w+)?(?: alias=<(\$?\w+),(\d+)>)?$", line)
        if m:
            name, t, cnt, base, off = m.groups()
            types[name] = t
            if base:
                r, o = loc(base)
                alias[name] = (r, o + int(off))
            else:
                regs[name] = bytearray(int(cnt) * TS[t])
            continue
        m = re.match(r"^cmp\.(eq|ge) \(M1, 8\) (\w+) (\S+) (\S+)$", line)
        if m:
            rel, pn, a, b = m.groups()
            t = types[opnd.match(a).group(1)]
            preds[pn] = [(src(a, i, t) == src(b, i, t)) if rel == "eq" else (src(a, i, t) >= src(b, i, t)) for i in range(8)]
            continue
        m = re.match(r"^(?:\((\w+)\) )?(add|mov|max|min|mul|mad|and|rndz|exp|inv) \((M1_NM, 1|M1_NM, 8|M1_NM, 16|M1_NM, 32|M1, 16|M1, 8|M1, 4|M1, 1)\) (\S+) (\S+)(?: (\S+))?(?: (\S+))?$", line)
        if m:
            pn, op, width, d, a, b, c = m.groups()
            dm = opnd.match(d)
            t = types[dm.group(1)]

            def f32(v):
                return struct.unpack("<f", struct.pack("<f", v))[0]

            def pow2(x):
                try:
                    return f32(2.0 ** x)
                except OverflowError:
                    return float("inf")
            by_inv = re.match(r"^\w+_D\d+v\(0,(\d+)\)<0;1,0>$", a) if op == "mul" else None
            by_inv16 = re.match(r"^\w+_D\d+v\(0,0\)<1;1,0>$", a) if op == "mul" and width == "M1_NM, 16" else None
            n = int(width.split(", ")[1])
            for i in range(n if width.startswith("M1_NM") else min(n, 8)):  # a masked op: channels 0-7
                if pn and not preds[pn][i]:
                    continue
                x = src(a, i, t)
                y = src(b, i, t) if b else None
                if by_inv:
                    dividends.setdefault(int(by_inv.group(1)), []).append(y)
                if by_inv16:  # lane i % 8 of a divisor part made for both bank registers: row i % 8
                    dividends.setdefault(i % 8, []).append(y)
                z = src(c, i, t) if c else None
                v = {"mov": lambda: x, "add": lambda: x + y, "mul": lambda: x * y, "max": lambda: max(x, y), "min": lambda: min(x, y),
                     "mad": lambda: x * y + z, "and": lambda: x & y, "rndz": lambda: float(math.trunc(x)), "exp": lambda: pow2(x),
                     "inv": lambda: (1.0 / x if x else float("inf"))}[op]()
                if t == "f":
                    v = struct.unpack("<f", struct.pack("<f", v))[0]
                wr(*place(dm.group(1), int(dm.group(2)), int(dm.group(3)), i, int(dm.group(4)), 1, 0, t), t, v)
            continue
        m = re.match(r"^lsc_load\.ugm \(M1_NM, 1\) (\w+):d32x(\d+)t flat\[(\w+)\]:a64$", line)
        if m:
            a = rd(*loc(m.group(3)), "uq")
            misaligned += a % 4 != 0
            root, off = loc(m.group(1))
            for k in range(int(m.group(2))):
                regs[root][off + 4 * k:off + 4 * k + 4] = mem32(a + 4 * k)
            continue
        m = re.match(r"^lsc_store\.ugm \(M1_NM, 1\) flat\[(\w+)\]:a64 (\w+):d32x(\d+)t$", line)
        if m:
            a = rd(*loc(m.group(1)), "uq")
            misaligned += a % 4 != 0
            root, off = loc(m.group(2))
            for k in range(int(m.group(3))):
                for j, by in enumerate(regs[root][off + 4 * k:off + 4 * k + 4]):
                    mem[a + 4 * k + j] = by
                stored[a + 4 * k] = stored.get(a + 4 * k, 0) + 1
            continue
        m = re.match(r"^svm_gather4scaled\.RGBA \((M1, 8|M1, 16|M1_NM, 16)\) 0x0:uq (\w+)\.0 (\w+)\.0$", line)
        if m:
            # n lanes, the response in SoA order: channel c of the n lanes in n / 8 registers from
            # register c * n / 8 (lane l at dword l of them); a masked SIMD16 read runs lanes 0-7 only.
            n = int(m.group(1).split(", ")[1])
            ar, ao = loc(m.group(2))
            root, off = loc(m.group(3))
            for l in range(n if m.group(1).startswith("M1_NM") else 8):
                a = rd(ar, ao + 8 * l, "uq")
                misaligned += a % 4 != 0
                for c in range(4):
                    at = off + c * (n // 8) * GRF + 4 * l
                    wr(root, at, "ud", int.from_bytes(mem32(a + 4 * c), "little"))
            continue
        m = re.match(r"^svm_scatter4scaled\.RGBA \(M1_NM, 16\) 0x0:uq (\w+)\.0 (\w+)\.0$", line)
        if m:
            # 16 lanes, the data in SoA order as a gather's response: dword c of lane l from lane l % 8
            # of S's register 2c + l / 8, written at A[l] + 4c.
            ar, ao = loc(m.group(1))
            root, off = loc(m.group(2))
            for l in range(16):
                a = rd(ar, ao + 8 * l, "uq")
                misaligned += a % 4 != 0
                for c in range(4):
                    at = off + (2 * c + l // 8) * GRF + 4 * (l % 8)
                    for j in range(4):
                        mem[a + 4 * c + j] = regs[root][at + j]
                    stored[a + 4 * c] = stored.get(a + 4 * c, 0) + 1
            continue
        raise SystemExit(f"dg2_visa_block: the model does not know the line: {line}")
    # The meaning: which Y elements, with which values.
    want = {}
    if kernel == "transpose":
        for i in range(16):
            for j in range(16):
                want[bases["Y"] + (n0 + j) * py + 4 * (m0 + i)] = vals["X", m0 + i, n0 + j]
    elif kernel == "softmax":
        for i in range(8):
            row = [vals["X", m0 + i, j] for j in range(64)]
            e = [math.exp(x - max(row)) for x in row]
            for j in range(64):
                want[bases["Y"] + (m0 + i) * py + 4 * j] = e[j] / sum(e)
    else:
        cols = {"bias_relu": 32, "copy8": 8, "add_max": 16}[kernel]
        for i in range(8):
            for j in range(cols):
                x = vals["X", m0 + i, n0 + j]
                f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
                y = {"bias_relu": lambda: max(f32(x + vals["bias", 0, n0 + j]), 0.0), "copy8": lambda: x,
                     "add_max": lambda: max(f32(x + vals["Z", m0 + i, n0 + j]), 1.5)}[kernel]()
                want[bases["Y"] + (m0 + i) * py + 4 * (n0 + j)] = y
    if kernel == "softmax":
        bad_reductions = softmax_reductions(regs, alias, vals, m0, dividends)
        # Bit for bit the f32 computation the statement must do (softmax_f32), on top of the tolerance.
        for i in range(8):
            ref = softmax_f32([vals["X", m0 + i, j] for j in range(64)])
            for j in range(64):
                a = bases["Y"] + (m0 + i) * py + 4 * j
                bad_reductions += mem32(a) != struct.pack("<f", ref[j])
    else:
        bad_reductions = 0

    def close(got, v):  # exact for the element-wise kernels, within the math unit's error for softmax
        return got == v if kernel != "softmax" else abs(got - v) <= 1e-5 * abs(v) + 1e-7
    bad = sum(1 for a, v in want.items() if stored.get(a) != 1 or not close(struct.unpack("<f", mem32(a))[0], v))
    bad += sum(1 for a in stored if a not in want)  # a store outside the tile
    return bad + misaligned + bad_reductions, len(want)


def softmax_f32(row):
    """One row of softmax as xtc's dg2 statement computes it, in f32 with this model's operations (each
    rounded to f32; a mad rounded once; 2^x and 1/x rounded): x - max; the exp written out as XeMath.h
    emitXeExpF32 (k = clamp(trunc(x log2 e), -152, 152), r = ((x + k * -ln2hi) + k * -ln2lo) log2 e,
    2^k 2^r); the division as emitXeDivF32 (the scale s from the divisor's exponent bits e: 1.0 - e +
    clamp(e, 32 << 23, 129 << 23), v = 1 / (sum * s), y = (v x) s); both reductions in the trees'
    association (docs/hardware.md "dg2: in-lane reductions as trees"): with x_i the 8 columns 8i..8i+7,
    lane j's ((x0 op x2) op (x4 op x6)) op ((x1 op x3) op (x5 op x7)), then lanes ((0 op 4) op (2 op
    6)) op ((1 op 5) op (3 op 7)). Returns the 64 values."""
    f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
    bits = lambda v: int.from_bytes(struct.pack("<f", v), "little")
    fl = lambda b: struct.unpack("<f", (b % (1 << 32)).to_bytes(4, "little"))[0]

    def tree(op, xs):
        c = lambda a, b: f32(op(a, b))
        lane = [c(c(c(xs[j], xs[16 + j]), c(xs[32 + j], xs[48 + j])), c(c(xs[8 + j], xs[24 + j]), c(xs[40 + j], xs[56 + j]))) for j in range(8)]
        return c(c(c(lane[0], lane[4]), c(lane[2], lane[6])), c(c(lane[1], lane[5]), c(lane[3], lane[7])))

    def pow2(x):
        try:
            return f32(2.0 ** x)
        except OverflowError:
            return float("inf")
    log2e, hi, lo = fl(0x3FB8AA3B), fl(0xBF317200), fl(0xB5BFBE8E)
    mx = tree(max, row)
    e = []
    for x in row:
        d = f32(x - mx)
        k = min(max(float(math.trunc(f32(d * log2e))), -152.0), 152.0)
        q = f32(f32(k * lo + f32(k * hi + d)) * log2e)
        e.append(f32(pow2(k) * pow2(q)))
    s = tree(lambda a, b: a + b, e)
    ex = bits(s) & 0x7F800000
    g = min(max(ex, 32 << 23), 129 << 23) - ex + 0x3F800000
    sc = fl(g)
    v = f32(1.0 / f32(s * sc))
    return [f32(f32(v * x) * sc) for x in e]


def softmax_reductions(regs, alias, vals, m0, dividends):
    """The row reductions of softmax's statement, read from its bank registers after the run (B0 lane
    i: row i's max, B1 lane i: row i's sum; the reductions in the IR's order). The max must be the row's
    maximum bit for bit (max is exact in any order, so a tree gives the chain's value). The sum, of the
    64 values the statement divides by it (its exps, as computed), must be within the error bound of
    a balanced tree of depth 6 (3 in-lane levels over the 8 registers, 3 over the 8 lanes): |s - S| <=
    g6 * sum |e|, g_n = n u / (1 - n u), u = 2^-24, S the exact sum (Fractions). The chain the IR
    writes (7 in-lane steps, then the lanes' 3) is bounded by g10 only. Returns the number of wrong
    rows."""
    from fractions import Fraction

    def lanes(var):
        name = next(n for n in list(regs) + list(alias) if n.endswith("_" + var))
        root, off = alias.get(name, (name, 0))
        return [struct.unpack("<f", bytes(regs[root][off + 4 * i:off + 4 * i + 4]))[0] for i in range(8)]
    bits = lambda v: struct.pack("<f", v)
    u = Fraction(1, 1 << 24)
    g6 = 6 * u / (1 - 6 * u)
    bad = 0
    for i, (mx, s) in enumerate(zip(lanes("B0"), lanes("B1"))):
        row = [vals["X", m0 + i, j] for j in range(64)]
        if bits(mx) != bits(max(row)):
            print(f"row {i}: max {mx!r}, not the row's {max(row)!r}")
            bad += 1
        e = dividends.get(i, [])
        if not all(math.isfinite(v) for v in e + [s]):
            print(f"row {i}: sum {s!r} of {len(e)} values, not all finite")
            bad += 1
            continue
        exact = sum((Fraction(v) for v in e), Fraction(0))
        bound = g6 * sum((abs(Fraction(v)) for v in e), Fraction(0))
        if len(e) != 64 or abs(Fraction(s) - exact) > bound:
            print(f"row {i}: sum {s!r} of {len(e)} values, exact {float(exact)!r}, bound {float(bound)!r}")
            bad += 1
    return bad


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("transpose", "bias_relu", "copy8", "add_max", "softmax"):
        print(__doc__)
        return 2
    text, cons, types = statement(sys.stdin.read())
    for mut in sys.argv[3:]:
        old, new = (x.replace("\\0A", "\n") for x in mut.split("=>"))  # \0A: a line break, as in the .ll
        assert old in text, f"mutation: no {old!r} in the statement"
        text = text.replace(old, new)
    roles = [r.strip() for r in re.split(r",(?![^()]*\))", sys.argv[2])]
    fail = 0
    far = [(4, False, True)] if sys.argv[1] in ("bias_relu", "transpose") else []
    for seed, odd, big in [(1, False, False), (2, False, False), (3, True, False)] + far:
        bad, n = run(text, cons, types, roles, sys.argv[1], seed, odd, big)
        what = " (bases and pitches 4 bytes off 16)" if odd else " (X's byte offsets past 2^31)" if big else ""
        print(f"{'ok' if bad == 0 else 'FAIL'}: {sys.argv[1]} seed {seed}{what}: {bad} of {n} elements wrong, stored elsewhere or misaligned")
        fail |= bad != 0
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
