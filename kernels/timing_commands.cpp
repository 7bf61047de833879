// timing_commands.cpp: see timing_commands.hpp.
#include "timing_commands.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench_timing.hpp"
#include "resource_usage.hpp"
#include "sim/json_io.hpp"

#ifndef BANKSCOPE_SOURCE_DIR
#define BANKSCOPE_SOURCE_DIR "."
#endif

namespace bankscope {

namespace {

constexpr int kOk = 0, kRuntimeError = 1, kBadInput = 2;

using OJson = nlohmann::ordered_json;

// A path as given if it exists, else under the source directory (the device machine runs from a
// copy of the repository elsewhere), else as given (the error then names it).
std::string resolve(const std::string& p) {
  std::error_code ec;
  if (p.empty() || std::filesystem::exists(p, ec) || std::filesystem::path(p).is_absolute())
    return p;
  const std::string s = std::string(BANKSCOPE_SOURCE_DIR) + "/" + p;
  return std::filesystem::exists(s, ec) ? s : p;
}

std::string scenario_dir(const TimingCommonArgs& a) {
  return resolve(a.scenarios.empty() ? std::string("assets/scenarios") : a.scenarios);
}

int fail(const std::string& cmd, const std::string& msg, int code) {
  std::cerr << "bankscope-gpu " << cmd << ": " << msg << "\n";
  return code;
}

// The resource-usage file, or an error line saying why there is none.
Result<ResourceUsage> resources_of(const TimingCommonArgs& a) {
  const std::string path = a.resources.empty() ? default_resource_usage_path() : a.resources;
  if (path.empty())
    return Error{
        "no resource-usage file: cuobjdump was not found when this build was configured "
        "(install it, e.g. scripts/setup.sh, and re-run cmake), so registers are unknown and "
        "no offline prediction is made"};
  std::error_code ec;
  if (a.resources.empty() && !std::filesystem::exists(path, ec))
    return Error{
        path +
        ": not generated yet (build the target bench_resource_usage) or pass --resources FILE"};
  return load_resource_usage(path);
}

std::string pct(double e) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100.0 * e);
  return b;
}

std::string row_line(const BenchPrediction& p) {
  char b[256];
  std::snprintf(b, sizeof b, "%-24s %6lld %4d %5d %3d (%-13s) %-7s %10.4f", p.kernel.c_str(),
                (long long)p.n, p.compiled.regs_per_thread, p.compiled.static_smem_bytes,
                p.predicted.blocks_per_sm, p.predicted.occupancy_limiter.c_str(),
                p.predicted.bound.c_str(), p.predicted.ms);
  std::string s = b;
  if (p.measured_ms > 0) {
    std::snprintf(b, sizeof b, " %10.4f %8s", p.measured_ms, pct(p.error).c_str());
    s += b;
  }
  return s;
}

const char* kRowHeader =
    "kernel                        n regs  smem B/SM (limit)        bound    predicted   measured  "
    "  error";

std::string summary_line(const char* label, const std::vector<BenchPrediction>& rows) {
  const ErrorSummary s = summarize_errors(rows);
  char b[320];
  if (s.count == 0) {
    std::snprintf(b, sizeof b, "%s: no rows", label);
  } else {
    std::snprintf(b, sizeof b, "%s: %zu rows, RMS error %.1f%%, worst %s (%s at n = %lld)", label,
                  s.count, 100.0 * s.rms, pct(s.worst).c_str(), s.worst_kernel.c_str(),
                  (long long)s.worst_n);
  }
  return b;
}

