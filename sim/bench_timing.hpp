// bench_timing.hpp: the timing model applied to the rows of `bankscope-gpu bench`.
//
//   (bench rows: kernel, scenario, n, measured ms) + device -> predicted ms and error per row
//
// The copy ceiling is the line fitted to the run's own cudaMemcpy rows; each kernel's launch shape
// comes from describe_bench_kernel(); its shared-memory wavefronts per block come from the bank
// model on the kernel's scenario (launch_totals), never from a measurement. Used by the bench
// (kernels/bench.cu), and by tests/test_timing_model.cpp on the committed H200 results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "status.hpp"
#include "timing_model.hpp"

namespace bankscope {

struct BenchMeasurement {
  std::string kernel;
  std::string scenario;  // file name under the scenario directory; "" = no shared memory
  int64_t n = 0;
  double ms = 0.0;  // measured median; <= 0 when the kernel refused this n
};

struct BenchPrediction {
  BenchMeasurement row;
  TimingPrediction predicted;
  double error = 0.0;  // predicted / measured - 1
};

// Shared wavefronts (ld + st) per block of a scenario at its own n, from the bank model.
Result<uint64_t> scenario_wavefronts_per_block(const std::string& scenario_path);

// Predictions for every row the model describes (rows it cannot describe, like cuBLAS, and
// refused rows are left out). Errors: no two memcpy_d2d sizes to fit the ceiling, a scenario
// that does not load.
Result<std::vector<BenchPrediction>> predict_bench_rows(const std::vector<BenchMeasurement>& rows,
                                                        const std::string& scenario_dir, int sms,
                                                        double sm_clock_mhz);

}  // namespace bankscope
