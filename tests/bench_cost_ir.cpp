// bench_cost_ir.cpp: a fixed amount of cost() work, for callgrind (scripts/bench_cost_ir.sh counts
// its instructions) and for a wall clock. The warps are bankscope-bench's 4-byte sets
// (bench_patterns.hpp): "random", 63 warps of aligned addresses drawn from 48 KiB, or "strided",
// lane i at i * s elements for s = 0..64. Each is costed REPS times on one path (cost_on()).
//   bench_cost_ir avx2|portable random|strided REPS
// Prints the warps costed, their wavefronts (so that nothing is optimized away) and M warps/s.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench_patterns.hpp"
#include "sim/bank_model.hpp"

using namespace bankscope;

int main(int argc, char** argv) {
  if (argc != 4 || (std::strcmp(argv[1], "avx2") != 0 && std::strcmp(argv[1], "portable") != 0) ||
      (std::strcmp(argv[2], "random") != 0 && std::strcmp(argv[2], "strided") != 0) || std::atoi(argv[3]) < 1) {
    std::fprintf(stderr, "bench_cost_ir: usage: bench_cost_ir avx2|portable random|strided REPS\n");
    return 2;
  }
  const CostPath path = std::strcmp(argv[1], "avx2") == 0 ? CostPath::kAvx2 : CostPath::kPortable;
  const int reps = std::atoi(argv[3]);
  const std::vector<WarpAccess> v =
      bench::patterns(4, std::strcmp(argv[2], "strided") == 0 ? bench::Mix::kStrided : bench::Mix::kRandom);
  uint64_t wavefronts = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    for (const WarpAccess& a : v) wavefronts += static_cast<uint64_t>(cost_on(path, a).wavefronts);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double warps = static_cast<double>(v.size()) * reps;
  std::printf("%.0f warps, %llu wavefronts, %.1f M warps/s\n", warps, static_cast<unsigned long long>(wavefronts),
              warps / s / 1e6);
  return 0;
}
