// kernels.cu: the test kernels of `bankscope-cli sass` and `check` (tests/cli_sass_tests.sh),
// written here. Line numbers matter: the scenarios beside this file name them.
//
// sgemm_tile: a 2-D tiled SGEMM (C = A * B, row-major, n a multiple of 32). The inner loop reads As by row and Bs by column
// one float at a time in the source; ptxas merges four consecutive As reads into one LDS.128
// (nvcc 13.0, sm_90, measured here). Each shared access has a line of its own, so that
// `check` can tell them apart (it matches accesses to instructions per source line).
#define TILE 32

__global__ void sgemm_tile(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) {
      const float a = As[ty][k];
      const float b = Bs[k][tx];
      acc += a * b;
    }
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// A bounds-checked copy through shared memory, reversed within each block of 256: its guarded
// store and guarded load are what `check` compares with a scenario's "issue".
__global__ void guarded_reverse(const float* in, float* out, int n) {
  __shared__ float buf[256];
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) buf[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = buf[255 - threadIdx.x];
}
