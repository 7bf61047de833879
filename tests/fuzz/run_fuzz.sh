#!/usr/bin/env bash
# run_fuzz.sh: runs one libFuzzer target without writing into the source tree.
#   run_fuzz.sh short BINARY SEED_DIR WORK_DIR RUNS [libFuzzer flags...]
#       a seeded run of RUNS executions (the ctest fuzz.<target> test); new inputs and any crash go
#       to WORK_DIR, which starts empty each time so the run is reproducible
#   run_fuzz.sh long BINARY SEED_DIR WORK_DIR SECONDS [libFuzzer flags...]
#       a timed campaign; WORK_DIR keeps its corpus between campaigns; prints executions and crashes
# Exit status: libFuzzer's (non-zero when it found a crash, a leak, a timeout or a sanitizer report).
set -uo pipefail
mode=$1 bin=$2 seeds=$3 work=$4 amount=$5
shift 5
name=$(basename "$bin")
if [[ $mode == short ]]; then
  rm -rf "$work"
fi
mkdir -p "$work/corpus" "$work/crashes"
common=(-seed=1 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/crashes/" -print_final_stats=1 "$@")
if [[ $mode == short ]]; then
  "$bin" "${common[@]}" -runs="$amount" "$work/corpus" "$seeds" 2>&1 | tail -n 40
  rc=${PIPESTATUS[0]}
else
  # Fork mode: a crash is saved and the campaign goes on, so one run reports every crash it finds.
  # The corpus carries over between campaigns; crash inputs of earlier campaigns move aside so that
  # this one reports only its own.
  if [[ -n $(find "$work/crashes" -maxdepth 1 -type f -print -quit) ]]; then
    earlier="$work/earlier-crashes/$(date -u +%Y%m%dT%H%M%S)"
    mkdir -p "$earlier"
    find "$work/crashes" -maxdepth 1 -type f -exec mv {} "$earlier/" \;
  fi
  log="$work/$name.log"
  "$bin" "${common[@]}" -max_total_time="$amount" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -print_funcs=0 "$work/corpus" "$seeds" >"$log" 2>&1
  rc=$?
  # Fork mode's progress lines: "#275207: cov: 3161 ft: 5220 corp: 952 exec/s 16724 oom/timeout/crash: 0/0/0 ..."
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -n1)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  otc=$(grep -oE 'oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' <<<"$last" | cut -d' ' -f2)
  artifacts=$(find "$work/crashes" -type f | wc -l)
  echo "$name: ${execs:-?} executions in ${amount}s; oom/timeout/crash ${otc:-?}; $artifacts input(s) saved; corpus $(find "$work/corpus" -type f | wc -l) (log $log)"
  find "$work/crashes" -type f -printf '  saved input: %p\n' | head -n 5
  if ((artifacts > 5)); then echo "  ... and $((artifacts - 5)) more in $work/crashes"; fi
  if [[ $artifacts -gt 0 ]]; then rc=1; fi
fi
exit "$rc"
