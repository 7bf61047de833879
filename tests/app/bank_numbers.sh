#!/usr/bin/env bash
# bank_numbers.sh: lecture mode never draws the bank numbers smaller than normal mode (issue 12).
# A bank number's size is min(font, 0.72 x column width) (app/panels/bank_view.cpp), so with the
# larger font it is at least as large as long as the 32 columns are at least as wide: the bank
# header (A.bank_header, 32 columns) must be as wide with --large as without, in the same window.
# Exit 77 (skipped) without Xvfb.
set -u
app=$1
command -v Xvfb >/dev/null || { echo "Xvfb not found: skipped"; exit 77; }
xvfb="$(cd "$(dirname "$0")/../.." && pwd)/scripts/on_xvfb.sh"
export LIBGL_ALWAYS_SOFTWARE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
width() {
  timeout 120 "$xvfb" 1920x1080 "$app" --size "$1" "${@:2}" --screenshot "$tmp/s.png" \
    --dump-rects "$tmp/r.txt" >/dev/null || return 1
  awk '$1 == "A.bank_header" { printf "%.0f\n", $4 - $2 }' "$tmp/r.txt"
}
ok=1
for size in 1920x1080 1280x720; do
  normal=$(width "$size") large=$(width "$size" --large)
  echo "$size: bank header $normal px wide in normal mode, $large px with --large"
  [[ -n $normal && -n $large && $large -ge $normal ]] || ok=0
done
[[ $ok == 1 ]]
