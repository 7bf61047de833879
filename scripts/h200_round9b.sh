#!/usr/bin/env bash
# h200_round9b.sh: one device call (carry [".devdeps"]), round 9's second:
# 1. the R6 probe (tests/conformance/r6_probe.jsonl, 375 wide loads, one warp each) through
#    `bankscope-gpu patterns` -> $OUT/r6_probe_measured.jsonl
# 2. the atomics probe's fresh batch (kernels/probes/atom_cast.cu --fresh 11), whose R8c / R8
#    predictions were committed before this run (tests/conformance/atom_cast_fresh11_predicted.jsonl)
#    -> $OUT/fresh11/ (h200_atom_cast.sh: counters per launch and trace --check)
# Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_build OFF bankscope-gpu
step "R6 probe"
timeout 150 "$BUILD/bin/bankscope-gpu" patterns --jsonl tests/conformance/r6_probe.jsonl --out "$OUT/r6_probe_measured.jsonl"
echo "patterns exit $?"
step "atomics fresh batch (seed 11)"
mkdir -p "$OUT/fresh11"
ATOM_ARGS="--fresh 11" OUT="$OUT/fresh11" timeout 300 bash scripts/h200_atom_cast.sh >"$OUT/fresh11/stdout.txt" 2>&1
echo "atom_cast exit $?"
grep -A60 "^# launch" "$OUT/fresh11/measured.txt" | head -60
tail -5 "$OUT/fresh11/atom_cast.trace.txt"
step "done"
