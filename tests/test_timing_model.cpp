// test_timing_model.cpp: the timing model (sim/timing_model.hpp) on hand-checkable cases, then on
// every kernel of the H200 bench (assets/results/h200/bench.json) against the issue-6 targets:
// within 15% at N >= 4096 and the padded/unpadded speedups within 10%.
// Set BANKSCOPE_TIMING_TABLE=path to write the predicted-vs-measured table (markdown) there.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/bench_timing.hpp"
#include "sim/timing_model.hpp"

using namespace bankscope;

namespace {

// A device with round numbers: 1 SM at 1 GHz, one wavefront per clock, no calibrated constants.
DeviceThroughput toy_device() {
  DeviceThroughput d;
  d.sms = 1;
  d.sm_clock_mhz = 1000;
  d.dram_gbps = 100;  // 1e11 B/s
  d.memory_latency_ns = 0;
  d.segment_overhead_bytes = 0;
  return d;
}

DeviceThroughput h200(double copy_gbps, double overhead_us = 0.0) {
  DeviceThroughput d;
  d.sms = 132;
  d.sm_clock_mhz = 1980;
  d.dram_gbps = copy_gbps;
  d.launch_overhead_us = overhead_us;
  return d;
}

}  // namespace

TEST_CASE("occupancy: the tightest of threads, blocks, registers, shared memory (sm_90 limits)") {
  struct Case {
    int threads, smem, regs, blocks;
    const char* limiter;
  };
  const Case cases[] = {
      {1024, 4096, 16, 2, "threads"},    // seed kernel
      {256, 4224, 28, 8, "threads"},     // 32x8 padded: 28 regs -> 1024 per warp -> 8 blocks too
      {256, 16384, 36, 6, "registers"},  // 36 regs -> 1280 per warp x 8 warps -> 6.4
      {256, 32768, 74, 3, "registers"},  // persistent: 80 x 32 x 8 = 20480 -> 3.2
      {128, 8192, 36, 12, "registers"},  // 1280 x 4 = 5120 -> 12.8
      {128, 16384, 55, 9, "registers"},  // 1792 x 4 = 7168 -> 9.1
      {32, 0, 0, 32, "blocks"},         {256, 100000, 0, 2, "shared memory"},  // 233472 / 101024
      {4096, 0, 0, 0, "unknown"},
  };
  const DeviceThroughput dev = h200(4000);
  for (const Case& c : cases) {
    CAPTURE(c.threads);
    CAPTURE(c.smem);
    CAPTURE(c.regs);
    const Occupancy o = occupancy(KernelShape{c.threads, c.smem, c.regs, 1000, 0}, dev);
    CHECK(o.blocks_per_sm == c.blocks);
    CHECK(o.limiter == c.limiter);
  }
}

TEST_CASE("without a launch shape: the two-ceiling roofline") {
  const DeviceThroughput dev = h200(4000);
  // tile[32][32], 32x8 threads, N=2048: 4,325,376 wavefronts / (132 x 1.98e9) and 33,554,432 B / 4
  // TB/s.
  const TimingPrediction p = predict_time(KernelWork{4325376, 33554432}, dev);
  CHECK(p.shared_ms == doctest::Approx(0.0165495).epsilon(1e-5));
  CHECK(p.dram_ms == doctest::Approx(0.0083886).epsilon(1e-5));
  CHECK(p.ms == p.shared_ms);
  CHECK(p.bound == "shared");
  CHECK(p.blocks_per_sm == 0);
  CHECK(predict_time(KernelWork{1, 1}, DeviceThroughput{}, KernelShape{256, 0, 0, 10, 0}).bound ==
        "unknown");
}

