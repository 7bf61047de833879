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
#include <sstream>
#include <thread>

#include "sim/json_io.hpp"
#include "sim/layout.hpp"
#include "sim/predict_report.hpp"

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

// "worst", or a file just loaded: the costliest instruction (ties: the first).
int costliest_instruction(const std::vector<WarpInstruction>& instrs, const BankConfig& banks) {
  int selected = 0, best = -1;
  for (size_t i = 0; i < instrs.size(); ++i) {
    if (!instrs[i].issued) continue;  // a predicated instruction with no lane costs 0
    const int w = cost(instrs[i].access, banks).wavefronts;
    if (w > best) best = w, selected = static_cast<int>(i);
  }
  return selected;
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
  ArraySpec& arr = edited_array(cfg);
  // Names that spell the physical shape ("seed transpose, tile[32][32]") follow the stride, so
  // the subtitle never says tile[32][32] over a [32][33] picture.
  if (arr.dims.size() >= 2) {
    std::string shape;
    for (size_t i = 0; i + 1 < arr.dims.size(); ++i)
      shape += "[" + std::to_string(arr.dims[i]) + "]";
    const int64_t old = arr.row_stride != 0 ? arr.row_stride : arr.dims.back();
    const std::string from = arr.name + shape + "[" + std::to_string(old) + "]";
    const size_t at = cfg.spec.name.find(from);
    if (at != std::string::npos) {
      cfg.spec.name.replace(at, from.size(), arr.name + shape + "[" + std::to_string(stride) + "]");
    }
  }
  arr.row_stride = stride;
  if (cfg.source == "built-in")
    cfg.spec.name = "seed transpose, tile[32][" + std::to_string(stride) + "]";
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
    return fail("warp " + std::to_string(cfg.warp) + " out of range (0.." +
                std::to_string(sc.warps_per_block() - 1) + ")");
  }
  Result<std::vector<WarpInstruction>> instrs = warp_instructions(sc, Dim3{0, 0, 0}, cfg.warp);
  if (!instrs) return fail(instrs.error().message);
  if (instrs->empty()) {
    return fail("warp " + std::to_string(cfg.warp) + " issues no shared-memory instruction");
  }
  int selected = cfg.instruction;
  if (selected >= static_cast<int>(instrs->size())) {
    return fail("instr " + std::to_string(selected) + " out of range (0.." +
                std::to_string(instrs->size() - 1) + ")");
  }
  if (selected < 0) selected = costliest_instruction(*instrs, cfg.spec.banks);
  WarpAccess access = (*instrs)[static_cast<size_t>(selected)].access;
  access.mask &= cfg.lane_mask;
  Result<WarpAccess> valid = validate(access, cfg.spec.banks);
  if (!valid) return fail(valid.error().message);

  pane.report = simulate(*valid, cfg.spec.banks);
  pane.scenario = std::move(compiled).value();
  pane.instructions = std::move(instrs).value();
  pane.selected = selected;
  pane.worst = cfg.instruction == kInstrWorst;
  pane.warp = cfg.warp;
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

// The what-if costs of a large trace on a worker: it writes `costs`, then sets `finished`. It keeps
// the trace alive (shared_ptr) and works on copies, so the UI may open another trace meanwhile.
struct AppModel::WhatIfJob {
  std::shared_ptr<const LoadedTrace> trace;
  TraceWhatIf what_if;
  std::atomic<bool> finished{false};
  WhatIfCosts costs;
  std::thread worker;
};

AppModel::AppModel() = default;
AppModel::AppModel(TotalsPolicy policy) : policy_(std::move(policy)) {}

