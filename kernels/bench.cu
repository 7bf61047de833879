// bench.cu: `bankscope-gpu bench` (bench.hpp): every transpose, the copy ceiling and cuBLAS, timed
// side by side in one process, each checked against the reference before it is timed.
//
// Method (the workplace's METHOD.md and cuda-samples' transpose harness):
//   - input: fill_word(w) per 32-bit word (fill_pattern.hpp), never zero, written on the device;
//   - before the checked run the output is poisoned (0xffffffff), so a word a kernel did not write
//     is caught; the check is bit-exact: every element on the GPU (a counting kernel computes the
//     expected word from the same fill_word) and whole rows on the CPU (all rows up to n = 4096,
//     the first, last and 126 random rows above);
//   - timing: CUDA events around each launch, `warmup` untimed launches, the median of `runs`;
//     several input/output pairs are rotated when one pair would fit in 4x the L2 cache, so no run
//     reads what the previous one left in L2;
//   - GB/s = 2 * n * n * elem_bytes / time (each element read once and written once), and each row's
//     percentage of cudaMemcpy device-to-device at the same n, measured in the same process;
//   - every kernel row records threads, registers and static/dynamic shared bytes per block from
//     cudaFuncGetAttributes: the timing model's launch facts come from the compiled kernel.
// The seed and 32x8 rows launch the kernels `validate` checks (transpose_kernels.cuh); what the
// timing model assumes about each row is in bench_kernels.cpp, whose table these candidates follow.
//
// Linked into bankscope-gpu (`bankscope-gpu bench`), which calls run_bench().
#include "bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "bench_kernels.hpp"
#include "bench_timing.hpp"
#include "fast_transpose.cuh"
#include "fill_pattern.hpp"
#include "harness.hpp"
#include "transpose_kernels.cuh"

#ifndef BANKSCOPE_SOURCE_DIR
#define BANKSCOPE_SOURCE_DIR "."
#endif

