#!/usr/bin/env bash
# trace_repeats.sh: how often a real kernel's executions repeat their PC's previous lane pattern
# (the reader's TraceWarp::same_offsets; in a version 3 file, mode 4 and evenly spaced repeats), for
# the H200 corpus's traces committed as round 10's tracer wrote them (version 2, which marks only
# evenly spaced repeats) and as round 11's did (version 3), plus any *.bstrace in
# $BANKSCOPE_EXTRA_TRACES. Writes assets/results/cpu/trace_repeats.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=assets/results/cpu/trace_repeats.txt
bin="${BANKSCOPE_BUILD_DIR:-build}/bin/bankscope-bench-trace"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for f in assets/results/h200/2026-12-02b/traces/*.bstrace.gz; do gunzip -c "$f" >"$dir/$(basename "$f" .bstrace.gz).v2.bstrace"; done
for f in assets/results/h200/2026-12-02d/traces/*.bstrace.gz; do gunzip -c "$f" >"$dir/$(basename "$f" .bstrace.gz).v3.bstrace"; done
if [[ -n ${BANKSCOPE_EXTRA_TRACES:-} ]]; then cp "$BANKSCOPE_EXTRA_TRACES"/*.bstrace "$dir/"; fi
{
  echo "# trace_repeats.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $bin at commit $(git rev-parse --short HEAD)"
  (cd "$dir" && "$root/$bin" --repeats ./*.bstrace)
} | tee "$out"
