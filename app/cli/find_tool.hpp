// find_tool.hpp: where the CUDA command-line tools are (nvcc, nvdisasm, cuobjdump, ncu), for every
// front end that runs one: `bankscope-cli sass/check --cu` and `bankscope-gpu trace` (which reads
// the traced kernels' SASS for their opcodes and source lines). One lookup, one order:
//   $ENV (an explicit choice wins, and an env var naming no executable means "not found", which is
//   how tests hide a tool), PATH, /usr/local/cuda/bin, then the nvidia-cuda-* wheels that
//   scripts/setup.sh installs into .venv (the working directory's, then the source tree's).
#pragma once

#include <string>

namespace bankscope {

// The tool's path, or "" when not found.
std::string find_tool(const std::string& name, const char* env);

}  // namespace bankscope