namespace bankscope {
namespace {

using LaunchFn = std::function<void(void* out, const void* in, int n)>;

// One timed thing: a kernel, cudaMemcpy or cuBLAS, with its row of bench_kernels() (name, family,
// scenario, element size, threads, tile: what the timing model is told).
struct Candidate {
  Candidate(const std::string& name, int launch_threads, const void* func_, LaunchFn launch_,
            std::string refuse_why_ = "")
      : k(find_bench_kernel(name)), func(func_), launch(std::move(launch_)), refuse_why(std::move(refuse_why_)) {
    if (k == nullptr) throw std::logic_error("bench kernel " + name + " has no row in bench_kernels()");
    if (k->threads != launch_threads)
      throw std::logic_error("bench kernel " + name + ": launched with " + std::to_string(launch_threads) +
                             " threads, bench_kernels() says " + std::to_string(k->threads));
  }
  const BenchKernel* k;
  const void* func = nullptr;  // the kernel for cudaFuncGetAttributes; null: cudaMemcpy, cuBLAS
  LaunchFn launch;
  std::string refuse_why;  // why n % k->n_multiple != 0 is refused
  int dyn_smem = 0;        // dynamic shared bytes per block the launch asks for
  const std::string& name() const { return k->name; }
  // "" = runs at this n, else why not (an explicit refusal, reported as such).
  std::string refuse(int n) const {
    if (n % k->n_multiple == 0) return "";
    return "n % " + std::to_string(k->n_multiple) + " != 0: " + refuse_why;
  }
};

struct Row {
  std::string name, family, scenario;
  std::string skipped;  // why the kernel refused this n ("" = it ran)
  int64_t n = 0;
  int elem_bytes = 4;
  // cudaFuncGetAttributes of the launched kernel (0 for cudaMemcpy and cuBLAS).
  int threads = 0, regs = 0, static_smem = 0, dynamic_smem = 0;
  double ms_median = 0, ms_min = 0, ms_max = 0, gbps = 0, pct_of_copy = 0, vs_cublas = 0;
  uint64_t gpu_mismatches = 0, cpu_mismatches = 0, cpu_checked = 0;
  bool correct = false;
  double predicted_ms = 0;  // the timing model (bench_timing.hpp); 0 = not described
};

// The device as every bankscope-gpu result records it (query_device_info: name, SMs, clocks,
// NVIDIA driver and CUDA versions), plus what only the bench reports.
struct DeviceFacts {
  DeviceInfo info;
  int l2_bytes = 0, bus_bits = 0, cublas = 0;
  size_t smem_per_sm = 0;
};

#define BANKSCOPE_CUBLAS_CHECK(call)                                                           \
  do {                                                                                         \
    const cublasStatus_t bankscope_st_ = (call);                                               \
    if (bankscope_st_ != CUBLAS_STATUS_SUCCESS) {                                              \
      throw std::runtime_error(std::string(#call) + " failed at " + __FILE__ + ":" +           \
                               std::to_string(__LINE__) + ": cuBLAS status " +                 \
                               std::to_string(static_cast<int>(bankscope_st_)));               \
    }                                                                                          \
  } while (0)

__global__ void k_fill_words(uint32_t* buf, uint64_t words) {
  for (uint64_t w = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; w < words; w += uint64_t(gridDim.x) * blockDim.x)
    buf[w] = fill_word(w);
}

// Counts output words that differ from the reference. Elements are `wpe` 32-bit words; word q of
// element (r, c) must be word q of input element (c, r) for a transpose, (r, c) for a copy, and
// input word w holds fill_word(w).
__global__ void k_count_mismatches(const uint32_t* out, int n, int wpe, bool is_copy, unsigned long long* count) {
  const uint64_t total = uint64_t(n) * uint64_t(n) * uint64_t(wpe);
  unsigned long long bad = 0;
  for (uint64_t w = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; w < total; w += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t e = w / uint64_t(wpe), q = w % uint64_t(wpe);
    const uint64_t r = e / uint64_t(n), c = e % uint64_t(n);
    const uint32_t want = fill_word((is_copy ? e : c * uint64_t(n) + r) * uint64_t(wpe) + q);
    bad += out[w] != want ? 1 : 0;
  }
  if (bad != 0) atomicAdd(count, bad);
}

dim3 grid_2d(int n, int tile_x, int tile_y) {
  return dim3(static_cast<unsigned>((n + tile_x - 1) / tile_x), static_cast<unsigned>((n + tile_y - 1) / tile_y));
}

float* f32(void* p) { return static_cast<float*>(p); }
const float* f32(const void* p) { return static_cast<const float*>(p); }

template <class F>
const void* fn_ptr(F* f) {
  return reinterpret_cast<const void*>(f);
}

template <int kTR, int kTC, int kThreads, bool kStreaming, int kGroup = 1>
Candidate fast_f4_candidate(const std::string& name) {
  return {name, kThreads, fn_ptr(&bench::fast_f4<kTR, kTC, kThreads, kStreaming, kGroup>),
          [](void* o, const void* i, int n) {
            bench::fast_f4<kTR, kTC, kThreads, kStreaming, kGroup><<<grid_2d(n, kTC, kTR), kThreads>>>(f32(o), f32(i), n);
          }};
}

template <int kTR, int kTC, int kThreads>
Candidate fast_f4_persistent_candidate(const std::string& name, int sms) {
  int per_sm = 0;
  if (sms > 0) {
    BANKSCOPE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, bench::fast_f4_persistent<kTR, kTC, kThreads>, kThreads, 0));
  }
  const int blocks = std::max(1, per_sm) * std::max(1, sms);
  return {name, kThreads, fn_ptr(&bench::fast_f4_persistent<kTR, kTC, kThreads>),
          [blocks](void* o, const void* i, int n) {
            const int tiles = ((n + kTC - 1) / kTC) * ((n + kTR - 1) / kTR);
            bench::fast_f4_persistent<kTR, kTC, kThreads><<<std::min(blocks, tiles), kThreads>>>(f32(o), f32(i), n);
          }};
}

template <int kTR, int kTC, int kThreads, int kMode>
Candidate fast_f4v_candidate(const std::string& name) {
  constexpr int kDyn = (kMode & bench::kF4Dyn) ? kTR * kTC * int(sizeof(float)) : 0;
  auto* fn = &bench::fast_f4v<kTR, kTC, kThreads, kMode>;
  Candidate c{name, kThreads, fn_ptr(fn), [fn](void* o, const void* i, int n) {
                // Above 48 KiB of dynamic shared memory a kernel must opt in (documented by
                // NVIDIA); once, at the first (checked, untimed) launch.
                static bool opted_in = false;
                if (kDyn > 48 * 1024 && !opted_in) {
                  BANKSCOPE_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kDyn));
                  opted_in = true;
                }
                fn<<<grid_2d(n, kTC, kTR), kThreads, kDyn>>>(f32(o), f32(i), n);
              }};
  c.dyn_smem = kDyn;
  return c;
}

template <int kTR, int kTC, int kThreads, int kMinBlocks = 1, int kFlags = 0>
Candidate fast_shift_candidate(const std::string& name) {
  return {name, kThreads, fn_ptr(&bench::fast_shift<kTR, kTC, kThreads, kMinBlocks, kFlags>),
          [](void* o, const void* i, int n) {
            const dim3 g = grid_2d(n, kTC, kTR);
            const dim3 grid = (kFlags & bench::kShiftColMajor) ? dim3(g.y, g.x) : g;
            bench::fast_shift<kTR, kTC, kThreads, kMinBlocks, kFlags><<<grid, kThreads>>>(f32(o), f32(i), n);
          }};
}

template <int kTR, int kTC, int kThreads, bool kVec, int kMinBlocks = 0>
Candidate fast_sec_candidate(const std::string& name) {
  auto* fn = &bench::fast_sec<kTR, kTC, kThreads, kVec, kMinBlocks>;
  return {name, kThreads, fn_ptr(fn), [fn](void* o, const void* i, int n) {
            // One more block row than the tiles where the last run must reach column n - 1 (the
            // runs start up to 7 columns before y0).
            const dim3 grid((n + kTC - 1) / kTC, (n + bench::kSecHalo + kTR - 1) / kTR);
            fn<<<grid, kThreads>>>(f32(o), f32(i), n);
          }};
}

