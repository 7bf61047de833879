#!/usr/bin/env bash
# h200_round17.sh: round 17's device call (carry [".devdeps"]; scripts/make_devdeps.sh makes it):
# `report` throughput after round 17's reader and aggregator changes, on the H200 host's CPU, and
# a fresh CUB device trace for it here.
# 1. cub_device traced with --check (scripts/h200_trace.sh, TRACE_ONLY): the report of a trace this
#    round's code reads, against the H200's instruction-level counters per launch
#    -> $OUT/cub_device.trace.txt, $OUT/cub_device.report.txt, $OUT/trace_summary.txt
# 2. the trace gzipped -> $OUT/cub_device.bstrace.gz (26 MB as recorded; not committed: `report`
#    throughput here, scripts/bench_real_traces.sh with BANKSCOPE_EXTRA_TRACES)
# 3. bankscope-bench-trace on this host's CPU (one core): the synthetic traces on each cost() path
#    the CPU has, then CUB's trace and the four committed version 4 traces (2026-12-02e)
#    -> $OUT/bench_h200_host.txt
# Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
TRACE_ONLY='^cub_device$' TRACE_TIMEOUT=120 source scripts/h200_trace.sh
tdir=$BUILD/trace_work
for f in cub_device.trace.txt cub_device.report.txt; do cp "$tdir/$f" "$OUT/"; done
gzip -c "$tdir/cub_device.bstrace" >"$OUT/cub_device.bstrace.gz"
echo "cub_device: $(stat -c %s "$tdir/cub_device.bstrace") bytes, gzip $(stat -c %s "$OUT/cub_device.bstrace.gz"), sha256 $(sha256sum "$tdir/cub_device.bstrace" | cut -c1-16)"
rm -f "$OUT/traces.tar.gz"  # the trace again, and ncu's raw output: the three files above carry what is used

step "report throughput on this host's CPU (bankscope-bench-trace, one core)"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_CUDA=OFF \
  -DBANKSCOPE_BUILD_TESTS=ON -DBANKSCOPE_BUILD_BENCH=ON >/dev/null && cmake --build build-bench -j "$(nproc)" --target bankscope-bench-trace >/dev/null
real=$BUILD/real
mkdir -p "$real"
cp "$tdir/cub_device.bstrace" "$real/"
for f in assets/results/h200/2026-12-02e/traces/*.bstrace.gz; do gunzip -c "$f" >"$real/$(basename "$f" .gz)"; done
{
  echo "# bankscope-bench-trace on the H200 host, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  for path in avx512 avx2 portable; do
    echo "## BANKSCOPE_SIMD=$path, synthetic traces"
    BANKSCOPE_SIMD=$path build-bench/bin/bankscope-bench-trace || echo "(path $path: exit $?)"
  done
  echo "## real traces (default path)"
  for f in "$real"/*.bstrace; do echo "# trace $(basename "$f"): $(stat -c %s "$f") bytes, sha256 $(sha256sum "$f" | cut -c1-16)"; done
  build-bench/bin/bankscope-bench-trace "$real"/*.bstrace
} 2>&1 | tee "$OUT/bench_h200_host.txt"
ls -la "$OUT"
step "done"
