// bench_cost_ir.cpp: a fixed amount of cost() work, for callgrind (scripts/bench_cost_ir.sh counts
// its instructions) and for a wall clock. The warps are bankscope-bench's 4-byte sets (the same
// generator and seed as tests/bench_model.cpp): "random", 63 warps of aligned addresses drawn from
// 48 KiB, or "strided", lane i at i * s elements for s = 0..64. Each is costed REPS times on one
// path (cost_on()).
//   bench_cost_ir avx2|portable random|strided REPS
// Prints the warps costed, their wavefronts (so that nothing is optimized away) and M warps/s.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

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
  std::vector<WarpAccess> v;
  std::mt19937 rng(12345);
  if (std::strcmp(argv[2], "strided") == 0) {
    for (uint32_t s = 0; s <= 64; ++s) {
      WarpAccess a;
      a.width = 4;
      for (uint32_t i = 0; i < 32; ++i) a.addr[i] = i * s * 4u;
      v.push_back(a);
    }
  } else {
    for (int k = 0; k < 63; ++k) {
      WarpAccess a;
      a.width = 4;
      for (uint32_t i = 0; i < 32; ++i) a.addr[i] = static_cast<uint32_t>(rng() % (49152 / 4u)) * 4u;
      v.push_back(a);
    }
  }
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
