// app_model.hpp: the visualizer's state and logic, without GL or ImGui.
//
//   UiState (what the user set: scenario spec, warp, instruction, mask, animation clock, modes)
//     --AppModel::update()--> PaneModel per configuration (compiled scenario, the selected warp
//                             instruction's AccessReport, per-launch totals), recomputed only when
//                             the configuration changed
//
// Per-launch totals that need more than a few simulated blocks (an index that depends on blockIdx
// makes launch_totals visit every block: seconds at N = 16384) run on a worker thread, one per
// pane; a new edit cancels the pane's old job (TotalsOptions::cancel), the panel shows blocks done
// with a Cancel button, and a cancelled run is shown as the lower bound and estimate it is. The UI
// thread never waits for a worker except at shutdown (~AppModel).
//
// Panels read PaneModel and edit UiState; script steps (--script) edit UiState through
// apply_step(), so the tests drive the same code the keyboard and mouse do. Nothing here touches
// GLFW, OpenGL or ImGui, so tests/app/test_app_model.cpp runs without a display.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layout_suggest.hpp"
#include "sim/bank_model.hpp"
#include "sim/gpu_results.hpp"
#include "sim/kernel_model.hpp"
#include "sim/scenario.hpp"
#include "sim/status.hpp"
#include "sim/trace_report.hpp"

