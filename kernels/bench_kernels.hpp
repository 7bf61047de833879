// bench_kernels.hpp: what the timing model needs to know about each kernel `bankscope-gpu bench`
// times, beside the bench's candidate list (bench.cu make_candidates takes its rows from here).
//
//   bench row name -> BenchKernel (tile, threads, element size, global access shape, symbol)
//   (BenchKernel, n, shared wavefronts per tile, compiled facts) -> KernelShape + KernelWork
//
// Plain C++ (no CUDA headers): bankscope-gpu's host-only commands (timing-fit, timing-predict,
// timing-compare) and the tests use it without a GPU. What comes from the compiled kernel
// (registers, static shared bytes) is never written here: at run time it is cudaFuncGetAttributes,
// offline the cuobjdump resource-usage file (resource_usage.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/timing_model.hpp"

namespace bankscope {

// How the kernel's global accesses look to the L1 data pipe (what KernelWork's global wavefronts
// and partial-line stores are made of).
enum class GlobalAccess : uint8_t {
  kNone,         // not described (cudaMemcpy, cuBLAS: internals unknown)
  kRowWarps,     // a warp reads/writes one contiguous row run of 32 elements (copy, tiled kernels)
  kNaiveStores,  // coalesced reads; every store lands in its own line (a partial-line request each)
  kWide16,       // 16-byte accesses on whole tiles when n % 4 == 0, else an element-wise path
  kWide16Shift,  // 16-byte accesses at every n (fast_shift: aligned loads shifted in registers)
};

struct BenchKernel {
  std::string name;      // the bench row ("tiled_32x8_32x33")
  std::string family;    // ceiling, library, reference, candidate
  std::string scenario;  // the scenario that models its shared memory; "" = none
  // The compiled kernel as cuobjdump demangles it, up to the parameter list
  // ("bankscope::k_transpose_32x8<float, 33, 0>"); "" = not one of ours (cudaMemcpy, cuBLAS).
  std::string symbol;
  int elem_bytes = 4;    // bytes per matrix element
  bool is_copy = false;  // out = in instead of out = in^T
  // The launch (make_candidates uses these numbers; 0 threads = not described):
  int threads = 0;          // per block
  int tile_rows = 0;        // input rows per tile (one tile per block unless persistent)
  int tile_cols = 0;        // input columns per tile
  bool persistent = false;  // a few blocks per SM walk the tiles (the model counts tiles)
  GlobalAccess access = GlobalAccess::kNone;
  int n_multiple = 1;  // the kernel refuses n that is not a multiple of this
};

// Every kernel the bench times, in table order.
const std::vector<BenchKernel>& bench_kernels();
const BenchKernel* find_bench_kernel(const std::string& name);

// What the compiled kernel says about itself: cudaFuncGetAttributes at run time, or the cuobjdump
// resource-usage file offline. 0 registers = unknown.
struct CompiledFacts {
  int regs_per_thread = 0;
  int static_smem_bytes = 0;   // without the 1 KiB the driver reserves per block
  int dynamic_smem_bytes = 0;  // what the launch asks for (0 for every bench kernel)
};

struct BenchKernelDescription {
  KernelShape shape;
  KernelWork work;
  std::string note;  // what the description assumes at this n ("" = the plain path)
};

// The kernel at size n for the timing model. Shared wavefronts come from the bank model on the
// kernel's scenario (per full tile) and are passed in. nullopt when the kernel is not described
// (access kNone) or n < 1.
std::optional<BenchKernelDescription> describe_bench_kernel(const BenchKernel& k, int64_t n,
                                                            uint64_t shared_wavefronts_per_tile,
                                                            const CompiledFacts& compiled);

}  // namespace bankscope
