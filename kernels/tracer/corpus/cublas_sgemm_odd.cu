// cublas_sgemm_odd.cu: one cublasSgemm of odd sizes (M 1000, N 777, K 555) through cuBLAS's public
// API: edge tiles make its cp.async prefetches use the zero-fill form (added to check R9's
// zero-fill reading on a kernel launch it was not fitted on).
#include <cublas_v2.h>

#include <vector>

#include "corpus_check.cuh"

int main() {
  const int m = 1000, n = 777, k = 555;
  std::vector<float> a(size_t(m) * k, 1.0f), b(size_t(k) * n, 2.0f), c(size_t(m) * n, 0.0f);
  float *da, *db, *dc;
  CORPUS_CHECK(cudaMalloc(&da, a.size() * 4));
  CORPUS_CHECK(cudaMalloc(&db, b.size() * 4));
  CORPUS_CHECK(cudaMalloc(&dc, c.size() * 4));
  CORPUS_CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  const float alpha = 1.0f, beta = 0.0f;
  if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasSgemm failed\n");
    return 1;
  }
  CORPUS_CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  cublasDestroy(h);
  int bad = 0;
  for (float v : c) bad += v != 2.0f * k;
  std::printf("cublas_sgemm_odd: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
