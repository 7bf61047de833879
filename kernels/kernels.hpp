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

// One pattern as the pattern kernels read it (pattern_kernels.cuh), 272 bytes.
struct PatternArgs {
  uint32_t offsets[32];  // byte offset per lane, lane 0 first
  uint32_t mask;         // active lanes
  uint32_t pad[3];
  uint32_t src[32];      // ldgsts: global source byte offset per lane (default lane * width)
};
static_assert(sizeof(PatternArgs) == 272, "PatternArgs is copied to the device as is");

enum class Elem : uint8_t { kFloat, kDouble, kFloat4 };
int elem_bytes(Elem e);
const char* elem_name(Elem e);

struct TransposePlan {
  std::string gpu_kernel;  // name as in the scenario: seed, tiled_32x8, tiled_32x8_xor, ...
  Elem elem = Elem::kFloat;
  PhysicalLayout layout{32};
  int block_rows = 8;  // threads per block: block_x x block_rows
  int block_x = 32;
  // Issue 15: a bankscope-gpu bench candidate (bench_kernels.hpp) launched by its bench name, with
  // its own compiled-in layout, block (block_x x 1) and tile (tile_cols x tile_rows elements); ""
  // = one of the transpose_kernels.cuh kernels above.
  std::string bench_kernel;
  int tile_rows = 32, tile_cols = 32;
  bool is_static = false;   // a compile-time layout in a static __shared__ array
  size_t dyn_smem = 0;      // dynamic shared bytes (0 for static kernels)
  std::string symbol;       // e.g. "k_transpose_32x8<float, 33, 0>"
};

// Known names: seed, tiled_32x8, tiled_32x8_xor, dynamic_stride, tiled_32x8_double, tiled_float4,
// and the name of any bench candidate with one tile per block (fast_f4*, fast_shift_*; not the
// persistent fast_f4p nor fast_tma, whose launches need more than n), float only.
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
// Issue 11: one single-warp launch of ONE ldmatrix / stmatrix / shared atomic / cp.async
// (pattern_kernels.cuh). `src` is cp.async's global source buffer: lane l copies from
// src + args[index].src[l], so it must cover every active lane's src[l] + width.
enum class InstrKind : uint8_t { kLdmatrix, kStmatrix, kAtomic, kLdgsts };
struct InstrLaunch {
  InstrKind kind = InstrKind::kLdmatrix;
  int width = 16;      // atom: 4 or 8; ldgsts: 4, 8, 16; ldmatrix/stmatrix: 16
  int num = 1;         // ldmatrix/stmatrix: 1, 2, 4
  bool trans = false;  // ldmatrix/stmatrix
  int atom = 0;        // 0 add, 1 min, 2 max, 3 exch, 4 cas, 5 popc_inc (AtomOp's order)
  bool cg = false;     // ldgsts: .cg (16 bytes) instead of .ca
  int l2_prefetch = 0;  // ldgsts: 0 (no hint), or the .L2::64B / 128B / 256B prefetch size
};
// "" or one line naming what has no kernel (e.g. a 64-bit atom add, which is no single instruction).
std::string launch_instr_pattern(const InstrLaunch& d, const PatternArgs* args, int index, size_t smem_bytes,
                                 uint32_t* sink, const void* src);
// The kernel's symbol as in the SASS listing, e.g. "k_ldsm<4, true>", "k_ldgsts_pf<4, false, 128>".
std::string instr_kernel_name(const InstrLaunch& d);

// The clock64 fallback: 32 warps in one block repeat the instruction `reps` times (reps % 4 == 0);
// *cycles receives the block's cycle count between two barriers.
std::string launch_pattern_clock(int width, bool store, const PatternArgs* args, int index,
                                 size_t smem_bytes, int reps, long long* cycles, uint32_t* sink);

}  // namespace bankscope
