// pattern_kernels.cuh: one warp, one shared-memory instruction, any lane -> byte-offset pattern.
//
// k_pattern<W, St>: 32 threads; lane l, if bit l of the mask is set, executes exactly ONE
// ld.shared or st.shared of W bytes (1, 2, 4, 8, 16) at byte offset offsets[l] of the block's
// dynamic shared memory. One launch per pattern, so the counters of that launch are the counters of
// that one instruction. The access is inline PTX (asm volatile) so the compiler can neither drop it
// (a store nobody reads, a load whose value is unused) nor split or merge it: the SASS holds one
// LDS/LDS.U8/LDS.U16/LDS.64/LDS.128 (or STS.*) per kernel, checked with cuobjdump (kernels/README).
//
// k_pattern_clock<W, St>: the fallback where counters are not permitted. 32 warps on one SM each
// repeat the same instruction `reps` times; measured here (H200): cycles per warp instruction track
// the instruction's wavefronts within about 1%.
#pragma once

#include <cstdint>

#include "kernels.hpp"  // PatternArgs

namespace bankscope {

// Returns the loaded bits folded into one word (0 for a store). Measured here: nvcc deletes an
// asm volatile load whose outputs are never used, so every caller must consume the result.
// The PTX is ld.volatile.shared / st.volatile.shared: measured here, ptxas merges repeated identical
// plain shared accesses in a loop (16 asm statements became one STS in the clock64 loop); the
// volatile forms compile to the same LDS/STS instructions and are never merged or dropped.
template <int kWidth, bool kStore>
__device__ __forceinline__ uint32_t shared_access(uint32_t addr, uint32_t lane) {
  if constexpr (kStore) {
    const uint32_t v = lane * 0x01010101u + 1u;
    if constexpr (kWidth == 1) {
      asm volatile("st.volatile.shared.u8 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
    } else if constexpr (kWidth == 2) {
      asm volatile("st.volatile.shared.u16 [%0], %1;" ::"r"(addr), "h"(static_cast<unsigned short>(v)) : "memory");
    } else if constexpr (kWidth == 4) {
      asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
    } else if constexpr (kWidth == 8) {
      asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %2};" ::"r"(addr), "r"(v), "r"(v + 1u) : "memory");
    } else {
      static_assert(kWidth == 16, "width must be 1, 2, 4, 8 or 16 bytes");
      asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v), "r"(v + 1u),
                   "r"(v + 2u), "r"(v + 3u)
                   : "memory");
    }
    return 0u;
  } else {
    uint32_t a = 0, b = 0, c = 0, d = 0;
    if constexpr (kWidth == 1) {
      asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=r"(a) : "r"(addr) : "memory");
    } else if constexpr (kWidth == 2) {
      unsigned short h = 0;
      asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=h"(h) : "r"(addr) : "memory");
      a = h;
    } else if constexpr (kWidth == 4) {
      asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr) : "memory");
    } else if constexpr (kWidth == 8) {
      asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr) : "memory");
    } else {
      static_assert(kWidth == 16, "width must be 1, 2, 4, 8 or 16 bytes");
      asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                   : "r"(addr)
                   : "memory");
    }
    return a ^ b ^ c ^ d;
  }
}

template <int kWidth, bool kStore>
__global__ void k_pattern(const PatternArgs* args, int index, uint32_t* sink) {
  extern __shared__ __align__(16) unsigned char pattern_smem[];
  const uint32_t lane = threadIdx.x & 31u;
  const PatternArgs& a = args[index];
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(pattern_smem)) + a.offsets[lane];
  if ((a.mask >> lane) & 1u) {
    const uint32_t v = shared_access<kWidth, kStore>(addr, lane);
    if constexpr (!kStore) sink[lane] = v;  // global store: keeps the load alive
  }
}

template <int kWidth, bool kStore>
__global__ void k_pattern_clock(const PatternArgs* args, int index, int reps, long long* cycles,
                                uint32_t* sink) {
  extern __shared__ __align__(16) unsigned char pattern_smem[];
  const uint32_t lane = threadIdx.x & 31u;
  const PatternArgs& a = args[index];
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(pattern_smem)) + a.offsets[lane];
  const bool active = (a.mask >> lane) & 1u;
  uint32_t acc = 0;
  __syncthreads();
  const long long t0 = clock64();
  if (active) {
    for (int r = 0; r < reps; r += 4) {
      acc ^= shared_access<kWidth, kStore>(addr, lane);
      acc ^= shared_access<kWidth, kStore>(addr, lane) << 1;
      acc ^= shared_access<kWidth, kStore>(addr, lane) << 2;
      acc ^= shared_access<kWidth, kStore>(addr, lane) << 3;
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) *cycles = t1 - t0;
  if (acc == 0x9e3779b9u) sink[threadIdx.x] = acc;  // almost never taken; keeps the loads alive
}

}  // namespace bankscope
