#!/usr/bin/env bash
# bench_cpu.sh: the CPU figures the README quotes, measured on this machine and written with the
# machine's description to assets/results/cpu/ (the raw output behind every model-speed and
# frame-time figure). Run on an otherwise idle machine: other load slows the numbers.
# BANKSCOPE_BUILD_DIR (default build) names the build whose bin/ is measured.
#   1. bankscope-bench (single core): cost() on each path the CPU has (avx512, avx2, portable; timed
#      in thread CPU time, best of 10 windows), and the per-launch totals on each path
#      (BANKSCOPE_SIMD);
#   2. the visualizer's frame time under Xvfb + Mesa llvmpipe (median of 300 frames), the app and an
#      empty ImGui frame, two runs each.
set -euo pipefail
cd "$(dirname "$0")/.."
out=assets/results/cpu
mkdir -p "$out"
# The tree as it is before this script rewrites its own outputs.
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
machine() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "avx512: $(grep -o -w -E 'avx512[a-z_]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "commit: $state"
}
bin="${BANKSCOPE_BUILD_DIR:-build}/bin"
{
  machine
  echo
  echo "## bankscope-bench: cost() on every path this CPU has; per-launch totals on the default path"
  "$bin/bankscope-bench"
  # The per-launch totals again with cost() forced onto each other path (BANKSCOPE_SIMD), with that
  # path's 4-byte row; a path the CPU lacks is skipped (bankscope-bench would exit 2 on it).
  for path in avx2 portable; do
    if [[ "$("$bin/bankscope-bench" --widths 4 --no-launch | head -1)" != *" $path"* ]]; then continue; fi
    echo
    echo "## bankscope-bench, BANKSCOPE_SIMD=$path"
    BANKSCOPE_SIMD=$path "$bin/bankscope-bench" --widths 4
  done
} | tee "$out/model_bench.txt"
if [[ -x "$bin/bankscope" ]]; then
  {
    machine
    for run in 1 2; do
      echo
      echo "## run $run: app, 1920x1080, animation running"
      scripts/on_xvfb.sh 1920x1080 "$bin/bankscope" --bench-frames 300 --size 1920x1080 2>&1
      echo "## run $run: empty ImGui frame, 1920x1080"
      scripts/on_xvfb.sh 1920x1080 "$bin/bankscope" --bench-frames 300 --size 1920x1080 --bench-empty 2>&1
    done
  } | tee "$out/frame_bench.txt"
fi
