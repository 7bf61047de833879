#!/usr/bin/env bash
# h200_round9c.sh: round 9's third device call (carry [".devdeps"]): the code of R8c/R11 and of the
# source-table assignment, end to end on the H200:
# 1. the atomics probe, named patterns and fresh batch 11, traced with --check (per launch and per
#    instruction against ncu) -> $OUT/atom_named/, $OUT/atom_fresh11/
# 2. the whole tracer corpus (12 programs) with --check -> $OUT/corpus/ (summary, --check output)
# Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
for run in named fresh11; do
  step "atomics probe: $run"
  mkdir -p "$OUT/atom_$run"
  args=""; [[ $run == fresh11 ]] && args="--fresh 11"
  ATOM_ARGS="$args" OUT="$OUT/atom_$run" timeout 200 bash scripts/h200_atom_cast.sh >"$OUT/atom_$run/stdout.txt" 2>&1
  echo "exit $?"
  grep -E "^--check" "$OUT/atom_$run/atom_cast.trace.txt"
  rm -f "$OUT/atom_$run/metrics.csv" "$OUT/atom_$run/stdout.txt"
  gzip -f "$OUT/atom_$run/atom_cast.bstrace.ncu_source.csv"
done
step "corpus"
mkdir -p "$OUT/corpus"
OUT="$OUT/corpus" timeout 420 bash scripts/h200_trace.sh >"$OUT/corpus/stdout.txt" 2>&1
echo "corpus exit $?"
cat "$OUT/corpus/trace_summary.txt"
mkdir -p "$OUT/corpus/check"
tar -xzf "$OUT/corpus/traces.tar.gz" -C "$OUT/corpus/check" --wildcards '*.trace.txt' '*.report.txt' 2>/dev/null
rm -f "$OUT/corpus/traces.tar.gz"
gzip -f "$OUT/corpus/stdout.txt"
step "done"
