#!/usr/bin/env bash
# survive.sh: the visualizer survives extremes (issue 7): tiny windows, the smallest and largest
# strides, strides the array cannot hold, a scenario file that fails to load. Each run must exit 0
# and write its screenshot; bad edits show their error in the window and keep the last picture.
# Usage: survive.sh BANKSCOPE SOURCE_DIR. Exit 77 (skipped) without Xvfb.
set -u
app=$1
src=$2
command -v Xvfb >/dev/null || { echo "Xvfb not found: skipped"; exit 77; }
xvfb="$(cd "$(dirname "$0")/../.." && pwd)/scripts/on_xvfb.sh"
export LIBGL_ALWAYS_SOFTWARE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.q][0]"}]}' >"$tmp/bad.json"
# The extremes a script can reach: the smallest and largest strides the 32x32 float tile holds
# (32; 1816: 32 x 1816 x 4 B fits the 227 KiB a block may have). Strides it cannot hold are
# script errors (issue 12), checked below.
cat >"$tmp/steps.txt" <<STEPS
stride 32
frames 2
stride 1816
step
frames 2
stride 128
play
frames 3
type float4
frames 2
screenshot $tmp/script.png
STEPS
passed=0
failed=0
# Colours (app/panels/panels.hpp, palette.cpp): 1C1C21 the window background, E69F00 orange
# (pane titles, the wavefront being served), D55E00 vermillion (conflict counts, error lines).
# Counts are about half of what a good build draws, so font hinting does not matter.
check="python3 $src/tests/app/png_check.py"
# run NAME WxH MIN_COLOURS RRGGBB MIN_PIXELS -- app arguments...
run() {
  local name=$1 size=$2 colours=$3 rgb=$4 pixels=$5
  shift 6
  local shot=$tmp/shot.png
  [[ " $* " == *" --script "* ]] && shot=$tmp/script.png
  if timeout 120 "$xvfb" 1920x1080 "$app" --size "$size" "$@" >"$tmp/out.txt" 2>&1 &&
    $check "$shot" "${size%x*}" "${size#*x}" "$colours" "$rgb" "$pixels" >>"$tmp/out.txt" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
    sed 's/^/    /' "$tmp/out.txt" | tail -5
  fi
  rm -f "$tmp/shot.png" "$tmp/script.png"
}
# The two smallest windows show only the background (ImGui draws no widget in them): all of their
# pixels must be it (an undrawn frame reads black).
run "16x16 window" 16x16 1 1C1C21 256 -- --screenshot "$tmp/shot.png"
run "40x30 window, stride 33" 40x30 1 1C1C21 1200 -- --stride 33 --screenshot "$tmp/shot.png"
run "a window 20 pixels high" 3000x20 100 E69F00 24 -- --stride 1816 --compare off --screenshot "$tmp/shot.png"
run "tall narrow, float4" 16x400 3 1C1C21 2400 -- --scenario "$src/assets/scenarios/tiled_float4_32x32.json" --screenshot "$tmp/shot.png"
run "lecture mode at 200x200" 200x200 300 E69F00 600 -- --large --contrast --screenshot "$tmp/shot.png"
run "script of extremes at 320x240" 320x240 500 E69F00 250 -- --script "$tmp/steps.txt"
# At full size float4 at stride 128 shows its conflict counts and hatching in vermillion.
run "script of extremes at 1920x1080" 1920x1080 1200 D55E00 500 -- --script "$tmp/steps.txt"
# A script step that fails stops the script with one line naming the file and line, exit 1.
printf 'stride 40\nscenario %s\nscreenshot %s\n' "$tmp/bad.json" "$tmp/never.png" >"$tmp/bad_steps.txt"
timeout 120 "$xvfb" 1920x1080 "$app" --script "$tmp/bad_steps.txt" >"$tmp/out.txt" 2>&1
rc=$?
if [[ $rc -eq 1 && $(wc -l <"$tmp/out.txt") -eq 1 && ! -e "$tmp/never.png" ]] &&
  grep -q "bad_steps.txt:2: .*bad.json: accesses\[0\].target: column 1: unknown variable 'threadIdx.q'" "$tmp/out.txt"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: a failing script step (exit $rc)"
  sed 's/^/    /' "$tmp/out.txt"
fi
# A stride the tile cannot hold (below its 32 columns, or past shared memory) stops a script:
# one line naming the file, line and field, exit 1 (issue 12).
for stride in 1 100000; do
  printf 'stride %s\nscreenshot %s\n' "$stride" "$tmp/never.png" >"$tmp/bad_stride.txt"
  timeout 120 "$xvfb" 1920x1080 "$app" --script "$tmp/bad_stride.txt" >"$tmp/out.txt" 2>&1
  rc=$?
  if [[ $rc -eq 1 && $(wc -l <"$tmp/out.txt") -eq 1 && ! -e "$tmp/never.png" ]] &&
    grep -q "bad_stride.txt:1: arrays\[0\]" "$tmp/out.txt"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: script step 'stride $stride' (exit $rc)"
    sed 's/^/    /' "$tmp/out.txt"
  fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
