#!/usr/bin/env bash
# h200_trace.sh: issue 10 on the H200: builds the tracer (sm_90) and the corpus drivers
# (kernels/tracer/corpus/), traces each with `bankscope-gpu trace --check` (which runs ncu on the
# same program and compares per launch: smsp__sass_inst_executed_op_shared_{ld,st},
# smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}), reports each trace, and prints
# a summary last. Standalone (sources h200_common.sh) or called from another batch script with OUT
# and BUILD set. Outputs: $OUT/trace_summary.txt, $OUT/trace_log.txt, $OUT/traces.tar.gz (traces,
# reports, ncu output). Budget: about 4 minutes.
if ! declare -F h200_build >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
fi
T0=$(date +%s)
tdir=$OUT/trace_work
mkdir -p "$tdir"
summary=$OUT/trace_summary.txt
: >"$summary"

step "tracer: build bankscope-gpu, the tracer and bankscope-cli"
ls /usr/local/cuda-13.0/compute-sanitizer/ 2>&1 | head -20
# The toolkit's own sanitizer matches the driver (cached, so h200_build's configure keeps it).
cmake -S . -B "$BUILD" -DBANKSCOPE_SANITIZER_ROOT=/usr/local/cuda-13.0/compute-sanitizer >/dev/null 2>&1
h200_build OFF bankscope-gpu bankscope_tracer bankscope-cli
ls -l "$BUILD/bin/" | grep -E "tracer|bankscope"

step "tracer: corpus drivers (nvcc -O3 -arch=sm_90 -lineinfo)"
corpus=kernels/tracer/corpus
progs=()
for src in "$corpus"/*.cu; do
  name=$(basename "$src" .cu)
  extra=()
  [[ $name == cublas_* ]] && extra=(-lcublas)
  nvcc -O3 -arch=sm_90 -lineinfo -o "$tdir/$name" "$src" "${extra[@]}" &
  progs+=("$name")
done
wait

export BANKSCOPE_SANITIZER_DIR=/usr/local/cuda-13.0/compute-sanitizer
for name in "${progs[@]}"; do
  if [[ ! -x $tdir/$name ]]; then
    echo "$name: did not build" | tee -a "$summary"
    continue
  fi
  step "trace $name"
  t1=$(date +%s.%N)
  "$tdir/$name" >"$tdir/$name.plain.txt" 2>&1
  t2=$(date +%s.%N)
  timeout 120 "$BUILD/bin/bankscope-gpu" trace --check -o "$tdir/$name.bstrace" -- "$tdir/$name" \
    >"$tdir/$name.trace.txt" 2>&1
  rc=$?
  t3=$(date +%s.%N)
  tail -40 "$tdir/$name.trace.txt"
  "$BUILD/bin/bankscope-cli" report "$tdir/$name.bstrace" --top 10 >"$tdir/$name.report.txt" 2>&1
  "$BUILD/bin/bankscope-cli" report "$tdir/$name.bstrace" --json --top 0 >"$tdir/$name.report.json" 2>&1
  head -30 "$tdir/$name.report.txt"
  check=$(grep -E '^--check:' "$tdir/$name.trace.txt" | tail -1)
  printf '%-14s trace rc=%s  %s  untraced %.2fs, traced+check %.2fs, trace %s bytes\n' "$name" "$rc" \
    "${check:-no --check line}" "$(awk "BEGIN{print $t2 - $t1}")" "$(awk "BEGIN{print $t3 - $t2}")" \
    "$(stat -c %s "$tdir/$name.bstrace" 2>/dev/null || echo 0)" >>"$summary"
done

# The what-if on the traced transpose: launch 0 is tile[32][32]; stride 33 should give launch 1's
# counts (the padded kernel traced for real).
if [[ -f $tdir/transpose.bstrace ]]; then
  step "what-if: transpose tile[32][32] -> stride 33"
  "$BUILD/bin/bankscope-cli" report "$tdir/transpose.bstrace" --array 'tile@0:float[32][32]' \
    --layout tile:stride=33 >"$tdir/transpose.whatif.txt" 2>&1
  cat "$tdir/transpose.whatif.txt"
fi

tar -czf "$OUT/traces.tar.gz" -C "$tdir" . 2>/dev/null
cp "$OUT/log.txt" "$OUT/trace_log.txt" 2>/dev/null || true
step "tracer summary ($(( $(date +%s) - T0 )) s)"
cat "$summary"
