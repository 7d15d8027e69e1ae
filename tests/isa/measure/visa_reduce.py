#!/usr/bin/env python3
"""visa_reduce.py: an executable model of the lane.reduce statements xtc emits as inline vISA
(backends/spirv/VisaEmitter.cpp, visaReduceF32): it runs each statement's text on lanes of f32
values and checks every lane of its result against the reduction computed here, independently of
the statement's tree.

  visa_reduce.py KIND LANES [OLD=>NEW ...] < module.ll

KIND: add or max; LANES: the subgroup size (16 on pvc, 8 on dg2). Every `.decl xtc_red` statement of
the module is run. OLD=>NEW replaces text in each statement first (a mutation: then the check must
fail). Prints one line per statement and input set; exits 1 when one fails or there is none.

The model: variables are arrays of f32 elements; `$1` is the source (one element per lane), `$0` the
result, `xtc_red` the declared temporary. `OP (M1_NM, W) D(0,d)<1> A(0,a)<R> B(0,b)<R>` with OP add,
max, min or mov (one source), for W lanes i: D[d + i] = A[a + i] op B[b + i] for the region <1;1,0>,
A[a] for <0;1,0>; f32 rounding after each op; max/min of IEEE values (no NaN inputs here).
The reference: the sum of the lanes in exact arithmetic (fractions) within one f32 rounding per level
of any tree (log2(LANES) + 1 units of 2^-24 of the sum of magnitudes), or the largest lane exactly.
"""
import fractions
import math
import random
import re
import struct
import sys


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def statements(ll):
    for m in re.finditer(r'asm "(\{\\0A\.decl xtc_red[^"]*)"', ll):
        yield m.group(1).replace("\\0A", "\n")


OPND = re.compile(r"(\$\d|xtc_red)\(0,(\d+)\)<([0-9;,]+)>")


def run(text, lanes, src):
    var = {"$1": list(src), "$0": [None] * lanes}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(".decl"):
            n = int(re.search(r"num_elts=(\d+)", line).group(1))
            var["xtc_red"] = [None] * n
            continue
        m = re.match(r"(add|max|min|mov) \(M1_NM, ?(\d+)\) (.*)$", line)
        if not m:
            continue  # braces
        op, w, rest = m.group(1), int(m.group(2)), m.group(3)
        ops = OPND.findall(rest)
        assert len(ops) == (2 if op == "mov" else 3), line
        (dn, do, dr), srcs = ops[0], ops[1:]
        assert dr == "1", line

        def read(o, i):
            name, off, reg = o
            k = int(off) + (0 if reg == "0;1,0" else i)
            v = var[name][k]
            assert v is not None, f"{line}: reads {name}[{k}] before it is written"
            return v

        for i in range(w):
            a = [read(o, i) for o in srcs]
            r = a[0] if op == "mov" else f32(a[0] + a[1]) if op == "add" else max(a) if op == "max" else min(a)
            var[dn][int(do) + i] = r
    return var["$0"]


def inputs(lanes, rnd):
    yield "random", [f32(rnd.uniform(-100, 100)) for _ in range(lanes)]
    yield "negative", [f32(-rnd.uniform(1, 50)) for _ in range(lanes)]  # an identity of 0 would show
    for last in (0, lanes - 1, lanes // 2 - 1, lanes // 2):  # the extreme in one lane, each half
        v = [f32(rnd.uniform(-4, -2)) for _ in range(lanes)]
        v[last] = 7.5
        yield f"peak in lane {last}", v
    yield "with -inf", [-math.inf] * (lanes - 1) + [f32(-3.25)]


def main():
    kind, lanes = sys.argv[1], int(sys.argv[2])
    muts = [a.split("=>", 1) for a in sys.argv[3:]]
    texts = list(statements(sys.stdin.read()))
    if not texts:
        print("FAIL: no xtc_red statement in the module")
        return 1
    bad = 0
    rnd = random.Random(11)
    for n, text in enumerate(texts):
        for old, new in muts:
            text = text.replace(old, new)
        for name, src in inputs(lanes, rnd):
            got = run(text, lanes, src)
            if kind == "max":
                ok = all(g == max(src) for g in got)
            else:
                if any(math.isinf(v) for v in src):
                    continue
                exact = sum(fractions.Fraction(v) for v in src)
                tol = (math.log2(lanes) + 1) * 2.0**-24 * sum(abs(v) for v in src)
                ok = all(g is not None and abs(fractions.Fraction(g) - exact) <= tol for g in got)
            bad += not ok
            print(f"{'ok' if ok else 'FAIL'}: statement {n} ({kind}, {lanes} lanes), {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
