#!/usr/bin/env bash
# cli_tests.sh: bankscope-cli end to end: numbers in its tables, the JSONL batch mode, and that bad
# input gets one line naming what and where plus a non-zero exit.
# Usage: cli_tests.sh CLI SOURCE_DIR [core|limits]; "limits" runs only the --max-blocks and Ctrl-C
# checks (ctest: cli_limits_tests), which need launch_totals to honour TotalsOptions.
set -u
cli=$1
src=$2
only=${3:-core}
sc=$src/assets/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...

# expect_not NAME REGEX -- command...: the command succeeds and its output does NOT match REGEX.
expect_not() {
  local name=$1 regex=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -eq 0 ]] && ! grep -Eq -- "$regex" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (exit $rc; must not match /$regex/)"
    grep -E -- "$regex" <<<"$out" | head -5 | sed 's/^/    /'
  fi
}

core_tests() {
# Per warp instruction (warp 0 | worst warp of block 0): instructions, wavefronts, n-way, conflicts;
# per launch: instructions, wavefronts, conflicts, wavefronts per instruction.
# 64x64 blocks of 32 warps at N = 2048: 131,072 column reads of 32 (stride 32), 2 (stride 34:
# gcd(34, 32)) or 1 (stride 33) wavefronts each.
expect "seed 32x32 column read is 32-way" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +1 +32 +32 +31  \| +0 +32 +32$' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect "seed 32x33 column read is 1-way" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +131,072 +131,072 +0 +1\.00$' -- \
  "$cli" predict "$sc/seed_transpose_32x33.json"
expect "--stride 34 is 2-way" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +131,072 +262,144 +131,072 +2\.00$' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json" --stride 34
# Per launch the model predicts the instruction-level smsp__sass_ counters (the l1tex__ ones read
# high with many blocks resident), and says so by name. sm_90 has no instruction-level conflict
# counter for LDS/STS: the conflicts line is named after the wavefronts counter minus ideal.
expect "per-launch ld instructions" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +131,072$' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect "per-launch ld wavefronts" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +4,194,304$' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect "per-launch ld conflicts" 0 '^  smsp__sass_l1tex_data_(bank_conflicts_pipe_lsu_mem_shared_op_ld\.sum|pipe_lsu_wavefronts_mem_shared_op_ld\.sum - ideal) +4,063,232$' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect_not "no per-launch count under an l1tex__ name" '^  l1tex__' -- "$cli" predict "$sc/seed_transpose_32x32.json"
expect "--n 16384 totals" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +268,435,456$' -- \
  "$cli" predict "$sc/tiled_32x8_32x32.json" --n 16384
expect "--n 16384 padded: 0 conflicts" 0 '^  smsp__sass_l1tex_data_(bank_conflicts_pipe_lsu_mem_shared_op_ld\.sum|pipe_lsu_wavefronts_mem_shared_op_ld\.sum - ideal) +0$' -- \
  "$cli" predict "$sc/tiled_32x8_32x33.json" --n 16384
expect "--json totals name their counters" 0 '"ld": \{ "instructions": 131072, "active_instructions": 131072, "wavefronts": 4194304, "bank_conflicts": 4063232, "saturated": false, "counters": \{ "instructions": "smsp__inst_executed_op_shared_ld.sum", "active_instructions": "smsp__sass_inst_executed_op_shared_ld.sum", "wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"' -- \
  bash -o pipefail -c "'$cli' predict '$sc/tiled_32x8_32x32.json' --json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)[\"totals\"], indent=None, separators=(\", \", \": \")).replace(\"{\", \"{ \").replace(\"}\", \" }\"))'"
expect "--json per-instruction counters are l1tex__" 0 '"wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"' -- \
  "$cli" predict "$sc/tiled_32x8_32x32.json" --json
expect "explain a column read" 0 '^32 wavefront\(s\), ideal 1, bank conflicts 31 \(ncu definition\), 32-way, efficiency 3.1%' -- \
  "$cli" explain "$sc/seed_transpose_32x32.json" --access 1
expect "explain names the l1tex counters" 0 '^  as this warp alone would count: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum = 32, l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld\.sum = 31$' -- \
  "$cli" explain "$sc/seed_transpose_32x32.json" --access 1
expect "explain padded" 0 '^1 wavefront\(s\), ideal 1, bank conflicts 0' -- \
  "$cli" explain "$sc/seed_transpose_32x33.json" --access 1
# Issue 12, point 6: one unit per column, whole launch and worst warp, no unexplained abbreviation.
# Per launch (all 4,096 blocks): 131,072 column reads of 32 wavefronts, 31 conflicts each.
expect "per-launch row: instructions, wavefronts, conflicts, mean per instr." 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +131,072 +4,194,304 +4,063,232 +32\.00$' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect "per-warp row: instructions, wavefronts/instr, n-way, conflicts/instr | worst warp" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +1 +32 +32 +31  \| +0 +32 +32$' -- \
  "$cli" predict "$sc/seed_transpose_32x32.json"
expect "legend explains the columns" 0 '^  bank conflicts per instr\. = wavefronts - ideal' -- "$cli" predict "$sc/seed_transpose_32x32.json"
expect_not "no abbreviated units (1w, cf, wf)" '[0-9]w |  cf |  wf ' -- "$cli" predict "$sc/seed_transpose_32x32.json"
# char tile[32][33]: warp y reads bytes 33*i + y. y = 0 (warp 0): word 8i + i/4, bank 8(i%4) + i/4,
# all distinct: 1 wavefront. y = 1: lanes 0 and 31 take words 0 and 256, both bank 0: 2. Warps with
# y % 4 != 0 conflict: 24 of 32 per block, 24 * 4,096 = 98,304 conflicts, 229,376 / 131,072 = 1.75.
expect "char 32x33: warp 0 clean, worst warp (1) 2-way" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +1 +1 +1 +0  \| +1 +2 +2$' -- \
  "$cli" predict "$sc/seed_transpose_32x33.json" --type char
expect "char 32x33: launch conflicts beside warp 0's table" 0 '^1  ld  tile\[threadIdx.x\]\[threadIdx.y\] +131,072 +229,376 +98,304 +1\.75$' -- \
  "$cli" predict "$sc/seed_transpose_32x33.json" --type char
# explain prints the declaration of the array the access uses (broadcast.json: coeff[8], table[8][64]).
expect "explain: the accessed array's declaration" 0 '^  __shared__ float table\[8\]\[64\], warp 0' -- \
  "$cli" explain "$sc/broadcast.json" --access 1
# --array: --stride/--type change the named array, not the first.
expect "predict --array table --stride 72" 0 '^array     __shared__ float table\[8\]\[72\]' -- \
  "$cli" predict "$sc/broadcast.json" --array table --stride 72
expect "predict --array unknown" 1 "^bankscope-cli: --array: .*broadcast.json has no array named 'nope' \(arrays: coeff, table\)$" -- \
  "$cli" predict "$sc/broadcast.json" --array nope --stride 72
# --type: a name is shown as itself or refused, never shown as another type.
expect "--type fp32 refused, names float" 1 "^bankscope-cli: --type: 'fp32' is not a type of its own here: .*give float" -- \
  "$cli" predict "$sc/seed_transpose_32x32.json" --type fp32
expect "--type int: int or refused, never float" 0 "(is not a type of its own|__shared__ int tile\[32\]\[32\])" -- \
  bash -c "'$cli' predict '$sc/seed_transpose_32x32.json' --type int 2>&1 | head -2"
expect_not "--type int never declared float" '__shared__ float' -- \
  bash -c "'$cli' predict '$sc/seed_transpose_32x32.json' --type int 2>&1 | head -2"
expect "--type nonsense" 1 "^bankscope-cli: --type: 'qfloat' is not an element type \(one of char, " -- \
  "$cli" predict "$sc/seed_transpose_32x32.json" --type qfloat
# compare --stride/--type change B. Seed at 32 vs 34: A 131,072 + 4,194,304 wavefronts, B 131,072 +
# 262,144 (gcd(34, 32) = 2): 4,325,376 / 393,216 = 11.00.
expect "compare --stride 34 (seed)" 0 'B issues 11\.00x fewer shared-memory wavefronts than A \(worst access 32-way vs 2-way\)' -- \
  "$cli" compare --stride 34
expect "compare one file --stride 34: B named" 0 '^B: .*seed_transpose_32x32\.json --stride 34\)$' -- \
  "$cli" compare "$sc/seed_transpose_32x32.json" --stride 34
expect "compare one file alone is an error" 2 '^bankscope-cli: compare: one scenario .* give a second scenario' -- \
  "$cli" compare "$sc/seed_transpose_32x32.json"
# A regression reads as one: 32x33 -> 32x32 is 4,325,376 / 262,144 = 16.50x more.
expect "compare regression says more" 0 'B issues 16\.50x more shared-memory wavefronts than A \(worst access 1-way vs 32-way\)' -- \
  "$cli" compare "$sc/seed_transpose_32x33.json" "$sc/seed_transpose_32x32.json"
expect "compare --type double changes B" 0 '^   __shared__ double tile\[32\]\[32\]$' -- \
  "$cli" compare "$sc/seed_transpose_32x32.json" --type double
# sweep: the seed's column read (statement 1), 32 warps of block 0 one instruction each; a float
# column read costs gcd(stride, 32) wavefronts (32 -> 32, 33 -> 1, 34 -> 2, ..., 64 -> 32).
sweep_seed() { "$cli" sweep "$sc/seed_transpose_32x32.json" --access 1 --stride 32..64 "$@"; }
expect "sweep stride 32: 32" 0 '^ +32 +32 +1,024 +32 +32$' -- sweep_seed
expect "sweep stride 33: 1" 0 '^ +33 +32 +32 +1 +1$' -- sweep_seed
expect "sweep stride 34: 2" 0 '^ +34 +32 +64 +2 +2$' -- sweep_seed
expect "sweep stride 36: 4" 0 '^ +36 +32 +128 +4 +4$' -- sweep_seed
expect "sweep stride 40: 8" 0 '^ +40 +32 +256 +8 +8$' -- sweep_seed
expect "sweep stride 48: 16" 0 '^ +48 +32 +512 +16 +16$' -- sweep_seed
expect "sweep stride 64: 32" 0 '^ +64 +32 +1,024 +32 +32$' -- sweep_seed
# double tile (32x8 threads, 4 loop steps, 8 warps: 32 instructions): 2 * gcd(stride, 16) (two
# half-warp phases, lane i on bank pair s*i mod 16), so stride 33 costs the ideal 2.
expect "sweep double stride 33: 2" 0 '^ +33 +32 +64 +2 +1$' -- \
  "$cli" sweep "$sc/tiled_32x8_double_32x32.json" --access 1 --stride 32..40
expect "sweep double stride 36: 8" 0 '^ +36 +32 +256 +8 +4$' -- \
  "$cli" sweep "$sc/tiled_32x8_double_32x32.json" --access 1 --stride 32..40
expect "sweep starts at the row length" 0 'row stride swept 32\.\.40 \(strides below the row length would overlap rows\)' -- \
  "$cli" sweep "$sc/seed_transpose_32x32.json" --access 1 --stride 1..40
expect "sweep --svg writes a chart" 0 '<polyline' -- bash -c "'$cli' sweep '$sc/seed_transpose_32x32.json' --access 1 --stride 32..64 --svg '$tmp/sw.svg' >/dev/null && cat '$tmp/sw.svg'"
# A float4 write of a float tile: strides that are not a multiple of 4 floats misalign rows for
# 16-byte accesses; they are rows marked "cannot run", and the sweep goes on.
expect "sweep marks strides that cannot run" 0 '^3 strides cannot run; stride 65: .*16-byte aligned' -- \
  "$cli" sweep "$sc/fast_f4_128x64_t256.json" --stride 64..68
expect "sweep goes on after them" 0 '^ +68 +[0-9,]+ +[0-9,]+ +[0-9.]+ +[0-9]+$' -- \
  "$cli" sweep "$sc/fast_f4_128x64_t256.json" --stride 64..68
expect "sweep 1-D array" 1 "^bankscope-cli: .*broadcast.json: array coeff is one-dimensional" -- \
  "$cli" sweep "$sc/broadcast.json" --access 0
expect "sweep bad range" 1 "^bankscope-cli: --stride: '32-40' is not a stride range A\.\.B" -- \
  "$cli" sweep "$sc/seed_transpose_32x32.json" --stride 32-40
expect "sweep access out of range" 1 "^bankscope-cli: .*: access 5 is outside 0\.\.1" -- \
  "$cli" sweep "$sc/seed_transpose_32x32.json" --access 5
expect "compare default seed pair" 0 'B issues 16.50x fewer shared-memory wavefronts than A \(worst access 32-way vs 1-way\)' -- \
  "$cli" compare
expect "compare names the per-launch counters" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +4,194,304 +131,072$' -- \
  "$cli" compare

# Saturation: 2^31-1 x 65535 x 65535 blocks of 32 warps is about 2^68 warp instructions per op.
# The counts clamp at 2^64 - 1 and say so; wavefronts - ideal is then unknown.
printf '{"block": [1024], "grid": [2147483647, 65535, 65535], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.x %% 32][threadIdx.x / 32]"}, {"op": "st", "target": "tile[threadIdx.x / 32][threadIdx.x %% 32]"}]}' >"$tmp/huge.json"
expect "saturated ld instructions" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +> 18,446,744,073,709,551,615 \(exceeds 2\^64\)$' -- \
  "$cli" predict "$tmp/huge.json"
expect "saturated st wavefronts" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st\.sum +> 18,446,744,073,709,551,615 \(exceeds 2\^64\)$' -- \
  "$cli" predict "$tmp/huge.json"
expect "saturated conflicts are unknown" 0 '_op_st\.sum( - ideal)? +unknown \(wavefronts exceed 2\^64\)$' -- \
  "$cli" predict "$tmp/huge.json"
expect "saturated in JSON" 0 '^\{"instructions": 18446744073709551615, "active_instructions": 18446744073709551615, "wavefronts": 18446744073709551615, "bank_conflicts": null, "saturated": true' -- \
  bash -o pipefail -c "'$cli' predict '$tmp/huge.json' --json | python3 -c 'import json,sys; t=json.load(sys.stdin)[\"totals\"][\"ld\"]; print(json.dumps(t))'"

# JSONL: one output line per input line, in order, a bad line gets "error" and the run goes on; a
# blank line is no pattern: no output line, not counted as failed (issue 12, point 8).
offs=$(python3 -c 'print(",".join(str(i*8) for i in range(32)))')
{
  echo "{\"id\": 1, \"width\": 8, \"op\": \"ld\", \"mask\": \"0xffffffff\", \"offsets\": [$offs]}"
  echo "not json"
  echo ""
  echo "{\"id\": 3, \"width\": 4, \"op\": \"st\", \"mask\": 1, \"offsets\": [$offs]}"
} >"$tmp/p.jsonl"
"$cli" predict --jsonl "$tmp/p.jsonl" >"$tmp/out.jsonl" 2>"$tmp/err.txt"
rc=$?
lines=$(wc -l <"$tmp/out.jsonl")
if [[ $rc -eq 1 && $lines -eq 3 ]] &&
  sed -n 1p "$tmp/out.jsonl" | grep -q '"id":1,.*"wavefronts":2,"bank_conflicts":0' &&
  sed -n 2p "$tmp/out.jsonl" | grep -q '"error":".*p.jsonl: line 2: invalid JSON' &&
  sed -n 3p "$tmp/out.jsonl" | grep -q '"id":3,.*"wavefronts":1,"bank_conflicts":0' &&
  grep -q '1 of 3 patterns failed' "$tmp/err.txt"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: jsonl batch (exit $rc, $lines lines)"
  cat "$tmp/out.jsonl" "$tmp/err.txt" | sed 's/^/    /'
fi
expect "jsonl from stdin" 0 '"offsets":\[0,8,.*,248\],"wavefronts":2,"bank_conflicts":0\}$' -- bash -c "head -1 '$tmp/p.jsonl' | '$cli' predict --jsonl -"

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
# Edge tiles (issue 16): nvcc predicates the guarded STS, so at N = 33 all 4 x 8 x 4 = 128 warp-level
# executions count in the hardware instruction counter, only the 66 with an active lane in the
# SASS-patched one (the H200 measured 128 and 66: assets/results/h200/validate.json).
expect "predicated store: every warp executes it" 0 '^  smsp__inst_executed_op_shared_st\.sum +128$' -- \
  "$cli" predict "$sc/tiled_32x8_32x33.json" --n 33
expect "predicated store: 66 with an active lane" 0 '^  smsp__sass_inst_executed_op_shared_st\.sum +66$' -- \
  "$cli" predict "$sc/tiled_32x8_32x33.json" --n 33
expect "branched load: 66 either way" 0 '^  smsp__inst_executed_op_shared_ld\.sum +66$' -- \
  "$cli" predict "$sc/tiled_32x8_32x33.json" --n 33
# Traces recorded on the H200 (assets/results/h200/2026-11-30d, the corpus of kernels/tracer/corpus):
# the traced 32x8 transpose with tile[32][32] at N = 256 (64 blocks x 8 warps x 4 column reads,
# 32-way: 65,536 wavefronts, as ncu measured), its what-if with row stride 33 (2,048: the count the
# scenario tiled_32x8_32x33.json predicts and the traced [32][33] launch has), and the reduction
# (1,344 LDS executions with an active thread, ncu's instruction-level count).
h200tr=$src/assets/results/h200/2026-11-30d/traces
expect "report on an H200 trace: 32-way column read" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +65536$' -- \
  "$cli" report "$h200tr/transpose.bstrace"
expect "what-if stride 33 on the H200 trace" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +65536 +what-if +2048$' -- \
  "$cli" report "$h200tr/transpose.bstrace" --array 'tile@0:float[32][32]' --layout tile:stride=33
expect "the scenario of the same layout agrees" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +2,048$' -- \
  "$cli" predict "$sc/tiled_32x8_32x33.json" --n 256
expect "report on the H200 reduction trace" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +1344$' -- \
  "$cli" report "$h200tr/reduction.bstrace"
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

# upgrade: a trace recorded by an older tracer written again in the current version (mode 4 where
# lanes repeat): the H200 reduction trace (version 1) and gemm_float4's (version 2, round 10's
# corpus: its fragment loads repeat, so it shrinks) report the same, JSON line for line.
gunzip -c "$src/assets/results/h200/2026-12-02b/traces/gemm_float4.bstrace.gz" >"$tmp/gemm_float4.bstrace"
expect "upgrade: version 1 -> 4" 0 'reduction\.bstrace \(version 1, 62129 bytes\) -> .*up1\.bstrace \(version 4, 42098 bytes\)' -- \
  "$cli" upgrade "$h200tr/reduction.bstrace" "$tmp/up1.bstrace"
expect "upgrade: version 2 -> 4, a seventh of the bytes" 0 'gemm_float4\.bstrace \(version 2, 3525205 bytes\) -> .*up2\.bstrace \(version 4, 495474 bytes\)' -- \
  "$cli" upgrade "$tmp/gemm_float4.bstrace" "$tmp/up2.bstrace"
for pair in "$h200tr/reduction.bstrace:$tmp/up1.bstrace" "$tmp/gemm_float4.bstrace:$tmp/up2.bstrace"; do
  old=${pair%%:*} new=${pair#*:}
  if [[ $(od -An -tu1 -j8 -N1 "$new" | tr -d ' ') == 4 ]] &&
     diff <("$cli" report "$old" --json --top 0 | grep -v '"trace"') \
          <("$cli" report "$new" --json --top 0 | grep -v '"trace"') >/dev/null; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: upgrade: $new is version 4 and reports as $old does"
  fi
done
expect "upgrade: a truncated trace is one line, exit 1" 1 "upgrade: .*cut\.bstrace: trace: byte 94: record 'W' at byte 91 needs 737 bytes" -- \
  "$cli" upgrade "$tmp/cut.bstrace" "$tmp/never.bstrace"
if [[ -e $tmp/never.bstrace ]]; then failed=$((failed + 1)); echo "FAIL: upgrade of a bad trace wrote its OUT"; else passed=$((passed + 1)); fi
cp "$tmp/cut.bstrace" "$tmp/cut_copy.bstrace"
expect "upgrade in place of a bad trace" 1 "trace: byte 94" -- "$cli" upgrade "$tmp/cut.bstrace" "$tmp/cut.bstrace"
if cmp -s "$tmp/cut.bstrace" "$tmp/cut_copy.bstrace"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: a failed in-place upgrade changed the file"; fi
expect "upgrade: OUT in a missing folder" 1 "nodir/x\.bstrace: cannot save \(No such file or directory\); the old file is untouched" -- \
  "$cli" upgrade "$tmp/seed.bstrace" "$tmp/nodir/x.bstrace"

}

limits_tests() {
# --max-blocks and Ctrl-C. An index that depends on blockIdx makes launch_totals visit every
# block. Here every block costs the same: 32 warps x one 32-way column read = 32 instructions,
# 1,024 wavefronts, 992 conflicts, so 10 blocks give 320 / 10,240 / 9,920 and the estimate for
# 32 x 32 = 1,024 blocks is 32,768 / 1,048,576. Exit 3: the totals are a bound, not the count.
printf '{"n": %d, "block": [32, 32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.x][(threadIdx.y + blockIdx.x) %% 32]"}]}' 1024 >"$tmp/byblock.json"
expect "--max-blocks: lower bound, labelled" 3 '^per launch, lower bound: exact over 10 of 1,024 blocks \(' -- \
  "$cli" predict "$tmp/byblock.json" --max-blocks 10
expect "--max-blocks: bound on wavefronts" 3 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +>= +10,240$' -- \
  "$cli" predict "$tmp/byblock.json" --max-blocks 10
expect "--max-blocks: estimate, labelled" 3 '^estimate \(sample of 10 blocks\), whole grid:$' -- \
  "$cli" predict "$tmp/byblock.json" --max-blocks 10
expect "--max-blocks: estimated wavefronts" 3 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +~ +1,048,576$' -- \
  "$cli" predict "$tmp/byblock.json" --max-blocks 10
expect "--max-blocks in JSON" 3 '^False 10 10240 1048576$' -- \
  bash -o pipefail -c "'$cli' predict '$tmp/byblock.json' --max-blocks 10 --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j[\"complete\"], j[\"blocks_counted\"], j[\"totals\"][\"ld\"][\"wavefronts\"], j[\"estimate\"][\"ld\"][\"wavefronts\"])'"
expect "--max-blocks above the grid: exact, exit 0" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +1,048,576$' -- \
  "$cli" predict "$tmp/byblock.json" --max-blocks 5000
expect "--max-blocks 0 is a usage error" 2 "--max-blocks: Value 0 not in range" -- \
  "$cli" predict "$tmp/byblock.json" --max-blocks 0
# Ctrl-C: N = 16384 is 262,144 blocks (seconds of brute force); SIGINT after the progress line
# has appeared prints the partial totals, labelled, and exits 130.
printf '{"n": %d, "block": [32, 32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.x][(threadIdx.y + blockIdx.x) %% 32]"}]}' 16384 >"$tmp/slow.json"
"$cli" predict "$tmp/slow.json" >"$tmp/int_out.txt" 2>"$tmp/int_err.txt" &
pid=$!
for _ in $(seq 1 100); do
  grep -q "of 262,144 blocks" "$tmp/int_err.txt" 2>/dev/null && break
  sleep 0.1
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [[ $rc -eq 130 ]] &&
  grep -Eq '^bankscope-cli: per-launch totals: [1-9][0-9,]* of 262,144 blocks \(Ctrl-C stops with a lower bound\)' "$tmp/int_err.txt" &&
  grep -Eq '^per launch, lower bound: exact over [1-9][0-9,]* of 262,144 blocks \(cancelled\):$' "$tmp/int_out.txt"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: Ctrl-C prints a labelled lower bound (exit $rc, wanted 130)"
  tail -n 3 "$tmp/int_err.txt" "$tmp/int_out.txt" | sed 's/^/    /'
fi

}

if [[ $only == limits ]]; then
  limits_tests
else
  core_tests
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
