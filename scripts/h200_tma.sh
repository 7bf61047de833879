#!/usr/bin/env bash
# h200_tma.sh: the TMA swizzle probe (issue 11: tiles written by TMA with SWIZZLE_32B/64B/128B as
# named layouts). A part of the combined batch:
#
#   device tool:  run  command="bash scripts/h200_round2_all.sh tma"  carry=[".devdeps"]
#
# Steps: build bankscope-tma-probe (sm_90) -> its SASS (one UTMALDG.2D per kernel; the reads kernel
# holds exactly one LDS.128 and one LDSM.16.M88.4) -> the aligned cases (every mode NONE/32B/64B/128B
# x element sizes 1, 2, 4, 8, 16 x box shapes, each byte's landing place against the model's
# tma_swizzle layout) -> the misaligned cases (box 128/256/512 bytes past a repeat boundary: the
# pattern of the address, as measured on 2026-12-01f) -> ncu on the reads kernel (a 64x64 half tile by
# TMA, none and 128B, one warp: one LDS.128 column and one ldmatrix.x4) beside the model's
# prediction. About 1 minute. Expected since the model follows the 2026-12-01f run (rows narrower
# than the span padded to it; the pattern on the shared address): both totals end ", all cases
# equal" (aligned 330 of 330, misaligned 12 of 12), exit 0. Files in $OUT:
#   tma_log.txt               this script's output
#   tma_aligned.txt           one line per case ("case ...: equal" or the first difference) + total
#   tma_misaligned.txt        the same for the misaligned cases
#   tma_reads_predicted.txt   the model's wavefronts for the two reads of each launch
#   tma_reads_ncu.csv         ncu's instruction-level counters of those launches
#   tma_sass.txt              the probe's shared-memory and TMA instructions
# Never changes clocks or GPU settings (ncu --clock-control none).
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-out/h200}
BUILD=${BUILD:-build-h200}
mkdir -p "$OUT"
exec > >(tee "$OUT/tma_log.txt") 2>&1
step() { echo; echo "=== tma: $* ($(date -u +%H:%M:%S))"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv || true
nvcc --version | tail -1 || true

step "configure and build bankscope-tma-probe (sm_90)"
gen=""
command -v ninja >/dev/null && gen="-G Ninja"
cmake -S . -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF -DBANKSCOPE_BUILD_TESTS=OFF \
  -DBANKSCOPE_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || { echo "tma: configure failed"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target bankscope-tma-probe >/dev/null || { echo "tma: build failed"; exit 1; }
BIN="$BUILD/bin/bankscope-tma-probe"

step "SASS of the probe"
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CUOBJDUMP" -sass "$BIN" | grep -E 'Function|UTMALDG|LDS|LDSM|STS' > "$OUT/tma_sass.txt"
cat "$OUT/tma_sass.txt"

step "aligned cases: every mode x element size x box, against the model"
timeout 180 "$BIN" --cases aligned > "$OUT/tma_aligned.txt"
echo "aligned exit: $? (0 = all cases equal)"
# Anything but "equal": a difference (and the rival hypothesis that explains it, if one does), a
# case the model refuses, a case skipped for the window.
grep -v ': equal$' "$OUT/tma_aligned.txt" | grep -v '^total' | head -n 20

step "misaligned cases: the pattern of the shared address"
# Separate process: a fault here (if the copy engine refuses the placement) cannot lose the above.
timeout 60 "$BIN" --cases misaligned > "$OUT/tma_misaligned.txt"
echo "misaligned exit: $? (0 = all cases equal)"
cat "$OUT/tma_misaligned.txt"

step "reads of a TMA-filled 64x64 half tile: the model's prediction and ncu"
timeout 60 "$BIN" --reads > "$OUT/tma_reads_predicted.txt"
echo "reads exit: $?"
cat "$OUT/tma_reads_predicted.txt"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
# Launch 1 is SWIZZLE_NONE, launch 2 SWIZZLE_128B; one warp each, so the counters are exact.
timeout 120 "$NCU" --clock-control none --csv --kernel-name-base demangled --kernel-name regex:tma_probe_reads \
  --metrics smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum \
  "$BIN" --reads > "$OUT/tma_reads_ncu.csv" 2>&1
echo "ncu exit: $?"
grep -E 'tma_probe_reads' "$OUT/tma_reads_ncu.csv" | awk -F'","' '{print $1 " | " $(NF-2) " | " $NF}' | tr -d '"'

step "summary"
echo "aligned: $(tail -n 1 "$OUT/tma_aligned.txt")"
echo "misaligned: $(tail -n 1 "$OUT/tma_misaligned.txt")"
echo "expected: both end ', all cases equal'"
grep '^predict' "$OUT/tma_reads_predicted.txt"
