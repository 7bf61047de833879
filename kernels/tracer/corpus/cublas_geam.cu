// cublas_geam.cu: cublasSgeam as a transpose (C = A^T, 1000 x 1000, not a multiple of any tile)
// through cuBLAS's public API: the library transpose bankscope's own kernels are benched against.
#include <cublas_v2.h>

#include <vector>

#include "corpus_check.cuh"

int main() {
  const int n = 1000;
  std::vector<float> a(n * n), c(n * n, 0.0f);
  for (int i = 0; i < n * n; ++i) a[i] = static_cast<float>(i % 9973);
  float *da, *dc;
  CORPUS_CHECK(cudaMalloc(&da, n * n * 4));
  CORPUS_CHECK(cudaMalloc(&dc, n * n * 4));
  CORPUS_CHECK(cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  const float alpha = 1.0f, beta = 0.0f;
  if (cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &alpha, da, n, &beta, dc, n, dc, n) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasSgeam failed\n");
    return 1;
  }
  CORPUS_CHECK(cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost));
  cublasDestroy(h);
  int bad = 0;  // column-major: c(i, j) = a(j, i)
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) bad += c[i + j * n] != a[j + i * n];
  std::printf("cublas_geam: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