namespace bankscope {

inline constexpr int kInstrWorst = -1;
inline constexpr int kInstrPinCostliest = -2;

// One configuration the user edits (compare mode shows two: A and B).
struct ConfigState {
  ScenarioSpec spec;
  std::string source = "built-in";  // file the spec came from, or "built-in"
  int array = 0;                    // which array the layout controls edit
  int warp = 0;                     // warp within block (0, 0, 0)
  // Which of the warp's instructions the pane shows: an index, kInstrWorst (an explicit choice,
  // shown as "worst": follows the costliest as the layout changes) or kInstrPinCostliest (a newly
  // loaded file: the costliest is picked once and then stays picked while the layout changes).
  int instruction = kInstrPinCostliest;
  uint32_t lane_mask = 0xffffffffu; // ANDed with the instruction's own (guard) mask
  uint64_t revision = 1;            // bumped on every edit; AppModel recomputes when it changes
  void touch() { ++revision; }
};

// A rectangle in window pixels, recorded by panels so the pixel tests know where to look.
struct PixelRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Serialization animation: one wavefront per "cycle", shared by both panes in compare mode so the
// conflict-free layout visibly finishes first.
struct AnimationState {
  int cycle = 0;           // wavefront being served (0-based)
  bool playing = false;
  bool loop = true;
  float speed = 4.0f;      // wavefronts per second
  double accumulator = 0;  // seconds not yet turned into cycles
};

// ---- traces (bankscope --trace FILE) -----------------------------------------------------------
// One traced instruction of one launch: a row of the trace list (the PcStats of sim/trace_report).
struct TraceRow {
  size_t launch = 0;      // index into TraceReport::launches
  uint32_t pc_index = 0;  // the instruction's index within its launch (TracePc::index)
  std::string kernel;
  PcStats stats;
};

// A trace file, read and aggregated once when opened; the list is sorted by excess wavefronts
// (bank conflicts), most first, so row 0 is the hottest instruction.
struct LoadedTrace {
  std::string path;
  std::vector<uint8_t> bytes;  // kept to re-read the executions of the selected instruction
  TraceReport report;
  std::vector<TraceRow> rows;
};

// The what-if on an open trace (issue 10, item 4, live in the app): a shared array of the traced
// kernel as `bankscope-cli report --array` names it (byte base, type, logical shape; dense
// row-major, as the kernel declared it) and the physical layout to try instead (--layout). Every
// traced address inside the array is remapped through its logical (row, col) by remap_address()
// (sim/trace_report), the function the CLI's report uses, so the app's numbers are the report's.
struct TraceWhatIf {
  std::optional<SharedArray> array;  // the traced array; none = no what-if
  PhysicalLayout layout;             // the layout tried (row_stride = cols: the traced one)
  uint64_t revision = 0;             // bumped on every edit: the whole trace is costed again
  bool active() const { return array.has_value(); }
};

// What the user picked in an open trace. `loaded` is null when no trace is open (scenario mode).
// In compare mode (UiState::compare) with a what-if, A is the trace as recorded, B the what-if.
struct TraceState {
  std::shared_ptr<const LoadedTrace> loaded;
  int instr = 0;  // row of the list
  int exec = 0;   // execution of that instruction, in trace order (0-based)
  TraceWhatIf what_if;
  uint64_t revision = 0;
  bool active() const { return loaded != nullptr; }
  void touch() { ++revision; }
};

struct Preset {
  std::string name;  // file stem, e.g. "seed_transpose_32x32"
  std::string path;
  bool lesson = false;  // one of the lesson's presets (listed first; the others fold away)
};

struct UiState {
  std::array<ConfigState, 2> configs;
  bool compare = true;
  // Compare mode: B shows the statement A shows (same label, else the same op and target, else
  // the same position), so the two sides never silently show different statements.
  bool pair_statements = true;
  int edit = 0;  // which configuration the controls edit (0 = A, 1 = B)
  AnimationState anim;
  bool large_font = false;
  bool high_contrast = false;
  bool presentation = false;  // the sidebar hidden: the main area takes the whole window
  std::vector<Preset> presets;
  std::optional<GpuResults> results;
  std::string results_path;
  std::string message;  // last status line (load/save/screenshot), shown in the window
  bool message_is_error = false;
  // Requests for the window layer, consumed by main.cpp.
  bool request_fullscreen_toggle = false;
  std::string request_screenshot;  // path; "" = none
  std::string request_svg;         // SVG export path (key v, "Export SVG"); "" = none
  // Panels record where they drew (name -> rect) for --dump-rects.
  std::map<std::string, PixelRect> rects;
  // Cancel buttons of the per-launch totals (pane A, B), consumed by AppModel::update().
  std::array<bool, 2> cancel_totals{};
  TraceState trace;
  // "Suggest a layout" (layout_suggest.hpp), consumed by AppModel::update().
  SuggestRequest suggest;
  // Text buffers of the load/save/results fields.
  std::string path_input = "assets/scenarios/my_scenario.json";
  std::string trace_array_input = "tile@0:float[32][32]";  // the what-if array field
};

// What one configuration computes to.
struct PaneModel {
  bool ok = false;
  std::string error;  // why the current spec does not compile/run ("" when ok)
  // The last good result: kept when an edit produces an error, so the picture stays.
  bool have = false;
  Scenario scenario;
  std::vector<WarpInstruction> instructions;
  int selected = 0;  // index into instructions
  bool worst = false;  // selected by the "worst" choice (kInstrWorst)
  int warp = 0;        // the warp this picture is of (the subtitle says this, not the edit)
  // Compare mode, pane B: how its statement was paired with A's ("by label", ...), or why it could
  // not be ("no statement of B matches A's ...": then B shows its own pick, said in red).
  std::string pairing;
  bool pairing_failed = false;
  AccessReport report;
  std::optional<LaunchTotals> totals;  // complete, or a lower bound (totals->complete false)
  std::string totals_error;
  // A worker is computing the totals (totals is empty meanwhile): blocks accounted for so far.
  bool totals_running = false;
  bool totals_cancelling = false;  // Cancel pressed; the worker stops at its next block
  uint64_t totals_blocks_done = 0;
  uint64_t totals_blocks = 0;      // blocks in the grid
  std::string declaration;  // "__shared__ float tile[32][33]"
  uint64_t revision = 0;
  const SharedArray& array(int i) const { return scenario.arrays[static_cast<size_t>(i)]; }
};

// What the selected trace execution computes to: its instruction's executions (read from the trace
// when the instruction changes) and, for the selected one, a pane the bank view, timeline and
// numbers draw like a scenario's (no scenario: `instructions` stays empty).
struct TraceView {
  const LoadedTrace* source = nullptr;
  int instr = -1;              // row whose executions are in `executions`
  std::vector<TraceWarp> executions;
  bool executions_capped = false;  // more than kTraceViewMaxExecutions: the first ones are kept
  int exec = 0;
  PaneModel pane;
  // The what-if (TraceState::what_if): the whole trace costed again with the array remapped (per
  // instruction, parallel to LoadedTrace::rows, and per launch), and the selected execution's
  // remapped lanes as a pane. `what_if_error` says why the layout does not apply.
  bool what_if = false;
  // A trace larger than TotalsPolicy::ui_thread_trace_executions is costed on a worker: the rows
  // and launches are empty meanwhile (the selected execution's pane is not: one warp is cheap).
  bool what_if_running = false;
  std::string what_if_label;  // "tile:stride=33", as --layout spells it
  std::string what_if_error;
  std::vector<PcStats> what_if_rows;
  std::vector<LaunchReport> what_if_launches;
  PaneModel what_if_pane;
  uint64_t what_if_revision = 0;
  const LoadedTrace* what_if_source = nullptr;
  uint64_t revision = 0;
};
inline constexpr size_t kTraceViewMaxExecutions = size_t(1) << 20;

// How per-launch totals are computed: `compute` is launch_totals (tests substitute one they can
// hold and release); a run that needs more than `ui_thread_blocks` simulated blocks moves to a
// worker thread.
using TotalsFn = std::function<Result<LaunchTotals>(const Scenario&, const TotalsOptions&)>;
struct TotalsPolicy {
  uint64_t ui_thread_blocks = 64;
  // A what-if re-costs every execution of the trace (report: ~35 M/s for rows and columns, 5 M/s
  // random lanes); past this many the UI thread hands it to a worker and stays live.
  uint64_t ui_thread_trace_executions = uint64_t(1) << 21;
  TotalsFn compute = launch_totals;
};

class AppModel {
 public:
  AppModel();
  explicit AppModel(TotalsPolicy policy);
  ~AppModel();  // cancels the workers and joins them: the only wait on the UI thread
  AppModel(const AppModel&) = delete;
  AppModel& operator=(const AppModel&) = delete;

