#!/usr/bin/env bash
# mma_gemm_predict_tests.sh: scripts/mma_gemm_predict.py (the per-launch prediction of
# assets/scenarios/mma/mma_gemm.cu: STS from the scenario, LDSM from ldmatrix JSONL lines) against
# counts worked by hand.
#   Per k tile a block (4 warps) issues 16 STS.128 (each 32 lanes x 16 bytes over whole 128-byte
#   lines: 4 wavefronts) and 32 LDSM.x4 (8 per warp). Unswizzled, an As matrix's 8 rows are 64
#   bytes apart: rows r and r + 2 share banks, 2 bank groups x 4 rows = 4 wavefronts a matrix,
#   16 an x4; a Bs matrix's rows are 128 bytes apart: 8 wavefronts a matrix, 32 an x4. So a block
#   k tile costs 4 x (4 x 16 + 4 x 32) = 768 LDSM wavefronts (ideal 32 x 4 = 128); swizzled 128.
#   N = 64: 1 block x 2 k tiles. N = 200: ceil(200/64)^2 = 16 blocks x ceil(200/32) = 7 k tiles.
# Usage: mma_gemm_predict_tests.sh BANKSCOPE_CLI SOURCE_DIR
set -u
cli=$1
src=$2
passed=0
failed=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...
py=${PYTHON:-python3}
pred() { "$py" "$src/scripts/mma_gemm_predict.py" --cli "$cli" "$src/assets/scenarios/mma/mma_gemm.json" --json "$@"; }
field() {  # N SWZ OP KEY -> the number
  pred --n "$1" --param "SWZ=$2" | "$py" -c "import json,sys; print(json.load(sys.stdin)['totals']['$3']['$4'])"
}
check() {  # NAME EXPECTED N SWZ OP KEY
  expect "$1" 0 "^$2\$" -- field "$3" "$4" "$5" "$6"
}
check "N=64 SWZ=0: 2 x 32 LDSM"                 64      64 0 ldsm instructions
check "N=64 SWZ=0: LDSM all lanes active"        64      64 0 ldsm active_instructions
check "N=64 SWZ=0: 2 x 768 LDSM wavefronts"      1536    64 0 ldsm wavefronts
check "N=64 SWZ=0: 1536 - 64 x 4 conflicts"      1280    64 0 ldsm bank_conflicts
check "N=64 SWZ=1: swizzled, 4 wavefronts an x4" 256     64 1 ldsm wavefronts
check "N=64 SWZ=1: no conflicts"                 0       64 1 ldsm bank_conflicts
check "N=64 SWZ=0: 2 x 16 STS"                   32      64 0 st instructions
check "N=64 SWZ=1: 4 wavefronts an STS"          128     64 1 st wavefronts
check "N=64: no LDS"                             0       64 0 ld instructions
check "N=200 SWZ=0: 112 x 32 LDSM"               3584    200 0 ldsm instructions
check "N=200 SWZ=0: 112 x 768 wavefronts"        86016   200 0 ldsm wavefronts
check "N=200 SWZ=1: 112 x 128 wavefronts"        14336   200 1 ldsm wavefronts
check "N=200 SWZ=0: 112 x 16 x 4 STS wavefronts" 7168    200 0 st wavefronts
# The scenario alone (its ldmatrix accesses, issue 11 item 4 syntax): the same hand numbers, from
# bankscope-cli predict --json without the predictor.
scen() {  # N SWZ OP KEY -> the number
  "$cli" predict "$src/assets/scenarios/mma/mma_gemm.json" --n "$1" --param "SWZ=$2" --json |
    "$py" -c "import json,sys; print(json.load(sys.stdin)['totals']['$3']['$4'])"
}
expect "scenario N=64 SWZ=0: 2 x 32 LDSM"            0 '^64$'      -- scen 64 0 ldsm instructions
expect "scenario N=64 SWZ=0: 1536 LDSM wavefronts"   0 '^1536$'    -- scen 64 0 ldsm wavefronts
expect "scenario N=64 SWZ=0: 1280 conflicts"         0 '^1280$'    -- scen 64 0 ldsm bank_conflicts
expect "scenario N=64 SWZ=1: 256 LDSM wavefronts"    0 '^256$'     -- scen 64 1 ldsm wavefronts
expect "scenario N=1000 SWZ=0: 8192 x 768"           0 '^6291456$' -- scen 1000 0 ldsm wavefronts
expect "scenario N=1000 SWZ=1: 8192 x 128"           0 '^1048576$' -- scen 1000 1 ldsm wavefronts
expect "scenario N=200 SWZ=1: 112 x 32 LDSM"         0 '^3584$'    -- scen 200 1 ldsm active_instructions
expect "scenario N=200 SWZ=0: 112 x 16 x 4 STS wavefronts" 0 '^7168$' -- scen 200 0 st wavefronts
# A scenario whose As ldmatrix forgets the swizzle: at SWZ=1 its As reads cost 16 an x4, so a block
# k tile 4 x (4 x 16 + 4 x 4) = 320 wavefronts, 640 at N = 64, against the JSONL lines' 256.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/((ca ^ (sw \* ((ra >> 1) \& 3))) << 3)/(ca << 3)/' "$src/assets/scenarios/mma/mma_gemm.json" >"$tmp/unswizzled_a.json"
expect "scenario and JSONL lines disagree: one-line error, exit 1" 1 \
  'SWZ=1: the scenario predicts ldsm wavefronts 640, the ldmatrix JSONL lines 256$' -- \
  "$py" "$src/scripts/mma_gemm_predict.py" --cli "$cli" "$tmp/unswizzled_a.json" --n 64 --param SWZ=1 --json
# SWZ=2, padded rows (As 40, Bs 72 halves: 80 and 144 bytes). LDSM: 8 rows 80 bytes apart start at
# 16-byte bank groups 5r mod 8, 144 apart at 9r mod 8 = r: all different, 4 wavefronts an x4, 128 a
# block k tile. STS.128 (R3: 8 lanes a phase): an As phase writes rows 2k and 2k+1, 64 bytes each
# at 80 bytes apart, a 144-byte span whose last 16 bytes fall on the banks of its first: 2
# wavefronts a phase, 8 an STS; a Bs phase writes one whole 128-byte row: 4 an STS. A block k
# tile: 8 x 8 + 8 x 4 = 96 STS wavefronts, 32 of them conflicts.
check "N=64 SWZ=2: padded, 4 wavefronts an x4"  256     64 2 ldsm wavefronts
check "N=64 SWZ=2: no LDSM conflicts"           0       64 2 ldsm bank_conflicts
check "N=64 SWZ=2: 2 x 96 STS wavefronts"       192     64 2 st wavefronts
check "N=64 SWZ=2: 2 x 32 STS conflicts"        64      64 2 st bank_conflicts
expect "scenario N=1000 SWZ=2: 8192 x 96 STS wavefronts" 0 '^786432$' -- scen 1000 2 st wavefronts
expect "scenario N=1000 SWZ=2: 8192 x 128 LDSM wavefronts" 0 '^1048576$' -- scen 1000 2 ldsm wavefronts
expect "counter named" 0 'smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm\.sum' -- pred --n 64 --param SWZ=0
expect "bad SWZ: one-line error, exit 1" 1 'SWZ=3: expected SWZ=0, 1 or 2' -- pred --n 64 --param SWZ=3
expect "N not a multiple of 8: error" 1 'N=100: .*multiple of 8' -- pred --n 100 --param SWZ=0

echo "mma_gemm_predict_tests: $passed passed, $failed failed"
((failed == 0))
