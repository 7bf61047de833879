#!/usr/bin/env bash
# mma_gemm_sass_tests.sh: what scripts/mma_gemm_predict.py assumes of assets/scenarios/mma/mma_gemm.cu
# holds for the SASS nvcc 13 emits (sm_90, no GPU): per k tile each thread (so each warp) issues
# four STS.128 (lines 68 and 76, two each), four LDSM.16.M88.4 (the A ldmatrix.x4, line 90) and four
# LDSM.16.MT88.4 (the B ldmatrix.x4.trans, line 100), all unconditional in the loop over k tiles, and
# no LDS; the scenario's two stores agree with nvcc for both layouts; the predictor lists 32 LDSM
# a block k tile (4 warps x 8), half of them .trans. Without nvcc/nvdisasm: SKIPPED, exit 77.
# Usage: mma_gemm_sass_tests.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
dir=$src/assets/scenarios/mma
passed=0
failed=0

source "$(dirname "${BASH_SOURCE[0]}")/cli_cuda_tools.sh"
require_cuda_tools "sass and check --cu need"

source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...

sass=$("$cli" sass "$dir/mma_gemm.cu" 2>&1)
for s in 0 1 2; do
  k="void (anonymous namespace)::mma_gemm<$s>(__half const*, __half const*, float*, int)"
  # This kernel's block of the listing: from its "kernel" line to the next blank line.
  block=$(awk -v k="kernel $k" '$0 == k {on = 1; next} on && /^$/ {exit} on' <<<"$sass")
  expect "SWZ=$s: A ldmatrix.x4, 4 a k tile, unconditional in the loop" 0 \
    '^  line 90 +LDSM\.16\.M88\.4 +x4 .*unconditional, in a SASS loop' -- echo "$block"
  expect "SWZ=$s: B ldmatrix.x4.trans, 4 a k tile" 0 \
    '^  line 100 +LDSM\.16\.MT88\.4 +x4 .*unconditional, in a SASS loop' -- echo "$block"
  expect "SWZ=$s: As stores, 2 STS.128" 0 '^  line 68 +STS\.128 +x2 +16 B +unconditional, in a SASS loop' -- echo "$block"
  expect "SWZ=$s: Bs stores, 2 STS.128" 0 '^  line 76 +STS\.128 +x2 +16 B +unconditional, in a SASS loop' -- echo "$block"
  expect "SWZ=$s: 12 shared instructions, no LDS" 0 '^ok$' -- bash -c \
    "grep -q '12 shared-memory instructions' <<<\"\$1\" && ! grep -Eq ' LDS(\.[0-9U]+)? ' <<<\"\$1\" && echo ok" _ "$block"
  expect "SWZ=$s: check agrees with nvcc" 0 '^every access agrees with nvcc$' -- \
    "$cli" check "$dir/mma_gemm.json" --cu "$dir/mma_gemm.cu" --kernel "$k"
done
# check reads LDSM as its matrix form (num, .trans): a scenario whose B read forgets .trans, or says
# .x2, is flagged with the fix; the SASS loop issues 4 LDSM.16.MT88.4 on line 100.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
k1="void (anonymous namespace)::mma_gemm<1>(__half const*, __half const*, float*, int)"
sed 's/"num": 4, "trans": true,/"num": 4, "trans": false,/' "$dir/mma_gemm.json" >"$tmp/no_trans.json"
expect "check: B ldmatrix without .trans flagged, with the fix" 1 \
  '\(line 100\): scenario issues ldmatrix\.x4 x [0-9]+ per warp, nvcc emits LDSM\.16\.MT88\.4 x 4 \(in a SASS loop\): set "num": 4, "trans": true$' -- \
  "$cli" check "$tmp/no_trans.json" --cu "$dir/mma_gemm.cu" --kernel "$k1"
sed 's/"num": 4, "trans": true,/"num": 2, "trans": true,/' "$dir/mma_gemm.json" >"$tmp/x2.json"
expect "check: B ldmatrix .x2 flagged, with the fix" 1 \
  '\(line 100\): scenario issues ldmatrix\.x2\.trans x [0-9]+ per warp, nvcc emits LDSM\.16\.MT88\.4 x 4 \(in a SASS loop\): set "num": 4, "trans": true$' -- \
  "$cli" check "$tmp/x2.json" --cu "$dir/mma_gemm.cu" --kernel "$k1"
sed 's/"line": 90}/"line": 91}/' "$dir/mma_gemm.json" >"$tmp/line91.json"
expect "check: A ldmatrix on a line without LDSM" 1 '\(line 91\): scenario issues ldmatrix\.x4 x [0-9]+ per warp, nvcc emits no LDSM on line 91$' -- \
  "$cli" check "$tmp/line91.json" --cu "$dir/mma_gemm.cu" --kernel "$k1"
py=${PYTHON:-python3}
expect "predictor: 32 LDSM lines a block k tile, 16 .trans" 0 '^32 16$' -- bash -c \
  "'$py' '$src/scripts/mma_gemm_predict.py' --cli '$cli' --jsonl-only --param SWZ=0 | awk '{n++} /\"trans\": true/ {t++} END {print n, t}'"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
