// cuda_check.hpp: the one way CUDA runtime calls are checked in kernels/.
//
// BANKSCOPE_CUDA_CHECK(call) runs `call`; on failure it throws CudaError whose message names the
// call, the file and the line ("cudaMalloc(&p, bytes) failed at kernels/harness.cpp:42:
// out of memory"). Only main() catches it and exits, so a failed call can never be ignored.
// Kernel launches are followed by BANKSCOPE_CUDA_CHECK(cudaGetLastError()).
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace bankscope {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file,
                                          int line) {
  throw CudaError(code, std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                            ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

}  // namespace bankscope

#define BANKSCOPE_CUDA_CHECK(call)                                                   \
  do {                                                                               \
    const cudaError_t bankscope_err_ = (call);                                       \
    if (bankscope_err_ != cudaSuccess) {                                             \
      ::bankscope::throw_cuda_error(bankscope_err_, #call, __FILE__, __LINE__);      \
    }                                                                                \
  } while (0)
