#!/usr/bin/env bash
# h200_run3.sh: the bench again, with block-order (rasterization) variants of the fast kernel, in
# one call of the device tool. Writes log.txt, bench.json, bench.txt, bench.svg to $OUT.
#   device tool:  run  command="bash scripts/h200_run3.sh"  carry=[".devdeps"]
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/h200}
BUILD=${BUILD:-build-h200}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv || true
gen=""; command -v ninja >/dev/null && gen="-G Ninja"
cmake -S . -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_TESTS=OFF \
  -DBANKSCOPE_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || exit 1
cmake --build "$BUILD" -j "$(nproc)" --target bankscope-gpu >/dev/null || exit 1
timeout 300 "$BUILD/bin/bankscope-gpu" bench --n 4096,8192,16384,8191,4100 --runs 50 --warmup 5 \
  --json "$OUT/bench.json" --svg "$OUT/bench.svg" | tee "$OUT/bench.txt"
echo "bench exit: $?"
