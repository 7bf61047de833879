// cufft_c2c.cu: a batch of 1-D complex FFTs (size 1024, 64 batches, and size 1000 = 2^3 5^3) through
// cuFFT's public API: library kernels that exchange butterfly data through shared memory, traced
// as they ship. Checked against a direct DFT of a few entries.
#include <cufft.h>

#include <cmath>
#include <vector>

#include "corpus_check.cuh"

static int check_fft(int n, int batch) {
  std::vector<cufftComplex> h(n * batch), r(n * batch);
  for (int i = 0; i < n * batch; ++i) h[i] = {std::sin(0.01f * i), std::cos(0.003f * i)};
  cufftComplex* d;
  CORPUS_CHECK(cudaMalloc(&d, sizeof(cufftComplex) * n * batch));
  CORPUS_CHECK(cudaMemcpy(d, h.data(), sizeof(cufftComplex) * n * batch, cudaMemcpyHostToDevice));
  cufftHandle plan;
  if (cufftPlan1d(&plan, n, CUFFT_C2C, batch) != CUFFT_SUCCESS || cufftExecC2C(plan, d, d, CUFFT_FORWARD) != CUFFT_SUCCESS) {
    std::fprintf(stderr, "cufft (n = %d) failed\n", n);
    return 1;
  }
  CORPUS_CHECK(cudaMemcpy(r.data(), d, sizeof(cufftComplex) * n * batch, cudaMemcpyDeviceToHost));
  cufftDestroy(plan);
  CORPUS_CHECK(cudaFree(d));
  int bad = 0;
  for (int b : {0, batch - 1})
    for (int k : {0, 1, 7, n / 2, n - 1}) {
      double re = 0, im = 0;
      for (int j = 0; j < n; ++j) {
        const double a = -2 * M_PI * double(j) * k / n;
        const cufftComplex x = h[b * n + j];
        re += x.x * std::cos(a) - x.y * std::sin(a);
        im += x.x * std::sin(a) + x.y * std::cos(a);
      }
      const cufftComplex g = r[b * n + k];
      bad += std::fabs(g.x - re) > 1e-2 * (1 + std::fabs(re)) || std::fabs(g.y - im) > 1e-2 * (1 + std::fabs(im));
    }
  return bad;
}

int main() {
  const int bad = check_fft(1024, 64) + check_fft(1000, 16);
  std::printf("cufft_c2c: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
