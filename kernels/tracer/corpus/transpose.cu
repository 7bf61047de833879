// transpose.cu: tiled transpose, 32x8 threads per 32x32 tile, launched twice: tile[32][32] (the
// column read is 32-way) then tile[32][33] (padded, conflict-free). N = 256: 64 blocks each.
#include <vector>

#include "corpus_check.cuh"

template <int kStride>
__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ float tile[32][kStride];
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += 8) tile[j][threadIdx.x] = in[(y0 + j) * n + x];
  __syncthreads();
  const int ox = blockIdx.y * 32 + threadIdx.x;
  const int oy0 = blockIdx.x * 32;
  for (int j = threadIdx.y; j < 32; j += 8) out[(oy0 + j) * n + ox] = tile[threadIdx.x][j];
}

int main() {
  const int n = 256;
  std::vector<float> h(n * n), r(n * n);
  for (int i = 0; i < n * n; ++i) h[i] = static_cast<float>(i);
  float *in, *out;
  CORPUS_CHECK(cudaMalloc(&in, n * n * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&out, n * n * sizeof(float)));
  CORPUS_CHECK(cudaMemcpy(in, h.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  int bad = 0;
  for (int pass = 0; pass < 2; ++pass) {
    CORPUS_CHECK(cudaMemset(out, 0, n * n * sizeof(float)));
    if (pass == 0) transpose_tiled<32><<<dim3(n / 32, n / 32), dim3(32, 8)>>>(out, in, n);
    else transpose_tiled<33><<<dim3(n / 32, n / 32), dim3(32, 8)>>>(out, in, n);
    CORPUS_CHECK(cudaGetLastError());
    CORPUS_CHECK(cudaMemcpy(r.data(), out, n * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) bad += r[x * n + y] != h[y * n + x];
  }
  std::printf("transpose: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