// The 32x8 kernel of transpose_kernels.cuh (what `validate` checks) for element type T.
template <typename T, int kStride, int kXorMask>
Candidate tiled_32x8_candidate(const std::string& name) {
  return {name, 32 * 8, fn_ptr(&k_transpose_32x8<T, kStride, kXorMask>), [](void* o, const void* i, int n) {
            k_transpose_32x8<T, kStride, kXorMask>
                <<<grid_2d(n, kTileDim, kTileDim), dim3(kTileDim, 8)>>>(static_cast<T*>(o), static_cast<const T*>(i), n);
          }};
}

// The seed lesson's kernel of transpose_kernels.cuh: 32x32 threads, one element each.
template <int kStride>
Candidate seed_candidate(const std::string& name) {
  return {name, 32 * 32, fn_ptr(&k_transpose_seed<kStride>), [](void* o, const void* i, int n) {
            k_transpose_seed<kStride><<<grid_2d(n, kTileDim, kTileDim), dim3(kTileDim, kTileDim)>>>(f32(o), f32(i), n);
          }};
}

// The n x n fp32 matrix at `in` as a 2-D tensor, boxes of kTmaRows x kTmaCols, 128-byte swizzle.
CUtensorMap encode_tma_map(EncodeTiledFn encode, const float* in, int n) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(n)};          // innermost (columns) first
  const cuuint64_t pitch[1] = {cuuint64_t(n) * sizeof(float)};        // bytes; a multiple of 16
  const cuuint32_t box[2] = {bench::kTmaCols, bench::kTmaRows};
  const cuuint32_t step[2] = {1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(in), dims, pitch, box, step,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw std::runtime_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ") for n=" + std::to_string(n));
  return map;
}

Candidate fast_tma_candidate() {
  // Maps are encoded once per (buffer, n), outside the timed launches' critical path.
  auto maps = std::make_shared<std::map<std::pair<const float*, int>, CUtensorMap>>();
  auto encode = std::make_shared<EncodeTiledFn>(nullptr);
  return {"fast_tma", bench::kTmaThreads, fn_ptr(&bench::fast_tma),
          [maps, encode](void* o_, const void* i_, int n) {
            float* o = f32(o_);
            const float* i = f32(i_);
            if (*encode == nullptr) *encode = encode_tiled_fn();
            auto it = maps->find({i, n});
            if (it == maps->end()) it = maps->emplace(std::make_pair(i, n), encode_tma_map(*encode, i, n)).first;
            bench::fast_tma<<<grid_2d(n, bench::kTmaCols, bench::kTmaRows), bench::kTmaThreads>>>(o, it->second, n);
          },
          "a tensor map's row pitch must be a multiple of 16 bytes"};
}

