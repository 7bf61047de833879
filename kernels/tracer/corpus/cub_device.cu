// cub_device.cu: four CUB device-wide algorithms from the CUDA toolkit's own headers, called through
// their public API on 1,000,003 elements (not a multiple of any tile): DeviceReduce::Sum,
// DeviceScan::InclusiveSum, DeviceRadixSort::SortKeys and DeviceHistogram::HistogramEven. Library
// kernels no one here wrote (block-wide exchanges and shared-memory bins), traced as they ship.
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "corpus_check.cuh"

template <typename F>
void run(F f) {  // CUB's two-phase call: size the temporary storage, then run
  size_t bytes = 0;
  CORPUS_CHECK(f(nullptr, bytes));
  void* tmp = nullptr;
  CORPUS_CHECK(cudaMalloc(&tmp, bytes));
  CORPUS_CHECK(f(tmp, bytes));
  CORPUS_CHECK(cudaDeviceSynchronize());
  CORPUS_CHECK(cudaFree(tmp));
}

int main() {
  const int n = 1000003;
  std::vector<unsigned> h(n);
  for (int i = 0; i < n; ++i) h[i] = (static_cast<unsigned>(i) * 2654435761u) >> 8;
  unsigned *in, *out;
  int* bins;
  unsigned long long* sum;
  CORPUS_CHECK(cudaMalloc(&in, n * sizeof(unsigned)));
  CORPUS_CHECK(cudaMalloc(&out, n * sizeof(unsigned)));
  CORPUS_CHECK(cudaMalloc(&bins, 64 * sizeof(int)));
  CORPUS_CHECK(cudaMalloc(&sum, sizeof(unsigned long long)));
  CORPUS_CHECK(cudaMemcpy(in, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  int bad = 0;

  // Sum of the low 8 bits as 64-bit: no overflow, exact.
  std::vector<unsigned long long> wide(n);
  unsigned long long want_sum = 0;
  for (int i = 0; i < n; ++i) want_sum += wide[i] = h[i] & 255u;
  unsigned long long* dwide;
  CORPUS_CHECK(cudaMalloc(&dwide, n * sizeof(unsigned long long)));
  CORPUS_CHECK(cudaMemcpy(dwide, wide.data(), n * sizeof(unsigned long long), cudaMemcpyHostToDevice));
  run([&](void* t, size_t& b) { return cub::DeviceReduce::Sum(t, b, dwide, sum, n); });
  unsigned long long got_sum = 0;
  CORPUS_CHECK(cudaMemcpy(&got_sum, sum, sizeof got_sum, cudaMemcpyDeviceToHost));
  bad += got_sum != want_sum;

  // Inclusive prefix sum (unsigned, wraps the same on both sides).
  run([&](void* t, size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, in, out, n); });
  std::vector<unsigned> r(n);
  CORPUS_CHECK(cudaMemcpy(r.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned acc = 0;
  for (int i = 0; i < n; ++i) bad += r[i] != (acc += h[i]);

  // Radix sort of the keys.
  run([&](void* t, size_t& b) { return cub::DeviceRadixSort::SortKeys(t, b, in, out, n); });
  CORPUS_CHECK(cudaMemcpy(r.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<unsigned> s = h;
  std::sort(s.begin(), s.end());
  bad += r != s;

  // 64 even bins over [0, 2^24).
  run([&](void* t, size_t& b) {
    return cub::DeviceHistogram::HistogramEven(t, b, in, bins, 65, 0u, 1u << 24, n);
  });
  std::vector<int> got(64), want(64, 0);
  CORPUS_CHECK(cudaMemcpy(got.data(), bins, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  for (unsigned v : h) ++want[v >> 18];
  bad += got != want;

  std::printf("cub_device: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
