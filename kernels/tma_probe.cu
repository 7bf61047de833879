// tma_probe.cu: bankscope-tma-probe, where the Hopper copy engine (TMA) puts each byte of a box it
// writes into shared memory with CU_TENSOR_MAP_SWIZZLE_NONE/32B/64B/128B, compared with the model's
// named layout (tma_swizzle, sim/bank_math.hpp), and what reading such a tile costs.
//
//   bankscope-tma-probe [--cases aligned|misaligned]   one line per case + a total; exit 0 when
//                                                       every case is equal to the model ("all
//                                                       cases equal"); a difference says which
//                                                       rival hypothesis explains it, if one does
//   bankscope-tma-probe --reads                         a 64x64 half tile loaded by TMA (none and
//                                                       128B), read by one warp with one LDS.128
//                                                       column and one ldmatrix.x4; prints the
//                                                       model's wavefronts: run it under ncu
//   bankscope-tma-probe --list                          the cases, no GPU
//
// How a case is measured: the global box holds, at byte g (row * inner + byte in row), the low
// byte of g in one pass and the high byte in a second pass (box <= 4096 bytes: g < 0x1000); shared
// memory is prefilled with 0xFF, so a byte the copy did not write reads back as 0xFFFF. The kernel
// reads the window (kWindowBytes, 20 KiB: the largest box with its rows padded to the span is 16
// KiB) from a 1024-byte-aligned base linearly; the host (tma_probe_check.cpp) says where each
// element landed against make_shared_array() with the case's tma_span. A case whose padded box
// would not fit the window is skipped, not run (the copy would write past the buffer: the H200
// run of 2026-12-01f faulted so on the old 8 KiB window).
// 16-byte elements have no tensor map data type: they are copied as pairs of UINT64 (the swizzle
// acts on bytes; documented).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "sim/bank_math.hpp"
#include "tma_probe_check.hpp"
#include "tma_util.cuh"

namespace bankscope {
namespace tma_probe {

// Thread 0 starts the box copy to `dst` and every thread waits for it (phase 0 of `bar`).
__device__ void tma_load_box(const CUtensorMap* map, uint32_t dst, uint64_t* bar, uint32_t bytes) {
  const uint32_t bar_addr = smem_addr(bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar_addr), "r"(1) : "memory");
    // The initialized barrier (and any prefill) must be visible to the async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(bytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(0), "r"(0), "r"(bar_addr)
        : "memory");
  }
  __syncthreads();
  mbarrier_wait_phase0(bar_addr);  // a box that never arrives: fail, do not hang
}

// One box into the window at dst_offset, then the whole window back to `out`, byte by byte.
__global__ void tma_probe_load(const __grid_constant__ CUtensorMap map, uint32_t dst_offset, uint32_t box_bytes,
                               unsigned char* out) {
  extern __shared__ __align__(1024) unsigned char raw[];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t raw_addr = smem_addr(raw);
  const uint32_t pad = (1024u - (raw_addr & 1023u)) & 1023u;  // the swizzle follows address bits
  unsigned char* window = raw + pad;
  for (int i = threadIdx.x; i < kWindowBytes; i += blockDim.x) window[i] = 0xFF;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // prefill before the copy's writes
  __syncthreads();
  tma_load_box(&map, raw_addr + pad + dst_offset, &bar, box_bytes);
  for (int i = threadIdx.x; i < kWindowBytes; i += blockDim.x) out[i] = window[i];
}

// The 64x64 half tile (128-byte rows, one box of 8 KiB) by TMA with `mode`, then one warp: one
// LDS.128 reading column chunk 0 of rows 0..31, one ldmatrix.x4 of the 16x16 block at (0, 0)
// (lane l: matrix m = l / 8, row 8 (m % 2) + l % 8, column 8 (m / 2)). Addresses from the model's
// layout function (PhysicalLayout with tma_swizzle_on_elements), so the program and the model read
// the same places; the load probe checks that layout against what TMA wrote.
__global__ void tma_probe_reads(const __grid_constant__ CUtensorMap map, int mode, uint32_t* out) {
  extern __shared__ __align__(1024) unsigned char raw[];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t raw_addr = smem_addr(raw);
  const uint32_t pad = (1024u - (raw_addr & 1023u)) & 1023u;
  const uint32_t tile = raw_addr + pad;
  tma_load_box(&map, tile, &bar, 64 * 64 * 2);
  const PhysicalLayout layout{64, 0, tma_swizzle_on_elements(mode, 2)};
  const int lane = threadIdx.x & 31;
  uint32_t v[4], w[4];
  const uint32_t col_addr = tile + static_cast<uint32_t>(layout.offset(lane, 0) * 2);
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
               : "r"(col_addr)
               : "memory");
  const int m = lane / 8;
  const uint32_t row_addr = tile + static_cast<uint32_t>(layout.offset(8 * (m % 2) + lane % 8, 8 * (m / 2)) * 2);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
               : "r"(row_addr)
               : "memory");
  for (int k = 0; k < 4; ++k) {
    out[lane * 8 + k] = v[k];
    out[lane * 8 + 4 + k] = w[k];
  }
}

