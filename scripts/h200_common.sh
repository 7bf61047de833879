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

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
nvcc --version | tail -2 || true
