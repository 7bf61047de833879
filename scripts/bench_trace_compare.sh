#!/usr/bin/env bash
# bench_trace_compare.sh OLD_BUILD_DIR OLD_LABEL [RUNS]: `report` throughput of two builds on this
# machine, one core, AVX2 path, run alternately RUNS times (default 4; new, old, new, ...) so that
# the host's load falls on both alike: bankscope-bench-trace's synthetic traces (4 M warp executions
# each), then any *.bstrace in $BANKSCOPE_EXTRA_TRACES (e.g. the CUB device trace, not committed: its
# size and sha256 are printed). The new build is BANKSCOPE_BUILD_DIR (default build). Written with
# the machine's description to assets/results/cpu/bench_trace_compare.txt; the README quotes each
# build's best run (the VM's host moves single runs by up to a half). Run on an otherwise idle machine.
# BANKSCOPE_COMPARE_OUT names another file to write, and BANKSCOPE_COMPARE_SYNTHETIC=0 leaves the
# synthetic traces out (round 20: bench_trace_compare_real.txt, the real traces alone).
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 2)) || { echo "bench_trace_compare: usage: scripts/bench_trace_compare.sh OLD_BUILD_DIR OLD_LABEL [RUNS]" >&2; exit 2; }
old="$1/bin/bankscope-bench-trace"
label="$2"
runs="${3:-4}"
new="${BANKSCOPE_BUILD_DIR:-build}/bin/bankscope-bench-trace"
out=${BANKSCOPE_COMPARE_OUT:-assets/results/cpu/bench_trace_compare.txt}
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
extra=()
shopt -s nullglob  # a folder without traces adds none
if [[ -n ${BANKSCOPE_EXTRA_TRACES:-} ]]; then extra=("$BANKSCOPE_EXTRA_TRACES"/*.bstrace); fi
shopt -u nullglob
{
  echo "# bench_trace_compare.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# new: $new at commit $state"
  echo "# old: $old ($label)"
  for f in "${extra[@]}"; do echo "# trace $(basename "$f"): $(stat -c %s "$f") bytes, sha256 $(sha256sum "$f" | cut -c1-16)"; done
  for ((k = 1; k <= runs; ++k)); do
    for which in new old; do
      bin=$new
      [[ $which == old ]] && bin=$old
      echo "## run $k, $which, BANKSCOPE_SIMD=avx2"
      if [[ ${BANKSCOPE_COMPARE_SYNTHETIC:-1} == 1 ]]; then
        BANKSCOPE_SIMD=avx2 "$bin"
        ((${#extra[@]} == 0)) || BANKSCOPE_SIMD=avx2 "$bin" "${extra[@]}" | tail -n +3
      else
        ((${#extra[@]} == 0)) || BANKSCOPE_SIMD=avx2 "$bin" "${extra[@]}"
      fi
    done
  done
} 2>&1 | tee "$out"
