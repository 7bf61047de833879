// timing_model.cpp: the per-SM queueing model of a tiled kernel's time (see timing_model.hpp for
// the model and the facts it rests on). Which kernels it describes, and how, is kernels/'s business
// (kernels/bench_kernels.hpp).
#include "timing_model.hpp"

#include <algorithm>
#include <cmath>

namespace bankscope {

namespace {

constexpr double kGlobalWavefrontBytes = 128.0;  // documented: the L1 data pipe moves 128 B/clk

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

}  // namespace

Occupancy occupancy(const KernelShape& shape, const DeviceThroughput& dev) {
  Occupancy o;
  if (shape.threads_per_block <= 0 || shape.threads_per_block > dev.max_threads_per_sm) {
    o.limiter = "unknown";
    return o;
  }
  const auto take = [&o](int blocks, const char* why) {
    if (o.limiter.empty() || blocks < o.blocks_per_sm) {
      o.blocks_per_sm = blocks;
      o.limiter = why;
    }
  };
  take(dev.max_threads_per_sm / shape.threads_per_block, "threads");
  take(dev.max_blocks_per_sm, "blocks");
  if (shape.regs_per_thread > 0 && dev.reg_alloc_unit_per_warp > 0) {
    const int warps = (shape.threads_per_block + 31) / 32;
    const int unit = dev.reg_alloc_unit_per_warp;
    const int per_warp = (shape.regs_per_thread * 32 + unit - 1) / unit * unit;
    take(dev.regs_per_sm / (per_warp * warps), "registers");
  }
  if (shape.smem_bytes_per_block > 0)
    take(dev.smem_per_sm_bytes / (shape.smem_bytes_per_block + dev.smem_reserved_per_block_bytes),
         "shared memory");
  return o;
}

TimingPrediction predict_time(const KernelWork& work, const DeviceThroughput& dev,
                              const KernelShape& shape) {
  TimingPrediction p;
  const bool have_shared =
      dev.sms > 0 && dev.sm_clock_mhz > 0.0 && dev.shared_wavefronts_per_clock_per_sm > 0.0;
  const bool have_dram = dev.dram_gbps > 0.0;
  if (have_shared) {
    const double per_ms =
        double(dev.sms) * dev.shared_wavefronts_per_clock_per_sm * dev.sm_clock_mhz * 1e3;
    p.shared_ms =
        double(work.shared_wavefronts) / per_ms;  // wavefronts per millisecond, whole chip
  }
  if (have_dram) p.dram_ms = double(work.dram_bytes) / (dev.dram_gbps * 1e6);
  if (!have_shared && !have_dram) {
    p.bound = "unknown";
    return p;
  }
  p.ms = std::max(p.shared_ms, p.dram_ms);
  p.bound = p.shared_ms > p.dram_ms ? "shared" : "dram";

  const Occupancy occ = occupancy(shape, dev);
  const uint64_t units = shape.work_units ? shape.work_units : shape.blocks;
  if (occ.blocks_per_sm <= 0 || units == 0 || !have_shared || !have_dram)
    return p;  // roofline only
  p.blocks_per_sm = occ.blocks_per_sm;
  p.occupancy_limiter = occ.limiter;

  // One work unit (tile) as the SM sees it, in seconds.
  const double clock_hz = dev.sm_clock_mhz * 1e6;
  const double unit_bytes = double(work.dram_bytes) / double(units);
  const double seg = dev.segment_overhead_bytes;
  const double run_factor =
      1.0 + 0.5 * (work.read_segment_bytes > 0 ? seg / work.read_segment_bytes : 0.0) +
      0.5 * (work.write_segment_bytes > 0 ? seg / work.write_segment_bytes : 0.0);
  // DRAM: this SM's 1/SMs share of the copy bandwidth.
  const double d_dram = unit_bytes * run_factor * double(dev.sms) / (dev.dram_gbps * 1e9);
  const double global_wf = work.global_wavefronts ? double(work.global_wavefronts)
                                                  : double(work.dram_bytes) / kGlobalWavefrontBytes;
  const double pipe_cycles =
      double(work.shared_wavefronts) / dev.shared_wavefronts_per_clock_per_sm + global_wf +
      double(work.partial_store_requests) * dev.partial_store_cycles;
  const double d_pipe = pipe_cycles / double(units) / clock_hz;
  const double latency = dev.memory_latency_ns * 1e-9;

  // The busiest SM runs ceil(units / SMs) units, at most B of them at a time.
  const uint64_t per_sm = ceil_div(units, uint64_t(dev.sms));
  const int customers = int(std::min<uint64_t>(uint64_t(occ.blocks_per_sm), per_sm));

  // Exact MVA for `customers` customers: delay (latency), queue (DRAM), queue (pipe). A block's
  // loads also wait behind the pipe's backlog (LDG and LDS share the LSU), at most one block's
  // worth: + d_pipe * min(q, 1).
  double q_dram = 0.0, q_pipe = 0.0, x = 0.0, r_dram = 0.0, r_pipe = 0.0, r_wait = 0.0, r = latency;
  for (int c = 1; c <= customers; ++c) {
    r_dram = d_dram * (1.0 + q_dram);
    r_pipe = d_pipe * (1.0 + q_pipe);
    r_wait = d_pipe * std::min(q_pipe, 1.0);
    r = latency + r_dram + r_pipe + r_wait;
    x = double(c) / r;  // units per second on this SM
    q_dram = x * r_dram;
    q_pipe = x * r_pipe;  // blocks holding shared work; the load-issue wait is a residual
  }
  p.ms = dev.launch_overhead_us * 1e-3 + double(per_sm) / x * 1e3;
  p.waves = double(units) / (double(dev.sms) * double(occ.blocks_per_sm));
  p.bytes_in_flight_per_sm =
      double(customers) * unit_bytes / 2.0;  // reads are half a transpose's bytes
  p.latency_share = latency / r;
  p.dram_share = r_dram / r;
  p.pipe_share = (r_pipe + r_wait) / r;
  if (p.pipe_share >= p.dram_share && p.pipe_share >= p.latency_share) {
    p.bound = "shared";
  } else if (p.dram_share >= p.latency_share) {
    p.bound = "dram";
  } else {
    p.bound = "latency";
  }
  return p;
}

std::optional<CopyCeiling> fit_copy_ceiling(
    const std::vector<std::pair<uint64_t, double>>& bytes_and_ms) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double k = double(bytes_and_ms.size());
  for (const auto& [bytes, ms] : bytes_and_ms) {
    const double xb = double(bytes);
    sx += xb;
    sy += ms;
    sxx += xb * xb;
    sxy += xb * ms;
  }
  const double den = k * sxx - sx * sx;
  if (bytes_and_ms.size() < 2 || den <= 0.0) return std::nullopt;
  const double slope = (k * sxy - sx * sy) / den;  // ms per byte
  if (slope <= 0.0) return std::nullopt;
  const double intercept = (sy - slope * sx) / k;
  return CopyCeiling{1.0 / (slope * 1e6), std::max(0.0, intercept * 1e3)};
}

double effective_gbps(uint64_t bytes, double ms) {
  return ms > 0.0 ? double(bytes) / (ms * 1e6) : 0.0;
}

}  // namespace bankscope
