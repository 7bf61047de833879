#!/usr/bin/env bash
# sass_dump.sh: the SASS of bankscope-gpu's transpose kernels, as committed in
# assets/results/h200/sass_lds_sts.txt (read by sim/sass.hpp and tests/gpu/test_gpu_host.cpp).
#   scripts/sass_dump.sh BINARY [OUT]   BINARY: bankscope-gpu, gpu_host_tests or kernels.cu.o
# Every instruction of every k_transpose_* function and of the issue-15 bench kernels that
# `validate` launches (fast_shift, fast_f4v), in cuobjdump's order, each function once (a binary
# holds a copy per translation unit that instantiates it), without the encoding comments; a
# header says which nvcc flags and which cuobjdump made it.
set -euo pipefail
bin=${1:?usage: sass_dump.sh BINARY [OUT]}
out=${2:-/dev/stdout}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cuobjdump=${BANKSCOPE_CUOBJDUMP:-}
if [[ -z $cuobjdump ]]; then
  for c in "$(command -v cuobjdump 2>/dev/null || true)" /usr/local/cuda/bin/cuobjdump \
           "$root"/.venv/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump; do
    if [[ -n $c && -x $c ]]; then cuobjdump=$c; break; fi
  done
fi
[[ -n $cuobjdump ]] || { echo "sass_dump.sh: cuobjdump not found (scripts/setup.sh installs it into .venv)" >&2; exit 1; }
nvcc_version=$( (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) | grep -m1 release || echo "nvcc: unknown")
{
  echo "# SASS of bankscope-gpu's transpose kernels (kernels/transpose_kernels.cuh via kernels/kernels.cu,"
  echo "# and the fast_shift / fast_f4v / fast_sec kernels of kernels/fast_transpose.cuh via kernels/bench.cu)."
  echo "# Made by scripts/sass_dump.sh from $(basename "$bin"): compiled by the project's CMake build,"
  echo "# nvcc -O3 --generate-code=arch=compute_90,code=sm_90 -lineinfo ($nvcc_version);"
  echo "# disassembled by cuobjdump $("$cuobjdump" --version | grep -m1 -o "release.*") (cuobjdump -sass), encoding comments dropped."
  echo "# The H200 runs this code (same compiler and flags). Read by sim/sass.hpp; checked by tests/gpu/test_gpu_host.cpp."
  "$cuobjdump" -sass "$bin" | awk '
    /Function : / { keep = ($0 ~ /k_transpose_|fast_shift|fast_f4v|fast_sec/) && !($3 in seen); seen[$3] = 1 }
    /^Fatbin / { keep = 0 }                                  # the next translation unit begins
    keep {
      if ($0 ~ /^[ \t]*\/\* 0x[0-9a-f]+ \*\/[ \t]*$/) next   # encoding-only line
      sub(/[ \t]*\/\* 0x[0-9a-f]+ \*\/[ \t]*$/, "")          # trailing encoding
      print
    }'
} > "$out"
