// mma_gemm.cu: C = A * B for N x N half inputs (row-major) and a float C, on the tensor cores:
// a 64 x 64 x 32 block tile, 4 warps each owning a 32 x 32 quarter of C, shared tiles read with
// ldmatrix and multiplied with mma.sync m16n8k16 (issue 11 item 5; written here).
//
//   global --LDG.128--> registers --STS.128--> As[64][32], Bs[32][64] (half)
//   As --ldmatrix.x4--> A fragments;  Bs --ldmatrix.x4.trans--> B fragments (Bs is k-major)
//
// The layout is the program's parameter SWZ (the scenario's param of the same name):
//   SWZ=0  rows of 32 (As) and 64 (Bs) halves, unswizzled: an 8x8 matrix's eight 16-byte rows
//          sit 64 bytes (As) or 128 bytes (Bs) apart, so they pile up on the same banks.
//   SWZ=1  the 16-byte chunk index of a row XOR-ed with row bits, chosen so that any 8
//          consecutive rows at the same logical chunk land on 8 different 16-byte bank groups:
//            As (4 chunks a row, 2 rows per 128 bytes): chunk ^ ((row >> 1) & 3)
//            Bs (8 chunks a row):                        chunk ^ (row & 7)
//   SWZ=2  rows padded by 8 halves (As 40, Bs 72 halves: 80 and 144 bytes), so 8 consecutive rows
//          start on 8 different 16-byte bank groups too; the As stores now conflict (a quarter
//          warp writes two 64-byte rows 80 bytes apart, 144 bytes whose ends share banks).
// Edge tiles (N not a multiple of 64 or of 32) are zero-filled in shared memory, so every
// ldmatrix and mma runs for every tile and the shared traffic per tile is the same at every N.
// N must be a multiple of 8, so that every 16-byte global chunk is either wholly inside or outside.
// Inputs are small integers: every product and partial sum is exact in fp32, so C is compared
// exactly with a CPU reference.
#include <cuda_fp16.h>

#include "../realworld/realworld.cuh"

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 32;
constexpr int kThreads = 128;

// Row strides in halves: padded by 8 for SWZ=2.
__host__ __device__ constexpr int lda(int swz) { return swz == 2 ? kBK + 8 : kBK; }
__host__ __device__ constexpr int ldb(int swz) { return swz == 2 ? kBN + 8 : kBN; }

