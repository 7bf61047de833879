#!/usr/bin/env bash
# cli_fix_tests.sh: `bankscope-cli fix`, the layout advisor, end to end. Numbers by hand:
# every shipped transpose moves one tile per block, 4096 blocks, 131,072 warp instructions per
# access per launch (tests/test_layout_advisor.cpp works them out). Unpadded, the column read costs
# 32 wavefronts each; with no conflict it costs what the row write costs: 1 (float), 2 (double),
# 4 (float4 and fast_f4's 16-byte accesses).
# Usage: cli_fix_tests.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
sc=$src/assets/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...

# Seed [32][32]: 131,072 * 32 + 131,072 = 4,325,376 as shipped; conflict-free 262,144 = 6.1%.
# xor 31 (col ^ row) costs no byte; stride 33 costs 32 rows * 4 bytes.
expect "seed: best is xor 31, no conflicts, 0 bytes" 0 '^  1  xor 31 +262,144 +6\.1% +0  none \(conflict-free\)$' -- \
  "$cli" fix "$sc/seed_transpose_32x32.json"
expect "seed: stride 33 second, 128 bytes" 0 '^  2  stride 33 +262,144 +6\.1% +128  none \(conflict-free\)$' -- \
  "$cli" fix "$sc/seed_transpose_32x32.json"
expect "seed: the current layout, its column read 32-way" 0 '^ *[0-9]+  none \(current\) +4,325,376 +100\.0% +0  column read .*, 32-way$' -- \
  "$cli" fix "$sc/seed_transpose_32x32.json"
expect "seed: conflict-free minimum" 0 'conflict-free minimum 262,144$' -- "$cli" fix "$sc/seed_transpose_32x32.json"
# The other tiles of the issue's "done when": 32x8 float, double, float4, unswizzled fast_f4.
expect "32x8: xor 31" 0 '^  1  xor 31 +262,144 +6\.1% +0  none' -- "$cli" fix "$sc/tiled_32x8_32x32.json"
# double: 131,072 * 32 + 131,072 * 2 = 4,456,448; minimum 524,288 = 11.8%
expect "double: xor 15" 0 '^  1  xor 15 +524,288 +11\.8% +0  none' -- "$cli" fix "$sc/tiled_32x8_double_32x32.json"
# float4 and fast_f4: 131,072 * 32 + 131,072 * 4 = 4,718,592; minimum 1,048,576 = 22.2%
expect "float4: xor 7" 0 '^  1  xor 7 +1,048,576 +22\.2% +0  none' -- "$cli" fix "$sc/tiled_float4_32x32.json"
expect "fast_f4 unswizzled: xor 28 (= Swizzle<3,2,6>)" 0 '^  1  xor 28 +1,048,576 +22\.2% +0  none' -- \
  "$cli" fix "$sc/fast_f4_64x64_t256_unswizzled.json"
expect "fast_f4: misaligned candidates are skipped and counted" 0 '^skipped: [1-9][0-9]* a wide access becomes misaligned$' -- \
  "$cli" fix "$sc/fast_f4_64x64_t256_unswizzled.json"
# fast_tma (tma_swizzle 128B): 128 x 64 blocks of 4 warps, 4 LDS.128 each, 4 wavefronts each:
# 524,288. Only TMA modes are offered (the copy engine writes nothing else); 128-byte rows allow
# only 128B, so: 128B and none. Unswizzled a quarter-warp's 2 rows x 4 chunks hit 4 chunk
# positions twice: 2-way, 1,048,576.
expect "fast_tma: 128B is best, only TMA modes searched" 0 '^  1  tma_swizzle 128B \(= Swizzle<3,2,3>\) \(current\) +524,288 +100\.0% +0  none \(conflict-free\)$' -- \
  "$cli" fix "$sc/fast_tma.json"
