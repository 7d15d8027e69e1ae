; A kernel with the axpy signature that calls a function nobody defines: the SPIR-V is valid (the
; function is an import), but building the program must fail at link time with a build log. Used by
; the stub tests to check NAME_build_log and the error path of the program cache.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

declare spir_func float @xtc_stub_test_undefined_function(float)

define spir_kernel void @axpy(float addrspace(1)* %X, i64 %X_dim0, float addrspace(1)* %Y, i64 %Y_dim0, float %a) !intel_reqd_sub_group_size !0 !reqd_work_group_size !1 {
entry:
  %r = call spir_func float @xtc_stub_test_undefined_function(float %a)
  store float %r, float addrspace(1)* %Y, align 4
  ret void
}

!opencl.ocl.version = !{!2}
!0 = !{i32 16}
!1 = !{i32 64, i32 1, i32 1}
!2 = !{i32 2, i32 0}
