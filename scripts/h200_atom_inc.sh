#!/usr/bin/env bash
# h200_atom_inc.sh: ATOMS.POPC.INC on the H200 (kernels/probes/atom_inc.cu: one warp, one atomic per
# launch; the hardware l1tex__..._op_atom counters, exact for one warp, and the instrumented ones).
# About 1 minute; ncu --clock-control none, nothing else changed. Writes $OUT/log.txt, metrics.csv
# and measured.txt (pattern, wavefronts, bank conflicts per counter). ATOM_ARGS="--fresh SEED" runs
# the probe's random batch instead of its named patterns.
OUT=${OUT:-out/atom_inc}
source "$(dirname "$0")/h200_common.sh"  # cd, $OUT/log.txt, the machine (GPU, driver, nvcc)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
W=$(mktemp -d)
step "probe at $(git rev-parse --short HEAD 2>/dev/null || echo no-git)"
"$NVCC" -O3 -arch=sm_90 -o "$W/atom_inc" kernels/probes/atom_inc.cu || exit 1
"$(dirname "$NVCC")/cuobjdump" -sass "$W/atom_inc" | grep -E "Function|ATOMS"
"$W/atom_inc" ${ATOM_ARGS:-} | tee "$W/plain.txt"
# The counters of measured.txt's columns (in this order), and the instruction-level count beside them.
KEYS=(l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum smsp__inst_executed_op_shared_atom.sum)
M="$(IFS=,; echo "${KEYS[*]}"),smsp__sass_inst_executed_op_shared_atom.sum"
timeout 200 "$NCU" --csv --clock-control none --metrics "$M" "$W/atom_inc" ${ATOM_ARGS:-} >"$W/ncu.csv"
grep -v "^==" "$W/ncu.csv" | grep '^"' >"$OUT/metrics.csv"
python3 scripts/ncu_launch_table.py "$OUT/metrics.csv" "$W/plain.txt" \
  "pattern  hw_wavefronts hw_bank_conflicts sass_wavefronts inst_executed" "${KEYS[@]}" | tee "$OUT/measured.txt"
echo "== done $(date -u +%FT%TZ)"
