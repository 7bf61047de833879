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

namespace bankscope {

// What ncu calls them; the per-launch counts bankscope predicts.
inline const std::vector<std::string> kHardwareMetrics = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
};
// Instruction-level (SASS-patched) wavefronts: exact, not disturbed by other L1 traffic.
inline const std::vector<std::string> kSassMetrics = {
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
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
