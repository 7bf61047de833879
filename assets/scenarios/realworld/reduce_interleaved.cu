// reduce_interleaved.cu: a block tree reduction with interleaved addressing, `s *= 2` (the first
// kernel of the classic reduction tutorials; written here). Each block of 256 threads sums 256 ints
// into out[blockIdx.x]. The load-load-store body runs only in threads whose index is below
// blockDim.x, so the active lanes thin out and the stride 2*s spreads them over fewer banks.
#include "realworld.cuh"

__global__ void reduce_interleaved(const int* in, int* out, int n) {
  extern __shared__ int sdata[];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) {
      const int a = sdata[index];
      const int b = sdata[index + s];
      sdata[index] = a + b;
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 1L << 26);
  const int threads = 256;
  const long blocks = (n + threads - 1) / threads;
  int* h_in = new int[n];
  int* h_out = new int[blocks];
  for (long i = 0; i < n; ++i) h_in[i] = rw::value_at(i, 1000);
  int *d_in, *d_out;
  RW_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  RW_CHECK(cudaMalloc(&d_out, blocks * sizeof(int)));
  RW_CHECK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemset(d_out, 0x7f, blocks * sizeof(int)));
  reduce_interleaved<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_out, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_out, d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (long b = 0; b < blocks; ++b) {
    int sum = 0;
    for (long i = b * threads; i < n && i < (b + 1) * threads; ++i) sum += h_in[i];
    bad += h_out[b] != sum;
  }
  return rw::report("reduce_interleaved", n, bad, blocks);
}
