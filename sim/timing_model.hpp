// timing_model.hpp: a first-order prediction of a kernel's time from what bankscope knows.
//
//   (shared wavefronts, DRAM bytes, SM count, SM clock, DRAM bandwidth) -> predicted ms
//
// Two ceilings, the larger wins (a roofline with two roofs):
//   shared_ms = wavefronts / (SMs * wavefronts_per_clock_per_SM * clock)
//   dram_ms   = bytes read + bytes written / DRAM bandwidth
// The facts behind it:
//   [documented by NVIDIA] shared memory delivers 32 banks x 4 bytes = 128 bytes per clock per SM,
//     i.e. one wavefront per clock per SM (Volta through Hopper tuning guides).
//   [measured here] the DRAM ceiling is best taken as the cudaMemcpy device-to-device bandwidth
//     measured in the same run (about 4.2 TB/s read+write on the H200 at N=16384), not the
//     datasheet's 4.8 TB/s.
//   [assumed] the two pipes overlap perfectly and every SM is busy for the whole kernel.
// Known to be too simple (issue 6): latency-bound kernels (the 32x32-thread seed kernel) run slower
// than either ceiling. This file is a separate, replaceable piece on purpose: the next model keeps
// the same inputs and adds occupancy and bytes in flight.
#pragma once

#include <cstdint>
#include <string>

namespace bankscope {

struct DeviceThroughput {
  int sms = 0;
  double sm_clock_mhz = 0.0;
  double dram_gbps = 0.0;                         // read + write, GB/s (1e9 bytes/s)
  double shared_wavefronts_per_clock_per_sm = 1.0;  // documented: 128 B/clk/SM
};

struct KernelWork {
  uint64_t shared_wavefronts = 0;  // ld + st, whole launch (the model's launch_totals)
  uint64_t dram_bytes = 0;         // bytes that must cross DRAM: each input read, each output written
};

struct TimingPrediction {
  double ms = 0.0;         // max(shared_ms, dram_ms); 0 when the device numbers are missing
  double shared_ms = 0.0;
  double dram_ms = 0.0;
  std::string bound;       // "shared", "dram" or "unknown"
};

TimingPrediction predict_time(const KernelWork& work, const DeviceThroughput& dev);

// Effective bandwidth in GB/s of `bytes` moved in `ms` (0 if ms <= 0).
double effective_gbps(uint64_t bytes, double ms);

// A square n x n transpose reads and writes every element once.
inline uint64_t transpose_dram_bytes(int64_t n, int elem_bytes) {
  return 2u * static_cast<uint64_t>(n) * static_cast<uint64_t>(n) * static_cast<uint64_t>(elem_bytes);
}

}  // namespace bankscope
