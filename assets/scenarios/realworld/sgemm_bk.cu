// sgemm_bk.cu: C = A * B for N x N row-major floats, 64 x 64 block tiles, BK = 8, 16 x 16
// threads each computing a 4 x 4 patch in registers (the 2-D register-blocked SGEMM of the
// public step-by-step GEMM write-ups; written here). The A tile is stored transposed (k-major), so
// the dot-product loop reads four consecutive floats of As and of Bs per k and bumps both shared
// pointers by one tile row (`as += BM`, `bs += BN`), and the global pointers by one tile
// (`A += BK`, `B += BK * n`). In the source every shared read is a scalar float; ptxas merges each
// group of four into one LDS.128 (nvcc 13.0, sm_90, `bankscope-cli sass`). Edge tiles are
// zero-filled, so N need not be a multiple of 64 or of BK.
#include "realworld.cuh"

#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4

__global__ void sgemm_bk(const float* A, const float* B, float* C, int n) {
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * 16 + tx;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int a_r = tid / 4, a_c = (tid % 4) * 2;  // this thread's 2 A elements: row a_r, cols a_c, a_c + 1
  const int b_r = tid / 32, b_c = (tid % 32) * 2;  // and 2 B elements: row b_r, cols b_c, b_c + 1
  A += (long)row0 * n;
  B += col0;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < n; k0 += BK) {
    const bool ar = row0 + a_r < n;
    As[(a_c + 0) * BM + a_r] = ar && k0 + a_c + 0 < n ? A[(long)a_r * n + a_c + 0] : 0.0f;
    As[(a_c + 1) * BM + a_r] = ar && k0 + a_c + 1 < n ? A[(long)a_r * n + a_c + 1] : 0.0f;
    const bool br = k0 + b_r < n;
    Bs[b_r * BN + b_c + 0] = br && col0 + b_c + 0 < n ? B[(long)b_r * n + b_c + 0] : 0.0f;
    Bs[b_r * BN + b_c + 1] = br && col0 + b_c + 1 < n ? B[(long)b_r * n + b_c + 1] : 0.0f;
    __syncthreads();
    A += BK;
    B += (long)BK * n;
    const float* as = As + ty * TM;
    const float* bs = Bs + tx * TN;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = as[i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = bs[j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
      as += BM;
      bs += BN;
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
      if (r < n && c < n) C[(long)r * n + c] = acc[i][j];
    }
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 4096);
  float* h_a = new float[n * n];
  float* h_b = new float[n * n];
  float* h_c = new float[n * n];
  for (long i = 0; i < n * n; ++i) {
    h_a[i] = float(rw::value_at(i, 8));
    h_b[i] = float(rw::value_at(i + 7, 8));
  }
  float *d_a, *d_b, *d_c;
  RW_CHECK(cudaMalloc(&d_a, n * n * sizeof(float)));
  RW_CHECK(cudaMalloc(&d_b, n * n * sizeof(float)));
  RW_CHECK(cudaMalloc(&d_c, n * n * sizeof(float)));
  RW_CHECK(cudaMemcpy(d_a, h_a, n * n * sizeof(float), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemcpy(d_b, h_b, n * n * sizeof(float), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemset(d_c, 0xff, n * n * sizeof(float)));
  sgemm_bk<<<dim3((n + BN - 1) / BN, (n + BM - 1) / BM), dim3(16, 16)>>>(d_a, d_b, d_c, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_c, d_c, n * n * sizeof(float), cudaMemcpyDeviceToHost));
  // Inputs are integers in [-4, 3]: every partial sum is an integer below 2^24, exact in float.
  long bad = 0;
  std::vector<float> row(n);
  for (long r = 0; r < n; ++r) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (long k = 0; k < n; ++k)
      for (long c = 0; c < n; ++c) row[c] += h_a[r * n + k] * h_b[k * n + c];
    for (long c = 0; c < n; ++c) bad += h_c[r * n + c] != row[c];
  }
  return rw::report("sgemm_bk", n, bad, n * n);
}
