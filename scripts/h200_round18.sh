#!/usr/bin/env bash
# h200_round18.sh: round 18's device call (carry [".devdeps"]; scripts/make_devdeps.sh makes its
# headers, and .devdeps/round17 holds round 17's tree, `git archive 37f6a11 -- . ':(exclude)assets'`).
# 1. cub_device traced with --check (scripts/h200_trace.sh, TRACE_ONLY) by this tree: the report of
#    a fresh trace against the H200's instruction-level counters per launch and per instruction
#    -> $OUT/cub_device.trace.txt, $OUT/cub_device.report.txt, $OUT/trace_summary.txt
# 2. `report` throughput on this host's CPU (Intel Xeon, one core, the default cost() path), of this
#    tree and of round 17's built beside it, run alternately (this, round 17, this again): the
#    synthetic traces, then the fresh CUB trace and the four committed version 4 traces (2026-12-02e)
#    -> $OUT/bench_h200_host.txt
# ROUNDS=N (default 1): N pairs (this tree, round 17) before the last run of this tree, for a host
# whose load moves single runs. SKIP_TRACE=1: step 2 alone, on .devdeps/cub_device.bstrace.gz (the
# trace of 2026-12-03a) in place of a fresh trace.
# OLD_ROUND=N (default 17): compare with round N's tree, .devdeps/roundN (scripts/h200_round19.sh
# sets 18: round 18's final tree, `git archive 087cc26 -- . ':(exclude)assets'`).
# KEEP_TRACE=1: the fresh CUB trace, gzipped, into $OUT too (cub_device.bstrace.gz).
# HOST_TESTS=1: then sim_tests on each cost() path this host's CPU has (its AVX-512 one included).
# Never changes clocks or GPU settings.
old_round=${OLD_ROUND:-17}
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
tdir=$BUILD/trace_work
if [[ ${SKIP_TRACE:-0} == 1 ]]; then
  mkdir -p "$tdir"
  gunzip -c .devdeps/cub_device.bstrace.gz >"$tdir/cub_device.bstrace"
else
  TRACE_ONLY='^cub_device$' TRACE_TIMEOUT=120 source scripts/h200_trace.sh
  for f in cub_device.trace.txt cub_device.report.txt; do cp "$tdir/$f" "$OUT/"; done
  rm -f "$OUT/traces.tar.gz"  # the trace again, and ncu's raw output: the files above carry what is used
fi
echo "cub_device: $(stat -c %s "$tdir/cub_device.bstrace") bytes, sha256 $(sha256sum "$tdir/cub_device.bstrace" | cut -c1-16)"
[[ ${KEEP_TRACE:-0} == 1 ]] && gzip -c "$tdir/cub_device.bstrace" >"$OUT/cub_device.bstrace.gz"

step "report throughput on this host's CPU (bankscope-bench-trace, one core): this tree and round $old_round's"
bench_cfg=(-DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_CUDA=OFF -DBANKSCOPE_BUILD_TESTS=ON
  -DBANKSCOPE_BUILD_BENCH=ON)
cmake -S . -B build-bench "${bench_cfg[@]}" >/dev/null && cmake --build build-bench -j "$(nproc)" --target bankscope-bench-trace >/dev/null ||
  echo "build of this tree failed"
old=.devdeps/round$old_round
ln -sfn "$PWD/.devdeps" "$old/.devdeps"  # its headers (BANKSCOPE_DEVDEPS_INCLUDE)
cmake -S "$old" -B build-bench-r$old_round "${bench_cfg[@]}" >/dev/null &&
  cmake --build build-bench-r$old_round -j "$(nproc)" --target bankscope-bench-trace >/dev/null || echo "build of round $old_round's tree failed"
real=$BUILD/real
mkdir -p "$real"
cp "$tdir/cub_device.bstrace" "$real/"
for f in assets/results/h200/2026-12-02e/traces/*.bstrace.gz; do gunzip -c "$f" >"$real/$(basename "$f" .gz)"; done
{
  echo "# bankscope-bench-trace on the H200 host, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  for f in "$real"/*.bstrace; do echo "# trace $(basename "$f"): $(stat -c %s "$f") bytes, sha256 $(sha256sum "$f" | cut -c1-16)"; done
  runs=()
  for ((k = 0; k < ${ROUNDS:-1}; ++k)); do runs+=("this tree" "round $old_round"); done
  runs+=("this tree, again")
  for run in "${runs[@]}"; do
    bin=build-bench/bin/bankscope-bench-trace
    [[ $run == "round $old_round" ]] && bin=build-bench-r$old_round/bin/bankscope-bench-trace
    echo "## $run ($bin), default path, synthetic traces"
    "$bin"
    echo "## $run, default path, real traces"
    "$bin" "$real"/*.bstrace
  done
} 2>&1 | tee "$OUT/bench_h200_host.txt"
if [[ ${HOST_TESTS:-0} == 1 ]]; then
  step "sim_tests on this host's CPU, each cost() path it has"
  cmake --build build-bench -j "$(nproc)" --target sim_tests >/dev/null || echo "build of sim_tests failed"
  for path in avx512 avx2 portable; do
    flag=$path
    [[ $path == avx512 ]] && flag=avx512_vpopcntdq  # (tests/CMakeLists.txt's flag for it)
    if [[ $path != portable ]] && ! grep -qw "$flag" /proc/cpuinfo; then echo "sim_tests $path: this CPU lacks it"; continue; fi
    BANKSCOPE_SIMD=$path build-bench/bin/sim_tests 2>&1 | tail -3 | sed "s/^/sim_tests $path: /"
  done
fi
ls -la "$OUT"
step "done"
