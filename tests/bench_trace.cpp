// bench_trace.cpp: trace size and `report` throughput, single core. Prints the figures the README
// quotes (the raw output is committed as assets/results/cpu/bench_trace.txt).
//   Builds in memory a synthetic trace of 4 M warp executions of 4-byte LDS/STS in three mixes:
//   "tiled" (rows and columns of a 32x32 float tile, as the seed transpose issues: even strides),
//   "random" (every lane at a random aligned offset in 48 KiB), and both half and half; then times
//   report_trace() (decode + cost() per execution + per-PC aggregation) over it.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "sim/bank_model.hpp"
#include "sim/trace.hpp"
#include "sim/trace_report.hpp"

using namespace bankscope;
using Clock = std::chrono::steady_clock;

namespace {

// CPU time of this thread: on a machine shared with other work the wall clock measures the share
// the scheduler gave, this measures the work (both are printed).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::vector<uint8_t> make_trace(uint64_t warps, int random_percent) {
  std::mt19937 rng(7);
  TraceWriter t;
  TraceLaunch l;
  l.kernel = "synthetic";
  l.block = {32, 32, 1};
  l.reserved_bytes = 1024;
  t.launch(l);
  t.pc(TracePc{0, 0x100, TraceOpKind::kStore, 4, "STS", "k.cu", 1});
  t.pc(TracePc{1, 0x200, TraceOpKind::kLoad, 4, "LDS", "k.cu", 2});
  t.pc(TracePc{2, 0x300, TraceOpKind::kLoad, 4, "LDS", "k.cu", 3});
  TraceWarp w;
  w.mask = 0xffffffffu;
  for (uint64_t i = 0; i < warps; ++i) {
    w.block = static_cast<uint32_t>(i / 64);
    w.warp = static_cast<uint32_t>(i % 32);
    if (static_cast<int>(rng() % 100) < random_percent) {
      w.pc_index = 2;
      for (auto& a : w.addr) a = static_cast<uint32_t>(1024 + 4 * (rng() % (48 * 256)));
    } else {
      w.pc_index = static_cast<uint32_t>(i / 32 % 2);
      for (uint32_t lane = 0; lane < 32; ++lane)
        w.addr[lane] = 1024 + 4 * (w.pc_index == 0 ? w.warp * 32 + lane : lane * 32 + w.warp);
    }
    t.warp(w);
  }
  t.launch_end(TraceLaunchEnd{0, warps, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  return t.take();
}

}  // namespace

int main() {
  constexpr uint64_t kWarps = 4'000'000;
  std::printf("bench_trace: %llu warp executions per mix, cost() implementation %s\n",
              static_cast<unsigned long long>(kWarps), cost_implementation());
  std::printf("%-8s %14s %18s %16s %16s %16s %12s\n", "mix", "bytes", "bytes/M warps", "report M warps/s",
              "(per CPU-second)", "decode only /CPU-s", "wavefronts");
  for (int random_percent : {0, 50, 100}) {
    const auto bytes = make_trace(kWarps, random_percent);
    double best = 1e30, best_cpu = 1e30, best_decode = 1e30;
    uint64_t wavefronts = 0;
    for (int rep = 0; rep < 3; ++rep) {
      TraceSink empty;  // the reader alone
      const double d0 = thread_cpu_seconds();
      if (!read_trace(bytes.data(), bytes.size(), empty)) return 1;
      best_decode = std::min(best_decode, thread_cpu_seconds() - d0);
      const auto t0 = Clock::now();
      const double c0 = thread_cpu_seconds();
      auto r = report_trace(bytes.data(), bytes.size());
      best_cpu = std::min(best_cpu, thread_cpu_seconds() - c0);
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      if (!r) {
        std::fprintf(stderr, "bench_trace: %s\n", r.error().message.c_str());
        return 1;
      }
      wavefronts = r->traced.launches[0].ld.wavefronts + r->traced.launches[0].st.wavefronts;
      best = std::min(best, s);
    }
    const char* name = random_percent == 0 ? "tiled" : random_percent == 100 ? "random" : "half";
    std::printf("%-8s %14zu %18.0f %16.1f %16.1f %16.1f %12llu\n", name, bytes.size(),
                static_cast<double>(bytes.size()) * 1e6 / kWarps, kWarps / best / 1e6, kWarps / best_cpu / 1e6,
                kWarps / best_decode / 1e6, static_cast<unsigned long long>(wavefronts));
  }
  return 0;
}
