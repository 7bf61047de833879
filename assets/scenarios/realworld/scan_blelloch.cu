// scan_blelloch.cu: a work-efficient (Blelloch) exclusive scan of each m-element chunk (m a power
// of two up to 512, a kernel parameter as in the GPU Gems 3 kernel; m / 2 threads per block), with the shared index padded by CONFLICT_FREE_OFFSET: one extra word every 32,
// so the up- and down-sweep's power-of-two strides do not pile onto one bank (the scan chapter of
// GPU Gems 3 describes the scheme; this kernel is written here). Floats holding small integers, so
// the CPU reference is exact.
#include "realworld.cuh"

#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(i) ((i) >> LOG_NUM_BANKS)
#define ELEMS 512

__global__ void scan_blelloch(const float* in, float* out, int n, int m) {
  __shared__ float temp[ELEMS + ELEMS / 32];
  const int tid = threadIdx.x;
  const int base = blockIdx.x * m;
  const int ai = tid, bi = tid + m / 2;
  temp[ai + CONFLICT_FREE_OFFSET(ai)] = base + ai < n ? in[base + ai] : 0.0f;
  temp[bi + CONFLICT_FREE_OFFSET(bi)] = base + bi < n ? in[base + bi] : 0.0f;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      const float x = temp[a];
      const float y = temp[b];
      temp[b] = x + y;
    }
    offset *= 2;
  }
  if (tid == 0) temp[m - 1 + CONFLICT_FREE_OFFSET(m - 1)] = 0.0f;
  for (int d = 1; d < m; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      const float x = temp[a];
      const float y = temp[b];
      temp[a] = y;
      temp[b] = x + y;
    }
  }
  __syncthreads();
  if (base + ai < n) out[base + ai] = temp[ai + CONFLICT_FREE_OFFSET(ai)];
  if (base + bi < n) out[base + bi] = temp[bi + CONFLICT_FREE_OFFSET(bi)];
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 1L << 26, true);
  long m = ELEMS;  // M=VALUE: elements per block, a power of two from 64 to 512
  for (int i = 2; i < argc; ++i) {
    if (std::strncmp(argv[i], "M=", 2) != 0 || (m = std::atol(argv[i] + 2)) < 64 || m > ELEMS || (m & (m - 1))) {
      std::fprintf(stderr, "%s: '%s': expected M=64|128|256|512\n", argv[0], argv[i]);
      return 2;
    }
  }
  const long blocks = (n + m - 1) / m;
  float* h_in = new float[n];
  float* h_out = new float[n];
  for (long i = 0; i < n; ++i) h_in[i] = float(rw::value_at(i, 64));
  float *d_in, *d_out;
  RW_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  RW_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  RW_CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemset(d_out, 0xff, n * sizeof(float)));
  scan_blelloch<<<blocks, m / 2>>>(d_in, d_out, int(n), int(m));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  float sum = 0.0f;
  for (long i = 0; i < n; ++i) {
    if (i % m == 0) sum = 0.0f;
    bad += h_out[i] != sum;
    sum += h_in[i];
  }
  return rw::report("scan_blelloch", n, bad, n);
}