OJson row_json(const BenchPrediction& p) {
  OJson r;
  r["kernel"] = p.kernel;
  r["n"] = p.n;
  r["regs"] = p.compiled.regs_per_thread;
  r["static_smem_bytes"] = p.compiled.static_smem_bytes;
  r["threads"] = p.description.shape.threads_per_block;
  r["blocks_per_sm"] = p.predicted.blocks_per_sm;
  r["occupancy_limiter"] = p.predicted.occupancy_limiter;
  r["bound"] = p.predicted.bound;
  r["predicted_ms"] = p.predicted.ms;
  if (p.measured_ms > 0) {
    r["measured_ms"] = p.measured_ms;
    r["error"] = p.error;
  }
  if (!p.description.note.empty()) r["note"] = p.description.note;
  return r;
}

bool write_or_complain(const std::string& cmd, const std::string& path, const std::string& text) {
  if (path.empty()) return true;
  auto saved = save_text_file_atomic(path, text);
  if (!saved) {
    std::cerr << "bankscope-gpu " << cmd << ": " << saved.error().message << "\n";
    return false;
  }
  std::cerr << "bankscope-gpu " << cmd << ": wrote " << path << "\n";
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] timing-fit

int timing_fit_command(const TimingFitArgs& a) {
  const char* cmd = "timing-fit";
  if (a.bench.empty()) return fail(cmd, "--bench FILE.json is required", kBadInput);
  auto run = load_bench_run(resolve(a.bench));
  if (!run) return fail(cmd, run.error().message, kBadInput);
  // A run that recorded its kernels' registers needs no resource-usage file; rows without them
  // are left out (and named) when there is none.
  auto res = resources_of(a.common);
  if (!res) std::cerr << "bankscope-gpu " << cmd << ": " << res.error().message << "\n";
  const ResourceUsage* offline = res ? &*res : nullptr;
  const std::string res_source = res ? res->source : std::string("none");
  ScenarioWavefronts wf(scenario_dir(a.common));
  const FitGrid grid;
  auto fit = fit_constants(*run, a.n, wf, offline, grid);
  if (!fit) return fail(cmd, fit.error().message, kBadInput);

  std::ostringstream t;
  char b[400];
  t << "bankscope-gpu timing-fit --bench " << a.bench << " --n " << a.n << "\n";
  std::snprintf(
      b, sizeof b,
      "copy ceiling: %.1f GB/s + %.2f us per launch (fit_copy_ceiling: the line through this "
      "run's memcpy_d2d rows, all its sizes)\n",
      fit->copy.gbps, fit->copy.overhead_us);
  t << b;
  t << "registers and static shared bytes: the run's own where recorded, else " << res_source
    << "\n";
  std::snprintf(
      b, sizeof b,
      "grid: latency %g..%g ns step %g, row-run overhead %g..%g B step %g, partial-line store "
      "%g..%g clk step %g (%llu points); objective: RMS of predicted/measured - 1 over the "
      "rows at n = %lld only\n",
      grid.latency_lo, grid.latency_hi, grid.latency_step, grid.segment_lo, grid.segment_hi,
      grid.segment_step, grid.partial_lo, grid.partial_hi, grid.partial_step,
      (unsigned long long)fit->points, (long long)a.n);
  t << b;
  const ModelConstants& c = fit->constants;
  std::snprintf(b, sizeof b,
                "fitted: latency %.0f ns, row-run overhead %.0f B, partial-line store %.1f clk\n",
                c.latency_ns, c.segment_overhead_bytes, c.partial_store_cycles);
  t << b;
  const bool same = std::fabs(c.latency_ns - kLatencyNs) < 1e-6 &&
                    std::fabs(c.segment_overhead_bytes - kSegmentOverheadBytes) < 1e-6 &&
                    std::fabs(c.partial_store_cycles - kPartialStoreCycles) < 1e-6;
  std::snprintf(b, sizeof b, "sim/timing_model.hpp's constants: %.0f ns / %.0f B / %.1f clk: %s\n",
                kLatencyNs, kSegmentOverheadBytes, kPartialStoreCycles,
                same ? "reproduced" : "NOT reproduced");
  t << b;
  for (const std::string& s : fit->skipped) t << "left out: " << s << "\n";
  t << "\n" << summary_line("fitted rows", fit->fitted) << "\n" << kRowHeader << "\n";
  for (const BenchPrediction& p : fit->fitted) t << row_line(p) << "\n";
  t << "\n"
    << summary_line(
           "in-sample run, other sizes (same file, not fitted; not held out: the copy ceiling "
           "uses their memcpy rows)",
           fit->other)
    << "\n"
    << kRowHeader << "\n";
  for (const BenchPrediction& p : fit->other) t << row_line(p) << "\n";
  std::cout << t.str();

  OJson j;
  j["tool"] = "bankscope-gpu timing-fit";
  j["bench"] = a.bench;
  j["n"] = a.n;
  j["constants"] = {{"latency_ns", c.latency_ns},
                    {"segment_overhead_bytes", c.segment_overhead_bytes},
                    {"partial_store_cycles", c.partial_store_cycles}};
  j["reproduces_compiled_constants"] = same;
  j["copy_ceiling"] = {{"gbps", fit->copy.gbps}, {"overhead_us", fit->copy.overhead_us}};
  j["grid_points"] = fit->points;
  j["resources"] = res_source;
  j["rms_fit"] = fit->rms_fit;
  j["rms_other_sizes_in_sample"] = fit->rms_other;
  OJson kernels = OJson::array();
  for (const BenchPrediction& p : fit->fitted) kernels.push_back(p.kernel);
  j["fitted_kernels"] = kernels;
  OJson rows = OJson::array(), other = OJson::array();
  for (const BenchPrediction& p : fit->fitted) rows.push_back(row_json(p));
  for (const BenchPrediction& p : fit->other) other.push_back(row_json(p));
  j["fitted_rows"] = rows;
  j["other_sizes_in_sample"] = other;
  if (!write_or_complain(cmd, a.out_txt, t.str())) return kRuntimeError;
  if (!write_or_complain(cmd, a.out_json, j.dump(2) + "\n")) return kRuntimeError;
  return kOk;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] timing-predict

