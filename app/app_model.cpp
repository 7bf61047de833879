// app_model.cpp: UiState + scenario spec -> the reports the panels draw; script steps.
#include "app_model.hpp"

#include <algorithm>
#include <chrono>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "sim/json_io.hpp"
#include "sim/layout.hpp"

namespace bankscope {

namespace {

// The built-in seed scenario carries the stride in its name so a GPU results row can be matched.
std::string seed_file_name(int64_t stride) {
  return "seed_transpose_32x" + std::to_string(stride) + ".json";
}

ArraySpec& edited_array(ConfigState& cfg) {
  if (cfg.spec.arrays.empty()) cfg.spec.arrays.emplace_back();
  cfg.array = std::clamp(cfg.array, 0, static_cast<int>(cfg.spec.arrays.size()) - 1);
  return cfg.spec.arrays[static_cast<size_t>(cfg.array)];
}

// Strict integer parse: the whole word must be a number (decimal or 0x hex).
bool parse_int(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_on_off(const std::string& s, bool* out) {
  if (s == "on" || s == "1" || s == "true") return *out = true, true;
  if (s == "off" || s == "0" || s == "false") return *out = false, true;
  return false;
}

}  // namespace

int64_t logical_cols(const ConfigState& cfg) {
  if (cfg.spec.arrays.empty()) return 1;
  const ArraySpec& a = cfg.spec.arrays[static_cast<size_t>(
      std::clamp(cfg.array, 0, static_cast<int>(cfg.spec.arrays.size()) - 1))];
  return a.dims.empty() ? 1 : a.dims.back();
}

int64_t row_stride(const ConfigState& cfg) {
  if (cfg.spec.arrays.empty()) return 1;
  const ArraySpec& a = cfg.spec.arrays[static_cast<size_t>(
      std::clamp(cfg.array, 0, static_cast<int>(cfg.spec.arrays.size()) - 1))];
  return a.row_stride != 0 ? a.row_stride : logical_cols(cfg);
}

void set_row_stride(ConfigState& cfg, int64_t stride) {
  edited_array(cfg).row_stride = stride;
  if (cfg.source == "built-in" || cfg.source.rfind("seed_transpose", 0) == 0) {
    cfg.spec.name = "seed transpose, tile[32][" + std::to_string(stride) + "]";
  }
  cfg.touch();
}

void compute_pane(const ConfigState& cfg, PaneModel& pane, const TotalsOptions& opt,
                  const TotalsFn& totals_fn) {
  pane.revision = cfg.revision;
  auto fail = [&](const std::string& message) {
    pane.ok = false;
    pane.error = message;
  };
  Result<Scenario> compiled = compile(cfg.spec);
  if (!compiled) return fail(compiled.error().message);
  const Scenario& sc = *compiled;
  if (cfg.warp < 0 || cfg.warp >= sc.warps_per_block()) {
    return fail("warp " + std::to_string(cfg.warp) + ": a block of this scenario has warps 0.." +
                std::to_string(sc.warps_per_block() - 1));
  }
  Result<std::vector<WarpInstruction>> instrs = warp_instructions(sc, Dim3{0, 0, 0}, cfg.warp);
  if (!instrs) return fail(instrs.error().message);
  if (instrs->empty()) {
    return fail("warp " + std::to_string(cfg.warp) + " issues no shared-memory instruction");
  }
  int selected = cfg.instruction;
  if (selected < 0 || selected >= static_cast<int>(instrs->size())) {
    // Default: the costliest instruction (ties: the first), the one worth looking at.
    selected = 0;
    int best = -1;
    for (size_t i = 0; i < instrs->size(); ++i) {
      const WarpAccess& a = (*instrs)[i].access;
      if (!(*instrs)[i].issued) continue;  // a predicated instruction with no lane costs 0
      const int w = cost(a, cfg.spec.banks).wavefronts;
      if (w > best) best = w, selected = static_cast<int>(i);
    }
  }
  WarpAccess access = (*instrs)[static_cast<size_t>(selected)].access;
  access.mask &= cfg.lane_mask;
  Result<WarpAccess> valid = validate(access, cfg.spec.banks);
  if (!valid) return fail(valid.error().message);

  pane.report = simulate(*valid, cfg.spec.banks);
  pane.scenario = std::move(compiled).value();
  pane.instructions = std::move(instrs).value();
  pane.selected = selected;
  const int array_index =
      std::clamp(cfg.array, 0, static_cast<int>(pane.scenario.arrays.size()) - 1);
  pane.declaration = pane.scenario.arrays[static_cast<size_t>(array_index)].declaration();
  pane.totals_running = false;
  pane.totals_cancelling = false;
  pane.totals_blocks = uint64_t(pane.scenario.grid.x) * uint64_t(pane.scenario.grid.y) *
                       uint64_t(pane.scenario.grid.z);
  pane.totals_blocks_done = 0;
  Result<LaunchTotals> totals = totals_fn(pane.scenario, opt);
  if (totals) {
    pane.totals = std::move(totals).value();
    pane.totals_error.clear();
  } else {
    pane.totals.reset();
    pane.totals_error = totals.error().message;
  }
  pane.ok = true;
  pane.have = true;
  pane.error.clear();
}

// A per-launch total on a worker thread. The worker writes `result`, then sets `finished`; the UI
// thread reads `blocks_done` for the progress bar and sets `cancel`.
struct AppModel::Job {
  std::atomic<bool> cancel{false};
  std::atomic<uint64_t> blocks_done{0};
  std::atomic<bool> finished{false};
  std::optional<Result<LaunchTotals>> result;
  std::thread worker;
};

AppModel::AppModel() = default;
AppModel::AppModel(TotalsPolicy policy) : policy_(std::move(policy)) {}

AppModel::~AppModel() {
  for (auto& j : jobs_) {
    if (j) j->cancel.store(true);
  }
  for (auto& j : retired_) j->cancel.store(true);
  for (auto& j : jobs_) {
    if (j && j->worker.joinable()) j->worker.join();
  }
  for (auto& j : retired_) {
    if (j->worker.joinable()) j->worker.join();
  }
}

void AppModel::start_job(int which) {
  PaneModel& pane = panes_[static_cast<size_t>(which)];
  auto job = std::make_unique<Job>();
  Job* raw = job.get();
  // The worker gets its own copy of the scenario: the pane may be recomputed while it runs.
  raw->worker = std::thread([raw, sc = pane.scenario, fn = policy_.compute] {
    TotalsOptions opt;
    opt.cancel = &raw->cancel;
    opt.blocks_done = &raw->blocks_done;
    raw->result = fn(sc, opt);
    raw->finished.store(true, std::memory_order_release);
  });
  jobs_[static_cast<size_t>(which)] = std::move(job);
  pane.totals.reset();
  pane.totals_error.clear();
  pane.totals_running = true;
  pane.totals_cancelling = false;
  pane.totals_blocks_done = 0;
}

// A job whose result is no longer wanted: cancel it and keep it until its thread ends.
void AppModel::retire_job(int which) {
  std::unique_ptr<Job>& j = jobs_[static_cast<size_t>(which)];
  if (!j) return;
  j->cancel.store(true);
  retired_.push_back(std::move(j));
}

bool AppModel::totals_running() const {
  return jobs_[0] != nullptr || jobs_[1] != nullptr;
}

// "Suggest a layout": start, cancel, take the result, apply the best or the one clicked. The best is
// applied only if the configuration was not edited while the search ran (else it is only listed).
bool AppModel::update_suggestion(UiState& state) {
  SuggestRequest& req = state.suggest;
  SuggestModel& sm = suggester_.model();
  bool changed = false;
  auto apply = [&](int index) {
    if (!sm.result || index < 0 || index >= static_cast<int>(sm.result->ranked.size())) return;
    ConfigState& cfg = state.configs[static_cast<size_t>(sm.which)];
    if (sm.array >= static_cast<int>(cfg.spec.arrays.size())) return;
    cfg.spec = with_layout(cfg.spec, sm.array, sm.result->ranked[static_cast<size_t>(index)].layout);
    cfg.touch();
    sm.revision = cfg.revision;
    sm.applied = index;
    changed = true;
  };
  if (req.start) {
    req.start = false;
    const ConfigState& cfg = state.configs[static_cast<size_t>(state.edit)];
    suggester_.start(cfg.spec, state.edit, cfg.array, cfg.revision);
    changed = true;
  }
  if (req.cancel) {
    req.cancel = false;
    suggester_.cancel();
  }
  const bool was_running = sm.running;
  changed = suggester_.poll() || changed;
  if (was_running && !sm.running && sm.result &&
      state.configs[static_cast<size_t>(sm.which)].revision == sm.revision) {
    apply(0);
  }
  if (req.apply >= 0) {
    apply(req.apply);
    req.apply = -1;
  }
  return changed;
}

bool AppModel::update(UiState& state) {
  bool changed = false;
  for (size_t i = 0; i < panes_.size(); ++i) {
    PaneModel& pane = panes_[i];
    if (pane.revision != state.configs[i].revision) {
      // On the UI thread only a bounded run; past ui_thread_blocks simulated blocks the rest
      // moves to a worker.
      TotalsOptions bounded;
      bounded.max_simulated_blocks = policy_.ui_thread_blocks;
      compute_pane(state.configs[i], pane, bounded, policy_.compute);
      // A failed edit keeps the last good picture, and that picture's totals worker runs on.
      if (pane.ok) {
        retire_job(static_cast<int>(i));
        if (pane.totals && !pane.totals->complete) start_job(static_cast<int>(i));
      }
      changed = true;
    }
    Job* job = jobs_[i].get();
    if (state.cancel_totals[i]) {
      state.cancel_totals[i] = false;
      if (job) {
        job->cancel.store(true);
        pane.totals_cancelling = true;
      }
    }
    if (!job) continue;
    pane.totals_blocks_done = job->blocks_done.load();
    if (!job->finished.load(std::memory_order_acquire)) continue;
    job->worker.join();  // the worker has finished: this only reaps the thread
    if (job->result && job->result->ok()) {
      pane.totals = std::move(*job->result).value();
      pane.totals_error.clear();
    } else {
      pane.totals.reset();
      pane.totals_error = job->result ? job->result->error().message : "no result";
    }
    pane.totals_running = false;
    pane.totals_cancelling = false;
    jobs_[i].reset();
    changed = true;
  }
  // Reap cancelled jobs that have ended.
  retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                [](std::unique_ptr<Job>& j) {
                                  if (!j->finished.load(std::memory_order_acquire)) return false;
                                  j->worker.join();
                                  return true;
                                }),
                 retired_.end());
  changed = update_suggestion(state) || changed;
  if (state.trace.active() ? (trace_.revision != state.trace.revision ||
                               trace_.source != state.trace.loaded.get())
                             : trace_.source != nullptr) {
    compute_trace_view(state.trace, trace_);
    changed = true;
  }
  if (changed) {
    // Keep the animation inside the new instruction.
    const int total = total_cycles(state);
    if (state.anim.cycle >= total) state.anim.cycle = std::max(0, total - 1);
  }
  return changed;
}

