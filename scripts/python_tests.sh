#!/usr/bin/env bash
# python_tests.sh: the Python package (python/). Installs what is missing into ./.venv from PyPI,
# builds and installs ./python into it (incrementally, in python/build/python/), then runs pytest on
# tests/python, which also executes python/examples/seed_lesson.ipynb headless (nbclient) and
# compares with build/bin/bankscope-cli (run scripts/build.sh first, as test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
[[ -x $venv/bin/python3 ]] || python3 -m venv $venv

# import name -> PyPI name
declare -A pypi=([skbuild_core_probe]=scikit-build-core [pybind11]=pybind11 [numpy]=numpy [pytest]=pytest
                 [hypothesis]=hypothesis [matplotlib]=matplotlib [nbclient]=nbclient [nbformat]=nbformat
                 [ipykernel]=ipykernel)
missing=()
for mod in "${!pypi[@]}"; do
  probe=$mod
  [[ $mod == skbuild_core_probe ]] && probe=scikit_build_core
  "$venv/bin/python3" -c "import $probe" 2>/dev/null || missing+=("${pypi[$mod]}")
done
if ((${#missing[@]} > 0)); then
  echo "python_tests: installing ${missing[*]} into $venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${missing[@]}"
fi

echo "python_tests: building and installing ./python into $venv"
"$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation \
  --config-settings=build-dir=build/python ./python

cli=${BANKSCOPE_CLI:-build/bin/bankscope-cli}
[[ -x $cli ]] || { echo "python_tests: $cli not built (scripts/build.sh builds it)"; exit 1; }
BANKSCOPE_CLI=$PWD/$cli MPLBACKEND=Agg "$venv/bin/python3" -m pytest -q -p no:cacheprovider tests/python
