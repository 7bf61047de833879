// bench_timing.cpp: see bench_timing.hpp.
#include "bench_timing.hpp"

#include <map>

#include "json_io.hpp"
#include "kernel_model.hpp"

namespace bankscope {

Result<uint64_t> scenario_wavefronts_per_block(const std::string& scenario_path) {
  auto spec = load_scenario_file(scenario_path);
  if (!spec) return spec.error();
  auto s = compile(*spec);
  if (!s) return with_context(scenario_path, s.error());
  auto t = launch_totals(*s);
  if (!t) return with_context(scenario_path, t.error());
  if (t->blocks == 0) return Error{scenario_path + ": the launch has no blocks"};
  return (t->ld.wavefronts + t->st.wavefronts) / t->blocks;
}

Result<std::vector<BenchPrediction>> predict_bench_rows(const std::vector<BenchMeasurement>& rows,
                                                        const std::string& scenario_dir, int sms,
                                                        double sm_clock_mhz) {
  std::vector<std::pair<uint64_t, double>> copies;
  for (const BenchMeasurement& r : rows) {
    if (r.kernel == "memcpy_d2d" && r.ms > 0) copies.push_back({transpose_dram_bytes(r.n, 4), r.ms});
  }
  const auto copy = fit_copy_ceiling(copies);
  if (!copy) return Error{"timing model: needs memcpy_d2d rows at two or more sizes to fit the copy ceiling"};
  DeviceThroughput dev;
  dev.sms = sms;
  dev.sm_clock_mhz = sm_clock_mhz;
  dev.dram_gbps = copy->gbps;
  dev.launch_overhead_us = copy->overhead_us;

  std::map<std::string, uint64_t> per_block;  // scenario -> shared wavefronts per block
  std::vector<BenchPrediction> out;
  for (const BenchMeasurement& r : rows) {
    if (r.ms <= 0) continue;
    uint64_t wf = 0;
    if (!r.scenario.empty()) {
      auto it = per_block.find(r.scenario);
      if (it == per_block.end()) {
        auto w = scenario_wavefronts_per_block(scenario_dir + "/" + r.scenario);
        if (!w) return w.error();
        it = per_block.emplace(r.scenario, *w).first;
      }
      wf = it->second;
    }
    const auto d = describe_bench_kernel(r.kernel, r.n, wf);
    if (!d) continue;
    BenchPrediction p{r, predict_time(d->work, dev, d->shape), 0.0};
    p.error = p.predicted.ms / r.ms - 1.0;
    out.push_back(p);
  }
  return out;
}

}  // namespace bankscope
