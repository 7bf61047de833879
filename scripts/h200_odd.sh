#!/usr/bin/env bash
# h200_odd.sh: issue 15 on the H200, transposes at sizes that are not multiples of 4 (one part of
# scripts/h200_round2_all.sh: `bash scripts/h200_round2_all.sh odd`).
# 1. validate: the fast_sec scenarios (every predicted shared counter against its instruction-level
#    counterpart, outputs checked) at edge and whole sizes;
# 2. ncu, memory side: DRAM bytes and L2 sectors of the copy, cuBLAS Sgeam and our transposes at
#    N = 8191 and 8192. Tests the assumption in kernels/fast_transpose.cuh (fast_sec): at odd n the
#    32-byte sectors split between two blocks cost extra DRAM traffic;
# 3. bench: every kernel at the issue-15 sizes, cuBLAS and the copy in the same run.
# Outputs in $OUT: log.txt, validate_odd.{txt,json}, ncu_mem.csv, bench_odd.{txt,json,svg}.
# Never changes clocks or GPU settings (ncu --clock-control none).
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_build OFF bankscope-gpu
BIN="$BUILD/bin/bankscope-gpu"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SIZES=${SIZES:-4096,4100,8191,8192,12345,16383,16384}

step "validate: fast_sec scenarios"
scen=()
for f in assets/scenarios/fast_sec_*.json; do scen+=(--scenario "$f"); done
timeout 200 "$BIN" validate "${scen[@]}" --n 33,100,2047,4100,8191,8192 --runs 5 --ncu "$NCU" \
  --json "$OUT/validate_odd.json" | tee "$OUT/validate_odd.txt"
rc=${PIPESTATUS[0]}; echo "validate exit: $rc; MISMATCH rows: $(grep -c MISMATCH "$OUT/validate_odd.txt")"; [[ $rc == 0 ]] || echo "VALIDATE FAILED (exit $rc): see log.txt"

step "ncu: DRAM bytes and L2 sectors at N = 8191, 8192"
: >"$OUT/ncu_mem.csv"
for k in copy_32x8 cublas_sgeam tiled_32x8_32x33 fast_f4_128x64_t256 fast_shift_64x64_t256_b5 fast_sec_64x64; do
  echo "## bench --only $k" >>"$OUT/ncu_mem.csv"
  timeout 90 "$NCU" --clock-control none --csv --kernel-name-base demangled \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum \
    "$BIN" bench --only "$k" --n 8191,8192 --runs 1 --warmup 0 >>"$OUT/ncu_mem.csv" 2>&1
  echo "$k: ncu exit $?"
done
grep -E '"dram__bytes_(read|write).sum"' "$OUT/ncu_mem.csv" | awk -F'","' '{print $5" | "$(NF-2)" "$(NF-1)" "$NF}' | cut -c1-160 | head -80

step "bench: $SIZES"
timeout 300 "$BIN" bench --n "$SIZES" --runs 30 --warmup 5 \
  --json "$OUT/bench_odd.json" --svg "$OUT/bench_odd.svg" | tee "$OUT/bench_odd.txt"
echo "bench exit: ${PIPESTATUS[0]}"
step "done"
