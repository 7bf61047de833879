// bankscope_gpu.cpp: `bankscope-gpu`, the command that checks bankscope's predictions on a GPU.
//
//   bankscope-gpu info
//   bankscope-gpu validate [--scenario FILE ...] [--n 32,33,100,...] [--stride 34,36,...] [--json out.json]
//                          [--runs 30] [--ncu auto|none|PATH] [--ncu-log FILE]
//                          [--counters cupti|ncu] [--strict] [--dry-run]
//   bankscope-gpu patterns --jsonl FILE|- [--out FILE] [--clock64]
//   bankscope-gpu bench [--n ...] [--json F] [--svg F]
//   bankscope-gpu timing-fit --bench FILE.json --n 8192 [--out F.txt] [--json F.json]   (no GPU)
//   bankscope-gpu timing-predict --n 6144,12288 [--out F.json]                          (no GPU)
//   bankscope-gpu timing-compare --predicted P.json --bench B.json [--fit F.json]       (no GPU)
//   bankscope-gpu realworld --bin DIR [--sizes FILE] [--only NAME] [--dry-run]  (ncu; --dry-run: no GPU)
//
// Exit codes (harness.hpp): 0 ok, 1 runtime error, 2 bad input, 3 no CUDA device, 4 a kernel wrote
// wrong output, 5 (--strict) a measured count contradicts the model.
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "bench.hpp"
#include "cuda_check.hpp"
#include "harness.hpp"
#include "ncu_runner.hpp"
#include "timing_commands.hpp"
#include "realworld_command.hpp"
#include "tracer/trace_command.hpp"

namespace {

using namespace bankscope;

#ifndef BANKSCOPE_ASSETS_DIR
#define BANKSCOPE_ASSETS_DIR "assets"
#endif

// "2048,8192" -> {2048, 8192}; errors name the bad item.
Result<std::vector<int64_t>> parse_sizes(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || end == nullptr || *end != '\0' || v < 1 || v > 32768) {
      return Error{"--n: \"" + item + "\" is not a matrix size between 1 and 32768"};
    }
    out.push_back(v);
  }
  if (out.empty()) return Error{"--n: no sizes given"};
  return out;
}

// Every assets/scenarios/*.json, looked up from the working directory first (the device machine
// runs from a copy of the repository at another path), then where the build was configured.
std::vector<std::string> default_scenarios() {
  namespace fs = std::filesystem;
  for (const fs::path& dir : {fs::path("assets/scenarios"), fs::path(BANKSCOPE_ASSETS_DIR) / "scenarios"}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    if (!files.empty()) return files;
  }
  return {};
}

