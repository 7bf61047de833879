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
# Compute Sanitizer API headers and library, to build bankscope-gpu trace's injection library where
# the toolkit lacks them (pinned to CUDA 13.0, the H200's; at run time the toolkit's own is used).
if ! compgen -G "$bankscope_root/.venv/lib/python3*/site-packages/nvidia/cu13/include/sanitizer.h" >/dev/null; then
  echo "setup: installing nvidia-cuda-sanitizer-api 13.0 into .venv"
  "$bankscope_root/.venv/bin/pip" install -q --disable-pip-version-check 'nvidia-cuda-sanitizer-api==13.0.*'
fi

# cuobjdump and nvdisasm read the SASS the scenarios' "issue" fields come from (scripts/sass_dump.sh,
# tests/gpu/test_sass.cpp). Some CUDA installs lack them (nvcc without the binary utilities): then
# NVIDIA's PyPI wheels put them into .venv (site-packages/nvidia/cu13/bin), where CMake looks.
bankscope_has_tool() {
  command -v "$1" >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/$1 ]] ||
    compgen -G "$bankscope_root/.venv/lib/python3*/site-packages/nvidia/cu*/bin/$1" >/dev/null
}
if ! bankscope_has_tool cuobjdump || ! bankscope_has_tool nvdisasm; then
  echo "setup: installing cuobjdump and nvdisasm into .venv"
  "$bankscope_root/.venv/bin/pip" install -q --disable-pip-version-check nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
fi

# [python] The Python package (python/, scripts/python_tests.sh) compiles against Python's headers.
dpkg-query -W -f='${Status}' python3-dev 2>/dev/null | grep -q "install ok installed" ||
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-dev >/dev/null; }

# The CUDA toolkit is optional; when it is installed but not on PATH, put it there.
if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
