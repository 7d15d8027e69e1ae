; Kernels for the stub tests (tests/stub), written by hand against the kernel ABI of docs/abi.md so the
; stub tests do not depend on the compiler pipeline. StubFixture.cpp builds the matching lowered
; modules (signature, launch rule, wg_size, sg_size, target).
;   axpy(X: memref<?xf32>, Y: memref<?xf32>, a: f32)   grid (ceildiv(dim(X,0), 64), 1, 1), wg 64
;       Y[i] = a * X[i] + Y[i] for i < X_dim0 (one work-item per element)
;   widen(S: memref<4x?xbf16>, D: memref<4x?xf32>, bs: index)   grid (ceildiv(dim(S,1), bs), 4, 1), wg 16
;       D[r][c] = float(S[r][c]) (bf16 bits << 16); workgroup (g, r) covers columns [g*bs, g*bs+bs)
;       with its 16 work-items striding by 16, so every bs >= 1 covers the row exactly once.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i64 @_Z12get_group_idj(i32)
declare spir_func i64 @_Z12get_local_idj(i32)

define spir_kernel void @axpy(float addrspace(1)* %X, i64 %X_dim0, float addrspace(1)* %Y, i64 %Y_dim0, float %a) !intel_reqd_sub_group_size !0 !reqd_work_group_size !1 {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %in = icmp slt i64 %i, %X_dim0
  br i1 %in, label %body, label %exit
body:
  %px = getelementptr inbounds float, float addrspace(1)* %X, i64 %i
  %x = load float, float addrspace(1)* %px, align 4
  %py = getelementptr inbounds float, float addrspace(1)* %Y, i64 %i
  %y = load float, float addrspace(1)* %py, align 4
  %ax = fmul float %a, %x
  %r = fadd float %ax, %y
  store float %r, float addrspace(1)* %py, align 4
  br label %exit
exit:
  ret void
}

define spir_kernel void @widen(i16 addrspace(1)* %S, i64 %S_dim1, float addrspace(1)* %D, i64 %D_dim1, i64 %bs) !intel_reqd_sub_group_size !0 !reqd_work_group_size !2 {
entry:
  %g = call spir_func i64 @_Z12get_group_idj(i32 0)
  %row = call spir_func i64 @_Z12get_group_idj(i32 1)
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %c0 = mul i64 %g, %bs
  %e0 = add i64 %c0, %bs
  %lt = icmp slt i64 %e0, %S_dim1
  %end = select i1 %lt, i64 %e0, i64 %S_dim1
  %start = add i64 %c0, %lid
  %srow = mul i64 %row, %S_dim1
  %drow = mul i64 %row, %D_dim1
  br label %loop
loop:
  %c = phi i64 [ %start, %entry ], [ %cn, %body ]
  %more = icmp slt i64 %c, %end
  br i1 %more, label %body, label %exit
body:
  %si = add i64 %srow, %c
  %ps = getelementptr inbounds i16, i16 addrspace(1)* %S, i64 %si
  %s = load i16, i16 addrspace(1)* %ps, align 2
  %s32 = zext i16 %s to i32
  %bits = shl i32 %s32, 16
  %f = bitcast i32 %bits to float
  %di = add i64 %drow, %c
  %pd = getelementptr inbounds float, float addrspace(1)* %D, i64 %di
  store float %f, float addrspace(1)* %pd, align 4
  %cn = add i64 %c, 16
  br label %loop
exit:
  ret void
}

!opencl.ocl.version = !{!3}
!0 = !{i32 16}
!1 = !{i32 64, i32 1, i32 1}
!2 = !{i32 16, i32 1, i32 1}
!3 = !{i32 2, i32 0}
