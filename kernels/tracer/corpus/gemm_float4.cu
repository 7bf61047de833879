// gemm_float4.cu: C = A * B (256x256, fp32), 64x64 block tiles, 16x16 threads, 4x4 outputs per
// thread read from shared memory as float4 (LDS.128): As is stored transposed so a thread's 4 rows
// are contiguous.
#include <vector>

#include "corpus_check.cuh"

constexpr int kT = 64, kK = 16;

__global__ void gemm_float4(float* c, const float* a, const float* b, int n) {
  __shared__ __align__(16) float as[kK][kT];  // as[k][m]: A tile transposed
  __shared__ __align__(16) float bs[kK][kT];  // bs[k][n]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int row0 = blockIdx.y * kT, col0 = blockIdx.x * kT;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < n; k0 += kK) {
    for (int i = tid; i < kT * kK; i += 256) {
      const int m = i / kK, k = i % kK;
      as[k][m] = a[(row0 + m) * n + k0 + k];
      const int kb = i / kT, nb = i % kT;
      bs[kb][nb] = b[(k0 + kb) * n + col0 + nb];
    }
    __syncthreads();
    for (int k = 0; k < kK; ++k) {
      const float4 av = *reinterpret_cast<const float4*>(&as[k][ty * 4]);
      const float4 bv = *reinterpret_cast<const float4*>(&bs[k][tx * 4]);
      const float ar[4] = {av.x, av.y, av.z, av.w}, br[4] = {bv.x, bv.y, bv.z, bv.w};
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += ar[i] * br[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c[(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}

int main() {
  const int n = 256;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 5) - 2;
    b[i] = static_cast<float>(i % 3) - 1;
  }
  float *da, *db, *dc;
  CORPUS_CHECK(cudaMalloc(&da, n * n * 4));
  CORPUS_CHECK(cudaMalloc(&db, n * n * 4));
  CORPUS_CHECK(cudaMalloc(&dc, n * n * 4));
  CORPUS_CHECK(cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemset(dc, 0, n * n * 4));
  gemm_float4<<<dim3(n / kT, n / kT), dim3(16, 16)>>>(dc, da, db, n);
  CORPUS_CHECK(cudaGetLastError());
  CORPUS_CHECK(cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i += 17)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int k = 0; k < n; ++k) want += a[i * n + k] * b[k * n + j];
      bad += c[i * n + j] != want;  // small integers: exact
    }
  std::printf("gemm_float4: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
