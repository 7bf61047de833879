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
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed_op_shared_atom.sum,smsp__sass_inst_executed_op_shared_atom.sum
timeout 200 "$NCU" --csv --clock-control none --metrics "$M" "$W/atom_inc" ${ATOM_ARGS:-} >"$W/ncu.csv"
grep -v "^==" "$W/ncu.csv" | grep '^"' >"$OUT/metrics.csv"
python3 - "$OUT/metrics.csv" "$W/plain.txt" <<'PY' | tee "$OUT/measured.txt"
import csv, sys
names = [l.split()[2] for l in open(sys.argv[2]) if l.startswith("launch ")]
rows = {}
for r in csv.reader(open(sys.argv[1])):
    if r[0] == "ID": continue
    rows.setdefault(int(r[0]), {})[r[12]] = r[14].replace(",", "")
print("# pattern  hw_wavefronts hw_bank_conflicts sass_wavefronts inst_executed")
for i, name in enumerate(names):
    m = rows.get(i, {})
    print(name, m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
          m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
          m.get("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
          m.get("smsp__inst_executed_op_shared_atom.sum"))
PY
echo "== done $(date -u +%FT%TZ)"
