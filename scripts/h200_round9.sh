#!/usr/bin/env bash
# h200_round9.sh: the next H200 batch for issue 11's cp.async rules (written 2026-12-01, round 8, when
# no device machine was lent any more). One call of the device tool, carry [".devdeps"]:
#   run  command="bash scripts/h200_round9.sh"
# 1. the fresh .cg batch (tests/conformance/ldgsts_cg_fresh10.jsonl), whose H10 predictions were
#    committed first (ldgsts_cg_fresh10_predicted.jsonl) -> $OUT/ldgsts_cg_fresh10.tar.gz; commit
#    its ldgsts_cg_fresh10_measured.jsonl as assets/results/h200/ldgsts_cg_fresh10/ (ctest
#    conformance.h200_ldgsts_cg_fresh10 reads it there)
# 2. the tracer corpus programs with cp.async (cuBLAS SGEMM at two shapes, cuBLAS HGEMM, PyTorch,
#    zfill_cp_async) traced with --check under rules H9 (.ca) and H10 (.cg, costed by default since
#    H10): per launch and per instruction against ncu -> $OUT/trace_check.tar.gz (summary and the
#    --check output, not the traces)
# Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_build OFF bankscope-gpu

step "fresh .cg batch (H10 predicted before measuring)"
mkdir -p "$OUT/fresh10"
LDGSTS_BATCH=tests/conformance/ldgsts_cg_fresh10.jsonl OUT="$OUT/fresh10" timeout 200 bash scripts/h200_ldgsts.sh \
  > "$OUT/fresh10/stdout.txt" 2>&1
echo "fresh10 exit $?"
grep -E "predicted before measuring|right on both|control:" "$OUT/fresh10/stdout.txt"
tar -C "$OUT" -czf "$OUT/ldgsts_cg_fresh10.tar.gz" fresh10 && rm -rf "$OUT/fresh10"

step "whole kernels with cp.async: trace --check (H9, H10)"
mkdir -p "$OUT/tc"
( export TRACE_ONLY='^(cublas_sgemm|cublas_sgemm_odd|cublas_hgemm|zfill_cp_async|torch_ops)$'
  OUT="$OUT/tc" timeout 380 bash scripts/h200_trace.sh ) > "$OUT/tc/stdout.txt" 2>&1
echo "trace exit $?"
cat "$OUT/tc/trace_summary.txt" 2>/dev/null
mkdir -p "$OUT/trace_check"
cp "$OUT/tc/trace_summary.txt" "$OUT/tc/stdout.txt" "$OUT/trace_check/" 2>/dev/null
tar -xzf "$OUT/tc/traces.tar.gz" -C "$OUT/trace_check" --wildcards '*.trace.txt' '*.report.txt' 2>/dev/null
tar -C "$OUT" -czf "$OUT/trace_check.tar.gz" trace_check && rm -rf "$OUT/tc" "$OUT/trace_check"
step "done"
