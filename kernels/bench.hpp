// bench.hpp: `bankscope-gpu bench`, every transpose side by side in one process (issue 6).
//
//   BenchOptions -> for each n: memcpy D2D, copy kernel, cublasSgeam, naive, seed pair, 32x8 pair,
//                   XOR 32x8, the 32x8 [32][33] double and float4 tiles (transpose_kernels.cuh,
//                   the kernels `validate` checks), the fast_transpose.cuh candidates
//                   (bench_kernels.hpp lists them with what the timing model is told)
//                -> per (kernel, n): poisoned output, one checked run (every element on the GPU,
//                   rows on the CPU), warm-up, median of `runs` event-timed launches
//                -> table on stdout, JSON (rewritten after every n, so a crash keeps what ran),
//                   SVG through scripts/plot_bench.py
// Plain C++ (no CUDA headers), so bankscope_gpu.cpp can include it with the host compiler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bankscope {

struct BenchOptions {
  std::vector<int64_t> sizes{4096, 8192, 16384, 8191};  // 8191: the bounds checks at work
  std::string json_path;       // "" = no JSON
  std::string svg_path;        // "" = no chart; needs json_path (the chart is drawn from it)
  std::string plot_script;     // "" = scripts/plot_bench.py under the working directory, then the source dir
  int runs = 50;               // timed launches per (kernel, n); the median is reported
  int warmup = 5;              // untimed launches first
  std::string only;            // run only kernels whose name contains this ("" = all)
  std::string exclude;         // skip kernels whose name contains this ("" = none)
  // memcpy_d2d and cublas_sgeam always run: every row is a percentage of the one and a ratio to the other.
};

// Exit codes, the same numbers as bankscope-gpu's (harness.hpp): 0 ok, 1 runtime error, 2 bad
// input, 3 no CUDA device, 4 a kernel wrote wrong output.
inline constexpr int kBenchExitOk = 0;
inline constexpr int kBenchExitError = 1;
inline constexpr int kBenchExitUsage = 2;
inline constexpr int kBenchExitNoDevice = 3;
inline constexpr int kBenchExitWrongOutput = 4;

// Runs the whole bench; prints the table (stdout) and progress (stderr). Never throws.
int run_bench(const BenchOptions& options);

// The names run_bench would time, in order (no device needed): for --list and the tests.
std::vector<std::string> bench_kernel_names();

// One launch of the bench kernel `name` on the default stream (out = in^T, n x n floats), for
// `validate` (kernels.cu launch_transpose). Throws std::invalid_argument for a name the bench does
// not time, CudaError for a failed launch.
void launch_bench_kernel(const std::string& name, void* out, const void* in, int n);

}  // namespace bankscope
