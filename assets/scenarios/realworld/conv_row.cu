// conv_row.cu: the row pass of a separable convolution, radius 16 (33 taps), on an N x N image
// (the tiling of the CUDA samples' convolutionSeparable; written here). A block of 32 x 4 threads
// computes 4 rows x 128 columns; its shared tile holds each row's 128 columns plus a 32-column
// apron on each side, loaded in six 32-wide steps (zeros outside the image). Each output reads 33
// tile words; the four results of a thread overlap in three of them (step j's k = +16 is step
// j + 1's k = -16), and ptxas loads those once: 4 x 33 - 3 = 129 LDS per thread.
#include "realworld.cuh"

#define RADIUS 16
#define BLOCK_W 32
#define BLOCK_H 4
#define STEPS 4
#define HALO 1

__constant__ float c_kernel[2 * RADIUS + 1];

__global__ void conv_row(const float* in, float* out, int n) {
  __shared__ float s[BLOCK_H][(STEPS + 2 * HALO) * BLOCK_W];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = (blockIdx.x * STEPS - HALO) * BLOCK_W + tx;
  const int y = blockIdx.y * BLOCK_H + ty;
#pragma unroll
  for (int j = 0; j < STEPS + 2 * HALO; ++j) {
    const int x = x0 + j * BLOCK_W;
    s[ty][tx + j * BLOCK_W] = x >= 0 && x < n && y < n ? in[(long)y * n + x] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int j = HALO; j < HALO + STEPS; ++j) {
    float sum = 0.0f;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k) {
      sum += c_kernel[RADIUS - k] * s[ty][tx + j * BLOCK_W + k];
    }
    const int x = x0 + j * BLOCK_W;
    if (x < n && y < n) out[(long)y * n + x] = sum;
  }
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 8192);
  float h_k[2 * RADIUS + 1];
  for (int k = 0; k <= 2 * RADIUS; ++k) h_k[k] = float(k % 5 - 2);
  float* h_in = new float[n * n];
  float* h_out = new float[n * n];
  for (long i = 0; i < n * n; ++i) h_in[i] = float(rw::value_at(i, 50));
  float *d_in, *d_out;
  RW_CHECK(cudaMalloc(&d_in, n * n * sizeof(float)));
  RW_CHECK(cudaMalloc(&d_out, n * n * sizeof(float)));
  RW_CHECK(cudaMemcpy(d_in, h_in, n * n * sizeof(float), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemcpyToSymbol(c_kernel, h_k, sizeof h_k));
  RW_CHECK(cudaMemset(d_out, 0xff, n * n * sizeof(float)));
  const dim3 grid((n + STEPS * BLOCK_W - 1) / (STEPS * BLOCK_W), (n + BLOCK_H - 1) / BLOCK_H);
  conv_row<<<grid, dim3(BLOCK_W, BLOCK_H)>>>(d_in, d_out, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_out, d_out, n * n * sizeof(float), cudaMemcpyDeviceToHost));
  // Small integers times small integers: every partial sum is exact in float, in any order.
  long bad = 0;
  for (long y = 0; y < n; ++y)
    for (long x = 0; x < n; ++x) {
      float sum = 0.0f;
      for (int k = -RADIUS; k <= RADIUS; ++k)
        if (x + k >= 0 && x + k < n) sum += h_k[RADIUS - k] * h_in[y * n + x + k];
      bad += h_out[y * n + x] != sum;
    }
  return rw::report("conv_row", n, bad, n * n);
}
