#!/usr/bin/env bash
# h200_sass_ld.sh: the instruction-level (SASS-patched) LDS/STS counters beside the hardware ones,
# pattern by pattern (one warp, one instruction per launch). Found in round 9 (2026-12-01x): for an
# 8-byte load that R6 merges into one phase with a bank conflict ([0, 128, 0, 128, ...]), the
# hardware l1tex__ counter gives 2 wavefronts and smsp__sass_ 4; `trace --check` compares with the
# smsp__sass_ ones. This measures both on R6's probe and on every LDS/STS batch measured before:
# tests/conformance/{r6_probe,patterns,fresh_r6,fresh_batch}.jsonl -> $OUT/<batch>_sass.jsonl
# (each line with "counters": every collected counter). Device tool: run command="bash
# scripts/h200_sass_ld.sh" carry=[".devdeps"]; about 3 minutes. Never changes clocks or settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_build OFF bankscope-gpu
EXTRA=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared.sum
for b in r6_probe patterns fresh_r6 fresh_batch; do
  step "$b"
  timeout 200 "$BUILD/bin/bankscope-gpu" patterns --jsonl "tests/conformance/$b.jsonl" --extra-metrics "$EXTRA" \
    --out "$OUT/${b}_sass.jsonl"
  echo "$b exit $?"
done
python3 - "$OUT" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/*_sass.jsonl")):
    n = same = 0
    for l in open(f):
        p = json.loads(l)
        c = p.get("counters", {})
        k = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_" + p["op"]
        if k not in c: continue
        n += 1
        same += c[k] == p.get("measured_wavefronts")
    print(f"{f}: {n} patterns with both counters, {same} equal, {n - same} differ")
PY
step "done"