TEST_CASE("the copy ceiling: a line through the memcpy runs") {
  // Exact line: 4000 GB/s + 5 us.
  const auto c = fit_copy_ceiling({{400000000, 0.105}, {800000000, 0.205}, {1600000000, 0.405}});
  REQUIRE(c.has_value());
  CHECK(c->gbps == doctest::Approx(4000));
  CHECK(c->overhead_us == doctest::Approx(5));
  CHECK_FALSE(fit_copy_ceiling({{400000000, 0.1}}).has_value());
  CHECK_FALSE(fit_copy_ceiling({{400000000, 0.1}, {400000000, 0.2}}).has_value());
  // The H200 bench's five memcpy_d2d runs.
  const auto h = fit_copy_ceiling({{134217728, 0.03549},
                                   {536870912, 0.12973},
                                   {2147483648, 0.50683},
                                   {536739848, 0.13256},
                                   {134480000, 0.03886}});
  REQUIRE(h.has_value());
  CHECK(h->gbps == doctest::Approx(4286.6).epsilon(0.001));
  CHECK(h->overhead_us == doctest::Approx(5.87).epsilon(0.01));
}

TEST_CASE("one resident block: its cycle is latency + DRAM share + pipe, nothing overlaps") {
  DeviceThroughput dev = toy_device();
  dev.memory_latency_ns = 1000;
  // 200000 bytes of shared memory: one block per SM. 10 blocks, 1e5 bytes each:
  // DRAM 1e5 / 1e11 = 1 us; global wavefronts 1e6 / 128 / 10 = 781.25 clocks = 0.78125 us.
  const KernelShape shape{1024, 200000, 0, 10, 0};
  const TimingPrediction p = predict_time(KernelWork{0, 1000000}, dev, shape);
  CHECK(p.blocks_per_sm == 1);
  CHECK(p.occupancy_limiter == "shared memory");
  CHECK(p.ms == doctest::Approx(10 * 2.78125e-3));
  CHECK(p.latency_share == doctest::Approx(1.0 / 2.78125));
  CHECK(p.bound == "latency");
  CHECK(p.bytes_in_flight_per_sm == doctest::Approx(50000));  // half of a unit's bytes are reads
  dev.launch_overhead_us = 4;
  CHECK(predict_time(KernelWork{0, 1000000}, dev, shape).ms ==
        doctest::Approx(0.004 + 10 * 2.78125e-3));
}

TEST_CASE("a pure-DRAM kernel with many blocks in flight runs at bytes / bandwidth") {
  DeviceThroughput dev = toy_device();
  dev.memory_latency_ns = 10;  // small next to the 1 us DRAM share
  KernelWork w{0, 100000000};  // 1000 units of 1e5 B: 1 ms at 1e11 B/s
  w.global_wavefronts = 1000;  // a negligible pipe
  const TimingPrediction p = predict_time(w, dev, KernelShape{64, 0, 0, 1000, 0});
  CHECK(p.blocks_per_sm == 32);
  CHECK(p.dram_ms == doctest::Approx(1.0));
  CHECK(p.ms == doctest::Approx(1.0).epsilon(0.02));
  CHECK(p.ms >= p.dram_ms);
  CHECK(p.bound == "dram");
  // Short row runs cost DRAM time: 17 bytes per 128-byte run on reads and writes -> x (1 + 17/128).
  dev.segment_overhead_bytes = 17;
  w.read_segment_bytes = w.write_segment_bytes = 128;
  CHECK(predict_time(w, dev, KernelShape{64, 0, 0, 1000, 0}).ms ==
        doctest::Approx(1.1328125).epsilon(0.02));
}

TEST_CASE("a conflicted kernel with many blocks: time = wavefronts / (SMs x clock)") {
  DeviceThroughput dev = toy_device();
  dev.sms = 4;
  dev.dram_gbps = 1e6;  // DRAM out of the way
  dev.memory_latency_ns = 100;
  // 4,000,000 shared wavefronts over 4 SMs at 1 GHz: 1 ms.
  KernelWork w{4000000, 128000};
  w.global_wavefronts = 1;
  const TimingPrediction p = predict_time(w, dev, KernelShape{64, 0, 0, 4000, 0});
  CHECK(p.shared_ms == doctest::Approx(1.0));
  CHECK(p.ms == doctest::Approx(1.0).epsilon(0.01));
  CHECK(p.bound == "shared");
}

