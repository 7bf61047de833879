#!/usr/bin/env bash
# cli_lang_tests.sh: the scenario language's newer constructs end to end (README "Loops, bodies,
# parameters, N-D arrays and the extern buffer"): numbers worked by hand in the comments, and bad
# input that gets one line naming the field and a non-zero exit.
# Usage: cli_lang_tests.sh CLI SOURCE_DIR
set -u
cli=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...

# scenario FILE ACCESSES [EXTRA_TOP_LEVEL_FIELDS] [ARRAYS]: a one-warp-per-block scenario.
scenario() {
  local arrays=${4:-'[{"name": "a", "type": "float", "dims": [1024]}]'}
  printf '{"name": "t", "n": 32, "block": [32], "grid": [1], %s "arrays": %s, "accesses": %s}\n' \
    "${3:-}" "$arrays" "$2" >"$tmp/$1"
}

# Reduction, interleaved addressing: for (s = 1; s < 256; s *= 2) { index = 2*s*tid; if (index <
# 256) { ld sdata[index]; ld sdata[index + s]; st sdata[index]; } }. Active threads per s: 128/s,
# so warps 4, 2, 1, 1, 1, 1, 1, 1 = 12 per block per statement (x 4 blocks = 48). Wavefronts per
# block: s=1 stride 2 words, 2-way x 4 warps = 8; s=2 4-way x 2 = 8; s=4 8-way = 8; s=8 16 lanes
# on 2 banks = 8; s=16 8 lanes on bank 0 = 8; s=32: 4; s=64: 2; s=128: 1; sum 47 (x 4 = 188).
cat >"$tmp/red.json" <<'EOF'
{"name": "reduction", "n": 1024, "block": [256], "grid": [4],
 "arrays": [{"name": "sdata", "type": "int", "dims": [256]}],
 "defines": {"tid": "threadIdx.x"},
 "accesses": [
   {"op": "st", "target": "sdata[tid]"},
   {"loop": {"var": "s", "init": 1, "cond": "s < blockDim.x", "update": "s *= 2"},
    "defines": {"index": "2 * s * tid"},
    "body": [
      {"op": "ld", "target": "sdata[index]", "if": "index < blockDim.x"},
      {"op": "ld", "target": "sdata[index + s]", "if": "index < blockDim.x"},
      {"op": "st", "target": "sdata[index]", "if": "index < blockDim.x"}]}]}
EOF
expect "reduction s *= 2: per-warp row of the body's first load" 0 '^1  ld  sdata\[index\] +8 +1\.\.8 +8 +0\.\.7  \|' -- \
  "$cli" predict "$tmp/red.json"
expect "reduction s *= 2: per-launch row of the body's first load (188 / 48 = 3.92)" 0 '^1  ld  sdata\[index\] +48 +188 +140 +3\.92$' -- \
  "$cli" predict "$tmp/red.json"
expect "reduction s *= 2: ld wavefronts per launch (2 x 188)" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +376$' -- \
  "$cli" predict "$tmp/red.json"
expect "reduction s *= 2: st wavefronts per launch (32 + 188)" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st\.sum +220$' -- \
  "$cli" predict "$tmp/red.json"
# Sequential addressing, s = blockDim.x / 2 down by >>= 1, if (tid < s): warps 4, 2, 1 x 6 = 12
# per block, 1 wavefront each: two loads x 12 x 4 blocks = 96 instructions and 96 wavefronts.
sed -e 's/"init": 1, "cond": "s < blockDim.x", "update": "s \*= 2"/"init": "blockDim.x \/ 2", "cond": "s > 0", "update": "s >>= 1"/' \
    -e 's/"index": "2 \* s \* tid"/"index": "tid"/' -e 's/index < blockDim.x/tid < s/g' "$tmp/red.json" >"$tmp/seq.json"
expect "reduction s >>= 1: conflict-free, 96 ld wavefronts" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +96$' -- \
  "$cli" predict "$tmp/seq.json"
expect "reduction s >>= 1: 96 ld instructions" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +96$' -- \
  "$cli" predict "$tmp/seq.json"

# params: for (kt = 0; kt < K / BK; kt++) one load per warp: K / BK instructions (1 block, 1 warp).
scenario params.json '[{"loop": {"var": "kt", "init": 0, "cond": "kt < K / BK", "update": "kt++"}, "body": [{"op": "ld", "target": "a[lane]"}]}]' \
  '"params": {"K": 1024, "BK": 32},'
expect "params: K / BK = 32 iterations" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +32$' -- "$cli" predict "$tmp/params.json"
expect "--param K=2048: 64 iterations" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +64$' -- "$cli" predict "$tmp/params.json" --param K=2048
expect "--param of an undeclared name" 1 "^bankscope-cli: --param Q=1: the scenario declares no param 'Q' \(params: K, BK\)$" -- \
  "$cli" predict "$tmp/params.json" --param Q=1
