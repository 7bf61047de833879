#!/usr/bin/env bash
# h200_round2.sh: the H200 batch for issue 16 (truth in numbers), in one call of the device tool:
#   device tool:  run  command="bash scripts/h200_round2.sh"  carry=[".devdeps"]
# About 4-6 minutes: build (sm_90), the gpu ctests, `validate` of every scenario at the edge sizes
# and the dynamic_stride strides (every predicted counter against its instruction-level
# counterpart), which shared-memory metrics ncu has on this chip, a direct ncu cross-check of
# the instruction counters at edge sizes, and the SASS regenerated with this machine's cuobjdump.
# Other agents' steps: drop a file into scripts/h200_round2.d/ (sourced in name order after
# these steps, with OUT, BUILD, BIN, EXTRA, step() and note_status() defined); keep secondary
# files under $EXTRA (they travel in one archive) and at most 3 files directly in $OUT.
# $OUT (what comes back, at most 8 files): log.txt, ctest.txt, validate.txt, validate.json,
# round2_extra.tar.gz (ncu metric list, ncu edge CSV, SASS, validate's ncu log, hook outputs).
# Never changes clocks or GPU settings (ncu --clock-control none).
source "$(dirname "$0")/h200_common.sh"
EXTRA=$OUT/extra.d
mkdir -p "$EXTRA"
declare -a summary=()
note_status() { summary+=("$(printf '%-64s %s' "$1" "$2")"); }

h200_build ON bankscope-gpu gpu_host_tests gpu_device_tests
BIN="$BUILD/bin/bankscope-gpu"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

step "gpu tests"
timeout 120 ctest --test-dir "$BUILD" -R '^gpu_' --output-on-failure 2>&1 | tee "$OUT/ctest.txt"
note_status "gpu ctests" "$(grep -E 'tests passed|tests failed' "$OUT/ctest.txt" | tail -1)"

step "validate: every scenario, edge sizes, dynamic strides"
sizes=32,33,100,2047,2048,8191,8192,16384
scenarios=()
for f in assets/scenarios/*.json; do scenarios+=(--scenario "$f"); done
# --stride applies to dynamic_stride.json only: its own 32 plus the padded strides.
timeout 300 "$BIN" validate "${scenarios[@]}" --n "$sizes" --stride 32,34,36,40,48 --runs 20 --ncu "$NCU" \
  --ncu-log "$EXTRA/validate_ncu_log.txt" --json "$OUT/validate.json" | tee "$OUT/validate.txt"
rc=${PIPESTATUS[0]}
note_status "validate (exit $rc)" "$(tail -1 "$OUT/validate.txt")"
note_status "validate MISMATCH rows" "$(grep -c 'MISMATCH' "$OUT/validate.txt")"
note_status "validate counters" "$(grep -m1 '^counters:' "$OUT/validate.txt" | grep -o 'not collected: .*' | cut -c1-160)"

step "ncu: shared-memory metrics on this chip"
timeout 90 "$NCU" --query-metrics --query-metrics-mode all > "$EXTRA/ncu_query_metrics_all.txt" 2>&1
grep -Ei 'shared|lsu|ldsm|stsm|ldgsts|atom' "$EXTRA/ncu_query_metrics_all.txt" > "$EXTRA/ncu_shared_metrics.txt"
for m in smsp__sass_inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_st \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld \
         smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld \
         smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st \
         sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld \
         sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st; do
  if grep -qE "(^|[[:space:]])$m([.[:space:]]|\$)" "$EXTRA/ncu_query_metrics_all.txt"; then have=yes; else have=NO; fi
  echo "metric $m: $have" | tee -a "$EXTRA/ncu_shared_metrics.txt"
  note_status "metric $m" "$have"
done

step "ncu directly: instruction counters at edge sizes"
edge=(--scenario assets/scenarios/tiled_32x8_32x33.json --scenario assets/scenarios/seed_transpose_32x32.json
      --scenario assets/scenarios/dynamic_stride.json --n 33,100,2047)
inst=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
wf=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
cf=smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
cf_sm=sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu_edge() {
  timeout 90 "$NCU" --csv --clock-control none --kernel-name-base demangled --kernel-name regex:bankscope::k_ \
    --metrics "$1" "$BIN" run-jobs "${edge[@]}" > "$EXTRA/ncu_edges.csv" 2> "$EXTRA/ncu_edges.err"
}
if ncu_edge "$inst,$wf,$cf"; then note_status "ncu edge cross-check" "ok, with smsp__sass bank conflicts"
elif ncu_edge "$inst,$wf,$cf_sm"; then note_status "ncu edge cross-check" "ok, with sm__sass bank conflicts"
elif ncu_edge "$inst,$wf"; then note_status "ncu edge cross-check" "ok, without sass bank conflicts"
else note_status "ncu edge cross-check" "FAILED (see extra.d/ncu_edges.err)"; fi
"$BIN" validate "${edge[@]}" --dry-run | tee "$EXTRA/edges_predicted.txt"
grep -E '_(ld|st)\.sum' "$EXTRA/ncu_edges.csv" | awk -F'","' '{print $1, $5, $(NF-2), $NF}' | head -80

step "SASS regenerated with this machine's cuobjdump"
scripts/sass_dump.sh "$BIN" "$EXTRA/sass_lds_sts.txt"
if diff <(grep -v '^#' assets/results/h200/sass_lds_sts.txt) <(grep -v '^#' "$EXTRA/sass_lds_sts.txt") > "$EXTRA/sass_diff.txt"; then
  note_status "SASS vs committed" "identical (instructions)"
else
  note_status "SASS vs committed" "DIFFERS: $(grep -c '^[<>]' "$EXTRA/sass_diff.txt") lines (extra.d/sass_diff.txt)"
fi

# Other agents' steps (bench/timing, tracer, ...): each file sourced in name order.
for hook in scripts/h200_round2.d/*.sh; do
  [[ -e $hook ]] || continue
  step "hook: $hook"
  source "$hook"
done

step "pack secondary files"
tar -C "$OUT" -czf "$OUT/round2_extra.tar.gz" extra.d && rm -rf "$EXTRA"
ls -la "$OUT"

step "summary"
for line in "${summary[@]}"; do echo "$line"; done