// The lineup, in bench_kernels() order (a test checks the two lists agree). `handle` may be null
// (names only).
std::vector<Candidate> make_candidates(cublasHandle_t handle, int sms) {
  using namespace bench;
  std::vector<Candidate> c;
  c.push_back({"memcpy_d2d", 0, nullptr, [](void* o, const void* i, int n) {
                 BANKSCOPE_CUDA_CHECK(cudaMemcpyAsync(o, i, size_t(n) * size_t(n) * sizeof(float),
                                                      cudaMemcpyDeviceToDevice));
               }});
  c.push_back({"cublas_sgeam", 0, nullptr, [handle](void* o, const void* i, int n) {
                 // Column-major C = A^T (m = n = lda = ldc = n) is the row-major transpose too;
                 // beta = 0 with B = C is cuBLAS's documented in-place form (transb N, ldb == ldc).
                 const float one = 1.0f, zero = 0.0f;
                 BANKSCOPE_CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, f32(i), n, &zero,
                                                    f32(o), n, f32(o), n));
               }});
  c.push_back({"copy_32x8", 256, fn_ptr(&bench_copy_32x8), [](void* o, const void* i, int n) {
                 bench_copy_32x8<<<grid_2d(n, 32, 32), dim3(32, 8)>>>(f32(o), f32(i), n);
               }});
  c.push_back({"naive", 256, fn_ptr(&bench_naive), [](void* o, const void* i, int n) {
                 bench_naive<<<grid_2d(n, 32, 32), dim3(32, 8)>>>(f32(o), f32(i), n);
               }});
  c.push_back(seed_candidate<32>("seed_32x32"));
  c.push_back(seed_candidate<33>("seed_32x33"));
  c.push_back(tiled_32x8_candidate<float, 32, 0>("tiled_32x8_32x32"));
  c.push_back(tiled_32x8_candidate<float, 33, 0>("tiled_32x8_32x33"));
  c.push_back(tiled_32x8_candidate<float, 32, 31>("tiled_32x8_xor"));
  c.push_back(tiled_32x8_candidate<double, 33, 0>("tiled_32x8_double_32x33"));
  c.push_back(tiled_32x8_candidate<float4, 33, 0>("tiled_float4_32x33"));
  c.push_back(fast_f4_candidate<64, 64, 256, false>("fast_f4_64x64_t256"));
  c.push_back(fast_f4_candidate<64, 64, 128, false>("fast_f4_64x64_t128"));
  c.push_back(fast_f4_candidate<64, 64, 256, true>("fast_f4_64x64_t256_cs"));
  c.push_back(fast_f4_candidate<128, 64, 256, false>("fast_f4_128x64_t256"));
  c.push_back(fast_f4_candidate<64, 64, 256, false, 8>("fast_f4_64x64_t256_g8"));
  c.push_back(fast_f4_candidate<64, 64, 256, false, 32>("fast_f4_64x64_t256_g32"));
  c.push_back(fast_f4_candidate<128, 64, 256, false, 16>("fast_f4_128x64_t256_g16"));
  c.push_back(fast_f4_candidate<32, 64, 128, false>("fast_f4_32x64_t128"));
  c.push_back(fast_f4_persistent_candidate<64, 64, 256>("fast_f4p_64x64_t256", handle != nullptr ? sms : 0));
  // Issue 15: one change at a time on fast_f4 for N = 16384, and fast_shift for every n.
  c.push_back(fast_f4v_candidate<64, 64, 256, kF4Pf256>("fast_f4v_64x64_t256_pf"));
  c.push_back(fast_f4v_candidate<64, 64, 256, kF4Stcs>("fast_f4v_64x64_t256_stcs"));
  c.push_back(fast_f4v_candidate<64, 128, 256, 0>("fast_f4v_64x128_t256"));
  c.push_back(fast_f4v_candidate<64, 128, 256, kF4Pf256>("fast_f4v_64x128_t256_pf"));
  c.push_back(fast_f4v_candidate<128, 128, 512, kF4Dyn>("fast_f4v_128x128_t512"));
  c.push_back(fast_f4v_candidate<128, 128, 512, kF4Dyn | kF4Pf256>("fast_f4v_128x128_t512_pf"));
  c.push_back(fast_shift_candidate<64, 64, 256>("fast_shift_64x64_t256"));
  c.push_back(fast_shift_candidate<64, 64, 256, 5>("fast_shift_64x64_t256_b5"));
  c.push_back(fast_shift_candidate<64, 64, 256, 1, kShiftShfl>("fast_shift_64x64_t256_sh"));
  c.push_back(fast_shift_candidate<64, 64, 256, 5, kShiftShfl>("fast_shift_64x64_t256_sh_b5"));
  c.push_back(fast_shift_candidate<64, 64, 256, 1, kShiftColMajor>("fast_shift_64x64_t256_cm"));
  c.push_back(fast_shift_candidate<64, 64, 256, 1, kShiftShfl | kShiftColMajor>("fast_shift_64x64_t256_sh_cm"));
  c.push_back(fast_shift_candidate<64, 64, 128, 5>("fast_shift_64x64_t128"));
  c.push_back(fast_shift_candidate<128, 64, 256, 3>("fast_shift_128x64_t256"));
  c.push_back(fast_shift_candidate<64, 128, 256, 3>("fast_shift_64x128_t256"));
  c.push_back(fast_sec_candidate<64, 64, 256, false>("fast_sec_64x64_t256"));
  c.push_back(fast_sec_candidate<64, 64, 256, true>("fast_sec_64x64_t256_vec"));
  c.push_back(fast_sec_candidate<64, 64, 256, true, 5>("fast_sec_64x64_t256_vec_b5"));
  c.push_back(fast_sec_candidate<128, 64, 256, true, 3>("fast_sec_128x64_t256_vec"));
  c.push_back(fast_sec_candidate<128, 64, 512, true>("fast_sec_128x64_t512_vec"));
  c.push_back({"fast_reg4x4", 256, fn_ptr(&fast_reg4x4), [](void* o, const void* i, int n) {
                 fast_reg4x4<<<grid_2d(n, kReg4x4Tile, kReg4x4Tile), 256>>>(f32(o), f32(i), n);
               }});
  // Last: a copy-engine fault would end the process's CUDA context (h200_bench.sh smoke-tests it
  // in a process of its own first).
  c.push_back(fast_tma_candidate());
  return c;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      o += buf;
    } else {
      o += ch;
    }
  }
  return o;
}


DeviceFacts query_facts(cublasHandle_t handle) {
  DeviceFacts d;
  d.info = query_device_info();
  int dev = 0;
  BANKSCOPE_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  BANKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  d.l2_bytes = p.l2CacheSize;
  d.smem_per_sm = p.sharedMemPerMultiprocessor;
  BANKSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&d.bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
  BANKSCOPE_CUBLAS_CHECK(cublasGetVersion(handle, &d.cublas));
  return d;
}

