#!/usr/bin/env bash
# h200_ldgsts_small.sh: issue 11's cp.async small-structure probes on the H200: every source/
# destination collision structure of a few lanes (.ca: tests/conformance/gen_ldgsts_small.py;
# .cg: gen_ldgsts_cg_small.py). One call of the device tool, carry [".devdeps"]:
#   run  command="bash scripts/h200_ldgsts_small.sh"                        (.ca, 3514 patterns)
#   run  command="SMALL_GEN=gen_ldgsts_cg_small.py bash scripts/h200_ldgsts_small.sh"  (.cg)
# Builds bankscope-gpu (sm_90) unless $BIN is given, regenerates the batch (deterministic),
# measures it with `bankscope-gpu patterns` (CUPTI, one single-warp launch per pattern) in chunks,
# so that a chunk that runs out of time loses only itself. Files in $OUT: log.txt (when run
# alone), <batch>_measured.jsonl.gz. Never changes clocks or GPU settings.
if ! declare -F h200_build >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
fi
START=$(date +%s)
DEADLINE=${DEADLINE:-540}   # seconds after start: no chunk starts later than this minus 60
GEN=${SMALL_GEN:-gen_ldgsts_small.py}
if [[ -z ${BIN:-} ]]; then
  h200_build OFF bankscope-gpu
  BIN="$BUILD/bin/bankscope-gpu"
fi
WORK=$(mktemp -d)

step "batch: tests/conformance/$GEN"
python3 "tests/conformance/$GEN" --stdout > "$WORK/batch.jsonl" || exit 1
NAME=$(python3 - "tests/conformance/$GEN" <<'PY'
import os, re, sys
print(re.search(r'OUT_FILE = os.path.join\(HERE, "([a-z0-9_]+)\.jsonl"\)', open(sys.argv[1]).read()).group(1))
PY
)
echo "$NAME: $(wc -l < "$WORK/batch.jsonl") patterns"
split -l 400 -d -a 2 "$WORK/batch.jsonl" "$WORK/chunk_"

step "patterns, chunks of 400"
: > "$WORK/measured.jsonl"
for c in "$WORK"/chunk_*; do
  left=$(( DEADLINE - ($(date +%s) - START) ))
  if (( left < 60 )); then echo "skipped $(basename "$c"): ${left} s left"; continue; fi
  lim=$(( left < 90 ? left : 90 ))
  timeout "$lim" "$BIN" patterns --jsonl "$c" --out "$WORK/out.jsonl" 2>&1 | grep -v -E 'CUPTI refused|rejected l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts'
  echo "$(basename "$c"): ($(wc -l < "$c") in, $(cat "$WORK/out.jsonl" 2>/dev/null | wc -l) out, $(( $(date +%s) - START )) s)"
  cat "$WORK/out.jsonl" >> "$WORK/measured.jsonl" 2>/dev/null
  rm -f "$WORK/out.jsonl"
done
echo "$NAME measured: $(grep -c measured_wavefronts "$WORK/measured.jsonl") of $(wc -l < "$WORK/batch.jsonl")"
gzip -c "$WORK/measured.jsonl" > "$OUT/${NAME}_measured.jsonl.gz"
