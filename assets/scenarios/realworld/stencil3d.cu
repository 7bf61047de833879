// stencil3d.cu: a 7-point 3-D stencil on an N x N x N grid through a 3-D shared tile with a
// one-cell halo, tile[BZ + 2][BY + 2][BX + 2] for a 32 x 4 x 4 block. Each block owns a 32 x 4
// column of the grid and marches it along z, BZ planes at a time (the 2.5-D shape of the textbook
// 3-D stencils; written here). Every thread stores its centre cell and the face threads store the
// halo (clamped at the grid's edge), so all stores run in every step; only threads inside the
// grid read the seven neighbours.
#include "realworld.cuh"

#define BX 32
#define BY 4
#define BZ 4

__device__ __forceinline__ int clampi(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

__global__ void stencil3d(const float* in, float* out, int n) {
  __shared__ float tile[BZ + 2][BY + 2][BX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
  const int cx = clampi(x, n), cy = clampi(y, n);
#define IN(X, Y, Z) in[((long)clampi(Z, n) * n + clampi(Y, n)) * n + clampi(X, n)]
  for (int z0 = 0; z0 < n; z0 += BZ) {
    const int z = z0 + tz, cz = clampi(z, n);
    tile[tz + 1][ty + 1][tx + 1] = IN(cx, cy, cz);
    if (tx == 0) tile[tz + 1][ty + 1][0] = IN(x - 1, cy, cz);
    if (tx == BX - 1) tile[tz + 1][ty + 1][BX + 1] = IN(x + 1, cy, cz);
    if (ty == 0) tile[tz + 1][0][tx + 1] = IN(cx, y - 1, cz);
    if (ty == BY - 1) tile[tz + 1][BY + 1][tx + 1] = IN(cx, y + 1, cz);
    if (tz == 0) tile[0][ty + 1][tx + 1] = IN(cx, cy, z - 1);
    if (tz == BZ - 1) tile[BZ + 1][ty + 1][tx + 1] = IN(cx, cy, z + 1);
    __syncthreads();
    if (x < n && y < n && z < n) {
      const float c = tile[tz + 1][ty + 1][tx + 1];
      const float xm = tile[tz + 1][ty + 1][tx];
      const float xp = tile[tz + 1][ty + 1][tx + 2];
      const float ym = tile[tz + 1][ty][tx + 1];
      const float yp = tile[tz + 1][ty + 2][tx + 1];
      const float zm = tile[tz][ty + 1][tx + 1];
      const float zp = tile[tz + 2][ty + 1][tx + 1];
      out[((long)z * n + y) * n + x] = 6.0f * c - (xm + xp + ym + yp + zm + zp);
    }
    __syncthreads();
  }
#undef IN
}

int main(int argc, char** argv) {
  const long n = rw::parse_n(argc, argv, 512);
  const long cells = n * n * n;
  float* h_in = new float[cells];
  float* h_out = new float[cells];
  for (long i = 0; i < cells; ++i) h_in[i] = float(rw::value_at(i, 100));
  float *d_in, *d_out;
  RW_CHECK(cudaMalloc(&d_in, cells * sizeof(float)));
  RW_CHECK(cudaMalloc(&d_out, cells * sizeof(float)));
  RW_CHECK(cudaMemcpy(d_in, h_in, cells * sizeof(float), cudaMemcpyHostToDevice));
  RW_CHECK(cudaMemset(d_out, 0xff, cells * sizeof(float)));
  const dim3 block(BX, BY, BZ), grid((n + BX - 1) / BX, (n + BY - 1) / BY);
  stencil3d<<<grid, block>>>(d_in, d_out, int(n));
  RW_CHECK(cudaGetLastError());
  RW_CHECK(cudaMemcpy(h_out, d_out, cells * sizeof(float), cudaMemcpyDeviceToHost));
  auto at = [&](long x, long y, long z) {
    x = x < 0 ? 0 : (x >= n ? n - 1 : x);
    y = y < 0 ? 0 : (y >= n ? n - 1 : y);
    z = z < 0 ? 0 : (z >= n ? n - 1 : z);
    return h_in[(z * n + y) * n + x];
  };
  long bad = 0;
  for (long z = 0; z < n; ++z)
    for (long y = 0; y < n; ++y)
      for (long x = 0; x < n; ++x) {
        const float want = 6.0f * at(x, y, z) - (at(x - 1, y, z) + at(x + 1, y, z) + at(x, y - 1, z) +
                                                 at(x, y + 1, z) + at(x, y, z - 1) + at(x, y, z + 1));
        bad += h_out[(z * n + y) * n + x] != want;
      }
  return rw::report("stencil3d", n, bad, cells);
}
