// ldgsts_guard.cu: does a guarded cp.async (SASS "@P0 LDGSTS") count its shared-memory wavefronts?
//
// Why: in cuBLAS HGEMM on the H200 (assets/results/h200/2026-12-01l), the two LDGSTS.E.BYPASS
// guarded by @P0 count 0 "L1 Wavefronts Shared" and 0 "L2 Theoretical Sectors Global" in ncu's
// source view while their predicated-on thread count is 24,576, and the same instructions guarded
// by @P1..@P3 count 3,072 each. Either the hardware skips them or ncu's instrumented (smsp__sass_)
// counters miss them. Each kernel here is one warp issuing one kind of cp.async once; ncu reads the
// instrumented counters and the hardware ones (l1tex__..._op_ldgsts), which for one warp are exact.
//   plain_cg    cp.async.cg 16 B, no guard, lanes contiguous (R9: 4 wavefronts)
//   guard_cg    the same under `@p` with p from a kernel argument (true): ptxas names it P0
//   guard2_cg   two guarded copies, p and q both true (P0 and P1), to different rows
//   guard_ca    cp.async.ca 4 B under `@p` (R9: 1 wavefront)
//   zfill_cg    cp.async.cg 16 B with src-size from the argument (16): the zero-fill form
//   zfill_ca    cp.async.ca 4 B, src-size from the argument (4, or 0: zero-fill with a real pointer),
//               destinations contiguous, sources 128 bytes apart (one source bank): R9 with the
//               sources read serializes 32 reads (32 wavefronts); a zero-fill that reads nothing, 1
// Usage: ldgsts_guard [flag]   (flag 1: guards true; 0: guards false). Prints what each kernel
// copied (the first word), so a copy that did not happen shows.
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__global__ void plain_cg(const float4* g, float* out) {
  __shared__ float4 s[64];
  const int t = threadIdx.x;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(&s[t])), "l"(g + t));
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  out[t] = s[t].x;
}

__global__ void guard_cg(const float4* g, float* out, int flag) {
  __shared__ float4 s[64];
  const int t = threadIdx.x;
  s[t] = make_float4(-1.f, -1.f, -1.f, -1.f);
  __syncthreads();
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.s32 p, %2, 0;\n"
      " @p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(smem_addr(&s[t])),
      "l"(g + t), "r"(flag));
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  out[t] = s[t].x;
}

__global__ void guard2_cg(const float4* g, float* out, int flag, int flag2) {
  __shared__ float4 s[64];
  const int t = threadIdx.x;
  s[t] = make_float4(-1.f, -1.f, -1.f, -1.f);
  s[32 + t] = make_float4(-1.f, -1.f, -1.f, -1.f);
  __syncthreads();
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.s32 p, %4, 0;\n setp.ne.s32 q, %5, 0;\n"
      " @p cp.async.cg.shared.global [%0], [%1], 16;\n"
      " @q cp.async.cg.shared.global [%2], [%3], 16;\n}\n" ::"r"(smem_addr(&s[t])),
      "l"(g + t), "r"(smem_addr(&s[32 + t])), "l"(g + 32 + t), "r"(flag), "r"(flag2));
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  out[t] = s[t].x + s[32 + t].x;
}

__global__ void guard_ca(const float* g, float* out, int flag) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  s[t] = -1.f;
  __syncthreads();
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.s32 p, %2, 0;\n"
      " @p cp.async.ca.shared.global [%0], [%1], 4;\n}\n" ::"r"(smem_addr(&s[t])),
      "l"(g + t), "r"(flag));
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  out[t] = s[t];
}

__global__ void zfill_cg(const float4* g, float* out, int flag) {
  __shared__ float4 s[64];
  const int t = threadIdx.x;
  s[t] = make_float4(-1.f, -1.f, -1.f, -1.f);
  __syncthreads();
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(&s[t])), "l"(g + t),
               "r"(flag ? 16 : 0));
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  out[t] = s[t].x;
}

__global__ void zfill_ca(const float* g, float* out, int flag) {
  __shared__ float s[64];
  const int t = threadIdx.x;
  s[t] = -1.f;
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(&s[t])), "l"(g + 32 * t),
               "r"(flag ? 4 : 0));
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  out[t] = s[t];
}

int main(int argc, char** argv) {
  const int flag = argc > 1 ? std::atoi(argv[1]) : 1;
  float4* g = nullptr;
  float* out = nullptr;
  float host[64];
  for (int i = 0; i < 64; ++i) host[i] = 0.f;
  if (cudaMalloc(&g, 1024 * sizeof(float4)) != cudaSuccess || cudaMalloc(&out, 64 * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "ldgsts_guard: no GPU memory\n");
    return 1;
  }
  float4 init[64];
  for (int i = 0; i < 64; ++i) init[i] = make_float4(float(i), 0.f, 0.f, 0.f);
  cudaMemcpy(g, init, sizeof init, cudaMemcpyHostToDevice);
  const auto show = [&](const char* name) {
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::fprintf(stderr, "ldgsts_guard: %s: %s\n", name, cudaGetErrorString(e));
      std::exit(1);
    }
    cudaMemcpy(host, out, 32 * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("%-10s flag %d: lane 0 %g, lane 5 %g, lane 31 %g\n", name, flag, host[0], host[5], host[31]);
  };
  plain_cg<<<1, 32>>>(g, out);
  show("plain_cg");
  guard_cg<<<1, 32>>>(g, out, flag);
  show("guard_cg");
  guard2_cg<<<1, 32>>>(g, out, flag, flag);
  show("guard2_cg");
  guard_ca<<<1, 32>>>(reinterpret_cast<const float*>(g), out, flag);
  show("guard_ca");
  zfill_cg<<<1, 32>>>(g, out, flag);
  show("zfill_cg");
  zfill_ca<<<1, 32>>>(reinterpret_cast<const float*>(g), out, flag);
  show("zfill_ca");
  return 0;
}
