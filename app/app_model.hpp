// app_model.hpp: the visualizer's state and logic, without GL or ImGui.
//
//   UiState (what the user set: scenario spec, warp, instruction, mask, animation clock, modes)
//     --AppModel::update()--> PaneModel per configuration (compiled scenario, the selected warp
//                             instruction's AccessReport, per-launch totals), recomputed only when
//                             the configuration changed
//
// Panels read PaneModel and edit UiState; script steps (--script) edit UiState through
// apply_step(), so the tests drive the same code the keyboard and mouse do. Nothing here touches
// GLFW, OpenGL or ImGui, so tests/app/test_app_model.cpp runs without a display.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/bank_model.hpp"
#include "sim/gpu_results.hpp"
#include "sim/kernel_model.hpp"
#include "sim/scenario.hpp"
#include "sim/status.hpp"

namespace bankscope {

// One configuration the user edits (compare mode shows two: A and B).
struct ConfigState {
  ScenarioSpec spec;
  std::string source = "built-in";  // file the spec came from, or "built-in"
  int array = 0;                    // which array the layout controls edit
  int warp = 0;                     // warp within block (0, 0, 0)
  int instruction = -1;             // index into the warp's instructions; -1 = the costliest
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

struct Preset {
  std::string name;  // file stem, e.g. "seed_transpose_32x32"
  std::string path;
};

struct UiState {
  std::array<ConfigState, 2> configs;
  bool compare = true;
  int edit = 0;  // which configuration the controls edit (0 = A, 1 = B)
  AnimationState anim;
  bool large_font = false;
  bool high_contrast = false;
  std::vector<Preset> presets;
  std::optional<GpuResults> results;
  std::string results_path;
  std::string message;  // last status line (load/save/screenshot), shown in the window
  bool message_is_error = false;
  // Requests for the window layer, consumed by main.cpp.
  bool request_fullscreen_toggle = false;
  std::string request_screenshot;  // path; "" = none
  // Panels record where they drew (name -> rect) for --dump-rects.
  std::map<std::string, PixelRect> rects;
  // Text buffers of the load/save/results fields.
  std::string path_input = "assets/scenarios/my_scenario.json";
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
  AccessReport report;
  std::optional<LaunchTotals> totals;
  std::string totals_error;
  std::string declaration;  // "__shared__ float tile[32][33]"
  uint64_t revision = 0;
  const SharedArray& array(int i) const { return scenario.arrays[static_cast<size_t>(i)]; }
};

class AppModel {
 public:
  // Recomputes the panes whose configuration changed. Returns true if anything was recomputed.
  bool update(UiState& state);
  const PaneModel& pane(int i) const { return panes_[static_cast<size_t>(i)]; }
  // Cycles the animation needs: the most wavefronts of the visible panes.
  int total_cycles(const UiState& state) const;
  // Advances the animation clock by dt seconds.
  void advance(UiState& state, double dt) const;

 private:
  std::array<PaneModel, 2> panes_;
};

// Recomputes one pane from its configuration (the pure function update() calls).
void compute_pane(const ConfigState& cfg, PaneModel& pane);

// The seed pair: A = tile[32][32], B = tile[32][33], both showing the transposed column read.
void load_seed_pair(UiState& state);
// Loads a scenario file into configuration `which`; on error keeps the old one and returns it.
Result<bool> load_scenario_into(UiState& state, int which, const std::string& path);
// assets/scenarios/*.json sorted by name (the digits 1..9 pick the first nine).
std::vector<Preset> find_presets(const std::string& dir);
Result<bool> load_preset(UiState& state, int index);  // 0-based
// Saves configuration `which` through save_scenario_file (atomic).
Result<bool> save_config(const UiState& state, int which, const std::string& path);

// Layout edits on the edited array of configuration `which`, validated by compile() later.
void set_row_stride(ConfigState& cfg, int64_t stride);
int64_t row_stride(const ConfigState& cfg);  // effective (0 in the spec = cols)
int64_t logical_cols(const ConfigState& cfg);

// One line of a --script file: "stride 33", "step", "screenshot out.png", ...
struct ScriptStep {
  std::string verb;
  std::vector<std::string> args;
  int line = 0;
};
Result<std::vector<ScriptStep>> parse_script(const std::string& text, const std::string& source);
// Applies a step that changes state ("stride", "compare", "step", "preset", ...). Steps the main
// loop handles itself ("frames", "screenshot") return false; unknown steps return an error.
Result<bool> apply_step(const ScriptStep& step, UiState& state, AppModel& model);

// The GPU results row that matches a pane (scenario file name, n, row stride), or null.
const KernelResult* find_result(const UiState& state, int which, const PaneModel& pane);

}  // namespace bankscope
