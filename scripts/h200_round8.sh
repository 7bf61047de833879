#!/usr/bin/env bash
# h200_round8.sh: the H200 batch of 2026-12-01 (round 8), issue 11's cp.async rules. One call of the
# device tool, carry [".devdeps"]:
#   run  command="bash scripts/h200_round8.sh"
# 1. the fresh .ca batch (tests/conformance/ldgsts_fresh9.jsonl), whose H9 predictions were
#    committed first (ldgsts_fresh9_predicted.jsonl): scripts/h200_ldgsts.sh -> $OUT/ldgsts_fresh9.tar.gz
# 2. the .cg small-structure probe (gen_ldgsts_cg_small.py) -> $OUT/ldgsts_cg_small_v1_measured.jsonl.gz
# Never changes clocks or GPU settings.
source "$(dirname "${BASH_SOURCE[0]}")/h200_common.sh"
h200_build OFF bankscope-gpu

step "fresh .ca batch (H9 predicted before measuring)"
mkdir -p "$OUT/fresh9"
LDGSTS_BATCH=tests/conformance/ldgsts_fresh9.jsonl OUT="$OUT/fresh9" timeout 200 bash scripts/h200_ldgsts.sh \
  > "$OUT/fresh9/stdout.txt" 2>&1
echo "fresh9 exit $?"
grep -E "predicted before measuring|right on both|control:" "$OUT/fresh9/stdout.txt"
tar -C "$OUT" -czf "$OUT/ldgsts_fresh9.tar.gz" fresh9 && rm -rf "$OUT/fresh9"

step ".cg small-structure probe"
export BIN="$BUILD/bin/bankscope-gpu" SMALL_GEN=gen_ldgsts_cg_small.py DEADLINE=${CG_DEADLINE:-330}
source scripts/h200_ldgsts_small.sh
step "done"
