#!/usr/bin/env bash
# run.sh: the main job. Installs what is missing, builds, and opens the visualizer on the seed
# lesson (tile[32][32] vs tile[32][33] in compare mode). With no display it prints the headless
# comparison of the same pair instead. Arguments are passed to the visualizer.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
scripts/build.sh >/dev/null

if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x build/bin/bankscope ]]; then
  exec build/bin/bankscope "$@"
fi
if [[ ! -x build/bin/bankscope ]]; then
  echo "run.sh: the visualizer was not built (see the CMake output); showing the headless comparison."
else
  echo "run.sh: no display (DISPLAY is unset); showing the headless comparison."
  echo "        With a display, this opens the visualizer. Screenshots without one:"
  echo "        xvfb-run -a build/bin/bankscope --screenshot out.png"
fi
echo
build/bin/bankscope-cli compare assets/scenarios/seed_transpose_32x32.json assets/scenarios/seed_transpose_32x33.json
echo
build/bin/bankscope-cli explain assets/scenarios/seed_transpose_32x32.json --access 1 | tail -n 37
