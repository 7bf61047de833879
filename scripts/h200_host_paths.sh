#!/usr/bin/env bash
# h200_host_paths.sh: cost() on each path of the H200 host's CPU (an Intel Xeon with AVX-512), every
# width, strided and random warps (bankscope-bench --no-launch, one core) -> $OUT/model_bench_h200_host.txt,
# with the CPU's identification (family, model, flags). Round 17 asked which path cost() should take
# there: the report on random lanes ran 12.9 M/s on the AVX-512 path and 30.4 on the AVX2 path
# (2026-12-03a/bench_h200_host.txt). Needs nothing but a C++ compiler (carry [".devdeps"]).
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-out/h200}
mkdir -p "$OUT"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_CUDA=OFF \
  -DBANKSCOPE_BUILD_TESTS=ON -DBANKSCOPE_BUILD_BENCH=ON >/dev/null && cmake --build build-bench -j "$(nproc)" --target bankscope-bench >/dev/null
{
  echo "# bankscope-bench --no-launch on the H200 host, $(date -u +%Y-%m-%dT%H:%M:%SZ), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  grep -m1 'vendor_id' /proc/cpuinfo; grep -m1 'cpu family' /proc/cpuinfo; grep -m1 '^model\s' /proc/cpuinfo
  grep -m1 'model name' /proc/cpuinfo; grep -m1 'stepping' /proc/cpuinfo
  echo "avx512: $(grep -o -w -E 'avx512[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  build-bench/bin/bankscope-bench --no-launch
} 2>&1 | tee "$OUT/model_bench_h200_host.txt"
