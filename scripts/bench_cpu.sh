#!/usr/bin/env bash
# bench_cpu.sh: the CPU figures the README quotes, measured on this machine and written with the
# machine's description to assets/results/cpu/ (the raw output behind every model-speed and
# frame-time figure). Run on an otherwise idle machine: other load slows the numbers.
#   1. bankscope-bench (single core): cost() per path (AVX-512 where the CPU has it, and the portable
#      path forced with BANKSCOPE_NO_AVX512=1) and the per-launch totals;
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
{
  machine
  echo
  echo "## bankscope-bench (default path)"
  build/bin/bankscope-bench
  echo
  echo "## bankscope-bench, BANKSCOPE_NO_AVX512=1 (portable path)"
  BANKSCOPE_NO_AVX512=1 build/bin/bankscope-bench
} | tee "$out/model_bench.txt"
if [[ -x build/bin/bankscope ]]; then
  {
    machine
    for run in 1 2; do
      echo
      echo "## run $run: app, 1920x1080, animation running"
      xvfb-run -a -s "-screen 0 1920x1080x24" build/bin/bankscope --bench-frames 300 --size 1920x1080 2>&1
      echo "## run $run: empty ImGui frame, 1920x1080"
      xvfb-run -a -s "-screen 0 1920x1080x24" build/bin/bankscope --bench-frames 300 --size 1920x1080 --bench-empty 2>&1
    done
  } | tee "$out/frame_bench.txt"
fi
