#!/usr/bin/env bash
# h200_trace.sh: issue 10 on the H200: builds the tracer (sm_90) and the corpus drivers
# (kernels/tracer/corpus/), traces each with `bankscope-gpu trace --check` (which runs ncu on the
# same program and compares per launch: smsp__sass_inst_executed_op_shared_{ld,st},
# smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}), reports each trace, and prints
# a summary last. Run it (`bash scripts/h200_trace.sh`: sources h200_common.sh; if $OUT already has
# another batch's log.txt, writes under $OUT/trace/ instead so that log is kept) or source it from
# a batch script that sourced h200_common.sh. Outputs (3 files): log.txt (standalone),
# trace_summary.txt, traces.tar.gz (traces, reports, ncu output). Budget: about 4 minutes.
if ! declare -F h200_build >/dev/null; then
  if [[ -n ${OUT:-} && -f $OUT/log.txt ]]; then OUT=$OUT/trace; fi
  source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
fi
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
T0=$(date +%s)
tdir=$BUILD/trace_work  # outside $OUT: only the tarball comes back
mkdir -p "$tdir"
summary=$OUT/trace_summary.txt
: >"$summary"

step "tracer: build bankscope-gpu, the tracer and bankscope-cli"
ls /usr/local/cuda-13.0/compute-sanitizer/ 2>&1 | head -20
ls /usr/local/cuda/bin | grep -E "nvdisasm|cuobjdump|ncu"  # the SASS of traced kernels needs nvdisasm
# The toolkit's own sanitizer matches the driver (kernels/tracer/CMakeLists.txt reads this).
export BANKSCOPE_SANITIZER_ROOT=/usr/local/cuda-13.0/compute-sanitizer
h200_build OFF bankscope-gpu bankscope_tracer bankscope-cli
ls -l "$BUILD/bin/" | grep -E "tracer|bankscope"

step "tracer: corpus drivers (nvcc -O3 -arch=sm_90 -lineinfo)"
corpus=kernels/tracer/corpus
progs=()
pids=()  # wait for these only: a bare `wait` also waits for h200_common.sh's `tee` (bash >= 5.1)
for src in "$corpus"/*.cu; do
  name=$(basename "$src" .cu)
  [[ -n ${TRACE_ONLY:-} && ! $name =~ $TRACE_ONLY ]] && continue  # only what is traced is built
  extra=()
  [[ $name == cublas_* ]] && extra=(-lcublas)
  [[ $name == cufft_* ]] && extra=(-lcufft)
  "$NVCC" -O3 -arch=sm_90 -lineinfo -o "$tdir/$name" "$src" "${extra[@]}" &
  pids+=($!)
  progs+=("$name")
done
wait "${pids[@]}"
# PyTorch operators (torch is installed on the H200 machine): the program is python3 itself.
for src in "$corpus"/*.py; do
  name=$(basename "$src" .py)
  printf '#!/bin/sh\nexec python3 %q "$@"\n' "$PWD/$src" >"$tdir/$name"
  chmod +x "$tdir/$name"
  progs+=("$name")
done

export BANKSCOPE_SANITIZER_DIR=/usr/local/cuda-13.0/compute-sanitizer
for name in "${progs[@]}"; do
  [[ -n ${TRACE_ONLY:-} && ! $name =~ $TRACE_ONLY ]] && continue  # e.g. TRACE_ONLY=torch_ops
  if [[ ! -x $tdir/$name ]]; then
    echo "$name: did not build" | tee -a "$summary"
    continue
  fi
  step "trace $name"
  t1=$(date +%s.%N)
  "$tdir/$name" >"$tdir/$name.plain.txt" 2>&1
  t2=$(date +%s.%N)
  limit=${TRACE_TIMEOUT:-90}
  [[ $name == torch_* ]] && limit=${TORCH_TIMEOUT:-240}  # ncu's source view of a Python process is slow
  # TRACE_FLAGS: more `trace` options (--ldgsts-r9 is accepted and does nothing since .cg is costed by default).
  timeout -k 5 "$limit" "$BUILD/bin/bankscope-gpu" trace --check ${TRACE_FLAGS:-} -o "$tdir/$name.bstrace" -- "$tdir/$name" \
    >"$tdir/$name.trace.txt" 2>&1
  rc=$?
  t3=$(date +%s.%N)
  tail -40 "$tdir/$name.trace.txt"
  "$BUILD/bin/bankscope-cli" report "$tdir/$name.bstrace" --top 10 >"$tdir/$name.report.txt" 2>&1
  "$BUILD/bin/bankscope-cli" report "$tdir/$name.bstrace" --json --top 0 >"$tdir/$name.report.json" 2>&1
  head -30 "$tdir/$name.report.txt"
  check=$(grep -E '^--check:' "$tdir/$name.trace.txt" | tail -1)
  traced=$(grep -oE 'ran [0-9.]+ s under the tracer' "$tdir/$name.trace.txt" | grep -oE '[0-9.]+' | head -1)
  printf '%-14s rc=%s  %s  untraced %.2f s, traced %s s, trace+check %.1f s, trace %s bytes\n' "$name" "$rc" \
    "${check:-no --check line}" "$(awk "BEGIN{print $t2 - $t1}")" "${traced:-?}" "$(awk "BEGIN{print $t3 - $t2}")" \
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

# ncu's per-instruction source view (SASS), for the per-instruction comparison with the trace:
# raw CSV of two corpus programs, kept in the tarball.
step "ncu source view (SASS), transpose and gemm_float4"
for name in transpose gemm_float4; do
  [[ -n ${TRACE_ONLY:-} && ! $name =~ $TRACE_ONLY ]] && continue
  [[ -x $tdir/$name ]] || continue
  timeout 120 "${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}" --csv --clock-control none --section SourceCounters --page source --print-source sass \
    --kernel-name-base demangled "$tdir/$name" >"$tdir/$name.ncu_source.csv" 2>&1
  echo "$name: exit $?, $(wc -l <"$tdir/$name.ncu_source.csv") lines"
  head -c 3000 "$tdir/$name.ncu_source.csv"; echo
  grep -E 'LDS|STS' "$tdir/$name.ncu_source.csv" | head -8
done

excl=()
for n in "${progs[@]}"; do excl+=(--exclude="./$n"); done  # the corpus binaries stay behind
tar -czf "$OUT/traces.tar.gz" -C "$tdir" "${excl[@]}" .
step "tracer summary ($(( $(date +%s) - T0 )) s)"
cat "$summary"