# The old loop form with expression bounds: j = 0, 8, .., BK - 8: 4 iterations.
scenario oldexpr.json '[{"op": "ld", "target": "a[lane + j]", "loops": [{"var": "j", "begin": 0, "end": "BK", "step": 8}]}]' '"params": {"BK": 32},'
expect "begin/end/step as expressions: 4 iterations" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +4$' -- "$cli" predict "$tmp/oldexpr.json"
# Nested bodies: 2 x (1 + 3) = 8 loads.
scenario nested.json '[{"loop": {"var": "i", "init": 0, "cond": "i < 2", "update": "i++"}, "body": [{"op": "ld", "target": "a[lane]"}, {"loop": {"var": "k", "init": 1, "cond": "k < 8", "update": "k <<= 1"}, "body": [{"op": "ld", "target": "a[lane * k + i]"}]}]}]'
expect "nested bodies: 2 x (1 + 3) loads" 0 '^  smsp__sass_inst_executed_op_shared_ld\.sum +8$' -- "$cli" predict "$tmp/nested.json"
# a[lane*k+i]: k=1 1 wavefront, k=2 2-way, k=4 4-way; twice, plus 2 x 1: 2 x (1 + 1 + 2 + 4) = 16.
expect "nested bodies: 16 wavefronts" 0 '^  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld\.sum +16$' -- "$cli" predict "$tmp/nested.json"

# N-D arrays: float t[2][32][32]: t[1][lane][3] is element (32 + lane) * 32 + 3: all bank 3,
# 32-way; with row_stride 33 the rows start one bank apart: 1 wavefront.
scenario nd.json '[{"op": "ld", "target": "t[1][lane][3]"}]' '' '[{"name": "t", "type": "float", "dims": [2, 32, 32]}]'
expect "3-D float t[2][32][32] column: 32-way" 0 '^0  ld  t\[1\]\[lane\]\[3\] +1 +32 +32 +31  \|' -- "$cli" predict "$tmp/nd.json"
expect "3-D declaration printed" 0 '__shared__ float t\[2\]\[32\]\[32\]   logical \[2\]\[32\]\[32\], 8192 bytes$' -- "$cli" predict "$tmp/nd.json"
scenario nd33.json '[{"op": "ld", "target": "t[1][lane][3]"}]' '' '[{"name": "t", "type": "float", "dims": [2, 32, 32], "row_stride": 33}]'
expect "3-D padded to 33: 1 wavefront" 0 '^0  ld  t\[1\]\[lane\]\[3\] +1 +1 +1 +0  \|' -- "$cli" predict "$tmp/nd33.json"
scenario nd4.json '[{"op": "ld", "target": "t[1][0][lane % 2][lane / 2]"}]' '' '[{"name": "t", "type": "short", "dims": [2, 3, 2, 16]}]'
expect "4-D short t[2][3][2][16]: 64 bytes, 1 wavefront" 0 '^0  ld  t\[1\]\[0\]\[lane % 2\]\[lane / 2\] +1 +1 +1 +0  \|' -- "$cli" predict "$tmp/nd4.json"
expect "N-D index out of its dimension" 1 'index 2 \(.2.\) is outside \[0, 2\) of t' -- \
  bash -c "sed 's/t\[1\]\[lane\]/t[2][lane]/' '$tmp/nd.json' >'$tmp/ndbad.json' && '$cli' predict '$tmp/ndbad.json'"

# extern buffer: int a[64] at byte offset 4 read as 8-byte pairs is misaligned (a real kernel
# would fault); at offset 8 it is aligned: 32 lanes x 8 bytes = 2 wavefronts.
ext='"extern": {"bytes": 1024},'
scenario ext4.json '[{"op": "ld", "target": "a[2 * lane]", "width": 8}]' "$ext" '[{"name": "a", "type": "int", "dims": [64], "offset": 4}]'
expect "extern offset 4: an 8-byte access is misaligned" 1 'misalign|not a multiple of 8|aligned' -- "$cli" predict "$tmp/ext4.json"
scenario ext8.json '[{"op": "ld", "target": "a[2 * lane]", "width": 8}]' "$ext" '[{"name": "a", "type": "int", "dims": [64], "offset": 8}]'
expect "extern offset 8: the array starts at bank 2" 0 '^array     __shared__ int a\[64\]   logical \[1\]\[64\], 256 bytes, extern buffer byte 8 \(shared byte 8, bank 2\)$' -- "$cli" predict "$tmp/ext8.json"
expect "extern offset 8: 2 wavefronts" 0 '^0  ld  a\[2 \* lane\] +1 +2 +1 +0  \|' -- "$cli" predict "$tmp/ext8.json"
scenario overlap.json '[{"op": "ld", "target": "a[lane]"}]' "$ext" '[{"name": "a", "type": "float", "dims": [64], "offset": 0}, {"name": "b", "type": "float", "dims": [8], "offset": 252}]'
expect "extern arrays that overlap name both" 1 "arrays\[1\]\.offset: 'b' \(bytes 252\.\.283\) overlaps 'a' \(bytes 0\.\.255\) in the extern buffer$" -- "$cli" predict "$tmp/overlap.json"
scenario noext.json '[{"op": "ld", "target": "a[lane]"}]' '' '[{"name": "a", "type": "float", "dims": [64], "offset": 0}]'
expect "offset without extern" 1 "arrays\[0\]\.offset: 'a' has an offset but the scenario has no \"extern\"" -- "$cli" predict "$tmp/noext.json"
scenario extbig.json '[{"op": "ld", "target": "a[lane]"}]' "$ext" '[{"name": "a", "type": "float", "dims": [64], "offset": 800}]'
expect "array past the extern buffer" 1 "arrays\[0\]\.offset: 'a' \(bytes 800\.\.1055\) does not fit the extern buffer's 1024 bytes" -- "$cli" predict "$tmp/extbig.json"

