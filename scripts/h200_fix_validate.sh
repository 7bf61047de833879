#!/usr/bin/env bash
# h200_fix_validate.sh: confirm on the H200 the layouts `bankscope-cli fix` chooses (issue 13, item 3,
# second "done when"). For each unpadded tile whose scenario names a bankscope-gpu kernel (seed
# [32][32], 32x8 [32][32], double and float4 [32][32]), `fix --write` saves the scenario with the
# advisor's best layout (xor 31, xor 31, xor 15, xor 7: tests/cli_fix_tests.sh); `bankscope-gpu
# validate` then runs each (layouts other than the lesson's run k_transpose_dyn with the layout as a
# run-time value: kernels/kernels.cu) and compares the per-launch counters with the prediction.
# The unswizzled fast_f4 tile's choice, xor 28, is the permutation of Swizzle<3,2,6>: the kernel
# fast_f4_64x64_t256 (bench kernels), whose counters `bankscope-gpu bench` measures; no validate
# kernel exists for it.
#
#   device tool:  run  command="bash scripts/h200_fix_validate.sh"  carry=[".devdeps"]
#   elsewhere:    OUT=out/h200 bash scripts/h200_fix_validate.sh
#
# Writes to $OUT: log.txt, fixed/*.json (the written scenarios), fix.txt (the fix tables),
# fix_validate.txt and fix_validate.json. Never changes clocks or GPU settings.
source "$(dirname "$0")/h200_common.sh"
h200_build OFF bankscope-cli bankscope-gpu
CLI="$BUILD/bin/bankscope-cli"
GPU="$BUILD/bin/bankscope-gpu"

step "fix: the advisor's best layout of each unpadded tile"
# The validated files are the committed assets/scenarios/fixed/*.json: what `fix --write` writes,
# with each access's `issue` read from the SASS of the kernel that runs the layout (k_transpose_dyn:
# tests/gpu/test_sass.cpp checks them against assets/results/h200/sass_lds_sts.txt). Here the
# advisor runs again and its layouts must equal the committed ones.
mkdir -p "$OUT/fixed"
scenarios=()
for f in seed_transpose_32x32 tiled_32x8_32x32 tiled_32x8_double_32x32 tiled_float4_32x32; do
  "$CLI" fix "assets/scenarios/$f.json" --top 3 --write "$OUT/fixed/${f}_fixed.json" | tee -a "$OUT/fix.txt" || exit 1
  python3 - "$OUT/fixed/${f}_fixed.json" "assets/scenarios/fixed/${f}_fixed.json" <<'PY' | tee -a "$OUT/fix.txt"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print(sys.argv[2] + ": arrays " + ("equal to the advisor's" if a["arrays"] == b["arrays"] else "DIFFER from the advisor's"))
PY
  scenarios+=(--scenario "assets/scenarios/fixed/${f}_fixed.json")
done

step "validate the fixed layouts (sizes that are and are not multiples of the tile)"
timeout 400 "$GPU" validate "${scenarios[@]}" --n 32,33,100,2047,2048,8192 --runs 10 --ncu auto \
  --json "$OUT/fix_validate.json" | tee "$OUT/fix_validate.txt"
echo "validate exit: $?"
