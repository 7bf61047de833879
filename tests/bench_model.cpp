// bench_model.cpp: how fast the model is, single core. Prints the figures the README quotes.
//   1. warp instructions evaluated per second by each cost() path this CPU has (avx512, avx2,
//      portable; cost_on()), per access width: strided warps (element strides 0..64, what tiled
//      kernels issue), random addresses, and both mixed;
//   2. time to compute per-launch totals of the transpose scenarios at N = 16384 (and at a size
//      that is not a multiple of 32, where edge blocks must be simulated).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "bench_patterns.hpp"
#include "sim/bank_model.hpp"
#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"

using namespace bankscope;
using Clock = std::chrono::steady_clock;

namespace {

using bench::Mix;
using bench::patterns;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Timed in this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not wall time, so that other processes
// taking the core away do not count (on an idle machine the two agree); best of 10 windows of 0.2 s
// of CPU time each, the window least disturbed by what other load still does to caches and clocks
// (on this workplace's VM the host's load moved single windows by up to a third).
double instructions_per_second(CostPath path, int width, Mix mix) {
  const std::vector<WarpAccess> v = patterns(width, mix);
  uint64_t sink = 0;
  double best = 0;
  for (int window = 0; window < 10; ++window) {
    uint64_t n = 0;
    const double t0 = thread_cpu_seconds();
    double secs = 0;
    do {
      for (int rep = 0; rep < 200; ++rep) {
        for (const WarpAccess& a : v) sink += uint64_t(cost_on(path, a).wavefronts);
      }
      n += 200 * v.size();
      secs = thread_cpu_seconds() - t0;
    } while (secs < 0.2);
    best = std::max(best, double(n) / secs);
  }
  if (sink == 0) std::puts("");
  return best;
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

int main(int argc, char** argv) {
  // --widths 4,8: only these access widths (a quicker run); --no-launch: skip the per-launch
  // totals.
  std::vector<int> widths = {1, 2, 4, 8, 16};
  bool launches = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--widths" && i + 1 < argc) {
      widths.clear();
      std::string list = argv[++i];
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, comma - at);
        if (item != "1" && item != "2" && item != "4" && item != "8" && item != "16") {
          std::fprintf(
              stderr, "bankscope-bench: --widths: '%s' is not an access width (1, 2, 4, 8 or 16)\n",
              item.c_str());
          return 2;
        }
        widths.push_back(std::stoi(item));
        at = comma + 1;
      }
    } else if (arg == "--no-launch") {
      launches = false;
    } else {
      std::fprintf(stderr, "bankscope-bench: unknown argument '%s' (--widths 4,8 | --no-launch)\n",
                   arg.c_str());
      return 2;
    }
  }
  std::printf("bankscope model benchmark (single core; cost() takes: %s; paths this CPU has:",
              cost_implementation());
  for (CostPath p : kCostPaths) {
    if (cost_path_supported(p)) std::printf(" %s", cost_path_name(p));
  }
  std::printf(")\n");
  std::printf(
      "thread CPU time, best of 10 windows of 0.2 s per figure; BANKSCOPE_SIMD=PATH limits the "
      "table to PATH\n\n");
  const char* only = std::getenv("BANKSCOPE_SIMD");
  for (CostPath p : kCostPaths) {
    if (!cost_path_supported(p) || (only != nullptr && p != cost_path())) continue;
    std::printf("cost() path %-8s  M warp instructions/s   strided   random   both\n",
                cost_path_name(p));
    for (int w : widths) {
      std::printf("  %2d-byte accesses                          %7.1f  %7.1f  %6.1f\n", w,
                  instructions_per_second(p, w, Mix::kStrided) / 1e6,
                  instructions_per_second(p, w, Mix::kRandom) / 1e6,
                  instructions_per_second(p, w, Mix::kAll) / 1e6);
    }
    std::printf("\n");
  }
  if (!launches) return 0;
  std::printf("per-launch totals (compile + launch_totals, median of 21; cost() path %s):\n",
              cost_implementation());
  const char* files[] = {"seed_transpose_32x32.json", "tiled_32x8_32x32.json",
                         "tiled_32x8_32x33.json", "tiled_float4_32x32.json"};
  for (const char* f : files) {
    for (int64_t n : {int64_t{16384}, int64_t{16383}}) {
      uint64_t sim = 0;
      const double ms = launch_ms(f, n, &sim);
      std::printf("  %-28s N=%-6lld %8.3f ms  (%llu of %llu blocks simulated)\n", f,
                  static_cast<long long>(n), ms, static_cast<unsigned long long>(sim),
                  static_cast<unsigned long long>(((n + 31) / 32) * ((n + 31) / 32)));
    }
  }
  return 0;
}
