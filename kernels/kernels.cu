// kernels.cu: instantiates the transpose and pattern kernels and launches them (kernels.hpp).
//
// Which kernel runs for a scenario: the gpu_kernel name picks the thread shape (seed: 32x32
// threads, one element each; everything else: 32x8 threads, four elements each); the element type
// and the physical layout come from the scenario's arrays[0]. The lesson's layouts (row stride 32
// or 33, XOR mask 0 or 31, no CuTe swizzle) run as static-__shared__ kernels exactly as written in
// the lesson; any other layout, and every "dynamic_stride" scenario, runs k_transpose_dyn with the
// layout as a run-time value.
#include "kernels.hpp"

#include <algorithm>

#include <cuda_runtime.h>

#include "bench.hpp"
#include "bench_kernels.hpp"
#include "cuda_check.hpp"
#include "fill_pattern.hpp"
#include "pattern_kernels.cuh"
#include "transpose_kernels.cuh"

namespace bankscope {

int elem_bytes(Elem e) {
  switch (e) {
    case Elem::kFloat: return 4;
    case Elem::kDouble: return 8;
    case Elem::kFloat4: return 16;
  }
  return 4;
}

const char* elem_name(Elem e) {
  switch (e) {
    case Elem::kFloat: return "float";
    case Elem::kDouble: return "double";
    case Elem::kFloat4: return "float4";
  }
  return "?";
}

namespace {

constexpr size_t kDefaultDynSmemLimit = 48 * 1024;  // documented by NVIDIA: opt-in above 48 KB

bool is_lesson_layout(const PhysicalLayout& l) {
  return l.swizzle.is_identity() && (l.row_stride == 32 || l.row_stride == 33) &&
         (l.xor_mask == 0 || (l.xor_mask == 31 && l.row_stride == 32));
}

// Largest element offset the layout produces over the logical 32x32 tile, plus one.
int64_t layout_extent(const PhysicalLayout& l) {
  int64_t hi = -1;
  for (int r = 0; r < kTileDim; ++r)
    for (int c = 0; c < kTileDim; ++c) hi = std::max(hi, l.offset(r, c));
  return hi + 1;
}

__global__ void fill_words_kernel(uint32_t* buf, uint64_t words) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t w = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride) {
    buf[w] = fill_word(w);
  }
}

template <typename T>
void launch_typed(const TransposePlan& p, void* out_v, const void* in_v, int n) {
  T* out = static_cast<T*>(out_v);
  const T* in = static_cast<const T*>(in_v);
  const dim3 grid((n + kTileDim - 1) / kTileDim, (n + kTileDim - 1) / kTileDim);
  const dim3 block(kTileDim, p.block_rows);
  if (p.is_static) {
    const int s = p.layout.row_stride;
    const int x = p.layout.xor_mask;
    if (p.block_rows == kTileDim) {
      if constexpr (std::is_same_v<T, float>) {
        if (s == 32) k_transpose_seed<32><<<grid, block>>>(out, in, n);
        else k_transpose_seed<33><<<grid, block>>>(out, in, n);
      }
    } else if (s == 33) {
      k_transpose_32x8<T, 33, 0><<<grid, block>>>(out, in, n);
    } else if (x == 31) {
      k_transpose_32x8<T, 32, 31><<<grid, block>>>(out, in, n);
    } else {
      k_transpose_32x8<T, 32, 0><<<grid, block>>>(out, in, n);
    }
  } else {
    auto* fn = p.block_rows == kTileDim ? &k_transpose_dyn<T, 32> : &k_transpose_dyn<T, 8>;
    if (p.dyn_smem > kDefaultDynSmemLimit) {
      BANKSCOPE_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(p.dyn_smem)));
    }
    fn<<<grid, block, p.dyn_smem>>>(out, in, n, p.layout);
  }
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
}

