#!/usr/bin/env bash
# h200_round13.sh: round 13's device call (carry [".devdeps"]): trace format version 4 (fixed-width
# execution fields, sources in the 'W' record) written by the real tracer on the H200, end to end:
# 1. the whole tracer corpus with --check (scripts/h200_trace.sh) -> $OUT/check.tar.gz (each
#    program's --check output and report; the summary lines are in $OUT/log.txt)
# 2. the corpus's largest traces, now version 4, gzipped -> $OUT/<name>.bstrace.gz, for `report`
#    throughput here (scripts/bench_real_traces.sh)
# 3. their report throughput on the H200 host's CPU -> $OUT/bench_real_h200_host.txt
# At most 8 files come back: trace_summary.txt (printed into log.txt) is removed. Never changes
# clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_real_traces /tmp/round13_corpus
rm -f "$OUT/trace_summary.txt"
ls -la "$OUT"
step "done"
