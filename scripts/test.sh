#!/usr/bin/env bash
# test.sh: installs what is missing, builds, and runs every test:
#   1. the release build: unit, CLI, app (real windows under Xvfb), conformance and GPU tests
#      (GPU tests report SKIPPED without a device);
#   2. the CPU code and its tests again under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the libFuzzer targets: short seeded runs and every saved crash input (clang).
#   (after 1: the Python package, pytest and its example notebook: scripts/python_tests.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j2
echo
echo "== Python package: pytest and the example notebook (scripts/python_tests.sh)"
scripts/python_tests.sh
echo
echo "== AddressSanitizer + UndefinedBehaviorSanitizer (scripts/sanitize.sh)"
scripts/sanitize.sh
echo
echo "== fuzzing (scripts/fuzz.sh)"
scripts/fuzz.sh
