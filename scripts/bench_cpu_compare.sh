#!/usr/bin/env bash
# bench_cpu_compare.sh OLD_BUILD_DIR OLD_LABEL [RUNS]: cost() throughput of two builds on this
# machine, run alternately RUNS times (default 3) so that the host's load falls on both alike,
# written with the machine's description to assets/results/cpu/model_bench_compare.txt. The new
# build is BANKSCOPE_BUILD_DIR (default build). Used to compare cost() before and after a change
# on the same machine (the README quotes the best run of each). Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
old="$1/bin/bankscope-bench"
label="$2"
runs="${3:-3}"
new="${BANKSCOPE_BUILD_DIR:-build}/bin/bankscope-bench"
out=assets/results/cpu/model_bench_compare.txt
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "avx512: $(grep -o -w -E 'avx512[a-z_]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "new: $new at commit $state"
  echo "old: $old ($label)"
  for r in $(seq 1 "$runs"); do
    echo
    echo "## run $r, old ($label), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$old" --no-launch
    echo
    echo "## run $r, new, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    "$new" --no-launch
  done
} | tee "$out"