std::string self_exe() {
  char buf[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string("bankscope-gpu");
}

std::string join_sizes(const std::vector<int64_t>& ns) {
  std::string s;
  for (int64_t n : ns) s += (s.empty() ? "" : ",") + std::to_string(n);
  return s;
}

int no_device(const std::string& why) {
  std::cerr << "bankscope-gpu: " << why
            << ": bankscope-gpu needs an NVIDIA GPU and its driver (nvidia-smi lists the GPU); bankscope-cli predicts without one\n";
  return kExitNoDevice;
}

int cmd_info() {
  std::string why;
  if (!cuda_device_available(&why)) return no_device(why);
  const DeviceInfo d = query_device_info();
  std::cout << "device: " << d.name << "\nsm: " << d.sm << "\nsms: " << d.sms << "\nsm_clock_mhz (max): "
            << d.sm_clock_mhz << "\nsm_clock_mhz (now): " << d.sm_clock_now_mhz << "\nmem_clock_mhz: "
            << d.mem_clock_mhz << "\ndriver: " << d.driver << "\ncuda_runtime: " << d.cuda_runtime
            << "\ncuda_driver: " << d.cuda_driver << "\nncu: " << (find_ncu().empty() ? "not found" : find_ncu())
            << "\n";
  return kExitOk;
}

// The default sizes: multiples of 32 (every guard true) and the edges where some warps' lanes all
// fail a guard, which is where predicated and branched accesses count differently (issue 16).
struct JobArgs {
  std::vector<std::string> scenarios;
  std::string sizes = "32,33,100,2047,2048,8191,8192,16384";
  std::string strides;  // row strides for dynamic_stride scenarios, comma-separated; "" = the file's
};

Result<std::vector<TransposeJob>> jobs_from(JobArgs& a, std::vector<int64_t>* ns, bool quiet) {
  Result<std::vector<int64_t>> sizes = parse_sizes(a.sizes);
  if (!sizes) return sizes.error();
  *ns = sizes.value();
  if (a.scenarios.empty()) a.scenarios = default_scenarios();
  if (a.scenarios.empty()) return Error{"no scenarios: pass --scenario FILE or run from the repository root"};
  std::vector<int64_t> strides;
  if (!a.strides.empty()) {
    std::stringstream ss(a.strides);
    std::string item;
    while (std::getline(ss, item, ',')) {
      char* end = nullptr;
      const long long v = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || end == nullptr || *end != '\0' || v < 1 || v > 4096) {
        return Error{"--stride: \"" + item + "\" is not a row stride between 1 and 4096"};
      }
      strides.push_back(v);
    }
  }
  std::vector<std::string> notes;
  Result<std::vector<TransposeJob>> jobs = plan_jobs(a.scenarios, *ns, &notes, strides);
  if (!quiet)
    for (const std::string& n : notes) std::cerr << "bankscope-gpu: " << n << "\n";
  return jobs;
}

int cmd_validate(JobArgs& a, const std::string& json_out, int runs, const std::string& ncu_opt,
                 const std::string& ncu_log, const std::string& counters, bool strict, bool dry_run) {
  std::vector<int64_t> ns;
  Result<std::vector<TransposeJob>> jobs = jobs_from(a, &ns, false);
  if (!jobs) {
    std::cerr << "bankscope-gpu: " << jobs.error().message << "\n";
    return kExitUsage;
  }
  if (dry_run) {  // the plan and the model's numbers, no GPU needed
    for (const TransposeJob& j : jobs.value()) {
      std::printf("%-28s n=%-6lld %-34s ld %llu wf (%llu instr)  st %llu wf (%llu instr)\n", j.name.c_str(),
                  (long long)j.n, j.plan.symbol.c_str(), (unsigned long long)j.predicted.ld.wavefronts,
                  (unsigned long long)j.predicted.ld.instructions, (unsigned long long)j.predicted.st.wavefronts,
                  (unsigned long long)j.predicted.st.instructions);
    }
    return kExitOk;
  }
  std::string why;
  if (!cuda_device_available(&why)) return no_device(why);

  ValidateOptions opt;
  opt.runs = runs;
  opt.ncu = ncu_opt == "none" ? "" : ncu_opt == "auto" ? find_ncu() : ncu_opt;
  opt.self_exe = self_exe();
  opt.ncu_only = counters == "ncu";
  if (opt.ncu_only && opt.ncu.empty()) {
    std::cerr << "bankscope-gpu: --counters ncu: ncu not found (pass --ncu PATH)\n";
    return kExitUsage;
  }
  for (const std::string& s : a.scenarios) {
    opt.child_args.push_back("--scenario");
    opt.child_args.push_back(std::filesystem::absolute(s).string());
  }
  opt.child_args.push_back("--n");
  opt.child_args.push_back(join_sizes(ns));
  if (!a.strides.empty()) {
    opt.child_args.push_back("--stride");
    opt.child_args.push_back(a.strides);
  }
  std::cerr << "bankscope-gpu: " << jobs.value().size() << " kernels x sizes to validate\n";
  ValidateOutcome out = run_validate(jobs.value(), opt);
  std::cout << format_table(out.results);
  if (!ncu_log.empty() && !out.ncu_log.empty()) {
    std::ofstream(ncu_log) << out.ncu_log;
  }
  if (!json_out.empty()) {
    Result<bool> saved = save_text_file_atomic(json_out, gpu_results_to_json(out.results));
    if (!saved) {
      std::cerr << "bankscope-gpu: " << saved.error().message << "\n";
      return kExitError;
    }
    std::cerr << "bankscope-gpu: wrote " << json_out << "\n";
  }
  std::cout << "\n" << out.results.kernels.size() << " rows, " << out.wrong_outputs << " wrong outputs, "
            << out.mismatches << " mismatches\n";
  if (out.wrong_outputs > 0) return kExitWrongOutput;
  if (strict && out.mismatches > 0) return kExitMismatch;
  return kExitOk;
}

