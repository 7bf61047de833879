#!/usr/bin/env bash
# h200_perf15.sh: the H200 batch for issue 15 (transpose at every size), in one call of the device
# tool:
#   device tool:  run  command="bash scripts/h200_perf15.sh"  carry=[".devdeps"]
#   or as a part:  bash scripts/h200_round2_all.sh perf15
# Steps: build bankscope-gpu (sm_90); `validate` of the issue-15 scenarios (fast_shift_*,
# fast_f4_64x128_t256, fast_f4_128x128_t512: every predicted shared counter against its
# instruction-level counterpart, outputs checked) at edge and whole sizes; ncu's instruction-level
# shared counters of every fast_shift*/fast_f4v* kernel launched by `bench`, including the
# variants no scenario names as its gpu_kernel (fast_shift_64x64_t256_{b5,sh,sh_b5,cm,sh_cm} and
# the _pf/_stcs f4v rows share their tile's scenario, so their counts must equal its prediction);
# then `bench` at every issue-15 size with cuBLAS Sgeam and the copy in the same run (50 timed
# runs after 5 warm-ups, CUDA events, every output checked).
# Writes to $OUT: log.txt, validate15.txt, validate15.json, ncu15.csv, bench15.txt, bench15.json,
# bench15.svg. Budget: under 8 minutes (build ~1.5, validate ~1.5, ncu ~1, bench ~2.5).
# Never changes clocks or GPU settings (ncu --clock-control none).
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_build OFF bankscope-gpu
BIN="$BUILD/bin/bankscope-gpu"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SIZES=4096,4100,8191,8192,12345,16383,16384

step "validate: issue-15 scenarios at edge and whole sizes"
scen=()
for f in assets/scenarios/fast_shift_*.json assets/scenarios/fast_f4_64x128_t256.json \
         assets/scenarios/fast_f4_128x128_t512.json; do scen+=(--scenario "$f"); done
timeout 150 "$BIN" validate "${scen[@]}" --n 33,100,2047,4100,8191,8192 --runs 5 --ncu "$NCU" \
  --json "$OUT/validate15.json" | tee "$OUT/validate15.txt"
echo "validate exit: ${PIPESTATUS[0]}; MISMATCH rows: $(grep -c MISMATCH "$OUT/validate15.txt")"

step "ncu: shared-memory instruction counters of the issue-15 bench kernels (N = 100, 4100, 8191)"
# Each kernel runs twice per n (the checked launch, then one timed run): both are profiled.
timeout 120 "$NCU" --clock-control none --csv --kernel-name-base demangled \
  --kernel-name regex:'fast_shift|fast_f4v' \
  --metrics smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum \
  "$BIN" bench --only fast_ --exclude fast_tma --n 100,4100,8191 --runs 1 --warmup 0 > "$OUT/ncu15.csv" 2>&1
echo "ncu exit: $?; rows: $(grep -c '_op_shared' "$OUT/ncu15.csv")"

step "bench: $SIZES, cuBLAS and copy in the same run"
timeout 300 "$BIN" bench --n "$SIZES" --runs 50 --warmup 5 \
  --json "$OUT/bench15.json" --svg "$OUT/bench15.svg" | tee "$OUT/bench15.txt"
echo "bench exit: ${PIPESTATUS[0]}"
step "done"
