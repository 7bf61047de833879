// bench_model.cpp: how fast the model is, single core. Prints the figures the README quotes.
//   1. warp instructions evaluated per second by cost(), per access width: strided warps (element
//      strides 0..64, what tiled kernels issue), random addresses, and both mixed;
//   2. time to compute per-launch totals of the transpose scenarios at N = 16384 (and at a size
//      that is not a multiple of 32, where edge blocks must be simulated).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "sim/bank_model.hpp"
#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"

using namespace bankscope;
using Clock = std::chrono::steady_clock;

namespace {

enum class Mix { kStrided, kRandom, kAll };

// Strided: lane i at i * s elements for s = 0..64 (what tiled kernels issue: rows, columns,
// padded and unpadded strides). Random: 63 warps of aligned addresses drawn from 48 KiB.
std::vector<WarpAccess> patterns(int width, Mix mix) {
  std::vector<WarpAccess> v;
  std::mt19937 rng(12345);
  if (mix != Mix::kRandom) {
    for (uint32_t s = 0; s <= 64; ++s) {
      WarpAccess a;
      a.width = width;
      for (uint32_t i = 0; i < 32; ++i) a.addr[i] = i * s * uint32_t(width);
      v.push_back(a);
    }
  }
  if (mix != Mix::kStrided) {
    for (int k = 0; k < 63; ++k) {
      WarpAccess a;
      a.width = width;
      for (uint32_t i = 0; i < 32; ++i) {
        a.addr[i] = static_cast<uint32_t>(rng() % (49152 / uint32_t(width))) * uint32_t(width);
      }
      v.push_back(a);
    }
  }
  return v;
}

double instructions_per_second(int width, Mix mix) {
  const std::vector<WarpAccess> v = patterns(width, mix);
  uint64_t sink = 0, n = 0;
  const auto t0 = Clock::now();
  double secs = 0;
  do {
    for (int rep = 0; rep < 200; ++rep) {
      for (const WarpAccess& a : v) sink += uint64_t(cost(a).wavefronts);
    }
    n += 200 * v.size();
    secs = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (secs < 1.0);
  if (sink == 0) std::puts("");
  return double(n) / secs;
}

double launch_ms(const std::string& file, int64_t n, uint64_t* blocks_simulated) {
  auto spec = load_scenario_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/" + file);
  if (!spec) {
    std::fprintf(stderr, "%s\n", spec.error().message.c_str());
    return -1;
  }
  spec->n = n;
  std::vector<double> times;
  for (int rep = 0; rep < 21; ++rep) {
    const auto t0 = Clock::now();
    auto s = compile(*spec);
    auto t = launch_totals(*s);
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    *blocks_simulated = t->blocks_simulated;
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main() {
  std::printf("bankscope model benchmark (single core; cost() implementation: %s)\n\n", cost_implementation());
  std::printf("cost() throughput, M warp instructions/s      strided   random   both\n");
  for (int w : {1, 2, 4, 8, 16}) {
    std::printf("  %2d-byte accesses                          %7.1f  %7.1f  %6.1f\n", w,
                instructions_per_second(w, Mix::kStrided) / 1e6, instructions_per_second(w, Mix::kRandom) / 1e6,
                instructions_per_second(w, Mix::kAll) / 1e6);
  }
  std::printf("\nper-launch totals (compile + launch_totals, median of 21):\n");
  const char* files[] = {"seed_transpose_32x32.json", "tiled_32x8_32x32.json", "tiled_32x8_32x33.json",
                         "tiled_float4_32x32.json"};
  for (const char* f : files) {
    for (int64_t n : {int64_t{16384}, int64_t{16383}}) {
      uint64_t sim = 0;
      const double ms = launch_ms(f, n, &sim);
      std::printf("  %-28s N=%-6lld %8.3f ms  (%llu of %llu blocks simulated)\n", f, static_cast<long long>(n), ms,
                  static_cast<unsigned long long>(sim),
                  static_cast<unsigned long long>(((n + 31) / 32) * ((n + 31) / 32)));
    }
  }
  return 0;
}
