// counters.hpp: hardware counters for individual kernel launches, in process, through CUPTI's
// range profiler (CUDA 13: cupti_range_profiler.h + cupti_profiler_host.h + cupti_target.h).
//
//   launches (callables that each start exactly one kernel) -> per launch: metric -> value
//
// Auto range + kernel replay: every kernel launched between start and stop becomes one range, and
// CUPTI replays it as many passes as the metrics need. Without CUPTI at build time
// (BANKSCOPE_HAVE_CUPTI=0), create() says so and the harness falls back.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/counter_names.hpp"

namespace bankscope {

// What ncu calls them (names from sim/counter_names.hpp). The hardware counters: the l1tex__ pipe
// counts read high with many resident blocks (GPU_FACTS.md), so validate shows them as context;
// the instruction counter smsp__inst_executed_op_shared_* is exact (it counts every warp-level
// execution, predicated-off ones included).
inline const std::vector<std::string> kHardwareMetrics = {
    counters::l1tex_wavefronts(Op::kLoad),     counters::l1tex_wavefronts(Op::kStore),
    counters::l1tex_bank_conflicts(Op::kLoad), counters::l1tex_bank_conflicts(Op::kStore),
    counters::inst_executed(Op::kLoad),        counters::inst_executed(Op::kStore),
};
// Instruction-level (SASS-patched) counters: exact per launch, what the model predicts. sm_90 has
// no instruction-level bank-conflict counter for LDS/STS (ncu --query-metrics on the H200:
// assets/results/h200/ncu_shared_metrics.txt), so per-launch conflicts are compared only where the
// hardware l1tex__ counter is exact (a single block).
inline const std::vector<std::string> kSassMetrics = {
    counters::sass_inst_executed(Op::kLoad), counters::sass_inst_executed(Op::kStore),
    counters::wavefronts(Op::kLoad),         counters::wavefronts(Op::kStore),
};

class CounterSession {
 public:
  // Sets up the profiler for `metrics` on the current device. On failure returns null and sets
  // *why to one line (with the fix when counters are not permitted); *not_permitted is set when
  // the failure was CUPTI_ERROR_INSUFFICIENT_PRIVILEGES.
  static std::unique_ptr<CounterSession> create(const std::vector<std::string>& metrics,
                                                std::string* why, bool* not_permitted);
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  const std::vector<std::string>& metrics() const { return metrics_; }
  // Runs each launch (each must start exactly one kernel) as its own range, in batches, and returns
  // one row of metric values per launch (same order as metrics()). Throws std::runtime_error with
  // the failing CUPTI call on error.
  std::vector<std::vector<double>> measure(const std::vector<std::function<void()>>& launches);

  struct Impl;

 private:
  explicit CounterSession(std::unique_ptr<Impl> impl, std::vector<std::string> metrics);
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> metrics_;
};

}  // namespace bankscope