int cmd_run_jobs(JobArgs& a) {
  std::vector<int64_t> ns;
  Result<std::vector<TransposeJob>> jobs = jobs_from(a, &ns, true);
  if (!jobs) {
    std::cerr << "bankscope-gpu: " << jobs.error().message << "\n";
    return kExitUsage;
  }
  std::string why;
  if (!cuda_device_available(&why)) return no_device(why);
  run_jobs_once(jobs.value());
  return kExitOk;
}

int cmd_patterns(const std::string& jsonl, const std::string& out_path, bool clock64,
                 const std::vector<std::string>& extra_metrics) {
  std::string text;
  if (jsonl == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    Result<std::string> r = read_text_file(jsonl);
    if (!r) {
      std::cerr << "bankscope-gpu: " << r.error().message << "\n";
      return kExitUsage;
    }
    text = r.value();
  }
  // Parse everything first: a bad line stops the run before any GPU time is spent.
  std::vector<Pattern> patterns;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  const std::string where = jsonl == "-" ? "<stdin>" : jsonl;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Result<Pattern> p = parse_pattern_line(line);
    if (!p) {
      std::cerr << "bankscope-gpu: " << where << ":" << line_no << ": " << p.error().message << "\n";
      return kExitUsage;
    }
    Result<WarpAccess> v = validate(p.value().access, BankConfig{});
    if (!v) {
      std::cerr << "bankscope-gpu: " << where << ":" << line_no << ": " << v.error().message << "\n";
      return kExitUsage;
    }
    patterns.push_back(std::move(p.value()));
  }
  std::string why;
  if (!cuda_device_available(&why)) return no_device(why);
  PatternOptions opt;
  opt.clock64 = clock64;
  opt.extra_metrics = extra_metrics;
  std::string note;
  const std::vector<nlohmann::ordered_json> rows = run_patterns(patterns, opt, &note);
  std::string body;
  for (const auto& j : rows) body += j.dump() + "\n";
  std::cerr << "bankscope-gpu: " << rows.size() << " patterns measured; " << note << "\n";
  if (out_path.empty()) {
    std::cout << body;
  } else {
    Result<bool> saved = save_text_file_atomic(out_path, body);
    if (!saved) {
      std::cerr << "bankscope-gpu: " << saved.error().message << "\n";
      return kExitError;
    }
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bankscope-gpu: run bankscope's kernels on the GPU and set measurements beside the model"};
  app.require_subcommand(1);

  app.add_subcommand("info", "print the device, clocks, driver and CUDA versions");

  JobArgs vargs;
  std::string json_out, ncu_opt = "auto", ncu_log, counters = "cupti";
  int runs = 30;
  bool strict = false, dry_run = false;
  CLI::App* validate_cmd = app.add_subcommand("validate", "check, time and count every scenario's kernel");
  validate_cmd->add_option("--scenario", vargs.scenarios, "scenario file(s); default assets/scenarios/*.json");
  validate_cmd->add_option("--n", vargs.sizes, "matrix sizes, comma-separated")->capture_default_str();
  validate_cmd->add_option("--stride", vargs.strides,
                           "row strides to run dynamic_stride scenarios at, comma-separated (default: the file's)");
  validate_cmd->add_option("--json", json_out, "write the results JSON here");
  validate_cmd->add_option("--runs", runs, "timed runs per kernel (median)")->check(CLI::Range(1, 10000))->capture_default_str();
  validate_cmd->add_option("--ncu", ncu_opt, "ncu for the SASS-exact metric: auto, none or a path")->capture_default_str();
  validate_cmd->add_option("--ncu-log", ncu_log, "write ncu's raw CSV output here");
  validate_cmd->add_option("--counters", counters, "cupti (in process, SASS metric from ncu if CUPTI lacks it) or ncu (all from ncu)")
      ->check(CLI::IsMember({"cupti", "ncu"}))->capture_default_str();
  validate_cmd->add_flag("--strict", strict, "exit 5 when a measured count contradicts the model");
  validate_cmd->add_flag("--dry-run", dry_run, "print the kernels and the model's counts; no GPU needed");

  std::string jsonl, out_path;
  bool clock64 = false;
  CLI::App* patterns_cmd = app.add_subcommand("patterns", "measure JSONL warp patterns (one launch each)");
  patterns_cmd->add_option("--jsonl", jsonl, "pattern file, or - for standard input")->required();
  patterns_cmd->add_option("--out", out_path, "write the JSONL here instead of standard output");
  patterns_cmd->add_flag("--clock64", clock64, "also measure cycles per instruction with clock64");
  std::vector<std::string> extra_metrics;
  patterns_cmd
      ->add_option("--extra-metrics", extra_metrics,
                   "more CUPTI metrics (comma-separated, e.g. l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum) "
                   "for any kind; every collected counter is then reported under \"counters\"; dropped if refused")
      ->delimiter(',');

  BenchOptions bench_opt;
  // Issue 15: the whole sizes and the odd ones (not multiples of the tile, of 4, or of 2).
  std::string bench_sizes = "4096,4100,8191,8192,12345,16383,16384";
  bool bench_list = false;
  CLI::App* bench_cmd = app.add_subcommand("bench", "time every transpose beside cudaMemcpy and cuBLAS; table, JSON, SVG");
  bench_cmd->add_option("--n", bench_sizes, "matrix sizes, comma-separated")->capture_default_str();
  bench_cmd->add_option("--json", bench_opt.json_path, "write the results JSON here");
  bench_cmd->add_option("--svg", bench_opt.svg_path, "draw the bar chart here (needs --json and python3)");
  bench_cmd->add_option("--runs", bench_opt.runs, "timed runs per kernel (median)")->check(CLI::Range(1, 10000))->capture_default_str();
  bench_cmd->add_option("--warmup", bench_opt.warmup, "untimed runs first")->check(CLI::Range(0, 1000))->capture_default_str();
  bench_cmd->add_option("--only", bench_opt.only, "only kernels whose name contains this (memcpy_d2d and cublas_sgeam always run)");
  bench_cmd->add_option("--exclude", bench_opt.exclude, "leave out kernels whose name contains this");
  bench_cmd->add_flag("--list", bench_list, "print the kernel names and exit; no GPU needed");

  // The timing model's host-only commands (timing_commands.hpp): they never touch the CUDA runtime.
  TimingFitArgs fit_args;
  CLI::App* fit_cmd = app.add_subcommand("timing-fit", "fit the timing model's three constants on one size of a bench run (no GPU)");
  fit_cmd->add_option("--bench", fit_args.bench, "the calibration run (bankscope-gpu bench --json)")->required();
  fit_cmd->add_option("--n", fit_args.n, "the size whose rows are fitted")->capture_default_str();
  fit_cmd->add_option("--out", fit_args.out_txt, "write the fit as text here");
  fit_cmd->add_option("--json", fit_args.out_json, "write the fit as JSON here (timing-predict --fit reads it)");
  fit_cmd->add_option("--resources", fit_args.common.resources, "cuobjdump --dump-resource-usage output (default: the build's)");
  fit_cmd->add_option("--scenarios", fit_args.common.scenarios, "scenario directory (default assets/scenarios)");

  TimingPredictArgs predict_args;
  std::string predict_sizes;
  CLI::App* predict_cmd = app.add_subcommand("timing-predict", "predict every bench kernel the model describes at these sizes (no GPU)");
  predict_cmd->add_option("--n", predict_sizes, "matrix sizes, comma-separated")->required();
  predict_cmd->add_option("--out", predict_args.out_json, "write the predictions here (JSON, and the table beside it as .txt)");
  predict_cmd->add_option("--fit", predict_args.fit, "the constants (timing-fit --json)")->capture_default_str();
  predict_cmd->add_option("--calibration", predict_args.calibration, "bench run whose memcpy rows give the copy ceiling")->capture_default_str();
  predict_cmd->add_option("--resources", predict_args.common.resources, "cuobjdump --dump-resource-usage output (default: the build's)");
  predict_cmd->add_option("--scenarios", predict_args.common.scenarios, "scenario directory (default assets/scenarios)");

  TimingCompareArgs compare_args;
  CLI::App* compare_cmd = app.add_subcommand("timing-compare", "held-out error of committed predictions against a later bench run (no GPU)");
  compare_cmd->add_option("--predicted", compare_args.predicted, "timing-predict's JSON")->required();
  compare_cmd->add_option("--bench", compare_args.bench, "the bench run measured afterwards")->required();
  compare_cmd->add_option("--fit", compare_args.fit, "timing-fit's JSON: prints the fit error beside the held-out one");
  compare_cmd->add_option("--out", compare_args.out_txt, "write the comparison here");

  JobArgs rargs;
  CLI::App* run_jobs_cmd = app.add_subcommand("run-jobs", "");  // hidden: what ncu profiles
  run_jobs_cmd->group("");
  run_jobs_cmd->add_option("--scenario", rargs.scenarios);
  run_jobs_cmd->add_option("--n", rargs.sizes);
  run_jobs_cmd->add_option("--stride", rargs.strides);

  TraceArgs targs;
  CLI::App* trace_cmd = add_trace_command(app, targs);
  RealworldArgs rw_args;
  CLI::App* realworld_cmd = add_realworld_command(app, rw_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  try {
    // First: the host-only commands, before anything could consult the CUDA runtime.
    if (fit_cmd->parsed()) return timing_fit_command(fit_args);
    if (predict_cmd->parsed()) {
      Result<std::vector<int64_t>> sizes = parse_sizes(predict_sizes);
      if (!sizes) {
        std::cerr << "bankscope-gpu: " << sizes.error().message << "\n";
        return kExitUsage;
      }
      predict_args.sizes = sizes.value();
      return timing_predict_command(predict_args);
    }
    if (compare_cmd->parsed()) return timing_compare_command(compare_args);
    if (app.got_subcommand("info")) return cmd_info();
    if (validate_cmd->parsed()) return cmd_validate(vargs, json_out, runs, ncu_opt, ncu_log, counters, strict, dry_run);
    if (patterns_cmd->parsed()) return cmd_patterns(jsonl, out_path, clock64, extra_metrics);
    if (run_jobs_cmd->parsed()) return cmd_run_jobs(rargs);
    if (trace_cmd->parsed()) return run_trace(targs);
    if (realworld_cmd->parsed()) return run_realworld(rw_args);
    if (bench_cmd->parsed()) {
      if (bench_list) {
        for (const std::string& name : bench_kernel_names()) std::cout << name << "\n";
        return kExitOk;
      }
      Result<std::vector<int64_t>> sizes = parse_sizes(bench_sizes);
      if (!sizes) {
        std::cerr << "bankscope-gpu: " << sizes.error().message << "\n";
        return kExitUsage;
      }
      bench_opt.sizes = sizes.value();
      return run_bench(bench_opt);
    }
  } catch (const CudaError& e) {
    std::cerr << "bankscope-gpu: CUDA error: " << e.what() << "\n";
    return kExitError;
  } catch (const std::exception& e) {
    std::cerr << "bankscope-gpu: " << e.what() << "\n";
    return kExitError;
  }
  return kExitUsage;
}
