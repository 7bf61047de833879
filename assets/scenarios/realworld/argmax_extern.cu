// argmax_extern.cu: a block-wide argmax (largest value, smallest index on ties) with sequential
// addressing, `s >>= 1`, over two arrays that share one `extern __shared__` buffer: the values
// (float) at byte 0 and their indices (int) right after them, at byte blockDim.x * 4, the layout
// real kernels use when the block size is chosen at launch (written here). Each block of 256
// threads writes its winner's value and index.
#include "realworld.cuh"

__global__ void argmax_extern(const float* in, float* out_val, int* out_idx, int n) {
  extern __shared__ unsigned char smem[];
  float* sval = reinterpret_cast<float*>(smem);
  int* sidx = reinterpret_cast<int*>(smem + blockDim.x * sizeof(float));
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + tid;
  sval[tid] = i < n ? in[i] : -INFINITY;
  sidx[tid] = i < n ? int(i) : 0x7fffffff;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      const float v = sval[tid];
      const float o = sval[tid + s];
      const int vi = sidx[tid];
      const int oi = sidx[tid + s];
      const bool take = o > v || (o == v && oi < vi);
      sval[tid] = take ? o : v;
      sidx[tid] = take ? oi : vi;
    }
    __syncthreads();
  }
  if (tid == 0) {
    out_val[blockIdx.x] = sval[0];
    out_idx[blockIdx.x] = sidx[0];
  }
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 1L << 26);
  const int threads = 256;
  const long blocks = (n + threads - 1) / threads;
  float* h_in = new float[n];
  float* h_val = new float[blocks];
  int* h_idx = new int[blocks];
  for (long i = 0; i < n; ++i) h_in[i] = float(rw::value_at(i, 5000));
  float *d_in, *d_val;
  int* d_idx;
  RW_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  RW_CHECK(cudaMalloc(&d_val, blocks * sizeof(float)));
  RW_CHECK(cudaMalloc(&d_idx, blocks * sizeof(int)));
  RW_CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemset(d_val, 0, blocks * sizeof(float)));
  RW_CHECK(cudaMemset(d_idx, 0xff, blocks * sizeof(int)));
  argmax_extern<<<blocks, threads, threads * (sizeof(float) + sizeof(int))>>>(d_in, d_val, d_idx, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_val, d_val, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  RW_CHECK(cudaMemcpy(h_idx, d_idx, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (long b = 0; b < blocks; ++b) {
    long best = b * threads;
    for (long i = b * threads; i < n && i < (b + 1) * threads; ++i) best = h_in[i] > h_in[best] ? i : best;
    bad += h_idx[b] != best || h_val[b] != h_in[best];
  }
  return rw::report("argmax_extern", n, bad, blocks);
}
