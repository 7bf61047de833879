#!/usr/bin/env bash
# timing_fit.sh: the timing model's fit and its held-out predictions, both without a GPU.
#   scripts/timing_fit.sh fit       fit the three constants on the N = 8192 rows of the calibration
#                                   run -> assets/results/h200/timing_fit.{txt,json}
#   scripts/timing_fit.sh predict   predict every bench kernel the model describes at N = 6144 and
#                                   12288 -> assets/results/h200/timing_heldout_predicted.{json,txt}
# Registers and shared bytes: the build's cuobjdump resource-usage file, copied first to
# assets/results/h200/bench_resource_usage.txt (committed beside the fit and the predictions, so
# they can be redone where cuobjdump is missing). BIN=path/to/bankscope-gpu (default build/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin/bankscope-gpu}
BUILD_DIR=$(dirname "$(dirname "$BIN")")
R=assets/results/h200
USAGE=$R/bench_resource_usage.txt
if [ -f "$BUILD_DIR/kernels/bench_resource_usage.txt" ]; then
  cp "$BUILD_DIR/kernels/bench_resource_usage.txt" "$USAGE"
else
  echo "timing_fit.sh: no generated resource-usage file in $BUILD_DIR: using the committed $USAGE" >&2
fi
case "${1:-}" in
  fit)
    "$BIN" timing-fit --bench $R/bench.json --n 8192 --resources "$USAGE" \
      --out $R/timing_fit.txt --json $R/timing_fit.json ;;
  predict)
    "$BIN" timing-predict --n 6144,12288 --fit $R/timing_fit.json --calibration $R/bench.json \
      --resources "$USAGE" --out $R/timing_heldout_predicted.json ;;
  *)
    echo "usage: scripts/timing_fit.sh fit|predict" >&2
    exit 2 ;;
esac
