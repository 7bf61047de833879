#!/usr/bin/env bash
# cli_scenario_kinds_tests.sh: ldmatrix, stmatrix and shared atomics as scenario accesses (issue 11,
# item 4) through predict, explain and compare, with counts worked by hand from sim/RULES.md R7/R8,
# and bad kind fields as one line naming the field.
# Usage: cli_scenario_kinds_tests.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
sc=$src/assets/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...

A=$sc/ldmatrix_64x64_half.json
B=$sc/ldmatrix_64x64_half_swizzled.json
# The lecture pair: 8 blocks x 4 warps x 4 k steps = 128 ldmatrix.x4. Unswizzled, 128-byte rows put
# the 8 rows of a matrix in one bank group: 8 wavefronts per matrix, 32 per instruction (ideal 4,
# 28 conflicts): 4,096 wavefronts and 3,584 conflicts per launch. Swizzled: 4 per instruction, 512, 0.
expect "predict: ldsm row, per launch" 0 '^0  ldsm \.x4 sA\[16 \* warp \+ lane % 16\]\[k \+ \.\.\. +128 +4,096 +3,584 +32\.00$' -- "$cli" predict "$A"
expect "predict: ldsm row, per warp" 0 '^0  ldsm \.x4 sA.* +4 +32 +8 +28  \| +0 +32 +8$' -- "$cli" predict "$A"
expect "predict: ldsm wavefronts counter" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum +4,096$' -- "$cli" predict "$A"
expect "predict: ldsm conflicts counter" 0 '^  smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm\.sum +3,584$' -- "$cli" predict "$A"
expect "predict: ldsm instructions counter" 0 '^  smsp__sass_inst_executed_op_ldsm\.sum +128$' -- "$cli" predict "$A"
# No LDS/STS in the scenario: no count under an ld or st counter name at all.
if "$cli" predict "$A" | grep -Eq '_op_shared_(ld|st)\.sum|_op_(ld|st)\.sum +[0-9]'; then
  failed=$((failed + 1)); echo "FAIL: predict: a count under an ld/st counter for an ldmatrix-only scenario"
else
  passed=$((passed + 1))
fi
expect "predict: 8-way" 0 '^worst access: 8-way bank conflict$' -- "$cli" predict "$A"
expect "predict swizzled: 512 wavefronts" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum +512$' -- "$cli" predict "$B"
expect "predict swizzled: 0 conflicts" 0 '^  smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm\.sum +0$' -- "$cli" predict "$B"
expect "predict --json: totals.ldsm" 0 '^4096 3584 smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum 0$' -- \
  bash -o pipefail -c "'$cli' predict '$A' --json | python3 -c 'import json,sys; t=json.load(sys.stdin)[\"totals\"]; print(t[\"ldsm\"][\"wavefronts\"], t[\"ldsm\"][\"bank_conflicts\"], t[\"ldsm\"][\"counters\"][\"wavefronts\"], t[\"ld\"][\"wavefronts\"])'"

# explain, warp 0, k = 0: lane 17 gives row 1 of matrix 2 (row 1, column 8): byte 128 + 16 = 144,
# words 36..39 in banks 4..7. Matrix 2 is phase 2 (wavefronts 16..23); bank 4 serves rows 0..7 of
# the matrix in lane order, so row 1 is wavefront 17, which reads m2 row 1 alone.
expect "explain: lane -> matrix row" 0 '^  lane 17  matrix 2 row 1  byte    144  bank  4, 5, 6, 7  word    36,   37,   38,   39  -> wavefront 17$' -- \
  "$cli" explain "$A" --access 0
expect "explain: wavefront -> the row it reads" 0 '^  wf  17 p2 .* reads m2\.r1$' -- "$cli" explain "$A" --access 0
expect "explain: totals" 0 '^32 wavefront\(s\), ideal 4, bank conflicts 28 \(ncu definition\), 8-way, efficiency 12\.5%$' -- \
  "$cli" explain "$A" --access 0
expect "explain: ldsm counters" 0 '^  as this warp alone would count: smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum = 32, smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm\.sum = 28$' -- \
  "$cli" explain "$A" --access 0
# Swizzled: wavefront 0 reads all 8 rows of matrix 0 (banks 4 (r % 8) .. +3 all differ).
expect "explain swizzled: one wavefront per matrix" 0 '^  wf   0 p0 .* reads m0\.r0, m0\.r1, m0\.r2, m0\.r3, m0\.r4, m0\.r5, m0\.r6, m0\.r7$' -- \
  "$cli" explain "$B" --access 0

