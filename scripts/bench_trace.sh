#!/usr/bin/env bash
# bench_trace.sh: the `report` throughput and trace size figures the README quotes, written with the
# machine's description to assets/results/cpu/bench_trace.txt. Run on an otherwise idle machine:
# other load slows the numbers (the load average is printed with them).
# BANKSCOPE_BUILD_DIR (default build) names the build whose bin/bankscope-bench-trace is measured;
# BANKSCOPE_BENCH_OUT (default assets/results/cpu/bench_trace.txt) the file written (another build's
# run beside this one's, e.g. bench_trace_round16_code.txt).
#   1. the synthetic traces of tests/bench_trace.cpp (tiled, half random, random, GEMM-like,
#      reduction-like; 4 M warp executions each) on each cost() path this CPU has (BANKSCOPE_SIMD);
#   2. the committed real traces (assets/results/h200/*/traces/*.bstrace), each reported many times
#      in memory so that the figure is not the timer's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BANKSCOPE_BENCH_OUT:-assets/results/cpu/bench_trace.txt}
bin="${BANKSCOPE_BUILD_DIR:-build}/bin/bankscope-bench-trace"
# The tree as it is before this script rewrites its own output.
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
paths=(avx512 avx2 portable)
{
  echo "# bankscope-bench-trace, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg), commit $state, binary $bin"
  for path in "${paths[@]}"; do
    # A path the CPU lacks is skipped: the bench exits 2 on it before anything else (here it then
    # fails on the missing file with 1).
    rc=0
    BANKSCOPE_SIMD=$path "$bin" /nonexistent.bstrace >/dev/null 2>&1 || rc=$?
    if [[ $rc == 2 ]]; then continue; fi
    echo "## BANKSCOPE_SIMD=$path, synthetic traces"
    BANKSCOPE_SIMD=$path "$bin"
  done
  echo "## committed traces (default path), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$bin" assets/results/h200/*/traces/*.bstrace
} | tee "$out"
