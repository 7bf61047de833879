#!/usr/bin/env bash
# presentation.sh: presentation mode (key p, --presentation) hides the sidebar (issue 12). At
# 1600x900 the sidebar is min(19 x 16 px font, 30% of 1600) = 304 px wide plus a 16 px gap, so pane
# A's bank header starts right of x = 320 with it; without it, only the pane's row labels
# ("row 000", under 100 px) sit left of the header. Exit 77 (skipped) without Xvfb.
set -u
app=$1
command -v Xvfb >/dev/null || { echo "Xvfb not found: skipped"; exit 77; }
xvfb="$(cd "$(dirname "$0")/../.." && pwd)/scripts/on_xvfb.sh"
export LIBGL_ALWAYS_SOFTWARE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
x0() { awk '$1 == "A.bank_header" { print int($2) }' "$1"; }
timeout 120 "$xvfb" 1920x1080 "$app" --size 1600x900 --screenshot "$tmp/a.png" --dump-rects "$tmp/with.txt" >/dev/null || exit 1
timeout 120 "$xvfb" 1920x1080 "$app" --size 1600x900 --presentation --screenshot "$tmp/b.png" --dump-rects "$tmp/without.txt" >/dev/null || exit 1
with=$(x0 "$tmp/with.txt") without=$(x0 "$tmp/without.txt")
echo "A.bank_header x0: $with with the sidebar, $without in presentation mode"
[[ -n $with && -n $without && $with -gt 320 && $without -lt 150 ]]
