// harness.cpp: validate (transposes: correctness, timing, counters beside the model) and patterns
// (one warp instruction per launch). See harness.hpp.
//
// [SECTION] Device      what the device is (name, clocks, driver) for every result
// [SECTION] Jobs        scenario files -> model predictions + kernel plans
// [SECTION] Buffers     RAII device memory, events, medians
// [SECTION] Validate    check, time, count, compare
// [SECTION] Table       the printed comparison
// [SECTION] Patterns    single-warp launches with counters or the clock64 fallback
#include "harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <dlfcn.h>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <cuda_runtime_api.h>

#include "counters.hpp"
#include "cuda_check.hpp"
#include "fill_pattern.hpp"
#include "bench_kernels.hpp"
#include "ncu_runner.hpp"
#include "resource_usage.hpp"
#include "sim/timing_model.hpp"

namespace bankscope {

// ---------------------------------------------------------------------------------------------
// [SECTION] Device
// ---------------------------------------------------------------------------------------------

bool cuda_device_available(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    *why = std::string("no CUDA device available (cudaGetDeviceCount: ") + cudaGetErrorName(e) + ")";
    return false;
  }
  if (count == 0) {
    *why = "no CUDA device available (cudaGetDeviceCount found 0 devices)";
    return false;
  }
  return true;
}

