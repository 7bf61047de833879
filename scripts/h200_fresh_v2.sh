#!/usr/bin/env bash
# h200_fresh_v2.sh: measures the fresh batch of issue 11 (tests/conformance/fresh_v2.jsonl: atomics,
# cp.async.ca, ldmatrix, stmatrix), whose predictions (fresh_v2_predicted.jsonl) were committed
# before this run. One single-warp launch per pattern, CUPTI range profiler.
#   device tool:  run  command="bash scripts/h200_round2_all.sh fresh_v2"  carry=[".devdeps"]
# Writes $OUT/fresh_v2_measured.jsonl and $OUT/log.txt. Never changes clocks or GPU settings.
source "$(dirname "$0")/h200_common.sh"
h200_build OFF bankscope-gpu
BIN="$BUILD/bin/bankscope-gpu"
step "fresh batch v2: measure"
timeout 200 "$BIN" patterns --jsonl tests/conformance/fresh_v2.jsonl --out "$OUT/fresh_v2_measured.jsonl"
echo "patterns exit: $?"
step "fresh batch v2: predicted (committed) vs measured"
python3 - "$OUT/fresh_v2_measured.jsonl" tests/conformance/fresh_v2_predicted.jsonl <<'PY'
import json, sys
meas = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pred = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
ok = bad = 0
for m, p in zip(meas, pred):
    if "measured_wavefronts" not in m:
        print("not measured:", m.get("id"), m.get("measured_error")); bad += 1; continue
    same = (m["measured_wavefronts"], m["measured_bank_conflicts"]) == (p["wavefronts"], p["bank_conflicts"])
    ok += same; bad += not same
    if not same:
        print(f'{m.get("id")}: predicted {p["wavefronts"]}/{p["bank_conflicts"]}, measured {m["measured_wavefronts"]}/{m["measured_bank_conflicts"]}')
print(f"fresh_v2: {ok} of {len(pred)} predictions equal the H200 on both counters ({bad} not)")
PY
