// fast_transpose.cuh: the candidates for the fastest fp32 transpose on the H200 (issue 6), and the
// two kernels without shared memory that `bankscope-gpu bench` times beside them.
//
// A progression, as in NVIDIA's cuda-samples `transpose`. The tiled reference kernels (seed and
// 32x8, the lesson's layouts) are NOT here: the bench times those of kernels/transpose_kernels.cuh,
// the ones `validate` checks. Here:
//   bench_copy_32x8            plain copy, 32x8 threads, 4 elements each: the kernel-side ceiling
//   bench_naive                out[x][y] = in[y][x], no shared memory: the write is uncoalesced
// The candidates (each is bounds-checked: any n works, see "Edges" below):
//   fast_f4<TR, TC, T>         a TR x TC tile (TR input rows, TC input columns), T threads; every
//                              global access is 16 bytes (LDG.E.128 / STG.E.128); the tile goes
//                              through shared memory as 16-byte chunks (STS.128 / LDS.128) and each
//                              thread transposes 4x4 blocks in registers. Conflict-free by a
//                              Swizzle<3,2,log2 TC> on the tile (fast_f4_*.json verify it).
//   fast_f4_persistent<...>    the same tile, a persistent grid (a few blocks per SM walk all
//                              tiles), two shared buffers and the next tile's loads issued before
//                              the current tile is written: more bytes in flight per SM, no tail.
//   fast_tma                   the tile loaded by the bulk tensor copy engine (TMA) with its 128-byte
//                              swizzle, completing on an mbarrier; n % 4 != 0 refused (the tensor
//                              map needs 16-byte row pitches); its own lane placement (see below).
//   fast_reg4x4                no shared memory at all: a warp is 8 x 4 lanes, each lane loads a
//                              4x4 block with four 16-byte loads and writes its transpose with four
//                              16-byte stores; every access covers whole 32-byte sectors.
//
// Why 16-byte accesses and 4x4 register blocks (a design argument, measured on the H200 by the
// bench): the 32x8 padded kernel keeps 4 x 4 bytes in flight per thread; at 8 blocks of 256
// threads that is 32 KiB per SM, about what Little's law asks for at ~4 TB/s and ~1 us latency
// (assumed), so it has no margin. fast_f4 keeps 4 x 16 bytes per thread (128 KiB per SM).
//
// The shared layout of fast_f4 (floats; a "chunk" is 4 floats = 16 bytes = 4 banks):
//   (row, col) -> PhysicalLayout{TC, 0, Swizzle{3, 2, log2(TC)}}.offset(row, col)
//              =  row*TC + (col ^ (((row >> 2) & 7) << 2))
//   i.e. chunk c of row r is stored at chunk c ^ ((r / 4) % 8); a chunk stays contiguous and
//   16-byte aligned. A 16-byte shared access is served a quarter-warp (8 lanes, 128 bytes) per
//   wavefront [documented by NVIDIA; bankscope's model rule]:
//   - row write: 8 lanes write 8 consecutive chunks of one row -> 8 distinct chunks mod 8.
//   - 4x4 read:  8 lanes read chunk j of rows 4i+k, i = 8 consecutive values -> the swizzle term
//                (4i+k)/4 % 8 = i % 8 takes 8 distinct values -> 8 distinct chunks mod 8.
//   Without the swizzle the 4x4 read would hit one 4-bank group 8 times (8-way on 16 bytes).
//
// Edges: a block whose tile lies wholly inside the matrix and n % 4 == 0 (rows 16-byte aligned)
// takes the 16-byte path; any other block moves element by element through the same shared
// layout with every access guarded, so n = 8191 is correct, only its edge tiles are slower.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (a type only: no -lcuda)

#include "sim/bank_math.hpp"
#include "tma_util.cuh"

namespace bankscope {
namespace bench {

inline constexpr int kTile32 = 32;

// ---------------------------------------------------------------------------------------------
// Reference kernels.

// Copy, 32x8 threads, 4 elements per thread: the access shape of k_transpose_32x8, no transpose.
__global__ void bench_copy_32x8(float* __restrict__ out, const float* __restrict__ in, int n) {
  const int x = blockIdx.x * kTile32 + threadIdx.x;
  const int y = blockIdx.y * kTile32 + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile32; j += 8) {
    if (x < n && y + j < n) out[int64_t(y + j) * n + x] = in[int64_t(y + j) * n + x];
  }
}

// Naive: coalesced reads, each warp's writes land in 32 different rows (32 sectors per request).
__global__ void bench_naive(float* __restrict__ out, const float* __restrict__ in, int n) {
  const int x = blockIdx.x * kTile32 + threadIdx.x;
  const int y = blockIdx.y * kTile32 + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile32; j += 8) {
    if (x < n && y + j < n) out[int64_t(x) * n + y + j] = in[int64_t(y + j) * n + x];
  }
}

// ---------------------------------------------------------------------------------------------
// fast_f4: 16-byte global accesses, swizzled 16-byte shared accesses, 4x4 register transposes.

BANKSCOPE_HD constexpr int log2_int(int v) { return v <= 1 ? 0 : 1 + log2_int(v / 2); }

// The tile layout shared by fast_f4 and its scenarios (see the header comment).
template <int kTC>
BANKSCOPE_HD constexpr PhysicalLayout fast_f4_layout() {
  return PhysicalLayout{kTC, 0, Swizzle{3, 2, log2_int(kTC)}};
}
static_assert(fast_f4_layout<64>().offset(4, 0) == 4 * 64 + 4, "row 4: chunk 0 stored at chunk 1");
static_assert(fast_f4_layout<64>().offset(29, 5) == 29 * 64 + (5 ^ (7 << 2)), "row 29: chunk ^= 7");
static_assert(fast_f4_layout<32>().offset(8, 31) == 8 * 32 + (31 ^ (2 << 2)), "TC 32: chunk ^= 2");

