#!/usr/bin/env bash
# ctest "toolchain-check": FAILS (never skips) when a tool the device/ISA tests need is missing, naming
# each missing piece and how to get it. Checks: the Intel CPU OpenCL runtime (platform "Intel(R) OpenCL"
# with a CPU device, found through OCL_ICD_VENDORS), ocloc, libiga64.so (for ocloc disasm),
# llvm-as-15, llvm-spirv-15, spirv-val, spirv-dis, FileCheck and lit.
# Usage: toolchain-check.sh RUN_SPIRV_BINARY
set -uo pipefail
run_spirv=${1:?usage: toolchain-check.sh RUN_SPIRV_BINARY}
missing=0
ok() { echo "toolchain-check: ok       $*"; }
miss() { echo "toolchain-check: MISSING  $1 -- $2" >&2; missing=$((missing + 1)); }
fix="run scripts/setup"

for tool in ocloc:intel-opencl-icd llvm-as-15:llvm-15 llvm-spirv-15:llvm-spirv-15 spirv-val:spirv-tools \
            spirv-dis:spirv-tools; do
  name=${tool%%:*} pkg=${tool#*:}
  if path=$(command -v "$name"); then ok "$name ($path)"; else miss "$name" "$fix (Debian package $pkg)"; fi
done
for f in /usr/lib/llvm-15/bin/FileCheck /usr/lib/llvm-15/bin/not /usr/lib/llvm-15/build/utils/lit/lit.py; do
  if [ -e "$f" ]; then ok "$f"; else miss "$f" "$fix (Debian package llvm-15-tools)"; fi
done

# ocloc disasm dlopen()s the unversioned name; libigc1 ships only libiga64.so.1. The cache is read
# whole first: `ldconfig -p | grep -q` under pipefail failed at random (grep -q exits at its first
# match, ldconfig then dies of SIGPIPE and the pipeline reports 141).
cache=$(/sbin/ldconfig -p 2>/dev/null)
if line=$(grep 'libiga64\.so ' <<<"$cache"); then
  ok "libiga64.so (${line##*=> })"
else
  miss "libiga64.so (needed by 'ocloc disasm')" "$fix (it links libiga64.so -> libiga64.so.1 from libigc1 and runs ldconfig)"
fi

# The CPU OpenCL runtime, exactly as the device tests find it.
if [ -z "${OCL_ICD_VENDORS:-}" ]; then
  miss "OCL_ICD_VENDORS" "ctest sets it to <repo>/.venv/xtc-vendors-cpu; $fix"
elif [ ! -d "$OCL_ICD_VENDORS" ] || ! ls "$OCL_ICD_VENDORS"/*.icd > /dev/null 2>&1; then
  miss "Intel CPU OpenCL runtime ICD file in $OCL_ICD_VENDORS" "$fix (PyPI intel-opencl-rt into .venv)"
elif out=$("$run_spirv" --probe --platform "Intel(R) OpenCL" --device cpu 2>&1); then
  ok "${out#run_spirv: }"
else
  echo "$out" >&2
  miss "OpenCL platform 'Intel(R) OpenCL' with a CPU device" "$fix (PyPI intel-opencl-rt + intel-cmplr-lib-rt into .venv)"
fi

if [ "$missing" -ne 0 ]; then
  echo "toolchain-check: FAIL: $missing missing; install them with: scripts/setup" >&2
  exit 1
fi
echo "toolchain-check: PASS"
