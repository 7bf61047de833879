#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer targets (Clang, ASan + UBSan) in build-fuzz and runs them.
#   ./scripts/fuzz.sh                  the short seeded runs and the regression inputs (ctest -L fuzz)
#   ./scripts/fuzz.sh --long SECONDS   a campaign: each target for SECONDS (corpus kept in
#                                      build-fuzz/campaign/<target>), then executions and crashes
#   ./scripts/fuzz.sh --long SECONDS --only fuzz_expr    one target
# Targets (tests/fuzz/): fuzz_scenario (scenario files), fuzz_expr (index expressions), fuzz_jsonl
# (JSONL pattern lines), fuzz_trace (trace files). A crash input goes to tests/fuzz/regressions/<target>/ (see README there).
set -euo pipefail
cd "$(dirname "$0")/.."

long=0
only=""
while (($# > 0)); do
  case $1 in
    --long) long=${2:?--long needs SECONDS}; shift 2 ;;
    --only) only=${2:?--only needs a target name}; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

build=build-fuzz
targets=(fuzz_scenario fuzz_expr fuzz_jsonl fuzz_trace)
if [[ -n $only ]]; then
  [[ " ${targets[*]} " == *" $only "* ]] || { echo "fuzz.sh: --only: no target '$only' (${targets[*]})" >&2; exit 2; }
  targets=("$only")
fi

# clang and its runtimes (libFuzzer, sanitizers) are in setup.sh's package list.
if ! command -v clang++ >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  source scripts/setup.sh
fi

CC=clang CXX=clang++ cmake -S . -B "$build" -DBANKSCOPE_FUZZ=ON -DBANKSCOPE_BUILD_APP=OFF \
  -DBANKSCOPE_BUILD_CUDA=OFF >/dev/null
if ! grep -q '^BANKSCOPE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" || [[ ! -f $build/tests/fuzz/CTestTestfile.cmake ]]; then
  echo "fuzz.sh: the build does not include tests/fuzz (needs option(BANKSCOPE_FUZZ) in CMakeLists.txt and add_subdirectory(fuzz) in tests/CMakeLists.txt)" >&2
  exit 1
fi
cmake --build "$build" -j2 --target "${targets[@]}"

if ((long == 0)); then
  regex=$(IFS='|'; echo "${targets[*]}")
  ctest --test-dir "$build" -L fuzz -R "$regex" --output-on-failure
  # Issue 16: show that fuzz_scenario compared launch_totals with the brute force over every block.
  grep -h "launch_totals == brute force" "$build/Testing/Temporary/LastTest.log" | head -n 1 || true
  exit
fi

status=0
for t in "${targets[@]}"; do
  dict=()
  [[ -f tests/fuzz/$t.dict ]] && dict=(-dict="tests/fuzz/$t.dict")
  bin=$(find "$build" -name "$t" -type f -perm -u+x | head -n1)
  bash tests/fuzz/run_fuzz.sh long "$bin" "tests/fuzz/corpus/$t" "$build/campaign/$t" "$long" "${dict[@]}" || status=1
done
if ((status != 0)); then
  echo "fuzz.sh: crashes found: reproduce with $build/bin/<target> <input>; copy each input to tests/fuzz/regressions/<target>/" >&2
fi
exit "$status"
