// timing_commands.hpp: bankscope-gpu's host-only timing commands (no GPU, no CUDA runtime call):
//
//   timing-fit      --bench FILE.json --n 8192     fit the three constants on the rows of one size
//   timing-predict  --n 6144,12288 [--out F.json]  predict every described bench kernel, before any
//                                                  measurement of those sizes
//   timing-compare  --predicted P.json --bench B.json   held-out error, apart from the fit error
//
// Fitting and evaluation are kept apart: the fit sees one size of the calibration run; predictions
// take the fitted constants, the calibration run's copy ceiling (never the run being predicted) and
// the registers of the cuobjdump resource-usage file; the comparison reads only the two files.
// Exit codes as bankscope-gpu's: 0 ok, 1 runtime error, 2 bad input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bankscope {

struct TimingCommonArgs {
  std::string resources;  // cuobjdump resource-usage file; "" = the one the build generated
  std::string
      scenarios;  // scenario directory; "" = assets/scenarios (working directory, then source)
};

struct TimingFitArgs {
  TimingCommonArgs common;
  std::string bench;     // the calibration run
  int64_t n = 8192;      // the size whose rows are fitted
  std::string out_txt;   // "" = stdout only
  std::string out_json;  // "" = none
};
int timing_fit_command(const TimingFitArgs& a);

struct TimingPredictArgs {
  TimingCommonArgs common;
  std::vector<int64_t> sizes;
  std::string fit = "assets/results/h200/timing_fit.json";     // the constants (timing-fit --json)
  std::string calibration = "assets/results/h200/bench.json";  // copy ceiling and device
  std::string out_json;  // "" = table on stdout only; else also <out without .json>.txt
};
int timing_predict_command(const TimingPredictArgs& a);

struct TimingCompareArgs {
  std::string predicted;  // timing-predict's JSON
  std::string bench;      // the bench run measured afterwards
  std::string fit;      // timing-fit's JSON, for the fit error beside the held-out one ("" = none)
  std::string out_txt;  // "" = stdout only
};
int timing_compare_command(const TimingCompareArgs& a);

}  // namespace bankscope
