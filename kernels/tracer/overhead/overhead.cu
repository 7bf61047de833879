// overhead.cu: a program whose kernel time dominates its run, to measure what tracing costs
// (issue 10, "tracing overhead as a multiple of the untraced run time"). The corpus programs run
// for milliseconds, so their traced/untraced ratio is start-up; here the same padded 32x8 tiled
// transpose as corpus/transpose.cu runs `launches` times on an n x n matrix, timed by CUDA events
// around all launches, and the output of the last launch is checked on the CPU.
//   overhead N LAUNCHES   prints: "overhead: n=N launches=L kernel_ms=T warp_instructions=W ok"
// W = shared-memory warp instructions executed (8 per warp: 4 STS + 4 LDS), so a trace of the run
// must hold W records; T divided by W gives the cost per traced warp instruction.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../corpus/corpus_check.cuh"

__global__ void transpose_padded(float* out, const float* in, int n) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += 8) tile[j][threadIdx.x] = in[(y0 + j) * n + x];
  __syncthreads();
  const int ox = blockIdx.y * 32 + threadIdx.x;
  const int oy0 = blockIdx.x * 32;
  for (int j = threadIdx.y; j < 32; j += 8) out[(oy0 + j) * n + ox] = tile[threadIdx.x][j];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 5;
  if (n < 32 || n % 32 != 0 || n > 16384 || launches < 1 || launches > 10000) {
    std::fprintf(stderr, "overhead: usage: overhead N LAUNCHES (N a multiple of 32 in 32..16384, LAUNCHES 1..10000)\n");
    return 2;
  }
  const size_t count = size_t(n) * n;
  std::vector<float> h(count), r(count);
  for (size_t i = 0; i < count; ++i) h[i] = static_cast<float>(i % 1000003);
  float *in, *out;
  CORPUS_CHECK(cudaMalloc(&in, count * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&out, count * sizeof(float)));
  CORPUS_CHECK(cudaMemcpy(in, h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CORPUS_CHECK(cudaEventCreate(&start));
  CORPUS_CHECK(cudaEventCreate(&stop));
  const dim3 grid(n / 32, n / 32), block(32, 8);
  CORPUS_CHECK(cudaEventRecord(start));
  for (int l = 0; l < launches; ++l) transpose_padded<<<grid, block>>>(out, in, n);
  CORPUS_CHECK(cudaEventRecord(stop));
  CORPUS_CHECK(cudaEventSynchronize(stop));
  CORPUS_CHECK(cudaGetLastError());
  float ms = 0.0f;
  CORPUS_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CORPUS_CHECK(cudaMemcpy(r.data(), out, count * sizeof(float), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t y = 0; y < size_t(n); ++y)
    for (size_t x = 0; x < size_t(n); ++x) bad += r[x * n + y] != h[y * n + x];
  const long long warps = (long long)(n / 32) * (n / 32) * 8;
  std::printf("overhead: n=%d launches=%d kernel_ms=%.3f warp_instructions=%lld %s\n", n, launches, ms,
              warps * 8 * launches, bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
