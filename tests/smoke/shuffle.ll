; Smoke kernel proving the toolchain end to end (LLVM 15 IR, typed pointers, SIMD16):
;   out[i] = in[shuffle: lane (5*l+3) & 15] + 2 * in[shuffle_xor: lane l ^ 1]   (within each subgroup)
; It uses a per-lane-index Intel subgroup shuffle and a shuffle_xor. tests/smoke/run-shuffle.sh takes it
; through llvm-as-15 -> llvm-spirv-15 -> spirv-val -> run_spirv (CPU OpenCL device, checked on the host);
; tests/smoke/isa-shuffle.sh compiles the same SPIR-V with ocloc for pvc and dg2 and checks the ISA.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i32 @_Z22get_sub_group_local_idv()
declare spir_func float @_Z23intel_sub_group_shufflefj(float, i32)
declare spir_func float @_Z27intel_sub_group_shuffle_xorfj(float, i32)

define spir_kernel void @shuffle_smoke(float addrspace(1)* %in, float addrspace(1)* %out) !intel_reqd_sub_group_size !0 {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %lane = call spir_func i32 @_Z22get_sub_group_local_idv()
  %pin = getelementptr inbounds float, float addrspace(1)* %in, i64 %gid
  %x = load float, float addrspace(1)* %pin, align 4
  %l5 = mul i32 %lane, 5
  %l53 = add i32 %l5, 3
  %src = and i32 %l53, 15
  %a = call spir_func float @_Z23intel_sub_group_shufflefj(float %x, i32 %src)
  %b = call spir_func float @_Z27intel_sub_group_shuffle_xorfj(float %x, i32 1)
  %b2 = fmul float %b, 2.000000e+00
  %r = fadd float %a, %b2
  %pout = getelementptr inbounds float, float addrspace(1)* %out, i64 %gid
  store float %r, float addrspace(1)* %pout, align 4
  ret void
}

!opencl.ocl.version = !{!1}
!0 = !{i32 16}
!1 = !{i32 2, i32 0}
