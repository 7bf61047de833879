#!/usr/bin/env bash
# bench_fix.sh: how long `bankscope-cli fix` (the layout advisor) takes on every shipped scenario,
# measured on this machine and written with the machine's description to
# assets/results/cpu/fix_bench.txt (the raw output behind the README's figure). Run on an otherwise
# idle machine: other load slows the numbers. BUILD=build-dir selects the build (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
out=assets/results/cpu
mkdir -p "$out"
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "commit: $state"
  echo
  "$build/bin/bankscope-bench-fix"
} | tee "$out/fix_bench.txt"
