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

// ---------------------------------------------------------------------------------------------
// Issue 11: ldmatrix, stmatrix, shared atomics and cp.async, one instruction per launch.
// Each kernel below holds exactly one LDSM / STSM / ATOMS / LDGSTS of the named form in its SASS
// (checked with cuobjdump -sass: tests/conformance/sass_v2.txt). One warp of 32 threads.
// ---------------------------------------------------------------------------------------------

namespace bankscope {

// ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16: .sync.aligned, so every lane executes it
// (the mask only says which lanes the pattern describes; the harness refuses a mask without all row
// lanes 0..8*num-1). Lanes 8*num..31 pass their offset too; PTX ISA: those addresses are unused.
template <int kNum, bool kTrans>
__global__ void k_ldsm(const PatternArgs* args, int index, uint32_t* sink) {
  extern __shared__ __align__(16) unsigned char pattern_smem[];
  const uint32_t lane = threadIdx.x & 31u;
  const PatternArgs& a = args[index];
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(pattern_smem)) + a.offsets[lane];
  uint32_t r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  if constexpr (kNum == 1) {
    if constexpr (kTrans) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr) : "memory");
    } else {
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr) : "memory");
    }
  } else if constexpr (kNum == 2) {
    if constexpr (kTrans) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr) : "memory");
    } else {
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr) : "memory");
    }
  } else {
    static_assert(kNum == 4, "ldmatrix loads 1, 2 or 4 matrices");
    if constexpr (kTrans) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
    } else {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
    }
  }
  sink[lane] = r0 ^ r1 ^ r2 ^ r3;  // global store: keeps the load alive
}

// stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 (sm_90): the same rows, written.
template <int kNum, bool kTrans>
__global__ void k_stsm(const PatternArgs* args, int index, uint32_t* sink) {
  extern __shared__ __align__(16) unsigned char pattern_smem[];
  const uint32_t lane = threadIdx.x & 31u;
  const PatternArgs& a = args[index];
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(pattern_smem)) + a.offsets[lane];
  const uint32_t v = lane * 0x00010001u + 0x00010000u;
  if constexpr (kNum == 1) {
    if constexpr (kTrans) {
      asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(v) : "memory");
    } else {
      asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(v) : "memory");
    }
  } else if constexpr (kNum == 2) {
    if constexpr (kTrans) {
      asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(v), "r"(v + 1u) : "memory");
    } else {
      asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(v), "r"(v + 1u) : "memory");
    }
  } else {
    static_assert(kNum == 4, "stmatrix stores 1, 2 or 4 matrices");
    if constexpr (kTrans) {
      asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v),
                   "r"(v + 1u), "r"(v + 2u), "r"(v + 3u) : "memory");
    } else {
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v),
                   "r"(v + 1u), "r"(v + 2u), "r"(v + 3u) : "memory");
    }
  }
  (void)sink;  // same signature as the other pattern kernels
}

// atom.shared.{add,min,max,exch,cas}: 0 add, 1 min, 2 max, 3 exch, 4 cas (kernels.hpp AtomKind);
// 5 popc_inc: red.shared.add.u32 of 1, result unused, which ptxas emits as ATOMS.POPC.INC.32 (checked
// here with cuobjdump; the same SASS as atomicAdd(&s[i], 1) whose result is unused, rule R8b).
// The operand depends on the lane so that nvcc cannot aggregate the warp's atomics into one lane's
// (measured here: with a warp-uniform address and operand, nvcc 13.0 emitted a single predicated
// ATOMS.ADD after a popc of the active mask).
template <int kWidth, int kAtom>
__global__ void k_atoms(const PatternArgs* args, int index, uint32_t* sink) {
  extern __shared__ __align__(16) unsigned char pattern_smem[];
  const uint32_t lane = threadIdx.x & 31u;
  const PatternArgs& a = args[index];
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(pattern_smem)) + a.offsets[lane];
  if (!((a.mask >> lane) & 1u)) return;
  const uint32_t v = lane + 1u;
  uint32_t r = 0;
  if constexpr (kWidth == 4) {
    if constexpr (kAtom == 0) {
      asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(r) : "r"(addr), "r"(v) : "memory");
    } else if constexpr (kAtom == 1) {
      asm volatile("atom.shared.min.u32 %0, [%1], %2;" : "=r"(r) : "r"(addr), "r"(v) : "memory");
    } else if constexpr (kAtom == 2) {
      asm volatile("atom.shared.max.u32 %0, [%1], %2;" : "=r"(r) : "r"(addr), "r"(v) : "memory");
    } else if constexpr (kAtom == 3) {
      asm volatile("atom.shared.exch.b32 %0, [%1], %2;" : "=r"(r) : "r"(addr), "r"(v) : "memory");
    } else if constexpr (kAtom == 4) {
      asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "r"(addr), "r"(lane), "r"(v) : "memory");
    } else {
      static_assert(kAtom == 5, "atom kinds: add, min, max, exch, cas, popc_inc");
      asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr) : "memory");
      r = v;  // no result: a returned value would make it an ATOMS.ADD
    }
  } else {
    // 64-bit add/min/max are a CAS loop on sm_90 (not one instruction): only exch and cas here.
    static_assert(kWidth == 8 && (kAtom == 3 || kAtom == 4), "64-bit shared atomics: exch and cas");
    unsigned long long r64 = 0;
    const unsigned long long v64 = (static_cast<unsigned long long>(v) << 32) | v;
    if constexpr (kAtom == 3) {
      asm volatile("atom.shared.exch.b64 %0, [%1], %2;" : "=l"(r64) : "r"(addr), "l"(v64) : "memory");
    } else {
      asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;"
                   : "=l"(r64) : "r"(addr), "l"(static_cast<unsigned long long>(lane)), "l"(v64) : "memory");
    }
    r = static_cast<uint32_t>(r64) ^ static_cast<uint32_t>(r64 >> 32);
  }
  sink[lane] = r;  // keeps the returned value alive
}

