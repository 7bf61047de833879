// timing_model.cpp: the two-ceiling time prediction (see timing_model.hpp for the facts it rests on).
#include "timing_model.hpp"

#include <algorithm>

namespace bankscope {

TimingPrediction predict_time(const KernelWork& work, const DeviceThroughput& dev) {
  TimingPrediction p;
  const bool have_shared = dev.sms > 0 && dev.sm_clock_mhz > 0.0 &&
                           dev.shared_wavefronts_per_clock_per_sm > 0.0;
  const bool have_dram = dev.dram_gbps > 0.0;
  if (have_shared) {
    const double per_ms = double(dev.sms) * dev.shared_wavefronts_per_clock_per_sm *
                          dev.sm_clock_mhz * 1e3;  // wavefronts per millisecond, whole chip
    p.shared_ms = double(work.shared_wavefronts) / per_ms;
  }
  if (have_dram) p.dram_ms = double(work.dram_bytes) / (dev.dram_gbps * 1e6);
  if (!have_shared && !have_dram) {
    p.bound = "unknown";
    return p;
  }
  p.ms = std::max(p.shared_ms, p.dram_ms);
  p.bound = p.shared_ms > p.dram_ms ? "shared" : "dram";
  return p;
}

double effective_gbps(uint64_t bytes, double ms) {
  return ms > 0.0 ? double(bytes) / (ms * 1e6) : 0.0;
}

}  // namespace bankscope
