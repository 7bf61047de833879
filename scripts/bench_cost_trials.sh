#!/usr/bin/env bash
# bench_cost_trials.sh [RUNS]: what the unit check costs cost() on this machine. Builds
# bankscope-bench twice from this tree's sim/bank_model.cpp: as it is, and a TRIAL copy whose 32-lane
# phase skips the busiest group's distinct-unit check (units_distinct(); the count is then NOT
# exact when two lanes of that group share a word: a measurement of what is left, never a build to
# use). Runs the two alternately RUNS times (default 3) and writes both tables, with the machine's
# description, to assets/results/cpu/cost_trials.txt. Needs build/ (scripts/build.sh) for the sim
# library; run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
out=assets/results/cpu/cost_trials.txt
lib=build/sim/libbankscope_sim.a
[[ -f $lib ]] || { echo "bench_cost_trials: $lib missing (run scripts/build.sh)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp sim/bank_model.cpp "$dir/as_is.cpp"
python3 - "$dir/as_is.cpp" "$dir/no_check.cpp" <<'PY'
import sys
s = open(sys.argv[1]).read()
patches = [
    # portable path, one phase of 32 lanes
    ("    if (n >= 2 && (n > 8 || !units_distinct(addr, kShift, lanes))) {\n      return cost_portable_shape<kShift, kLaneBits>(a, addr, ideal);\n    }",
     "    if (n > 8) return cost_portable_shape<kShift, kLaneBits>(a, addr, ideal);\n    (void)lanes;"),
    # AVX2 path, one phase of 32 lanes
    ("      if (!units_distinct(addr, kShift, lanes)) return cost_default_avx2_dedupe(a, addr);\n    }\n    return make_cost(n, ideal, n);",
     "      (void)lanes;\n    }\n    return make_cost(n, ideal, n);"),
]
for old, new in patches:
    if s.count(old) != 1:
        sys.exit("bench_cost_trials: sim/bank_model.cpp changed; the trial patch no longer applies:\n" + old)
    s = s.replace(old, new)
open(sys.argv[2], "w").write(s)
PY
flags=(-std=c++17 -O3 -DNDEBUG -I. -Isim -w "-DBANKSCOPE_SOURCE_DIR=\"$PWD\"")
for v in as_is no_check; do
  c++ "${flags[@]}" -c "$dir/$v.cpp" -o "$dir/$v.o"
  c++ "${flags[@]}" tests/bench_model.cpp "$dir/$v.o" "$lib" -o "$dir/bench_$v"
done
state="$(git rev-parse --short HEAD)$(git diff --quiet -- sim || echo ' (with local changes)')"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "as_is: sim/bank_model.cpp at $state; no_check: the same without the 32-lane phase's unit check (NOT exact)"
  for r in $(seq 1 "$runs"); do
    for v in as_is no_check; do
      echo
      echo "## run $r, $v, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
      "$dir/bench_$v" --no-launch --widths 1,2,4
    done
  done
} | tee "$out"
