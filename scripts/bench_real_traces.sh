#!/usr/bin/env bash
# bench_real_traces.sh [OLD_BUILD_DIR OLD_LABEL]: `report` throughput on real kernels' traces, one
# core, written with the machine's description to assets/results/cpu/bench_real_traces.txt.
# The traces: the H200 corpus's, committed gzipped in assets/results/h200/2026-12-02b/traces/ (cuBLAS
# SGEMM and HGEMM, PyTorch operators, gemm_float4; scripts/h200_round10.sh recorded them, format
# version 2), in 2026-12-02d/traces/ (the same programs, scripts/h200_round11.sh, version 3) and in
# 2026-12-02e/traces/ (scripts/h200_round13.sh, version 4), plus any *.bstrace in
# $BANKSCOPE_EXTRA_TRACES (e.g. the CUB device trace, 26 MB in version 4, not committed; its size
# and sha256 are printed with it). Each is read once and reported many times in memory by
# bankscope-bench-trace (best of 7), on each cost() path this CPU has, each file as it is and as
# rewrite_trace() writes it again in the current format version (the "v4" rows); with OLD_BUILD_DIR,
# that build's bankscope-bench-trace too on the files it reads (OLD_MAX_VERSION, default 3), the
# two alternated (new, old, new again on the files both read). Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=assets/results/cpu/bench_real_traces.txt
new="${BANKSCOPE_BUILD_DIR:-build}/bin/bankscope-bench-trace"
old="${1:+$1/bin/bankscope-bench-trace}"
label="${2:-}"
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for f in assets/results/h200/2026-12-02b/traces/*.bstrace.gz; do gunzip -c "$f" >"$dir/$(basename "$f" .gz)"; done
# The same programs traced by round 11's tracer (format version 3), named *.h200v3.bstrace.
for f in assets/results/h200/2026-12-02d/traces/*.bstrace.gz; do gunzip -c "$f" >"$dir/$(basename "$f" .bstrace.gz).h200v3.bstrace"; done
for f in assets/results/h200/2026-12-02e/traces/*.bstrace.gz; do gunzip -c "$f" >"$dir/$(basename "$f" .bstrace.gz).h200v4.bstrace"; done
if [[ -n ${BANKSCOPE_EXTRA_TRACES:-} ]]; then
  for f in "$BANKSCOPE_EXTRA_TRACES"/*.bstrace; do [[ -e $dir/$(basename "$f") ]] || cp "$f" "$dir/"; done
fi
files=("$dir"/*.bstrace)
# An old build reads only the versions it knows: it gets the files of version 2 or older.
old_files=()
# The files OLD reads: up to version ${OLD_MAX_VERSION:-3} (round 12's code reads 1 to 3; round 10's, 1 and 2).
for f in "${files[@]}"; do (($(od -An -tu1 -j8 -N1 "$f") <= ${OLD_MAX_VERSION:-3})) && old_files+=("$f"); done
{
  echo "# bench_real_traces.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# new: $new at commit $state"
  [[ -n $old ]] && echo "# old: $old ($label)"
  for f in "${files[@]}"; do echo "# trace $(basename "$f"): $(stat -c %s "$f") bytes, sha256 $(sha256sum "$f" | cut -c1-16)"; done
  for path in avx2 portable; do
    rc=0
    BANKSCOPE_SIMD=$path "$new" /nonexistent.bstrace >/dev/null 2>&1 || rc=$?
    [[ $rc == 2 ]] && continue  # a path this CPU lacks
    echo "## BANKSCOPE_SIMD=$path, new"
    BANKSCOPE_SIMD=$path "$new" --rewrite "${files[@]}"
    if [[ -n $old ]]; then
      echo "## BANKSCOPE_SIMD=$path, old ($label)"
      BANKSCOPE_SIMD=$path "$old" "${old_files[@]}"
      # new again, after old: the VM's host slows runs for tens of seconds at a time (round 17 saw
      # the first half of a run at half speed), so each build gets a run on either side.
      echo "## BANKSCOPE_SIMD=$path, new again"
      BANKSCOPE_SIMD=$path "$new" "${old_files[@]}"
    fi
  done
} | tee "$out"
