#!/usr/bin/env bash
# h200_host_report.sh: `report` throughput of this tree on the H200 host's CPU (Intel Xeon), one core,
# on the path cost() takes there by default (AVX2 since round 17) and on AVX-512 forced, for the
# synthetic traces and the real ones: CUB's device trace (2026-12-03a, carried gzipped as
# .devdeps/cub_device.bstrace.gz: call with carry [".devdeps"]) and the four committed version 4
# traces (2026-12-02e) -> $OUT/bench_h200_host.txt. Needs no GPU; never changes GPU settings.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-out/h200}
mkdir -p "$OUT"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_CUDA=OFF \
  -DBANKSCOPE_BUILD_TESTS=ON -DBANKSCOPE_BUILD_BENCH=ON >/dev/null && cmake --build build-bench -j "$(nproc)" --target bankscope-bench-trace >/dev/null
real=build-bench/real
mkdir -p "$real"
[[ -f .devdeps/cub_device.bstrace.gz ]] && gunzip -c .devdeps/cub_device.bstrace.gz >"$real/cub_device.bstrace"
for f in assets/results/h200/2026-12-02e/traces/*.bstrace.gz; do gunzip -c "$f" >"$real/$(basename "$f" .gz)"; done
{
  echo "# bankscope-bench-trace on the H200 host, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'vendor_id' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "## default path, synthetic traces"
  build-bench/bin/bankscope-bench-trace
  echo "## default path, real traces"
  for f in "$real"/*.bstrace; do echo "# trace $(basename "$f"): $(stat -c %s "$f") bytes, sha256 $(sha256sum "$f" | cut -c1-16)"; done
  build-bench/bin/bankscope-bench-trace "$real"/*.bstrace
  echo "## BANKSCOPE_SIMD=avx512 (forced), real traces"
  BANKSCOPE_SIMD=avx512 build-bench/bin/bankscope-bench-trace "$real"/*.bstrace
  echo "## default path again, real traces"
  build-bench/bin/bankscope-bench-trace "$real"/*.bstrace
} 2>&1 | tee "$OUT/bench_h200_host.txt"
