#!/usr/bin/env bash
# setup.sh: installs what bankscope needs and is missing, then nothing else. Sourced by run.sh and
# test.sh; safe to run again (it checks before it installs). Runs as root on a fresh Debian machine.
#   Debian packages: compilers, CMake, the libraries (ImGui 1.86, GLFW, doctest, nlohmann-json,
#                    CLI11, stb), Xvfb + Mesa for real-window tests, a TTF font, clang for fuzzing.
#   PyPI (into ./.venv): glad2, which generates the OpenGL loader at configure time.
set -euo pipefail

bankscope_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bankscope_packages=(
  build-essential cmake pkg-config git python3 python3-venv
  libimgui-dev libglfw3-dev libgl-dev doctest-dev nlohmann-json3-dev libcli11-dev libstb-dev
  xvfb xauth libgl1-mesa-dri libglx-mesa0 fonts-dejavu-core
  clang libclang-rt-dev
)

missing=()
for p in "${bankscope_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# python3-venv may be a no-op where python3 is not Debian's (pyenv): check venv itself.
if [[ ! -x "$bankscope_root/.venv/bin/python3" ]]; then
  echo "setup: creating .venv"
  python3 -m venv "$bankscope_root/.venv"
fi
if ! "$bankscope_root/.venv/bin/python3" -c "import glad" 2>/dev/null; then
  echo "setup: installing glad2 into .venv"
  "$bankscope_root/.venv/bin/pip" install -q --disable-pip-version-check glad2
fi

# [python] The Python package (python/, scripts/python_tests.sh) compiles against Python's headers.
dpkg-query -W -f='${Status}' python3-dev 2>/dev/null | grep -q "install ok installed" ||
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-dev >/dev/null; }

# The CUDA toolkit is optional; when it is installed but not on PATH, put it there.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
