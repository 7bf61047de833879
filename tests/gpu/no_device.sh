#!/usr/bin/env bash
# no_device.sh BANKSCOPE_GPU: without a CUDA device, `bankscope-gpu info` must print one line that
# says so and exit 3 (not crash, not 0). Where a device exists this cannot be checked: exit 77.
exe="$1"
err=$("$exe" info 2>&1 >/dev/null); rc=$?
if [ "$rc" -eq 0 ]; then echo "SKIPPED: a CUDA device is present"; exit 77; fi
if [ "$rc" -ne 3 ]; then echo "FAIL: exit $rc, expected 3; stderr: $err"; exit 1; fi
lines=$(printf '%s\n' "$err" | grep -c .)
if [ "$lines" -ne 1 ] || ! printf '%s' "$err" | grep -q "no CUDA device available"; then
  echo "FAIL: expected one line naming the missing device, got: $err"; exit 1
fi
# The line says what the user needs (a GPU and its driver), not this workplace's tooling.
if ! printf '%s' "$err" | grep -q "NVIDIA GPU" || printf '%s' "$err" | grep -qi "device tool"; then
  echo "FAIL: the message must ask for an NVIDIA GPU and driver and not mention a 'device tool': $err"; exit 1
fi
# A bad size is a usage error (2), reported before the device is looked for.
"$exe" validate --n 0 >/dev/null 2>&1; rc=$?
if [ "$rc" -ne 2 ]; then echo "FAIL: validate --n 0 exited $rc, expected 2"; exit 1; fi
echo "ok: $err"
