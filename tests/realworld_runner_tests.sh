#!/usr/bin/env bash
# realworld_runner_tests.sh: `bankscope-gpu realworld` without a GPU: --dry-run prints bankscope's
# predictions, and a stand-in ncu (a script printing ncu's CSV) checks how predicted and measured
# counts are compared, counted and turned into an exit code. The scenario is one warp, worked by
# hand: a[threadIdx.x] is stored in 1 wavefront; a[2 * threadIdx.x] (float a[64]) puts words b and
# b + 32 in each even bank b, so the load takes 2 wavefronts.
# With SOURCE_DIR, also: the committed predictions (assets/results/h200/realworld_predictions.txt)
# are what `realworld --dry-run` prints now, and what the independent brute force
# (scripts/realworld_brute_force.py: every warp instruction listed from the .cu files) gives.
# Usage: realworld_runner_tests.sh BANKSCOPE_GPU BANKSCOPE_CLI [SOURCE_DIR]
set -u
gpu=$1
cli=$2
src=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...

mkdir -p "$tmp/rw" "$tmp/bin"
cat >"$tmp/rw/tiny.json" <<'JSON'
{"name": "tiny", "n": 32, "block": [32], "grid": [1],
 "arrays": [{"name": "a", "type": "float", "dims": [64]}],
 "accesses": [{"op": "st", "target": "a[threadIdx.x]"}, {"op": "ld", "target": "a[2 * threadIdx.x]"}]}