// cp.async.{ca,cg}.shared.global of kWidth bytes: lane l copies src[a.src[l] ..] to its shared
// offset; then cp.async.wait_all. .cg exists for 16 bytes only (PTX ISA). The harness fills
// a.src[l] = l * kWidth (contiguous, aligned: what this kernel hard-wired before the "src" key)
// unless the pattern gives its own sources (issue 11: does the global side change the count?).
template <int kWidth, bool kCg>
__global__ void k_ldgsts(const PatternArgs* args, int index, uint32_t* sink, const unsigned char* src) {
  extern __shared__ __align__(16) unsigned char pattern_smem[];
  const uint32_t lane = threadIdx.x & 31u;
  const PatternArgs& a = args[index];
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(pattern_smem)) + a.offsets[lane];
  const unsigned char* g = src + a.src[lane];
  if ((a.mask >> lane) & 1u) {
    if constexpr (kCg) {
      static_assert(kWidth == 16, "cp.async.cg copies 16 bytes");
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(addr), "l"(g) : "memory");
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(addr), "l"(g), "n"(kWidth) : "memory");
    }
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  (void)sink;
}

// The same copy with an L2 prefetch-size hint, cp.async.{ca,cg}.shared.global.L2::{64,128,256}B
// (PTX ISA 7.4, sm_80+). cuBLAS's FFMA SGEMM issues LDGSTS.E.LTC128B (issue 10 trace): the hint is
// one more difference between whole kernels and k_ldgsts above, so the probe batch can set it.
template <int kWidth, bool kCg, int kPrefetch>
__global__ void k_ldgsts_pf(const PatternArgs* args, int index, uint32_t* sink, const unsigned char* src) {
  static_assert(kPrefetch == 64 || kPrefetch == 128 || kPrefetch == 256, "L2 prefetch of 64, 128 or 256 bytes");
  extern __shared__ __align__(16) unsigned char pattern_smem[];
  const uint32_t lane = threadIdx.x & 31u;
  const PatternArgs& a = args[index];
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(pattern_smem)) + a.offsets[lane];
  const unsigned char* g = src + a.src[lane];
  if ((a.mask >> lane) & 1u) {
    if constexpr (kCg) {
      static_assert(kWidth == 16, "cp.async.cg copies 16 bytes");
      if constexpr (kPrefetch == 64) {
        asm volatile("cp.async.cg.shared.global.L2::64B [%0], [%1], 16;" ::"r"(addr), "l"(g) : "memory");
      } else if constexpr (kPrefetch == 128) {
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(addr), "l"(g) : "memory");
      } else {
        asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(addr), "l"(g) : "memory");
      }
    } else {
      if constexpr (kPrefetch == 64) {
        asm volatile("cp.async.ca.shared.global.L2::64B [%0], [%1], %2;" ::"r"(addr), "l"(g), "n"(kWidth) : "memory");
      } else if constexpr (kPrefetch == 128) {
        asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2;" ::"r"(addr), "l"(g), "n"(kWidth) : "memory");
      } else {
        asm volatile("cp.async.ca.shared.global.L2::256B [%0], [%1], %2;" ::"r"(addr), "l"(g), "n"(kWidth) : "memory");
      }
    }
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  (void)sink;
}

}  // namespace bankscope