// Recomputes the trace view when the selection changed; the whole-trace what-if of a large trace
// goes to a worker (one at a time: an edit made meanwhile starts when it ends, the latest wins).
bool AppModel::update_trace(UiState& state) {
  bool changed = false;
  const TraceState& ts = state.trace;
  if (what_if_job_ && what_if_job_->finished.load(std::memory_order_acquire)) {
    what_if_job_->worker.join();
    // Taken only when it is still what the view waits for (no newer edit, the same trace).
    if (trace_.what_if_running && what_if_job_->trace.get() == trace_.what_if_source &&
        what_if_job_->what_if.revision == trace_.what_if_revision) {
      trace_.what_if_rows = std::move(what_if_job_->costs.rows);
      trace_.what_if_launches = std::move(what_if_job_->costs.launches);
      trace_.what_if_running = false;
      changed = true;
    }
    what_if_job_.reset();
  }
  if (ts.active() ? (trace_.revision != ts.revision || trace_.source != ts.loaded.get())
                  : trace_.source != nullptr) {
    const bool inline_costs =
        !ts.active() || ts.loaded->report.summary.executions <= policy_.ui_thread_trace_executions;
    compute_trace_view(state.trace, trace_, inline_costs);
    changed = true;
  }
  if (trace_.what_if_running && !what_if_job_ && ts.active()) {
    auto job = std::make_unique<WhatIfJob>();
    job->trace = ts.loaded;
    job->what_if = ts.what_if;
    WhatIfJob* raw = job.get();
    raw->worker = std::thread([raw] {
      raw->costs = cost_what_if(*raw->trace, raw->what_if);
      raw->finished.store(true, std::memory_order_release);
    });
    what_if_job_ = std::move(job);
  }
  return changed;
}

bool AppModel::what_if_running() const {
  return trace_.what_if_running;
}