std::string to_json(const DeviceFacts& d, const BenchOptions& o, const std::vector<Row>& rows, bool complete,
                    const std::string& error) {
  std::ostringstream j;
  j.setf(std::ios::fixed);
  j << "{\n  \"tool\": \"bankscope-gpu bench\",\n  \"complete\": " << (complete ? "true" : "false");
  if (!error.empty()) j << ",\n  \"error\": \"" << json_escape(error) << "\"";
  const DeviceInfo& i = d.info;
  j << ",\n  \"device\": {\"name\": \"" << json_escape(i.name) << "\", \"sm\": \"" << i.sm << "\", \"sms\": " << i.sms
    << ", \"sm_clock_mhz\": " << i.sm_clock_mhz << ", \"mem_clock_mhz\": " << i.mem_clock_mhz
    << ", \"mem_bus_bits\": " << d.bus_bits << ", \"l2_bytes\": " << d.l2_bytes << ", \"smem_per_sm\": " << d.smem_per_sm
    << ", \"nvidia_driver\": \"" << json_escape(i.driver) << "\", \"cuda_driver\": \"" << i.cuda_driver
    << "\", \"cuda_runtime\": \"" << i.cuda_runtime << "\", \"cublas\": " << d.cublas << ", \"date\": \"" << i.date
    << "\"},\n";
  j << "  \"method\": {\"elem\": \"elem_bytes per row (4: float, 8: double, 16: float4)\", \"runs\": " << o.runs
    << ", \"warmup\": " << o.warmup
    << ", \"statistic\": \"median\", \"timer\": \"cudaEvent per launch\", \"gbps\": \"2*n*n*elem_bytes / median\", "
       "\"pct_of_copy\": \"gbps / memcpy_d2d gbps at the same n\", \"launch_facts\": \"threads from the launch; regs, "
       "static_smem_bytes from cudaFuncGetAttributes; dynamic_smem_bytes from the launch\"},\n";
  j << "  \"rows\": [";
  for (size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    j.precision(5);
    j << (k ? ",\n" : "\n") << "    {\"kernel\": \"" << json_escape(r.name) << "\", \"family\": \"" << r.family
      << "\", \"scenario\": \"" << json_escape(r.scenario) << "\", \"n\": " << r.n << ", \"elem_bytes\": " << r.elem_bytes
      << ", \"threads\": " << r.threads << ", \"regs\": " << r.regs << ", \"static_smem_bytes\": " << r.static_smem
      << ", \"dynamic_smem_bytes\": " << r.dynamic_smem << ", \"ms_median\": " << r.ms_median
      << ", \"ms_min\": " << r.ms_min << ", \"ms_max\": " << r.ms_max;
    j.precision(1);
    j << ", \"gbps\": " << r.gbps << ", \"pct_of_copy\": " << r.pct_of_copy;
    j.precision(4);
    j << ", \"vs_cublas\": " << r.vs_cublas << ", \"correct\": " << (r.correct ? "true" : "false")
      << ", \"gpu_mismatches\": " << r.gpu_mismatches << ", \"cpu_mismatches\": " << r.cpu_mismatches
      << ", \"cpu_checked\": " << r.cpu_checked;
    if (!r.skipped.empty()) j << ", \"skipped\": \"" << json_escape(r.skipped) << "\"";
    if (r.predicted_ms > 0) {
      j.precision(5);
      j << ", \"predicted_ms\": " << r.predicted_ms;
      j.precision(4);
      j << ", \"model_error\": " << (r.predicted_ms / r.ms_median - 1.0);
    }
    j << "}";
  }
  j << "\n  ]\n}\n";
  return j.str();
}

// Writes next to the target, then renames: a reader never sees half a file.
bool save_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    f << text;
    if (!f.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

// The checked run: poison, one launch, count every wrong word on the GPU, compare rows on the CPU.
void check_once(const Candidate& c, void* out, const void* in, int n, unsigned long long* d_count, Row* row) {
  const int wpe = c.k->elem_bytes / 4;  // 32-bit words per element
  const size_t words = size_t(n) * size_t(n) * size_t(wpe);
  BANKSCOPE_CUDA_CHECK(cudaMemset(out, 0xff, words * 4));  // kPoisonWord everywhere
  BANKSCOPE_CUDA_CHECK(cudaMemset(d_count, 0, sizeof(unsigned long long)));
  c.launch(out, in, n);
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
  BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  k_count_mismatches<<<1024, 256>>>(static_cast<const uint32_t*>(out), n, wpe, c.k->is_copy, d_count);
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
  unsigned long long bad = 0;
  BANKSCOPE_CUDA_CHECK(cudaMemcpy(&bad, d_count, sizeof bad, cudaMemcpyDeviceToHost));
  row->gpu_mismatches = bad;

  std::vector<int64_t> rows_to_check;
  if (n <= 4096) {
    for (int64_t r = 0; r < n; ++r) rows_to_check.push_back(r);
  } else {
    std::mt19937_64 rng(0x5eed0000u + uint64_t(n));
    rows_to_check = {0, n - 1};
    while (rows_to_check.size() < 128) rows_to_check.push_back(int64_t(rng() % uint64_t(n)));
  }
  const size_t row_words = size_t(n) * size_t(wpe);
  std::vector<uint32_t> host(row_words);
  uint64_t cpu_bad = 0;
  for (const int64_t r : rows_to_check) {
    BANKSCOPE_CUDA_CHECK(cudaMemcpy(host.data(), static_cast<const uint32_t*>(out) + size_t(r) * row_words, row_words * 4,
                                    cudaMemcpyDeviceToHost));
    for (int64_t col = 0; col < n; ++col) {
      const uint64_t src = c.k->is_copy ? uint64_t(r) * uint64_t(n) + uint64_t(col) : uint64_t(col) * uint64_t(n) + uint64_t(r);
      for (int q = 0; q < wpe; ++q)
        cpu_bad += host[size_t(col) * size_t(wpe) + size_t(q)] != fill_word(src * uint64_t(wpe) + uint64_t(q)) ? 1 : 0;
    }
  }
  row->cpu_mismatches = cpu_bad;
  row->cpu_checked = uint64_t(rows_to_check.size()) * uint64_t(n);  // elements
  row->correct = bad == 0 && cpu_bad == 0;
}

struct Buffers {
  std::vector<void*> in, out;
  ~Buffers() {
    for (void* p : in) cudaFree(p);
    for (void* p : out) cudaFree(p);
  }
};

void time_runs(const Candidate& c, const Buffers& b, int n, int warmup, int runs, std::vector<cudaEvent_t>& ev, Row* row) {
  const size_t pairs = b.in.size();
  for (int k = 0; k < warmup; ++k) c.launch(b.out[k % pairs], b.in[k % pairs], n);
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
  for (int k = 0; k < runs; ++k) {
    BANKSCOPE_CUDA_CHECK(cudaEventRecord(ev[2 * k]));
    c.launch(b.out[k % pairs], b.in[k % pairs], n);
    BANKSCOPE_CUDA_CHECK(cudaEventRecord(ev[2 * k + 1]));
  }
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
  BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms(static_cast<size_t>(runs));
  for (int k = 0; k < runs; ++k) {
    float t = 0;
    BANKSCOPE_CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * k], ev[2 * k + 1]));
    ms[size_t(k)] = t;
  }
  std::sort(ms.begin(), ms.end());
  row->ms_median = runs % 2 ? ms[size_t(runs / 2)] : 0.5 * (ms[size_t(runs / 2 - 1)] + ms[size_t(runs / 2)]);
  row->ms_min = ms.front();
  row->ms_max = ms.back();
  row->gbps = 2.0 * double(n) * double(n) * double(c.k->elem_bytes) / (row->ms_median * 1e-3) / 1e9;
}

