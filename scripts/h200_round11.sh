#!/usr/bin/env bash
# h200_round11.sh: round 11's device call (carry [".devdeps"]): trace format version 3 (mode 4,
# lanes as the previous execution of their PC) written by the real tracer on the H200, end to end:
# 1. the whole tracer corpus with --check (scripts/h200_trace.sh) -> $OUT/trace_summary.txt and
#    $OUT/check.tar.gz (each program's --check output and report)
# 2. the corpus's largest traces, now version 3, gzipped -> $OUT/<name>.bstrace.gz, for `report`
#    throughput here (scripts/bench_real_traces.sh)
# 3. their report throughput on the H200 host's CPU -> $OUT/bench_real_h200_host.txt
# Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_real_traces /tmp/round11_corpus
step "done"
