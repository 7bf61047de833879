#!/usr/bin/env bash
# h200_round20.sh: round 20's device call (carry [".devdeps"]): scripts/h200_round18.sh's steps (a
# fresh CUB trace with --check, then `report` throughput on the host's CPU) against round 19's final
# tree (.devdeps/round19, `git archive 4f4ca14 -- . ':(exclude)assets'`), with the fresh CUB trace
# kept (KEEP_TRACE) and sim_tests run on every cost() path of the host's CPU (HOST_TESTS: its
# AVX-512 path, which this machine's CPU lacks). ROUNDS and SKIP_TRACE as there. Never changes
# clocks or GPU settings.
OLD_ROUND=19 KEEP_TRACE=1 HOST_TESTS=1 exec bash "$(dirname "${BASH_SOURCE[0]}")/h200_round18.sh" "$@"
