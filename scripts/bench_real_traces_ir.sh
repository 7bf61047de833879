#!/usr/bin/env bash
# bench_real_traces_ir.sh OLD_CLI [NEW_CLI]: `bankscope-cli report FILE` on the H200 corpus's real
# traces, in instructions per warp execution counted by valgrind's callgrind (a figure the VM's host
# load cannot move; BANKSCOPE_SIMD=avx2), end to end (reading the file, costing, printing):
#   v2: round 10's recordings, format version 2 (assets/results/h200/2026-12-02b/traces), by NEW_CLI
#       (default build/bin/bankscope-cli);
#   v3: the same programs recorded by round 11's tracer, format version 3 (2026-12-02d/traces), by
#       OLD_CLI and by NEW_CLI;
#   v4: the v3 file written again by NEW_CLI's `upgrade` (the current version), by NEW_CLI.
# Then any *.bstrace in $BANKSCOPE_EXTRA_TRACES by OLD_CLI and NEW_CLI as recorded.
# Writes assets/results/cpu/report_ir_real.txt (round 11's and 12's: report_ir_real_round1[12].txt,
# whose columns were old and new on v2, new on v3).
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 1)) || { echo "bench_real_traces_ir: usage: scripts/bench_real_traces_ir.sh OLD_CLI [NEW_CLI]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bench_real_traces_ir: valgrind not installed (apt-get install valgrind)" >&2; exit 1; }
old=$1
new=${2:-build/bin/bankscope-cli}
out=assets/results/cpu/report_ir_real.txt
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ir() {  # ir CLI FILE: instructions per warp execution of `CLI report FILE`
  BANKSCOPE_SIMD=avx2 valgrind --tool=callgrind --callgrind-out-file="$dir/cg" "$1" report "$2" >"$dir/out" 2>"$dir/err" ||
    { echo "bench_real_traces_ir: $1 report $2 failed:" >&2; tail -5 "$dir/err" >&2; exit 1; }
  local n total
  n=$(head -1 "$dir/out" | sed -E 's/.* ([0-9]+) warp executions.*/\1/')
  total=$(grep -E '^(summary|totals):' "$dir/cg" | head -1 | awk '{print $2}')
  printf '%.0f' "$(echo "$total / $n" | bc -l)"
}
{
  echo "# bench_real_traces_ir.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), callgrind, BANKSCOPE_SIMD=avx2"
  echo "# old: $old; new: $new at commit $state"
  printf '%-14s %10s %10s %10s %10s %10s %12s %12s %12s\n' trace executions "new on v2" "old on v3" "new on v3" \
    "new on v4" "v2 bytes" "v3 bytes" "v4 bytes"
  for gz in assets/results/h200/2026-12-02b/traces/*.bstrace.gz; do
    name=$(basename "$gz" .bstrace.gz)
    gunzip -c "$gz" >"$dir/$name.v2.bstrace"
    gunzip -c "assets/results/h200/2026-12-02d/traces/$name.bstrace.gz" >"$dir/$name.v3.bstrace"
    "$new" upgrade "$dir/$name.v3.bstrace" "$dir/$name.v4.bstrace" >/dev/null
    n=$("$new" report "$dir/$name.v3.bstrace" | sed -nE '1s/.* ([0-9]+) warp executions.*/\1/p')
    printf '%-14s %10s %10s %10s %10s %10s %12s %12s %12s\n' "$name" "$n" "$(ir "$new" "$dir/$name.v2.bstrace")" \
      "$(ir "$old" "$dir/$name.v3.bstrace")" "$(ir "$new" "$dir/$name.v3.bstrace")" "$(ir "$new" "$dir/$name.v4.bstrace")" \
      "$(stat -c %s "$dir/$name.v2.bstrace")" "$(stat -c %s "$dir/$name.v3.bstrace")" "$(stat -c %s "$dir/$name.v4.bstrace")"
  done
  # Any *.bstrace in $BANKSCOPE_EXTRA_TRACES (e.g. the CUB device trace, not committed), as recorded:
  # old and new on it.
  if [[ -n ${BANKSCOPE_EXTRA_TRACES:-} ]]; then
    printf '%-14s %10s %10s %10s %12s %s\n' trace executions "old" "new" bytes sha256
    for f in "$BANKSCOPE_EXTRA_TRACES"/*.bstrace; do
      n=$("$new" report "$f" | sed -nE '1s/.* ([0-9]+) warp executions.*/\1/p')
      printf '%-14s %10s %10s %10s %12s %s\n' "$(basename "$f" .bstrace)" "$n" "$(ir "$old" "$f")" "$(ir "$new" "$f")" \
        "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -c1-16)"
    done
  fi
} | tee "$out"
