#!/usr/bin/env bash
# bench_report_ir.sh: `bankscope-cli report FILE` in instructions per warp execution, counted by
# valgrind's callgrind: a figure the VM's host load cannot move (wall-clock figures here move by up
# to a third between runs), for comparing two builds. cost() takes its AVX2 path (BANKSCOPE_SIMD=avx2;
# valgrind's CPU reports no AVX-512). The traces are bankscope-bench-trace --write's synthetic ones
# (format version 2, 500,000 warp executions each), and since round 17 the same files written again in
# the current format version by the last CLI's `upgrade` (rows "KIND v4": what the tracer writes).
#   scripts/bench_report_ir.sh CLI [CLI2 ...]   one column per bankscope-cli binary
# Then the same runs end to end without valgrind (reading the file, costing, printing): the best of
# 5 wall-clock times per binary, alternating, as M warp executions per second.
# Writes to stdout; scripts/bench_trace.sh's output sits beside it in assets/results/cpu/.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || { echo "bench_report_ir: usage: scripts/bench_report_ir.sh CLI [CLI2 ...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bench_report_ir: valgrind not installed (apt-get install valgrind)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
build/bin/bankscope-bench-trace --write "$dir" >/dev/null
last="${*: -1}"
for kind in tiled half random gemm reduction; do "$last" upgrade "$dir/$kind.v2.bstrace" "$dir/$kind.v4.bstrace" >/dev/null; done
printf '%-14s' trace
for cli in "$@"; do printf ' %28s' "$(basename "$(dirname "$(dirname "$cli")")")/$(basename "$cli")"; done
printf '\n'
for row in tiled half random gemm reduction "tiled v4" "half v4" "random v4" "gemm v4" "reduction v4"; do
  kind=${row% v4}
  f="$dir/$kind.v2.bstrace"
  [[ $row == *v4 ]] && f="$dir/$kind.v4.bstrace"
  printf '%-14s' "$row"
  for cli in "$@"; do
    BANKSCOPE_SIMD=avx2 valgrind --tool=callgrind --callgrind-out-file="$dir/cg" "$cli" report "$f" >/dev/null 2>"$dir/err" ||
      { echo; echo "bench_report_ir: $cli report $f failed:" >&2; tail -5 "$dir/err" >&2; exit 1; }
    ir=$(grep -E '^(summary|totals):' "$dir/cg" | head -1 | awk '{print $2}')
    printf ' %28.0f' "$(echo "$ir / 500000" | bc -l)"
  done
  printf '\n'
done
echo
echo "end to end, best of 5 (wall clock; M warp executions per second)"
for row in tiled half random gemm reduction "tiled v4" "half v4" "random v4" "gemm v4" "reduction v4"; do
  kind=${row% v4}
  f="$dir/$kind.v2.bstrace"
  [[ $row == *v4 ]] && f="$dir/$kind.v4.bstrace"
  printf '%-14s' "$row"
  declare -A best=()
  for rep in 1 2 3 4 5; do
    for cli in "$@"; do
      s=$(date +%s%N); "$cli" report "$f" >/dev/null; e=$(date +%s%N)
      t=$((e - s))
      if [[ -z ${best[$cli]:-} || $t -lt ${best[$cli]} ]]; then best[$cli]=$t; fi
    done
  done
  for cli in "$@"; do printf ' %28.1f' "$(echo "500000 * 1000 / ${best[$cli]}" | bc -l)"; done
  printf '\n'
  unset best
done