int timing_predict_command(const TimingPredictArgs& a) {
  const char* cmd = "timing-predict";
  if (a.sizes.empty()) return fail(cmd, "--n: no sizes given", kBadInput);
  // Read everything before the resource file: bad input is reported as such.
  auto fit_text = read_text_file(resolve(a.fit));
  if (!fit_text) return fail(cmd, fit_text.error().message, kBadInput);
  ModelConstants c;
  std::set<std::string> fitted_kernels;
  int64_t fit_n = 0;
  try {
    const auto f = nlohmann::json::parse(*fit_text);
    const auto& k = f.at("constants");
    c = {k.at("latency_ns").get<double>(), k.at("segment_overhead_bytes").get<double>(),
         k.at("partial_store_cycles").get<double>()};
    for (const auto& name : f.at("fitted_kernels")) fitted_kernels.insert(name.get<std::string>());
    fit_n = f.at("n").get<int64_t>();
  } catch (const std::exception& e) {
    return fail(cmd, a.fit + ": not a timing-fit JSON (" + e.what() + ")", kBadInput);
  }
  auto cal = load_bench_run(resolve(a.calibration));
  if (!cal) return fail(cmd, cal.error().message, kBadInput);
  auto copy = copy_ceiling_of(*cal);
  if (!copy) return fail(cmd, copy.error().message, kBadInput);
  auto res = resources_of(a.common);
  if (!res) return fail(cmd, res.error().message, kRuntimeError);
  const DeviceThroughput dev = model_device(cal->sms, cal->sm_clock_mhz, *copy, c);
  ScenarioWavefronts wf(scenario_dir(a.common));

  std::vector<BenchPrediction> preds;
  std::vector<std::string> notes;
  for (const int64_t n : a.sizes) {
    for (const BenchKernel& k : bench_kernels()) {
      if (k.access == GlobalAccess::kNone) continue;
      if (n % k.n_multiple != 0) {
        notes.push_back(k.name + " n=" + std::to_string(n) + ": refused by the kernel (n % " +
                        std::to_string(k.n_multiple) + " != 0)");
        continue;
      }
      const auto facts = find_compiled(*res, k);
      if (!facts) {
        notes.push_back(k.name + ": " + k.symbol + " is not in " + res->source + ": not predicted");
        continue;
      }
      auto p = predict_bench_kernel(k, n, *facts, dev, wf);
      if (!p) return fail(cmd, p.error().message, kBadInput);
      if (!p->has_value()) continue;
      BenchPrediction b = **p;
      b.compiled_from = res->source;
      preds.push_back(b);
    }
  }

  std::ostringstream t;
  char b[400];
  t << "bankscope-gpu timing-predict: made before any measurement at these sizes\n";
  std::snprintf(b, sizeof b, "constants: %.0f ns / %.0f B / %.1f clk (%s, fitted at n = %lld)\n",
                c.latency_ns, c.segment_overhead_bytes, c.partial_store_cycles, a.fit.c_str(),
                (long long)fit_n);
  t << b;
  std::snprintf(
      b, sizeof b,
      "copy ceiling: %.1f GB/s + %.2f us (%s memcpy_d2d rows); device: %d SMs at %.0f MHz\n",
      copy->gbps, copy->overhead_us, a.calibration.c_str(), cal->sms, cal->sm_clock_mhz);
  t << b;
  t << "registers and static shared bytes: " << res->source << "\n";
  for (const std::string& s : notes) t << "left out: " << s << "\n";
  t << "\nkernel                        n regs  smem B/SM (limit)        bound    predicted  in "
       "fit\n";
  for (const BenchPrediction& p : preds)
    t << row_line(p) << "  " << (fitted_kernels.count(p.kernel) ? "yes" : "no (new kernel)")
      << "\n";
  std::cout << t.str();

  OJson j;
  j["tool"] = "bankscope-gpu timing-predict";
  j["made_before_measurement"] = true;
  j["constants"] = {{"latency_ns", c.latency_ns},
                    {"segment_overhead_bytes", c.segment_overhead_bytes},
                    {"partial_store_cycles", c.partial_store_cycles},
                    {"from", a.fit},
                    {"fitted_at_n", fit_n}};
  j["copy_ceiling"] = {
      {"gbps", copy->gbps}, {"overhead_us", copy->overhead_us}, {"from", a.calibration}};
  j["device"] = {{"sms", cal->sms}, {"sm_clock_mhz", cal->sm_clock_mhz}, {"from", a.calibration}};
  j["resources"] = res->source;
  OJson rows = OJson::array();
  for (const BenchPrediction& p : preds) {
    OJson r = row_json(p);
    r["in_fit"] = fitted_kernels.count(p.kernel) > 0;
    rows.push_back(r);
  }
  j["rows"] = rows;
  if (!a.out_json.empty()) {
    std::string txt = a.out_json;
    if (txt.size() > 5 && txt.compare(txt.size() - 5, 5, ".json") == 0) txt.resize(txt.size() - 5);
    if (!write_or_complain(cmd, a.out_json, j.dump(2) + "\n")) return kRuntimeError;
    if (!write_or_complain(cmd, txt + ".txt", t.str())) return kRuntimeError;
  }
  return kOk;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] timing-compare

