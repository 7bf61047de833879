// reduction.cu: block sum of 256 floats two ways: interleaved addressing (index = 2*s*tid, the
// classic bank-conflicted tier) and sequential addressing (tid + s, conflict-free). 64 blocks each.
#include <vector>

#include "corpus_check.cuh"

__global__ void reduce_interleaved(float* out, const float* in) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = 1; stride < 256; stride *= 2) {
    const unsigned i = 2 * stride * t;
    if (i < 256) s[i] += s[i + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_sequential(float* out, const float* in) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = 128; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

int main() {
  const int blocks = 64;
  std::vector<float> h(blocks * 256), r(blocks);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(i % 7);
  float *in, *out;
  CORPUS_CHECK(cudaMalloc(&in, h.size() * sizeof(float)));
  CORPUS_CHECK(cudaMalloc(&out, blocks * sizeof(float)));
  CORPUS_CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  int bad = 0;
  for (int pass = 0; pass < 2; ++pass) {
    CORPUS_CHECK(cudaMemset(out, 0, blocks * sizeof(float)));
    if (pass == 0) reduce_interleaved<<<blocks, 256>>>(out, in);
    else reduce_sequential<<<blocks, 256>>>(out, in);
    CORPUS_CHECK(cudaGetLastError());
    CORPUS_CHECK(cudaMemcpy(r.data(), out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
      float want = 0;
      for (int i = 0; i < 256; ++i) want += h[b * 256 + i];
      bad += r[b] != want;  // small integers: exact in float
    }
  }
  std::printf("reduction: %s\n", bad == 0 ? "ok" : "WRONG");
  return bad == 0 ? 0 : 1;
}