# n: a file without n gets the documented default, and says so.
printf '{"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[0][lane]"}]}\n' >"$tmp/non.json"
expect "no n: the default is shown" 0 'grid 64x64x1 \(n=2048, the default: the scenario gives no "n"\)' -- "$cli" predict "$tmp/non.json"
expect "no n: --json says n_default" 0 '"n_default": true' -- "$cli" predict "$tmp/non.json" --json

# Bad loops: one line naming the field.
loop() { scenario bad.json "[{\"loop\": $1, \"body\": [{\"op\": \"ld\", \"target\": \"a[lane]\"}]}]" '"params": {"K": 8},'; }
loop '{"var": "s", "init": 1, "cond": "s < 32", "update": "s *= 1"}'
expect "s *= 1 never ends" 1 "accesses\[0\]\.loop\.update: 's \*= 1' leaves s at 1: the loop never ends$" -- "$cli" predict "$tmp/bad.json"
loop '{"var": "s", "init": 1, "cond": "s < 0", "update": "s++"}'
expect "a loop that never runs" 1 "accesses\[0\]\.loop\.cond: 's < 0' is false at the start \(s = 1\): the loop never runs$" -- "$cli" predict "$tmp/bad.json"
loop '{"var": "s", "init": 1, "cond": "s > 0", "update": "s *= 2"}'
expect "an update that overflows" 1 "accesses\[0\]\.loop\.update: 's \*= 2' at s = 1073741824: .*overflow" -- "$cli" predict "$tmp/bad.json"
loop '{"var": "i", "init": 0, "cond": "i >= 0", "update": "i += 1"}'
expect "over 2^20 iterations" 1 "accesses\[0\]\.loop\.update: more than 1048576 iterations \('i \+= 1' does not reach 'i >= 0'\): the loop never ends$" -- "$cli" predict "$tmp/bad.json"
loop '{"var": "s", "init": 0, "cond": "s < threadIdx.x", "update": "s++"}'
expect "a bound that differs per thread" 1 "accesses\[0\]\.loop\.cond: 's < threadIdx.x' differs from thread to thread" -- "$cli" predict "$tmp/bad.json"
loop '{"var": "s", "init": 0, "cond": "s < 4", "update": "t += 1"}'
expect "an update of another variable" 1 "accesses\[0\]\.loop\.update: 't \+= 1' does not assign the loop variable s" -- "$cli" predict "$tmp/bad.json"
loop '{"var": "s", "init": 0, "cond": "s < 4"}'
expect "a loop without update" 1 "accesses\[0\]\.loop: needs 'update'" -- "$cli" predict "$tmp/bad.json"
scenario bad.json '[{"op": "ld", "target": "a[lane]"}]' '"defines": {"a1": "b1 + 1", "b1": "a1 + 1"},'
expect "a define cycle is an unknown name (defines are in order)" 1 "defines\.a1: column 1: unknown variable 'b1'" -- "$cli" predict "$tmp/bad.json"
scenario bad.json '[{"loop": {"var": "s", "init": 0, "cond": "s < 2", "update": "s++"}, "defines": {"x": "s * 4"}, "body": [{"op": "ld", "target": "a[lane + x]"}]}, {"op": "ld", "target": "a[x]"}]'
expect "a body's define used outside it" 1 "accesses\[1\]\.target: 'x' is a define of a loop body of accesses\[0\]; it exists only inside that loop$" -- "$cli" predict "$tmp/bad.json"
scenario bad.json '[{"op": "ld", "target": "a[lane]"}]' '"params": {"K": 1.5},'
expect "a param that is not an integer" 1 "params\.K: expected an integer" -- "$cli" predict "$tmp/bad.json"

echo "cli_lang_tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
