#!/usr/bin/env bash
# layout_check.sh: "a layout that holds" (issue 12). Runs `bankscope --layout-check` at one window
# size, normal or --large, single or compare, and fails when the app reports clipped, overflowing
# or overlapping text (app/layout_check.hpp says what is checked). Exit 77 (skipped) without
# Xvfb. Usage: layout_check.sh BANKSCOPE SOURCE_DIR WxH normal|large single|compare|pair [args...]
# (pair: the scenarios or trace the args name)
set -u
app=$1 src=$2 size=$3 font=$4 mode=$5
shift 5
command -v Xvfb >/dev/null || { echo "Xvfb not found: skipped"; exit 77; }
xvfb="$(cd "$(dirname "$0")/../.." && pwd)/scripts/on_xvfb.sh"
export LIBGL_ALWAYS_SOFTWARE=1
args=(--size "$size" --layout-check)
[[ $font == large ]] && args+=(--large)
# The default start is compare mode on the seed pair; single mode shows the seed's tile[32][32].
[[ $mode == single ]] && args+=(--scenario "$src/assets/scenarios/seed_transpose_32x32.json")
cd "$src" || exit 1
timeout 170 "$xvfb" "$size" "$app" "${args[@]}" "$@"
