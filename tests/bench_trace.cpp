// bench_trace.cpp: trace size and `report` throughput, single core. Prints the figures the README
// quotes (the raw output is committed as assets/results/cpu/bench_trace.txt, made by
// scripts/bench_trace.sh).
//   Builds in memory synthetic traces of 4 M warp executions each and times report_trace() (decode
//   + cost() per execution + per-PC aggregation) and the reader alone over them:
//     tiled      rows and columns of a 32x32 float tile, as the seed transpose issues (even strides);
//     half       half tiled, half random;
//     random     every lane at a random 4-byte offset in 48 KiB: no two warps alike, the worst case
//                (nothing to memoize, every lane stored);
//     gemm       shaped like a tiled SGEMM's main loop (128x128 block tile, BK = 8, 256 threads of
//                8x8 outputs): STS.128 of the global tiles, a transposed 4-byte STS of A, LDS.128 of
//                A fragments (lanes in groups of 16, broadcasts within them) and of B (a row); the
//                same lane patterns in every block and every k step;
//     reduction  a 512-thread shared-memory tree reduction (sdata[tid] += sdata[tid + s] for s =
//                256 .. 1), partial masks below s = 32, plus an interleaved one (sdata[2 s tid]).
//   `bankscope-bench-trace [--rewrite] FILE...` times the same on trace files (each read once,
//   reported many times in memory); with --rewrite each file again as rewrite_trace() writes it in
//   the current version (a row "FILE v3": a version 2 trace as this tracer records it).
//   `--repeats FILE...` prints, per trace file, the share of executions (and of sources) that the
//   reader marks as repeating their PC's previous lanes (TraceWarp::same_offsets).
//   `--write DIR` writes each synthetic trace in format versions 1 and 2 to DIR
//   (for comparing `report --json` across versions and builds), then exits.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
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

constexpr uint32_t kReserved = 1024;

TraceWriter start(uint32_t version, const std::vector<TracePc>& pcs) {
  TraceWriter t(true, version);
  TraceLaunch l;
  l.kernel = "synthetic";
  l.block = {256, 1, 1};
  l.reserved_bytes = kReserved;
  t.launch(l);
  for (const TracePc& p : pcs) t.pc(p);
  return t;
}

std::vector<uint8_t> finish(TraceWriter& t, uint64_t warps) {
  t.launch_end(TraceLaunchEnd{0, warps, 0, TraceStatus::kComplete});
  t.end(TraceEnd{1, 0});
  return t.take();
}

std::vector<uint8_t> make_mixed(uint64_t warps, int random_percent, uint32_t version) {
  std::mt19937 rng(7);
  TraceWriter t = start(version, {TracePc{0, 0x100, TraceOpKind::kStore, 4, "STS", "k.cu", 1},
                                  TracePc{1, 0x200, TraceOpKind::kLoad, 4, "LDS", "k.cu", 2},
                                  TracePc{2, 0x300, TraceOpKind::kLoad, 4, "LDS", "k.cu", 3}});
  TraceWarp w;
  w.mask = 0xffffffffu;
  for (uint64_t i = 0; i < warps; ++i) {
    w.block = static_cast<uint32_t>(i / 64);
    w.warp = static_cast<uint32_t>(i % 32);
    if (static_cast<int>(rng() % 100) < random_percent) {
      w.pc_index = 2;
      for (auto& a : w.addr) a = static_cast<uint32_t>(kReserved + 4 * (rng() % (48 * 256)));
    } else {
      w.pc_index = static_cast<uint32_t>(i / 32 % 2);
      for (uint32_t lane = 0; lane < 32; ++lane)
        w.addr[lane] = kReserved + 4 * (w.pc_index == 0 ? w.warp * 32 + lane : lane * 32 + w.warp);
    }
    t.warp(w);
  }
  return finish(t, warps);
}