// Compile-time facts about one fast_f4 configuration.
template <int kTR, int kTC, int kThreads>
struct FastF4Shape {
  static constexpr int kChunksPerRow = kTC / 4;                   // 16-byte chunks per tile row
  static constexpr int kLoadIters = kTR * kChunksPerRow / kThreads;  // chunks each thread loads
  static constexpr int kBlocksI = kTR / 4;                        // 4x4 blocks along an output row
  static constexpr int kStoreIters = (kTR / 4) * (kTC / 4) / kThreads;  // 4x4 blocks per thread
  static constexpr int kTileFloats = kTR * kTC;
  static_assert(kTC >= 32 && (kTC & (kTC - 1)) == 0, "TC: a power of two >= 32 (8 chunks a row)");
  static_assert(kTR >= 32 && (kTR & (kTR - 1)) == 0, "TR: a power of two >= 32 (8 blocks a quarter-warp)");
  static_assert(kThreads % 32 == 0 && kLoadIters * kThreads == kTR * kChunksPerRow, "threads divide the chunks");
  static_assert(kStoreIters * kThreads == (kTR / 4) * (kTC / 4), "threads divide the 4x4 blocks");
  static_assert(kChunksPerRow % 8 == 0 && kBlocksI % 8 == 0, "a quarter-warp stays in one row / one j");
};

// Global -> registers for one tile: thread t loads chunk (idx % kChunksPerRow) of tile row
// (idx / kChunksPerRow), idx = t + it * kThreads. `fast` tiles use 16-byte loads.
template <int kTR, int kTC, int kThreads, bool kStreaming>
__device__ __forceinline__ void fast_f4_load(float4 (&v)[FastF4Shape<kTR, kTC, kThreads>::kLoadIters],
                                             const float* __restrict__ in, int n, int x0, int y0, bool fast) {
  using S = FastF4Shape<kTR, kTC, kThreads>;
#pragma unroll
  for (int it = 0; it < S::kLoadIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    const int r = idx / S::kChunksPerRow;
    const int c = (idx % S::kChunksPerRow) * 4;
    const int64_t g = int64_t(y0 + r) * n + x0 + c;
    if (fast) {
      const float4* p = reinterpret_cast<const float4*>(in + g);
      v[it] = kStreaming ? __ldcs(p) : *p;
    } else {
      float e[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) e[q] = (y0 + r < n && x0 + c + q < n) ? in[g + q] : 0.0f;
      v[it] = make_float4(e[0], e[1], e[2], e[3]);
    }
  }
}

// Registers -> shared (STS.128, row write).
template <int kTR, int kTC, int kThreads>
__device__ __forceinline__ void fast_f4_stage(float* tile, const float4 (&v)[FastF4Shape<kTR, kTC, kThreads>::kLoadIters]) {
  using S = FastF4Shape<kTR, kTC, kThreads>;
  constexpr PhysicalLayout kLayout = fast_f4_layout<kTC>();
#pragma unroll
  for (int it = 0; it < S::kLoadIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    const int r = idx / S::kChunksPerRow;
    const int c = (idx % S::kChunksPerRow) * 4;
    *reinterpret_cast<float4*>(tile + kLayout.offset(r, c)) = v[it];
  }
}

// The 4x4 block in registers, transposed: a[k] holds input row k (4 columns); the result holds
// output row k, i.e. input column k.
__device__ __forceinline__ void transpose4x4(const float4 (&a)[4], float4 (&b)[4]) {
  b[0] = make_float4(a[0].x, a[1].x, a[2].x, a[3].x);
  b[1] = make_float4(a[0].y, a[1].y, a[2].y, a[3].y);
  b[2] = make_float4(a[0].z, a[1].z, a[2].z, a[3].z);
  b[3] = make_float4(a[0].w, a[1].w, a[2].w, a[3].w);
}

// Stores output rows orow0 .. orow0+3, 4 floats each from column ocol: one 16-byte store a row when
// the block is whole and aligned (`fast`), else element by element inside the n x n matrix.
template <bool kStreaming = false>
__device__ __forceinline__ void store_rows4(float* __restrict__ out, int n, int orow0, int ocol,
                                            const float4 (&b)[4], bool fast) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int orow = orow0 + k;
    const int64_t g = int64_t(orow) * n + ocol;
    if (fast) {
      float4* p = reinterpret_cast<float4*>(out + g);
      if (kStreaming) {
        __stcs(p, b[k]);
      } else {
        *p = b[k];
      }
    } else if (orow < n) {
      const float e[4] = {b[k].x, b[k].y, b[k].z, b[k].w};
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (ocol + q < n) out[g + q] = e[q];
    }
  }
}

// Shared -> global: thread t owns 4x4 block (i, j) = (idx % kBlocksI, idx / kBlocksI): tile rows
// 4i..4i+3, columns 4j..4j+3; four LDS.128, a register transpose, four 16-byte stores to output
// rows x0+4j+k at column y0+4i (consecutive lanes: consecutive i: contiguous 16-byte pieces).
template <int kTR, int kTC, int kThreads, bool kStreaming>
__device__ __forceinline__ void fast_f4_store(float* __restrict__ out, const float* tile, int n, int x0, int y0,
                                              bool fast) {
  using S = FastF4Shape<kTR, kTC, kThreads>;
  constexpr PhysicalLayout kLayout = fast_f4_layout<kTC>();
#pragma unroll
  for (int it = 0; it < S::kStoreIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    const int i = idx % S::kBlocksI;
    const int j = idx / S::kBlocksI;
    float4 a[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) a[k] = *reinterpret_cast<const float4*>(tile + kLayout.offset(4 * i + k, 4 * j));
    float4 b[4];
    transpose4x4(a, b);
    store_rows4<kStreaming>(out, n, x0 + 4 * j, y0 + 4 * i, b, fast);
  }
}

