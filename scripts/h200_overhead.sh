#!/usr/bin/env bash
# h200_overhead.sh: issue 10, what tracing costs on a kernel long enough to measure (one part of
# scripts/h200_round2_all.sh: `bash scripts/h200_round2_all.sh overhead`). The corpus programs run
# for milliseconds, so their traced/untraced ratio is mostly start-up; kernels/tracer/overhead/
# overhead.cu runs a padded transpose LAUNCHES times on an N x N matrix and prints the kernel time
# by CUDA events. Runs: untraced (3 times), traced with every block, traced with 64 blocks per
# launch; then `bankscope-cli report` on the big trace (wall time: report throughput on a real
# trace). Outputs in $OUT: log.txt, overhead.txt (one line per run), report.txt.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
export BANKSCOPE_SANITIZER_ROOT=/usr/local/cuda-13.0/compute-sanitizer
export BANKSCOPE_SANITIZER_DIR=/usr/local/cuda-13.0/compute-sanitizer
h200_build OFF bankscope-gpu bankscope_tracer bankscope-cli
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
W=$BUILD/overhead_work
mkdir -p "$W"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o "$W/overhead" kernels/tracer/overhead/overhead.cu || exit 1
N=${OVERHEAD_N:-4096}
L=${OVERHEAD_LAUNCHES:-20}
res=$OUT/overhead.txt
: >"$res"
run() {  # label, command...
  local label=$1; shift
  local t1 t2 line
  t1=$(date +%s.%N)
  line=$("$@" 2>&1 | tee "$W/$label.txt" | grep -E '^overhead:' | tail -1)
  t2=$(date +%s.%N)
  printf '%-22s wall_s=%.3f  %s\n' "$label" "$(awk "BEGIN{print $t2 - $t1}")" "${line:-no overhead line}" | tee -a "$res"
}
step "untraced"
for i in 1 2 3; do run "untraced_$i" "$W/overhead" "$N" "$L"; done
step "traced, every block"
run traced_all timeout 300 "$BUILD/bin/bankscope-gpu" trace -o "$W/all.bstrace" -- "$W/overhead" "$N" "$L"
tail -15 "$W/traced_all.txt"
echo "trace bytes: $(stat -c %s "$W/all.bstrace" 2>/dev/null || echo 0)" | tee -a "$res"
step "traced, 64 blocks per launch"
run traced_64 timeout 300 "$BUILD/bin/bankscope-gpu" trace --blocks 64 -o "$W/b64.bstrace" -- "$W/overhead" "$N" "$L"
tail -8 "$W/traced_64.txt"
echo "trace bytes (64 blocks): $(stat -c %s "$W/b64.bstrace" 2>/dev/null || echo 0)" | tee -a "$res"
step "report on the whole trace"
t1=$(date +%s.%N)
"$BUILD/bin/bankscope-cli" report "$W/all.bstrace" --top 5 >"$OUT/report.txt" 2>&1
t2=$(date +%s.%N)
echo "report_wall_s=$(awk "BEGIN{print $t2 - $t1}") (nproc $(nproc))" | tee -a "$res"
head -40 "$OUT/report.txt"
step "done"
