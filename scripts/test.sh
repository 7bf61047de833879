#!/usr/bin/env bash
# test.sh: installs what is missing, builds, and runs every test (ctest: unit, CLI, app under Xvfb,
# conformance; GPU tests report SKIPPED without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j2