  // Recomputes the panes whose configuration changed, starts or cancels totals workers, and takes
  // finished workers' results. Returns true if anything was recomputed or a result arrived.
  bool update(UiState& state);
  // True while a pane's totals worker runs.
  bool totals_running() const;
  // True while the what-if costs of a large trace are computed on a worker.
  bool what_if_running() const;
  const PaneModel& pane(int i) const { return panes_[static_cast<size_t>(i)]; }
  const TraceView& trace() const { return trace_; }
  const SuggestModel& suggestion() const { return suggester_.model(); }
  // Cycles the animation needs: the most wavefronts of the visible panes.
  int total_cycles(const UiState& state) const;
  // Advances the animation clock by dt seconds.
  void advance(UiState& state, double dt) const;

 private:
  struct Job;
  struct WhatIfJob;
  bool refresh(UiState& state, size_t i);
  bool update_trace(UiState& state);
  void pair_b(UiState& state);
  void start_job(int which);
  void retire_job(int which);
  TotalsPolicy policy_;
  std::array<PaneModel, 2> panes_;
  TraceView trace_;
  std::array<std::unique_ptr<Job>, 2> jobs_;
  std::vector<std::unique_ptr<Job>> retired_;  // cancelled, not yet finished
  // The what-if costs of a large trace (one at a time; a newer edit waits for it, then starts).
  std::unique_ptr<WhatIfJob> what_if_job_;
  bool paired_compare_ = false, paired_pair_ = false;  // the modes pair_b() last ran under
  bool update_suggestion(UiState& state);
  LayoutSuggester suggester_;
};

// Recomputes one pane from its configuration (the pure function update() calls), the per-launch
// totals synchronously through `totals` with `opt` (update() bounds them and finishes off-thread).
void compute_pane(const ConfigState& cfg, PaneModel& pane, const TotalsOptions& opt = {},
                  const TotalsFn& totals = launch_totals);

// The instruction of pane `b` showing the statement pane `a` shows: the same label, else the same
// op and target, else the same statement index when both have as many statements with the same
// ops; always the same loop values. -1 when none; `how` says which rule matched.
int paired_instruction(const PaneModel& a, const PaneModel& b, std::string* how = nullptr);
// "1: ld tile[threadIdx.x][threadIdx.y + j]  (j=8)": the selector's and the subtitle's text.
std::string instruction_text(const PaneModel& pane, int index);

// 4194304 -> "4,194,304"; a saturated count (OpTotals::saturated, clamped at 2^64 - 1) is
// "> 18,446,744,073,709,551,615 (exceeds 2^64)".
std::string count_text(uint64_t v, bool saturated = false);
// wavefronts - ideal, or "unknown (...)" once either saturated.
std::string conflicts_text(const OpTotals& t);
// The instruction kinds whose per-launch totals a pane lists: kinds_of (sim/predict_report.hpp),
// as `predict` prints them: ld and st when the scenario has an LDS/STS statement, then ldsm, stsm,
// atom for each such statement kind (a scenario of ldmatrix alone shows no ld/st rows of zeros).
std::vector<Op> shown_kinds(const Scenario& s);

// Whether an access serves its lanes on one word one per wavefront, so that the bank view outlines
// such a word twice: an atomic (R8), but not ATOMS.POPC.INC (served as a load, R8b) nor one
// execution of ATOMS.CAST.SPIN (each bank swaps for one lane, the others fail and retry, R8c).
bool serializes_shared_words(const WarpAccess& a);
// The active lanes on each word an access touches, in lane order (a wide lane on each of its words).
std::map<uint32_t, std::vector<int>> lanes_per_word(const AccessReport& rep);

// The legend's items beyond its fixed ones: marks that only some accesses draw, named when a shown
// pane (of the scenarios, or of an open trace) draws them.
struct LegendMarks {
  bool serialized = false;  // an atomic's lanes on one word: a double outline (R8)
  bool retry = false;       // a CAS spin's failing lanes: grey, struck out (R8c)
  bool tiles = true;        // tile views (bank colours, padding) are shown: not for a trace
};
LegendMarks legend_marks(const AppModel& model, const UiState& state);

// What a pane's per-launch totals are, in words, one line each; empty when they are exact:
// "computing: 1,024 of 262,144 blocks", "lower bound: exact over 64 of 262,144 blocks (cancelled)",
// "estimate (sample of 64 blocks): ld wavefronts ~ ..., st wavefronts ~ ...".
std::vector<std::string> totals_notes(const PaneModel& pane);

// The seed pair: A = tile[32][32], B = tile[32][33], both showing the transposed column read.
void load_seed_pair(UiState& state);
// Loads a scenario file into configuration `which`, on warp 0's costliest instruction (picked from
// the file as written; it stays picked as the layout changes); on error keeps the old one.
Result<bool> load_scenario_into(UiState& state, int which, const std::string& path);
// assets/scenarios/*.json: the lesson's files first in lesson order (kLessonPresets, the keys
// 1..9 pick the first nine), then the rest sorted by name.
std::vector<Preset> find_presets(const std::string& dir);
Result<bool> load_preset(UiState& state, int index);  // 0-based
// Saves configuration `which` through save_scenario_file (atomic).
Result<bool> save_config(const UiState& state, int which, const std::string& path);

// Layout edits on the edited array of configuration `which`, validated by compile() later.
void set_row_stride(ConfigState& cfg, int64_t stride);
int64_t row_stride(const ConfigState& cfg);  // effective (0 in the spec = cols)
int64_t logical_cols(const ConfigState& cfg);

// Reads and aggregates a trace file (sim/trace.hpp). Errors are one line naming the file:
// "t.bstrace: trace: byte 812: ...". A file cut short at a record boundary opens (its launches say
// "no end record"); one cut inside a record is an error.
Result<std::shared_ptr<const LoadedTrace>> load_trace_file(const std::string& path);
// Whether the bank view can draw a row's executions: a costed instruction whose cost is its shared
// words (an LDGSTS is also costed from its global sources, which the view does not draw).
bool trace_row_drawable(const TraceRow& row);
// Opens a trace in the state on its hottest drawable instruction's first execution (row 0 when no
// row is drawable: its pane then says why), single view.
Result<bool> open_trace(UiState& state, const std::string& path);
// Recomputes `view` for the state's selection (clamps instr/exec into range); the pure function
// AppModel::update() calls when the trace selection changed.
// `what_if_inline` false: the whole-trace what-if costs are left to the caller
// (view.what_if_running set, rows empty; AppModel runs cost_what_if on a worker and fills them).
void compute_trace_view(TraceState& state, TraceView& view, bool what_if_inline = true);

// The whole trace costed with the what-if's array remapped: per listed row (parallel to
// LoadedTrace::rows) and per launch. Pure; safe on a worker thread (it only reads `t`).
struct WhatIfCosts {
  std::string error;  // the layout does not apply ("" when the costs are there)
  std::vector<PcStats> rows;
  std::vector<LaunchReport> launches;
};
WhatIfCosts cost_what_if(const LoadedTrace& t, const TraceWhatIf& w);
// "LDS  pc 0x1390  transpose.cu:42" for the list and the pane header.
std::string trace_row_text(const TraceRow& row);

// The what-if on an open trace, spelled as `bankscope-cli report` spells it. set_trace_array:
// "tile@0:float[32][32]" (--array), the layout reset to the traced one (compare mode turns on);
// set_trace_layout: "tile:stride=33", "tile:xor=31", "tile:swizzle=3,2,3", parts joined by ';'
// (--layout; the name must be the array's). set_trace_what_if_layout: a layout from the controls or
// a script step (stride, xor, swizzle). Each checks the layout against the array first
// (make_shared_array) and on error changes nothing: "--layout 'tile:stride=31': ...".
Result<bool> set_trace_array(UiState& state, const std::string& spec);
Result<bool> set_trace_layout(UiState& state, const std::string& spec);
Result<bool> set_trace_what_if_layout(UiState& state, const PhysicalLayout& layout);
void clear_trace_what_if(UiState& state);
// "tile:stride=33", "tile:stride=32;xor=31", "tile:stride=32;swizzle=3,2,3": the what-if layout as
// --layout spells it (apply_layout_spec reads it back); "" without a what-if.
std::string what_if_layout_text(const TraceWhatIf& w);

// One line of a --script file: "stride 33", "step", "screenshot out.png", ...
struct ScriptStep {
  std::string verb;
  std::vector<std::string> args;
  int line = 0;
};
Result<std::vector<ScriptStep>> parse_script(const std::string& text, const std::string& source);
// Applies a step that changes state ("stride", "compare", "step", "preset", ...). Steps the main
// loop handles itself ("frames", "screenshot") return false; unknown steps return an error, and so
// does a step the scenario cannot show ("warp 50 out of range (0..31)"), which is undone. Messages
// name the step, not the line: the caller prefixes "file:line: ".
Result<bool> apply_step(const ScriptStep& step, UiState& state, AppModel& model);

// The identity of what pane `which` predicts: key_of(scenario file basename, compiled scenario).
// The built-in seed scenario is named seed_transpose_32x<stride>.json, like its files.
ResultsKey pane_key(const UiState& state, int which, const PaneModel& pane);
// The GPU results row with exactly that identity (GpuResults::find), or null; then `why` (if
// given) says so: "no measured row for <key> in <file>" (rows of format-1 files never match).
const KernelResult* find_result(const UiState& state, int which, const PaneModel& pane,
                                std::string* why = nullptr);

}  // namespace bankscope