std::string find_plot_script(const BenchOptions& o) {
  if (!o.plot_script.empty()) return o.plot_script;
  for (const std::string& p : {std::string("scripts/plot_bench.py"), std::string(BANKSCOPE_SOURCE_DIR) + "/scripts/plot_bench.py"}) {
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) return p;
  }
  return "";
}

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (const char ch : s) o += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return o + "'";
}

void print_summary(const std::vector<Row>& rows, const std::vector<int64_t>& sizes) {
  std::printf("\nsummary: the fastest correct candidate per n\n");
  for (const int64_t n : sizes) {
    const Row* best = nullptr;
    const Row* cublas = nullptr;
    for (const Row& r : rows) {
      if (r.n != n) continue;
      if (r.name == "cublas_sgeam") cublas = &r;
      if (r.family == "candidate" && r.correct && r.skipped.empty() && (best == nullptr || r.gbps > best->gbps)) best = &r;
    }
    if (best == nullptr) {
      std::printf("  n=%-6lld no correct candidate\n", (long long)n);
      continue;
    }
    std::printf("  n=%-6lld %-24s %7.1f GB/s  %5.1f%% of copy", (long long)n, best->name.c_str(), best->gbps,
                best->pct_of_copy);
    if (cublas != nullptr)
      std::printf("  cublas %7.1f GB/s: %s by %+.1f%%", cublas->gbps, best->gbps > cublas->gbps ? "ahead" : "BEHIND",
                  100.0 * (best->gbps / cublas->gbps - 1.0));
    if (n == 16384) std::printf("  [target >= 95%% of copy: %s]", best->pct_of_copy >= 95.0 ? "met" : "missed");
    std::printf("\n");
  }
}

