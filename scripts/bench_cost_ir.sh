#!/usr/bin/env bash
# bench_cost_ir.sh OLD_COMMIT [RUNS]: cost() of 4-byte warps, this tree against OLD_COMMIT, in
# instructions per warp (valgrind's callgrind: a figure the VM's host load cannot move) and in M
# warps per second (the best of RUNS alternating wall-clock runs, default 5), on the AVX2 and the
# portable path, for bankscope-bench's random and strided sets (tests/bench_cost_ir.cpp). Builds
# OLD_COMMIT's sim library in a temporary worktree; this tree's is build/ (scripts/build.sh).
# Writes assets/results/cpu/cost_ir.txt. Run on an otherwise idle machine for the wall clock.
set -euo pipefail
cd "$(dirname "$0")/.."
(($# >= 1)) || { echo "bench_cost_ir: usage: scripts/bench_cost_ir.sh OLD_COMMIT [RUNS]" >&2; exit 2; }
old=$(git rev-parse --short "$1^{commit}" 2>/dev/null) || { echo "bench_cost_ir: '$1' is not a commit" >&2; exit 2; }
runs="${2:-5}"
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench_cost_ir: RUNS must be a count of runs, not '$runs'" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bench_cost_ir: valgrind not installed (apt-get install valgrind)" >&2; exit 1; }
command -v bc >/dev/null || { echo "bench_cost_ir: bc not installed (apt-get install bc)" >&2; exit 1; }
[[ -f build/CMakeCache.txt ]] || { echo "bench_cost_ir: build/ not configured (run scripts/build.sh)" >&2; exit 1; }
# This tree's library as the tree is now, not as build/ last saw it.
cmake --build build --target bankscope_sim >/dev/null || { echo "bench_cost_ir: building this tree's sim library failed" >&2; exit 1; }
out=assets/results/cpu/cost_ir.txt
state="$(git rev-parse --short HEAD)$(git diff --quiet -- . ":(exclude)$out" || echo ' (with local changes)')"
dir=$(mktemp -d)
trap 'git worktree remove --force "$dir/old" >/dev/null 2>&1 || true; rm -rf "$dir"; git worktree prune' EXIT
git worktree add --detach "$dir/old" "$old" >"$dir/worktree.log" 2>&1 ||
  { echo "bench_cost_ir: git worktree add $old failed: $(tail -1 "$dir/worktree.log")" >&2; exit 1; }
{
  cmake -S "$dir/old" -B "$dir/old-build" -DCMAKE_BUILD_TYPE=Release -DBANKSCOPE_BUILD_APP=OFF \
    -DBANKSCOPE_BUILD_CUDA=OFF -DBANKSCOPE_BUILD_TESTS=OFF -DBANKSCOPE_BUILD_BENCH=OFF &&
    cmake --build "$dir/old-build" --target bankscope_sim -j"$(nproc)"
} >"$dir/build.log" 2>&1 || { echo "bench_cost_ir: building $old's sim library failed:" >&2; tail -20 "$dir/build.log" >&2; exit 1; }
# The driver is this tree's, compiled against each tree's headers and library.
g++ -O2 -std=c++17 -I"$dir/old" tests/bench_cost_ir.cpp "$dir/old-build/sim/libbankscope_sim.a" -o "$dir/old.bin"
g++ -O2 -std=c++17 -I. tests/bench_cost_ir.cpp build/sim/libbankscope_sim.a -o "$dir/new.bin"
{
  echo "# scripts/bench_cost_ir.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# old: commit $old; new: this tree, commit $state"
  echo "instructions per 4-byte warp through cost_on() (callgrind, 2,000 rounds of the set, the driver's loop included)"
  printf '%-22s %10s %10s %8s\n' "path, set" old new change
  for path in avx2 portable; do
    for set in random strided; do
      ir=()
      for b in old new; do
        valgrind --tool=callgrind --callgrind-out-file="$dir/cg" "$dir/$b.bin" "$path" "$set" 2000 >/dev/null 2>"$dir/err" ||
          { echo "bench_cost_ir: $b $path $set failed:" >&2; tail -5 "$dir/err" >&2; exit 1; }
        total=$(grep -E '^(summary|totals):' "$dir/cg" | head -1 | awk '{print $2}')
        warps=$([[ $set == random ]] && echo 63 || echo 65)
        ir+=("$(echo "$total / ($warps * 2000)" | bc -l)")
      done
      printf '%-22s %10.1f %10.1f %7.1f%%\n' "$path, $set" "${ir[0]}" "${ir[1]}" "$(echo "100 * (${ir[1]} - ${ir[0]}) / ${ir[0]}" | bc -l)"
    done
  done
  echo
  echo "M warps per second, best of $runs alternating runs (wall clock, one core)"
  printf '%-22s %10s %10s\n' "path, set" old new
  for path in avx2 portable; do
    for set in random strided; do
      best_old=0 best_new=0
      for _ in $(seq "$runs"); do
        for b in old new; do
          r=$("$dir/$b.bin" "$path" "$set" 300000 | awk '{print $(NF-2)}')
          if [[ $b == old ]]; then
            best_old=$(echo "if ($r > $best_old) $r else $best_old" | bc -l)
          else
            best_new=$(echo "if ($r > $best_new) $r else $best_new" | bc -l)
          fi
        done
      done
      printf '%-22s %10.1f %10.1f\n' "$path, $set" "$best_old" "$best_new"
    done
  done
} | tee "$out"
