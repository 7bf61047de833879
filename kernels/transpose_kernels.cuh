// transpose_kernels.cuh: the transposes whose shared-memory traffic bankscope predicts.
//
// A progression, as in NVIDIA's cuda-samples `transpose`:
//   k_transpose_seed<S>          the lesson's kernel exactly: 32x32 threads, one element each,
//                                bounds-checked, __shared__ float tile[32][S] (S = 32 or 33)
//   k_transpose_32x8<T, S, X>    32x8 threads, 4 elements per thread (rows j, j+8, j+16, j+24);
//                                S = 33 is the padded tile, X = 31 the XOR swizzle tile[r][c ^ r]
//   k_transpose_dyn<T, R>        the same two shapes (R = 32 or 8 rows of threads) with the whole
//                                physical layout (row stride, XOR mask, CuTe swizzle) a run-time
//                                value and the tile in dynamic shared memory: any layout the model
//                                can describe (the slider's stride, say) runs for real
// Every kernel takes its shared-memory addresses from PhysicalLayout::offset (sim/bank_math.hpp),
// the function the model uses, so the two cannot drift. All kernels are bounds-checked, so any n
// works. Out-of-tile elements are simply not written, matching the scenarios' guards.
//
// (row, col) of the logical 32x32 tile -> element offset:  layout.offset(row, col)
// block (bx, by), thread (tx, ty):  reads  in[(32*by + ty + j) * n + 32*bx + tx]  -> tile[ty + j][tx]
//                                   writes out[(32*bx + ty + j) * n + 32*by + tx] <- tile[tx][ty + j]
#pragma once

#include <cstdint>

#include "sim/bank_math.hpp"

namespace bankscope {

inline constexpr int kTileDim = 32;

// The seed lesson's kernel, with its layout as a template argument so the tile is a plain static
// __shared__ array exactly as the lesson declares it (tile[32][32] or tile[32][33], flattened).
template <int kStride>
__global__ void k_transpose_seed(float* out, const float* in, int n) {
  constexpr PhysicalLayout kLayout{kStride};
  __shared__ float tile[kTileDim * kStride];

  const int x = blockIdx.x * kTileDim + threadIdx.x;
  const int y = blockIdx.y * kTileDim + threadIdx.y;
  if (x < n && y < n) {
    tile[kLayout.offset(threadIdx.y, threadIdx.x)] = in[int64_t(y) * n + x];
  }
  __syncthreads();

  const int out_x = blockIdx.y * kTileDim + threadIdx.x;
  const int out_y = blockIdx.x * kTileDim + threadIdx.y;
  if (out_x < n && out_y < n) {
    out[int64_t(out_y) * n + out_x] = tile[kLayout.offset(threadIdx.x, threadIdx.y)];
  }
}

// The body of the 32x(kBlockRows) tiled transpose, for a tile in static or dynamic shared memory:
// rows in through a coalesced read, a barrier, columns out through a coalesced write. Inlined, so a
// compile-time layout still folds to constant offsets.
template <typename T, int kBlockRows>
__device__ __forceinline__ void tiled_transpose(T* out, const T* in, int n, T* tile, const PhysicalLayout& layout) {
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (x < n && y + j < n) tile[layout.offset(threadIdx.y + j, threadIdx.x)] = in[int64_t(y + j) * n + x];
  }
  __syncthreads();

  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTileDim; j += kBlockRows) {
    if (x < n && y + j < n) out[int64_t(y + j) * n + x] = tile[layout.offset(threadIdx.x, threadIdx.y + j)];
  }
}

// 32x8 threads, each moving 4 elements (cuda-samples' transposeNoBankConflicts shape).
template <typename T, int kStride, int kXorMask>
__global__ void k_transpose_32x8(T* out, const T* in, int n) {
  constexpr PhysicalLayout kLayout{kStride, kXorMask};
  __shared__ T tile[kTileDim * kStride];
  tiled_transpose<T, 8>(out, in, n, tile, kLayout);
}

// Any physical layout at run time; the tile lives in dynamic shared memory sized by the host
// (the largest layout.offset over the 32x32 tile, plus one element).
template <typename T, int kBlockRows>
__global__ void k_transpose_dyn(T* out, const T* in, int n, PhysicalLayout layout) {
  extern __shared__ __align__(16) unsigned char dyn_smem[];
  tiled_transpose<T, kBlockRows>(out, in, n, reinterpret_cast<T*>(dyn_smem), layout);
}

}  // namespace bankscope
