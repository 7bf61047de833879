#!/usr/bin/env bash
# fix_outputs.sh: `bankscope-cli fix --top 10` of every shipped scenario, one file each, with the
# exit status as the last line, so that two builds' advisors can be compared byte for byte (a
# speed-up of the advisor must not change a ranked table, a chosen layout or a total).
#   scripts/fix_outputs.sh CLI OUT_DIR            writes OUT_DIR/<scenario path with / as __>.txt
#   scripts/fix_outputs.sh CLI OUT_DIR REF_DIR    also diffs OUT_DIR against REF_DIR (exit 1 if any
#                                                 file differs)
# e.g. before a change:  scripts/fix_outputs.sh build-main/bin/bankscope-cli /tmp/fix_before
#      after it:         scripts/fix_outputs.sh build/bin/bankscope-cli /tmp/fix_after /tmp/fix_before
set -uo pipefail
cd "$(dirname "$0")/.."
cli=$1
out=$2
ref=${3:-}
mkdir -p "$out"
while IFS= read -r f; do
  name=${f#assets/scenarios/}
  name=${name//\//__}
  {
    "$cli" fix "$f" --top 10 2>&1
    echo "exit $?"
  } >"$out/${name%.json}.txt"
done < <(find assets/scenarios -name '*.json' | LC_ALL=C sort)
echo "wrote $(ls "$out" | wc -l) outputs to $out"
if [ -n "$ref" ]; then
  if diff -r "$ref" "$out"; then
    echo "identical: every output in $out equals $ref"
  else
    echo "DIFFERENT: see the diff above"
    exit 1
  fi
fi
