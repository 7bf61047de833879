#!/usr/bin/env bash
# screenshots_lecture.sh: the lecture-mode screenshots of issue 12 (1280x720, --large,
# compare mode, mid-animation): assets/screenshots/lecture_<pair>_1280x720.png. Each is also run
# through --layout-check (clipped, overflowing or overlapping text fails the script).
# Usage: scripts/screenshots_lecture.sh [BUILD_DIR]   (default: build). Needs Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
app=${1:-build}/bin/bankscope
[[ -x $app ]] || { echo "screenshots_lecture.sh: $app not found (build the bankscope target)" >&2; exit 1; }
command -v Xvfb >/dev/null || { echo "screenshots_lecture.sh: Xvfb not found" >&2; exit 1; }
export LIBGL_ALWAYS_SOFTWARE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=assets/scenarios
out=assets/screenshots
# name, A, B. Cycle 12 of A's 32 wavefronts: A's column read is mid-serialization (13 of 32 served
# or serving), while B (1 or 2 wavefronts) is done.
pairs=(
  "seed seed_transpose_32x32 seed_transpose_32x33"
  "32x8 tiled_32x8_32x32 tiled_32x8_32x33"
  "swizzle tiled_32x8_32x32 tiled_32x8_swizzle"
  "double tiled_32x8_double_32x32 tiled_32x8_double_32x33"
  # Issue 11: ldmatrix.x4 of a 64x64 half tile, 128-byte rows (32 wavefronts: cycle 12 serves row 4
  # of matrix 1) vs the 128-byte swizzle (4 wavefronts, done).
  "ldmatrix ldmatrix_64x64_half ldmatrix_64x64_half_swizzled"
)
for p in "${pairs[@]}"; do
  read -r name a b <<<"$p"
  args=(--size 1280x720 --large --scenario "$s/$a.json" --scenario-b "$s/$b.json")
  printf 'cycle 12\nframes 3\nscreenshot %s\n' "$out/lecture_${name}_1280x720.png" >"$tmp/$name.txt"
  timeout 120 scripts/on_xvfb.sh 1280x720 "$app" "${args[@]}" --script "$tmp/$name.txt"
  timeout 120 scripts/on_xvfb.sh 1280x720 "$app" "${args[@]}" --layout-check
done