// ---- traces --------------------------------------------------------------------------------------

namespace {

// Collects the executions of one instruction (launch number, pc index) as the trace is re-read.
class ExecutionCollector : public TraceSink {
 public:
  ExecutionCollector(size_t launch, uint32_t pc_index, std::vector<TraceWarp>* out)
      : launch_(launch), pc_index_(pc_index), out_(out) {}
  void on_launch(const TraceLaunch&) override { ++seen_; }
  void on_warp(const TraceWarp& w, const TracePc&) override {
    if (seen_ != launch_ + 1 || w.pc_index != pc_index_) return;
    if (out_->size() < kTraceViewMaxExecutions) {
      out_->push_back(w);
    } else {
      capped = true;
    }
  }
  bool capped = false;

 private:
  size_t launch_;
  uint32_t pc_index_;
  std::vector<TraceWarp>* out_;
  size_t seen_ = 0;  // launches begun so far
};

}  // namespace

std::string trace_row_text(const TraceRow& row) {
  char pc[32];
  std::snprintf(pc, sizeof pc, "pc 0x%llx", static_cast<unsigned long long>(row.stats.pc.pc));
  std::string s = row.stats.pc.opcode + "  " + pc;
  if (row.stats.pc.line != 0) {
    s += "  " + std::filesystem::path(row.stats.pc.file).filename().string() + ":" +
         std::to_string(row.stats.pc.line);
  }
  return s;
}

