#!/usr/bin/env python3
"""dg2_visa_reduce.py: an executable model of the dg2 row-sum loop statement xtc emits
(backends/spirv/Dg2VisaReduceLoop.cpp, row_sum's interior loop): it runs the statement's vISA text on a
buffer of random f32 values and checks the running sums it leaves against the kernel's meaning
computed here.

  dg2_visa_reduce.py ROLES [COLS=N] [OLD=>NEW ...] < module.ll

The meaning: output register r (every lane) = init[r] + the sum of row m0 + r's first T * C columns of
X, T the trip count and C the columns per step (32 for row_sum; COLS=N another tile's width), init[r] the tied initial value (the
same in every lane: the matcher takes only a constant). The reduction order is open (docs/language.md,
`reduction`), the running sum's adds are not: the result is checked against the exact sum
(Fractions) within the error bound of any evaluation tree of depth d = log2(C) + T, g_d *
(|init| + sum |x|) (g_n = n u / (1 - n u), u = 2^-24): a sum that drops, repeats or misplaces one
element is off by about that element, far more. With T = 0 the init must come back bit for bit.

ROLES names the statement's inputs after the tied value, comma-separated: "X" (lane l: the address
of row m0 + l at column 0, 64-bit), "span=BYTES" (the walked address's bytes over the whole loop:
T * BYTES), "K" / "lb" (a counter's bound and start, 32-bit). OLD=>NEW replaces text in the
statement first (a mutation: then the check must fail). Runs T = 3, 1 and 0 (seeds 1-3) and prints
one line each; exits 1 when one fails.

The execution mask is a SIMD8 dispatch's with every lane on: a masked op runs channels 0-7 of its
width only (a masked (M1, 16) leaves its second register unwritten), a NoMask (M1_NM, n) all n.
The model: registers are 32 bytes (8 lanes of a dword); `mov`/`add` over (M1_NM, 1), (M1, 1),
(M1, 8), (M1_NM, 16) or (M1, 16) (two registers) with <1> destinations and <v;w,h> sources or immediates, in the
declared types (f32 adds rounded to f32; uq adds modulo 2^64); `svm_gather4scaled.RGBA (M1, 8) 0x0:uq
A.0 D.0` reads 4 dwords at lane l's address A[l] into lane l of D's registers 0-3; `cmp.lt (M1,1)`
into a predicate, `jmp` (predicated or not) to a label. Memory outside X's tile holds 3.0 (a step too
many changes the sums) and X's rows are padded to a pitch past the columns read.
"""
import random
import re
import struct
import sys
from fractions import Fraction

GRF = 32
TS = {"uq": 8, "q": 8, "ud": 4, "d": 4, "f": 4}
PAD = 3.0
STEP_COLS = 32  # row_sum's tile width; COLS=N for another