// 128x128 block tile, BK = 8, 256 threads: As[8][128] floats (transposed on store), Bs[8][128].
std::vector<uint8_t> make_gemm(uint64_t warps, uint32_t version) {
  TraceWriter t = start(version, {TracePc{0, 0x100, TraceOpKind::kStore, 4, "STS", "gemm.cu", 40},
                                  TracePc{1, 0x110, TraceOpKind::kStore, 16, "STS.128", "gemm.cu", 41},
                                  TracePc{2, 0x200, TraceOpKind::kLoad, 16, "LDS.128", "gemm.cu", 50},
                                  TracePc{3, 0x210, TraceOpKind::kLoad, 16, "LDS.128", "gemm.cu", 51}});
  const uint32_t as = kReserved, bs = kReserved + 8 * 128 * 4;
  TraceWarp w;
  w.mask = 0xffffffffu;
  uint64_t n = 0;
  for (uint32_t block = 0; n < warps; ++block) {
    w.block = block;
    for (uint32_t k0 = 0; k0 < 4 && n < warps; ++k0) {  // four BK steps per block (K = 32)
      for (uint32_t warp = 0; warp < 8 && n < warps; ++warp, ++n) {  // A: 128 rows x 8 k, transposed
        w.warp = warp;
        w.pc_index = 0;
        for (uint32_t lane = 0; lane < 32; ++lane) {
          const uint32_t tid = warp * 32 + lane, row = tid / 2, k = (tid % 2) * 4;
          w.addr[lane] = as + 4 * (k * 128 + row);  // one of the 4 scalar stores of the float4
        }
        t.warp(w);
      }
      for (uint32_t warp = 0; warp < 8 && n < warps; ++warp, ++n) {  // B: float4 per thread, a row
        w.warp = warp;
        w.pc_index = 1;
        for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = bs + 16 * (warp * 32 + lane);
        t.warp(w);
      }
      for (uint32_t k = 0; k < 8; ++k) {
        for (uint32_t warp = 0; warp < 8 && n < warps; ++warp) {
          w.warp = warp;
          for (uint32_t frag = 0; frag < 2 && n < warps; ++frag, ++n) {  // A: ty = (warp * 32 + lane) / 16
            w.pc_index = 2;
            for (uint32_t lane = 0; lane < 32; ++lane) {
              const uint32_t ty = (warp * 32 + lane) / 16;
              w.addr[lane] = as + 4 * (k * 128 + ty * 4 + frag * 64);
            }
            t.warp(w);
          }
          for (uint32_t frag = 0; frag < 2 && n < warps; ++frag, ++n) {  // B: tx = lane % 16
            w.pc_index = 3;
            for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = bs + 4 * (k * 128 + (lane % 16) * 4 + frag * 64);
            t.warp(w);
          }
        }
      }
    }
  }
  return finish(t, warps);
}

std::vector<uint8_t> make_reduction(uint64_t warps, uint32_t version) {
  TraceWriter t = start(version, {TracePc{0, 0x100, TraceOpKind::kStore, 4, "STS", "reduce.cu", 10},
                                  TracePc{1, 0x200, TraceOpKind::kLoad, 4, "LDS", "reduce.cu", 14},
                                  TracePc{2, 0x210, TraceOpKind::kStore, 4, "STS", "reduce.cu", 14},
                                  TracePc{3, 0x300, TraceOpKind::kLoad, 4, "LDS", "reduce.cu", 20}});
  TraceWarp w;
  uint64_t n = 0;
  const auto emit = [&](uint32_t pc, uint32_t warp, uint32_t mask, const std::function<uint32_t(uint32_t)>& index) {
    if (n >= warps) return;
    w.pc_index = pc;
    w.warp = warp;
    w.mask = mask;
    for (uint32_t lane = 0; lane < 32; ++lane) w.addr[lane] = mask >> lane & 1u ? kReserved + 4 * index(warp * 32 + lane) : 0;
    t.warp(w);
    ++n;
  };
  for (uint32_t block = 0; n < warps; ++block) {
    w.block = block;
    for (uint32_t warp = 0; warp < 16; ++warp) emit(0, warp, 0xffffffffu, [](uint32_t tid) { return tid; });
    for (uint32_t s = 256; s > 0; s >>= 1) {  // sequential addressing: sdata[tid] += sdata[tid + s]
      for (uint32_t warp = 0; warp * 32 < s; ++warp) {
        const uint32_t mask = s >= 32 ? 0xffffffffu : (1u << s) - 1u;
        emit(1, warp, mask, [s](uint32_t tid) { return tid + s; });
        emit(2, warp, mask, [](uint32_t tid) { return tid; });
      }
    }
    for (uint32_t s = 1; s < 512; s *= 2) {  // interleaved: index = 2 s tid, for tid < 256 / s
      for (uint32_t warp = 0; warp * 32 < 256 / s; ++warp) {
        const uint32_t active = 256 / s - warp * 32;
        emit(3, warp, active >= 32 ? 0xffffffffu : (1u << active) - 1u, [s](uint32_t tid) { return 2 * s * tid % 512; });
      }
    }
  }
  return finish(t, warps);
}