Result<std::shared_ptr<const LoadedTrace>> load_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open the trace file"};
  auto t = std::make_shared<LoadedTrace>();
  t->path = path;
  t->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return Error{path + ": cannot read the trace file"};
  Result<TraceReports> r = report_trace(t->bytes.data(), t->bytes.size());
  if (!r) return Error{path + ": " + r.error().message};
  t->report = std::move(r->traced);
  for (size_t li = 0; li < t->report.launches.size(); ++li) {
    const LaunchReport& l = t->report.launches[li];
    for (const PcStats& ps : l.pcs) {
      if (ps.executions == 0) continue;  // declared, never executed: nothing to step through
      t->rows.push_back(TraceRow{li, ps.pc.index, l.launch.kernel, ps});
    }
  }
  if (t->rows.empty()) return Error{path + ": the trace holds no shared-memory instruction execution"};
  // Hottest first: most excess wavefronts (bank conflicts), then most executions; ties keep trace order.
  std::stable_sort(t->rows.begin(), t->rows.end(), [](const TraceRow& a, const TraceRow& b) {
    if (a.stats.excess() != b.stats.excess()) return a.stats.excess() > b.stats.excess();
    return a.stats.executions > b.stats.executions;
  });
  return std::shared_ptr<const LoadedTrace>(std::move(t));
}

