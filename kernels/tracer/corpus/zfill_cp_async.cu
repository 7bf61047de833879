// zfill_cp_async.cu: cp.async's zero-fill form as CUTLASS writes it, a real source pointer with
// src-size 0 past the edge (not a null pointer). One warp copies 32 floats of a column (sources 128
// bytes apart: one source bank) into a contiguous shared row, src-size 4 for rows < n, else 0
// (zero-filled). Three launches: n = 32 (every lane reads), 16, 0 (every lane zero-fills). Measured
// on the H200 (assets/results/h200/2026-12-01o/probe_zfill): a src-size-0 lane reads nothing.
// The Compute Sanitizer API documents its cp.async callback's source as "NULL if src-size is 0"
// for some copies; this driver shows what a trace records for these.
#include <cuda_runtime.h>

#include <cstdio>

#include "corpus_check.cuh"

__global__ void column_to_row(const float* g, float* out, int n) {
  __shared__ float s[32];
  const int t = threadIdx.x;
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&s[t]));
  const float* src = g + 32 * t;  // a real address even past n, as CUTLASS passes
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(t < n ? 4 : 0));
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncwarp();
  out[t] = s[t];
}

int main() {
  float* g = nullptr;
  float* out = nullptr;
  CORPUS_CHECK(cudaMalloc(&g, 32 * 32 * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&out, 32 * sizeof(float)));
  float h[32 * 32];
  for (int i = 0; i < 32 * 32; ++i) h[i] = 1.0f;
  CORPUS_CHECK(cudaMemcpy(g, h, sizeof h, cudaMemcpyHostToDevice));
  for (int n : {32, 16, 0}) {
    column_to_row<<<1, 32>>>(g, out, n);
    CORPUS_CHECK(cudaDeviceSynchronize());
    float r[32];
    CORPUS_CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; ++t) {
      if (r[t] != (t < n ? 1.0f : 0.0f)) {
        std::fprintf(stderr, "zfill_cp_async: n %d lane %d: %g\n", n, t, r[t]);
        return 1;
      }
    }
  }
  std::printf("zfill_cp_async: ok\n");
  return 0;
}
