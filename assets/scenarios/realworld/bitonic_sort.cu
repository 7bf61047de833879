// bitonic_sort.cu: sorts each 1024-key chunk of unsigned ints in shared memory with a bitonic
// network, 512 threads, one compare-exchange per thread per step: `size <<= 1` outside,
// `stride >>= 1` inside (the shape of the CUDA samples' bitonicSortShared; written here). The
// exchange is written without a branch (min and max stored unconditionally), so every step issues
// the same shared accesses whatever the data. A last, partial chunk is padded with 0xffffffff.
#include "realworld.cuh"

#define CHUNK 1024

__global__ void bitonic_sort(unsigned* keys, int n) {
  __shared__ unsigned s[CHUNK];
  const unsigned tid = threadIdx.x;
  const unsigned base = blockIdx.x * CHUNK;
  s[tid] = base + tid < n ? keys[base + tid] : 0xffffffffu;
  s[tid + CHUNK / 2] = base + tid + CHUNK / 2 < n ? keys[base + tid + CHUNK / 2] : 0xffffffffu;
  for (unsigned size = 2; size <= CHUNK; size <<= 1) {
    const bool up = (tid & (size / 2)) == 0;
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * tid - (tid & (stride - 1));
      const unsigned a = s[pos];
      const unsigned b = s[pos + stride];
      const bool swap = (a > b) == up;
      s[pos] = swap ? b : a;
      s[pos + stride] = swap ? a : b;
    }
  }
  __syncthreads();
  if (base + tid < n) keys[base + tid] = s[tid];
  if (base + tid + CHUNK / 2 < n) keys[base + tid + CHUNK / 2] = s[tid + CHUNK / 2];
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 1L << 26);
  const long blocks = (n + CHUNK - 1) / CHUNK;
  unsigned* h_in = new unsigned[n];
  unsigned* h_out = new unsigned[n];
  for (long i = 0; i < n; ++i) h_in[i] = unsigned(rw::value_at(i, 1 << 20) + (1 << 19));
  unsigned* d;
  RW_CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
  RW_CHECK(cudaMemcpy(d, h_in, n * sizeof(unsigned), cudaMemcpyHostToDevice));
  bitonic_sort<<<blocks, CHUNK / 2>>>(d, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_out, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (long b = 0; b < blocks; ++b) {
    const long lo = b * CHUNK, hi = std::min(n, lo + CHUNK);
    std::vector<unsigned> want(h_in + lo, h_in + hi);
    std::sort(want.begin(), want.end());
    for (long i = lo; i < hi; ++i) bad += h_out[i] != want[size_t(i - lo)];
  }
  return rw::report("bitonic_sort", n, bad, n);
}