expect "fast_tma: unswizzled is 2-way" 0 '^  2  none +1,048,576 +200\.0% +0  .*, 2-way$' -- "$cli" fix "$sc/fast_tma.json"
expect "fast_tma: 2 layouts" 0 'logical \[64\]\[32\]; 2 layouts searched$' -- "$cli" fix "$sc/fast_tma.json"
# Already padded (131,072 + 131,072): the same wavefronts with 128 bytes fewer.
expect "[32][33]: xor 31 saves the padding" 0 '^  1  xor 31 +262,144 +100\.0% +0  none' -- "$cli" fix "$sc/seed_transpose_32x33.json" --array tile
expect "[32][33]: the current stride 33" 0 '^  2  stride 33 \(current\) +262,144 +100\.0% +128  none' -- "$cli" fix "$sc/seed_transpose_32x33.json"
# --budget 127: no padding (each pad of a 32-row float tile costs >= 128 bytes): 32 pads skipped.
expect "--budget 127 skips every padding" 0 '^skipped: 32 padding over the budget' -- "$cli" fix "$sc/seed_transpose_32x32.json" --budget 127
# --top 1: the best row, and the current layout's row (rank 581 of the seed's 595) below it.
expect "--top 1: two rows" 0 '^2$' -- bash -c "'$cli' fix '$sc/seed_transpose_32x32.json' --top 1 | grep -cE '^ *[0-9]+  '"
# Default array: broadcast.json's table (coeff: 1 wavefront per read; table: 1 + 2).
expect "default array: the costliest" 0 '^array     __shared__ float table\[8\]\[64\]' -- "$cli" fix "$sc/broadcast.json"
expect "--array coeff (1-D: nothing to gain)" 0 '^  1  none \(current\)' -- "$cli" fix "$sc/broadcast.json" --array coeff

# --write: the scenario with the best layout, whose column read is then 1 wavefront.
cp "$sc/seed_transpose_32x32.json" "$tmp/in.json"
expect "--write" 0 "^wrote     $tmp/out.json \(tile: xor 31\)$" -- "$cli" fix "$tmp/in.json" --write "$tmp/out.json"
expect "the written scenario predicts no conflict" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +131,072 +131,072 +0 +1.00$' -- \
  "$cli" predict "$tmp/out.json"
expect "the input is untouched" 0 '^same$' -- bash -c "cmp -s '$tmp/in.json' '$sc/seed_transpose_32x32.json' && echo same"
expect "--write over the input when asked" 0 '"xor": 31' -- bash -c "'$cli' fix '$tmp/in.json' --write '$tmp/in.json' >/dev/null && cat '$tmp/in.json'"

# Bad input: one line, non-zero exit.
expect "--array unknown" 1 "^bankscope-cli: --array: no shared array named 'nope' in .*seed_transpose_32x32.json \(it has: tile\)$" -- \
  "$cli" fix "$sc/seed_transpose_32x32.json" --array nope
expect "--top 0" 2 "--top: Value 0 not in range" -- "$cli" fix "$sc/seed_transpose_32x32.json" --top 0
expect "--budget -1" 2 "--budget: Value -1 not in range" -- "$cli" fix "$sc/seed_transpose_32x32.json" --budget -1
expect "--write into a missing folder" 1 "^bankscope-cli: --write: .*/no/such/dir/out.json" -- \
  "$cli" fix "$sc/seed_transpose_32x32.json" --write "$tmp/no/such/dir/out.json"
expect "missing scenario" 2 "File does not exist" -- "$cli" fix "$tmp/nope.json"
printf '{"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.x][threadIdx.x + 1]"}]}' >"$tmp/oob.json"
expect "a scenario that cannot run" 1 "^bankscope-cli: .*oob.json: .*index 32 \('threadIdx.x \+ 1'\) is outside \[0, 32\) of tile$" -- "$cli" fix "$tmp/oob.json"

# Ctrl-C: an index that depends on blockIdx makes every candidate visit all 262,144 blocks of
# N = 16384 (seconds each); SIGINT stops the search with exit 130 and writes nothing.
printf '{"n": %d, "block": [32, 32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.x][(threadIdx.y + blockIdx.x) %% 32]"}]}' 16384 >"$tmp/slow.json"
"$cli" fix "$tmp/slow.json" --write "$tmp/slow_out.json" >"$tmp/int_out.txt" 2>"$tmp/int_err.txt" &
pid=$!
sleep 1
kill -INT "$pid" 2>/dev/null
for _ in $(seq 1 100); do  # a binary that ignores SIGINT is killed after 10 s, and fails
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [[ $rc -eq 130 && ! -e $tmp/slow_out.json ]] && grep -Eq 'cancelled' "$tmp/int_out.txt" "$tmp/int_err.txt"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: Ctrl-C stops fix (exit $rc, wanted 130; nothing written)"
  tail -n 3 "$tmp/int_err.txt" "$tmp/int_out.txt" | sed 's/^/    /'
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