TEST_CASE("two resident blocks of a conflicted kernel run in lock step: round = L + 2 x pipe") {
  DeviceThroughput dev = toy_device();
  dev.dram_gbps = 1e9;           // DRAM out of the way
  dev.memory_latency_ns = 1000;  // L = 1 us
  // 10 units; per unit 999 shared + 1 global wavefront = 1000 clocks = 1 us of pipe; 1024 threads
  // -> 2 blocks per SM. MVA: c=1: r = 2 us, q = 0.5; c=2: r = 1 + 1.5 + 0.5 = 3 us -> 2/3 units/us.
  KernelWork w{9990, 1280};
  const TimingPrediction p = predict_time(w, dev, KernelShape{1024, 0, 0, 10, 0});
  CHECK(p.blocks_per_sm == 2);
  CHECK(p.ms == doctest::Approx(0.015));
  // The busiest SM sets the time: 5 units on 4 SMs -> one SM runs 2 (both resident): 2 / (2/3 per
  // us).
  dev.sms = 4;
  const TimingPrediction tail =
      predict_time(KernelWork{4995, 640}, dev, KernelShape{1024, 0, 0, 5, 0});
  CHECK(tail.ms == doctest::Approx(0.003));
}

// ---------------------------------------------------------------------------------------------
// The H200 bench.

namespace {

const std::string kScenarios = std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios";

std::vector<BenchMeasurement> bench_rows() {
  auto text = read_text_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/results/h200/bench.json");
  REQUIRE(text.ok());
  const auto j = nlohmann::json::parse(*text);
  std::vector<BenchMeasurement> rows;
  for (const auto& r : j.at("rows")) {
    rows.push_back({r.at("kernel").get<std::string>(), r.at("scenario").get<std::string>(),
                    r.at("n").get<int64_t>(), r.at("ms_median").get<double>()});
  }
  return rows;
}

// Shared wavefronts per full tile from the bank model: launch_totals on the kernel's scenario.
uint64_t wavefronts_per_tile(const std::string& scenario) {
  auto w = scenario_wavefronts_per_block(kScenarios + "/" + scenario);
  REQUIRE_MESSAGE(w.ok(), (w.ok() ? "" : w.error().message));
  return *w;
}

struct Predicted {
  BenchMeasurement row;
  TimingPrediction p;
  double err = 0;  // predicted / measured - 1
};

std::vector<Predicted> predict_bench() {
  auto all = predict_bench_rows(bench_rows(), kScenarios, 132, 1980);
  REQUIRE_MESSAGE(all.ok(), (all.ok() ? "" : all.error().message));
  std::vector<Predicted> out;
  for (const BenchPrediction& b : *all) out.push_back({b.row, b.predicted, b.error});
  return out;
}

}  // namespace

TEST_CASE("bank model wavefronts per tile match the SASS counters (ncu_bench.csv, N=4096)") {
  // ncu: (ld + st) wavefronts / blocks of the launch.
  CHECK(wavefronts_per_tile("seed_transpose_32x32.json") == 1056);
  CHECK(wavefronts_per_tile("seed_transpose_32x33.json") == 64);
  CHECK(wavefronts_per_tile("tiled_32x8_32x32.json") == 1056);
  CHECK(wavefronts_per_tile("tiled_32x8_32x33.json") == 64);
  CHECK(wavefronts_per_tile("fast_f4_64x64_t256.json") == 256);
  CHECK(wavefronts_per_tile("fast_f4_128x64_t256.json") == 512);
  CHECK(wavefronts_per_tile("fast_f4_32x64_t128.json") == 128);
}

