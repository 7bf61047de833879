#!/usr/bin/env bash
# h200_validate.sh: the whole GPU validation in one command, for one call of the device tool on the
# H200 (or any CUDA machine). Builds bankscope-gpu (sm_90), runs the GPU tests, validates every
# scenario at N = 32 (one block), 2048, 8192, 16384 against the model (CUPTI counters in process,
# ncu for the instruction-level SASS metric, CUDA-event timings beside cudaMemcpy D2D), measures
# tests/conformance/patterns.jsonl if present, and dumps the LDS/STS instructions of every kernel.
#
#   device tool:  run  command="bash scripts/h200_validate.sh"  carry=[".devdeps"]
#   elsewhere:    OUT=out/h200 bash scripts/h200_validate.sh
#
# Writes at most 8 files to $OUT (the device tool brings back $OUT): log.txt, ctest.txt,
# validate.txt, validate.json, validate_ncu.json, ncu_validate.csv, patterns_measured.jsonl,
# sass_lds_sts.txt.
# Never changes clocks or GPU settings (ncu runs with --clock-control none).
source "$(dirname "$0")/h200_common.sh"
h200_build ON bankscope-gpu gpu_host_tests gpu_device_tests
command -v ncu cuobjdump || true
BIN="$BUILD/bin/bankscope-gpu"

step "gpu tests"
ctest --test-dir "$BUILD" -R '^gpu_' --output-on-failure 2>&1 | tee "$OUT/ctest.txt"

step "device"
"$BIN" info

step "validate"
scenarios=()
for f in assets/scenarios/*.json; do scenarios+=(--scenario "$f"); done
timeout 420 "$BIN" validate "${scenarios[@]}" --stride 32,34,36,40,48 --n 32,2048,8192,16384 --runs 30 --ncu auto \
  --json "$OUT/validate.json" | tee "$OUT/validate.txt"
echo "validate exit: $?"

step "cross-check: every counter from ncu (the fallback path), the lesson's kernels"
cross=()
for f in seed_transpose_32x32 seed_transpose_32x33 tiled_32x8_32x32 tiled_32x8_32x33 tiled_32x8_xor; do
  cross+=(--scenario "assets/scenarios/$f.json")
done
timeout 240 "$BIN" validate "${cross[@]}" --n 32,2048,16384 --runs 10 --counters ncu \
  --json "$OUT/validate_ncu.json" --ncu-log "$OUT/ncu_validate.csv"
echo "validate --counters ncu exit: $?"

if [ -f tests/conformance/patterns.jsonl ]; then
  step "patterns ($(wc -l < tests/conformance/patterns.jsonl) lines)"
  timeout 240 "$BIN" patterns --jsonl tests/conformance/patterns.jsonl --clock64 --out "$OUT/patterns_measured.jsonl"
  echo "patterns exit: $?"
  python3 - "$OUT/patterns_measured.jsonl" <<'PY' || true
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
m = [r for r in rows if "measured_wavefronts" in r]
same = sum(r["measured_wavefronts"] == r["wavefronts"] for r in m)
clk = [r for r in rows if "clock64_cycles_per_instruction" in r and "measured_wavefronts" in r]
near = sum(abs(r["clock64_cycles_per_instruction"] - r["measured_wavefronts"]) <= 0.05 * max(1, r["measured_wavefronts"]) for r in clk)
ratio = sorted(r["clock64_cycles_per_instruction"] / r["measured_wavefronts"] for r in clk if r["measured_wavefronts"])
if ratio: print(f"clock64 cycles per wavefront: median {ratio[len(ratio)//2]:.3f}, min {ratio[0]:.3f}, max {ratio[-1]:.3f}")
print(f"patterns: {len(rows)} rows, {len(m)} with counters, model == hardware wavefronts for {same}")
print(f"clock64: cycles/instruction within 5% of measured wavefronts for {near} of {len(clk)}")
for r in [r for r in m if r["measured_wavefronts"] != r["wavefronts"]][:15]:
    print("  differs:", r.get("id", "?"), "width", r["width"], r["op"], "model", r["wavefronts"], "hw", r["measured_wavefronts"])
PY
fi

step "SASS: shared-memory instructions per kernel"
cuobjdump -sass "$BIN" | grep -E "Function :|LDS|STS" | sed -E 's/ +\/\*[^*]*\*\/ *$//' > "$OUT/sass_lds_sts.txt" || true
grep -c -E "LDS|STS" "$OUT/sass_lds_sts.txt" || true

step "done"
ls -la "$OUT"
