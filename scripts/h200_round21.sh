#!/usr/bin/env bash
# h200_round21.sh: round 21's device call (carry [".devdeps"]): scripts/h200_round18.sh's steps (a
# fresh CUB trace with --check, then `report` throughput on the host's CPU) against round 20's final
# tree (.devdeps/round20, `git archive d27110f -- . ':(exclude)assets'`), with the fresh CUB trace
# kept (KEEP_TRACE) and sim_tests run on every cost() path of the host's CPU (HOST_TESTS: its
# AVX-512 path, which this machine's CPU lacks, and with it the AVX-512 instance of the reader
# compiled for the aggregator). ROUNDS and SKIP_TRACE as there. Never changes clocks or GPU settings.
OLD_ROUND=20 KEEP_TRACE=1 HOST_TESTS=1 exec bash "$(dirname "${BASH_SOURCE[0]}")/h200_round18.sh" "$@"