// (row, col) of the logical tile -> half offset in shared memory.
template <int SWZ>
__device__ __forceinline__ int a_off(int r, int c) {
  const int chunk = (c >> 3) ^ (SWZ == 1 ? (r >> 1) & 3 : 0);
  return r * lda(SWZ) + (chunk << 3) + (c & 7);
}
template <int SWZ>
__device__ __forceinline__ int b_off(int r, int c) {
  const int chunk = (c >> 3) ^ (SWZ == 1 ? r & 7 : 0);
  return r * ldb(SWZ) + (chunk << 3) + (c & 7);
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <int SWZ>
__global__ void __launch_bounds__(kThreads) mma_gemm(const half* A, const half* B, float* C, int n) {
  __shared__ __align__(128) half As[kBM * lda(SWZ)];
  __shared__ __align__(128) half Bs[kBK * ldb(SWZ)];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 1, wn = warp & 1;  // this warp's 32 x 32 quarter of the block tile
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  float acc[2][4][4] = {};
  for (int k0 = 0; k0 < n; k0 += kBK) {
    // Each thread moves two 16-byte chunks of A (64 rows x 4 chunks) and two of B (32 x 8).
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int idx = tid + i * kThreads;
      const int r = idx >> 2, c = (idx & 3) * 8;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (row0 + r < n && k0 + c < n) v = *reinterpret_cast<const uint4*>(A + (long)(row0 + r) * n + k0 + c);
      *reinterpret_cast<uint4*>(&As[a_off<SWZ>(r, c)]) = v;
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int idx = tid + i * kThreads;
      const int r = idx >> 3, c = (idx & 7) * 8;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (k0 + r < n && col0 + c < n) v = *reinterpret_cast<const uint4*>(B + (long)(k0 + r) * n + col0 + c);
      *reinterpret_cast<uint4*>(&Bs[b_off<SWZ>(r, c)]) = v;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      // ldmatrix.x4: lane l gives the row address of matrix l / 8, row l % 8. For A's 16 x 16
      // fragment the matrices are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15), the
      // order of mma's a0..a3: lane l -> row l % 16, k (l / 16) * 8.
      unsigned a[2][4], b[4][2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int r = wm * 32 + i * 16 + (lane & 15), c = kk + (lane >> 4) * 8;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
                     : "r"(smem_addr(&As[a_off<SWZ>(r, c)])));
      }
      // ldmatrix.x4.trans on the k-major Bs: matrices (k 0-7, n 0-7), (k 8-15, n 0-7),
      // (k 0-7, n 8-15), (k 8-15, n 8-15) are b0, b1 of two n8 tiles (.col operand after .trans):
      // lane l -> k row l % 16, n (l / 16) * 8.
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int r = kk + (lane & 15), c = wn * 32 + j * 16 + (lane >> 4) * 8;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(b[2 * j][0]), "=r"(b[2 * j][1]), "=r"(b[2 * j + 1][0]), "=r"(b[2 * j + 1][1])
                     : "r"(smem_addr(&Bs[b_off<SWZ>(r, c)])));
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
              "{%8,%9}, {%0,%1,%2,%3};\n"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    __syncthreads();
  }
  // mma's C fragment: c0, c1 at (lane / 4, lane % 4 * 2 + {0, 1}), c2, c3 eight rows below.
  const int g = lane >> 2, q = (lane & 3) * 2;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int h = 0; h < 4; ++h) {
        const int r = row0 + wm * 32 + i * 16 + g + (h >> 1) * 8;
        const int c = col0 + wn * 32 + j * 8 + q + (h & 1);
        if (r < n && c < n) C[(long)r * n + c] = acc[i][j][h];
      }
}

}  // namespace

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 4096, true);
  int swz = -1;
  for (int i = 2; i < argc; ++i) {
    if (std::strncmp(argv[i], "SWZ=", 4) == 0 && argv[i][4] >= '0' && argv[i][4] <= '2' && argv[i][5] == 0) {
      swz = argv[i][4] - '0';
    } else {
      std::fprintf(stderr, "%s: '%s': expected SWZ=0, 1 or 2\n", argv[0], argv[i]);
      return 2;
    }
  }
  if (swz < 0 || n % 8 != 0) {
    std::fprintf(stderr, "%s: usage: %s N SWZ=0|1|2 with N a multiple of 8\n", argv[0], argv[0]);
    return 2;
  }
  const size_t nn = size_t(n) * n;
  std::vector<half> ha(nn), hb(nn);
  std::vector<int> ia(nn), ib(nn);
  for (size_t i = 0; i < nn; ++i) {
    ia[i] = rw::value_at(long(i), 5);
    ib[i] = rw::value_at(long(i + nn), 5);
    ha[i] = __int2half_rn(ia[i]);
    hb[i] = __int2half_rn(ib[i]);
  }
  half *da, *db;
  float* dc;
  RW_CHECK(cudaMalloc(&da, nn * sizeof(half)));
  RW_CHECK(cudaMalloc(&db, nn * sizeof(half)));
  RW_CHECK(cudaMalloc(&dc, nn * sizeof(float)));
  RW_CHECK(cudaMemcpy(da, ha.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemcpy(db, hb.data(), nn * sizeof(half), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemset(dc, 0xff, nn * sizeof(float)));  // NaN: an unwritten C cannot pass
  const dim3 grid(unsigned((n + kBN - 1) / kBN), unsigned((n + kBM - 1) / kBM));
  if (swz == 0) mma_gemm<0><<<grid, kThreads>>>(da, db, dc, int(n));
  else if (swz == 1) mma_gemm<1><<<grid, kThreads>>>(da, db, dc, int(n));
  else mma_gemm<2><<<grid, kThreads>>>(da, db, dc, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaDeviceSynchronize());
  std::vector<float> hc(nn);
  RW_CHECK(cudaMemcpy(hc.data(), dc, nn * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  std::vector<long> row(n);
  for (long r = 0; r < n; ++r) {
    std::fill(row.begin(), row.end(), 0);
    for (long k = 0; k < n; ++k) {
      const long av = ia[size_t(r * n + k)];
      if (av == 0) continue;
      const int* brow = &ib[size_t(k * n)];
      for (long c = 0; c < n; ++c) row[size_t(c)] += av * brow[c];
    }
    for (long c = 0; c < n; ++c)
      if (hc[size_t(r * n + c)] != float(row[size_t(c)])) ++bad;
  }
  const char* names[] = {"mma_gemm SWZ=0", "mma_gemm SWZ=1", "mma_gemm SWZ=2"};
  return rw::report(names[swz], n, bad, long(nn));
}
