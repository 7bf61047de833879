// cublas_sgemm.cu: one cublasSgemm (512x512x512) through cuBLAS's public API: a library kernel no
// one here wrote, traced as it ships.
#include <cublas_v2.h>

#include <vector>

#include "corpus_check.cuh"

int main() {
  const int n = 512;
  std::vector<float> a(n * n, 1.0f), b(n * n, 2.0f), c(n * n, 0.0f);
  float *da, *db, *dc;
  CORPUS_CHECK(cudaMalloc(&da, n * n * 4));
  CORPUS_CHECK(cudaMalloc(&db, n * n * 4));
  CORPUS_CHECK(cudaMalloc(&dc, n * n * 4));
  CORPUS_CHECK(cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice));
  CORPUS_CHECK(cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  const float alpha = 1.0f, beta = 0.0f;
  if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, da, n, db, n, &beta, dc, n) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasSgemm failed\n");
    return 1;
  }
  CORPUS_CHECK(cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost));
  cublasDestroy(h);
  int bad = 0;
  for (float v : c) bad += v != 2.0f * n;
  std::printf("cublas_sgemm: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
