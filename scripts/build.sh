#!/usr/bin/env bash
# build.sh: configures and builds bankscope into build/ (binaries in build/bin/). Used by run.sh and
# test.sh after setup.sh. Extra arguments go to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_GLAD_PYTHON="$PWD/.venv/bin/python3" "$@"
cmake --build build -j"$(nproc)"
