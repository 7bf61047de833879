#!/usr/bin/env bash
# on_xvfb_check.sh: scripts/on_xvfb.sh, which every app test runs the app through, gives back the
# command's own exit status, stdout and stderr, nothing of its own; refuses a bad size with one line;
# and gives each of 16 started at once (as ctest -j starts them) a display of its own. Run through
# `xvfb-run -a` in its place, this check failed (two runs shared one display, three exited 1; in a
# later run only the bad size's line was wrong), and CI once saw xvfb-run's clean-up error (exit 5)
# in place of the app's. Exit 77 (skipped) without Xvfb.
set -u
command -v Xvfb >/dev/null || { echo "Xvfb not found: skipped"; exit 77; }
xvfb="$(cd "$(dirname "$0")/../.." && pwd)/scripts/on_xvfb.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok=1
fail() { echo "FAIL: $*"; ok=0; }

"$xvfb" 320x200 sh -c 'echo "out $DISPLAY"; echo err >&2; exit 3' >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc == 3 ]] || fail "exit status $rc, expected the command's 3"
grep -Eqx 'out :[0-9]+' "$tmp/out" && [[ $(wc -l <"$tmp/out") == 1 ]] || fail "stdout: $(cat "$tmp/out")"
[[ $(cat "$tmp/err") == err ]] || fail "stderr: $(cat "$tmp/err")"

"$xvfb" 320 true 2>"$tmp/err"
rc=$?
[[ $rc == 125 && $(cat "$tmp/err") == "on_xvfb.sh: usage: on_xvfb.sh WxH COMMAND [ARGS...]" ]] ||
  fail "bad size: exit $rc, stderr $(cat "$tmp/err")"

for round in 1 2 3; do
  mkdir "$tmp/up.$round"
  for i in $(seq 16); do
    # Each command marks itself up, then waits (up to 30 s) until all 16 are, so that all 16 hold
    # their displays at once: a display freed by a finished run may be taken again legitimately.
    "$xvfb" 320x200 sh -c 'touch "$0/$1"; n=0
      while [ "$(ls "$0" | wc -l)" -lt 16 ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
      echo "$DISPLAY"' "$tmp/up.$round" "$i" >"$tmp/p.$round.$i" 2>&1 &
    pids[i]=$!
  done
  for i in $(seq 16); do
    wait "${pids[i]}" || fail "round $round run $i: exit $?: $(cat "$tmp/p.$round.$i")"
    # The command's output and nothing else: one line, its display.
    [[ $(cat "$tmp/p.$round.$i") =~ ^:[0-9]+$ ]] || fail "round $round run $i printed: $(cat "$tmp/p.$round.$i")"
  done
  # Each of the 16 held its own display while they ran.
  [[ $(cat "$tmp"/p.$round.* | sort -u | grep -Ecx ':[0-9]+') == 16 ]] ||
    fail "round $round: displays $(cat "$tmp"/p.$round.* | tr '\n' ' ')"
done
[[ $ok == 1 ]] && echo "on_xvfb.sh: status and streams passed through, bad size refused, 48 runs at 16 at once"
[[ $ok == 1 ]]
