#!/usr/bin/env bash
# h200_atom_cast.sh: the shared atomics without a measured rule (ATOMS.CAST.SPIN of float and 64-bit
# atomicAdd loops; ATOMS.AND/OR/XOR/INC/DEC) on the H200, kernels/probes/atom_cast.cu: one warp, one
# atomic statement per launch. Per launch: the hardware l1tex__..._op_atom counters (exact for one
# warp), the instrumented smsp__sass_ ones, and the instruction counts of the atom and of the loop's
# load; then `bankscope-gpu trace --check` of the same program (every execution of the loop, with
# its lanes, in atom_cast.bstrace). ATOM_ARGS="--fresh SEED" runs the probe's random batch instead.
# About 3 minutes; ncu --clock-control none, nothing else changed. Writes $OUT/log.txt, metrics.csv,
# measured.txt, atom_cast.bstrace, atom_cast.trace.txt, atom_cast.report.txt.
OUT=${OUT:-out/atom_cast}
source "$(dirname "$0")/h200_common.sh"  # cd, $OUT/log.txt, the machine (GPU, driver, nvcc)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
W=$(mktemp -d)
step "probe at $(git rev-parse --short HEAD 2>/dev/null || echo no-git)"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o "$W/atom_cast" kernels/probes/atom_cast.cu || exit 1
"$(dirname "$NVCC")/cuobjdump" -sass "$W/atom_cast" | grep -E "Function|ATOMS|LDS"
"$W/atom_cast" ${ATOM_ARGS:-} | tee "$W/plain.txt"
"$W/atom_cast" ${ATOM_ARGS:-} --jsonl >"$OUT/patterns.jsonl"
# The counters, one per column of measured.txt (in this order).
KEYS=(l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum smsp__sass_inst_executed_op_shared_atom.sum
  smsp__inst_executed_op_shared_atom.sum smsp__sass_inst_executed_op_shared_ld.sum
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)
M=$(IFS=,; echo "${KEYS[*]}")
timeout 200 "$NCU" --csv --clock-control none --metrics "$M" "$W/atom_cast" ${ATOM_ARGS:-} >"$W/ncu.csv"
grep -v "^==" "$W/ncu.csv" | grep '^"' >"$OUT/metrics.csv"
python3 scripts/ncu_launch_table.py "$OUT/metrics.csv" "$W/plain.txt" --index \
  "launch pattern  hw_wavefronts hw_bank_conflicts sass_wavefronts sass_inst inst ld_inst ld_wavefronts" "${KEYS[@]}" | tee "$OUT/measured.txt"

step "trace --check of the probe"
export BANKSCOPE_SANITIZER_ROOT=/usr/local/cuda-13.0/compute-sanitizer
export BANKSCOPE_SANITIZER_DIR=/usr/local/cuda-13.0/compute-sanitizer
h200_build OFF bankscope-gpu bankscope_tracer bankscope-cli
timeout -k 5 200 "$BUILD/bin/bankscope-gpu" trace --check -o "$OUT/atom_cast.bstrace" -- "$W/atom_cast" ${ATOM_ARGS:-} \
  >"$OUT/atom_cast.trace.txt" 2>&1
echo "trace exit $?"
tail -30 "$OUT/atom_cast.trace.txt"
"$BUILD/bin/bankscope-cli" report "$OUT/atom_cast.bstrace" --top 0 >"$OUT/atom_cast.report.txt" 2>&1
ls -l "$OUT"
echo "== done $(date -u +%FT%TZ)"