namespace {

std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// The driver's version string and current clocks come from NVML, loaded at run time so the
// binary does not need libnvidia-ml to start (it is part of the driver, not the toolkit).
struct NvmlInfo {
  std::string driver;
  int sm_clock_now = 0, mem_clock_now = 0;
};

NvmlInfo query_nvml(const char* pci_bus_id) {
  NvmlInfo info;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return info;
  using InitFn = int (*)();
  using DriverFn = int (*)(char*, unsigned);
  using HandleFn = int (*)(const char*, void**);
  using ClockFn = int (*)(void*, int, unsigned*);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  auto driver = reinterpret_cast<DriverFn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto handle = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  if (init != nullptr && init() == 0) {
    char buf[96] = {};
    if (driver != nullptr && driver(buf, sizeof buf) == 0) info.driver = buf;
    void* dev = nullptr;
    if (handle != nullptr && clock != nullptr && handle(pci_bus_id, &dev) == 0) {
      unsigned mhz = 0;
      if (clock(dev, 1 /*NVML_CLOCK_SM*/, &mhz) == 0) info.sm_clock_now = int(mhz);
      if (clock(dev, 2 /*NVML_CLOCK_MEM*/, &mhz) == 0) info.mem_clock_now = int(mhz);
    }
    if (shutdown != nullptr) shutdown();
  }
  dlclose(lib);
  return info;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

DeviceInfo query_device_info() {
  int dev = 0;
  BANKSCOPE_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  BANKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  DeviceInfo d;
  d.name = prop.name;
  d.sm = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  d.sms = prop.multiProcessorCount;
  int khz = 0;
  BANKSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  d.sm_clock_mhz = khz / 1000;
  BANKSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev));
  d.mem_clock_mhz = khz / 1000;
  int v = 0;
  BANKSCOPE_CUDA_CHECK(cudaRuntimeGetVersion(&v));
  d.cuda_runtime = version_string(v);
  BANKSCOPE_CUDA_CHECK(cudaDriverGetVersion(&v));
  d.cuda_driver = version_string(v);
  char bus[32] = {};
  BANKSCOPE_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
  const NvmlInfo nv = query_nvml(bus);
  d.driver = nv.driver.empty() ? "unknown (NVML not loadable)" : nv.driver;
  d.sm_clock_now_mhz = nv.sm_clock_now;
  d.mem_clock_now_mhz = nv.mem_clock_now;
  d.date = utc_now();
  return d;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Jobs
// ---------------------------------------------------------------------------------------------

namespace {

std::string basename_of(const std::string& path) {
  const size_t s = path.find_last_of('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

std::optional<Elem> elem_of(ElementType t) {
  switch (t) {
    case ElementType::kFloat: return Elem::kFloat;
    case ElementType::kDouble: return Elem::kDouble;
    case ElementType::kFloat4: return Elem::kFloat4;
    default: return std::nullopt;
  }
}

}  // namespace

Result<std::vector<TransposeJob>> plan_jobs(const std::vector<std::string>& scenario_paths,
                                            const std::vector<int64_t>& ns,
                                            std::vector<std::string>* notes,
                                            const std::vector<int64_t>& strides) {
  std::vector<TransposeJob> jobs;
  for (const std::string& path : scenario_paths) {
    Result<ScenarioSpec> loaded = load_scenario_file(path);
    if (!loaded) return loaded.error();
    if (loaded.value().gpu_kernel.empty()) {
      if (notes != nullptr) notes->push_back(path + ": no gpu_kernel, skipped");
      continue;
    }
    // The file's own layout, or one variant per requested row stride (dynamic_stride only).
    std::vector<ScenarioSpec> variants;
    if (loaded.value().gpu_kernel == "dynamic_stride" && !strides.empty() && !loaded.value().arrays.empty()) {
      for (const int64_t stride : strides) {
        variants.push_back(loaded.value());
        variants.back().arrays[0].row_stride = stride;
      }
    } else {
      variants.push_back(loaded.value());
    }
    for (const ScenarioSpec& base : variants) {
    for (const int64_t n : ns) {
      ScenarioSpec spec = base;
      spec.n = n;
      spec.grid = Dim3{0, 0, 0};  // derived from n and the tile, as the kernel's launch is
      Result<Scenario> compiled = compile(spec);
      if (!compiled) return with_context(path + " (n=" + std::to_string(n) + ")", compiled.error());
      const Scenario& s = compiled.value();
      if (s.arrays.empty()) return Error{path + ": arrays: the GPU kernels need one shared array"};
      const SharedArray& a = s.arrays[0];
      // A bench candidate (issue 15) has its own tile; the lesson's kernels a logical 32x32 one.
      const BenchKernel* bench = find_bench_kernel(base.gpu_kernel);
      if (bench == nullptr && (a.shape.rows != 32 || a.shape.cols != 32)) {
        return Error{path + ": arrays[0].dims: the GPU transposes use a logical 32x32 tile"};
      }
      const std::optional<Elem> elem = elem_of(a.type);
      if (!elem) {
        return Error{path + ": arrays[0].type: bankscope-gpu has transposes for float, double and "
                            "float4, not " + element_name(a.type)};
      }
      TransposeJob job;
      job.scenario_path = path;
      job.scenario = basename_of(path);
      job.name = job.scenario.size() > 5 && job.scenario.substr(job.scenario.size() - 5) == ".json"
                     ? job.scenario.substr(0, job.scenario.size() - 5)
                     : job.scenario;
      if (base.gpu_kernel == "dynamic_stride" && !strides.empty()) {
        job.name += "_s" + std::to_string(a.layout.row_stride);
      }
      job.n = n;
      const std::string err = plan_transpose(base.gpu_kernel, *elem, a.layout, &job.plan);
      if (err.rfind("unknown gpu_kernel", 0) == 0) {  // another tool's kernel (e.g. bench): skip
        if (notes != nullptr) notes->push_back(path + ": " + err + ", skipped");
        break;
      }
      if (!err.empty()) return Error{path + ": gpu_kernel: " + err};
      const Dim3 want{job.plan.block_x, job.plan.block_rows, 1};
      if (!(spec.block == want)) {
        return Error{path + ": block: gpu_kernel \"" + base.gpu_kernel + "\" runs " +
                     std::to_string(job.plan.block_x) + "x" + std::to_string(job.plan.block_rows) +
                     " threads, the scenario says " + std::to_string(spec.block.x) + "x" +
                     std::to_string(spec.block.y) + "x" + std::to_string(spec.block.z)};
      }
      // The model's grid is derived from the tile: it must be the kernel's. A scenario whose grid
      // is an expression of n (fast_sec: one more block row) states the launch itself; a wrong one
      // shows as instruction counts that differ.
      if (!job.plan.bench_kernel.empty() && base.grid_expr.empty() &&
          !(spec.tile == Dim3{job.plan.tile_cols, job.plan.tile_rows, 1})) {
        return Error{path + ": tile: gpu_kernel \"" + base.gpu_kernel + "\" has " +
                     std::to_string(job.plan.tile_cols) + "x" + std::to_string(job.plan.tile_rows) +
                     " elements per block (columns x rows), the scenario says " +
                     std::to_string(spec.tile.x) + "x" + std::to_string(spec.tile.y)};
      }
      Result<LaunchTotals> totals = launch_totals(s);
      if (!totals) return with_context(path + " (n=" + std::to_string(n) + ")", totals.error());
      job.predicted = totals.value();
      jobs.push_back(std::move(job));
    }
    }
  }
  return jobs;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Buffers
// ---------------------------------------------------------------------------------------------

namespace {

struct DeviceBuffer {
  void* p = nullptr;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t b) : bytes(b) { BANKSCOPE_CUDA_CHECK(cudaMalloc(&p, b)); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct EventPair {
  cudaEvent_t a = nullptr, b = nullptr;
  EventPair() {
    BANKSCOPE_CUDA_CHECK(cudaEventCreate(&a));
    BANKSCOPE_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~EventPair() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Median milliseconds of `runs` executions of `fn` after `warmup` untimed ones, each timed with
// its own pair of events on the default stream.
template <class Fn>
double time_median_ms(Fn&& fn, int warmup, int runs) {
  for (int i = 0; i < warmup; ++i) fn();
  BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  EventPair ev;
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    BANKSCOPE_CUDA_CHECK(cudaEventRecord(ev.a));
    fn();
    BANKSCOPE_CUDA_CHECK(cudaEventRecord(ev.b));
    BANKSCOPE_CUDA_CHECK(cudaEventSynchronize(ev.b));
    float t = 0.f;
    BANKSCOPE_CUDA_CHECK(cudaEventElapsedTime(&t, ev.a, ev.b));
    ms.push_back(t);
  }
  return median(ms);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Validate
// ---------------------------------------------------------------------------------------------

bool check_transpose_once(const TransposePlan& plan, void* out, const void* in, int n,
                          std::string* detail) {
  const int wpe = elem_bytes(plan.elem) / 4;  // 32-bit words per element
  const size_t row_words = size_t(n) * wpe;
  const size_t bytes = size_t(n) * row_words * 4;
  BANKSCOPE_CUDA_CHECK(cudaMemset(out, 0xff, bytes));  // poison: kPoisonWord everywhere
  launch_transpose(plan, out, in, n);
  BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());

  // Rows to check: all of them at small n, else block edges and a spread of others.
  std::vector<int64_t> rows;
  if (n <= kFullCheckMaxN) {
    for (int64_t r = 0; r < n; ++r) rows.push_back(r);
  } else {
    for (int64_t r : {int64_t{0}, int64_t{1}, int64_t{31}, int64_t{32}, int64_t{n - 1}}) rows.push_back(r);
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (int i = 0; i < 59; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      rows.push_back(int64_t((s >> 33) % uint64_t(n)));
    }
  }
  std::vector<uint32_t> host(row_words);
  const auto* base = static_cast<const unsigned char*>(out);
  for (const int64_t r : rows) {
    BANKSCOPE_CUDA_CHECK(cudaMemcpy(host.data(), base + size_t(r) * row_words * 4, row_words * 4,
                                    cudaMemcpyDeviceToHost));
    for (int64_t c = 0; c < n; ++c) {
      // out[r][c] = in[c][r]: element (c * n + r) of the input, word k of it.
      for (int k = 0; k < wpe; ++k) {
        const uint32_t want = fill_word(uint64_t(c * n + r) * wpe + k);
        const uint32_t got = host[size_t(c) * wpe + k];
        if (got != want) {
          char buf[160];
          std::snprintf(buf, sizeof buf, "out[%lld][%lld] word %d is 0x%08x, expected 0x%08x%s",
                        (long long)r, (long long)c, k, got, want,
                        got == kPoisonWord ? " (never written)" : "");
          *detail = buf;
          return false;
        }
      }
    }
  }
  *detail = n <= kFullCheckMaxN ? "all elements checked"
                                : "checked " + std::to_string(rows.size()) + " full rows";
  return true;
}

namespace {

std::optional<uint64_t> u64_of(double v) {
  if (!(v >= 0.0)) return std::nullopt;
  return static_cast<uint64_t>(std::llround(v));
}

// Every metric value a collector returned, by name, onto the row: whichever are present.
void apply_metrics(KernelResult& k, const std::map<std::string, double>& m) {
  auto get = [&](const std::string& name) -> std::optional<uint64_t> {
    auto it = m.find(name);
    return it == m.end() ? std::nullopt : u64_of(it->second);
  };
  auto set = [](std::optional<uint64_t>& field, const std::optional<uint64_t>& v) {
    if (v) field = v;
  };
  for (const Op op : {Op::kLoad, Op::kStore}) {
    CounterSet& c = op == Op::kLoad ? k.measured_ld : k.measured_st;
    set(c.wavefronts, get(counters::l1tex_wavefronts(op)));
    set(c.bank_conflicts, get(counters::l1tex_bank_conflicts(op)));
    set(c.instructions, get(counters::inst_executed(op)));
    set(c.instructions_sass, get(counters::sass_inst_executed(op)));
    set(c.wavefronts_sass, get(counters::wavefronts(op)));
  }
}

}  // namespace

std::vector<ComparedCounter> compared_counters(const KernelResult& k) {
  std::vector<ComparedCounter> out;
  // One block: the hardware l1tex__ counters are exact too (measured on the H200, GPU_FACTS.md),
  // so they stand in for missing instruction-level wavefronts/conflicts there, and only there.
  const bool single_block = k.n > 0 && k.n <= 32;
  for (const Op op : {Op::kLoad, Op::kStore}) {
    const char* o = op == Op::kLoad ? "ld" : "st";
    const CounterSet& p = op == Op::kLoad ? k.predicted_ld : k.predicted_st;
    const CounterSet& m = op == Op::kLoad ? k.measured_ld : k.measured_st;
    auto add = [&](const std::string& what, const std::optional<uint64_t>& pred,
                   const std::optional<uint64_t>& exact, const char* exact_metric,
                   const std::optional<uint64_t>& fallback, const std::string& fallback_metric) {
      if (!pred) return;
      if (exact) out.push_back({std::string(o) + " " + what, exact_metric, *pred, *exact, false});
      else if (fallback) out.push_back({std::string(o) + " " + what, fallback_metric, *pred, *fallback, true});
    };
    // Two instruction counts (sim/counter_names.hpp): every warp-level execution (the hardware
    // counter, exact) and those with at least one active thread (the SASS-patched counter); they
    // differ where nvcc predicates a guarded access and a warp has no passing lane.
    add("instructions", p.instructions, m.instructions, counters::inst_executed(op), std::nullopt, "");
    add("active instructions", p.instructions_sass, m.instructions_sass, counters::sass_inst_executed(op),
        std::nullopt, "");
    add("wavefronts", p.wavefronts, m.wavefronts_sass, counters::wavefronts(op),
        single_block ? m.wavefronts : std::nullopt, counters::l1tex_wavefronts(op));
    // No instruction-level conflict counter exists for LDS/STS on sm_90: the hardware one is exact
    // for a single block only, so conflicts are compared there.
    add("bank_conflicts", p.bank_conflicts, std::nullopt, "", single_block ? m.bank_conflicts : std::nullopt,
        counters::l1tex_bank_conflicts(op));
  }
  return out;
}

std::string verdict_of(const KernelResult& k) {
  if (!k.correct) return "WRONG OUTPUT";
  const std::vector<ComparedCounter> cmp = compared_counters(k);
  if (cmp.empty()) return "timing only";
  std::string bad;
  int fallbacks = 0;
  for (const ComparedCounter& c : cmp) {
    fallbacks += c.fallback ? 1 : 0;
    if (c.measured != c.predicted) {
      bad += (bad.empty() ? "" : "; ") + c.what + " " + std::to_string(c.measured) + " measured vs " +
             std::to_string(c.predicted) + " predicted";
    }
  }
  if (!bad.empty()) return "MISMATCH: " + bad;
  std::string v = "match (" + std::to_string(cmp.size()) + " of 8 counters";
  if (fallbacks > 0) v += ", " + std::to_string(fallbacks) + " from hardware counters";
  return v + ")";
}

void run_jobs_once(const std::vector<TransposeJob>& jobs) {
  for (const TransposeJob& job : jobs) {
    const size_t bytes = size_t(job.n) * size_t(job.n) * elem_bytes(job.plan.elem);
    DeviceBuffer in(bytes), out(bytes);
    launch_fill_words(static_cast<uint32_t*>(in.p), bytes / 4);
    launch_transpose(job.plan, out.p, in.p, int(job.n));
    BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

// The timing model's prediction for every validated kernel, once all copies are timed: the
// queueing model (sim/timing_model.hpp) where bench_kernels.hpp describes the kernel (the seed and
// 32x8 kernels with the lesson's layouts are the bench's kernels), with the copy ceiling fitted to
// this run's copies and registers from the build's cuobjdump resource-usage file (without it,
// registers are left out: the threads limit these kernels' occupancy either way); else the roofline
// with the copy bandwidth of the kernel's own size.
void predict_times(GpuResults& res, const std::vector<const TransposeJob*>& jobs,
                   const std::vector<std::pair<uint64_t, double>>& copy_runs) {
  const auto fit = fit_copy_ceiling(copy_runs);
  std::optional<ResourceUsage> resources;
  if (!default_resource_usage_path().empty()) {
    auto r = load_resource_usage(default_resource_usage_path());
    if (r) resources = *r;
  }
  for (size_t i = 0; i < res.kernels.size() && i < jobs.size(); ++i) {
    KernelResult& k = res.kernels[i];
    const TransposeJob& job = *jobs[i];
    DeviceThroughput dev;
    dev.sms = res.device.sms;
    dev.sm_clock_mhz = res.device.sm_clock_mhz;
    dev.dram_gbps = k.copy_gbps.value_or(0.0);
    const uint64_t shared_wf = job.predicted.ld.wavefronts + job.predicted.st.wavefronts;
    const uint64_t dram_bytes = transpose_dram_bytes(job.n, elem_bytes(job.plan.elem));
    std::string bench_name;
    const PhysicalLayout& l = job.plan.layout;
    if (job.plan.is_static && l.swizzle.is_identity()) {
      if (job.plan.elem == Elem::kFloat && job.plan.gpu_kernel == "seed" && l.xor_mask == 0) {
        bench_name = "seed_32x" + std::to_string(l.row_stride);
      } else if (job.plan.elem == Elem::kFloat && job.plan.gpu_kernel == "tiled_32x8" && l.xor_mask == 0) {
        bench_name = "tiled_32x8_32x" + std::to_string(l.row_stride);
      } else if (job.plan.elem == Elem::kFloat && job.plan.gpu_kernel == "tiled_32x8_xor" && l.xor_mask == 31) {
        bench_name = "tiled_32x8_xor";
      } else if (job.plan.elem == Elem::kDouble && l.row_stride == 33 && l.xor_mask == 0) {
        bench_name = "tiled_32x8_double_32x33";
      } else if (job.plan.elem == Elem::kFloat4 && l.row_stride == 33 && l.xor_mask == 0) {
        bench_name = "tiled_float4_32x33";
      }
    }
    if (!job.plan.bench_kernel.empty()) bench_name = job.plan.bench_kernel;
    const BenchKernel* bk = bench_name.empty() ? nullptr : find_bench_kernel(bench_name);
    CompiledFacts facts;
    if (bk != nullptr && resources) {
      if (const auto f = find_compiled(*resources, *bk)) facts = *f;
    }
    const uint64_t blocks = uint64_t((job.n + job.plan.tile_cols - 1) / job.plan.tile_cols) *
                            uint64_t((job.n + job.plan.tile_rows - 1) / job.plan.tile_rows);
    const auto described = (bk == nullptr || !fit)
                               ? std::nullopt
                               : describe_bench_kernel(*bk, job.n, blocks ? shared_wf / blocks : 0, facts);
    TimingPrediction tp;
    if (described) {
      dev.dram_gbps = fit->gbps;
      dev.launch_overhead_us = fit->overhead_us;
      tp = predict_time(described->work, dev, described->shape);
    } else {
      tp = predict_time(KernelWork{shared_wf, dram_bytes}, dev);
    }
    k.predicted_ms = tp.ms;
    k.predicted_shared_ms = tp.shared_ms;
    k.predicted_dram_ms = tp.dram_ms;
    k.predicted_gbps = effective_gbps(dram_bytes, tp.ms);
    k.bound = tp.bound;
  }
}


ValidateOutcome run_validate(const std::vector<TransposeJob>& jobs, const ValidateOptions& opt) {
  ValidateOutcome outcome;
  GpuResults& res = outcome.results;
  res.device = query_device_info();

  // Counters in process (CUPTI), most complete set first: the instruction-level bank-conflict
  // metrics may not exist on this chip, and the range profiler may refuse every smsp__sass_*
  // metric (they need SASS patching); each refusal drops one group and asks again. What CUPTI
  // could not take goes to ncu afterwards.
  std::string why;
  bool not_permitted = false;
  auto concat = [](std::initializer_list<const std::vector<std::string>*> parts) {
    std::vector<std::string> v;
    for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
    return v;
  };
  const std::vector<std::vector<std::string>> tiers = {
      concat({&kHardwareMetrics, &kSassMetrics}),
      kHardwareMetrics,
  };
  std::unique_ptr<CounterSession> session;
  std::string refused;  // what CUPTI said about the larger sets
  if (opt.ncu_only) {
    why = "not used (--counters ncu)";
  } else {
    for (const std::vector<std::string>& t : tiers) {
      session = CounterSession::create(t, &why, &not_permitted);
      if (session || not_permitted) break;
      refused += (refused.empty() ? "" : "; ") + std::to_string(t.size()) + " metrics refused: " + why;
    }
  }
  auto has = [](const std::vector<std::string>& v, const std::string& m) {
    return std::find(v.begin(), v.end(), m) != v.end();
  };
  const std::vector<std::string> cupti_metrics = session ? session->metrics() : std::vector<std::string>{};
  std::set<std::string> collected(cupti_metrics.begin(), cupti_metrics.end());
  const bool cupti_hw = session != nullptr;
  if (!cupti_hw && !opt.ncu_only) std::cerr << "bankscope-gpu: counters: " << why << "\n";
  // Everything the table compares or shows that CUPTI does not give: ncu's job.
  std::vector<std::string> ncu_wanted;
  for (const std::string& m : tiers[0])
    if (!has(cupti_metrics, m)) ncu_wanted.push_back(m);
  std::ostringstream note;
  note << "CUPTI range profiler: ";
  if (cupti_hw) {
    note << cupti_metrics.size() << " metrics in process";
  } else {
    note << "not used (" << why << ")";
  }
  if (!refused.empty() && cupti_hw) note << " (larger sets refused: " << refused << ")";
  note << "; " << ncu_wanted.size() << " metrics left to ncu "
       << (ncu_wanted.empty() ? "(none)" : opt.ncu.empty() ? "(not collected: no ncu)" : "--clock-control none");
  note << "; SM clock now " << res.device.sm_clock_now_mhz << " MHz, memory clock now "
       << res.device.mem_clock_now_mhz << " MHz (NVML)";

  std::map<size_t, double> copy_gbps_by_bytes;
  std::vector<std::pair<uint64_t, double>> copy_runs;  // (bytes read + written, ms) of each copy
  std::vector<const TransposeJob*> predicted_jobs;    // one per entry of res.kernels
  for (const TransposeJob& job : jobs) {
    const int n = int(job.n);
    const int eb = elem_bytes(job.plan.elem);
    const size_t bytes = size_t(job.n) * size_t(job.n) * eb;
    DeviceBuffer in(bytes), out(bytes);
    launch_fill_words(static_cast<uint32_t*>(in.p), bytes / 4);
    BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());

    KernelResult k;
    k.kernel = job.name;
    k.gpu_kernel = job.plan.gpu_kernel;
    k.scenario = job.scenario;
    k.type = elem_name(job.plan.elem);
    k.n = job.n;
    k.row_stride = job.plan.layout.row_stride;
    k.xor_mask = job.plan.layout.xor_mask;
    k.swizzle_bits = job.plan.layout.swizzle.bits;
    k.swizzle_base = job.plan.layout.swizzle.base;
    k.swizzle_shift = job.plan.layout.swizzle.shift;
    k.block_x = job.plan.block_x;
    k.block_y = job.plan.block_rows;
    k.block_z = 1;
    k.has_layout_key = true;
    k.predicted_ld = CounterSet{job.predicted.ld.instructions, job.predicted.ld.wavefronts,
                                job.predicted.ld.bank_conflicts(), std::nullopt,
                                job.predicted.ld.active_instructions, std::nullopt};
    k.predicted_st = CounterSet{job.predicted.st.instructions, job.predicted.st.wavefronts,
                                job.predicted.st.bank_conflicts(), std::nullopt,
                                job.predicted.st.active_instructions, std::nullopt};

    std::string detail;
    k.correct = check_transpose_once(job.plan, out.p, in.p, n, &detail);
    if (!k.correct) {
      ++outcome.wrong_outputs;
      k.note = detail;
    }

    // Timing: the kernel, then the copy ceiling for the same bytes (cached per size).
    k.runs = opt.runs;
    k.measured_ms = time_median_ms([&] { launch_transpose(job.plan, out.p, in.p, n); }, opt.warmup, opt.runs);
    const uint64_t dram_bytes = transpose_dram_bytes(job.n, eb);
    k.measured_gbps = effective_gbps(dram_bytes, *k.measured_ms);
    if (!copy_gbps_by_bytes.count(bytes)) {
      const double copy_ms = time_median_ms(
          [&] { BANKSCOPE_CUDA_CHECK(cudaMemcpy(out.p, in.p, bytes, cudaMemcpyDeviceToDevice)); },
          opt.warmup, opt.runs);
      copy_gbps_by_bytes[bytes] = effective_gbps(dram_bytes, copy_ms);
      copy_runs.push_back({dram_bytes, copy_ms});
    }
    k.copy_gbps = copy_gbps_by_bytes[bytes];
    // The device's ceiling: the best copy bandwidth of any size measured in this run.
    res.device.copy_gbps = std::max(res.device.copy_gbps.value_or(0.0), *k.copy_gbps);

    predicted_jobs.push_back(&job);

    if (session) {
      const std::vector<std::vector<double>> rows =
          session->measure({[&] { launch_transpose(job.plan, out.p, in.p, n); }});
      std::map<std::string, double> m;
      for (size_t i = 0; i < cupti_metrics.size(); ++i) m[cupti_metrics[i]] = rows.at(0).at(i);
      apply_metrics(k, m);
      k.counters_source = "cupti";
      if (has(cupti_metrics, kSassMetrics[0])) k.sass_source = "cupti";
    } else {
      k.counters_source = "none";
    }
    if (opt.verbose) {
      std::cerr << "  " << k.kernel << " n=" << k.n << ": " << (k.correct ? "correct" : "WRONG") << ", "
                << *k.measured_ms << " ms\n";
    }
    res.kernels.push_back(std::move(k));
  }
  predict_times(res, predicted_jobs, copy_runs);

  session.reset();  // no profiler of ours left on the device while ncu works

  // What CUPTI did not give, from ncu runs of a child that launches each job exactly once, in
  // the same order. ncu refuses the whole run when one metric does not exist on the chip, so the
  // set shrinks the same way as for CUPTI.
  if (!jobs.empty() && !opt.ncu.empty() && !ncu_wanted.empty()) {
    std::vector<std::string> args = {"run-jobs"};
    args.insert(args.end(), opt.child_args.begin(), opt.child_args.end());
    const std::vector<std::vector<std::string>> ncu_tiers = {ncu_wanted};
    for (size_t t = 0; t < ncu_tiers.size(); ++t) {
      if (opt.verbose) {
        std::cerr << "bankscope-gpu: running ncu for " << jobs.size() << " launches, " << ncu_tiers[t].size()
                  << " metrics\n";
      }
      std::string log;
      Result<std::vector<NcuKernel>> prof = run_ncu(opt.ncu, ncu_tiers[t], opt.self_exe, args, &log);
      outcome.ncu_log += log;
      if (!prof) {
        note << "; ncu with " << ncu_tiers[t].size() << " metrics failed: " << prof.error().message;
        std::cerr << "bankscope-gpu: " << prof.error().message << "\n";
        continue;  // the next, smaller set
      }
      if (prof.value().size() != res.kernels.size()) {
        const std::string msg = "ncu profiled " + std::to_string(prof.value().size()) + " launches, expected " +
                                std::to_string(res.kernels.size()) + "; its counters not used";
        note << "; " << msg;
        std::cerr << "bankscope-gpu: " << msg << "\n";
        break;
      }
      note << "; ncu collected " << ncu_tiers[t].size() << " metrics";
      for (size_t i = 0; i < res.kernels.size(); ++i) {
        KernelResult& k = res.kernels[i];
        apply_metrics(k, prof.value()[i].metrics);
        for (const auto& kv : prof.value()[i].metrics) collected.insert(kv.first);
        if (prof.value()[i].metrics.count(kSassMetrics[0])) k.sass_source = "ncu";
        if (!cupti_hw) k.counters_source = "ncu";
      }
      break;
    }
  }
  // Which metrics were collected at all (the rest are absent from every row).
  std::string missing;
  for (size_t i = 0; i < tiers[0].size(); ++i) {
    const std::string& m = tiers[0][i];
    if (!collected.count(m)) missing += (missing.empty() ? "" : ", ") + m;
  }
  if (!res.kernels.empty()) note << "; not collected: " << (missing.empty() ? "none" : missing);
  res.device.counters_note = note.str();

  for (KernelResult& k : res.kernels) {
    k.verdict = verdict_of(k);
    if (k.verdict.rfind("MISMATCH", 0) == 0) ++outcome.mismatches;
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Table
// ---------------------------------------------------------------------------------------------

namespace {

std::string num(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string fixed(const std::optional<double>& v, int prec) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", prec, *v);
  return buf;
}

}  // namespace

std::string format_table(const GpuResults& r) {
  std::ostringstream o;
  o << "device: " << r.device.name << " (sm_" << r.device.sm << ", " << r.device.sms << " SMs, max SM clock "
    << r.device.sm_clock_mhz << " MHz, memory clock " << r.device.mem_clock_mhz << " MHz), driver "
    << r.device.driver << ", CUDA runtime " << r.device.cuda_runtime << " / driver API "
    << r.device.cuda_driver << ", " << r.device.date << "\n";
  o << "counters: " << r.device.counters_note << "\n\n";
  o << "Compared (the verdict): per launch, predicted by bankscope / measured\n"
       "  inst   = " << counters::inst_executed(Op::kLoad) << ", ..._st.sum (every warp-level execution)\n"
       "  active = " << counters::sass_inst_executed(Op::kLoad) << ", ..._st.sum (executions with an active thread)\n"
       "  wf     = " << counters::wavefronts(Op::kLoad) << ", ..._st.sum\n"
       "  cf     = " << counters::l1tex_bank_conflicts(Op::kLoad) << ", ..._st.sum, compared for a single-block\n"
       "           launch (N <= 32) only: sm_90 has no instruction-level conflict counter for LDS/STS and the\n"
       "           hardware one reads high with many blocks\n"
       "  a value marked * is the l1tex__ counter standing in for a single-block launch; - = not compared\n\n";
  char line[768];
  std::snprintf(line, sizeof line,
                "%-28s %6s | %17s %17s %21s %19s | %17s %17s %21s %19s | %8s %8s %6s %7s %7s | %s\n", "kernel", "N",
                "ld inst", "ld active", "ld wf", "ld cf", "st inst", "st active", "st wf", "st cf", "ms pred",
                "ms meas", "ratio", "GB/s", "copy", "verdict");
  o << line << std::string(std::strlen(line) - 1, '-') << "\n";
  for (const KernelResult& k : r.kernels) {
    const std::vector<ComparedCounter> cmp = compared_counters(k);
    auto cell = [&](const std::string& what, const std::optional<uint64_t>& pred) {
      for (const ComparedCounter& c : cmp) {
        if (c.what == what) {
          return std::to_string(c.predicted) + "/" + std::to_string(c.measured) + (c.fallback ? "*" : "") +
                 (c.measured != c.predicted ? "!" : "");
        }
      }
      return num(pred) + "/-";
    };
    std::optional<double> ratio;
    if (k.predicted_ms && k.measured_ms && *k.predicted_ms > 0) ratio = *k.measured_ms / *k.predicted_ms;
    std::snprintf(line, sizeof line,
                  "%-28.28s %6lld | %17s %17s %21s %19s | %17s %17s %21s %19s | %8s %8s %6s %7s %7s | %s\n",
                  k.kernel.c_str(), (long long)k.n, cell("ld instructions", k.predicted_ld.instructions).c_str(),
                  cell("ld active instructions", k.predicted_ld.instructions_sass).c_str(),
                  cell("ld wavefronts", k.predicted_ld.wavefronts).c_str(),
                  cell("ld bank_conflicts", k.predicted_ld.bank_conflicts).c_str(),
                  cell("st instructions", k.predicted_st.instructions).c_str(),
                  cell("st active instructions", k.predicted_st.instructions_sass).c_str(),
                  cell("st wavefronts", k.predicted_st.wavefronts).c_str(),
                  cell("st bank_conflicts", k.predicted_st.bank_conflicts).c_str(), fixed(k.predicted_ms, 4).c_str(),
                  fixed(k.measured_ms, 4).c_str(), fixed(ratio, 2).c_str(), fixed(k.measured_gbps, 0).c_str(),
                  fixed(k.copy_gbps, 0).c_str(), k.verdict.c_str());
    o << line;
  }
  o << "\n! = measured differs from predicted (a MISMATCH). ratio = measured ms / predicted ms "
       "(sim/timing_model.hpp); GB/s counts bytes read + written; timing is not part of the verdict.\n";

  // The hardware counters, as context: with many resident blocks the l1tex__ pipe counts read high
  // (other traffic through the L1 data pipe); the model does not predict them per launch.
  o << "\nContext, not compared (the l1tex__ hardware counters; exact only for a single block):\n"
       "  hw wf = " << counters::l1tex_wavefronts(Op::kLoad)
    << " (and _st), hw cf = " << counters::l1tex_bank_conflicts(Op::kLoad) << " (and _st)\n";
  std::snprintf(line, sizeof line, "%-28s %6s | %12s %12s | %12s %12s\n", "kernel", "N", "ld hw wf", "ld hw cf",
                "st hw wf", "st hw cf");
  o << line << std::string(std::strlen(line) - 1, '-') << "\n";
  for (const KernelResult& k : r.kernels) {
    std::snprintf(line, sizeof line, "%-28.28s %6lld | %12s %12s | %12s %12s\n", k.kernel.c_str(), (long long)k.n,
                  num(k.measured_ld.wavefronts).c_str(), num(k.measured_ld.bank_conflicts).c_str(),
                  num(k.measured_st.wavefronts).c_str(), num(k.measured_st.bank_conflicts).c_str());
    o << line;
  }
  return o.str();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Patterns
// ---------------------------------------------------------------------------------------------

namespace {

// Everything the pattern run asks CUPTI for (issue 11). Not every name is verified on every GPU:
// open_pattern_session() drops the ones CUPTI refuses and says which. Hardware l1tex__ counters
// are exact for a one-warp launch (GPU_FACTS.md); the smsp__sass_ ones are instruction-level.
// Measured here (GPU_FACTS.md): the hardware op_ld wavefronts count LDSM too.
const std::vector<std::string> kPatternMetrics = {
    // LDS/STS (the first six are kHardwareMetrics, the 1,560-pattern suite's counters)
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    // atomics and cp.async, hardware
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_misc.sum",
    // instructions per kind
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_shared_stsm.sum",
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_ldgsts.sum",
    // instruction-level (SASS-patched)
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_shared_stsm.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "smsp__sass_inst_executed_op_ldgsts.sum",
};

// Per instruction kind: the counters that become "measured_wavefronts" / "measured_bank_conflicts",
// best first (issue 11: the instruction-level metric where one exists for the kind, else the
// l1tex one). The first pair whose metrics were both collected is used.
struct CounterPair {
  const char* wavefronts;
  const char* conflicts;
};
std::vector<CounterPair> counter_choice(Op op) {
  switch (op) {
    case Op::kLoad:
      return {{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}};
    case Op::kStore:
      return {{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}};
    case Op::kLdmatrix:
      return {{"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
               "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"},
              {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}};
    case Op::kStmatrix:
      return {{"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
               "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum"},
              {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}};
    case Op::kAtomic:
      return {{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"}};
    case Op::kLdgsts:
      return {{"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
               "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"},
              {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"}};
  }
  return {};
}

// A session for as many of `wanted` as CUPTI accepts: all at once, else the metrics it accepts one
// by one (and, if those do not open together, without the smsp__sass_ ones); *rejected lists the
// ones left out. Null when none can be opened (then *why).
std::unique_ptr<CounterSession> open_pattern_session(const std::vector<std::string>& wanted,
                                                     std::vector<std::string>* rejected, std::string* why,
                                                     bool* not_permitted) {
  std::unique_ptr<CounterSession> s = CounterSession::create(wanted, why, not_permitted);
  if (s || *not_permitted) return s;
  const std::string first_why = *why;
  std::cerr << "bankscope-gpu: CUPTI refused the full metric set (" << first_why << "); trying each metric\n";
  std::vector<std::string> ok;
  for (const std::string& m : wanted) {
    std::string w;
    bool np = false;
    if (CounterSession::create({m}, &w, &np)) {
      ok.push_back(m);
    } else {
      rejected->push_back(m);
      std::cerr << "bankscope-gpu:   rejected " << m << ": " << w << "\n";
    }
  }
  if (ok.empty()) {
    *why = first_why;
    return nullptr;
  }
  s = CounterSession::create(ok, why, not_permitted);
  if (s) return s;
  // Each accepted alone but not together: drop the instruction-level (SASS-patched) ones.
  std::cerr << "bankscope-gpu: the accepted metrics do not open together (" << *why
            << "); trying without smsp__sass_\n";
  std::vector<std::string> hw;
  for (const std::string& m : ok) {
    if (m.rfind("smsp__sass_", 0) == 0) rejected->push_back(m);
    else hw.push_back(m);
  }
  return hw.empty() ? nullptr : CounterSession::create(hw, why, not_permitted);
}

}  // namespace

std::vector<nlohmann::ordered_json> run_patterns(const std::vector<Pattern>& patterns,
                                                 const PatternOptions& opt, std::string* note) {
  std::vector<nlohmann::ordered_json> out;
  if (patterns.empty()) return out;
  const DeviceInfo dev = query_device_info();
  const std::string measured_on = dev.name + ", driver " + dev.driver + ", CUDA " + dev.cuda_runtime +
                                  ", SM clock " + std::to_string(dev.sm_clock_now_mhz) + "/" +
                                  std::to_string(dev.sm_clock_mhz) + " MHz (now/max)";

  std::vector<PatternArgs> args(patterns.size());
  std::vector<size_t> smem(patterns.size());
  size_t src_bytes = 32 * 16;  // at least the historical 512-byte source
  for (size_t i = 0; i < patterns.size(); ++i) {
    const WarpAccess& a = patterns[i].access;
    // ldmatrix/stmatrix: every lane executes the instruction (.sync.aligned), so every lane's
    // offset is covered by the allocation, used or not.
    const uint32_t covered = is_matrix(a.op) ? 0xffffffffu : a.mask;
    uint32_t hi = 0;
    for (int l = 0; l < kWarpSize; ++l) {
      args[i].offsets[l] = a.addr[l];
      if ((covered >> l) & 1u) hi = std::max(hi, a.addr[l] + uint32_t(a.width));
    }
    args[i].mask = a.mask;
    smem[i] = std::max<size_t>(16, (size_t(hi) + 15) / 16 * 16);
    // cp.async sources: the pattern's "src" or its default lane * width (json_io.hpp).
    for (int l = 0; l < kWarpSize; ++l) {
      args[i].src[l] = patterns[i].src[size_t(l)];
      if (a.op == Op::kLdgsts && ((a.mask >> l) & 1u)) {
        src_bytes = std::max<size_t>(src_bytes, size_t(args[i].src[l]) + size_t(a.width));
      }
    }
  }
  DeviceBuffer dargs(sizeof(PatternArgs) * args.size());
  BANKSCOPE_CUDA_CHECK(cudaMemcpy(dargs.p, args.data(), dargs.bytes, cudaMemcpyHostToDevice));
  DeviceBuffer sink(1024 * sizeof(uint32_t));
  DeviceBuffer cycles(sizeof(long long));
  // cp.async source, cudaMalloc'd (256-byte aligned, documented), so a "src" offset's position in
  // its 32-byte sector and 128-byte line is the position in the real address.
  DeviceBuffer src((src_bytes + 255) / 256 * 256);
  BANKSCOPE_CUDA_CHECK(cudaMemset(src.p, 0x5a, src.bytes));
  const auto* pargs = static_cast<const PatternArgs*>(dargs.p);
  auto* psink = static_cast<uint32_t*>(sink.p);

  std::vector<std::string> errors(patterns.size());
  std::vector<std::string> kernel(patterns.size());
  auto launch = [&](size_t i) {
    const WarpAccess& a = patterns[i].access;
    if (is_plain(a.op)) {
      errors[i] = launch_pattern(a.width, a.op == Op::kStore, pargs, int(i), smem[i], psink);
      return;
    }
    InstrLaunch d;
    d.kind = a.op == Op::kLdmatrix   ? InstrKind::kLdmatrix
             : a.op == Op::kStmatrix ? InstrKind::kStmatrix
             : a.op == Op::kAtomic   ? InstrKind::kAtomic
                                     : InstrKind::kLdgsts;
    d.width = a.width;
    d.num = a.matrices;
    d.trans = a.trans;
    d.atom = static_cast<int>(a.atom);
    d.cg = a.bypass_l1;
    d.l2_prefetch = patterns[i].l2_prefetch;
    kernel[i] = instr_kernel_name(d);
    // validate() has refused every kind without a kernel, so an error here is a bug; the run
    // then stops at the profiler's range count rather than reporting shifted counters.
    errors[i] = launch_instr_pattern(d, pargs, int(i), smem[i], psink, src.p);
  };

  // Only the plain LDS/STS kinds: the six counters that the 1,560-pattern suite used.
  bool only_plain = true;
  for (const Pattern& p : patterns) only_plain = only_plain && is_plain(p.access.op);
  // --extra-metrics adds counters to either set (a plain batch then records every collected counter,
  // as the other kinds do: the instruction-level LDS/STS counters beside the hardware ones).
  std::vector<std::string> wanted = only_plain ? kHardwareMetrics : kPatternMetrics;
  for (const std::string& m : opt.extra_metrics) {
    if (std::find(wanted.begin(), wanted.end(), m) == wanted.end()) wanted.push_back(m);
  }
  const bool all_counters = !only_plain || !opt.extra_metrics.empty();

  std::string why;
  bool not_permitted = false;
  std::vector<std::string> rejected;
  std::unique_ptr<CounterSession> session = open_pattern_session(wanted, &rejected, &why, &not_permitted);
  std::vector<std::vector<double>> rows;
  if (session) {
    std::vector<std::function<void()>> launches;
    for (size_t i = 0; i < patterns.size(); ++i) launches.push_back([&, i] { launch(i); });
    try {
      rows = session->measure(launches);
    } catch (const std::exception& e) {
      // A metric set that opens but fails to measure (e.g. instruction-level metrics this CUPTI
      // cannot patch): fall back to the hardware counters of kHardwareMetrics-style names.
      std::cerr << "bankscope-gpu: measuring with " << session->metrics().size() << " metrics failed (" << e.what()
                << "); retrying without the smsp__sass_ metrics\n";
      std::vector<std::string> hw;
      for (const std::string& m : session->metrics()) {
        if (m.rfind("smsp__sass_", 0) == 0) rejected.push_back(m);
        else hw.push_back(m);
      }
      session.reset();
      session = CounterSession::create(hw, &why, &not_permitted);
      if (session) {
        try {
          rows = session->measure(launches);
        } catch (const std::exception& e2) {
          why = std::string("measuring failed twice: ") + e2.what();
          session.reset();
        }
      }
    }
  }
  if (session) {
    *note = "counters: CUPTI range profiler, one launch per pattern; " + std::to_string(session->metrics().size()) +
            " metrics collected";
    if (!rejected.empty()) {
      *note += "; not collected:";
      for (const std::string& m : rejected) *note += " " + m;
    }
  } else {
    std::cerr << "bankscope-gpu: counters: " << why << "; measuring clock64 throughput instead\n";
    *note = "counters unavailable (" + why + "); clock64 throughput only";
  }
  const bool use_clock = opt.clock64 || !session;

  for (size_t i = 0; i < patterns.size(); ++i) {
    nlohmann::ordered_json j = predict_pattern(patterns[i]);
    const WarpAccess& acc = patterns[i].access;
    const bool store = acc.op == Op::kStore;
    if (!kernel[i].empty()) j["kernel"] = kernel[i];
    if (!errors[i].empty()) {
      j["measured_error"] = errors[i];
    } else if (!session && !is_plain(acc.op)) {
      j["measured_error"] = "no counters (" + why + "); the clock64 fallback covers ld/st only";
    } else if (session) {
      const std::vector<double>& v = rows.at(i);
      std::map<std::string, double> m;
      for (size_t k = 0; k < session->metrics().size() && k < v.size(); ++k) m[session->metrics()[k]] = v[k];
      bool found = false;
      for (const CounterPair& c : counter_choice(acc.op)) {
        if (m.count(c.wavefronts) && m.count(c.conflicts)) {
          j["measured_wavefronts"] = u64_of(m[c.wavefronts]).value_or(0);
          j["measured_bank_conflicts"] = u64_of(m[c.conflicts]).value_or(0);
          if (!is_plain(acc.op)) j["measured_metrics"] = std::string(c.wavefronts) + ", " + c.conflicts;
          found = true;
          break;
        }
      }
      if (!found) j["measured_error"] = "none of this kind's counters was collected (see the run's note)";
      if (is_plain(acc.op)) {
        const char* ins = store ? "smsp__inst_executed_op_shared_st.sum" : "smsp__inst_executed_op_shared_ld.sum";
        if (m.count(ins)) j["measured_instructions"] = u64_of(m[ins]).value_or(0);
      }
      if (all_counters) {
        // Every collected counter, for fitting the rules afterwards.
        nlohmann::ordered_json all = nlohmann::ordered_json::object();
        for (const std::string& name : session->metrics()) {
          std::string key = name;
          if (key.size() > 4 && key.compare(key.size() - 4, 4, ".sum") == 0) key.resize(key.size() - 4);
          all[key] = u64_of(m[name]).value_or(0);
        }
        j["counters"] = all;
      }
      j["measured_source"] = "cupti";
    }
    if (use_clock && errors[i].empty() && is_plain(acc.op)) {
      const std::string err = launch_pattern_clock(acc.width, store, pargs, int(i), smem[i], opt.clock_reps,
                                                   static_cast<long long*>(cycles.p), psink);
      if (err.empty()) {
        BANKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
        long long cyc = 0;
        BANKSCOPE_CUDA_CHECK(cudaMemcpy(&cyc, cycles.p, sizeof cyc, cudaMemcpyDeviceToHost));
        // 32 warps x reps instructions; the shared pipe serves about one wavefront per clock.
        const double per = double(cyc) / (32.0 * opt.clock_reps);
        j["clock64_cycles_per_instruction"] = std::round(per * 100.0) / 100.0;
        if (!session) j["measured_source"] = "clock64";
      }
    }
    j["measured_on"] = measured_on;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace bankscope
