#!/usr/bin/env bash
# h200_realworld.sh: issue 13 on the H200: the real kernels of assets/scenarios/realworld/ (a
# reduction, a Blelloch scan, a 3-D stencil, an SGEMM, an extern-buffer argmax, a Walsh-Hadamard
# transform, a row convolution, a bitonic sort), each run at the sizes of
# assets/scenarios/realworld/sizes.txt under ncu, set beside bankscope's prediction.
#   device tool:  run  command="bash scripts/h200_realworld.sh"  carry=[".devdeps"]
# Standalone (sources h200_common.sh; if $OUT already has another batch's log.txt, writes under
# $OUT/realworld/ so that log is kept), or a part of h200_round2_all.sh (`... realworld`).
# Steps: build bankscope-gpu and bankscope-cli (sm_90); each NAME.cu with nvcc -O3 -arch=sm_90
# -lineinfo; `bankscope-cli check` of each scenario against this machine's nvcc; the predictions
# again, diffed with the committed assets/results/h200/realworld_predictions.txt (committed before
# any measurement); `bankscope-gpu realworld`: per kernel and size, ncu --clock-control none
# measures smsp__inst_executed_op_shared_{ld,st}, smsp__sass_inst_executed_op_shared_{ld,st} and
# smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}, and each program checks its own
# output against a CPU reference. Never changes clocks or GPU settings.
# Files in $OUT (5): log.txt (standalone), realworld.txt (the table; last line "N rows, M
# comparisons, K differences"), realworld_predictions_h200.txt, realworld_check.txt,
# realworld_ncu_log.txt.gz. Budget: about 5 minutes (build 2-3, 32 ncu runs).
if ! declare -F h200_build >/dev/null; then
  if [[ -n ${OUT:-} && -f $OUT/log.txt ]]; then OUT=$OUT/realworld; fi
  source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
fi
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
rw=assets/scenarios/realworld
bin=$BUILD/realworld
mkdir -p "$bin"
status=()
note() { status+=("$(printf '%-40s %s' "$1" "$2")"); }

h200_build OFF bankscope-gpu bankscope-cli

step "realworld: the programs (nvcc -O3 -arch=sm_90 -lineinfo)"
pids=()  # wait for these only: a bare `wait` also waits for h200_common.sh's `tee`
for src in "$rw"/*.cu; do
  "$NVCC" -O3 -arch=sm_90 -lineinfo -o "$bin/$(basename "$src" .cu)" "$src" &
  pids+=($!)
done
built=0
for p in "${pids[@]}"; do wait "$p" && built=$((built + 1)); done
ls -l "$bin"
note "programs built" "$built of ${#pids[@]}"

step "realworld: bankscope-cli check of each scenario against this machine's nvcc"
: >"$OUT/realworld_check.txt"
agree=0 total=0
for json in "$rw"/*.json; do
  name=$(basename "$json" .json)
  total=$((total + 1))
  if "$BUILD/bin/bankscope-cli" check "$json" --cu "$rw/$name.cu" >>"$OUT/realworld_check.txt" 2>&1; then
    agree=$((agree + 1))
  fi
done
cat "$OUT/realworld_check.txt"
note "scenarios agreeing with nvcc (check)" "$agree of $total"

step "realworld: predictions (no GPU), against the committed ones"
"$BUILD/bin/bankscope-gpu" realworld --sizes "$rw/sizes.txt" --dry-run >"$OUT/realworld_predictions_h200.txt" 2>&1
# The first line names this machine's bankscope-cli path; the rest must be identical.
if diff <(tail -n +2 assets/results/h200/realworld_predictions.txt) <(tail -n +2 "$OUT/realworld_predictions_h200.txt"); then
  note "predictions vs committed" "identical"
else
  note "predictions vs committed" "DIFFER (the model or a scenario changed since they were committed)"
fi

step "realworld: measured by ncu, against the predictions"
timeout 420 "$BUILD/bin/bankscope-gpu" realworld --sizes "$rw/sizes.txt" --bin "$bin" --ncu "$NCU" \
  --ncu-log "$OUT/realworld_ncu_log.txt" | tee "$OUT/realworld.txt"
rc=${PIPESTATUS[0]}
gzip -f "$OUT/realworld_ncu_log.txt"
note "bankscope-gpu realworld (exit $rc)" "$(tail -1 "$OUT/realworld.txt")"

step "realworld summary"
for line in "${status[@]}"; do echo "$line"; done
exit "$rc"
