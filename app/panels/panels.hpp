// panels.hpp: the visualizer's panels, one file each. A panel draws one model report with ImGui
// (ImDrawList for the bank and tile pictures) and edits UiState; none touches GLFW or OpenGL.
//
//   bank_view.cpp   32 bank columns, words stacked by row, the warp's lanes on the words
//   tile_view.cpp   logical tile and physical layout side by side, coloured by bank
//   animation.cpp   wavefront-by-wavefront timeline and the play/step/speed/loop controls
//   controls.cpp    the sidebar: scenario, layout, access, lane mask, display
//   numbers.cpp     wavefronts, bank conflicts, n-way, efficiency, launch totals, GPU results
//   compare.cpp     one or two configurations side by side (the main area), or an open trace
//   trace_list.cpp  a trace's instructions, hottest first, and stepping through one's executions
//   sweep_chart.cpp wavefronts per instruction against the row stride, beside the stride slider
//   suggest.cpp     "Suggest a layout": the layout advisor, its best applied, alternatives listed
#pragma once

#include <imgui.h>

#include <string>

#include "app_model.hpp"

namespace bankscope {

// Where a pane's panel draws: which configuration (0 = A, 1 = B) and how much room it has.
struct PaneView {
  int which = 0;
  float width = 0;
  float height = 0;
  std::string id() const { return which == 0 ? "A" : "B"; }
};

void draw_bank_view(const PaneModel& pane, UiState& state, const PaneView& view);
void draw_tile_views(const PaneModel& pane, UiState& state, const PaneView& view);
void draw_timeline(const PaneModel& pane, UiState& state, const PaneView& view);
void draw_animation_controls(const AppModel& model, UiState& state);
void draw_controls(const AppModel& model, UiState& state);
void draw_suggest_layout(const AppModel& model, UiState& state);  // suggest.cpp
void draw_numbers(const PaneModel& pane, UiState& state, const PaneView& view);
void draw_compare(const AppModel& model, UiState& state, float width, float height);
void draw_trace_list(const TraceView& view, UiState& state, float width, float height);
// The legend: its fixed items, and those of legend_marks() (app_model.hpp) that a shown pane draws.
void draw_legend(UiState& state, const LegendMarks& marks);
// Beside the stride slider: wavefronts per instruction of the selected statement against the
// edited array's row stride (sim/sweep), the current stride marked. `which` = 0 (A) or 1 (B).
void draw_sweep_chart(const ConfigState& cfg, const PaneModel& pane, UiState& state, int which);
// Height the legend takes in `width` (it flows onto more rows when narrow).
float legend_height(float width, const LegendMarks& marks);

// ---- shared drawing helpers (panels/palette.cpp) ------------------------------------------------
// Okabe-Ito colours (safe for the common colour-vision deficiencies); every state they mark is
// also told by shape (hatching, outlines) or text, never by red vs green alone.
namespace palette {
inline constexpr ImU32 kServe = IM_COL32(0xE6, 0x9F, 0x00, 0xFF);     // orange: serving now
inline constexpr ImU32 kDone = IM_COL32(0x56, 0xB4, 0xE9, 0xFF);      // sky blue: served
inline constexpr ImU32 kWaiting = IM_COL32(0x00, 0x72, 0xB2, 0xFF);   // blue: waiting
inline constexpr ImU32 kConflict = IM_COL32(0xD5, 0x5E, 0x00, 0xFF);  // vermillion + hatching
inline constexpr ImU32 kPadding = IM_COL32(0x6B, 0x6B, 0x6B, 0xFF);   // grey + hatching
inline constexpr ImU32 kFuture = IM_COL32(0x4A, 0x4A, 0x52, 0xFF);    // timeline: not yet
inline constexpr ImU32 kIdleBank = IM_COL32(0x33, 0x33, 0x3A, 0xFF);
inline constexpr ImU32 kEmptyWord = IM_COL32(0x2B, 0x2B, 0x30, 0xFF);
inline constexpr ImU32 kOutline = IM_COL32(0xFF, 0xFF, 0xFF, 0xFF);
// reddish purple + a double outline: an atomic's lanes on one word, served one after another
inline constexpr ImU32 kSerialize = IM_COL32(0xCC, 0x79, 0xA7, 0xFF);
// light grey, struck out: an ATOMS.CAST.SPIN lane that fails and retries in the next execution
inline constexpr ImU32 kRetry = IM_COL32(0xB8, 0xB8, 0xB8, 0xFF);
}  // namespace palette

// A viridis-like ramp over the banks (perceptually ordered, colour-blind safe).
ImU32 bank_color(int bank, int banks);
// Diagonal hatching inside a rectangle (marks conflicts and padding by shape, not only colour).
void hatch_rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float spacing, float thickness);
// Text colour readable on `bg` (black or white).
ImU32 text_on(ImU32 bg);
// Records a rectangle for --dump-rects under "<pane id>.<name>".
void record_rect(UiState& state, const std::string& name, ImVec2 a, ImVec2 b);
// Background colour of the whole window (depends on high-contrast mode).
ImVec4 clear_color(const UiState& state);
void apply_theme(const UiState& state);

}  // namespace bankscope

namespace bankscope {
// Fonts loaded by main.cpp (null = ImGui's default font). The headline font shows the big numbers.
void set_fonts(ImFont* body, ImFont* headline, ImFont* large_body, ImFont* large_headline);
ImFont* body_font(const UiState& state);
ImFont* headline_font(const UiState& state);
ImFont* body_font(bool large);
ImFont* headline_font(bool large);
// 4194304 -> "4,194,304"
std::string group_digits(uint64_t v);
}  // namespace bankscope

namespace bankscope {
void draw_launch_numbers(const PaneModel& pane, UiState& state, const PaneView& view);
}  // namespace bankscope