int timing_compare_command(const TimingCompareArgs& a) {
  const char* cmd = "timing-compare";
  if (a.predicted.empty() || a.bench.empty())
    return fail(cmd, "--predicted and --bench are required", kBadInput);
  auto ptext = read_text_file(resolve(a.predicted));
  if (!ptext) return fail(cmd, ptext.error().message, kBadInput);
  auto run = load_bench_run(resolve(a.bench));
  if (!run) return fail(cmd, run.error().message, kBadInput);
  std::map<std::pair<std::string, int64_t>, const BenchMeasurement*> measured;
  for (const BenchMeasurement& m : run->rows)
    if (m.ms > 0) measured[{m.kernel, m.n}] = &m;

  std::vector<BenchPrediction> in_fit, new_kernels, all;
  std::vector<std::string> missing, recompiled;
  try {
    const auto p = nlohmann::json::parse(*ptext);
    for (const auto& r : p.at("rows")) {
      BenchPrediction b;
      b.kernel = r.at("kernel").get<std::string>();
      b.n = r.at("n").get<int64_t>();
      b.predicted.ms = r.at("predicted_ms").get<double>();
      b.predicted.bound = r.value("bound", "");
      b.predicted.blocks_per_sm = r.value("blocks_per_sm", 0);
      b.predicted.occupancy_limiter = r.value("occupancy_limiter", "");
      b.compiled.regs_per_thread = r.value("regs", 0);
      b.compiled.static_smem_bytes = r.value("static_smem_bytes", 0);
      const auto it = measured.find({b.kernel, b.n});
      if (it == measured.end()) {
        missing.push_back(b.kernel + " n=" + std::to_string(b.n));
        continue;
      }
      b.measured_ms = it->second->ms;
      // The run records what it launched: a kernel compiled differently since the prediction
      // (registers or shared bytes) is named, its row still compared.
      const CompiledFacts& ran = it->second->compiled;
      if (ran.regs_per_thread > 0 && (ran.regs_per_thread != b.compiled.regs_per_thread ||
                                      ran.static_smem_bytes != b.compiled.static_smem_bytes)) {
        recompiled.push_back(b.kernel + " n=" + std::to_string(b.n) + ": predicted with " +
                             std::to_string(b.compiled.regs_per_thread) + " regs / " +
                             std::to_string(b.compiled.static_smem_bytes) + " B, the run had " +
                             std::to_string(ran.regs_per_thread) + " / " +
                             std::to_string(ran.static_smem_bytes));
      }
      b.error = b.predicted.ms / b.measured_ms - 1.0;
      (r.value("in_fit", false) ? in_fit : new_kernels).push_back(b);
      all.push_back(b);
    }
  } catch (const std::exception& e) {
    return fail(cmd, a.predicted + ": not a timing-predict JSON (" + e.what() + ")", kBadInput);
  }

  std::ostringstream t;
  t << "bankscope-gpu timing-compare --predicted " << a.predicted << " --bench " << a.bench << "\n";
  if (!a.fit.empty()) {
    auto ftext = read_text_file(resolve(a.fit));
    if (!ftext) return fail(cmd, ftext.error().message, kBadInput);
    try {
      const auto f = nlohmann::json::parse(*ftext);
      char b[300];
      std::snprintf(b, sizeof b,
                    "fit error (in sample: the rows the constants were fitted on, %s at n = %lld): "
                    "RMS %.1f%% "
                    "over %zu rows\n",
                    f.at("bench").get<std::string>().c_str(), (long long)f.at("n").get<int64_t>(),
                    100.0 * f.at("rms_fit").get<double>(), f.at("fitted_rows").size());
      t << b;
    } catch (const std::exception& e) {
      return fail(cmd, a.fit + ": not a timing-fit JSON (" + e.what() + ")", kBadInput);
    }
  }
  t << summary_line("held-out error, all predicted rows", all) << "\n";
  t << summary_line("  kernels in the fit, sizes it never saw", in_fit) << "\n";
  t << summary_line("  kernels not in the fit", new_kernels) << "\n";
  for (const std::string& m : missing) t << "not measured: " << m << "\n";
  for (const std::string& m : recompiled) t << "compiled differently: " << m << "\n";
  t << "\n" << kRowHeader << "\n";
  for (const BenchPrediction& p : all) t << row_line(p) << "\n";
  std::cout << t.str();
  if (!write_or_complain(cmd, a.out_txt, t.str())) return kRuntimeError;
  return kOk;
}

}  // namespace bankscope
