// bench_timing.cpp: see bench_timing.hpp.
#include "bench_timing.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"

namespace bankscope {

Result<BenchRun> load_bench_run(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  BenchRun run;
  run.path = path;
  try {
    const auto j = nlohmann::json::parse(*text);
    const auto& dev = j.at("device");
    run.sms = dev.at("sms").get<int>();
    run.sm_clock_mhz = dev.at("sm_clock_mhz").get<double>();
    for (const auto& r : j.at("rows")) {
      BenchMeasurement m;
      m.kernel = r.at("kernel").get<std::string>();
      m.n = r.at("n").get<int64_t>();
      const bool ran = !r.contains("skipped") && r.value("correct", false);
      m.ms = ran ? r.at("ms_median").get<double>() : 0.0;
      m.compiled.regs_per_thread = r.value("regs", 0);
      m.compiled.static_smem_bytes = r.value("static_smem_bytes", 0);
      m.compiled.dynamic_smem_bytes = r.value("dynamic_smem_bytes", 0);
      run.rows.push_back(m);
    }
  } catch (const std::exception& e) {
    return Error{path + ": not a bankscope-gpu bench JSON (" + e.what() + ")"};
  }
  if (run.sms <= 0 || run.sm_clock_mhz <= 0)
    return Error{path + ": device.sms or device.sm_clock_mhz missing"};
  return run;
}

Result<CopyCeiling> copy_ceiling_of(const BenchRun& run) {
  std::vector<std::pair<uint64_t, double>> copies;
  for (const BenchMeasurement& r : run.rows)  // cudaMemcpy moves n x n fp32 (the bench's words)
    if (r.kernel == "memcpy_d2d" && r.ms > 0)
      copies.push_back({transpose_dram_bytes(r.n, 4), r.ms});
  const auto c = fit_copy_ceiling(copies);
  if (!c)
    return Error{run.path + ": needs memcpy_d2d rows at two or more sizes to fit the copy ceiling"};
  return *c;
}

DeviceThroughput model_device(int sms, double sm_clock_mhz, const CopyCeiling& copy,
                              const ModelConstants& c) {
  DeviceThroughput d;
  d.sms = sms;
  d.sm_clock_mhz = sm_clock_mhz;
  d.dram_gbps = copy.gbps;
  d.launch_overhead_us = copy.overhead_us;
  d.memory_latency_ns = c.latency_ns;
  d.segment_overhead_bytes = c.segment_overhead_bytes;
  d.partial_store_cycles = c.partial_store_cycles;
  return d;
}

Result<uint64_t> ScenarioWavefronts::per_block(const std::string& scenario) {
  if (scenario.empty()) return uint64_t{0};
  if (const auto it = cache_.find(scenario); it != cache_.end()) return it->second;
  const std::string path = dir_ + "/" + scenario;
  auto spec = load_scenario_file(path);
  if (!spec) return spec.error();
  auto s = compile(*spec);
  if (!s) return with_context(path, s.error());
  auto t = launch_totals(*s);
  if (!t) return with_context(path, t.error());
  if (t->blocks == 0) return Error{path + ": the launch has no blocks"};
  const uint64_t wf = (t->ld.wavefronts + t->st.wavefronts) / t->blocks;
  cache_.emplace(scenario, wf);
  return wf;
}

Result<std::optional<BenchPrediction>> predict_bench_kernel(const BenchKernel& k, int64_t n,
                                                            const CompiledFacts& compiled,
                                                            const DeviceThroughput& dev,
                                                            ScenarioWavefronts& wavefronts) {
  if (k.access == GlobalAccess::kNone) return std::optional<BenchPrediction>{};
  auto wf = wavefronts.per_block(k.scenario);
  if (!wf) return wf.error();
  auto d = describe_bench_kernel(k, n, *wf, compiled);
  if (!d) return std::optional<BenchPrediction>{};
  BenchPrediction p;
  p.kernel = k.name;
  p.n = n;
  p.compiled = compiled;
  p.description = *d;
  p.predicted = predict_time(d->work, dev, d->shape);
  return std::optional<BenchPrediction>{p};
}

Result<std::vector<BenchPrediction>> predict_bench_rows(const std::vector<BenchMeasurement>& rows,
                                                        const DeviceThroughput& dev,
                                                        ScenarioWavefronts& wavefronts,
                                                        const ResourceUsage* offline,
                                                        std::vector<std::string>* skipped) {
  std::vector<BenchPrediction> out;
  for (const BenchMeasurement& r : rows) {
    if (r.ms <= 0) continue;
    const BenchKernel* k = find_bench_kernel(r.kernel);
    if (k == nullptr || k->access == GlobalAccess::kNone) continue;  // cuBLAS, cudaMemcpy, unknown
    CompiledFacts facts = r.compiled;
    std::string from = "run";
    if (facts.regs_per_thread <= 0) {
      const auto f = offline ? find_compiled(*offline, *k) : std::nullopt;
      if (!f) {
        if (skipped)
          skipped->push_back(
              r.kernel + " n=" + std::to_string(r.n) + ": registers unknown (not in the run" +
              (offline ? std::string(", not in ") + offline->source : std::string()) + ")");
        continue;
      }
      facts = *f;
      from = offline->source;
    }
    auto p = predict_bench_kernel(*k, r.n, facts, dev, wavefronts);
    if (!p) return p.error();
    if (!p->has_value()) continue;
    BenchPrediction b = **p;
    b.compiled_from = from;
    b.measured_ms = r.ms;
    b.error = b.predicted.ms / r.ms - 1.0;
    out.push_back(b);
  }
  return out;
}

ErrorSummary summarize_errors(const std::vector<BenchPrediction>& rows) {
  ErrorSummary s;
  double sq = 0.0;
  for (const BenchPrediction& p : rows) {
    if (p.measured_ms <= 0) continue;
    ++s.count;
    sq += p.error * p.error;
    if (s.worst_kernel.empty() || std::fabs(p.error) > std::fabs(s.worst)) {
      s.worst = p.error;
      s.worst_kernel = p.kernel;
      s.worst_n = p.n;
    }
  }
  s.rms = s.count ? std::sqrt(sq / double(s.count)) : 0.0;
  return s;
}

namespace {

// Inclusive grid values lo, lo + step, ..., hi (computed by index, so no drift).
std::vector<double> axis(double lo, double hi, double step) {
  std::vector<double> v;
  if (step <= 0 || hi < lo) return {lo};
  const int count = int(std::floor((hi - lo) / step + 1e-9)) + 1;
  for (int i = 0; i < count; ++i)
    v.push_back(std::round((lo + step * i) * 1e9) / 1e9);  // 3.8, not 3.8000000000000003
  return v;
}

}  // namespace

Result<FitResult> fit_constants(const BenchRun& run, int64_t n, ScenarioWavefronts& wavefronts,
                                const ResourceUsage* offline, const FitGrid& grid) {
  auto copy = copy_ceiling_of(run);
  if (!copy) return copy.error();
  FitResult fit;
  fit.n = n;
  fit.copy = *copy;
  std::vector<BenchMeasurement> at_n, others;
  for (const BenchMeasurement& r : run.rows) (r.n == n ? at_n : others).push_back(r);

  // The descriptions do not depend on the constants: make them once, then only predict_time runs
  // per grid point.
  auto base = predict_bench_rows(at_n, model_device(run.sms, run.sm_clock_mhz, *copy, {}),
                                 wavefronts, offline, &fit.skipped);
  if (!base) return base.error();
  if (base->empty())
    return Error{run.path + ": no described kernel measured at n = " + std::to_string(n) +
                 (fit.skipped.empty() ? std::string()
                                      : " with known registers (" + fit.skipped.front() + ")")};

  const std::vector<double> lat = axis(grid.latency_lo, grid.latency_hi, grid.latency_step);
  const std::vector<double> seg = axis(grid.segment_lo, grid.segment_hi, grid.segment_step);
  const std::vector<double> par = axis(grid.partial_lo, grid.partial_hi, grid.partial_step);
  double best = -1.0;
  for (const double l : lat) {
    for (const double s : seg) {
      for (const double q : par) {
        const DeviceThroughput dev = model_device(run.sms, run.sm_clock_mhz, *copy, {l, s, q});
        double sq = 0.0;
        for (const BenchPrediction& p : *base) {
          const double e =
              predict_time(p.description.work, dev, p.description.shape).ms / p.measured_ms - 1.0;
          sq += e * e;
        }
        ++fit.points;
        if (best < 0.0 || sq < best) {
          best = sq;
          fit.constants = {l, s, q};
        }
      }
    }
  }
  const DeviceThroughput dev = model_device(run.sms, run.sm_clock_mhz, *copy, fit.constants);
  auto fitted = predict_bench_rows(at_n, dev, wavefronts, offline, nullptr);
  if (!fitted) return fitted.error();
  fit.fitted = *fitted;
  fit.rms_fit = summarize_errors(fit.fitted).rms;
  auto other = predict_bench_rows(others, dev, wavefronts, offline, &fit.skipped);
  if (!other) return other.error();
  fit.other = *other;
  fit.rms_other = summarize_errors(fit.other).rms;
  return fit;
}

}  // namespace bankscope
