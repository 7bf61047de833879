#!/usr/bin/env bash
# make_devdeps.sh: copies the header-only dependencies (nlohmann-json, CLI11, doctest) from this
# machine's Debian packages into .devdeps/include (git-ignored), for the GPU machine reached through
# the device tool, which has no package registry. The root CMakeLists.txt uses them from there
# when find_package fails. Device calls then carry ".devdeps".
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .devdeps/include
cp -r /usr/include/nlohmann /usr/include/CLI /usr/include/doctest .devdeps/include/
du -sh .devdeps
