#!/usr/bin/env bash
# profile_report.sh [CLI]: where `bankscope-cli report` spends its instructions, per function, on the
# synthetic traces of bankscope-bench-trace --write (500,000 warp executions each), counted by
# valgrind's callgrind (a figure the host's load cannot move), AVX2 path (BANKSCOPE_SIMD=avx2).
# Writes assets/results/cpu/report_profile.txt: per trace, the functions of at least one instruction
# per warp execution, as instructions per warp execution. CLI defaults to build/bin/bankscope-cli.
# BANKSCOPE_PROFILE_V4=1: the same traces written again in the current format version by CLI's
# `upgrade` (what the tracer writes; round 20); BANKSCOPE_PROFILE_OUT: the file written in place of
# report_profile.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
cli="${1:-build/bin/bankscope-cli}"
out=${BANKSCOPE_PROFILE_OUT:-assets/results/cpu/report_profile.txt}
command -v valgrind >/dev/null || { echo "profile_report: valgrind not installed (apt-get install valgrind)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
build/bin/bankscope-bench-trace --write "$dir" >/dev/null
state="$(git rev-parse --short HEAD)$(git diff --quiet -- sim app || echo ' (with local changes)')"
{
  echo "# scripts/profile_report.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $cli at $state: instructions per warp execution by function (callgrind, AVX2 path)$([[ ${BANKSCOPE_PROFILE_V4:-0} == 1 ]] && echo ', traces in the current format version')"
  for kind in tiled half random gemm reduction; do
    f="$dir/$kind.v2.bstrace"
    if [[ ${BANKSCOPE_PROFILE_V4:-0} == 1 ]]; then
      "$cli" upgrade "$f" "$dir/$kind.v4.bstrace" >/dev/null
      f="$dir/$kind.v4.bstrace"
    fi
    BANKSCOPE_SIMD=avx2 valgrind --tool=callgrind --callgrind-out-file="$dir/cg" "$cli" report "$f" >/dev/null 2>"$dir/err" ||
      { echo "profile_report: $cli report $f failed:" >&2; tail -5 "$dir/err" >&2; exit 1; }
    echo
    echo "## $kind"
    callgrind_annotate "$dir/cg" 2>/dev/null |
      awk '/^ *[0-9,]+ +\(/ { n = $1; gsub(",", "", n); name = $0; sub(/^ *[0-9,]+ +\([ 0-9.%]+\) +/, "", name);
                              sub(/ \[.*$/, "", name); if (n / 500000 >= 1) printf "%10.1f  %s\n", n / 500000, name }'
  done
} | tee "$out"
