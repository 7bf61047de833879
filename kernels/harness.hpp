// harness.hpp: bankscope-gpu's measuring machinery, callable from the CLI and the GPU tests.
//
//   scenario file + n  -> TransposeJob (model prediction + which kernel)  -> KernelResult
//   JSONL pattern line -> one single-warp launch                         -> measured counters
// Everything that touches the device throws CudaError (cuda_check.hpp) on a failed call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels.hpp"
#include "sim/gpu_results.hpp"
#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"

namespace bankscope {

// Exit codes of bankscope-gpu (also used by the tests).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoDevice = 3;
inline constexpr int kExitWrongOutput = 4;
inline constexpr int kExitMismatch = 5;

// True when a CUDA device can be used; otherwise *why says why in one line.
bool cuda_device_available(std::string* why);
DeviceInfo query_device_info();

struct TransposeJob {
  std::string scenario_path;
  std::string scenario;  // basename
  std::string name;      // row label: scenario name or basename without .json
  int64_t n = 0;
  TransposePlan plan;
  LaunchTotals predicted;
};

// Loads each scenario (files whose gpu_kernel is empty are skipped with a note in *notes) and
// plans one job per (scenario, n), scenarios outermost. `strides` (may be empty): for scenarios
// whose gpu_kernel is dynamic_stride, one job per (stride, n) with arrays[0].row_stride set to
// it, instead of the file's stride; the rows keep the scenario's file name (the stride is part of
// the results key). Errors name the file.
Result<std::vector<TransposeJob>> plan_jobs(const std::vector<std::string>& scenario_paths,
                                            const std::vector<int64_t>& ns,
                                            std::vector<std::string>* notes,
                                            const std::vector<int64_t>& strides = {});

// Poisons the output, runs once, checks against the CPU reference (every element up to
// kFullCheckMaxN, sampled rows above). *detail names the first wrong element.
inline constexpr int64_t kFullCheckMaxN = 4096;
bool check_transpose_once(const TransposePlan& plan, void* out, const void* in, int n,
                          std::string* detail);

struct ValidateOptions {
  int runs = 30;
  int warmup = 3;
  std::string ncu;  // path to ncu for the SASS metrics, "" = none
  bool ncu_only = false;  // skip CUPTI: every counter from ncu (the fallback, and a cross-check)
  std::string self_exe;
  std::vector<std::string> child_args;  // run-jobs arguments that reproduce the job list
  bool verbose = true;
};

struct ValidateOutcome {
  GpuResults results;
  int wrong_outputs = 0;
  int mismatches = 0;
  std::string ncu_log;
};

ValidateOutcome run_validate(const std::vector<TransposeJob>& jobs, const ValidateOptions& opt);
// The child ncu profiles: one launch per job, nothing printed on stdout.
void run_jobs_once(const std::vector<TransposeJob>& jobs);

// One counter the verdict compares: the model's per-launch prediction beside its exact measured
// counterpart. `fallback`: measured by a stand-in (the hardware smsp__inst_executed_op_shared_*
// when the instruction-level count is missing; the l1tex__ counters for a single-block launch).
struct ComparedCounter {
  std::string what;    // "ld instructions", "st wavefronts", "ld bank_conflicts", ...
  std::string metric;  // the Nsight Compute metric measured
  uint64_t predicted = 0, measured = 0;
  bool fallback = false;
};
// Every predicted counter with a measured counterpart on this row, ld then st, each as
// instructions, wavefronts, bank_conflicts.
std::vector<ComparedCounter> compared_counters(const KernelResult& k);
// "WRONG OUTPUT", "timing only" (nothing to compare), "MISMATCH: <counter> <m> measured vs <p>
// predicted; ..." or "match (<k> of 8 counters[, <f> from hardware counters])".
std::string verdict_of(const KernelResult& k);

// The table validate prints.
std::string format_table(const GpuResults& r);

struct PatternOptions {
  bool clock64 = false;  // also (or, without counters, only) the clock64 throughput measurement
  int clock_reps = 256;
  // Issue 11: more metrics for the non-LDS/STS kinds (e.g. the global side of cp.async), added to
  // the run's set; ones CUPTI refuses are dropped and named in the note, as for the others.
  std::vector<std::string> extra_metrics;
};
// Measures every pattern; returns one output object per input (the input keys, the model's
// "wavefronts" and "bank_conflicts", and the measured fields).
std::vector<nlohmann::ordered_json> run_patterns(const std::vector<Pattern>& patterns, const PatternOptions& opt,
                                         std::string* note);

}  // namespace bankscope