template <int W, bool St>
std::string launch_pattern_t(const PatternArgs* args, int index, size_t smem, uint32_t* sink,
                             bool clock, int reps, long long* cycles) {
  if (smem > kDefaultDynSmemLimit) {
    if (clock) {
      BANKSCOPE_CUDA_CHECK(cudaFuncSetAttribute(&k_pattern_clock<W, St>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    } else {
      BANKSCOPE_CUDA_CHECK(cudaFuncSetAttribute(&k_pattern<W, St>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    }
  }
  if (clock) {
    k_pattern_clock<W, St><<<1, 1024, smem>>>(args, index, reps, cycles, sink);
  } else {
    k_pattern<W, St><<<1, 32, smem>>>(args, index, sink);
  }
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
  return "";
}

std::string dispatch_pattern(int width, bool store, const PatternArgs* args, int index, size_t smem,
                             uint32_t* sink, bool clock, int reps, long long* cycles) {
  if (smem > kMaxSharedBytesPerBlockSm90) {
    return "pattern needs " + std::to_string(smem) + " bytes of shared memory; a block may use " +
           std::to_string(kMaxSharedBytesPerBlockSm90);
  }
#define BANKSCOPE_PATTERN_CASE(W)                                                     \
  case W:                                                                             \
    return store ? launch_pattern_t<W, true>(args, index, smem, sink, clock, reps, cycles) \
                 : launch_pattern_t<W, false>(args, index, smem, sink, clock, reps, cycles);
  switch (width) {
    BANKSCOPE_PATTERN_CASE(1)
    BANKSCOPE_PATTERN_CASE(2)
    BANKSCOPE_PATTERN_CASE(4)
    BANKSCOPE_PATTERN_CASE(8)
    BANKSCOPE_PATTERN_CASE(16)
    default:
      return "width " + std::to_string(width) + " is not 1, 2, 4, 8 or 16 bytes";
  }
#undef BANKSCOPE_PATTERN_CASE
}

// Sets the dynamic shared memory limit above 48 KB, launches one warp, checks the launch.
template <typename Kernel, typename... Args>
std::string launch_one_warp(Kernel* fn, size_t smem, Args... args) {
  if (smem > kMaxSharedBytesPerBlockSm90) {
    return "pattern needs " + std::to_string(smem) + " bytes of shared memory; a block may use " +
           std::to_string(kMaxSharedBytesPerBlockSm90);
  }
  if (smem > kDefaultDynSmemLimit) {
    BANKSCOPE_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  }
  fn<<<1, 32, smem>>>(args...);
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
  return "";
}

}  // namespace

std::string launch_instr_pattern(const InstrLaunch& d, const PatternArgs* args, int index, size_t smem,
                                 uint32_t* sink, const void* src) {
  const auto* g = static_cast<const unsigned char*>(src);
  switch (d.kind) {
    case InstrKind::kLdmatrix:
    case InstrKind::kStmatrix: {
      const bool ld = d.kind == InstrKind::kLdmatrix;
#define BANKSCOPE_MATRIX_CASE(N)                                                                     \
  case N:                                                                                           \
    if (ld) return d.trans ? launch_one_warp(&k_ldsm<N, true>, smem, args, index, sink)              \
                           : launch_one_warp(&k_ldsm<N, false>, smem, args, index, sink);            \
    return d.trans ? launch_one_warp(&k_stsm<N, true>, smem, args, index, sink)                      \
                   : launch_one_warp(&k_stsm<N, false>, smem, args, index, sink);
      switch (d.num) {
        BANKSCOPE_MATRIX_CASE(1)
        BANKSCOPE_MATRIX_CASE(2)
        BANKSCOPE_MATRIX_CASE(4)
        default: return "num " + std::to_string(d.num) + " is not 1, 2 or 4";
      }
#undef BANKSCOPE_MATRIX_CASE
    }
    case InstrKind::kAtomic:
      if (d.width == 4) {
        switch (d.atom) {
          case 0: return launch_one_warp(&k_atoms<4, 0>, smem, args, index, sink);
          case 1: return launch_one_warp(&k_atoms<4, 1>, smem, args, index, sink);
          case 2: return launch_one_warp(&k_atoms<4, 2>, smem, args, index, sink);
          case 3: return launch_one_warp(&k_atoms<4, 3>, smem, args, index, sink);
          case 4: return launch_one_warp(&k_atoms<4, 4>, smem, args, index, sink);
          case 5: return launch_one_warp(&k_atoms<4, 5>, smem, args, index, sink);
          default: break;
        }
      } else if (d.width == 8) {
        if (d.atom == 3) return launch_one_warp(&k_atoms<8, 3>, smem, args, index, sink);
        if (d.atom == 4) return launch_one_warp(&k_atoms<8, 4>, smem, args, index, sink);
        return "64-bit shared atom add/min/max is a compare-and-swap loop on sm_90, not one instruction";
      }
      return "no atom kernel for width " + std::to_string(d.width) + ", operation " + std::to_string(d.atom);
    case InstrKind::kLdgsts:
      if (d.l2_prefetch != 0) {
#define BANKSCOPE_LDGSTS_PF(P)                                                                               \
  if (d.l2_prefetch == P) {                                                                                  \
    if (d.cg) {                                                                                              \
      if (d.width != 16) return "cp.async.cg copies 16 bytes only";                                        \
      return launch_one_warp(&k_ldgsts_pf<16, true, P>, smem, args, index, sink, g);                         \
    }                                                                                                        \
    switch (d.width) {                                                                                       \
      case 4: return launch_one_warp(&k_ldgsts_pf<4, false, P>, smem, args, index, sink, g);                 \
      case 8: return launch_one_warp(&k_ldgsts_pf<8, false, P>, smem, args, index, sink, g);                 \
      case 16: return launch_one_warp(&k_ldgsts_pf<16, false, P>, smem, args, index, sink, g);               \
      default: return "cp.async copies 4, 8 or 16 bytes, not " + std::to_string(d.width);                   \
    }                                                                                                        \
  }
        BANKSCOPE_LDGSTS_PF(64)
        BANKSCOPE_LDGSTS_PF(128)
        BANKSCOPE_LDGSTS_PF(256)
#undef BANKSCOPE_LDGSTS_PF
        return "l2_prefetch " + std::to_string(d.l2_prefetch) + " is not 64, 128 or 256";
      }
      if (d.cg) {
        if (d.width != 16) return "cp.async.cg copies 16 bytes only";
        return launch_one_warp(&k_ldgsts<16, true>, smem, args, index, sink, g);
      }
      switch (d.width) {
        case 4: return launch_one_warp(&k_ldgsts<4, false>, smem, args, index, sink, g);
        case 8: return launch_one_warp(&k_ldgsts<8, false>, smem, args, index, sink, g);
        case 16: return launch_one_warp(&k_ldgsts<16, false>, smem, args, index, sink, g);
        default: return "cp.async copies 4, 8 or 16 bytes, not " + std::to_string(d.width);
      }
  }
  return "unknown instruction kind";
}

std::string instr_kernel_name(const InstrLaunch& d) {
  const std::string t = d.trans ? "true" : "false";
  switch (d.kind) {
    case InstrKind::kLdmatrix: return "k_ldsm<" + std::to_string(d.num) + ", " + t + ">";
    case InstrKind::kStmatrix: return "k_stsm<" + std::to_string(d.num) + ", " + t + ">";
    case InstrKind::kAtomic: return "k_atoms<" + std::to_string(d.width) + ", " + std::to_string(d.atom) + ">";
    case InstrKind::kLdgsts:
      if (d.l2_prefetch != 0) {
        return "k_ldgsts_pf<" + std::to_string(d.width) + ", " + (d.cg ? "true" : "false") + ", " +
               std::to_string(d.l2_prefetch) + ">";
      }
      return "k_ldgsts<" + std::to_string(d.width) + ", " + (d.cg ? "true" : "false") + ">";
  }
  return "?";
}

std::string plan_transpose(const std::string& gpu_kernel, Elem elem, const PhysicalLayout& layout,
                           TransposePlan* plan) {
  TransposePlan p;
  p.gpu_kernel = gpu_kernel;
  p.elem = elem;
  p.layout = layout;
  const auto need = [&](Elem want) -> std::string {
    if (elem == want) return "";
    return std::string("gpu_kernel \"") + gpu_kernel + "\" needs arrays[0].type " + elem_name(want) +
           ", the scenario has " + elem_name(elem);
  };
  bool force_dynamic = false;
  if (const BenchKernel* bk = find_bench_kernel(gpu_kernel);
      bk != nullptr && bk->family == "candidate" && !bk->persistent && bk->name != "fast_tma") {
    if (auto e = need(Elem::kFloat); !e.empty()) return e;
    p.bench_kernel = bk->name;
    p.block_x = bk->threads;
    p.block_rows = 1;
    p.tile_rows = bk->tile_rows;
    p.tile_cols = bk->tile_cols;
    const std::string prefix = "bankscope::";
    p.symbol = bk->symbol.rfind(prefix, 0) == 0 ? bk->symbol.substr(prefix.size()) : bk->symbol;
    *plan = p;
    return "";
  }
  if (gpu_kernel == "seed") {
    p.block_rows = kTileDim;
    if (auto e = need(Elem::kFloat); !e.empty()) return e;
  } else if (gpu_kernel == "tiled_32x8" || gpu_kernel == "tiled_32x8_xor") {
    p.block_rows = 8;
  } else if (gpu_kernel == "dynamic_stride") {
    p.block_rows = 8;
    force_dynamic = true;
  } else if (gpu_kernel == "tiled_32x8_double") {
    p.block_rows = 8;
    if (auto e = need(Elem::kDouble); !e.empty()) return e;
  } else if (gpu_kernel == "tiled_float4") {
    p.block_rows = 8;
    if (auto e = need(Elem::kFloat4); !e.empty()) return e;
  } else {
    return "unknown gpu_kernel \"" + gpu_kernel +
           "\" (known: seed, tiled_32x8, tiled_32x8_xor, dynamic_stride, tiled_32x8_double, "
           "tiled_float4, or a bench candidate's name such as fast_shift_64x64_t256)";
  }
  if (layout.row_stride < kTileDim) {
    return "row stride " + std::to_string(layout.row_stride) + " is below the tile width 32";
  }
  // k_transpose_seed takes only a row stride: the seed shape with an XOR mask runs the run-time
  // layout (else the plain [32][32] kernel would run while the model predicts the XOR tile).
  const bool seed_with_xor = p.block_rows == kTileDim && layout.xor_mask != 0;
  p.is_static = !force_dynamic && !seed_with_xor && is_lesson_layout(layout);
  const int64_t bytes = layout_extent(layout) * elem_bytes(elem);
  if (bytes > int64_t(kMaxSharedBytesPerBlockSm90)) {
    return "the tile needs " + std::to_string(bytes) + " bytes of shared memory; a block may use " +
           std::to_string(kMaxSharedBytesPerBlockSm90);
  }
  const std::string t = elem_name(elem);
  if (p.is_static) {
    p.symbol = p.block_rows == kTileDim
                   ? "k_transpose_seed<" + std::to_string(layout.row_stride) + ">"
                   : "k_transpose_32x8<" + t + ", " + std::to_string(layout.row_stride) + ", " +
                         std::to_string(layout.xor_mask) + ">";
  } else {
    p.dyn_smem = static_cast<size_t>(bytes);
    p.symbol = "k_transpose_dyn<" + t + ", " + std::to_string(p.block_rows) + ">";
  }
  *plan = p;
  return "";
}

void launch_transpose(const TransposePlan& plan, void* out, const void* in, int n) {
  if (!plan.bench_kernel.empty()) {
    launch_bench_kernel(plan.bench_kernel, out, in, n);
    return;
  }
  switch (plan.elem) {
    case Elem::kFloat: launch_typed<float>(plan, out, in, n); break;
    case Elem::kDouble: launch_typed<double>(plan, out, in, n); break;
    case Elem::kFloat4: launch_typed<float4>(plan, out, in, n); break;
  }
}

void launch_fill_words(uint32_t* buf, uint64_t words) {
  fill_words_kernel<<<1024, 256>>>(buf, words);
  BANKSCOPE_CUDA_CHECK(cudaGetLastError());
}

std::string launch_pattern(int width, bool store, const PatternArgs* args, int index,
                           size_t smem_bytes, uint32_t* sink) {
  return dispatch_pattern(width, store, args, index, smem_bytes, sink, false, 0, nullptr);
}

std::string launch_pattern_clock(int width, bool store, const PatternArgs* args, int index,
                                 size_t smem_bytes, int reps, long long* cycles, uint32_t* sink) {
  return dispatch_pattern(width, store, args, index, smem_bytes, sink, true, reps, cycles);
}

}  // namespace bankscope
