#!/usr/bin/env bash
# h200_bench_round2.sh: the bench on the H200 with the kernels validate checks, the two new rows
# (32x8 [32][33] double and float4), and the held-out sizes of the timing model, then the held-out
# comparison against the predictions committed before this run
# (assets/results/h200/timing_heldout_predicted.json, N = 6144 and 12288).
#   device tool:  run  command="bash scripts/h200_bench_round2.sh"  carry=[".devdeps"]
#   or, from a batch that already sourced h200_common.sh:  source scripts/h200_bench_round2.sh
# Writes to $OUT: bench_round2.{json,txt,svg}, timing_heldout_compare.txt (and log.txt when run
# on its own). Method as the calibration run (bench.json): median of 50 runs after 5 warm-ups,
# CUDA events, every output checked; 7 sizes x 22 kernels, estimated well under 3 minutes of run
# time (the slowest launch, naive at N = 16384, is ~4 ms; 55 launches per row). Never changes
# clocks or GPU settings.
if ! declare -F h200_build >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
  h200_build OFF bankscope-gpu
fi
BIN="$BUILD/bin/bankscope-gpu"

step "bench, round 2 (4096, 6144, 8192, 12288, 16384, 8191, 4100)"
timeout 240 "$BIN" bench --n 4096,6144,8192,12288,16384,8191,4100 --runs 50 --warmup 5 \
  --json "$OUT/bench_round2.json" --svg "$OUT/bench_round2.svg" | tee "$OUT/bench_round2.txt"
echo "bench exit: ${PIPESTATUS[0]}"

step "timing model: held-out error (predictions committed before this run) apart from the fit error"
"$BIN" timing-compare --predicted assets/results/h200/timing_heldout_predicted.json \
  --bench "$OUT/bench_round2.json" --fit assets/results/h200/timing_fit.json \
  --out "$OUT/timing_heldout_compare.txt"
echo "compare exit: $?"