# compare: the pair side by side, under the ldsm counters; 4,096 / 512 = 8x.
expect "compare: ldsm wavefronts A and B" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum +4,096 +512$' -- \
  "$cli" compare "$A" "$B"
expect "compare: per instruction" 0 '^  0  ldmatrix\.x4  A fragment .* +32 +8 +4 +1$' -- "$cli" compare "$A" "$B"
expect "compare: ratio" 0 '^B issues 8\.00x fewer shared-memory wavefronts than A \(worst access 8-way vs 1-way\)$' -- \
  "$cli" compare "$A" "$B"

# An atomic histogram: hist[lane % 4], 8 lanes per word, each served alone (R8): 8 wavefronts,
# ideal 1, 7 conflicts. Lane 5 updates word 1 with lanes 1, 9, ..., 29, and is second in bank 1;
# wavefront 1 serves the second lane of each bank: lanes 4, 5, 6, 7.
cat >"$tmp/hist.json" <<'J'
{"name": "histogram", "block": [32], "grid": [1],
 "arrays": [{"name": "hist", "type": "int", "dims": [4]}],
 "accesses": [{"op": "atom", "atom": "add", "target": "hist[lane % 4]"}]}
J
expect "explain atom: same-address lanes" 0 '^  lane  5  byte      4  bank  1  word     1  -> wavefront 1  same address as lanes 1, 9, 13, 17, 21, 25, 29: serialized$' -- \
  "$cli" explain "$tmp/hist.json" --access 0
expect "explain atom: one lane per bank per wavefront" 0 '^  wf   1 p0   4\*  5\*  6\*  7\*   \.' -- "$cli" explain "$tmp/hist.json" --access 0
expect "explain atom: totals" 0 '^8 wavefront\(s\), ideal 1, bank conflicts 7 \(ncu definition\), 8-way' -- "$cli" explain "$tmp/hist.json" --access 0
expect "explain atom: atom counter" 0 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom\.sum = 8, l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom\.sum = 7$' -- \
  "$cli" explain "$tmp/hist.json" --access 0
expect "predict atom: its own counter" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom\.sum +8$' -- "$cli" predict "$tmp/hist.json"

# Bad input: one line naming the file and the field, exit 1.
bad() {  # NAME ACCESS REGEX [ARRAY_TYPE]
  local name=$1 access=$2 regex=$3 type=${4:-half}
  printf '{"name": "b", "block": [32], "grid": [1], "arrays": [{"name": "s", "type": "%s", "dims": [64, 64]}],\n "accesses": [%s]}\n' \
    "$type" "$access" >"$tmp/bad.json"
  expect "$name" 1 "^bankscope-cli: $tmp/bad.json: $regex" -- "$cli" predict "$tmp/bad.json"
  local lines
  lines=$("$cli" predict "$tmp/bad.json" 2>&1 | wc -l)
  if [[ $lines -eq 1 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name: $lines lines"; fi
}
bad "ldmatrix with a width" '{"op": "ldmatrix", "num": 4, "width": 16, "target": "s[lane][0]"}' 'accesses\[0\]\.width: ldmatrix rows are always 16 bytes'
bad "ldmatrix num 3" '{"op": "ldmatrix", "num": 3, "target": "s[lane][0]"}' 'accesses\[0\]\.num: 3 must be 1, 2 or 4'
bad "unknown atom" '{"op": "atom", "atom": "inc", "target": "s[0][lane]"}' "accesses\[0\]\.atom: 'inc' must be" int
bad "64-bit atom add" '{"op": "atom", "atom": "add", "target": "s[0][lane]"}' 'accesses\[0\]\.atom: atom add of 8 bytes is not one instruction on sm_90' double
expect "misaligned row address" 1 '^bankscope-cli: accesses\[0\] \(ldmatrix\.x1 s\[lane\]\[4 \* lane\]\): row address byte 136 \(lane 1\) is not 16-byte aligned' -- \
  bash -c "printf '%s' '{\"name\": \"b\", \"block\": [32], \"grid\": [1], \"arrays\": [{\"name\": \"s\", \"type\": \"half\", \"dims\": [64, 64]}], \"accesses\": [{\"op\": \"ldmatrix\", \"num\": 1, \"target\": \"s[lane][4 * lane]\"}]}' >'$tmp/mis.json' && '$cli' predict '$tmp/mis.json'"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
