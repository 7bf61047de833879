#!/usr/bin/env bash
# font_scale.sh: fonts follow the window size (issue 12): 16 px body text up to 1920x1080, twice
# that at 3840x2160 (where 16 px is as small as 8 px on a 1080p projector). The bank view's header
# row is one body line plus 6 px (app/panels/bank_view.cpp): 16 + 6 = 22 px at 1920x1080, 32 + 6 =
# 38 px at 3840x2160. Exit 77 (skipped) without Xvfb.
set -u
app=$1
command -v Xvfb >/dev/null || { echo "Xvfb not found: skipped"; exit 77; }
xvfb="$(cd "$(dirname "$0")/../.." && pwd)/scripts/on_xvfb.sh"
export LIBGL_ALWAYS_SOFTWARE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header_h() {
  timeout 120 "$xvfb" "$1" "$app" --size "$1" --screenshot "$tmp/s.png" \
    --dump-rects "$tmp/r.txt" >/dev/null || return 1
  awk '$1 == "A.bank_header" { printf "%.0f\n", $5 - $3 }' "$tmp/r.txt"
}
hd=$(header_h 1920x1080) uhd=$(header_h 3840x2160)
echo "A.bank_header height: $hd px at 1920x1080 (expected 22), $uhd px at 3840x2160 (expected 38)"
[[ $hd == 22 && $uhd == 38 ]]