std::vector<uint8_t> make(const std::string& mix, uint64_t warps, uint32_t version) {
  if (mix == "tiled") return make_mixed(warps, 0, version);
  if (mix == "half") return make_mixed(warps, 50, version);
  if (mix == "random") return make_mixed(warps, 100, version);
  if (mix == "gemm") return make_gemm(warps, version);
  return make_reduction(warps, version);
}

// Best of kReps runs of the reader alone and of report_trace(), each over `times` copies (a small
// trace file is reported many times in memory, so that the figure is not the timer's resolution).
struct Timing {
  uint64_t executions = 0, wavefronts = 0;
  double wall = 1e30, cpu = 1e30, decode = 1e30;
};
// 7 runs: on this round's VM single runs move by up to a third with the host's load.
constexpr int kReps = 7;
bool time_trace(const std::vector<uint8_t>& bytes, int times, Timing& out) {
  for (int rep = 0; rep < kReps; ++rep) {
    TraceSink empty;  // the reader alone
    const double d0 = thread_cpu_seconds();
    for (int i = 0; i < times; ++i)
      if (!read_trace(bytes.data(), bytes.size(), empty)) return false;
    out.decode = std::min(out.decode, thread_cpu_seconds() - d0);
    const auto t0 = Clock::now();
    const double c0 = thread_cpu_seconds();
    for (int i = 0; i < times; ++i) {
      auto r = report_trace(bytes.data(), bytes.size());
      if (!r) {
        std::fprintf(stderr, "bench_trace: %s\n", r.error().message.c_str());
        return false;
      }
      if (i == 0) {
        out.executions = r->traced.summary.executions;
        out.wavefronts = 0;
        for (const LaunchReport& l : r->traced.launches) out.wavefronts += l.ld.wavefronts + l.st.wavefronts;
      }
    }
    out.cpu = std::min(out.cpu, thread_cpu_seconds() - c0);
    out.wall = std::min(out.wall, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr uint64_t kWarps = 4'000'000;
  const char* mixes[] = {"tiled", "half", "random", "gemm", "reduction"};
  if (argc > 2 && std::strcmp(argv[1], "--repeats") == 0) {
    // Per file: the executions with lanes whose lanes the reader marks as repeating their PC's
    // previous execution (TraceWarp::same_offsets), and the same of the executions with sources.
    struct Count : TraceSink {
      uint64_t lanes = 0, same = 0, sources = 0, src_same = 0;
      void on_warp(const TraceWarp& w, const TracePc&) override {
        if (w.mask == 0) return;
        ++lanes;
        same += w.same_offsets;
        sources += w.has_src;
        src_same += w.src_same_offsets;
      }
    };
    std::printf("%-32s %9s %12s %10s %9s %12s\n", "trace", "version", "executions", "repeats", "sources", "repeats");
    for (int i = 2; i < argc; ++i) {
      const auto bytes = read_trace_file(argv[i]);
      Count c;
      const auto r = bytes ? read_trace(bytes->data(), bytes->size(), c) : Result<TraceSummary>(bytes.error());
      if (!r) {
        std::fprintf(stderr, "bench_trace: %s: %s\n", argv[i], r.error().message.c_str());
        return 1;
      }
      std::string name = argv[i];
      if (name.size() > 32) name = "..." + name.substr(name.size() - 29);
      const auto pct = [](uint64_t a, uint64_t b) { return b == 0 ? 0.0 : 100.0 * static_cast<double>(a) / static_cast<double>(b); };
      std::printf("%-32s %9u %12llu %9.1f%% %9llu %11.1f%%\n", name.c_str(), uint32_t{(*bytes)[8]},
                  static_cast<unsigned long long>(c.lanes), pct(c.same, c.lanes), static_cast<unsigned long long>(c.sources),
                  pct(c.src_same, c.sources));
    }
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--write") == 0) {
    for (const char* mix : mixes) {
      for (uint32_t version : {1u, 2u}) {
        const auto bytes = make(mix, kWarps / 8, version);
        const std::string path = std::string(argv[2]) + "/" + mix + ".v" + std::to_string(version) + ".bstrace";
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                    static_cast<std::streamsize>(bytes.size()));
        std::printf("%s: %zu bytes\n", path.c_str(), bytes.size());
      }
    }
    return 0;
  }
  std::printf("bench_trace: cost() implementation %s; format version %u; M warp executions/s, best of %d\n",
              cost_implementation(), kTraceVersion, kReps);
  std::printf("%-32s %10s %12s %14s %10s %10s %12s %12s\n", "trace", "warps", "bytes", "bytes/M warps", "report",
              "(per CPU-s)", "decode /CPU-s", "wavefronts");
  const auto row = [](const std::string& name, size_t size, const Timing& t, int times) {
    const double n = static_cast<double>(t.executions) * times;
    std::printf("%-32s %10llu %12zu %14.0f %10.1f %10.1f %12.1f %12llu\n", name.c_str(),
                static_cast<unsigned long long>(t.executions), size,
                static_cast<double>(size) * 1e6 / static_cast<double>(t.executions), n / t.wall / 1e6, n / t.cpu / 1e6,
                n / t.decode / 1e6, static_cast<unsigned long long>(t.wavefronts));
  };
  if (argc > 1) {
    const bool rewrite = std::strcmp(argv[1], "--rewrite") == 0;
    const auto file_row = [&row](std::string name, const std::vector<uint8_t>& bytes) {
      Timing probe;
      if (!time_trace(bytes, 1, probe)) return false;
      const int times = static_cast<int>(std::max<uint64_t>(1, 4'000'000 / std::max<uint64_t>(1, probe.executions)));
      Timing t;
      if (!time_trace(bytes, times, t)) return false;
      if (name.size() > 32) name = "..." + name.substr(name.size() - 29);
      row(name, bytes.size(), t, times);
      return true;
    };
    for (int i = rewrite ? 2 : 1; i < argc; ++i) {
      std::ifstream f(argv[i], std::ios::binary);
      const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (!f.good() && !f.eof()) return 1;
      if (!file_row(argv[i], bytes)) return 1;
      if (!rewrite) continue;
      auto again = rewrite_trace(bytes.data(), bytes.size());
      if (!again) {
        std::fprintf(stderr, "bench_trace: %s\n", again.error().message.c_str());
        return 1;
      }
      if (!file_row(std::string(argv[i]) + " v" + std::to_string(kTraceVersion), *again)) return 1;
    }
    return 0;
  }
  for (const char* mix : mixes) {
    const auto bytes = make(mix, kWarps, kTraceVersion);
    Timing t;
    if (!time_trace(bytes, 1, t)) return 1;
    row(mix, bytes.size(), t, 1);
  }
  return 0;
}