Result<bool> open_trace(UiState& state, const std::string& path) {
  Result<std::shared_ptr<const LoadedTrace>> t = load_trace_file(path);
  if (!t) return t.error();
  state.trace.loaded = std::move(t).value();
  state.trace.instr = 0;
  state.trace.exec = 0;
  state.trace.touch();
  state.compare = false;
  state.anim.cycle = 0;
  state.anim.accumulator = 0;
  return true;
}

void compute_trace_view(TraceState& state, TraceView& view) {
  view.revision = state.revision;
  PaneModel& pane = view.pane;
  pane.ok = false;
  if (!state.loaded) {
    view = TraceView{};
    return;
  }
  const LoadedTrace& t = *state.loaded;
  state.instr = std::clamp(state.instr, 0, static_cast<int>(t.rows.size()) - 1);
  const TraceRow& row = t.rows[static_cast<size_t>(state.instr)];
  if (view.source != &t || view.instr != state.instr) {
    view.executions.clear();
    ExecutionCollector c(row.launch, row.pc_index, &view.executions);
    // The bytes already decoded once in load_trace_file: a second read cannot fail.
    Result<TraceSummary> s = read_trace(t.bytes.data(), t.bytes.size(), c);
    assert(s.ok() && "a trace that loaded reads again");
    (void)s;
    view.executions_capped = c.capped;
    view.source = &t;
    view.instr = state.instr;
  }
  if (view.executions.empty()) {  // cannot happen for a listed row; said rather than asserted
    pane.error = "this instruction has no execution in the trace";
    return;
  }
  state.exec = std::clamp(state.exec, 0, static_cast<int>(view.executions.size()) - 1);
  view.exec = state.exec;
  const TraceWarp& w = view.executions[static_cast<size_t>(state.exec)];
  const TracePc& pc = row.stats.pc;
  if (!row.stats.modelled()) {
    pane.error = pc.opcode + " (" + trace_op_kind_name(pc.kind) +
                 ") is not modelled by the bank model: only LDS/STS-like loads and stores are";
    pane.have = false;
    return;
  }
  WarpAccess a;
  a.op = pc.kind == TraceOpKind::kStore ? Op::kStore : Op::kLoad;
  a.width = pc.width;
  a.mask = w.mask;
  // Trace addresses include the launch's reserved window (1 KiB on sm_90, trace.hpp); drawn from
  // the program's own shared memory on, so rows match the kernel's arrays. The window is a
  // multiple of 128 bytes, so no bank changes.
  const uint64_t reserved = t.report.launches[row.launch].launch.reserved_bytes;
  bool shift = reserved % 128 == 0;
  for (int l = 0; l < kWarpSize; ++l) {
    if (w.mask >> l & 1u) shift = shift && w.addr[static_cast<size_t>(l)] >= reserved;
  }
  for (int l = 0; l < kWarpSize; ++l) {
    const uint32_t addr = w.addr[static_cast<size_t>(l)];
    a.addr[static_cast<size_t>(l)] =
        (w.mask >> l & 1u) ? (shift ? addr - static_cast<uint32_t>(reserved) : addr) : 0;
  }
  const BankConfig banks;  // the aggregator costs traces with the default 32 x 4-byte banks
  Result<WarpAccess> valid = validate(a, banks);
  if (!valid) {
    pane.error = valid.error().message;
    return;
  }
  pane.report = simulate(*valid, banks);
  pane.instructions.clear();
  pane.selected = 0;
  pane.declaration = trace_row_text(row);
  pane.ok = true;
  pane.have = true;
  pane.error.clear();
}

