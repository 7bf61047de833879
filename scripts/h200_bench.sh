#!/usr/bin/env bash
# h200_bench.sh: the transpose bench (issue 6) in one call of the device tool, on the H200 or any
# sm_90 machine with CUDA 13. Builds kernels/bench.cu standalone with nvcc (no cmake, no packages),
# smoke-tests the TMA kernel in a process of its own (a copy-engine fault would end the main run's
# CUDA context), then times every kernel side by side in one process and draws the chart.
#
#   device tool:  run  command="bash scripts/h200_bench.sh"
#   elsewhere:    OUT=out/h200_bench bash scripts/h200_bench.sh
#
# Writes to $OUT: log.txt (everything), bench.txt (the table), bench.json, bench.svg, ptxas.txt
# (registers, shared memory, spills), sass_mem.txt (global/shared memory instructions per kernel),
# tma_smoke.txt. Takes about 1-2 minutes; every step has a timeout so the whole stays under 4.
# Never changes clocks or GPU settings.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/h200_bench}
SIZES=${SIZES:-4096,8192,16384,8191,4100}   # 8191: n % 4 != 0; 4100: partial tiles with 16-byte rows
RUNS=${RUNS:-50}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
BIN="$OUT/.bench"   # a dot file: not one of the results to bring back

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv || true
nvcc --version | tail -2 || true

step "build (nvcc, sm_90)"
timeout 180 nvcc -arch=sm_90 -O3 -std=c++17 -I. -Ikernels -DBANKSCOPE_BENCH_MAIN -DBANKSCOPE_SOURCE_DIR="\"$PWD\"" \
  -Xptxas -v kernels/bench.cu -lcublas -o "$BIN" 2> "$OUT/ptxas.txt"
rc=$?
grep -E "error|warning" "$OUT/ptxas.txt" | head -20
if [ $rc -ne 0 ]; then echo "build failed (exit $rc): see ptxas.txt"; exit 1; fi
grep -E "spill stores|smem" "$OUT/ptxas.txt" | grep -vE "0 bytes spill stores, 0 bytes spill loads" | head -20 || true

step "SASS: memory instructions per kernel"
if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-sass "$BIN" | awk '/Function :/{f=$3} /(LDG|STG|LDS|STS|UTMALDG|LDL|STL)/{match($0, /(UTMALDG|LDG|STG|LDS|STS|LDL|STL)[A-Z0-9._]*/); c[f" "substr($0,RSTART,RLENGTH)]++} END{for(k in c) print c[k], k}' \
    | sort -k2 > "$OUT/sass_mem.txt"
  grep -E "fast_" "$OUT/sass_mem.txt" | sed 's/_ZN9bankscope5bench//' | head -60
else
  echo "cuobjdump not found: no SASS dump"
fi

step "TMA smoke test (own process)"
timeout 60 "$BIN" --only fast_tma --n 4096,4100 --runs 5 --warmup 1 > "$OUT/tma_smoke.txt" 2>&1
tma_rc=$?
cat "$OUT/tma_smoke.txt"
exclude=()
if [ $tma_rc -ne 0 ] && [ $tma_rc -ne 4 ]; then
  echo "fast_tma failed its smoke test (exit $tma_rc): the main run leaves it out"
  exclude=(--exclude fast_tma)
fi

step "bench: n = $SIZES, median of $RUNS"
timeout 200 "$BIN" --n "$SIZES" --runs "$RUNS" --warmup 5 --json "$OUT/bench.json" --svg "$OUT/bench.svg" \
  --plot-script scripts/plot_bench.py ${exclude[@]+"${exclude[@]}"} | tee "$OUT/bench.txt"
bench_rc=${PIPESTATUS[0]}
echo "bench exit: $bench_rc (0 ok, 4 a kernel wrote wrong output, 124 timeout)"
if [ ! -f "$OUT/bench.svg" ] && [ -f "$OUT/bench.json" ]; then python3 scripts/plot_bench.py "$OUT/bench.json" "$OUT/bench.svg" || true; fi

step "done"
rm -f "$BIN"
ls -la "$OUT"
echo
tail -n 12 "$OUT/bench.txt"
