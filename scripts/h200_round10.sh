#!/usr/bin/env bash
# h200_round10.sh: round 10's device call (carry [".devdeps"]): this round's code end to end on the
# H200, and real traces for the report's speed.
# 1. the whole tracer corpus with --check (scripts/h200_trace.sh) -> $OUT/trace_summary.txt and
#    $OUT/check.tar.gz (each program's --check output and report; the traces themselves stay there)
# 2. the corpus's largest traces, gzipped, back to this workplace (cuBLAS SGEMM, CUB device
#    algorithms, cuBLAS HGEMM, PyTorch operators, gemm_float4) -> $OUT/<name>.bstrace.gz, for
#    `report` throughput on real kernels (scripts/bench_real_traces.sh, here)
# 3. the same throughput on this machine's CPU (bankscope-bench-trace over those traces, one core)
#    -> $OUT/bench_real_h200_host.txt
# Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_real_traces /tmp/round10_corpus
step "done"
