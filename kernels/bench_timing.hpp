// bench_timing.hpp: the timing model (sim/timing_model.hpp) applied to the kernels of
// `bankscope-gpu bench`, and the fit of its three constants, kept apart from their evaluation.
//
//   bench JSON -> BenchRun (rows, device)
//   (kernel, n) + compiled facts + scenario wavefronts + device -> BenchPrediction
//   BenchRun rows at one n -> grid search of (latency, row-run overhead, partial-store cycles)
//
// Each kernel's description comes from bench_kernels.hpp; its registers and shared bytes from the
// run (cudaFuncGetAttributes, recorded in every bench row) or, for rows and predictions without
// them, from the cuobjdump resource-usage file; its shared wavefronts per tile from the bank model
// on its scenario (launch_totals), never from a measurement. Plain C++: no GPU needed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_kernels.hpp"
#include "resource_usage.hpp"
#include "sim/status.hpp"
#include "sim/timing_model.hpp"

namespace bankscope {

struct BenchMeasurement {
  std::string kernel;
  int64_t n = 0;
  double ms = 0.0;         // measured median; <= 0 when the kernel refused this n or was wrong
  CompiledFacts compiled;  // recorded by the run; regs 0 = not recorded (older files)
};

// A bench JSON as far as the model needs it.
struct BenchRun {
  std::string path;
  int sms = 0;
  double sm_clock_mhz = 0.0;
  std::vector<BenchMeasurement> rows;
};
Result<BenchRun> load_bench_run(const std::string& path);

// The copy ceiling as the line through a run's memcpy_d2d rows (fit_copy_ceiling).
Result<CopyCeiling> copy_ceiling_of(const BenchRun& run);

// The device for the model: SMs and clock of a run, a copy ceiling, the three constants.
struct ModelConstants {
  double latency_ns = kLatencyNs;
  double segment_overhead_bytes = kSegmentOverheadBytes;
  double partial_store_cycles = kPartialStoreCycles;
};
DeviceThroughput model_device(int sms, double sm_clock_mhz, const CopyCeiling& copy,
                              const ModelConstants& c);

// Shared wavefronts (ld + st) per block of each scenario at its own n, from the bank model;
// computed once per scenario.
class ScenarioWavefronts {
 public:
  explicit ScenarioWavefronts(std::string scenario_dir) : dir_(std::move(scenario_dir)) {}
  Result<uint64_t> per_block(const std::string& scenario);

 private:
  std::string dir_;
  std::map<std::string, uint64_t> cache_;
};

struct BenchPrediction {
  std::string kernel;
  int64_t n = 0;
  double measured_ms = 0.0;  // 0 = not measured (a prediction made before the run)
  CompiledFacts compiled;
  std::string compiled_from;  // "run" (cudaFuncGetAttributes) or the resource-usage file
  BenchKernelDescription description;
  TimingPrediction predicted;
  double error = 0.0;  // predicted / measured - 1 (when measured)
};

// The kernel at size n. Errors: a scenario that does not load. nullopt: not described.
Result<std::optional<BenchPrediction>> predict_bench_kernel(const BenchKernel& k, int64_t n,
                                                            const CompiledFacts& compiled,
                                                            const DeviceThroughput& dev,
                                                            ScenarioWavefronts& wavefronts);

// Predictions for every measured row the model describes. Registers: the row's own, else
// `offline`'s (may be null); rows with neither are left out and named in *skipped.
Result<std::vector<BenchPrediction>> predict_bench_rows(const std::vector<BenchMeasurement>& rows,
                                                        const DeviceThroughput& dev,
                                                        ScenarioWavefronts& wavefronts,
                                                        const ResourceUsage* offline,
                                                        std::vector<std::string>* skipped);

// The grid the constants are searched on (inclusive bounds).
struct FitGrid {
  double latency_lo = 400, latency_hi = 1200, latency_step = 10;  // ns
  double segment_lo = 0, segment_hi = 40, segment_step = 1;       // bytes per row run
  double partial_lo = 0, partial_hi = 8, partial_step = 0.1;      // clocks per request
};

struct FitResult {
  int64_t n = 0;  // the size whose rows were fitted
  ModelConstants constants;
  CopyCeiling copy;
  uint64_t points = 0;                  // grid points tried
  double rms_fit = 0.0;                 // RMS relative error on the fitted rows
  std::vector<BenchPrediction> fitted;  // the rows at n, with the best constants
  std::vector<BenchPrediction> other;   // the same run's other sizes (in-sample run, not fitted)
  double rms_other = 0.0;
  std::vector<std::string> skipped;  // rows the model could not describe
};

// Minimises the RMS of predicted / measured - 1 over the run's described rows at size n.
// Ties keep the first point in grid order (latency, then segment, then partial, ascending).
Result<FitResult> fit_constants(const BenchRun& run, int64_t n, ScenarioWavefronts& wavefronts,
                                const ResourceUsage* offline, const FitGrid& grid = {});

// RMS and worst (by magnitude) of the errors of `rows`.
struct ErrorSummary {
  size_t count = 0;
  double rms = 0.0;
  double worst = 0.0;
  std::string worst_kernel;
  int64_t worst_n = 0;
};
ErrorSummary summarize_errors(const std::vector<BenchPrediction>& rows);

}  // namespace bankscope