namespace {

// A [rows][inner bytes] box at (0, 0) of a matrix of exactly that size. 16-byte elements as UINT64.
CUresult encode(EncodeTiledFn fn, CUtensorMap* map, void* global, int elem_bytes, int inner_bytes, int rows, int mode) {
  const int dt_bytes = elem_bytes == 16 ? 8 : elem_bytes;
  const CUtensorMapDataType dt = dt_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                 : dt_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                 : dt_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                 : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  const cuuint64_t dims[2] = {cuuint64_t(inner_bytes / dt_bytes), cuuint64_t(rows)};
  const cuuint64_t pitch[1] = {cuuint64_t(inner_bytes)};
  const cuuint32_t box[2] = {cuuint32_t(inner_bytes / dt_bytes), cuuint32_t(rows)};
  const cuuint32_t step[2] = {1, 1};
  const CUtensorMapSwizzle sw = static_cast<CUtensorMapSwizzle>(mode);  // NONE, 32B, 64B, 128B = 0..3
  return fn(map, dt, 2, global, dims, pitch, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

constexpr size_t kDynamicSmem = kWindowBytes + 1024;  // the window plus room to align it to 1024

int run_cases(bool misaligned) {
  const EncodeTiledFn fn = encode_tiled_fn();
  unsigned char *g_lo = nullptr, *g_hi = nullptr, *d_out = nullptr;
  BANKSCOPE_CUDA_CHECK(cudaMalloc(&g_lo, kMaxBoxBytes));
  BANKSCOPE_CUDA_CHECK(cudaMalloc(&g_hi, kMaxBoxBytes));
  BANKSCOPE_CUDA_CHECK(cudaMalloc(&d_out, kWindowBytes));
  std::vector<unsigned char> lo(kMaxBoxBytes), hi(kMaxBoxBytes), win_lo(kWindowBytes), win_hi(kWindowBytes);
  for (int g = 0; g < kMaxBoxBytes; ++g) {
    lo[size_t(g)] = static_cast<unsigned char>(g & 0xff);
    hi[size_t(g)] = static_cast<unsigned char>(g >> 8);
  }
  BANKSCOPE_CUDA_CHECK(cudaMemcpy(g_lo, lo.data(), kMaxBoxBytes, cudaMemcpyHostToDevice));
  BANKSCOPE_CUDA_CHECK(cudaMemcpy(g_hi, hi.data(), kMaxBoxBytes, cudaMemcpyHostToDevice));
  int total = 0, equal = 0, refused = 0;
  for (const Case& c : cases(misaligned)) {
    ++total;
    if (c.dst_offset + c.footprint_bytes() > kWindowBytes) {
      std::printf("case %s: skipped (its rows padded to the span need %d bytes from %d; the window has %d)\n",
                  c.name().c_str(), c.footprint_bytes(), c.dst_offset, kWindowBytes);
      continue;
    }
    CUtensorMap map_lo{}, map_hi{};
    const CUresult r1 = encode(fn, &map_lo, g_lo, c.elem_bytes, c.inner_bytes, c.rows, c.mode);
    const CUresult r2 = encode(fn, &map_hi, g_hi, c.elem_bytes, c.inner_bytes, c.rows, c.mode);
    if (r1 != CUDA_SUCCESS || r2 != CUDA_SUCCESS) {
      std::printf("case %s: cuTensorMapEncodeTiled failed (CUresult %d)\n", c.name().c_str(), int(r1 != CUDA_SUCCESS ? r1 : r2));
      continue;
    }
    try {
      BANKSCOPE_CUDA_CHECK(cudaMemset(d_out, 0x5A, kWindowBytes));
      tma_probe_load<<<1, 128, kDynamicSmem>>>(map_lo, uint32_t(c.dst_offset), uint32_t(c.box_bytes()), d_out);
      BANKSCOPE_CUDA_CHECK(cudaGetLastError());
      BANKSCOPE_CUDA_CHECK(cudaMemcpy(win_lo.data(), d_out, kWindowBytes, cudaMemcpyDeviceToHost));
      BANKSCOPE_CUDA_CHECK(cudaMemset(d_out, 0x5A, kWindowBytes));
      tma_probe_load<<<1, 128, kDynamicSmem>>>(map_hi, uint32_t(c.dst_offset), uint32_t(c.box_bytes()), d_out);
      BANKSCOPE_CUDA_CHECK(cudaGetLastError());
      BANKSCOPE_CUDA_CHECK(cudaMemcpy(win_hi.data(), d_out, kWindowBytes, cudaMemcpyDeviceToHost));
    } catch (const CudaError& e) {
      // The context is lost after a fault: report this case and stop.
      std::printf("case %s: CUDA error, stopping: %s\n", c.name().c_str(), e.what());
      std::printf("total: %d of %d cases run, %d equal (stopped by a CUDA error)\n", total, int(cases(misaligned).size()), equal);
      return 2;
    }
    std::vector<uint16_t> landed(kWindowBytes);
    for (size_t s = 0; s < landed.size(); ++s) landed[s] = static_cast<uint16_t>(win_lo[s] | (win_hi[s] << 8));
    const Verdict v = compare(c, landed);
    refused += v.refused ? 1 : 0;
    equal += v.equal ? 1 : 0;
    std::printf("%s\n", v.line.c_str());
  }
  // Every case must be equal to the model (none refused, none skipped).
  std::printf("%s\n", summary(total, equal, refused).c_str());
  cudaFree(g_lo);
  cudaFree(g_hi);
  cudaFree(d_out);
  return equal == total ? 0 : 1;
}

int run_reads() {
  const EncodeTiledFn fn = encode_tiled_fn();
  constexpr int kBytes = 64 * 64 * 2;
  unsigned char* g = nullptr;
  uint32_t* d_out = nullptr;
  BANKSCOPE_CUDA_CHECK(cudaMalloc(&g, kBytes));
  BANKSCOPE_CUDA_CHECK(cudaMalloc(&d_out, 32 * 8 * sizeof(uint32_t)));
  BANKSCOPE_CUDA_CHECK(cudaMemset(g, 0, kBytes));
  for (int mode : {0, 3}) {
    CUtensorMap map{};
    const CUresult r = encode(fn, &map, g, 2, 128, 64, mode);
    if (r != CUDA_SUCCESS) {
      std::printf("reads mode=%d: cuTensorMapEncodeTiled failed (CUresult %d)\n", mode, int(r));
      return 1;
    }
    tma_probe_reads<<<1, 32, kDynamicSmem>>>(map, mode, d_out);
    BANKSCOPE_CUDA_CHECK(cudaGetLastError());
    BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    for (const ReadPrediction& p : read_predictions(mode)) {
      std::printf("predict launch %d (tma=%s): %s: %d instruction, %d wavefronts (%s)\n", mode == 0 ? 1 : 2,
                  mode == 0 ? "none" : "128B", p.what.c_str(), 1, p.wavefronts, p.counter.c_str());
    }
  }
  cudaFree(g);
  cudaFree(d_out);
  return 0;
}

}  // namespace
}  // namespace tma_probe
}  // namespace bankscope

int main(int argc, char** argv) {
  using namespace bankscope::tma_probe;
  std::string what = "aligned";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cases" && i + 1 < argc) {
      what = argv[++i];
      if (what != "aligned" && what != "misaligned") {
        std::fprintf(stderr, "bankscope-tma-probe: --cases: '%s' must be aligned or misaligned\n", what.c_str());
        return 2;
      }
    } else if (a == "--reads" || a == "--list") {
      what = a;
    } else {
      std::fprintf(stderr, "bankscope-tma-probe: unknown argument '%s' (--cases aligned|misaligned, --reads, --list)\n", a.c_str());
      return 2;
    }
  }
  try {
    if (what == "--list") {
      for (bool mis : {false, true}) {
        for (const Case& c : cases(mis)) std::printf("%s\n", c.name().c_str());
      }
      return 0;
    }
    if (what == "--reads") return run_reads();
    return run_cases(what == "misaligned");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bankscope-tma-probe: %s\n", e.what());
    return 2;
  }
}
