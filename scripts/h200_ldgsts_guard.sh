#!/usr/bin/env bash
# h200_ldgsts_guard.sh: is a guarded cp.async (@P0 LDGSTS) counted by the H200 and by ncu? One
# device call, about 2 minutes. Never changes clocks or GPU settings (ncu --clock-control none).
#   device tool:  run  command="bash scripts/h200_ldgsts_guard.sh"
# Writes to $OUT: log.txt (everything), probe_metrics.csv (per kernel of kernels/probes/ldgsts_guard.cu:
# the instrumented smsp__sass_ and the hardware l1tex__ ldgsts counters), probe_source.csv (ncu's
# per-instruction source view of the probe), hgemm_metrics.csv (cuBLAS HGEMM, same counters).
OUT=${OUT:-out/ldgsts_guard}
source "$(dirname "$0")/h200_common.sh"  # cd, $OUT/log.txt, the machine (GPU, driver, nvcc)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
W=$(mktemp -d)
step "probe at $(git rev-parse --short HEAD 2>/dev/null || echo no-git)"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o "$W/ldgsts_guard" kernels/probes/ldgsts_guard.cu || exit 1
"$NVCC" -O3 -arch=sm_90 -lineinfo -Ikernels/tracer/corpus -o "$W/cublas_hgemm" kernels/tracer/corpus/cublas_hgemm.cu -lcublas || exit 1
"$(dirname "$NVCC")/cuobjdump" -sass "$W/ldgsts_guard" | grep -E "Function|LDGSTS" | tee "$OUT/probe_sass.txt"
echo "== plain runs"
"$W/ldgsts_guard" 1
"$W/ldgsts_guard" 0
M=smsp__sass_inst_executed_op_ldgsts.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,smsp__inst_executed_op_ldgsts.sum
for flag in 1 0; do
  echo "== ncu metrics, flag $flag"
  timeout 120 "$NCU" --csv --clock-control none --metrics "$M" "$W/ldgsts_guard" "$flag" >"$W/m$flag.csv"
  grep -v "^==" "$W/m$flag.csv" | sed "s/^/flag$flag,/" | tee -a "$OUT/probe_metrics.csv"
done
echo "== ncu source view of the probe (flag 1)"
timeout 120 "$NCU" --csv --clock-control none --section SourceCounters --page source --print-source sass "$W/ldgsts_guard" 1 >"$OUT/probe_source.csv"
grep -E "LDGSTS|Function|Kernel" "$OUT/probe_source.csv" | cut -c1-240
echo "== cuBLAS HGEMM, same counters (3 runs)"
for i in 1 2 3; do
  timeout 120 "$NCU" --csv --clock-control none --metrics "$M" "$W/cublas_hgemm" | grep -v "^==" | sed "s/^/run$i,/" | tee -a "$OUT/hgemm_metrics.csv"
done
echo "== done $(date -u +%FT%TZ)"
