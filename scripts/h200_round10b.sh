#!/usr/bin/env bash
# h200_round10b.sh: round 10's last device call (carry [".devdeps"]): the whole tracer corpus with
# --check on the round's final code (the memo of ldmatrix/atomics/cp.async executions, the atomics
# route, the reader's mode-1 path came after h200_round10.sh ran) -> $OUT/trace_summary.txt and
# $OUT/check.tar.gz (each program's --check output and report). Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
work=/tmp/round10b_corpus
rm -rf "$work"
mkdir -p "$work"
step "corpus (trace --check, every program)"
OUT="$work" TRACE_TIMEOUT=120 timeout 540 bash scripts/h200_trace.sh >"$work/stdout.txt" 2>&1
echo "corpus exit $?"
cp "$work/trace_summary.txt" "$OUT/"
cat "$OUT/trace_summary.txt"
mkdir -p "$work/t"
tar -xzf "$work/traces.tar.gz" -C "$work/t"
(cd "$work/t" && tar -czf "$OUT/check.tar.gz" ./*.trace.txt ./*.report.txt)
step "done"
