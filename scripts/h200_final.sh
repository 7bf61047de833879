#!/usr/bin/env bash
# h200_final.sh: the final H200 batch for what is on main, in one call of the device tool: GPU
# tests, `validate` of every scenario (predicted vs SASS-exact vs hardware counters, timings with
# the timing model beside them), the conformance suite measured again (repeatability), and the
# bench with the timing model's prediction per row.
#   device tool:  run  command="bash scripts/h200_final.sh"  carry=[".devdeps"]
# Writes 8 files to $OUT: log.txt, ctest.txt, validate.txt, validate.json, patterns_measured.jsonl,
# bench.json, bench.txt, bench.svg. Never changes clocks or GPU settings (ncu --clock-control none).
source "$(dirname "$0")/h200_common.sh"
h200_build ON bankscope-gpu gpu_host_tests gpu_device_tests
BIN="$BUILD/bin/bankscope-gpu"

step "gpu tests"
ctest --test-dir "$BUILD" -R '^gpu_' --output-on-failure 2>&1 | tee "$OUT/ctest.txt"

step "validate"
scenarios=()
for f in assets/scenarios/*.json; do scenarios+=(--scenario "$f"); done
timeout 420 "$BIN" validate "${scenarios[@]}" --stride 32,34,36,40,48 --n 32,2048,8192,16384 --runs 30 --ncu auto \
  --json "$OUT/validate.json" | tee "$OUT/validate.txt"
echo "validate exit: $?"

step "conformance suite, measured again"
timeout 240 "$BIN" patterns --jsonl tests/conformance/patterns.jsonl --out "$OUT/patterns_measured.jsonl"
echo "patterns exit: $?"

step "bench"
timeout 300 "$BIN" bench --n 4096,8192,16384,8191,4100 --runs 50 --warmup 5 \
  --json "$OUT/bench.json" --svg "$OUT/bench.svg" | tee "$OUT/bench.txt"
echo "bench exit: $?"
