#!/usr/bin/env bash
# h200_round19.sh: round 19's device call (carry [".devdeps"]): scripts/h200_round18.sh's steps (a
# fresh CUB trace with --check, then `report` throughput on the host's CPU), against round 18's final
# tree (.devdeps/round18, `git archive 087cc26 -- . ':(exclude)assets'`) in place of round 17's.
# ROUNDS and SKIP_TRACE as there. Never changes clocks or GPU settings.
OLD_ROUND=18 exec bash "$(dirname "${BASH_SOURCE[0]}")/h200_round18.sh" "$@"
