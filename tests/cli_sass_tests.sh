#!/usr/bin/env bash
# cli_sass_tests.sh: `bankscope-cli sass` and `check --cu` on the kernels of tests/data/sass/,
# compiled by nvcc here (no GPU). Needs nvcc and nvdisasm; without them it says so and exits 77,
# which ctest reports as skipped (never as passed).
# Usage: cli_sass_tests.sh CLI SOURCE_DIR
set -u
cli=$1
src=$2
data=$src/tests/data/sass
k=$data/kernels.cu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

source "$(dirname "${BASH_SOURCE[0]}")/cli_cuda_tools.sh"
require_cuda_tools "sass/check need"

source "$(dirname "${BASH_SOURCE[0]}")/cli_expect.sh"  # expect NAME EXIT_CODE REGEX -- command...

# sass: per source line, what nvcc 13.0 emits for sm_90 (measured here): the As row read of line
# 22 becomes 8 LDS.128 (32 floats, 16 bytes each), the Bs column read of line 23 stays 32 LDS.
expect "sass: the As row read is 8 x LDS.128" 0 '^  line 22 +LDS\.128 +x8 +16 B  branch, in a SASS loop  \| const float a = As\[ty\]\[k\];$' -- \
  "$cli" sass "$k" --kernel sgemm_tile
expect "sass: the Bs column read is 32 x LDS" 0 '^  line 23 +LDS +x32 +4 B  branch, in a SASS loop  \| const float b = Bs\[k\]\[tx\];$' -- \
  "$cli" sass "$k" --kernel sgemm_tile
expect "sass: 42 instructions (2 STS + 8 + 32)" 0 '^  42 shared-memory instructions in the SASS \(static count\)$' -- \
  "$cli" sass "$k" --kernel sgemm_tile
expect "sass: kernel names demangled" 0 '^kernel guarded_reverse\(float const\*, float\*, int\)$' -- \
  "$cli" sass "$k"
expect "sass: --kernel selects one" 0 '^kernel sgemm_tile $' -- \
  bash -c "'$cli' sass '$k' --kernel sgemm_tile | grep '^kernel ' | sed 's/(.*//' | tr '\\n' ' '"
expect "sass: NVCC_ARGS after --" 0 '^  line 22 +LDS +x32 +4 B' -- \
  "$cli" sass "$k" --kernel sgemm_tile -- -Xptxas -O0

# check: the literal transcription (4-byte As loads, one per k) is flagged on line 22; the one
# that says what the SASS does (width 16, step 4: 8 instructions) passes.
expect "check: literal transcription flagged" 1 '^accesses\[2\] \(line 22\): scenario reads 4 bytes x 32 per warp, nvcc emits LDS\.128 x 8 \(in a SASS loop\): set width 16 and step 4$' -- \
  "$cli" check "$data/sgemm_tile_literal.json" --cu "$k" --kernel sgemm_tile
expect "check: literal transcription, one disagreement" 1 '^1 disagreement\(s\) with nvcc$' -- \
  "$cli" check "$data/sgemm_tile_literal.json" --cu "$k" --kernel sgemm_tile
expect "check: SASS-matching scenario agrees" 0 '^every access agrees with nvcc$' -- \
  "$cli" check "$data/sgemm_tile_sass.json" --cu "$k" --kernel sgemm_tile
expect "check: guarded accesses branched around, as the scenario says" 0 '^every access agrees with nvcc$' -- \
  "$cli" check "$data/guarded_reverse.json" --cu "$k" --kernel guarded_reverse
sed 's/"issue": "branch", "line": 36/"issue": "predicated", "line": 36/' "$data/guarded_reverse.json" >"$tmp/pred.json"
expect "check: wrong issue mode flagged" 1 '^accesses\[0\] \(line 36\): scenario says issue "predicated", nvcc branches around its STS: set "issue": "branch"$' -- \
  "$cli" check "$tmp/pred.json" --cu "$k" --kernel guarded_reverse
sed 's/"line": 38/"line": 37/' "$data/guarded_reverse.json" >"$tmp/noline.json"
expect "check: no instruction on the line" 1 '^accesses\[1\] \(line 37\): scenario reads 4 bytes x 1 per warp, nvcc emits no LDS on line 37$' -- \
  "$cli" check "$tmp/noline.json" --cu "$k" --kernel guarded_reverse
sed 's/"width": 16, //; s/"step": 4/"step": 2/' "$data/sgemm_tile_sass.json" >"$tmp/count.json"
expect "check: right width, wrong count" 1 '^accesses\[2\] \(line 22\): scenario reads 4 bytes x 16 per warp, nvcc emits LDS\.128 x 8 \(in a SASS loop\)$' -- \
  "$cli" check "$tmp/count.json" --cu "$k" --kernel sgemm_tile

# Bad input: one line naming what and where, exit 1.
expect "sass: missing file" 1 '^bankscope-cli: nope\.cu: cannot open$' -- "$cli" sass nope.cu
printf '__global__ void k(float* p) {\n  p[0] = undefined_thing;\n}\n' >"$tmp/bad.cu"
expect "sass: compile error names the file and nvcc's first error" 1 "^bankscope-cli: $tmp/bad\.cu: nvcc failed: .*bad\.cu\(2\): error: identifier \"undefined_thing\" is undefined$" -- \
  "$cli" sass "$tmp/bad.cu"
expect "sass: unknown --kernel lists the kernels" 1 "^bankscope-cli: $k: no kernel 'nope' \(it has: guarded_reverse\(float const\*, float\*, int\), sgemm_tile\(float const\*, float const\*, float\*, int\)\)$" -- \
  "$cli" sass "$k" --kernel nope
expect "sass: no nvcc" 1 '^bankscope-cli: nvcc not found \(looked at \$BANKSCOPE_NVCC, PATH, /usr/local/cuda/bin, \.venv\)' -- \
  env BANKSCOPE_NVCC=/nonexistent/nvcc "$cli" sass "$k"
expect "check: two kernels need --kernel" 1 '^bankscope-cli: .*kernels\.cu: several kernels have shared accesses; choose one with --kernel$' -- \
  "$cli" check "$data/sgemm_tile_sass.json" --cu "$k"
expect "check: a scenario without lines" 1 '^bankscope-cli: .*seed_transpose_32x32\.json: no access has a "line"; nothing to check$' -- \
  "$cli" check "$src/assets/scenarios/seed_transpose_32x32.json" --cu "$k" --kernel guarded_reverse

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