std::string count_text(uint64_t v, bool saturated) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  if (saturated && v == kCountMax) return "> " + s + " (exceeds 2^64)";
  return s;
}

std::string conflicts_text(const OpTotals& t) {
  if (t.saturated && (t.wavefronts == kCountMax || t.ideal == kCountMax)) {
    return "unknown (wavefronts exceed 2^64)";
  }
  return count_text(t.wavefronts - t.ideal);
}

std::vector<std::string> totals_notes(const PaneModel& pane) {
  std::vector<std::string> out;
  if (pane.totals_running) {
    out.push_back(std::string(pane.totals_cancelling ? "cancelling" : "computing") + ": " +
                  count_text(pane.totals_blocks_done) + " of " + count_text(pane.totals_blocks) +
                  " blocks");
    return out;
  }
  if (!pane.totals || pane.totals->complete) return out;
  const LaunchTotals& t = *pane.totals;
  out.push_back("lower bound: exact over " + count_text(t.blocks_counted) + " of " +
                count_text(t.blocks) + " blocks (" +
                (t.stopped_because.empty() ? std::string("stopped early") : t.stopped_because) + ")");
  out.push_back("estimate (sample of " + count_text(t.blocks_counted) + " blocks): ld wavefronts ~ " +
                count_text(t.estimate_ld.wavefronts, t.estimate_ld.saturated) + ", st wavefronts ~ " +
                count_text(t.estimate_st.wavefronts, t.estimate_st.saturated));
  return out;
}

int AppModel::total_cycles(const UiState& state) const {
  int total = 1;
  if (state.trace.active()) {
    return trace_.pane.have ? std::max(total, trace_.pane.report.cost.wavefronts) : total;
  }
  for (int i = 0; i < 2; ++i) {
    if (!state.compare && i != state.edit) continue;
    const PaneModel& p = panes_[static_cast<size_t>(i)];
    if (p.have) total = std::max(total, p.report.cost.wavefronts);
  }
  return total;
}

