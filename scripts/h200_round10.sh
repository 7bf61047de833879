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
work=/tmp/round10_corpus
h200_corpus_check "$work"
picked=(cublas_sgemm cub_device cublas_hgemm torch_ops gemm_float4)
for n in "${picked[@]}"; do
  [[ -f $work/t/$n.bstrace ]] || { echo "$n: no trace"; continue; }
  gzip -c "$work/t/$n.bstrace" >"$OUT/$n.bstrace.gz"
  echo "$n: $(stat -c %s "$work/t/$n.bstrace") bytes, gzip $(stat -c %s "$OUT/$n.bstrace.gz"), sha256 $(sha256sum "$work/t/$n.bstrace" | cut -c1-16)"
done
step "report throughput on this host's CPU (bankscope-bench-trace, one core)"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_CUDA=OFF \
  -DBANKSCOPE_BUILD_TESTS=ON -DBANKSCOPE_BUILD_BENCH=ON >/dev/null && cmake --build build-bench -j "$(nproc)" --target bankscope-bench-trace >/dev/null
{
  echo "# bankscope-bench-trace on the H200 host, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  files=()
  for n in "${picked[@]}"; do [[ -f $work/t/$n.bstrace ]] && files+=("$work/t/$n.bstrace"); done
  build-bench/bin/bankscope-bench-trace "${files[@]}"
} 2>&1 | tee "$OUT/bench_real_h200_host.txt"
step "done"
