// tma_util.cuh: what a bulk tensor copy (TMA) needs on both sides, shared by the bench's fast_tma
// (fast_transpose.cuh, bench.cu) and the TMA swizzle probe (tma_probe.cu).
//   smem_addr(p)              a pointer's offset in the shared window (for PTX operands)
//   mbarrier_wait_phase0(b)   every thread waits for phase 0 of the mbarrier at b; a box that never
//                             arrives traps after ~2^31 clocks instead of hanging the process
//   encode_tiled_fn()         cuTensorMapEncodeTiled through the runtime's driver entry point
//                             (no -lcuda at link time)
#pragma once

#include <cstdint>
#include <stdexcept>

#include <cuda.h>
#include <cuda_runtime.h>

#include "cuda_check.hpp"

namespace bankscope {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrier_wait_phase0(uint32_t bar_addr) {
  const long long start = clock64();
  for (;;) {
    uint32_t done = 0;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar_addr), "r"(0)
        : "memory");
    if (done) break;
    if (clock64() - start > (1ll << 31)) __trap();
  }
}

using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

inline EncodeTiledFn encode_tiled_fn() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  BANKSCOPE_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (fn == nullptr || q != cudaDriverEntryPointSuccess) throw std::runtime_error("cuTensorMapEncodeTiled: not found in the driver");
  return reinterpret_cast<EncodeTiledFn>(fn);
}

}  // namespace bankscope
