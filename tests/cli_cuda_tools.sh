# cli_cuda_tools.sh: nvcc and nvdisasm for the CLI test scripts that compile kernels (sourced after
# `src` is set). Found as bankscope-cli finds them (app/cli/find_tool.cpp) and exported so the CLI
# uses the same; without one the script prints SKIPPED and exits 77, which ctest reports as skipped.
find_tool() {  # NAME ENV_VALUE
  local c
  for c in "$2" "$(command -v "$1" 2>/dev/null || true)" "/usr/local/cuda/bin/$1" \
           "$src"/.venv/lib/python3*/site-packages/nvidia/cu*/bin/"$1"; do
    if [[ -n $c && -x $c ]]; then echo "$c"; return 0; fi
  done
  return 1
}
# require_cuda_tools WHAT: WHAT names what needs the toolkit, for the SKIPPED line.
require_cuda_tools() {
  nvcc=$(find_tool nvcc "${BANKSCOPE_NVCC:-}") || { echo "SKIPPED: no nvcc ($1 the CUDA toolkit)"; exit 77; }
  nvdisasm=$(find_tool nvdisasm "${BANKSCOPE_NVDISASM:-}") ||
    { echo "SKIPPED: no nvdisasm (scripts/setup.sh installs it into .venv)"; exit 77; }
  export BANKSCOPE_NVCC=$nvcc BANKSCOPE_NVDISASM=$nvdisasm
}
