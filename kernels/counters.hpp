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
// counts read high with many resident blocks (GPU_FACTS.md), so validate shows them as context.
inline const std::vector<std::string> kHardwareMetrics = {
    counters::l1tex_wavefronts(Op::kLoad),     counters::l1tex_wavefronts(Op::kStore),
    counters::l1tex_bank_conflicts(Op::kLoad), counters::l1tex_bank_conflicts(Op::kStore),
    "smsp__inst_executed_op_shared_ld.sum",    "smsp__inst_executed_op_shared_st.sum",
};
// Instruction-level (SASS-patched) counters: exact per launch, what the model predicts.
inline const std::vector<std::string> kSassMetrics = {
    counters::inst_executed(Op::kLoad), counters::inst_executed(Op::kStore),
    counters::wavefronts(Op::kLoad),    counters::wavefronts(Op::kStore),
};
// Their bank-conflict twins: not yet seen to exist on sm_90 (assumed, to be checked with
// `ncu --query-metrics`); every collector retries without them when they are rejected.
inline const std::vector<std::string> kSassConflictMetrics = {
    counters::bank_conflicts(Op::kLoad), counters::bank_conflicts(Op::kStore),
};
// The same per-SM rather than per-SM-subpartition (equal whole-launch sums): ncu lists
// sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm on sm_90 (GPU_FACTS.md), so the
// sm__ form is tried when the smsp__ one is refused.
inline const std::vector<std::string> kSassConflictMetricsSm = {
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
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
