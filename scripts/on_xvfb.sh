#!/usr/bin/env bash
# on_xvfb.sh: runs one command on a fresh Xvfb screen and exits with that command's own status.
# Usage: scripts/on_xvfb.sh WxH COMMAND [ARGS...]
#
# The tests run many of these at once (ctest -j). `xvfb-run -a` races there: two runs can pick the
# same display number, and its clean-up can fail after the command has finished ("problem while
# cleaning up temporary directory", exit 5, a line mixed into the command's own stderr). Here Xvfb
# picks a free display itself (-displayfd), the command's stdout and stderr are its own, and only a
# server that never came up is this script's error (exit 125, one line on stderr).
set -u
if [[ $# -lt 2 || ! $1 =~ ^[0-9]+x[0-9]+$ ]]; then
  echo "on_xvfb.sh: usage: on_xvfb.sh WxH COMMAND [ARGS...]" >&2
  exit 125
fi
size=$1
shift
command -v Xvfb >/dev/null || { echo "on_xvfb.sh: Xvfb not found (apt-get install xvfb)" >&2; exit 125; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/on_xvfb.XXXXXX") || exit 125
xvfb_pid=
finish() {
  [[ -n $xvfb_pid ]] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
  rm -rf "$dir"
}
trap finish EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# No -auth: any local user may connect to this display while it runs (xvfb-run sets a cookie); it
# lives as long as one test's command, on a test machine.
# Xvfb writes the display number it took, then a newline, to fd 3 once it accepts connections. The
# file exists before the loop reads it (the background job opens its fd 3 only after the fork).
: >"$dir/display"
Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp 3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 300); do
  [[ $(wc -l <"$dir/display") -ge 1 ]] && break
  kill -0 "$xvfb_pid" 2>/dev/null || break
  sleep 0.05
done
display=$(head -n 1 "$dir/display")
if [[ ! $display =~ ^[0-9]+$ ]]; then
  echo "on_xvfb.sh: Xvfb did not start: $(tail -n 1 "$dir/xvfb.log")" >&2
  exit 125
fi
DISPLAY=":$display" "$@"
