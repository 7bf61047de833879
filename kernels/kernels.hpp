// kernels.hpp: the host-side face of kernels/*.cu, plain C++ (no CUDA headers), so the harness and
// the tests can be compiled by the host compiler.
//
//   (gpu_kernel name, element type, physical layout) -> TransposePlan -> one launch
//   (width, op) + PatternArgs in device memory      -> one single-warp launch
// Every launch is followed by a checked cudaGetLastError(); failures throw CudaError.
#pragma once

#include <cstdint>
#include <string>

#include "sim/bank_math.hpp"

namespace bankscope {

// One pattern as the pattern kernels read it (pattern_kernels.cuh), 144 bytes.
struct PatternArgs {
  uint32_t offsets[32];  // byte offset per lane, lane 0 first
  uint32_t mask;         // active lanes
  uint32_t pad[3];
};

enum class Elem : uint8_t { kFloat, kDouble, kFloat4 };
int elem_bytes(Elem e);
const char* elem_name(Elem e);

struct TransposePlan {
  std::string gpu_kernel;  // name as in the scenario: seed, tiled_32x8, tiled_32x8_xor, ...
  Elem elem = Elem::kFloat;
  PhysicalLayout layout{32};
  int block_rows = 8;       // threads per block: 32 x block_rows
  bool is_static = false;   // a compile-time layout in a static __shared__ array
  size_t dyn_smem = 0;      // dynamic shared bytes (0 for static kernels)
  std::string symbol;       // e.g. "k_transpose_32x8<float, 33, 0>"
};

// Known names: seed, tiled_32x8, tiled_32x8_xor, dynamic_stride, tiled_32x8_double, tiled_float4.
// Returns "" on success, else one line saying what does not fit.
std::string plan_transpose(const std::string& gpu_kernel, Elem elem, const PhysicalLayout& layout,
                           TransposePlan* plan);

// One launch of the planned kernel on the default stream: out = transpose(in), n x n elements.
void launch_transpose(const TransposePlan& plan, void* out, const void* in, int n);

// buf[w] = fill_word(w) for w < words (fill_pattern.hpp).
void launch_fill_words(uint32_t* buf, uint64_t words);

// One single-warp launch of the pattern kernel for (width, store) on args[index].
// smem_bytes: dynamic shared memory (>= largest offset + width). Returns "" or an error line.
std::string launch_pattern(int width, bool store, const PatternArgs* args, int index,
                           size_t smem_bytes, uint32_t* sink);
// The clock64 fallback: 32 warps in one block repeat the instruction `reps` times (reps % 4 == 0);
// *cycles receives the block's cycle count between two barriers.
std::string launch_pattern_clock(int width, bool store, const PatternArgs* args, int index,
                                 size_t smem_bytes, int reps, long long* cycles, uint32_t* sink);

}  // namespace bankscope
