#!/usr/bin/env bash
# h200_ldgsts.sh: issue 11's cp.async (LDGSTS) source-side probe on the H200: does the shared-side
# wavefront count depend on the GLOBAL source addresses? (tests/conformance/README_ldgsts_src.md).
# Meant to be one part of a combined batch (device tool, carry [".devdeps"]):
#
#   PART_TIMEOUT=580 bash scripts/h200_round2_all.sh ldgsts
#   LDGSTS_BATCH=tests/conformance/ldgsts_fresh.jsonl PART_TIMEOUT=580 bash scripts/h200_round2_all.sh ldgsts
#       (any other ldgsts batch, e.g. the fresh one: files are named after the batch; the generator
#        check then runs gen_ldgsts_fresh.py --check)
#
# Steps: build bankscope-gpu (sm_90) -> SASS check (one LDGSTS of the named form per kernel, the
# .L2::<n>B ones included) -> ncu --query-metrics for ldgsts -> the batch is the generator's ->
# bankscope-gpu patterns (CUPTI, one single-warp launch per pattern) on
# tests/conformance/ldgsts_src_v1.jsonl, one run per kind -> the 96 ldgsts lines of patterns_v2
# re-measured (the kernel now reads its source offsets from the pattern: the counts must equal
# 2026-11-30a's) -> the batch again with every global-side ldgsts metric ncu lists (a separate run,
# so a metric set that will not open cannot cost the main counters) -> the score, when
# scripts/ldgsts_score.py is present. About 4 minutes (PART_TIMEOUT=580 leaves room). Files in $OUT:
#   <batch>_measured.jsonl        per pattern: input, R9's prediction, measured_wavefronts /
#                                 measured_bank_conflicts (smsp__sass_..._op_ldgsts, else the
#                                 l1tex__ pair) and every collected counter under "counters"
#   <batch>_global.jsonl          the same launches with the global-side ldgsts metrics added
#   ldgsts_v2_remeasured.jsonl    patterns_v2's ldgsts lines through the new kernel
#   ldgsts_extra.tar.gz           ldgsts_log.txt (this whole output), sass_ldgsts_h200.txt,
#                                 ncu_ldgsts_metrics.txt, ldgsts_score.txt
# Does not source h200_common.sh (that one sends all output to $OUT/log.txt, which the calling
# batch owns). Never changes clocks or GPU settings.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-out/h200}
BUILD=${BUILD:-build-h200}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/h200_ldgsts.XXXXXX)
exec > >(tee "$WORK/ldgsts_log.txt") 2>&1
step() { echo; echo "=== ldgsts: $* ($(date -u +%H:%M:%S))"; }
finish() {
  echo "ldgsts: writing $OUT/ldgsts_extra.tar.gz"
  exec 1>&- 2>&-  # lets tee finish ldgsts_log.txt before it is packed
  sleep 1
  tar -C "$WORK" -czf "$OUT/ldgsts_extra.tar.gz" .
}
trap finish EXIT
BATCH=${LDGSTS_BATCH:-tests/conformance/ldgsts_src_v1.jsonl}
NAME=$(basename "$BATCH" .jsonl)

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv || true
nvcc --version | tail -1 || true
git log -1 --format='commit %H %s' 2>/dev/null || true

step "the batch is the generator's"
case $NAME in
  ldgsts_src_v1) python3 tests/conformance/gen_ldgsts_src_v1.py --check ;;
  ldgsts_fresh9) python3 tests/conformance/gen_ldgsts_fresh9.py --check ;;
  ldgsts_cg_fresh10) python3 tests/conformance/gen_ldgsts_cg_fresh10.py --check ;;
  ldgsts_fresh*) python3 tests/conformance/gen_ldgsts_fresh.py --check ;;
  *) true ;;
esac || echo "ldgsts: WARNING $BATCH differs from its generator"
echo "$(wc -l < "$BATCH") patterns in $BATCH"

