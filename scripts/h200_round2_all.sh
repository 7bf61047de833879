#!/usr/bin/env bash
# h200_round2_all.sh: one call of the device tool for the second round's H200 measurements.
#   device tool:  run  command="bash scripts/h200_round2_all.sh"  carry=[".devdeps"]
# Runs each part's script in its own process with its own output folder, then packs each folder
# into one archive, because the device tool brings back at most 8 files:
#   $OUT/summary.txt            the last lines of every part
#   $OUT/<part>.tar.gz          everything a part wrote (log.txt first)
# Parts (each standalone; see its header): validate at edge sizes (h200_round2.sh), the bench and
# the held-out timing predictions (h200_bench_round2.sh), the tracer corpus (h200_trace.sh), the
# ldmatrix/stmatrix/atomic/ldgsts suite (h200_fid.sh). Not in the default list, named as a PART:
# ldgsts (h200_ldgsts.sh, the cp.async source-side probe). Never changes clocks or GPU settings.
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT_OUT=${OUT:-out/h200}
WORK=$(mktemp -d)
export BUILD=${BUILD:-build-h200}
parts=("$@")
((${#parts[@]})) || parts=(round2 bench_round2 trace fid)
: >"$ROOT_OUT/summary.txt"
for p in "${parts[@]}"; do
  script=scripts/h200_$p.sh
  [[ -f $script ]] || { echo "== $p: $script missing" | tee -a "$ROOT_OUT/summary.txt"; continue; }
  mkdir -p "$WORK/$p"
  start=$(date +%s)
  OUT="$WORK/$p" timeout "${PART_TIMEOUT:-420}" bash "$script" >"$WORK/$p.stdout" 2>&1
  rc=$?
  {
    echo "== $p: exit $rc after $(( $(date +%s) - start )) s"
    tail -n 40 "$WORK/$p.stdout"
  } | tee -a "$ROOT_OUT/summary.txt"
  cp "$WORK/$p.stdout" "$WORK/$p/stdout.txt"
  tar -C "$WORK" -czf "$ROOT_OUT/$p.tar.gz" "$p"
done
