// histogram.cu: 256-bin byte histogram with per-block bins in shared memory (ATOMS.ADD), merged
// with global atomics. 32 blocks x 256 threads over 1 MiB of skewed bytes.
#include <vector>

#include "corpus_check.cuh"

__global__ void histogram_shared(unsigned* bins, const unsigned char* data, int n) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
  const int n = 1 << 20;
  std::vector<unsigned char> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<unsigned char>((i * 7) % 97 + (i % 3 == 0 ? 0 : 128 * (i % 2)));
  unsigned char* d;
  unsigned* bins;
  CORPUS_CHECK(cudaMalloc(&d, n));
  CORPUS_CHECK(cudaMalloc(&bins, 256 * sizeof(unsigned)));
  CORPUS_CHECK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemset(bins, 0, 256 * sizeof(unsigned)));
  histogram_shared<<<32, 256>>>(bins, d, n);
  CORPUS_CHECK(cudaGetLastError());
  std::vector<unsigned> r(256), want(256, 0);
  CORPUS_CHECK(cudaMemcpy(r.data(), bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned char c : h) ++want[c];
  const bool ok = r == want;
  std::printf("histogram: %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