step "configure and build bankscope-gpu (sm_90)"
gen=""
command -v ninja >/dev/null && gen="-G Ninja"
cmake -S . -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_TESTS=OFF \
  -DBANKSCOPE_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || { echo "ldgsts: configure failed"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target bankscope-gpu >/dev/null || { echo "ldgsts: build failed"; exit 1; }
BIN="$BUILD/bin/bankscope-gpu"

step "SASS: one LDGSTS of the named form per cp.async kernel (k_ldgsts, k_ldgsts_pf)"
scripts/sass_pattern_kernels.sh "$BIN" > "$WORK/sass_ldgsts_h200.txt"
echo "sass check exit: $? (0 = every issue-11 kernel holds exactly one instruction of its form)"
grep -E '^(ok|BAD) .*k_ldgsts' "$WORK/sass_ldgsts_h200.txt"
tail -1 "$WORK/sass_ldgsts_h200.txt"

step "ncu --query-metrics: every ldgsts metric"
timeout 60 ncu --query-metrics 2>&1 | grep -i 'ldgsts' > "$WORK/ncu_ldgsts_metrics.txt"
echo "ncu query exit: $?; $(wc -l < "$WORK/ncu_ldgsts_metrics.txt") lines"
# Base names (first column); the global side = everything that is not the shared-side pair the
# main run collects anyway. Each gets .sum; CUPTI drops any it refuses and names it in the note.
extra=$(awk '{print $1}' "$WORK/ncu_ldgsts_metrics.txt" | grep -E '^[a-z0-9_]+__[a-z0-9_]+$' | grep -v 'mem_shared' | sort -u |
  sed 's/$/.sum/' | paste -sd, -)
# Names written out in case the query printed nothing usable (assumed from ncu's naming scheme).
[[ -n $extra ]] || extra="l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_lookup_miss.sum,\
smsp__sass_inst_executed_op_ldgsts_cache_access.sum,smsp__sass_inst_executed_op_ldgsts_cache_bypass.sum"
echo "global-side metrics for the second run: $extra"

step "patterns: $BATCH, one run per kind"
: > "$OUT/${NAME}_measured.jsonl"
KINDS=('"width": 4, "cache": "ca"' '"width": 8, "cache": "ca"' '"width": 16, "cache": "ca"' '"width": 16, "cache": "cg"')
for k in "${KINDS[@]}"; do
  grep -F "$k" "$BATCH" > "$WORK/in.jsonl"
  timeout 150 "$BIN" patterns --jsonl "$WORK/in.jsonl" --out "$WORK/measured.jsonl"
  echo "patterns [$k] exit: $? ($(wc -l < "$WORK/in.jsonl") in, $(cat "$WORK/measured.jsonl" 2>/dev/null | wc -l) out)"
  cat "$WORK/measured.jsonl" >> "$OUT/${NAME}_measured.jsonl" 2>/dev/null
  rm -f "$WORK/in.jsonl" "$WORK/measured.jsonl"
done

step "control: patterns_v2's ldgsts lines through the new kernel (must equal 2026-11-30a)"
grep '"op": "ldgsts"' tests/conformance/patterns_v2.jsonl > "$WORK/v2_ldgsts.jsonl"
timeout 90 "$BIN" patterns --jsonl "$WORK/v2_ldgsts.jsonl" --out "$OUT/ldgsts_v2_remeasured.jsonl"
echo "patterns v2 ldgsts exit: $?"
python3 - "$OUT/ldgsts_v2_remeasured.jsonl" assets/results/h200/2026-11-30a/patterns_v2_measured.jsonl <<'PY'
import json, sys
def load(p):
    try:
        return {r["id"]: r for r in map(json.loads, open(p)) if r.get("op") == "ldgsts"}
    except OSError as e:
        print("control: cannot read", p, e); return {}
new, old = load(sys.argv[1]), load(sys.argv[2])
same = [i for i in old if i in new and all(new[i].get(k) == old[i].get(k) for k in ("measured_wavefronts", "measured_bank_conflicts"))]
print("control: %d of %d ldgsts lines of 2026-11-30a measure the same now" % (len(same), len(old)))
for i in old:
    if i not in same:
        print("  differs:", i, "then", old[i].get("measured_wavefronts"), old[i].get("measured_bank_conflicts"),
              "now", new.get(i, {}).get("measured_wavefronts"), new.get(i, {}).get("measured_bank_conflicts"))
PY

step "patterns again with the global-side ldgsts metrics (separate runs, one per kind)"
: > "$OUT/${NAME}_global.jsonl"
for k in "${KINDS[@]}"; do
  grep -F "$k" "$BATCH" > "$WORK/in.jsonl"
  timeout 100 "$BIN" patterns --jsonl "$WORK/in.jsonl" --extra-metrics "$extra" --out "$WORK/measured.jsonl"
  echo "patterns (global metrics) [$k] exit: $? ($(cat "$WORK/measured.jsonl" 2>/dev/null | wc -l) lines)"
  cat "$WORK/measured.jsonl" >> "$OUT/${NAME}_global.jsonl" 2>/dev/null
  rm -f "$WORK/in.jsonl" "$WORK/measured.jsonl"
done

step "score"
if [[ -f scripts/ldgsts_score.py ]]; then
  pred=()
  [[ -f tests/conformance/${NAME}_predicted.jsonl ]] && pred=(--predicted "tests/conformance/${NAME}_predicted.jsonl")
  python3 scripts/ldgsts_score.py "$OUT/${NAME}_measured.jsonl" --global "$OUT/${NAME}_global.jsonl" "${pred[@]}" \
    --also assets/results/h200/2026-11-30a/patterns_v2_measured.jsonl | tee "$WORK/ldgsts_score.txt"
else
  echo "scripts/ldgsts_score.py not in this commit: score later with it"
fi
python3 - "$OUT/${NAME}_measured.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
got = [r for r in rows if "measured_wavefronts" in r]
r9 = sum(r["measured_wavefronts"] == r["wavefronts"] and r["measured_bank_conflicts"] == r["bank_conflicts"] for r in got)
print("%s: %d lines, %d measured, the model (R9 with the pattern's sources, as predict --jsonl) right on both counters for %d" % (sys.argv[1], len(rows), len(got), r9))
PY
