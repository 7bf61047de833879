#!/usr/bin/env bash
# survive.sh: the visualizer survives extremes (issue 7): tiny windows, the smallest and largest
# strides, strides the array cannot hold, a scenario file that fails to load. Each run must exit 0
# and write its screenshot; bad edits show their error in the window and keep the last picture.
# Usage: survive.sh BANKSCOPE SOURCE_DIR. Exit 77 (skipped) without xvfb-run.
set -u
app=$1
src=$2
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: skipped"; exit 77; }
export LIBGL_ALWAYS_SOFTWARE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"block": [32], "arrays": [{"dims": [32, 32]}], "accesses": [{"op": "ld", "target": "tile[threadIdx.q][0]"}]}' >"$tmp/bad.json"
cat >"$tmp/steps.txt" <<STEPS
stride 1
frames 2
stride 1816
step
frames 2
stride 100000
frames 2
stride 128
play
frames 3
type float4
stride 1
frames 2
screenshot $tmp/script.png
STEPS
passed=0
failed=0
run() {
  local name=$1
  shift
  if timeout 120 xvfb-run -a "$app" "$@" >"$tmp/out.txt" 2>&1 && [[ -s "$tmp/shot.png" || -s "$tmp/script.png" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name"
    sed 's/^/    /' "$tmp/out.txt" | tail -5
  fi
  rm -f "$tmp/shot.png" "$tmp/script.png"
}
run "16x16 window" --size 16x16 --screenshot "$tmp/shot.png"
run "40x30 window, stride 33" --size 40x30 --stride 33 --screenshot "$tmp/shot.png"
run "a window 20 pixels high" --size 3000x20 --stride 1816 --compare off --screenshot "$tmp/shot.png"
run "tall narrow, float4" --size 16x400 --scenario "$src/assets/scenarios/tiled_float4_32x32.json" --screenshot "$tmp/shot.png"
run "lecture mode at 200x200" --size 200x200 --large --contrast --screenshot "$tmp/shot.png"
run "script of extremes at 320x240" --size 320x240 --script "$tmp/steps.txt"
run "script of extremes at 1920x1080" --size 1920x1080 --script "$tmp/steps.txt"
# A script step that fails stops the script with one line naming the file and line, exit 1.
printf 'stride 40\nscenario %s\nscreenshot %s\n' "$tmp/bad.json" "$tmp/never.png" >"$tmp/bad_steps.txt"
timeout 120 xvfb-run -a "$app" --script "$tmp/bad_steps.txt" >"$tmp/out.txt" 2>&1
rc=$?
if [[ $rc -eq 1 && $(wc -l <"$tmp/out.txt") -eq 1 && ! -e "$tmp/never.png" ]] &&
  grep -q "bad_steps.txt:2: .*bad.json: accesses\[0\].target: column 1: unknown variable 'threadIdx.q'" "$tmp/out.txt"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: a failing script step (exit $rc)"
  sed 's/^/    /' "$tmp/out.txt"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
