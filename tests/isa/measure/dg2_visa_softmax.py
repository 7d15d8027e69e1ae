#!/usr/bin/env python3
"""dg2_visa_softmax.py: the hand-written probe of softmax's block path as ONE inline-vISA statement
on dg2 (tests/isa/measure/dg2-visa.sh `softmax`), written before Dg2VisaBlock.cpp's emitter to know
the count (issue 11). Prints an LLVM module whose kernel sm(X, Y, pitch, x offset, y offset) does, for
the 8 rows of 64 f32 at the offsets: 8 `d32x64t` row loads (one per 256-byte row, 8 registers), per
row the in-lane max over its 8 registers and the halving tree over the 8 lanes (4 wide, then two
scalar ops and one), the row's max in lane i of one register; x - max (an add of the negated scalar)
and the exp as XeMath.h writes it (mul, rndz, the clamp's max/min, 2 mad, mul, 2 exp, mul) in place;
the sums the same way into a second register; the division's divisor part once for the 8 sums (and,
2 cmp, the scale's 3 movs, mul, inv: SIMD8) and 2 muls per register in place; 8 `d32x64t` stores.
"""
import sys

msg = "d32x64t"
# `pair`: each register's two exps (2^k and 2^r) as ONE SIMD16 `exp` over a two-register variable
# (K its first register, Q its second): measured one `math.exp (16|M0)`.
pair = len(sys.argv) > 1 and sys.argv[1] == "pair"
p = "xs_"
d, t = [], []
for i in range(8):
    d.append(f".decl {p}a{i} v_type=G type=uq num_elts=1 align=GRF")
    d.append(f".decl {p}w{i} v_type=G type=uq num_elts=1 align=GRF")
    d.append(f".decl {p}R{i} v_type=G type=f num_elts=64 align=GRF")
    d.append(f".decl {p}U{i} v_type=G type=f num_elts=8 align=GRF")
d.append(f".decl {p}M v_type=G type=f num_elts=8 align=GRF")
d.append(f".decl {p}S v_type=G type=f num_elts=8 align=GRF")
d.append(f".decl {p}SU v_type=G type=ud num_elts=8 align=GRF alias=<{p}S,0>")
d.append(f".decl {p}E v_type=G type=ud num_elts=8 align=GRF")
d.append(f".decl {p}C v_type=G type=f num_elts=8 align=GRF")
d.append(f".decl {p}V v_type=G type=f num_elts=8 align=GRF")
d.append(f".decl {p}p0 v_type=P num_elts=8")
d.append(f".decl {p}p1 v_type=P num_elts=8")
for k in range(64):
    if pair:
        d.append(f".decl {p}E{k} v_type=G type=f num_elts=16 align=GRF")
        d.append(f".decl {p}K{k} v_type=G type=f num_elts=8 align=GRF alias=<{p}E{k},0>")
        d.append(f".decl {p}Q{k} v_type=G type=f num_elts=8 align=GRF alias=<{p}E{k},32>")
    else:
        d.append(f".decl {p}K{k} v_type=G type=f num_elts=8 align=GRF")
        d.append(f".decl {p}Q{k} v_type=G type=f num_elts=8 align=GRF")
# addresses: $0 X base, $1 Y base, $2 pitch, $3 X off, $4 Y off
for i in range(8):  # row 0 the base plus the offset, each next row the previous plus the pitch
    for r, base, off in (("a", "$0", "$3"), ("w", "$1", "$4")):
        src = f"{base}(0,0)<0;1,0> {off}(0,0)<0;1,0>" if i == 0 else f"{p}{r}{i - 1}(0,0)<0;1,0> $2(0,0)<0;1,0>"
        t.append(f"add (M1_NM, 1) {p}{r}{i}(0,0)<1> {src}")
for i in range(8):
    t.append(f"lsc_load.ugm (M1_NM, 1) {p}R{i}:{msg} flat[{p}a{i}]:a64")
def tree(op, i, bank):
    # in-lane over the row's 8 registers into U_i, then halving over the lanes into bank(0,i)
    R, U = f"{p}R{i}", f"{p}U{i}"
    t.append(f"{op} (M1, 8) {U}(0,0)<1> {R}(0,0)<1;1,0> {R}(1,0)<1;1,0>")
    for k in range(2, 8):
        t.append(f"{op} (M1, 8) {U}(0,0)<1> {U}(0,0)<1;1,0> {R}({k},0)<1;1,0>")
    t.append(f"{op} (M1, 4) {U}(0,0)<1> {U}(0,0)<1;1,0> {U}(0,4)<1;1,0>")
    t.append(f"{op} (M1, 1) {U}(0,0)<1> {U}(0,0)<0;1,0> {U}(0,2)<0;1,0>")
    t.append(f"{op} (M1, 1) {U}(0,1)<1> {U}(0,1)<0;1,0> {U}(0,3)<0;1,0>")
    t.append(f"{op} (M1, 1) {bank}(0,{i})<1> {U}(0,0)<0;1,0> {U}(0,1)<0;1,0>")