AppModel::~AppModel() {
  if (what_if_job_ && what_if_job_->worker.joinable()) what_if_job_->worker.join();
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

// Recomputes pane i if its configuration changed; a newly loaded file's pick is pinned.
bool AppModel::refresh(UiState& state, size_t i) {
  PaneModel& pane = panes_[i];
  ConfigState& cfg = state.configs[i];
  if (pane.revision == cfg.revision) return false;
  // On the UI thread only a bounded run; past ui_thread_blocks simulated blocks the rest
  // moves to a worker.
  TotalsOptions bounded;
  bounded.max_simulated_blocks = policy_.ui_thread_blocks;
  compute_pane(cfg, pane, bounded, policy_.compute);
  // A failed edit keeps the last good picture, and that picture's totals worker runs on.
  if (pane.ok) {
    // The costliest at load time stays picked while the layout changes (same revision: the pane
    // already shows it).
    if (cfg.instruction == kInstrPinCostliest) cfg.instruction = pane.selected;
    retire_job(static_cast<int>(i));
    if (pane.totals && !pane.totals->complete) start_job(static_cast<int>(i));
  }
  return true;
}

// Compare mode: B follows A's statement. If no statement of B matches, B keeps its own pick and
// says so (PaneModel::pairing_failed), never silently.
void AppModel::pair_b(UiState& state) {
  PaneModel& b = panes_[1];
  b.pairing.clear();
  b.pairing_failed = false;
  if (!state.compare || !state.pair_statements || state.trace.active()) return;
  const PaneModel& a = panes_[0];
  if (!a.have || !b.have) return;
  std::string how;
  const int want = paired_instruction(a, b, &how);
  if (want < 0) {
    b.pairing = "B has no statement like A's (" + instruction_text(a, a.selected) +
                "): B shows its own pick";
    b.pairing_failed = true;
    return;
  }
  ConfigState& cfg = state.configs[1];
  if (cfg.instruction != want || b.selected != want) {
    cfg.instruction = want;
    cfg.touch();
    refresh(state, 1);
  }
  b.pairing = "paired with A " + how;
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
  changed |= refresh(state, 0);
  changed |= refresh(state, 1);
  // Pair again when a pane changed or compare mode / pairing was switched on (the c key).
  if (changed || state.compare != paired_compare_ || state.pair_statements != paired_pair_) {
    paired_compare_ = state.compare;
    paired_pair_ = state.pair_statements;
    pair_b(state);
    changed = true;
  }
  for (size_t i = 0; i < panes_.size(); ++i) {
    PaneModel& pane = panes_[i];
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
  changed = update_trace(state) || changed;
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
  auto bytes = read_trace_file(path);
  if (!bytes) return Error{path + ": " + bytes.error().message};
  auto t = std::make_shared<LoadedTrace>();
  t->path = path;
  t->bytes = std::move(*bytes);
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

bool trace_row_drawable(const TraceRow& row) {
  return row.stats.modelled() && row.stats.pc.kind != TraceOpKind::kLdgsts;
}

Result<bool> open_trace(UiState& state, const std::string& path) {
  Result<std::shared_ptr<const LoadedTrace>> t = load_trace_file(path);
  if (!t) return t.error();
  state.trace.loaded = std::move(t).value();
  const std::vector<TraceRow>& rows = state.trace.loaded->rows;
  const auto drawable = std::find_if(rows.begin(), rows.end(), trace_row_drawable);
  state.trace.instr = drawable == rows.end() ? 0 : static_cast<int>(drawable - rows.begin());
  state.trace.exec = 0;
  clear_trace_what_if(state);  // another kernel's arrays: named again for this one
  state.trace.touch();
  state.compare = false;
  state.anim.cycle = 0;
  state.anim.accumulator = 0;
  return true;
}

namespace {

// The selected execution `w` of `row` as a pane, its lanes first remapped through `remaps` (the
// what-if; empty = as traced).
void trace_pane(const TraceRow& row, const TraceWarp& w, uint64_t reserved,
                const std::vector<ArrayRemap>& remaps, PaneModel& pane) {
  pane.ok = false;
  const TracePc& pc = row.stats.pc;
  if (!row.stats.modelled()) {
    pane.error = pc.opcode + " (" + trace_op_kind_name(pc.kind) +
                 ") is not modelled: " + row.stats.model.why;
    pane.have = false;
    return;
  }
  // cp.async's cost depends on each lane's global source as well (R9, sim/ldgsts.hpp); the bank
  // view draws one warp's shared-memory words, so its picture would not be the cost the list shows.
  if (!trace_row_drawable(row)) {
    pane.error = pc.opcode + " (ldgsts): costed from its global sources as well (R9), which the bank view does "
                 "not draw: its numbers are in the instruction list";
    pane.have = false;
    return;
  }
  // The instruction as the report costs it (pc_model: LDSM's matrix count, an atomic's operation).
  WarpAccess a = row.stats.model.access;
  a.mask = w.mask;
  std::array<uint32_t, kWarpSize> addr{};
  for (int l = 0; l < kWarpSize; ++l) {
    const uint32_t x = w.addr[static_cast<size_t>(l)];
    addr[static_cast<size_t>(l)] = (w.mask >> l & 1u) ? remap_address(remaps, reserved, x) : 0;
  }
  // Trace addresses include the launch's reserved window (1 KiB on sm_90, trace.hpp); drawn from
  // the program's own shared memory on, so rows match the kernel's arrays. The window is a
  // multiple of 128 bytes, so no bank changes.
  bool shift = reserved % 128 == 0;
  for (int l = 0; l < kWarpSize; ++l) {
    if (w.mask >> l & 1u) shift = shift && addr[static_cast<size_t>(l)] >= reserved;
  }
  for (int l = 0; l < kWarpSize; ++l) {
    const uint32_t x = addr[static_cast<size_t>(l)];
    a.addr[static_cast<size_t>(l)] =
        (w.mask >> l & 1u) ? (shift ? x - static_cast<uint32_t>(reserved) : x) : 0;
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

std::vector<ArrayRemap> what_if_remaps(const TraceWhatIf& w, std::string* error) {
  if (!w.active()) return {};
  const SharedArray& t = *w.array;
  Result<SharedArray> r = make_shared_array(t.name, t.type, t.shape, w.layout, t.base);
  if (!r) {
    *error = "--layout '" + what_if_layout_text(w) + "': " + r.error().message;
    return {};
  }
  return {ArrayRemap{t, std::move(r).value()}};
}

}  // namespace

WhatIfCosts cost_what_if(const LoadedTrace& t, const TraceWhatIf& w) {
  WhatIfCosts out;
  if (!w.active()) return out;
  std::vector<ArrayRemap> remaps = what_if_remaps(w, &out.error);
  if (!out.error.empty()) return out;
  TraceAggregator agg(std::move(remaps));
  // The bytes already decoded once in load_trace_file: a second read cannot fail.
  Result<TraceSummary> s = read_trace(t.bytes.data(), t.bytes.size(), agg);
  assert(s.ok() && "a trace that loaded reads again");
  TraceReport r = agg.take(s.ok() ? *s : TraceSummary{});
  for (const TraceRow& row : t.rows) {
    PcStats found;
    for (const PcStats& ps : r.launches[row.launch].pcs) {
      if (ps.pc.index == row.pc_index) found = ps;
    }
    out.rows.push_back(std::move(found));
  }
  out.launches = std::move(r.launches);
  return out;
}

void compute_trace_view(TraceState& state, TraceView& view, bool what_if_inline) {
  view.revision = state.revision;
  PaneModel& pane = view.pane;
  pane.ok = false;
  view.what_if_pane.ok = false;
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
  if (view.what_if_source != &t || view.what_if_revision != state.what_if.revision ||
      view.what_if != state.what_if.active()) {
    view.what_if = state.what_if.active();
    view.what_if_label = what_if_layout_text(state.what_if);
    view.what_if_revision = state.what_if.revision;
    view.what_if_source = &t;
    view.what_if_rows.clear();
    view.what_if_launches.clear();
    view.what_if_error.clear();
    std::string error;
    what_if_remaps(state.what_if, &error);  // a bad layout is said at once, whatever the size
    view.what_if_running = view.what_if && error.empty() && !what_if_inline;
    if (!error.empty()) {
      view.what_if_error = error;
    } else if (view.what_if && what_if_inline) {
      WhatIfCosts c = cost_what_if(t, state.what_if);
      view.what_if_rows = std::move(c.rows);
      view.what_if_launches = std::move(c.launches);
    }
  }
  if (view.executions.empty()) {  // cannot happen for a listed row; said rather than asserted
    pane.error = "this instruction has no execution in the trace";
    return;
  }
  state.exec = std::clamp(state.exec, 0, static_cast<int>(view.executions.size()) - 1);
  view.exec = state.exec;
  const TraceWarp& w = view.executions[static_cast<size_t>(state.exec)];
  const uint64_t reserved = t.report.launches[row.launch].launch.reserved_bytes;
  trace_pane(row, w, reserved, {}, pane);
  if (!view.what_if) return;
  if (!view.what_if_error.empty()) {
    view.what_if_pane.ok = false;
    view.what_if_pane.error = view.what_if_error;  // the last good picture stays (have)
    return;
  }
  std::string unused;
  trace_pane(row, w, reserved, what_if_remaps(state.what_if, &unused), view.what_if_pane);
  if (view.what_if_pane.ok) view.what_if_pane.declaration = "what-if " + view.what_if_label;
}

std::string what_if_layout_text(const TraceWhatIf& w) {
  if (!w.active()) return "";
  const SharedArray& a = *w.array;
  const PhysicalLayout& l = w.layout;
  std::string s = a.name + ":stride=" + std::to_string(l.row_stride);
  if (l.xor_mask != 0) s += ";xor=" + std::to_string(l.xor_mask);
  if (!l.swizzle.is_identity()) {
    s += ";swizzle=" + std::to_string(l.swizzle.bits) + "," + std::to_string(l.swizzle.base) + "," +
         std::to_string(l.swizzle.shift);
  }
  return s;
}

Result<bool> set_trace_what_if_layout(UiState& state, const PhysicalLayout& layout) {
  TraceWhatIf& w = state.trace.what_if;
  if (!state.trace.active()) return Error{"no trace is open"};
  if (!w.active())
    return Error{"no what-if array (--array NAME@BYTE:TYPE[ROWS][COLS], script step: array ...)"};
  TraceWhatIf probe = w;
  probe.layout = layout;
  std::string error;
  what_if_remaps(probe, &error);
  if (!error.empty()) return Error{error};
  w.layout = layout;
  ++w.revision;
  state.trace.touch();
  return true;
}

Result<bool> set_trace_array(UiState& state, const std::string& spec) {
  if (!state.trace.active()) return Error{"--array: no trace is open (--trace FILE)"};
  Result<SharedArray> a = parse_array_spec(spec);
  if (!a) return a.error();
  TraceWhatIf& w = state.trace.what_if;
  w.layout = a->layout;  // the traced (dense) layout until a --layout says otherwise
  w.array = std::move(a).value();
  ++w.revision;
  state.trace.touch();
  state.compare = true;  // A as traced beside B, the what-if
  return true;
}

Result<bool> set_trace_layout(UiState& state, const std::string& spec) {
  TraceWhatIf& w = state.trace.what_if;
  if (!state.trace.active()) return Error{"--layout: no trace is open (--trace FILE)"};
  if (!w.active()) return Error{"--layout '" + spec + "': no --array names the array it lays out"};
  Result<SharedArray> r = apply_layout_spec(*w.array, spec);
  if (!r) return r.error();
  return set_trace_what_if_layout(state, r->layout);
}

void clear_trace_what_if(UiState& state) {
  TraceWhatIf& w = state.trace.what_if;
  const uint64_t rev = w.revision;
  w = TraceWhatIf{};
  w.revision = rev + 1;
  state.trace.touch();
}

namespace {
bool same_loops(const WarpInstruction& x, const WarpInstruction& y) {
  if (x.nloops != y.nloops) return false;
  for (int i = 0; i < x.nloops; ++i) {
    if (x.loop_values[static_cast<size_t>(i)] != y.loop_values[static_cast<size_t>(i)])
      return false;
  }
  return true;
}
}  // namespace

int paired_instruction(const PaneModel& a, const PaneModel& b, std::string* how) {
  if (!a.have || !b.have || a.instructions.empty()) return -1;
  const WarpInstruction& ia = a.instructions[static_cast<size_t>(a.selected)];
  const AccessSpec& sa = a.scenario.spec.accesses[static_cast<size_t>(ia.stmt)];
  const auto& accb = b.scenario.spec.accesses;
  bool same_ops = accb.size() == a.scenario.spec.accesses.size();
  for (size_t k = 0; same_ops && k < accb.size(); ++k) {
    same_ops = accb[k].op == a.scenario.spec.accesses[k].op;
  }
  struct Rule {
    const char* name;
    std::function<bool(int stmt)> match;
  };
  const Rule rules[] = {
      {"by label", [&](int st) { return !sa.label.empty() && accb[size_t(st)].label == sa.label; }},
      {"by op and target",
       [&](int st) {
         return accb[size_t(st)].op == sa.op && accb[size_t(st)].target == sa.target;
       }},
      {"by position", [&](int st) { return same_ops && st == ia.stmt; }}};
  for (const Rule& r : rules) {
    for (size_t i = 0; i < b.instructions.size(); ++i) {
      const WarpInstruction& ib = b.instructions[i];
      if (r.match(ib.stmt) && same_loops(ia, ib)) {
        if (how) *how = r.name;
        return static_cast<int>(i);
      }
    }
  }
  return -1;
}

std::string instruction_text(const PaneModel& pane, int index) {
  if (index < 0 || index >= static_cast<int>(pane.instructions.size())) return "";
  return std::to_string(index) + ": " + pane.instructions[static_cast<size_t>(index)].text;
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

bool serializes_shared_words(const WarpAccess& a) {
  return a.op == Op::kAtomic && a.atom != AtomOp::kPopcInc && a.atom != AtomOp::kCastSpin;
}

std::map<uint32_t, std::vector<int>> lanes_per_word(const AccessReport& rep) {
  std::map<uint32_t, std::vector<int>> out;
  for (int l = 0; l < kWarpSize; ++l) {
    const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
    for (int k = 0; d.active && k < d.words; ++k) out[d.word[static_cast<size_t>(k)]].push_back(l);
  }
  return out;
}

LegendMarks legend_marks(const AppModel& model, const UiState& state) {
  LegendMarks marks;
  // A scenario pane whose edit failed still draws its last valid configuration (draw_pane());
  // a trace pane whose execution the model refuses draws none (draw_trace_side()).
  auto add = [&](const PaneModel& pane, bool drawn_only_when_ok = false) {
    if (!pane.have || (drawn_only_when_ok && !pane.ok)) return;
    const WarpAccess& a = pane.report.access;
    if (a.op == Op::kAtomic && a.atom == AtomOp::kCastSpin) {
      for (const LaneDetail& d : pane.report.lanes) marks.retry |= d.active && d.retries;
      return;
    }
    if (!serializes_shared_words(a)) return;
    // The bank view's double outline: two lanes or more on a word (draw_bank_view(), the same test).
    for (const auto& word : lanes_per_word(pane.report)) marks.serialized |= word.second.size() > 1;
  };
  if (state.trace.active()) {
    marks.tiles = false;  // a trace has no scenario array to draw
    const TraceView& tv = model.trace();
    const bool what_if = tv.what_if && tv.what_if_pane.have;
    if (!what_if || state.compare) add(tv.pane, true);
    if (what_if) add(tv.what_if_pane, true);
    return marks;
  }
  for (int i = 0; i < 2; ++i) {
    if (state.compare || i == state.edit) add(model.pane(i));
  }
  return marks;
}

std::vector<Op> shown_kinds(const Scenario& s) {
  return kinds_of(s);
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
  std::string est = "estimate (sample of " + count_text(t.blocks_counted) + " blocks): ";
  const char* sep = "";
  for (Op op : shown_kinds(pane.scenario)) {
    const OpTotals& e = t.estimate_of(op);
    est += std::string(sep) + totals_key(op) + " wavefronts ~ " +
           count_text(e.wavefronts, e.saturated);
    sep = ", ";
  }
  out.push_back(est);
  return out;
}

int AppModel::total_cycles(const UiState& state) const {
  int total = 1;
  if (state.trace.active()) {
    if (trace_.pane.have) total = std::max(total, trace_.pane.report.cost.wavefronts);
    // Compare mode: the animation runs until the slower side is done (the what-if finishes first).
    if (state.compare && trace_.what_if && trace_.what_if_pane.have) {
      total = std::max(total, trace_.what_if_pane.report.cost.wavefronts);
    }
    return total;
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
  // The file opens on its own costliest statement of warp 0, picked before any edit (--stride 33
  // would tie the 32x8 tile's row write with its column read and pick the write).
  if (Result<std::vector<WarpInstruction>> in = warp_instructions(*compiled, Dim3{0, 0, 0}, 0);
      in && !in->empty()) {
    c.instruction = costliest_instruction(*in, spec->banks);
  }
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
  // The lesson: the seed pair, the 32x8 tiled pair, its XOR and swizzle fixes, then the wider
  // elements (double, float4) where padding by one is not enough. Keys 1..9 are the first nine.
  // Then the tensor-core tile (issue 11): ldmatrix.x4 of a 64x64 half tile, unswizzled and with
  // the 128-byte swizzle (presets 11 and 12: the menu, no key).
  static const char* const kLessonPresets[] = {
      "seed_transpose_32x32",    "seed_transpose_32x33",    "tiled_32x8_32x32",
      "tiled_32x8_32x33",        "tiled_32x8_xor",          "tiled_32x8_swizzle",
      "tiled_32x8_double_32x32", "tiled_32x8_double_32x33", "tiled_float4_32x32",
      "tiled_float4_32x33",      "ldmatrix_64x64_half",     "ldmatrix_64x64_half_swizzled"};
  auto rank = [](const std::string& name) {
    const auto* end = std::end(kLessonPresets);
    return static_cast<size_t>(std::find(std::begin(kLessonPresets), end, name) -
                               std::begin(kLessonPresets));
  };
  std::sort(out.begin(), out.end(), [&](const Preset& a, const Preset& b) {
    const size_t ra = rank(a.name), rb = rank(b.name);
    return ra != rb ? ra < rb : a.name < b.name;
  });
  for (Preset& p : out) p.lesson = rank(p.name) < std::size(kLessonPresets);
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

namespace {
// Steps that mean something else on an open trace: the layout steps edit the what-if (stride, pad,
// xor, swizzle; array and layout as the CLI spells them), instr picks a row of the list, warp an
// execution of that warp in the shown execution's block. nullopt: not a trace step (the caller
// goes on with the scenario steps: step, play, compare, large, ...).
std::optional<Result<bool>> apply_trace_step(const ScriptStep& step, UiState& state,
                                             AppModel& model) {
  auto err = [&](const std::string& what) { return Result<bool>(Error{step.verb + ": " + what}); };
  auto need = [&](size_t n) { return step.args.size() == n; };
  auto int_arg = [&](size_t i, int64_t* v) {
    return i < step.args.size() && parse_int(step.args[i], v);
  };
  const std::string& v = step.verb;
  TraceWhatIf& w = state.trace.what_if;
  int64_t a = 0, b = 0, c = 0;
  // A script is deterministic: a what-if edit returns once its costs are in (a large trace's
  // worker, AppModel::update_trace), as `suggest` waits for the advisor.
  auto settle = [&]() -> Result<bool> {
    model.update(state);
    while (model.what_if_running()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      model.update(state);
    }
    return true;
  };
  auto layout_edit = [&](PhysicalLayout l) -> Result<bool> {
    Result<bool> r = set_trace_what_if_layout(state, l);
    if (!r) return err(r.error().message);
    return settle();
  };
  if (v == "array") {
    if (!need(1))
      return err("expects NAME@BYTE_OFFSET:TYPE[ROWS][COLS], e.g. tile@0:float[32][32]");
    Result<bool> r = set_trace_array(state, step.args[0]);
    if (!r) return err(r.error().message);
    return settle();
  }
  if (v == "layout") {
    if (!need(1)) return err("expects NAME:stride=S, NAME:xor=M or NAME:swizzle=B,M,S");
    if (step.args[0] == "off") {
      clear_trace_what_if(state);
      return true;
    }
    Result<bool> r = set_trace_layout(state, step.args[0]);
    if (!r) return err(r.error().message);
    return settle();
  }
  if (v == "stride" || v == "pad" || v == "xor" || v == "swizzle") {
    PhysicalLayout l = w.layout;
    if (v == "stride") {
      if (!need(1) || !int_arg(0, &a) || a < 1 || a > (1 << 20))
        return err("expects a row stride >= 1");
      l.row_stride = static_cast<int>(a);
    } else if (v == "pad") {
      if (!need(1) || !int_arg(0, &a) || a < 0 || a > (1 << 20))
        return err("expects a padding >= 0 (elements)");
      l.row_stride = (w.active() ? w.array->shape.cols : 0) + static_cast<int>(a);
    } else if (v == "xor") {
      if (!need(1) || !int_arg(0, &a) || a < 0 || a > (1 << 20))
        return err("expects an xor mask >= 0");
      l.xor_mask = static_cast<int>(a);
    } else {
      if (!need(3) || !int_arg(0, &a) || !int_arg(1, &b) || !int_arg(2, &c) || a < 0 || b < 0 ||
          c < 0 || a > 16 || b > 16 || c > 16) {
        return err("expects B M S (0..16)");
      }
      l.swizzle = Swizzle{static_cast<int>(a), static_cast<int>(b), static_cast<int>(c)};
    }
    return layout_edit(l);
  }
  if (v == "instr") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects a row of the trace list >= 0");
    return apply_step(ScriptStep{"trace_instr", step.args, step.line}, state, model);
  }
  if (v == "warp") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects a warp index >= 0");
    model.update(state);
    const TraceView& tv = model.trace();
    if (tv.executions.empty()) return err("the instruction has no execution");
    const uint32_t block = tv.executions[static_cast<size_t>(tv.exec)].block;
    for (size_t e = 0; e < tv.executions.size(); ++e) {
      if (tv.executions[e].block == block && tv.executions[e].warp == a) {
        state.trace.exec = static_cast<int>(e);
        state.trace.touch();
        state.anim.cycle = 0;
        return true;
      }
    }
    return err("block " + std::to_string(block) + " has no execution of this instruction by warp " +
               std::to_string(a));
  }
  if (v == "type" || v == "op" || v == "block" || v == "mask" || v == "n" || v == "suggest") {
    return err(
        "edits a scenario; a trace's what-if array is named with: array "
        "NAME@BYTE:TYPE[ROWS][COLS]");
  }
  return std::nullopt;
}

Result<bool> apply_step_unchecked(const ScriptStep& step, UiState& state, AppModel& model) {
  // The caller names the file and line ("p.txt:3: "); the message names the step.
  auto err = [&](const std::string& what) { return Error{step.verb + ": " + what}; };
  auto need = [&](size_t n) { return step.args.size() == n; };
  auto int_arg = [&](size_t i, int64_t* v) { return i < step.args.size() && parse_int(step.args[i], v); };
  ConfigState& cfg = state.configs[static_cast<size_t>(state.edit)];
  const std::string& v = step.verb;
  int64_t a = 0, b = 0, c = 0;
  bool flag = false;

  if (v == "frames" || v == "screenshot") return false;  // the main loop runs these
  if (state.trace.active()) {
    if (std::optional<Result<bool>> r = apply_trace_step(step, state, model)) return *r;
  }
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
    std::string& op = cfg.spec.accesses[static_cast<size_t>(stmt)].op;
    if (op != "ld" && op != "st") return err("switches ld and st; the selected statement is " + op);
    op = step.args[0];
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
    cfg.instruction = kInstrPinCostliest;
    cfg.touch();
  } else if (v == "warp") {
    if (!need(1) || !int_arg(0, &a) || a < 0) return err("expects a warp index >= 0");
    cfg.warp = static_cast<int>(a);
    cfg.touch();
  } else if (v == "instr") {
    if (need(1) && step.args[0] == "worst") {
      a = kInstrWorst;
    } else if (!need(1) || !int_arg(0, &a) || a < 0) {
      return err("expects an instruction index >= 0 or worst");
    }
    cfg.instruction = static_cast<int>(a);
    if (state.edit == 1) state.pair_statements = false;  // B's own pick: it no longer follows A
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
  } else if (v == "array" || v == "layout") {
    return err("no trace is open (trace FILE first)");
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
    return err(
        "unknown step (stride pad xor swizzle type op block warp instr mask n cycle step "
        "back play pause speed loop compare edit seed preset scenario results large "
        "contrast trace trace_instr trace_exec array layout fullscreen frames screenshot)");
  }
  return true;
}
}  // namespace

Result<bool> apply_step(const ScriptStep& step, UiState& state, AppModel& model) {
  // A step the scenario cannot show (warp 50 of 32, instr 99, a stride below the columns) is an
  // error of the script, and leaves the configuration as it was: no subtitle over another picture.
  const int which = state.edit;
  const ConfigState before = state.configs[static_cast<size_t>(which)];
  const bool pair_before = state.pair_statements;
  Result<bool> r = apply_step_unchecked(step, state, model);
  if (!r || state.trace.active()) return r;
  ConfigState& cfg = state.configs[static_cast<size_t>(which)];
  if (cfg.revision == before.revision) return r;
  model.update(state);
  const PaneModel& pane = model.pane(which);
  if (pane.ok) return r;
  const std::string message = pane.error;
  const uint64_t rev = cfg.revision;
  cfg = before;
  cfg.revision = rev + 1;
  state.pair_statements = pair_before;
  model.update(state);
  return Error{message};
}

namespace {
// A results-format-1 row has no layout key and matches nothing (its block, XOR and swizzle are
// unknown), except the one case where its name says the layout: format 1 stored a dynamic_stride
// run at row stride S as kernel "<stem>_S" of file "<stem>_S.json" (validate.json:
// dynamic_stride_34.json for dynamic_stride.json at stride 34). The kernel has one fixed block and
// a plain row-major tile, so the name, n, type and stride identify it when the pane's layout has
// no XOR or swizzle.
const KernelResult* find_format1_result(const GpuResults& results, const ResultsKey& key) {
  if (key.xor_mask != 0 || key.swizzle_bits != 0 || key.scenario.size() <= 5) return nullptr;
  const std::string kernel =
      key.scenario.substr(0, key.scenario.size() - 5) + "_" + std::to_string(key.row_stride);
  for (const KernelResult& r : results.kernels) {
    if (r.has_layout_key || r.n != key.n || r.row_stride != key.row_stride || r.type != key.type)
      continue;
    if (r.kernel == kernel && r.scenario == kernel + ".json") return &r;
  }
  return nullptr;
}
}  // namespace

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
  if (!k) k = find_format1_result(*state.results, key);
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
