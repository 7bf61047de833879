#!/usr/bin/env bash
# h200_round10b.sh: round 10's last device call (carry [".devdeps"]): the whole tracer corpus with
# --check on the round's final code (the memo of ldmatrix/atomics/cp.async executions, the atomics
# route, the reader's mode-1 path came after h200_round10.sh ran) -> $OUT/trace_summary.txt and
# $OUT/check.tar.gz (each program's --check output and report). Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_corpus_check /tmp/round10b_corpus
step "done"
