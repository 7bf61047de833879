#!/usr/bin/env bash
# sanitize.sh: the CPU code and its tests under AddressSanitizer + UndefinedBehaviorSanitizer.
# Configures CMakePresets.json's `dev` preset (Debug, ASan + UBSan, -Werror, CUDA off) without the
# visualizer into build-asan, builds it, and runs ctest there. Any sanitizer report fails the run
# (halt_on_error; leaks are reported too).
#   ./scripts/sanitize.sh [extra ctest arguments, e.g. -R sim_tests]
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-asan
cmake --preset dev -B "$build" -DBANKSCOPE_BUILD_APP=OFF >/dev/null
cmake --build "$build" -j2

export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j2 "$@"
