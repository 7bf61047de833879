# h200_common.sh: what every H200 batch script starts with (sourced, not run). Sets OUT (what the
# device tool brings back) and BUILD, copies all output to $OUT/log.txt, prints the machine, and
# defines step() and h200_build(). Never changes clocks or GPU settings.
#   h200_build TESTS TARGET...   configure (sm_90, Release, no app) and build the targets;
#                                TESTS is ON or OFF (BANKSCOPE_BUILD_TESTS)
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-out/h200}
BUILD=${BUILD:-build-h200}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

h200_build() {
  local tests=$1
  shift
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  local gen=""
  command -v ninja >/dev/null && gen="-G Ninja"
  step "configure and build (sm_90): $*"
  cmake -S . -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_TESTS="$tests" \
    -DBANKSCOPE_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || exit 1
  cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}" >/dev/null || exit 1
}

# h200_corpus_check WORK: the whole tracer corpus, each program with `trace --check`
# (scripts/h200_trace.sh), in WORK; copies its trace_summary.txt to $OUT, unpacks the traces into
# WORK/t and packs each program's --check output and report into $OUT/check.tar.gz.
h200_corpus_check() {
  local work=$1
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
}

# h200_real_traces WORK: h200_corpus_check WORK, then the corpus's largest traces, gzipped, into $OUT
# (cuBLAS SGEMM, CUB device algorithms, cuBLAS HGEMM, PyTorch operators, gemm_float4), and
# bankscope-bench-trace over them on this host's CPU (one core) -> $OUT/bench_real_h200_host.txt.
h200_real_traces() {
  local work=$1
  h200_corpus_check "$work"
  local picked=(cublas_sgemm cub_device cublas_hgemm torch_ops gemm_float4)
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
}

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
nvcc --version | tail -2 || true
