#!/usr/bin/env bash
# h200_mma.sh: issue 11 item 5 on the H200: a tensor-core HGEMM tile loop written here
# (assets/scenarios/mma/mma_gemm.cu: 64x64x32 block tiles, LDG.128 -> STS.128, ldmatrix.x4 of A,
# ldmatrix.x4.trans of B, mma.sync m16n8k16), unswizzled (SWZ=0), XOR-swizzled (SWZ=1) and padded
# (SWZ=2), run under ncu at the sizes of assets/scenarios/mma/sizes.txt beside bankscope's prediction.
#   device tool:  run  command="bash scripts/h200_round2_all.sh mma"  carry=[".devdeps"]
#            or:  run  command="bash scripts/h200_mma.sh"  carry=[".devdeps"]
# Standalone (sources h200_common.sh; if $OUT already has another batch's log.txt, writes under
# $OUT/mma/), or a part of h200_round2_all.sh. Steps: build bankscope-gpu and bankscope-cli
# (sm_90); nvcc -O3 -arch=sm_90 -lineinfo of mma_gemm.cu; `bankscope-cli check` of the scenario
# (STS and LDSM per line, matrix form); the predictions again from the scenario (its ldmatrix
# accesses), diffed with the committed assets/results/h200/mma_gemm_predictions.txt (committed
# before any measurement) and with scripts/mma_gemm_predict.py's (the LDSM side as ldmatrix JSONL
# lines from the kernel's indexing); `bankscope-gpu realworld`: per size and layout, ncu
# --clock-control none measures the ld/st counters and smsp__inst_executed_op_ldsm,
# smsp__sass_inst_executed_op_ldsm, smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm,
# smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm, and the program checks C
# against a CPU reference; should the table fail (not exit 0 or 5), a plain ncu run of every line
# with the same metrics, appended to the ncu log. Never changes clocks or GPU settings.
# Files in $OUT (4): log.txt (standalone), mma.txt (the table; last line "N rows, M comparisons,
# K differences"), mma_predictions_h200.txt, mma_ncu_log.txt.gz (every ncu run's output). Budget:
# about 4 minutes (build 2-3, 12 ncu runs).
if ! declare -F h200_build >/dev/null; then
  if [[ -n ${OUT:-} && -f $OUT/log.txt ]]; then OUT=$OUT/mma; fi
  source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
fi
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
dir=assets/scenarios/mma
bin=$BUILD/mma
mkdir -p "$bin"
status=()
note() { status+=("$(printf '%-40s %s' "$1" "$2")"); }

h200_build OFF bankscope-gpu bankscope-cli
CLI=$BUILD/bin/bankscope-cli
PREDICTOR="python3 scripts/mma_gemm_predict.py --cli $CLI"
WORK_PRED=$(mktemp)

step "mma: the program (nvcc -O3 -arch=sm_90 -lineinfo)"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o "$bin/mma_gemm" "$dir/mma_gemm.cu" && note "program built" "yes" || note "program built" "NO"

step "mma: bankscope-cli sass and check against this machine's nvcc"
"$CLI" sass "$dir/mma_gemm.cu" 2>&1 | grep -E "LDSM|STS|LDS|^[^ ]" | head -60
for s in 0 1 2; do
  "$CLI" check "$dir/mma_gemm.json" --cu "$dir/mma_gemm.cu" \
    --kernel "void (anonymous namespace)::mma_gemm<$s>(__half const*, __half const*, float*, int)" 2>&1 | tail -20
  note "bankscope-cli check SWZ=$s (exit ${PIPESTATUS[0]})" "see log"
done

step "mma: predictions (no GPU), against the committed ones"
# The scenario alone (its ldmatrix accesses in the scenario syntax) ...
"$BUILD/bin/bankscope-gpu" realworld --sizes "$dir/sizes.txt" --dry-run >"$OUT/mma_predictions_h200.txt" 2>&1
cat "$OUT/mma_predictions_h200.txt"
# The first line names this machine's paths; the rest must be identical.
if diff <(sed -n '/^kernel/,$p' assets/results/h200/mma_gemm_predictions.txt) <(sed -n '/^kernel/,$p' "$OUT/mma_predictions_h200.txt"); then
  note "predictions vs committed" "identical"
else
  note "predictions vs committed" "DIFFER (the model or scenario changed since committed)"
fi
# ... and through the predictor, which also states the LDSM side as ldmatrix JSONL lines from the
# kernel's indexing and fails on any difference from the scenario.
if "$BUILD/bin/bankscope-gpu" realworld --sizes "$dir/sizes.txt" --predictor "$PREDICTOR" --dry-run >"$WORK_PRED" 2>&1 &&
  diff <(sed -n '/^kernel/,$p' "$WORK_PRED") <(sed -n '/^kernel/,$p' "$OUT/mma_predictions_h200.txt"); then
  note "scenario vs ldmatrix JSONL lines" "identical"
else
  tail -3 "$WORK_PRED"
  note "scenario vs ldmatrix JSONL lines" "DIFFER (see log)"
fi

step "mma: measured by ncu, against the scenario's predictions"
timeout 300 "$BUILD/bin/bankscope-gpu" realworld --sizes "$dir/sizes.txt" --bin "$bin" --ncu "$NCU" \
  --ncu-log "$OUT/mma_ncu_log.txt" | tee "$OUT/mma.txt"
rc=${PIPESTATUS[0]}
note "bankscope-gpu realworld (exit $rc)" "$(tail -1 "$OUT/mma.txt")"
note "ldsm rows equal (of 48)" "$(grep -cE '_ldsm\.sum +[0-9]+ +[0-9]+  equal$' "$OUT/mma.txt")"

if [[ $rc -ne 0 && $rc -ne 5 ]]; then
  # The table could not be made (exit 5 is a table with differences; its ncu log has every value):
  # the same metrics straight from ncu, one run per line, for a reading by hand.
  step "mma: raw ncu CSV of every line (fallback)"
  m=smsp__inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_ldsm.sum
  m=$m,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
  m=$m,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum
  m=$m,smsp__inst_executed_op_shared_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  m=$m,smsp__inst_executed_op_shared_ld.sum
  grep -v '^ *#' "$dir/sizes.txt" | sed 's/#.*//' | while read -r name n p; do
    [[ -n $name ]] || continue
    echo "# $name $n $p" >>"$OUT/mma_ncu_log.txt"
    timeout 60 "$NCU" --csv --clock-control none --kernel-name regex:mma_gemm --metrics "$m" "$bin/$name" "$n" "$p" >>"$OUT/mma_ncu_log.txt" 2>&1
  done
  grep -E '^# |^".*(_ldsm|_shared_st)|equal the CPU|MISMATCH' "$OUT/mma_ncu_log.txt" | tail -60
fi
gzip -f "$OUT/mma_ncu_log.txt"

step "mma summary"
for line in "${status[@]}"; do echo "$line"; done
exit "$rc"
