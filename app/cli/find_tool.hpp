// find_tool.hpp: where the CUDA command-line tools are (and how to quote them for a shell) (nvcc, nvdisasm, cuobjdump, ncu), for every
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

// `s` as one word for /bin/sh: 'single-quoted', embedded quotes escaped.
std::string shell_quote(const std::string& s);

// The directory of the running executable (/proc/self/exe), where bankscope-gpu finds its
// siblings (bankscope-cli, the tracer library); the working directory if that cannot be read.
std::string self_dir();

}  // namespace bankscope
