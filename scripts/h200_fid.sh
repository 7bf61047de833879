#!/usr/bin/env bash
# h200_fid.sh: issue 11's first H200 measurement: ldmatrix, stmatrix, shared atomics and cp.async,
# one instruction per launch (tests/conformance/patterns_v2.jsonl, 619 patterns). Meant to be
# called from a combined batch (device tool, carry [".devdeps"]):
#
#   bash scripts/h200_fid.sh
#
# Steps: build bankscope-gpu (sm_90) -> SASS of the pattern kernels with the one-instruction check
# -> ncu --query-metrics filtered to shared memory -> bankscope-gpu patterns (CUPTI) -> a score of
# the assumed model and of each hypothesis (gen_suite_v2.py --score). About 2 minutes.
# Files in $OUT (2, to leave room for the rest of the batch):
#   patterns_v2_measured.jsonl   one line per pattern: input, model prediction, measured counters
#   fid_extra.tar.gz             fid_log.txt (this script's whole output), sass_v2_h200.txt,
#                                ncu_shared_metrics_v2.txt, patterns_v2_score.txt
# Does not source h200_common.sh: that one sends all output to $OUT/log.txt, which the calling
# batch owns. Never changes clocks or GPU settings.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-out/h200}
BUILD=${BUILD:-build-h200}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/h200_fid.XXXXXX)
exec > >(tee "$WORK/fid_log.txt") 2>&1
step() { echo; echo "=== fid: $* ($(date -u +%H:%M:%S))"; }
finish() {
  echo "fid: writing $OUT/fid_extra.tar.gz beside $OUT/patterns_v2_measured.jsonl"
  exec 1>&- 2>&-  # lets tee finish fid_log.txt before it is packed
  sleep 1
  tar -C "$WORK" -czf "$OUT/fid_extra.tar.gz" .
}
trap finish EXIT

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv || true
nvcc --version | tail -1 || true

step "configure and build bankscope-gpu (sm_90)"
gen=""
command -v ninja >/dev/null && gen="-G Ninja"
cmake -S . -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_TESTS=OFF \
  -DBANKSCOPE_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || { echo "fid: configure failed"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target bankscope-gpu >/dev/null || { echo "fid: build failed"; exit 1; }
BIN="$BUILD/bin/bankscope-gpu"

step "SASS: one LDSM/STSM/ATOMS/LDGSTS of the named form per pattern kernel"
scripts/sass_pattern_kernels.sh "$BIN" > "$WORK/sass_v2_h200.txt"
echo "sass check exit: $? (0 = every issue-11 kernel holds exactly one instruction of its form)"
tail -3 "$WORK/sass_v2_h200.txt"

step "ncu --query-metrics, shared-memory metrics"
timeout 60 ncu --query-metrics 2>&1 | grep -Ei 'shared|ldsm|stsm|ldgsts|_atom' > "$WORK/ncu_shared_metrics_v2.txt"
echo "ncu query exit: $?; $(wc -l < "$WORK/ncu_shared_metrics_v2.txt") lines"
grep -oE '^ *[a-z_]+__[a-z_0-9]*(ldsm|stsm|ldgsts|shared_op_atom)[a-z_0-9]*' "$WORK/ncu_shared_metrics_v2.txt" | tr -d ' ' |
  grep -E 'wavefronts|conflicts|inst_executed' | sort -u

step "patterns: 619 single-instruction launches with CUPTI, one run per kind"
# One run per kind, each with its own time limit, so a kind that fails or hangs costs only its
# own lines; the four outputs are joined into one file in suite order of kinds.
: > "$OUT/patterns_v2_measured.jsonl"
for kind in ldmatrix stmatrix atom ldgsts; do
  grep "\"op\": \"$kind\"" tests/conformance/patterns_v2.jsonl > "$WORK/in_$kind.jsonl"
  timeout 100 "$BIN" patterns --jsonl "$WORK/in_$kind.jsonl" --out "$WORK/measured_$kind.jsonl"
  echo "patterns $kind exit: $? ($(wc -l < "$WORK/in_$kind.jsonl") in, $(cat "$WORK/measured_$kind.jsonl" 2>/dev/null | wc -l) out)"
  cat "$WORK/measured_$kind.jsonl" >> "$OUT/patterns_v2_measured.jsonl" 2>/dev/null
  rm -f "$WORK/in_$kind.jsonl" "$WORK/measured_$kind.jsonl"
done

step "score: the assumed model (R7-R9) and every hypothesis, per kind and family"
python3 tests/conformance/gen_suite_v2.py --score "$OUT/patterns_v2_measured.jsonl" | tee "$WORK/patterns_v2_score.txt"
