#!/usr/bin/env bash
# cli_tests.sh: bankscope-cli end to end: numbers in its tables, the JSONL batch mode, and that bad
# input gets one line naming what and where plus a non-zero exit. Usage: cli_tests.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
sc=$src/assets/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# expect NAME EXIT_CODE REGEX -- command...: runs the command, checks its exit code and that its
# combined output matches REGEX (extended grep).
expect() {
  local name=$1 code=$2 regex=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -eq $code ]] && grep -Eq -- "$regex" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (exit $rc, wanted $code; wanted /$regex/)"
    echo "$out" | head -20 | sed 's/^/    /'
  fi
}

expect "seed 32x32 column read is 32-way" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +1 +32 +32w +31 \| +131,072 +4,194,304 +4,063,232' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect "seed 32x33 column read is 1-way" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +1 +1 +1w +0 \| +131,072 +131,072 +0' -- \
  "$cli" predict "$sc/seed_transpose_32x33.json"
expect "per-launch ncu totals" 0 'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum +4,063,232' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect "--stride 34 is 2-way" 0 '32w|2w' -- "$cli" predict "$sc/seed_transpose_32x32.json" --stride 34
expect "--n 16384 totals" 0 'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum +268,435,456' -- \
  "$cli" predict "$sc/tiled_32x8_32x32.json" --n 16384
expect "--json" 0 '"bank_conflicts": 4063232' -- "$cli" predict "$sc/tiled_32x8_32x32.json" --json
expect "explain a column read" 0 '^32 wavefront\(s\), ideal 1, bank conflicts 31 \(ncu definition\), 32-way, efficiency 3.1%' -- \
  "$cli" explain "$sc/seed_transpose_32x32.json" --access 1
expect "explain padded" 0 '^1 wavefront\(s\), ideal 1, bank conflicts 0' -- \
  "$cli" explain "$sc/seed_transpose_32x33.json" --access 1
expect "compare default seed pair" 0 'B issues 16.50x fewer shared-memory wavefronts than A \(worst access 32-way vs 1-way\)' -- \
  "$cli" compare

# JSONL: one output line per input line, in order, a bad line gets "error" and the run goes on.
offs=$(python3 -c 'print(",".join(str(i*8) for i in range(32)))')
{
  echo "{\"id\": 1, \"width\": 8, \"op\": \"ld\", \"mask\": \"0xffffffff\", \"offsets\": [$offs]}"
  echo "not json"
  echo "{\"id\": 3, \"width\": 4, \"op\": \"st\", \"mask\": 1, \"offsets\": [$offs]}"
} >"$tmp/p.jsonl"
"$cli" predict --jsonl "$tmp/p.jsonl" >"$tmp/out.jsonl" 2>"$tmp/err.txt"
rc=$?
lines=$(wc -l <"$tmp/out.jsonl")
if [[ $rc -eq 1 && $lines -eq 3 ]] &&
  sed -n 1p "$tmp/out.jsonl" | grep -q '"id":1,.*"wavefronts":2,"bank_conflicts":0' &&
  sed -n 2p "$tmp/out.jsonl" | grep -q '"error":".*p.jsonl: line 2: invalid JSON' &&
  sed -n 3p "$tmp/out.jsonl" | grep -q '"id":3,.*"wavefronts":1,"bank_conflicts":0' &&
  grep -q '1 of 3 lines failed' "$tmp/err.txt"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: jsonl batch (exit $rc, $lines lines)"
  cat "$tmp/out.jsonl" "$tmp/err.txt" | sed 's/^/    /'
fi
expect "jsonl from stdin" 0 '"wavefronts":2' -- bash -c "head -1 '$tmp/p.jsonl' | '$cli' predict --jsonl -"

# Bad input: one line, non-zero exit, never a crash.
printf '{"name": "x", "blok": [32]}' >"$tmp/bad.json"
expect "unknown field" 1 "^bankscope-cli: $tmp/bad.json: unknown field 'blok'" -- "$cli" predict "$tmp/bad.json"
printf '{"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.x][threadIdx.x + 1]"}]}' >"$tmp/oob.json"
expect "index out of the array" 1 "index 32 \('threadIdx.x \+ 1'\) is outside \[0, 32\) of tile" -- "$cli" predict "$tmp/oob.json"
printf '{"block": [32], "arrays": [{"dims": [32, 32]' >"$tmp/trunc.json"
expect "truncated file" 1 "trunc.json: line 1, column [0-9]+: invalid JSON" -- "$cli" predict "$tmp/trunc.json"
expect "stride 0" 2 "--stride: Value 0 not in range" -- "$cli" predict "$sc/seed_transpose_32x32.json" --stride 0
expect "stride below the row" 1 "row_stride: 16 is smaller than the row length 32" -- "$cli" predict "$sc/seed_transpose_32x32.json" --stride 16
expect "missing file" 2 "File does not exist" -- "$cli" predict "$tmp/nope.json"
printf '{"block": [32], "arrays": [{"dims": [32, 32], "row_stride": 33}], "accesses": [{"op": "ld", "target": "tile[threadIdx.x][0]", "width": 16}]}' >"$tmp/mis.json"
expect "float4 read of a padded float tile" 1 "lane 1: byte offset 132 is not 16-byte aligned \\(the GPU faults with \"misaligned address\"\\)" -- \
  "$cli" predict "$tmp/mis.json"
expect "access out of range" 1 "--access: 7 is outside 0..1" -- "$cli" explain "$sc/seed_transpose_32x32.json" --access 7
expect "no subcommand" 2 "A subcommand is required" -- "$cli"

# report: a synthetic trace of one 32x32 block of the seed kernel (tests/data/make_seed_trace.py).
python3 "$src/tests/data/make_seed_trace.py" "$tmp/seed.bstrace"
expect "report: column read first, 32-way" 0 'transpose_seed +pc 0x200 +LDS +32 +1024 +32 +992 +32 +32' -- \
  "$cli" report "$tmp/seed.bstrace"
expect "report: per-launch ld wavefronts" 0 'smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum +1024' -- \
  "$cli" report "$tmp/seed.bstrace"
expect "report --by line" 0 'transpose.cu:14 +LDS' -- "$cli" report "$tmp/seed.bstrace" --by line
expect "report what-if stride 33" 0 'shared_op_ld.sum +1024 +what-if +32$' -- \
  "$cli" report "$tmp/seed.bstrace" --array 'tile@0:float[32][32]' --layout tile:stride=33
expect "report --json" 0 '"bank_conflicts": 992' -- "$cli" report "$tmp/seed.bstrace" --json
head -c 300 "$tmp/seed.bstrace" >"$tmp/cut.bstrace"
expect "report: truncated trace" 1 "cut.bstrace: trace: byte 94: record 'W' at byte 91 needs 737 bytes, 206 left \(truncated file\)" -- \
  "$cli" report "$tmp/cut.bstrace"
expect "report: layout without array" 2 "no --array named 'tile'" -- "$cli" report "$tmp/seed.bstrace" --layout tile:stride=33

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