def statement(ll):
    m = re.search(r'asm sideeffect "(\{\\0A\.decl xtc_s[^"]*)", "([^"]*)"\(([^)]*)\)', ll)
    assert m, "no row-sum statement (xtc_s) in the module"
    return m.group(1).replace("\\0A", "\n"), m.group(2).split(",")


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def run(text, cons, roles, trips, seed, step_cols=STEP_COLS):
    rnd = random.Random(seed)
    m0, cols = 16, trips * step_cols
    pitch = (cols + 8) * 4 + 4 * seed  # rows padded; not a multiple of 16 for seed 1 and 3 (4-byte aligned)
    base = 0x10000
    rows = m0 + 8 + 2
    vals = {}
    mem = {}
    for i in range(rows):
        for j in range(pitch // 4):
            v = f32(rnd.uniform(-2, 2)) if j < cols else PAD
            vals[i, j] = v
            mem[base + i * pitch + 4 * j] = v
    init = [f32(rnd.uniform(-8, 8)) for _ in range(8)]
    regs, types, alias, pred = {}, {}, {}, {}
    regs["$0"] = bytearray(b"".join(struct.pack("<f", init[r]) for r in range(8) for _ in range(8)))
    types["$0"] = "f"
    assert cons[0] == "=rw" and cons[1] == "0" and len(cons) == 2 + len(roles), (cons, roles)
    for i, role in enumerate(roles):
        name = f"${i + 2}"
        if role == "X":
            regs[name] = bytearray(b"".join((base + (m0 + l) * pitch).to_bytes(8, "little") for l in range(8)))
            types[name] = "uq"
        elif role.startswith("span="):
            regs[name] = bytearray((trips * int(role[5:])).to_bytes(8, "little"))
            types[name] = "uq"
        elif role in ("K", "lb"):
            regs[name] = bytearray((cols if role == "K" else 0).to_bytes(4, "little"))
            types[name] = "d"
        else:
            raise SystemExit(f"dg2_visa_reduce: unknown role {role}")

    def loc(name):
        return alias.get(name, (name, 0))

    def rd(root, off, t):
        b = bytes(regs[root][off:off + TS[t]])
        assert len(b) == TS[t], f"read past {root}"
        return struct.unpack("<f", b)[0] if t == "f" else int.from_bytes(b, "little", signed=t in ("d", "q"))

    def wr(root, off, t, v):
        assert off + TS[t] <= len(regs[root]), f"write past {root}"
        regs[root][off:off + TS[t]] = struct.pack("<f", v) if t == "f" else (int(v) % (1 << 8 * TS[t])).to_bytes(TS[t], "little")

    opnd = re.compile(r"^(\$?\w+)\((\d+),(\d+)\)<(?:(\d+)|(\d+);(\d+),(\d+))>$")

    def src(s, i, t):
        m = re.match(r"^(0x[0-9a-f]+):(\w+)$", s)
        if m:
            v = int(m.group(1), 16)
            return struct.unpack("<f", v.to_bytes(4, "little"))[0] if m.group(2) == "f" else v
        m = opnd.match(s)
        assert m and m.group(5), f"operand {s}"
        name = m.group(1)
        vs, w, hs = int(m.group(5)), int(m.group(6)), int(m.group(7))
        root, off = loc(name)
        c = int(m.group(3)) + (i // w) * vs + (i % w) * hs
        return rd(root, off + int(m.group(2)) * GRF + c * TS[types[name]], types[name])

    lines = [l for l in text.strip().split("\n") if l not in ("{", "}")]
    labels = {l[:-1]: i for i, l in enumerate(lines) if re.match(r"^\w+:$", l)}
    pc, executed = 0, 0
    while pc < len(lines):
        line = lines[pc]
        pc += 1
        executed += 1
        if executed > 10 ** 5:
            print("note: the loop does not end")
            return 1, 8
        if re.match(r"^\w+:$", line):
            continue
        m = re.match(r"^\.decl (\w+) v_type=P num_elts=1$", line)
        if m:
            pred[m.group(1)] = False
            continue
        m = re.match(r"^\.decl (\w+) v_type=G type=(\w+) num_elts=(\d+) align=\w+(?: alias=<(\w+),(\d+)>)?$", line)
        if m:
            name, t, cnt, root, off = m.groups()
            types[name] = t
            if root:
                r, o = loc(root)
                alias[name] = (r, o + int(off))
            else:
                regs[name] = bytearray(int(cnt) * TS[t])
            continue
        m = re.match(r"^(?:\((!?)(\w+)\) )?jmp \(M1,1\) (\w+)$", line)
        if m:
            if m.group(2) is None or pred[m.group(2)] != (m.group(1) == "!"):
                pc = labels[m.group(3)]
            continue
        m = re.match(r"^cmp\.lt \(M1,1\) (\w+) (\S+) (\S+)$", line)
        if m:
            t = types[opnd.match(m.group(2)).group(1)]
            pred[m.group(1)] = src(m.group(2), 0, t) < src(m.group(3), 0, t)
            continue
        m = re.match(r"^(mov|add) \((M1_NM, 1|M1, 1|M1,1|M1, 8|M1_NM, 16|M1, 16)\) (\S+) (\S+)(?: (\S+))?$", line)
        if m:
            op, width, d, a, b = m.groups()
            dm = opnd.match(d)
            assert dm and dm.group(4) == "1", f"destination {d}"
            name = dm.group(1)
            t = types[name]
            root, off = loc(name)
            n = {"M1_NM, 1": 1, "M1, 1": 1, "M1,1": 1, "M1, 8": 8, "M1_NM, 16": 16, "M1, 16": 8}[width]  # masked: channels 0-7
            out = []
            for i in range(n):
                v = src(a, i, t) if op == "mov" else src(a, i, t) + src(b, i, t)
                out.append(f32(v) if t == "f" else v)
            for i, v in enumerate(out):  # the sources are read before the destination is written
                wr(root, off + int(dm.group(2)) * GRF + (int(dm.group(3)) + i) * TS[t], t, v)
            continue
        m = re.match(r"^svm_gather4scaled\.RGBA \(M1, 8\) 0x0:uq (\w+)\.0 (\w+)\.0$", line)
        if m:
            ar, ao = loc(m.group(1))
            root, off = loc(m.group(2))
            assert off + 4 * GRF <= len(regs[root]), f"read past {root}"
            for l in range(8):
                a = rd(ar, ao + 8 * l, "uq")
                assert a % 4 == 0, "misaligned"
                for c in range(4):
                    regs[root][off + c * GRF + 4 * l:off + c * GRF + 4 * l + 4] = struct.pack("<f", mem.get(a + 4 * c, PAD))
            continue
        raise SystemExit(f"dg2_visa_reduce: the model does not know the line: {line}")
    u = Fraction(1, 1 << 24)
    d = step_cols.bit_length() - 1 + trips
    g = d * u / (1 - d * u)
    bad = 0
    for r in range(8):
        xs = [vals[m0 + r, j] for j in range(cols)]
        exact = Fraction(init[r]) + sum((Fraction(x) for x in xs), Fraction(0))
        bound = g * (abs(Fraction(init[r])) + sum((abs(Fraction(x)) for x in xs), Fraction(0)))
        for l in range(8):
            got = rd("$0", r * GRF + 4 * l, "f")
            if abs(Fraction(got) - exact) > bound:
                print(f"row {r} lane {l}: {got!r}, exact {float(exact)!r}, bound {float(bound)!r}")
                bad += 1
    return bad, 64


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    text, cons = statement(sys.stdin.read())
    step_cols = next((int(a[5:]) for a in sys.argv[2:] if a.startswith("COLS=")), STEP_COLS)
    for mut in (a for a in sys.argv[2:] if not a.startswith("COLS=")):
        old, new = mut.split("=>")
        assert old in text, f"mutation: no {old!r} in the statement"
        text = text.replace(old, new)
    roles = sys.argv[1].split(",")
    fail = 0
    for trips, seed in ((3, 1), (1, 2), (0, 3)):
        bad, n = run(text, cons, roles, trips, seed, step_cols)
        print(f"{'ok' if bad == 0 else 'FAIL'}: row sums, {trips} steps, seed {seed}: {bad} of {n} lanes wrong")
        fail |= bad != 0
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