TEST_CASE(
    "H200 bench: every described kernel within 15% at N >= 4096 (N=8192 calibrated, 4096/16384 "
    "held out)") {
  const std::vector<Predicted> all = predict_bench();
  int checked = 0;
  for (const Predicted& p : all) {
    if (p.row.n != 4096 && p.row.n != 8192 && p.row.n != 16384) continue;
    CAPTURE(p.row.kernel);
    CAPTURE(p.row.n);
    CAPTURE(p.p.ms);
    CAPTURE(p.row.ms);
    CHECK(std::fabs(p.err) <= 0.15);
    ++checked;
  }
  CHECK(checked == 45);  // 15 described kernels x 3 sizes
  // Spot values: seed_32x32 at 16384 is shared-bound in lock step, fast_f4_64x64_t256 DRAM-bound.
  for (const Predicted& p : all) {
    if (p.row.n != 16384) continue;
    if (p.row.kernel == "seed_32x32") {
      CHECK(p.p.bound == "shared");
      CHECK(p.p.blocks_per_sm == 2);
    }
    if (p.row.kernel == "fast_f4_64x64_t256") {
      CHECK(p.p.bound == "dram");
      CHECK(p.p.blocks_per_sm == 6);
    }
    if (p.row.kernel == "naive") CHECK(p.p.bound == "shared");  // the LSU pipe: partial-line stores
  }
}

TEST_CASE("H200 bench: padded / unpadded speedups within 10%") {
  const std::vector<Predicted> all = predict_bench();
  std::map<std::pair<std::string, int64_t>, const Predicted*> by;
  for (const Predicted& p : all) by[{p.row.kernel, p.row.n}] = &p;
  const std::pair<const char*, const char*> pairs[] = {{"seed_32x32", "seed_32x33"},
                                                       {"tiled_32x8_32x32", "tiled_32x8_32x33"}};
  for (const int64_t n : {4096, 8192, 16384}) {
    for (const auto& [slow, fast] : pairs) {
      const Predicted* a = by.at({slow, n});
      const Predicted* b = by.at({fast, n});
      const double measured = a->row.ms / b->row.ms;
      const double predicted = a->p.ms / b->p.ms;
      const std::string pair = std::string(slow) + " / " + fast;
      CAPTURE(pair);
      CAPTURE(n);
      CAPTURE(measured);
      CAPTURE(predicted);
      CHECK(std::fabs(predicted / measured - 1.0) <= 0.10);
    }
  }

  // The table for assets/results/h200/timing_model.md, on request.
  if (const char* path = std::getenv("BANKSCOPE_TIMING_TABLE")) {
    std::ostringstream t;
    t << "| kernel | N | blocks/SM (limit) | bound | predicted ms | measured ms | error |\n"
      << "| --- | ---: | ---: | --- | ---: | ---: | ---: |\n";
    char buf[256];
    for (const int64_t n : {4096, 8192, 16384, 8191, 4100}) {
      for (const Predicted& p : all) {
        if (p.row.n != n) continue;
        std::snprintf(buf, sizeof buf, "| %s | %lld | %d (%s) | %s | %.4f | %.4f | %+.1f%% |\n",
                      p.row.kernel.c_str(), (long long)n, p.p.blocks_per_sm,
                      p.p.occupancy_limiter.c_str(), p.p.bound.c_str(), p.p.ms, p.row.ms,
                      100.0 * p.err);
        t << buf;
      }
    }
    t << "\n| pair | N | measured speedup | predicted speedup | error |\n| --- | ---: | ---: | "
         "---: | ---: |\n";
    for (const int64_t n : {4096, 8192, 16384, 8191, 4100}) {
      for (const auto& [slow, fast] : pairs) {
        const Predicted* a = by.at({slow, n});
        const Predicted* b = by.at({fast, n});
        const double m = a->row.ms / b->row.ms, q = a->p.ms / b->p.ms;
        std::snprintf(buf, sizeof buf, "| %s / %s | %lld | %.3f | %.3f | %+.1f%% |\n", slow, fast,
                      (long long)n, m, q, 100.0 * (q / m - 1.0));
        t << buf;
      }
    }
    std::ofstream(path) << t.str();
  }
}