// The timing model beside every row it describes: predicted ms and error (bench_timing.hpp), with
// each kernel's registers and shared bytes as this run read them (cudaFuncGetAttributes) and the
// copy ceiling fitted to this run's cudaMemcpy rows: an in-run check, not a held-out prediction
// (those are made beforehand by `bankscope-gpu timing-predict`).
void predict_rows(std::vector<Row>& rows, const DeviceFacts& dev) {
  BenchRun run;
  run.path = "this run";
  run.sms = dev.info.sms;
  run.sm_clock_mhz = double(dev.info.sm_clock_mhz);
  for (const Row& r : rows) {
    BenchMeasurement m;
    m.kernel = r.name;
    m.n = r.n;
    m.ms = r.skipped.empty() && r.correct ? r.ms_median : 0.0;
    m.compiled = {r.regs, r.static_smem, r.dynamic_smem};
    run.rows.push_back(m);
  }
  auto copy = copy_ceiling_of(run);
  if (!copy) {
    std::printf("\ntiming model: %s\n", copy.error().message.c_str());
    return;
  }
  ScenarioWavefronts wf(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios");
  const DeviceThroughput model = model_device(run.sms, run.sm_clock_mhz, *copy, ModelConstants{});
  std::vector<std::string> skipped;
  auto predicted = predict_bench_rows(run.rows, model, wf, nullptr, &skipped);
  if (!predicted) {
    std::printf("\ntiming model: %s\n", predicted.error().message.c_str());
    return;
  }
  std::printf("\ntiming model (sim/timing_model.hpp; copy ceiling of this run %.1f GB/s + %.2f us): predicted vs measured\n",
              copy->gbps, copy->overhead_us);
  std::printf("%-24s %6s %4s %10s %10s %8s  %s\n", "kernel", "n", "regs", "predicted", "measured", "error", "bound");
  for (const BenchPrediction& p : *predicted) {
    for (Row& r : rows) {
      if (r.name == p.kernel && r.n == p.n) r.predicted_ms = p.predicted.ms;
    }
    std::printf("%-24s %6lld %4d %10.4f %10.4f %+7.1f%%  %s\n", p.kernel.c_str(), static_cast<long long>(p.n),
                p.compiled.regs_per_thread, p.predicted.ms, p.measured_ms, 100.0 * p.error, p.predicted.bound.c_str());
  }
  for (const std::string& s : skipped) std::printf("timing model: left out %s\n", s.c_str());
}

int run_bench_impl(const BenchOptions& o) {
  for (const int64_t n : o.sizes) {
    if (n < 1 || n > 32768) {
      std::cerr << "bankscope-gpu bench: --n: " << n << " is not a matrix size between 1 and 32768\n";
      return kBenchExitUsage;
    }
  }
  if (o.runs < 1 || o.runs > 10000 || o.warmup < 0) {
    std::cerr << "bankscope-gpu bench: --runs must be 1..10000 and --warmup >= 0\n";
    return kBenchExitUsage;
  }
  if (!o.svg_path.empty() && o.json_path.empty()) {
    std::cerr << "bankscope-gpu bench: --svg needs --json (the chart is drawn from the JSON)\n";
    return kBenchExitUsage;
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::cerr << "bankscope-gpu bench: no CUDA device (" << (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices")
              << "): run it on a machine with an NVIDIA GPU\n";
    return kBenchExitNoDevice;
  }

  cublasHandle_t handle = nullptr;
  BANKSCOPE_CUBLAS_CHECK(cublasCreate(&handle));
  struct HandleGuard {
    cublasHandle_t h;
    ~HandleGuard() { cublasDestroy(h); }
  } guard{handle};
  const DeviceFacts dev = query_facts(handle);
  std::cerr << "bankscope-gpu bench: " << dev.info.name << ", " << dev.info.sms << " SMs, " << dev.info.sm_clock_mhz
            << " MHz, driver " << dev.info.driver << ", CUDA " << dev.info.cuda_driver << " (runtime "
            << dev.info.cuda_runtime << "), cuBLAS " << dev.cublas << "\n";

  std::vector<Candidate> all = make_candidates(handle, dev.info.sms);
  std::vector<Candidate> lineup;
  for (Candidate& c : all) {
    const bool always = c.name() == "memcpy_d2d" || c.name() == "cublas_sgeam";  // the two yardsticks
    const bool picked = o.only.empty() || c.name().find(o.only) != std::string::npos;
    const bool dropped = !o.exclude.empty() && c.name().find(o.exclude) != std::string::npos;
    if (always || (picked && !dropped)) lineup.push_back(std::move(c));
  }

  std::vector<cudaEvent_t> ev(size_t(2 * o.runs));
  for (cudaEvent_t& x : ev) BANKSCOPE_CUDA_CHECK(cudaEventCreate(&x));
  unsigned long long* d_count = nullptr;
  BANKSCOPE_CUDA_CHECK(cudaMalloc(&d_count, sizeof(unsigned long long)));

  int max_elem_bytes = 4;
  for (const Candidate& c : lineup) max_elem_bytes = std::max(max_elem_bytes, c.k->elem_bytes);

  std::vector<Row> rows;
  int wrong = 0;
  std::string error;
  const auto save = [&](bool complete) {
    if (o.json_path.empty()) return;
    if (!save_atomic(o.json_path, to_json(dev, o, rows, complete, error)))
      std::cerr << "bankscope-gpu bench: cannot write " << o.json_path << "\n";
  };

  std::printf("%-24s %6s %10s %9s %8s %9s  %s\n", "kernel", "n", "ms", "GB/s", "% copy", "/cublas", "check");
  try {
    for (const int64_t n64 : o.sizes) {
      const int n = static_cast<int>(n64);
      const size_t bytes = size_t(n) * size_t(n) * sizeof(float);
      // Enough pairs that the rotation spans 4x the L2 for fp32: each run starts from DRAM (wider
      // elements span more). Each buffer holds the widest element the lineup uses.
      const size_t pairs = std::max<size_t>(1, std::min<size_t>(8, (size_t(4) * size_t(dev.l2_bytes) + 2 * bytes - 1) / (2 * bytes)));
      const size_t alloc = size_t(n) * size_t(n) * size_t(max_elem_bytes);
      Buffers buf;
      for (size_t k = 0; k < pairs; ++k) {
        void* pi = nullptr;
        void* po = nullptr;
        BANKSCOPE_CUDA_CHECK(cudaMalloc(&pi, alloc));
        buf.in.push_back(pi);
        BANKSCOPE_CUDA_CHECK(cudaMalloc(&po, alloc));
        buf.out.push_back(po);
        k_fill_words<<<2048, 256>>>(static_cast<uint32_t*>(pi), alloc / 4);
        BANKSCOPE_CUDA_CHECK(cudaGetLastError());
      }
      BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      double copy_gbps = 0, cublas_gbps = 0;
      for (const Candidate& c : lineup) {
        Row row;
        row.name = c.name();
        row.family = c.k->family;
        row.scenario = c.k->scenario;
        row.n = n;
        row.elem_bytes = c.k->elem_bytes;
        if (c.func != nullptr) {  // what the compiled kernel says about itself
          cudaFuncAttributes attr{};
          BANKSCOPE_CUDA_CHECK(cudaFuncGetAttributes(&attr, c.func));
          row.threads = c.k->threads;
          row.regs = attr.numRegs;
          row.static_smem = int(attr.sharedSizeBytes);
          row.dynamic_smem = c.dyn_smem;  // what the launch asks for (fast_f4v with kF4Dyn only)
        }
        row.skipped = c.refuse(n);
        if (!row.skipped.empty()) {
          std::printf("%-24s %6d %10s %9s %8s %9s  refused: %s\n", c.name().c_str(), n, "-", "-", "-", "-", row.skipped.c_str());
          rows.push_back(row);
          continue;
        }
        check_once(c, buf.out[0], buf.in[0], n, d_count, &row);
        time_runs(c, buf, n, o.warmup, o.runs, ev, &row);
        if (c.name() == "memcpy_d2d") copy_gbps = row.gbps;
        if (c.name() == "cublas_sgeam") cublas_gbps = row.gbps;
        row.pct_of_copy = copy_gbps > 0 ? 100.0 * row.gbps / copy_gbps : 0;
        row.vs_cublas = cublas_gbps > 0 ? row.gbps / cublas_gbps : 0;
        if (!row.correct) ++wrong;
        char check[96];
        if (row.correct) {
          std::snprintf(check, sizeof check, "ok");
        } else {
          std::snprintf(check, sizeof check, "WRONG (%llu words on the GPU, %llu of %llu on the CPU)",
                        (unsigned long long)row.gpu_mismatches, (unsigned long long)row.cpu_mismatches,
                        (unsigned long long)row.cpu_checked);
        }
        std::printf("%-24s %6d %10.4f %9.1f %7.1f%% %9.3f  %s\n", c.name().c_str(), n, row.ms_median, row.gbps,
                    row.pct_of_copy, row.vs_cublas, check);
        std::fflush(stdout);
        rows.push_back(row);
        save(false);  // after every row: a fault later keeps what ran
      }
      for (Row& r : rows)  // memcpy_d2d ran before cuBLAS: fill in its ratio too
        if (r.n == n && r.skipped.empty()) r.vs_cublas = cublas_gbps > 0 ? r.gbps / cublas_gbps : 0;
      save(false);
    }
  } catch (const std::exception& ex) {
    error = ex.what();
    std::cerr << "bankscope-gpu bench: " << error << "\n";
    save(false);
    return kBenchExitError;
  }
  for (cudaEvent_t& x : ev) cudaEventDestroy(x);
  cudaFree(d_count);

  print_summary(rows, o.sizes);
  predict_rows(rows, dev);
  save(true);
  if (!o.json_path.empty()) std::cerr << "bankscope-gpu bench: wrote " << o.json_path << "\n";
  if (!o.svg_path.empty()) {
    const std::string script = find_plot_script(o);
    if (script.empty()) {
      std::cerr << "bankscope-gpu bench: scripts/plot_bench.py not found: no chart (run it by hand on the JSON)\n";
    } else {
      const std::string cmd = "python3 " + shell_quote(script) + " " + shell_quote(o.json_path) + " " + shell_quote(o.svg_path);
      if (std::system(cmd.c_str()) != 0) {
        std::cerr << "bankscope-gpu bench: the chart failed: " << cmd << "\n";
      } else {
        std::cerr << "bankscope-gpu bench: wrote " << o.svg_path << "\n";
      }
    }
  }
  std::printf("\n%zu rows, %d wrong outputs\n", rows.size(), wrong);
  return wrong > 0 ? kBenchExitWrongOutput : kBenchExitOk;
}

}  // namespace

std::vector<std::string> bench_kernel_names() {
  std::vector<std::string> names;
  for (const Candidate& c : make_candidates(nullptr, 0)) names.push_back(c.name());
  return names;
}

void launch_bench_kernel(const std::string& name, void* out, const void* in, int n) {
  static const std::vector<Candidate> all = make_candidates(nullptr, 0);  // no cuBLAS handle
  for (const Candidate& c : all) {
    if (c.name() != name) continue;
    if (c.func == nullptr) break;  // cudaMemcpy and cuBLAS are not kernels of ours
    c.launch(out, in, n);
    BANKSCOPE_CUDA_CHECK(cudaGetLastError());
    return;
  }
  throw std::invalid_argument("launch_bench_kernel: \"" + name + "\" is not a bench kernel of ours");
}

int run_bench(const BenchOptions& options) {
  try {
    return run_bench_impl(options);
  } catch (const std::exception& e) {  // before the first row: the device or cuBLAS failed
    std::cerr << "bankscope-gpu bench: " << e.what() << "\n";
    return kBenchExitError;
  }
}

}  // namespace bankscope
