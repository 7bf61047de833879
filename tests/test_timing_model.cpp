// test_timing_model.cpp: the timing model (sim/timing_model.hpp) on hand-checkable cases. The model
// on the H200 bench's kernels (described in kernels/bench_kernels.hpp) is tested in
// tests/test_bench_timing.cpp.
#include <doctest/doctest.h>

#include <string>

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