JSON
printf 'tiny 32   # one warp\n' >"$tmp/rw/sizes.txt"
# The program: prints its CPU-check verdict as realworld.cuh does ($VERDICT picks which).
cat >"$tmp/bin/tiny" <<'SH'
#!/usr/bin/env bash
if [[ ${VERDICT:-ok} == ok ]]; then echo "tiny N=$1: 1 outputs equal the CPU reference"; else echo "tiny N=$1: MISMATCH in 1 of 1 outputs"; exit 1; fi
SH
# The stand-in ncu: runs the program (the arguments after --metrics M) and prints $CSV.
cat >"$tmp/ncu" <<'SH'
#!/usr/bin/env bash
while [[ $# -gt 0 && $1 != --metrics ]]; do shift; done
shift 2
"$@"
rc=$?
cat "$CSV"
exit $rc
SH
chmod +x "$tmp/bin/tiny" "$tmp/ncu"
csv() {  # LD_INST LD_ACTIVE LD_WF ST_INST ST_ACTIVE ST_WF -> $tmp/ncu.csv
  local names=(smsp__inst_executed_op_shared_ld.sum smsp__sass_inst_executed_op_shared_ld.sum
               smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum smsp__inst_executed_op_shared_st.sum
               smsp__sass_inst_executed_op_shared_st.sum smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum)
  local vals=("$@") i
  {
    echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
    for i in 0 1 2 3 4 5; do
      echo "\"0\",\"1\",\"tiny\",\"127.0.0.1\",\"tiny(float *)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"${names[i]}\",\"inst\",\"${vals[i]}\""
    done
  } >"$tmp/ncu.csv"
}
run() { CSV=$tmp/ncu.csv "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --bin "$tmp/bin" --cli "$cli" --ncu "$tmp/ncu" "$@"; }

expect "dry run: the load's 2 wavefronts" 0 '^tiny +32 +- +smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +2$' -- \
  "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --cli "$cli" --dry-run
expect "dry run: the store's 1 instruction" 0 '^tiny +32 +- +smsp__inst_executed_op_shared_st\.sum +1$' -- \
  "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --cli "$cli" --dry-run
expect "dry run: summary" 0 '^1 rows, 6 predictions, 0 errors$' -- \
  "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --cli "$cli" --dry-run

csv 1 1 2 1 1 1
expect "measured = predicted: summary, exit 0" 0 '^1 rows, 6 comparisons, 0 differences$' -- run
expect "measured = predicted: a row says equal" 0 '^tiny +32 +- +smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +2 +2  equal$' -- run
csv 1 1 1 1 1 1
expect "one count differs: exit 5" 5 '^1 rows, 6 comparisons, 1 differences$' -- run
expect "one count differs: the row says so" 5 '^tiny +32 +- +smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +2 +1  DIFFERENT$' -- run
csv 1 1 2 1 1 1
expect "wrong program output: exit 4" 4 'WRONG OUTPUT: the program.s output differs from its CPU reference \(ncu exit 1\)' -- env VERDICT=bad bash -c "$(declare -f run); tmp=$tmp gpu=$gpu cli=$cli run"
expect "no ncu CSV: an error row, exit 1" 1 '1 rows not compared \(errors\)$' -- env CSV=/dev/null \
  "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --bin "$tmp/bin" --cli "$cli" --ncu "$tmp/ncu"
printf 'tiny 32 K\n' >"$tmp/rw/bad.txt"
expect "bad sizes line names file and line" 2 "bad\.txt:1: 'K': expected PARAM=VALUE" -- \
  "$gpu" realworld --sizes "$tmp/rw/bad.txt" --cli "$cli" --dry-run
expect "--bin required to measure" 2 '\-\-bin DIR \(the built programs\) is required unless \-\-dry-run' -- \
  "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --cli "$cli" --ncu "$tmp/ncu"

# --predictor: a command run in place of `CLI predict` whose JSON adds an "ldsm" total (as
# scripts/mma_gemm_predict.py does): the table gains the four ldmatrix counters. The stand-in
# predicts ld 0/0/0, st 1/1/1 and ldsm 2 instructions, 2 active, 9 wavefronts, 1 conflict.
cat >"$tmp/predictor" <<'SH'
#!/usr/bin/env bash
[[ ${PREDICTOR_FAIL:-} ]] && { echo "predictor: no good" >&2; exit 1; }
t() { echo "{\"instructions\": $1, \"active_instructions\": $2, \"wavefronts\": $3, \"bank_conflicts\": $4, \"saturated\": false, \"counters\": {\"instructions\": \"$5\", \"active_instructions\": \"$6\", \"wavefronts\": \"$7\", \"bank_conflicts\": \"$8\"}}"; }
s=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op
echo "{\"totals\": {\"ld\": $(t 0 0 0 0 smsp__inst_executed_op_shared_ld.sum smsp__sass_inst_executed_op_shared_ld.sum ${s}_ld.sum x),"
echo " \"st\": $(t 1 1 1 0 smsp__inst_executed_op_shared_st.sum smsp__sass_inst_executed_op_shared_st.sum ${s}_st.sum x),"
echo " \"ldsm\": $(t 2 2 9 1 smsp__inst_executed_op_ldsm.sum smsp__sass_inst_executed_op_ldsm.sum ${s}_ldsm.sum smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum)}}"
SH
chmod +x "$tmp/predictor"
csv10() {  # the six ld/st values, then LDSM_INST LDSM_ACTIVE LDSM_WF LDSM_CONFLICTS -> $tmp/ncu.csv
  local names=(smsp__inst_executed_op_shared_ld.sum smsp__sass_inst_executed_op_shared_ld.sum
               smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum smsp__inst_executed_op_shared_st.sum
               smsp__sass_inst_executed_op_shared_st.sum smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
               smsp__inst_executed_op_ldsm.sum smsp__sass_inst_executed_op_ldsm.sum
               smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
               smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum)
  local vals=("$@") i
  {
    echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
    for i in "${!names[@]}"; do
      echo "\"0\",\"1\",\"tiny\",\"127.0.0.1\",\"tiny(float *)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"${names[i]}\",\"inst\",\"${vals[i]}\""
    done
  } >"$tmp/ncu.csv"
}
expect "--predictor dry run: 10 counters" 0 '^1 rows, 10 predictions, 0 errors$' -- \
  "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --cli "$cli" --predictor "$tmp/predictor" --dry-run
expect "--predictor dry run: the ldsm wavefronts row" 0 '^tiny +32 +- +smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum +9$' -- \
  "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --cli "$cli" --predictor "$tmp/predictor" --dry-run
csv10 0 0 0 1 1 1 2 2 9 1
expect "--predictor: ldsm measured = predicted, exit 0" 0 '^1 rows, 10 comparisons, 0 differences$' -- run --predictor "$tmp/predictor"
expect "--predictor: the ldsm conflicts row says equal" 0 '^tiny +32 +- +smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm\.sum +1 +1  equal$' -- run --predictor "$tmp/predictor"
csv10 0 0 0 1 1 1 2 2 8 1
expect "--predictor: ldsm wavefronts differ, exit 5" 5 '^tiny +32 +- +smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum +9 +8  DIFFERENT$' -- run --predictor "$tmp/predictor"
expect "--predictor fails: an error row naming it, exit 1" 1 'ERROR .*predictor exited with 1: predictor: no good' -- \
  env PREDICTOR_FAIL=1 "$gpu" realworld --sizes "$tmp/rw/sizes.txt" --cli "$cli" --predictor "$tmp/predictor" --dry-run

if [[ -n $src ]]; then
  committed=$src/assets/results/h200/realworld_predictions.txt
  (cd "$src" && "$gpu" realworld --cli "$cli" --dry-run) >"$tmp/dry.txt" 2>&1
  expect "committed predictions = realworld --dry-run" 0 '^same$' -- \
    bash -c "diff <(tail -n +2 '$committed') <(tail -n +2 '$tmp/dry.txt') && echo same"
  (cd "$src" && python3 scripts/realworld_brute_force.py "$cli") >"$tmp/brute.txt" 2>&1
  expect "committed predictions = the brute force (192 counts)" 0 '^same$' -- \
    bash -c "diff <(tail -n +2 '$committed') <(tail -n +2 '$tmp/brute.txt') && grep -q '^32 rows, 192 predictions, 0 errors$' '$tmp/brute.txt' && echo same"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
