#!/usr/bin/env bash
# h200_run2.sh: the second H200 batch, in one call of the device tool:
#   1. predict-then-measure: the fresh conformance batches whose predictions were committed
#      before this run (tests/conformance/fresh_*_predicted.jsonl);
#   2. `bankscope-gpu bench`: every transpose beside cudaMemcpy and cuBLAS (issue 6);
#   3. ncu's instruction-level shared-memory wavefronts of the bench's kernels at N = 4096, to set
#      beside the model's prediction for assets/scenarios/fast_*.json;
#   4. compute-sanitizer memcheck and racecheck on every kernel at small N, and the out-of-memory
#      path at a huge N (issue 7).
#
#   device tool:  run  command="bash scripts/h200_run2.sh"  carry=[".devdeps"]
#
# Writes 8 files to $OUT: log.txt, fresh_batch_measured.jsonl, fresh_r6_measured.jsonl, bench.json,
# bench.svg, bench.txt, ncu_bench.csv, sanitizer.txt. Never changes clocks or GPU settings.
source "$(dirname "$0")/h200_common.sh"
h200_build OFF bankscope-gpu
BIN="$BUILD/bin/bankscope-gpu"
"$BIN" info

step "1. fresh patterns, predicted before this run"
for f in fresh_batch fresh_r6; do
  timeout 120 "$BIN" patterns --jsonl "tests/conformance/$f.jsonl" --out "$OUT/${f}_measured.jsonl"
  echo "$f exit: $?"
done
python3 - "$OUT" <<'PY' || true
import json, sys
for f in ("fresh_batch", "fresh_r6"):
    pred = {}
    for l in open(f"tests/conformance/{f}_predicted.jsonl"):
        r = json.loads(l); pred[r["id"]] = (r["wavefronts"], r["bank_conflicts"])
    rows = [json.loads(l) for l in open(f"{sys.argv[1]}/{f}_measured.jsonl")]
    hit = [r for r in rows if pred.get(r["id"]) == (r.get("measured_wavefronts"), r.get("measured_bank_conflicts"))]
    print(f"{f}: {len(hit)} of {len(rows)} committed predictions equal the H200 on both counters")
    for r in rows:
        if r not in hit:
            print("  miss:", r["id"], "predicted", pred.get(r["id"]), "measured", r.get("measured_wavefronts"), r.get("measured_bank_conflicts"))
PY

step "2. bench: TMA kernel alone first"
timeout 60 "$BIN" bench --only fast_tma --n 4096,4100 --runs 5 --warmup 1
tma_rc=$?
exclude=()
if [ $tma_rc -ne 0 ] && [ $tma_rc -ne 4 ]; then
  echo "fast_tma failed its smoke test (exit $tma_rc): the main run leaves it out"
  exclude=(--exclude fast_tma)
fi
step "2. bench"
timeout 240 "$BIN" bench --n 4096,8192,16384,8191,4100 --runs 50 --warmup 5 \
  --json "$OUT/bench.json" --svg "$OUT/bench.svg" ${exclude[@]+"${exclude[@]}"} | tee "$OUT/bench.txt"
echo "bench exit: $?"

step "3. ncu: shared-memory counters of every bench kernel at N = 4096"
timeout 150 ncu --clock-control none --csv --kernel-name regex:'fast|bench_' \
  --metrics smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
  "$BIN" bench --n 4096 --runs 1 --warmup 0 ${exclude[@]+"${exclude[@]}"} > "$OUT/ncu_bench.csv" 2>&1
echo "ncu exit: $?"; grep -c '"fast\|"bench_' "$OUT/ncu_bench.csv" || true

step "4. compute-sanitizer"
{
  echo "# compute-sanitizer on the H200, $(date -u)"
  for tool in memcheck racecheck; do
    echo "## $tool: bankscope-gpu validate, every scenario, N = 64 and 100"
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN" validate --n 64,100 --runs 1 --ncu none 2>&1 | tail -n 25
    echo "exit: $?"
    echo "## $tool: bankscope-gpu bench, every kernel, N = 256 and 250"
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN" bench --n 256,250 --runs 1 --warmup 0 \
      ${exclude[@]+"${exclude[@]}"} 2>&1 | tail -n 25
    echo "exit: $?"
  done
  echo "## out of memory: validate the seed kernel at N = 200000 (320 GB)"
  timeout 60 "$BIN" validate --scenario assets/scenarios/seed_transpose_32x32.json --n 200000 --runs 1 --ncu none 2>&1 | tail -n 5
  echo "exit: $?"
} > "$OUT/sanitizer.txt" 2>&1
grep -E "^## |^exit|ERROR SUMMARY|RACECHECK SUMMARY|error" "$OUT/sanitizer.txt" | head -40
step "done"