void AppModel::advance(UiState& state, double dt) const {
  AnimationState& a = state.anim;
  if (!a.playing) return;
  const int total = total_cycles(state);
  a.accumulator += dt * static_cast<double>(a.speed);
  while (a.accumulator >= 1.0) {
    a.accumulator -= 1.0;
    if (a.cycle + 1 < total) {
      ++a.cycle;
    } else if (a.loop) {
      a.cycle = 0;
    } else {
      a.playing = false;
      a.accumulator = 0;
      break;
    }
  }
}

void load_seed_pair(UiState& state) {
  const int64_t strides[2] = {32, 33};
  for (int i = 0; i < 2; ++i) {
    ConfigState& c = state.configs[static_cast<size_t>(i)];
    const uint64_t rev = c.revision;
    c = ConfigState{};
    c.spec = seed_transpose_spec(strides[i]);
    c.source = "built-in";
    c.instruction = 1;  // warp 0 runs the row write (0), then the transposed column read (1)
    c.revision = rev + 1;
  }
  state.anim.cycle = 0;
  state.anim.accumulator = 0;
}

Result<bool> load_scenario_into(UiState& state, int which, const std::string& path) {
  Result<ScenarioSpec> spec = load_scenario_file(path);
  if (!spec) return spec.error();
  // Reject a file that does not compile too, so the previous scenario stays on screen.
  Result<Scenario> compiled = compile(*spec);
  if (!compiled) return compiled.error();
  ConfigState& c = state.configs[static_cast<size_t>(which)];
  const uint64_t rev = c.revision;
  c = ConfigState{};
  c.spec = std::move(spec).value();
  c.source = path;
  c.revision = rev + 1;
  state.anim.cycle = 0;
  state.anim.accumulator = 0;
  return true;
}

std::vector<Preset> find_presets(const std::string& dir) {
  std::vector<Preset> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    out.push_back(Preset{entry.path().stem().string(), entry.path().string()});
  }
  std::sort(out.begin(), out.end(),
            [](const Preset& a, const Preset& b) { return a.name < b.name; });
  return out;
}

Result<bool> load_preset(UiState& state, int index) {
  if (index < 0 || index >= static_cast<int>(state.presets.size())) {
    return Error{"preset " + std::to_string(index + 1) + ": there are " +
                 std::to_string(state.presets.size()) + " presets"};
  }
  return load_scenario_into(state, state.edit, state.presets[static_cast<size_t>(index)].path);
}

Result<bool> save_config(const UiState& state, int which, const std::string& path) {
  return save_scenario_file(path, state.configs[static_cast<size_t>(which)].spec);
}

Result<std::vector<ScriptStep>> parse_script(const std::string& text, const std::string& source) {
  std::vector<ScriptStep> steps;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    ScriptStep step;
    step.line = number;
    if (!(words >> step.verb)) continue;
    std::string w;
    while (words >> w) step.args.push_back(w);
    steps.push_back(std::move(step));
  }
  if (steps.empty()) return Error{source + ": the script has no steps"};
  return steps;
}