// One tile per block: grid (ceil(n / TC), ceil(n / TR)).
// kGroup > 1 remaps the block order: blocks start x fastest, so a wave of resident blocks would
// cover a few whole tile-rows (long contiguous reads, but writes scattered over every output row);
// instead walk kGroup tile-rows top to bottom, then the next tile-column, so a wave covers a
// squarer region and both reads and writes stay within fewer DRAM pages.
template <int kTR, int kTC, int kThreads, bool kStreaming, int kGroup = 1>
__global__ void __launch_bounds__(kThreads) fast_f4(float* __restrict__ out, const float* __restrict__ in, int n) {
  using S = FastF4Shape<kTR, kTC, kThreads>;
  __shared__ __align__(16) float tile[S::kTileFloats];
  int bx = blockIdx.x, by = blockIdx.y;
  if (kGroup > 1) {
    const int linear = blockIdx.y * gridDim.x + blockIdx.x;
    const int per_group = kGroup * gridDim.x;
    const int first = linear / per_group * kGroup;
    const int rows = min(kGroup, int(gridDim.y) - first);
    const int in_group = linear % per_group;
    bx = in_group / rows;
    by = first + in_group % rows;
  }
  const int x0 = bx * kTC;
  const int y0 = by * kTR;
  const bool fast = (n % 4 == 0) && x0 + kTC <= n && y0 + kTR <= n;
  float4 v[S::kLoadIters];
  fast_f4_load<kTR, kTC, kThreads, kStreaming>(v, in, n, x0, y0, fast);
  fast_f4_stage<kTR, kTC, kThreads>(tile, v);
  __syncthreads();
  fast_f4_store<kTR, kTC, kThreads, kStreaming>(out, tile, n, x0, y0, fast);
}

// Persistent: gridDim.x blocks walk the tiles (tile index t -> (t % tiles_x, t / tiles_x)), two
// shared buffers; the next tile's global loads are in flight while the current one is written.
// One barrier per tile suffices: buffer b is rewritten two tiles later, after a barrier that every
// thread reaches only when it has finished reading b.
template <int kTR, int kTC, int kThreads>
__global__ void __launch_bounds__(kThreads) fast_f4_persistent(float* __restrict__ out, const float* __restrict__ in,
                                                                int n) {
  using S = FastF4Shape<kTR, kTC, kThreads>;
  __shared__ __align__(16) float tiles[2][S::kTileFloats];
  const int tiles_x = (n + kTC - 1) / kTC;
  const int tiles_y = (n + kTR - 1) / kTR;
  const int total = tiles_x * tiles_y;
  int t = blockIdx.x;
  if (t >= total) return;
  float4 v[S::kLoadIters];
  int x0 = (t % tiles_x) * kTC, y0 = (t / tiles_x) * kTR;
  bool fast = (n % 4 == 0) && x0 + kTC <= n && y0 + kTR <= n;
  fast_f4_load<kTR, kTC, kThreads, false>(v, in, n, x0, y0, fast);
  for (int b = 0;; b ^= 1) {
    fast_f4_stage<kTR, kTC, kThreads>(tiles[b], v);
    __syncthreads();
    const int cx0 = x0, cy0 = y0;
    const bool cfast = fast;
    t += gridDim.x;
    const bool more = t < total;  // uniform across the block
    if (more) {
      x0 = (t % tiles_x) * kTC;
      y0 = (t / tiles_x) * kTR;
      fast = (n % 4 == 0) && x0 + kTC <= n && y0 + kTR <= n;
      fast_f4_load<kTR, kTC, kThreads, false>(v, in, n, x0, y0, fast);
    }
    fast_f4_store<kTR, kTC, kThreads, false>(out, tiles[b], n, cx0, cy0, cfast);
    if (!more) break;
  }
}

// ---------------------------------------------------------------------------------------------
// fast_f4v: fast_f4's tile with one thing changed at a time, for the last points at N = 16384
// (issue 15). kMode is a set of flags:
//   kF4Pf256   loads as ld.global.nc.L2::256B (read-only path, the L2 fetches whole 256-byte
//              blocks: a 64-column tile row is exactly one) [the hint is documented by NVIDIA, PTX
//              ISA "ld"; whether it helps here is what the bench measures]
//   kF4Stcs    stores only with __stcs (evict-first); fast_f4's _cs variant streams both ways
//   kF4Dyn     the tile in dynamic shared memory, so a tile may exceed the 48 KiB static limit
//              (128x128 floats = 64 KiB); the launch opts in with cudaFuncSetAttribute
// The shared layout and accesses are fast_f4's (same Swizzle<3,2,log2 TC>), so its scenarios apply.
inline constexpr int kF4Pf256 = 1;
inline constexpr int kF4Stcs = 2;
inline constexpr int kF4Dyn = 4;