for i in range(8):
    tree("max", i, f"{p}M")
for i in range(8):
    for k in range(8):
        x = f"{p}R{i}({k},0)"
        K, Q = f"{p}K{8*i+k}", f"{p}Q{8*i+k}"
        t.append(f"add (M1, 8) {x}<1> {x}<1;1,0> (-){p}M(0,{i})<0;1,0>")
        t.append(f"mul (M1, 8) {Q}(0,0)<1> {x}<1;1,0> 0x3fb8aa3b:f")
        t.append(f"rndz (M1, 8) {K}(0,0)<1> {Q}(0,0)<1;1,0>")
        t.append(f"max (M1, 8) {K}(0,0)<1> {K}(0,0)<1;1,0> 0xc3180000:f")
        t.append(f"min (M1, 8) {K}(0,0)<1> {K}(0,0)<1;1,0> 0x43180000:f")
        t.append(f"mad (M1, 8) {Q}(0,0)<1> {K}(0,0)<1;1,0> 0xbf317200:f {x}<1;1,0>")
        t.append(f"mad (M1, 8) {Q}(0,0)<1> {K}(0,0)<1;1,0> 0xb5bfbe8e:f {Q}(0,0)<1;1,0>")
        t.append(f"mul (M1, 8) {Q}(0,0)<1> {Q}(0,0)<1;1,0> 0x3fb8aa3b:f")
        if pair:
            t.append(f"exp (M1, 16) {p}E{8*i+k}(0,0)<1> {p}E{8*i+k}(0,0)<1;1,0>")
        else:
            t.append(f"exp (M1, 8) {K}(0,0)<1> {K}(0,0)<1;1,0>")
            t.append(f"exp (M1, 8) {Q}(0,0)<1> {Q}(0,0)<1;1,0>")
        t.append(f"mul (M1, 8) {x}<1> {K}(0,0)<1;1,0> {Q}(0,0)<1;1,0>")
for i in range(8):
    tree("add", i, f"{p}S")
t.append(f"and (M1, 8) {p}E(0,0)<1> {p}SU(0,0)<1;1,0> 0x7f800000:ud")
t.append(f"cmp.eq (M1, 8) {p}p0 {p}E(0,0)<1;1,0> 0x0:ud")
t.append(f"cmp.ge (M1, 8) {p}p1 {p}E(0,0)<1;1,0> 0x64000000:ud")
t.append(f"mov (M1, 8) {p}C(0,0)<1> 0x3f800000:f")
t.append(f"({p}p0) mov (M1, 8) {p}C(0,0)<1> 0x4f800000:f")
t.append(f"({p}p1) mov (M1, 8) {p}C(0,0)<1> 0x2f800000:f")
t.append(f"mul (M1, 8) {p}V(0,0)<1> {p}S(0,0)<1;1,0> {p}C(0,0)<1;1,0>")
t.append(f"inv (M1, 8) {p}V(0,0)<1> {p}V(0,0)<1;1,0>")
for i in range(8):
    for k in range(8):
        x = f"{p}R{i}({k},0)"
        t.append(f"mul (M1, 8) {x}<1> {p}V(0,{i})<0;1,0> {x}<1;1,0>")
        t.append(f"mul (M1, 8) {x}<1> {x}<1;1,0> {p}C(0,{i})<0;1,0>")
for i in range(8):
    t.append(f"lsc_store.ugm (M1_NM, 1) flat[{p}w{i}]:a64 {p}R{i}:{msg}")
text = "{\\0A" + "\\0A".join(d + t) + "\\0A}\\0A"
print('''target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"
define spir_kernel void @sm(float addrspace(1)* %X, float addrspace(1)* %Y, i32 %pitch, i32 %ox, i32 %oy) !intel_reqd_sub_group_size !0 {
  %xi = ptrtoint float addrspace(1)* %X to i64
  %yi = ptrtoint float addrspace(1)* %Y to i64
  call void asm sideeffect "''' + text + '''", "rw.u,rw.u,rw.u,rw.u,rw.u"(i64 %xi, i64 %yi, i32 %pitch, i32 %ox, i32 %oy)
  ret void
}
!0 = !{i32 8}''')