Result<bool> apply_step(const ScriptStep& step, UiState& state, AppModel& model) {
  const std::string where = "line " + std::to_string(step.line) + ": '" + step.verb + "'";
  auto err = [&](const std::string& what) { return Error{where + ": " + what}; };
  auto need = [&](size_t n) { return step.args.size() == n; };
  auto int_arg = [&](size_t i, int64_t* v) { return i < step.args.size() && parse_int(step.args[i], v); };
  ConfigState& cfg = state.configs[static_cast<size_t>(state.edit)];
  const std::string& v = step.verb;
  int64_t a = 0, b = 0, c = 0;
  bool flag = false;

  if (v == "frames" || v == "screenshot") return false;  // the main loop runs these
  if (v == "stride") {
    if (!need(1) || !int_arg(0, &a) || a < 1) return err("expects a row stride >= 1");
    set_row_stride(cfg, a);
  } else if (v == "pad") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects a padding >= 0 (elements)");
    set_row_stride(cfg, logical_cols(cfg) + a);
  } else if (v == "xor") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects an xor mask >= 0");
    edited_array(cfg).xor_mask = a;
    cfg.touch();
  } else if (v == "swizzle") {
    if (!need(3) || !int_arg(0, &a) || !int_arg(1, &b) || !int_arg(2, &c)) {
      return err("expects B M S");
    }
    ArraySpec& arr = edited_array(cfg);
    arr.swizzle_bits = static_cast<int>(a);
    arr.swizzle_base = static_cast<int>(b);
    arr.swizzle_shift = static_cast<int>(c);
    cfg.touch();
  } else if (v == "type") {
    if (!need(1) || !parse_element_type(step.args[0])) {
      return err("expects an element type (char half float double float2 float4)");
    }
    edited_array(cfg).type = step.args[0];
    cfg.touch();
  } else if (v == "op") {
    if (!need(1) || (step.args[0] != "ld" && step.args[0] != "st")) return err("expects ld or st");
    const PaneModel& p = model.pane(state.edit);
    if (!p.have) return err("no instruction is selected");
    const int stmt = p.instructions[static_cast<size_t>(p.selected)].stmt;
    cfg.spec.accesses[static_cast<size_t>(stmt)].op = step.args[0];
    cfg.touch();
  } else if (v == "block") {
    if (step.args.size() < 2 || step.args.size() > 3 || !int_arg(0, &a) || !int_arg(1, &b) ||
        a < 1 || b < 1) {
      return err("expects X Y [Z] >= 1");
    }
    c = 1;
    if (step.args.size() == 3 && (!int_arg(2, &c) || c < 1)) return err("expects Z >= 1");
    cfg.spec.block = Dim3{a, b, c};
    cfg.warp = 0;
    cfg.instruction = -1;
    cfg.touch();
  } else if (v == "warp") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects a warp index >= 0");
    cfg.warp = static_cast<int>(a);
    cfg.touch();
  } else if (v == "instr") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects an instruction index >= 0");
    cfg.instruction = static_cast<int>(a);
    cfg.touch();
  } else if (v == "mask") {
    if (!need(1) || !int_arg(0, &a) || a < 0 || a > 0xffffffffLL) return err("expects a 32-bit mask");
    cfg.lane_mask = static_cast<uint32_t>(a);
    cfg.touch();
  } else if (v == "n") {
    if (!need(1) || !int_arg(0, &a) || a < 1) return err("expects a matrix size >= 1");
    cfg.spec.n = a;
    cfg.touch();
  } else if (v == "cycle") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects a cycle >= 0");
    model.update(state);
    state.anim.cycle = static_cast<int>(std::min<int64_t>(a, model.total_cycles(state) - 1));
  } else if (v == "step" || v == "back") {
    model.update(state);
    const int total = model.total_cycles(state);
    state.anim.playing = false;
    state.anim.cycle = v == "step" ? std::min(state.anim.cycle + 1, total - 1)
                                   : std::max(state.anim.cycle - 1, 0);
  } else if (v == "play" || v == "pause") {
    state.anim.playing = v == "play";
  } else if (v == "speed") {
    double s = 0;
    if (!need(1) || !parse_double(step.args[0], &s) || s <= 0 || s > 1000) {
      return err("expects wavefronts per second in (0, 1000]");
    }
    state.anim.speed = static_cast<float>(s);
  } else if (v == "loop" || v == "compare" || v == "large" || v == "contrast") {
    if (!need(1) || !parse_on_off(step.args[0], &flag)) return err("expects on or off");
    if (v == "loop") state.anim.loop = flag;
    if (v == "compare") state.compare = flag;
    if (v == "large") state.large_font = flag;
    if (v == "contrast") state.high_contrast = flag;
  } else if (v == "edit") {
    if (!need(1) || (step.args[0] != "a" && step.args[0] != "b")) return err("expects a or b");
    state.edit = step.args[0] == "a" ? 0 : 1;
  } else if (v == "suggest") {  // "Suggest a layout", waited for so that a script is deterministic
    if (!need(0)) return err("takes no argument");
    state.suggest.start = true;
    model.update(state);
    while (model.suggestion().running) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      model.update(state);
    }
    if (!model.suggestion().error.empty()) return err(model.suggestion().error);
  } else if (v == "seed") {
    load_seed_pair(state);
  } else if (v == "preset") {
    if (!need(1) || !int_arg(0, &a)) return err("expects a preset number");
    Result<bool> r = load_preset(state, static_cast<int>(a) - 1);
    if (!r) return err(r.error().message);
  } else if (v == "scenario") {
    if (!need(1)) return err("expects a file");
    Result<bool> r = load_scenario_into(state, state.edit, step.args[0]);
    if (!r) return err(r.error().message);
  } else if (v == "results") {
    if (!need(1)) return err("expects a file");
    Result<GpuResults> r = load_gpu_results(step.args[0]);
    if (!r) return err(r.error().message);
    state.results = std::move(r).value();
    state.results_path = step.args[0];
  } else if (v == "trace") {
    if (!need(1)) return err("expects a trace file");
    Result<bool> r = open_trace(state, step.args[0]);
    if (!r) return err(r.error().message);
  } else if (v == "trace_instr" || v == "trace_exec") {
    if (!state.trace.active()) return err("no trace is open (trace FILE first)");
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects an index >= 0");
    const bool instr = v == "trace_instr";
    if (instr && a >= static_cast<int64_t>(state.trace.loaded->rows.size())) {
      return err("the trace lists " + std::to_string(state.trace.loaded->rows.size()) +
                 " instructions (0-based)");
    }
    (instr ? state.trace.instr : state.trace.exec) = static_cast<int>(a);
    if (instr) state.trace.exec = 0;
    state.trace.touch();
    model.update(state);
    if (!instr && model.trace().exec != a) {
      return err("the instruction has " + std::to_string(model.trace().executions.size()) +
                 " executions (0-based)");
    }
    state.anim.cycle = 0;
  } else if (v == "fullscreen") {
    state.request_fullscreen_toggle = true;
  } else {
    return err("unknown step (stride pad xor swizzle type op block warp instr mask n cycle step "
               "back play pause speed loop compare edit seed preset scenario results large "
               "contrast trace trace_instr trace_exec fullscreen frames screenshot)");
  }
  return true;
}

ResultsKey pane_key(const UiState& state, int which, const PaneModel& pane) {
  const ConfigState& cfg = state.configs[static_cast<size_t>(which)];
  std::string name;
  if (cfg.source == "built-in") {
    // From the compiled scenario (the picture on screen), not the edit that may have failed.
    name = seed_file_name(pane.scenario.arrays.empty() ? 0 : pane.scenario.arrays[0].layout.row_stride);
  } else {
    name = std::filesystem::path(cfg.source).filename().string();
  }
  return key_of(name, pane.scenario);
}

const KernelResult* find_result(const UiState& state, int which, const PaneModel& pane,
                                std::string* why) {
  if (!state.results || !pane.have) return nullptr;
  const ResultsKey key = pane_key(state, which, pane);
  const KernelResult* k = state.results->find(key);
  if (!k && why) {
    bool any_keyed = false;
    for (const KernelResult& r : state.results->kernels) any_keyed = any_keyed || r.has_layout_key;
    *why = "no measured row for " + key.describe() + " in " + state.results_path;
    if (!any_keyed && !state.results->kernels.empty()) {
      *why += " (its rows are results format 1, without the layout key: rerun bankscope-gpu validate)";
    }
  }
  return k;
}

}  // namespace bankscope
