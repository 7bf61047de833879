// cub_block.cu: CUB's block-wide collectives (BlockLoad with a transposing exchange, BlockRadixSort,
// BlockScan) from the CUDA toolkit's own headers, inside one kernel written here: each block of 128
// threads sorts 512 keys, then writes their exclusive prefix sums. The collectives' shared-memory
// code is CUB's, traced as it ships.
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "corpus_check.cuh"

constexpr int kThreads = 128, kItems = 4, kTile = kThreads * kItems;

__global__ void sort_then_scan(const unsigned* in, unsigned* sorted, unsigned* scanned) {
  using Load = cub::BlockLoad<unsigned, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<unsigned, kThreads, kItems>;
  using Scan = cub::BlockScan<unsigned, kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
  } tmp;
  unsigned keys[kItems];
  const int base = blockIdx.x * kTile;
  Load(tmp.load).Load(in + base, keys);
  __syncthreads();
  Sort(tmp.sort).Sort(keys);  // blocked arrangement: thread t holds ranks t*kItems ..
  __syncthreads();
  for (int i = 0; i < kItems; ++i) sorted[base + threadIdx.x * kItems + i] = keys[i];
  Scan(tmp.scan).ExclusiveSum(keys, keys);
  for (int i = 0; i < kItems; ++i) scanned[base + threadIdx.x * kItems + i] = keys[i];
}

int main() {
  const int blocks = 96, n = blocks * kTile;
  std::vector<unsigned> h(n);
  for (int i = 0; i < n; ++i) h[i] = ((static_cast<unsigned>(i) * 2246822519u) >> 12) & 0xffffu;
  unsigned *in, *sorted, *scanned;
  CORPUS_CHECK(cudaMalloc(&in, n * 4));
  CORPUS_CHECK(cudaMalloc(&sorted, n * 4));
  CORPUS_CHECK(cudaMalloc(&scanned, n * 4));
  CORPUS_CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  sort_then_scan<<<blocks, kThreads>>>(in, sorted, scanned);
  CORPUS_CHECK(cudaGetLastError());
  std::vector<unsigned> s(n), p(n);
  CORPUS_CHECK(cudaMemcpy(s.data(), sorted, n * 4, cudaMemcpyDeviceToHost));
  CORPUS_CHECK(cudaMemcpy(p.data(), scanned, n * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    std::vector<unsigned> want(h.begin() + b * kTile, h.begin() + (b + 1) * kTile);
    std::sort(want.begin(), want.end());
    unsigned acc = 0;
    for (int i = 0; i < kTile; ++i) {
      bad += s[b * kTile + i] != want[i];
      bad += p[b * kTile + i] != acc;
      acc += want[i];
    }
  }
  std::printf("cub_block: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