__device__ __forceinline__ float4 ldg_nc_l2_256(const float* p) {
  float4 v;
  asm("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
}

template <int kTR, int kTC, int kThreads, int kMode>
__global__ void __launch_bounds__(kThreads) fast_f4v(float* __restrict__ out, const float* __restrict__ in, int n) {
  using S = FastF4Shape<kTR, kTC, kThreads>;
  constexpr PhysicalLayout kLayout = fast_f4_layout<kTC>();
  constexpr int kStaticFloats = (kMode & kF4Dyn) ? 4 : S::kTileFloats;
  __shared__ __align__(16) float static_tile[kStaticFloats];
  extern __shared__ __align__(16) float dyn_tile[];
  float* tile = (kMode & kF4Dyn) ? dyn_tile : static_tile;
  const int x0 = blockIdx.x * kTC;
  const int y0 = blockIdx.y * kTR;
  const bool fast = (n % 4 == 0) && x0 + kTC <= n && y0 + kTR <= n;
  float4 v[S::kLoadIters];
  if ((kMode & kF4Pf256) && fast) {
#pragma unroll
    for (int it = 0; it < S::kLoadIters; ++it) {
      const int idx = threadIdx.x + it * kThreads;
      const int r = idx / S::kChunksPerRow;
      const int c = (idx % S::kChunksPerRow) * 4;
      v[it] = ldg_nc_l2_256(in + int64_t(y0 + r) * n + x0 + c);
    }
  } else {
    fast_f4_load<kTR, kTC, kThreads, false>(v, in, n, x0, y0, fast);
  }
#pragma unroll
  for (int it = 0; it < S::kLoadIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    *reinterpret_cast<float4*>(tile + kLayout.offset(idx / S::kChunksPerRow, (idx % S::kChunksPerRow) * 4)) = v[it];
  }
  __syncthreads();
  fast_f4_store<kTR, kTC, kThreads, (kMode & kF4Stcs) != 0>(out, tile, n, x0, y0, fast);
}

// ---------------------------------------------------------------------------------------------
// fast_shift: 16-byte global accesses at every n, including n % 4 != 0 (issue 15).
//
// When n % 4 != 0, input row g starts at element g*n, so its 16-byte chunks are misaligned by
// m = (g*n) % 4 elements, and output row p by m' = (p*n) % 4. fast_f4 then moves its whole tile
// element by element. fast_shift keeps every access 16 bytes wide and aligned:
//   - reads: the 4 elements (g, col..col+3) lie in the aligned chunks at g*n+col-m and 4 later;
//     both are loaded (the second one is the neighbour lane's first: an L1 hit, not more DRAM
//     traffic) and the 4 wanted lanes selected in registers; m == 0 loads one chunk;
//   - writes: output row p is cut into the ALIGNED chunks of the flat array; block (bx, by) owns
//     the chunks whose first column lies in [y0 - m', y0 - m' + TR), so element e of its chunk i
//     is input row y0 - m' + 4i + e, i.e. tile row 4i - m' + e, which for m' > 0 reaches up to 3
//     rows above the tile. So the tile carries a halo of 4 input rows above it (rows y0-4..y0-1,
//     tile rows 0..3; input row y0 + r is tile row r + 4), every thread reads the 7 rows of the
//     two 4x4 blocks that can hold its chunk (7 LDS.128 instead of 4) and selects per output row
//     (m' of output rows x0+4j .. x0+4j+3 differ when n is odd), and every chunk is
//     one aligned STG.128. Ownership partitions each output row exactly, so no element is written
//     twice; only a chunk that crosses column 0 or column n (it holds elements of the previous or
//     next output row) is written element by element, and the last tile-row also owns the partial
//     chunk after its last one, so the chunks reach column n - 1 for every m'.
// At n % 4 == 0 every m, m' is 0: one load per chunk, the halo unused but still loaded (its cost:
// 4/TR more reads, mostly L2 hits, the neighbour tile reads them too).
//
// Shared layout: fast_f4's, on the (TR + 4) x TC tile with the halo first:
//   (h, col) -> fast_f4_layout<TC>().offset(h, col),  h = tile row + 4
// Row writes (STS.128: 8 consecutive chunks of one row a quarter-warp) and block reads (LDS.128:
// rows 4i + q, q = 1..7, for 8 consecutive i a quarter-warp: (4i + q) / 4 % 8 takes 8 values) are
// conflict-free for the same reason as fast_f4's (fast_shift_*.json verify it). Every block
// executes the same shared accesses (edges stage zeros and mask only global accesses), so the
// per-launch counters are the per-tile counts times the grid.
template <int kTR, int kTC, int kThreads>
struct FastShiftShape {
  using Main = FastF4Shape<kTR, kTC, kThreads>;
  static constexpr int kHaloRows = 4;
  static constexpr int kRows = kTR + kHaloRows;
  static constexpr int kHaloChunks = kHaloRows * kTC / 4;  // loaded by threads 0 .. kHaloChunks-1
  static constexpr int kTileFloats = kRows * kTC;
  static_assert(kHaloChunks <= kThreads, "one halo chunk per thread at most");
  static_assert(kHaloChunks % 32 == 0, "the halo is loaded by whole warps");
};

// Elements m .. m+3 of the 8 elements (lo, hi): the register shift of a misaligned chunk.
__device__ __forceinline__ float4 shift4(const float4& lo, const float4& hi, int m) {
  float4 r;
  r.x = m == 0 ? lo.x : m == 1 ? lo.y : m == 2 ? lo.z : lo.w;
  r.y = m == 0 ? lo.y : m == 1 ? lo.z : m == 2 ? lo.w : hi.x;
  r.z = m == 0 ? lo.z : m == 1 ? lo.w : m == 2 ? hi.x : hi.y;
  r.w = m == 0 ? lo.w : m == 1 ? hi.x : m == 2 ? hi.y : hi.z;
  return r;
}

// Input elements (g, col .. col+3), zero outside the matrix, in two steps so that a thread's loads
// are all in flight before any result is used (a shift right after its load would wait a memory
// round trip per chunk; measured on the H200: fast_shift at N = 4096 then ran at 83% of the
// copy instead of fast_f4's 96%):
//   load_chunk_raw: the aligned 16-byte chunk holding element (g, col) and, when the row is
//     misaligned (m != 0), the next one (predicated); element by element (m = 0) where the four
//     do not all lie inside row g and inside the allocation;
//   shift4(lo, hi, m): the 4 wanted elements.
// v = *p where pred, else v unchanged: one predicated ld.global.nc.v4.f32, never speculated.
__device__ __forceinline__ void ldg_nc_if(float4& v, const float4* p, bool pred) {
  asm("{\n .reg .pred q;\n setp.ne.b32 q, %5, 0;\n @q ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];\n}\n"
      : "+f"(v.x), "+f"(v.y), "+f"(v.z), "+f"(v.w)
      : "l"(p), "r"(int(pred)));
}

struct RawChunk {
  float4 lo, hi;
  int m;
};

__device__ __forceinline__ RawChunk load_chunk_raw(const float* __restrict__ in, int n, int g, int col) {
  RawChunk r{make_float4(0.f, 0.f, 0.f, 0.f), make_float4(0.f, 0.f, 0.f, 0.f), 0};
  if (g < 0 || g >= n) return r;
  const int64_t e = int64_t(g) * n + col;  // flat index of element (g, col)
  const int m = int(e & 3);
  if (col + 4 <= n && e - m + (m != 0 ? 8 : 4) <= int64_t(n) * n) {
    // __ldg keeps the loads 16 bytes wide (a plain dereference let nvcc split the second one into
    // the 1-3 scalar loads the shift uses); the second is an explicitly predicated load (nvcc
    // otherwise issued it unconditionally, past the end of the matrix for its last chunk).
    const float4* p = reinterpret_cast<const float4*>(in + (e - m));
    r.lo = __ldg(p);
    ldg_nc_if(r.hi, p + 1, m != 0);
    r.m = m;
  } else {
    float v[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) v[q] = col + q < n ? in[e + q] : 0.0f;
    r.lo = make_float4(v[0], v[1], v[2], v[3]);
  }
  return r;
}

// The kShfl variant of load_chunk_raw: the second aligned chunk of a misaligned row is the next
// lane's first (consecutive lanes hold consecutive chunks of a row), so it comes by shuffle, not
// by a second load through L1; a lane loads it itself only where the next lane holds no such
// chunk: at the end of its row segment (seg_end) or where the next chunk leaves the 16-byte path.
// All lanes must call take_hi (it shuffles).
__device__ __forceinline__ RawChunk load_chunk_lo(const float* __restrict__ in, int n, int g, int col, bool seg_end) {
  RawChunk r{make_float4(0.f, 0.f, 0.f, 0.f), make_float4(0.f, 0.f, 0.f, 0.f), 0};
  if (g < 0 || g >= n) return r;
  const int64_t e = int64_t(g) * n + col;
  const int m = int(e & 3);
  const int64_t total = int64_t(n) * n;
  if (col + 4 <= n && e - m + (m != 0 ? 8 : 4) <= total) {
    const float4* p = reinterpret_cast<const float4*>(in + (e - m));
    r.lo = __ldg(p);
    // The next lane's chunk (g, col + 4) is on the 16-byte path iff the same test holds 4 later.
    const bool next_fast = col + 8 <= n && e + 4 - m + 8 <= total;
    ldg_nc_if(r.hi, p + 1, m != 0 && (seg_end || !next_fast));
    r.m = m == 0 ? 0 : (seg_end || !next_fast) ? -m : m;  // < 0: hi loaded here; > 0: hi by shuffle
  } else {
    float v[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) v[q] = col + q < n ? in[e + q] : 0.0f;
    r.lo = make_float4(v[0], v[1], v[2], v[3]);
  }
  return r;
}

__device__ __forceinline__ float4 take_hi(const RawChunk& r) {
  float4 nb;
  nb.x = __shfl_down_sync(0xffffffffu, r.lo.x, 1);
  nb.y = __shfl_down_sync(0xffffffffu, r.lo.y, 1);
  nb.z = __shfl_down_sync(0xffffffffu, r.lo.z, 1);
  nb.w = __shfl_down_sync(0xffffffffu, r.lo.w, 1);
  // Selected component by component: a whole-struct select put the chunks in local memory.
  const bool by_shuffle = r.m > 0;
  const float4 hi = make_float4(by_shuffle ? nb.x : r.hi.x, by_shuffle ? nb.y : r.hi.y, by_shuffle ? nb.z : r.hi.z,
                                by_shuffle ? nb.w : r.hi.w);
  return shift4(r.lo, hi, r.m < 0 ? -r.m : r.m);
}

__device__ __forceinline__ float lane_of(const float4& v, int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

// Grid: (ceil(n / TC), ceil(n / TR)) as fast_f4, or transposed with kShiftColMajor.
// kMinBlocks > 1 asks ptxas for that many resident blocks per SM (__launch_bounds__), i.e. fewer
// registers per thread: more warps, the same bytes in flight per thread.
// kFlags:
//   kShiftShfl      the second chunk of a misaligned row by shuffle (load_chunk_lo), not a load
//   kShiftColMajor  blocks walk the tiles down a tile-column first (grid (tiles_y, tiles_x)): the
//                   tiles that share an output row's misaligned 32-byte sectors at their ends
//                   (vertical neighbours) run back to back, so each sector's two partial writes
//                   meet in L2 soon (an assumption about what costs at odd n; the bench decides)
inline constexpr int kShiftShfl = 1;
inline constexpr int kShiftColMajor = 2;

template <int kTR, int kTC, int kThreads, int kMinBlocks = 1, int kFlags = 0>
__global__ void __launch_bounds__(kThreads, kMinBlocks) fast_shift(float* __restrict__ out, const float* __restrict__ in,
                                                                   int n) {
  using S = FastShiftShape<kTR, kTC, kThreads>;
  using M = typename S::Main;
  constexpr bool kShfl = (kFlags & kShiftShfl) != 0;
  static_assert(kThreads % M::kChunksPerRow == 0, "a thread's chunk column is the same at every iteration");
  static_assert(!kShfl || 32 % M::kChunksPerRow == 0, "_sh: a row segment lies inside one warp");
  constexpr PhysicalLayout kLayout = fast_f4_layout<kTC>();
  __shared__ __align__(16) float tile[S::kTileFloats];
  const int bx = (kFlags & kShiftColMajor) ? blockIdx.y : blockIdx.x;
  const int by = (kFlags & kShiftColMajor) ? blockIdx.x : blockIdx.y;
  const int tiles_y = (kFlags & kShiftColMajor) ? gridDim.x : gridDim.y;
  const int x0 = bx * kTC;
  const int y0 = by * kTR;

  // Global -> registers: the tile's rows, then (threads 0 .. kHaloChunks-1) the halo rows; every
  // load issued before the first shift.
  // kThreads is a multiple of kChunksPerRow, so a thread's chunk index in its row is the same
  // at every iteration; seg_end: the last chunk of a row segment (the next lane starts a new row).
  const bool seg_end = threadIdx.x % M::kChunksPerRow == M::kChunksPerRow - 1;
  RawChunk v[M::kLoadIters];
#pragma unroll
  for (int it = 0; it < M::kLoadIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    const int g = y0 + idx / M::kChunksPerRow, col = x0 + (idx % M::kChunksPerRow) * 4;
    v[it] = kShfl ? load_chunk_lo(in, n, g, col, seg_end) : load_chunk_raw(in, n, g, col);
  }
  const bool halo = threadIdx.x < S::kHaloChunks;  // whole warps
  RawChunk h{make_float4(0.f, 0.f, 0.f, 0.f), make_float4(0.f, 0.f, 0.f, 0.f), 0};
  if (halo) {
    const int g = y0 - 4 + threadIdx.x / M::kChunksPerRow, col = x0 + (threadIdx.x % M::kChunksPerRow) * 4;
    h = kShfl ? load_chunk_lo(in, n, g, col, seg_end) : load_chunk_raw(in, n, g, col);
  }

  // Registers -> shared (STS.128 row writes), tile row r at h = r + 4.
#pragma unroll
  for (int it = 0; it < M::kLoadIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    *reinterpret_cast<float4*>(tile + kLayout.offset(4 + idx / M::kChunksPerRow, (idx % M::kChunksPerRow) * 4)) =
        kShfl ? take_hi(v[it]) : shift4(v[it].lo, v[it].hi, v[it].m);
  }
  if (halo)  // whole warps: every lane of the warp shuffles
    *reinterpret_cast<float4*>(tile + kLayout.offset(threadIdx.x / M::kChunksPerRow, (threadIdx.x % M::kChunksPerRow) * 4)) =
        kShfl ? take_hi(h) : shift4(h.lo, h.hi, h.m);
  __syncthreads();

  // Shared -> global: thread owns chunk i of output rows x0 + 4j + k, k = 0..3.
#pragma unroll
  for (int it = 0; it < M::kStoreIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    const int i = idx % M::kBlocksI;
    const int j = idx / M::kBlocksI;
    // a[q] = tile rows 4i - 4 + q (h = 4i + q), columns 4j .. 4j+3, for q = 1..7: an element of
    // the chunk is a[4 - m' + q'] with m' <= 3, so a[0] (h = 4i) is never needed: 7 LDS.128.
    float4 a[8];
    a[0] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int q = 1; q < 8; ++q) a[q] = *reinterpret_cast<const float4*>(tile + kLayout.offset(4 * i + q, 4 * j));
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int p = x0 + 4 * j + k;  // output row = input column
      if (p >= n) continue;
      const int64_t row0 = int64_t(p) * n;
      const int m = int((row0 + y0) & 3);  // y0 % 4 == 0: m' of this row
      const int col0 = y0 - m + 4 * i;     // output column of the chunk's element 0
      float e[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {  // element q: tile row 4i - m + q = h 4i + 4 - m + q
        const float s0 = lane_of(a[4 + q], k), s1 = lane_of(a[3 + q], k);
        const float s2 = lane_of(a[2 + q], k), s3 = lane_of(a[1 + q], k);
        e[q] = m == 0 ? s0 : m == 1 ? s1 : m == 2 ? s2 : s3;
      }
      if (col0 >= 0 && col0 + 4 <= n) {
        *reinterpret_cast<float4*>(out + row0 + col0) = make_float4(e[0], e[1], e[2], e[3]);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (col0 + q >= 0 && col0 + q < n) out[row0 + col0 + q] = e[q];
      }
      // The last tile-row also owns the chunk after its last one (i = TR/4): its first m' elements
      // are tile rows TR - m' .. TR - 1 (a[8 - m' + q], already loaded), the rest lie past
      // column n - 1. Without it, columns up to n - 1 would go unwritten when n % TR > TR - m'.
      if (i == M::kBlocksI - 1 && by == tiles_y - 1) {
#pragma unroll
        for (int q = 0; q < 3; ++q) {
          const float t1 = lane_of(a[7 + q < 8 ? 7 + q : 7], k), t2 = lane_of(a[6 + q < 8 ? 6 + q : 7], k);
          const float t3 = lane_of(a[5 + q], k);
          const float val = m == 1 ? t1 : m == 2 ? t2 : t3;  // a[8 - m + q]
          const int c = col0 + 4 + q;
          if (q < m && c < n) out[row0 + c] = val;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// fast_sec<TR, TC, threads, vec, min blocks>: whole 32-byte output sectors at every n (issue 15).
//
// At n % 8 != 0 an output row's run of a tile (TR elements from column y0) starts inside a 32-byte
// sector, so the sector at each end of the run is written partly by this block and partly by the
// block above it in the grid, which runs gridDim.x blocks later. The copy kernel writes such split
// sectors from horizontally adjacent blocks (back to back) and loses 2% from 8192 to 8191 on the
// H200; the transposes before this one lost 10-35% (bench 2026-12-01c), cuBLAS 9%. Measured on the
// H200 (2026-12-01d, ncu_mem.csv): tiled_32x8_32x33 at 8191 moves the same DRAM bytes (+3.5%) and
// the same L2 sectors as the copy but takes 1.56x its time, so the cost is not DRAM traffic; where
// it is (partial-sector merging in L2) is assumed. fast_sec makes every block write whole sectors:
// output row p = x0 + pr of block (bx, by) takes columns
//   [y0 - m, y0 - m + TR),  m = (p * n + y0) % 8 = (pr * n) % 8  (x0, y0 multiples of 8),
// so the block needs input rows y0 - 7 .. y0 + TR - 1: a 7-row halo above the tile (7/TR more
// reads, L2 hits: the block above loaded them). The runs of vertically adjacent blocks tile the row
// exactly (m is the same for every by); the grid has ceil((n + 7) / TR) block rows so the last run
// reaches column n - 1; columns < 0 and >= n are skipped.
//   loads: scalar, a warp reads 32 consecutive elements of one input row (any alignment);
//   shared: tile[TR + 7 + spare][TC], row h = input row y0 - 7 + h; every warp of every block
//           issues the same row writes (out-of-matrix elements stage zeros, lanes past the tile
//           write spare rows: only global accesses are guarded).
//   vec = false: stride TC + 1 (padding), a warp stores 32 consecutive columns of one output row;
//                row writes (STS) and column reads (LDS) are conflict-free (stride odd).
//   vec = true:  16-byte stores (the runs are 32-byte aligned): a thread writes 4 consecutive
//                columns, reading 4 tile rows h = 7 - m + 4j + q of column pr (j = its chunk).
//                TR = 64: a warp is 16 chunks of 2 output rows; layout tile[h][c ^ (2 (h / 4)) % 32]
//                (Swizzle<4,1,log2 TC + 2>): for fixed q the 16 lanes of a row have h / 4 = j + const,
//                16 distinct even XOR terms, and even and odd pr stay apart: 32 banks.
//                TR = 128: a warp is the 32 chunks of one output row; tile[h][c ^ (h / 4) % 32]
//                (Swizzle<5,0,log2 TC + 2>): 32 distinct XOR terms. Row writes: c ^ const, a
//                bijection on 32 consecutive c.
// nvcc (13.0, sm_90) branches around the LDS of an output row the block does not store (p >= n;
// the scalar kernel also columns outside 0..n-1): the scenarios say so ("issue": "branch").
// The scenarios fast_sec_*.json describe every variant; `validate` checks them.
inline constexpr int kSecHalo = 7;
template <int kTR, int kTC, bool kVec>
BANKSCOPE_HD constexpr PhysicalLayout fast_sec_layout() {
  return !kVec ? PhysicalLayout{kTC + 1}
         : kTR == 64 ? PhysicalLayout{kTC, 0, Swizzle{4, 1, log2_int(kTC) + 1}}
                     : PhysicalLayout{kTC, 0, Swizzle{5, 0, log2_int(kTC) + 2}};
}
static_assert(fast_sec_layout<64, 64, true>().offset(4, 0) == 4 * 64 + 2, "64x64 vec: row 4 -> xor 2");
static_assert(fast_sec_layout<64, 64, true>().offset(9, 5) == 9 * 64 + (5 ^ 4), "64x64 vec: row 9 -> xor 2 * 2");
static_assert(fast_sec_layout<64, 64, true>().offset(67, 33) == 67 * 64 + 33, "64x64 vec: (67 / 4) % 16 = 0");
static_assert(fast_sec_layout<128, 64, true>().offset(9, 5) == 9 * 64 + (5 ^ 2), "128x64 vec: row 9 -> xor 2");
static_assert(fast_sec_layout<128, 64, true>().offset(130, 40) == 130 * 64 + (40 ^ 0), "128x64 vec: (130/4)%32 = 0");
static_assert(fast_sec_layout<128, 64, true>().offset(127, 40) == 127 * 64 + (40 ^ 31), "128x64 vec: row 127 -> xor 31");
static_assert(fast_sec_layout<64, 64, false>().offset(2, 3) == 2 * 65 + 3, "scalar: stride 65");

// kMinBlocks = 0: no occupancy target for ptxas. Measured (H200, 2026-12-01e): a target of 1 block
// per SM let ptxas take 104 registers instead of 64 for 64x64_t256_vec, and the kernel fell from
// 3523 to 2561 GB/s at n = 8191.
template <int kTR, int kTC, int kThreads, bool kVec, int kMinBlocks = 0>
__global__ void __launch_bounds__(kThreads, kMinBlocks) fast_sec(float* __restrict__ out, const float* __restrict__ in,
                                                                 int n) {
  constexpr int kRows = kTR + kSecHalo;
  constexpr PhysicalLayout kLayout = fast_sec_layout<kTR, kTC, kVec>();
  constexpr int kLoadElems = kRows * kTC;
  constexpr int kLoadIters = (kLoadElems + kThreads - 1) / kThreads;
  // Spare rows for the last iteration's lanes past the tile, so that every row write is issued
  // by every warp unconditionally (a guarded STS is branched around or predicated at nvcc's
  // choice, which changes the instruction count; measured on the H200, 2026-12-01e).
  constexpr int kRowsAlloc = (kLoadIters * kThreads + kTC - 1) / kTC;
  constexpr int kTileFloats = kRowsAlloc * (kVec ? kTC : kTC + 1);
  static_assert(kTC % 32 == 0 && kThreads % 32 == 0, "a warp reads 32 elements of one row");
  static_assert(kTR % 8 == 0, "runs of whole sectors");
  static_assert(!kVec || ((kTR == 64 || kTR == 128) && kTC >= 32 && (kTC & (kTC - 1)) == 0),
                "vec: the swizzle argument above is for TR = 64 or 128 and TC a power of two");
  __shared__ __align__(16) float tile[kTileFloats];
  const int x0 = blockIdx.x * kTC;  // input columns = output rows
  const int y0 = blockIdx.y * kTR;  // input rows = output columns (before the halo)

  float v[kLoadIters];
#pragma unroll
  for (int it = 0; it < kLoadIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    const int g = y0 - kSecHalo + idx / kTC, col = x0 + idx % kTC;
    v[it] = (idx < kLoadElems && g >= 0 && g < n && col < n) ? __ldg(in + int64_t(g) * n + col) : 0.0f;
  }
#pragma unroll
  for (int it = 0; it < kLoadIters; ++it) {
    const int idx = threadIdx.x + it * kThreads;
    tile[kLayout.offset(idx / kTC, idx % kTC)] = v[it];  // rows >= kRows: spare, never read
  }
  __syncthreads();

  if constexpr (!kVec) {
#pragma unroll
    for (int it = 0; it < kTR * kTC / kThreads; ++it) {
      const int idx = threadIdx.x + it * kThreads;
      const int pr = idx / kTR, k = idx % kTR;
      const int p = x0 + pr;
      const int64_t row0 = int64_t(p) * n;
      const int m = (pr * n) & 7;  // = (p * n + y0) % 8
      const int oc = y0 - m + k;
      const float val = tile[kLayout.offset(kSecHalo - m + k, pr)];
      if (p < n && oc >= 0 && oc < n) out[row0 + oc] = val;
    }
  } else {
    constexpr int kChunks = kTR / 4;  // 16-byte chunks per output run
#pragma unroll
    for (int it = 0; it < kTC * kChunks / kThreads; ++it) {
      const int idx = threadIdx.x + it * kThreads;
      const int pr = idx / kChunks, j = idx % kChunks;
      const int p = x0 + pr;
      const int64_t row0 = int64_t(p) * n;
      const int m = (pr * n) & 7;  // = (p * n + y0) % 8
      const int oc = y0 - m + 4 * j;
      float e[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) e[q] = tile[kLayout.offset(kSecHalo - m + 4 * j + q, pr)];
      if (p < n) {
        if (oc >= 0 && oc + 4 <= n) {
          *reinterpret_cast<float4*>(out + row0 + oc) = make_float4(e[0], e[1], e[2], e[3]);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (oc + q >= 0 && oc + q < n) out[row0 + oc + q] = e[q];
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// fast_reg4x4: no shared memory. Block 256 threads = 8 warps over a 64x64 tile (2 warps across,
// 4 down); a warp is 8 lanes across x 4 lanes down, each lane a 4x4 block. Read k: 4 rows x 128
// contiguous bytes; write k: 8 output rows x 64 contiguous bytes (two whole 32-byte sectors).
inline constexpr int kReg4x4Tile = 64;

__global__ void __launch_bounds__(256) fast_reg4x4(float* __restrict__ out, const float* __restrict__ in, int n) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int lx = lane & 7, ly = lane >> 3;     // lane -> (4x4 block across, block down) in the warp
  const int wx = warp & 1, wy = warp >> 1;     // warp -> (32 columns across, 16 rows down)
  const int col = blockIdx.x * kReg4x4Tile + wx * 32 + lx * 4;  // first input column of the block
  const int row = blockIdx.y * kReg4x4Tile + wy * 16 + ly * 4;  // first input row of the block
  const bool fast = (n % 4 == 0) && col + 4 <= n && row + 4 <= n;
  float4 a[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int64_t g = int64_t(row + k) * n + col;
    if (fast) {
      a[k] = *reinterpret_cast<const float4*>(in + g);
    } else {
      float e[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) e[q] = (row + k < n && col + q < n) ? in[g + q] : 0.0f;
      a[k] = make_float4(e[0], e[1], e[2], e[3]);
    }
  }
  float4 b[4];
  transpose4x4(a, b);
  store_rows4(out, n, col, row, b, fast);
}


// ---------------------------------------------------------------------------------------------
// fast_tma: the tile arrives by the Hopper bulk tensor copy engine (cp.async.bulk.tensor.2d,
// completing on an mbarrier), one 64-row x 32-column box (8 KiB) per block of 128 threads, then
// the same 4x4 register transpose and 16-byte stores as fast_f4.
//
// The copy engine writes the box with its 128-byte swizzle [documented by NVIDIA, CUDA C++
// Programming Guide "Tensor memory access", CU_TENSOR_MAP_SWIZZLE_128B]: within each 1024-byte
// block, 16-byte chunk c of 128-byte row r lands at chunk c ^ (r % 8). On float offsets that is
//   (row, col) -> PhysicalLayout{32, 0, Swizzle{3, 2, 3}}.offset(row, col)   (fast_tma.json:
//   "tma_swizzle": "128B", rule R10 in sim/RULES.md)
// and needs the tile 1024-byte aligned. The 4x4 read of fast_f4 (8 consecutive i per quarter-warp)
// would be 4-way here ((4i+k) % 8 takes 2 values), so the lanes are placed differently: a quarter-
// warp holds 2 values of i (i % 2 differs) x 4 values of j, whose physical chunks
// (j ^ (4(i%2) + k)) are 8 distinct; a warp still covers 8 consecutive i, so each 16-byte store
// instruction writes 4 output rows x 128 contiguous bytes.
//   lane -> (i, j): i = 8 (warp % 2) + 2 (lane / 8) + lane % 2,  j = 4 (warp / 2) + (lane / 2) % 4
// Bounds: the copy engine zero-fills what lies outside the matrix; stores are guarded as in fast_f4.
// The tensor map needs a row pitch that is a multiple of 16 bytes: n % 4 != 0 is refused (host).
inline constexpr int kTmaRows = 64;     // box rows (input rows per tile)
inline constexpr int kTmaCols = 32;     // box columns: 32 floats = 128 bytes, the 128B swizzle's span
inline constexpr int kTmaThreads = 128;
inline constexpr uint32_t kTmaBoxBytes = kTmaRows * kTmaCols * 4;

// The model's named layout (tma_swizzle 128B, sim/bank_math.hpp), so kernel and model share it.
BANKSCOPE_HD constexpr PhysicalLayout fast_tma_layout() {
  return PhysicalLayout{kTmaCols, 0, tma_swizzle_on_elements(tma_swizzle_mode(128), 4), 128};
}
static_assert(fast_tma_layout().swizzle.base == 2 && fast_tma_layout().swizzle.shift == 3, "Swizzle<3,2,3>");
static_assert(fast_tma_layout().offset(9, 4) == 9 * 32 + ((1 ^ 1) << 2), "row 9, chunk 1 -> chunk 1 ^ 1");
static_assert(fast_tma_layout().offset(7, 0) == 7 * 32 + (7 << 2), "row 7, chunk 0 -> chunk 7");

__global__ void __launch_bounds__(kTmaThreads) fast_tma(float* __restrict__ out, const __grid_constant__ CUtensorMap map,
                                                         int n) {
  __shared__ __align__(128) unsigned char raw[kTmaBoxBytes + 1024];
  __shared__ __align__(8) uint64_t bar;
  // The 128B swizzle is a function of the shared address bits, so the box must start 1024-aligned.
  const uint32_t raw_addr = smem_addr(raw);
  const uint32_t pad = (1024u - (raw_addr & 1023u)) & 1023u;
  const float* tile = reinterpret_cast<const float*>(raw + pad);
  const uint32_t tile_addr = raw_addr + pad;
  const uint32_t bar_addr = smem_addr(&bar);
  const int x0 = blockIdx.x * kTmaCols;
  const int y0 = blockIdx.y * kTmaRows;

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(1) : "memory");
    // Make the initialized barrier visible to the copy engine (the async proxy).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(kTmaBoxBytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            tile_addr),
        "l"(reinterpret_cast<uint64_t>(&map)), "r"(x0), "r"(y0), "r"(bar_addr)
        : "memory");
  }
  __syncthreads();  // every thread sees the initialized barrier before waiting on it
  // Wait for phase 0 (a box that never arrives traps instead of hanging the bench).
  mbarrier_wait_phase0(bar_addr);

  constexpr PhysicalLayout kLayout = fast_tma_layout();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int i = 8 * (warp & 1) + 2 * (lane >> 3) + (lane & 1);
  const int j = 4 * (warp >> 1) + ((lane >> 1) & 3);
  float4 a[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = *reinterpret_cast<const float4*>(tile + kLayout.offset(4 * i + k, 4 * j));
  float4 b[4];
  transpose4x4(a, b);
  const bool fast = x0 + kTmaCols <= n && y0 + kTmaRows <= n;  // n % 4 == 0 is the host's precondition
  store_rows4(out, n, x0 + 4 * j, y0 + 4 * i, b, fast);
}

}  // namespace bench
}  // namespace bankscope
