#!/usr/bin/env python3
# visa-slm-addr-sim.py [--seed S] [--in N=VALUE]... [--expect VAR=EXPR]... [--expect-file F] < module.ll
# Runs the scalar part of a whole-loop inline-vISA statement with SLM messages (RFC 2.4 on pvc,
# backends/spirv/VisaLoop.cpp) -- its counter, compare and jumps and the index program's mov, add,
# add3, shl, shr, and on 32-bit registers -- for every iteration the statement itself makes, and checks
# the address each lsc_load.slm / lsc_store.slm sends from against a formula the test writes from
# the kernel. Nothing else of the statement is executed (sends, dpas and payload movs do not change
# a scalar). vISA semantics used (the vISA spec): `shr` is logical, `add` / `shl` wrap at 32 bits,
# `cmp.lt` on :d is signed, `(p) jmp` / `(!p) jmp` jump when the flag is set / clear.
# Asm inputs ($N, after the outputs): an `i32 <constant>` operand of the call has its value (the loop bounds);
# anything else (kernel arguments, ids, the SLM pool's address) gets --in N=VALUE or, by default,
# a random 32-bit value (--seed): the addresses must hold whatever the SLM pool's address is.
# F holds `VAR = EXPR` lines (# starts a comment). EXPR is Python over `k` (the counter at that iteration) and `$N`; compared modulo 2^32. Exit 0
# and "ok: I iterations, M messages" when every checked address matches and every message has an
# --expect, else 1 with the first differences.
import argparse
import random
import re
import sys

MASK = 0xFFFFFFFF


def statement(ll):
    m = re.search(r'asm sideeffect "(\{.*?lsc_load\.slm.*?)", "([^"]*)"\((.*)\)', ll)
    if not m:
        sys.exit("no asm statement with SLM messages")
    text = re.sub(r"\\([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(1))
    # The call's operands, split at top-level commas (constant expressions nest parentheses).
    args, depth, cur = [], 0, ""
    for ch in m.group(3):
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        depth += ch in "(<[" and 1 or 0
        depth -= ch in ")>]" and 1 or 0
        cur += ch
    args.append(cur.strip())
    # Outputs take $0.. and are no operands of the call: operand n is $(n + outputs).
    outs = sum(1 for c in m.group(2).split(",") if c.startswith("="))
    return text.splitlines(), {n + outs: a for n, a in enumerate(args)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--in", dest="ins", action="append", default=[])
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--expect-file")
    o = ap.parse_args()
    if o.expect_file:
        for ln in open(o.expect_file):
            ln = ln.split("#")[0].strip()
            if ln:
                o.expect.append(ln)
    lines, args = statement(sys.stdin.read())
    rnd = random.Random(o.seed)
    inputs = {}
    for n, a in args.items():
        c = re.fullmatch(r"i32 (-?\d+)", a)
        inputs[n] = int(c.group(1)) & MASK if c else rnd.getrandbits(32)
    for s in o.ins:
        n, v = s.split("=")
        inputs[int(n)] = int(v, 0) & MASK
    expects = {}
    for s in o.expect:
        var, expr = s.split("=", 1)
        var, expr = var.strip(), expr.strip()
        expects[var] = re.sub(r"\$(\d+)", lambda x: f"inputs[{x.group(1)}]", expr)

    regs, flags, labels, prog = {}, {}, {}, []
    for ln in lines:
        ln = ln.strip()
        if re.fullmatch(r"[A-Za-z_]\w*:", ln):
            labels[ln[:-1]] = len(prog)
        elif ln and not ln.startswith((".decl", "{", "}")):
            prog.append(ln)

    def src(t):
        t = t.strip()
        if re.fullmatch(r"-?\d+:[ud]+w?", t) or re.fullmatch(r"-?\d+:d", t):
            return int(t.split(":")[0]) & MASK
        m = re.fullmatch(r"\$(\d+)\(0,0\)<0;1,0>", t)
        if m:
            return inputs[int(m.group(1))]
        m = re.fullmatch(r"(\w+)\(0,0\)<0;1,0>", t)
        if m:
            return regs[m.group(1)]
        raise ValueError(t)

    def signed(x):
        return x - (1 << 32) if x & 0x80000000 else x

    sent, bad, iters, pc, steps = set(), [], 0, 0, 0
    first = next(re.sub(r"^xtc_l\d+_", "", re.search(r"flat\[(\w+)\]", ln).group(1)) for ln in prog if "flat[" in ln)
    kvar = next(re.search(r"(xtc_l\d+_k)\(", ln).group(1) for ln in prog if re.search(r"xtc_l\d+_k\(", ln))
    scalar = re.compile(r"(mov|add|add3|shl|shr|and) \(M1(?:_NM)?,\s*1\) (\w+)\(0,0\)<1> (\S+)(?: (\S+))?(?: (\S+))?$")
    while pc < len(prog):
        steps += 1
        if steps > 10**7:
            sys.exit("runaway loop")
        ln, pc = prog[pc], pc + 1
        m = scalar.match(ln)
        if m:
            op, dst, a = m.group(1), m.group(2), src(m.group(3))
            b = src(m.group(4)) if m.group(4) else 0
            c = src(m.group(5)) if m.group(5) else 0
            if (op == "add3") != (m.group(5) is not None) or (op == "mov") != (m.group(4) is None):
                sys.exit(f"not understood: {ln}")
            regs[dst] = {"mov": a, "add": (a + b) & MASK, "add3": (a + b + c) & MASK, "shl": (a << (b & 31)) & MASK,
                         "shr": a >> (b & 31), "and": a & b}[op]
            continue
        m = re.match(r"cmp\.lt \(M1,\s*1\) (\w+) (\S+) (\S+)$", ln)
        if m:
            flags[m.group(1)] = signed(src(m.group(2))) < signed(src(m.group(3)))
            continue
        m = re.match(r"\((!?)(\w+)\) jmp \(M1,\s*1\) (\w+)$", ln)
        if m:
            if flags[m.group(2)] != (m.group(1) == "!"):
                pc = labels[m.group(3)]
            continue
        m = re.search(r"lsc_(?:load|store)\.slm .*flat\[(\w+)\]", ln)
        if m:
            var = m.group(1)
            short = re.sub(r"^xtc_l\d+_", "", var)
            k = signed(regs[kvar])
            if short == first:
                iters += 1
            sent.add(short)
            if short not in expects:
                bad.append(f"{short}: no --expect")
                continue
            want = eval(expects[short], {"k": k, "inputs": inputs}) & MASK
            if regs[var] != want:
                bad.append(f"{short} at k={k}: {regs[var]:#x}, expected {want:#x}")
            continue
        # What cannot change a scalar the addresses use: messages, dpas, the barrier, the 16-lane
        # payload movs, the 2D headers' fields. Anything else is not understood: fail.
        if not re.match(r"(raw_sends|dpas|lsc_fence|barrier$|mov \(M1, 16\)|(mov|add) \(M1,1\) xtc_l\d+_h\d+q?\()", ln):
            sys.exit(f"not understood: {ln}")
    if bad:
        print("\n".join(bad[:10]))
        return 1
    print(f"ok: {iters} iterations, {len(sent)} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
