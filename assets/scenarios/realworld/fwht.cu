// fwht.cu: an in-place fast Walsh-Hadamard transform of each 1024-int chunk in shared memory,
// radix 4: 256 threads, each doing one 4-point butterfly per level, `stride >>= 2` from 256 down
// to 1 (the shape of the CUDA samples' fastWalshTransform; written here). Integers, so the CPU
// reference is exact.
#include "realworld.cuh"

#define LOG_CHUNK 10
#define CHUNK (1 << LOG_CHUNK)

__global__ void fwht(int* data, int n) {
  __shared__ int s[CHUNK];
  const int base = blockIdx.x * CHUNK;
  for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) {
    s[i] = base + i < n ? data[base + i] : 0;
  }
  for (int stride = CHUNK / 4; stride > 0; stride >>= 2) {
    __syncthreads();
    const int lo = threadIdx.x & (stride - 1);
    const int i0 = ((threadIdx.x - lo) << 2) + lo;
    const int d0 = s[i0];
    const int d1 = s[i0 + stride];
    const int d2 = s[i0 + 2 * stride];
    const int d3 = s[i0 + 3 * stride];
    const int t0 = d0 + d2, t2 = d0 - d2, t1 = d1 + d3, t3 = d1 - d3;
    s[i0] = t0 + t1;
    s[i0 + stride] = t0 - t1;
    s[i0 + 2 * stride] = t2 + t3;
    s[i0 + 3 * stride] = t2 - t3;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) {
    if (base + i < n) data[base + i] = s[i];
  }
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 1L << 26);
  const long blocks = (n + CHUNK - 1) / CHUNK;
  int* h_in = new int[n];
  int* h_out = new int[n];
  for (long i = 0; i < n; ++i) h_in[i] = rw::value_at(i, 200);
  int* d;
  RW_CHECK(cudaMalloc(&d, n * sizeof(int)));
  RW_CHECK(cudaMemcpy(d, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  fwht<<<blocks, 256>>>(d, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_out, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  // CPU: the radix-2 transform of each zero-padded chunk (the same Hadamard matrix, natural order).
  long bad = 0;
  std::vector<int> c(CHUNK);
  for (long b = 0; b < blocks; ++b) {
    for (long i = 0; i < CHUNK; ++i) c[i] = b * CHUNK + i < n ? h_in[b * CHUNK + i] : 0;
    for (int h = 1; h < CHUNK; h *= 2)
      for (int i = 0; i < CHUNK; i += 2 * h)
        for (int j = i; j < i + h; ++j) {
          const int x = c[j], y = c[j + h];
          c[j] = x + y;
          c[j + h] = x - y;
        }
    for (long i = 0; i < CHUNK && b * CHUNK + i < n; ++i) bad += h_out[b * CHUNK + i] != c[i];
  }
  return rw::report("fwht", n, bad, n);
}
