// compare.cpp: the main area. One configuration, or two side by side (compare mode, the default:
// the seed's tile[32][32] vs tile[32][33]), each with its own header, numbers, timeline, bank view,
// tile views and launch totals. A configuration whose last edit failed keeps its last good picture
// under a one-line error.
#include <algorithm>
#include <cstdio>

#include "panels/panels.hpp"

namespace bankscope {

namespace {

void draw_pane(const PaneModel& pane, UiState& state, const PaneView& view) {
  const float font = ImGui::GetFontSize();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float top = ImGui::GetCursorPosY();
  ImGui::PushFont(headline_font(state));
  ImGui::TextColored(ImColor(palette::kServe), "%s", view.id().c_str());
  ImGui::SameLine();
  ImGui::TextUnformatted(pane.have ? pane.declaration.c_str() : "(no scenario)");
  ImGui::PopFont();
  if (pane.have) {
    // What is shown, from the picture's own model (not the edit, which may have failed): the
    // statement (numbered as in the selector, "worst" when that was the choice), warp and name.
    // B says how it was paired with A on the same line, so both panes keep one layout.
    const bool paired =
        view.which == 1 && state.compare && !pane.pairing_failed && !pane.pairing.empty();
    const std::string stmt = instruction_text(pane, pane.selected);
    ImGui::Text("%s%s, warp %d, block (0,0) of %s%s%s", pane.worst ? "worst: " : "", stmt.c_str(),
                pane.warp, pane.scenario.spec.name.c_str(), paired ? "; " : "",
                paired ? pane.pairing.c_str() : "");
    if (view.which == 1 && state.compare && pane.pairing_failed) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette::kConflict));
      ImGui::TextWrapped("%s", pane.pairing.c_str());
      ImGui::PopStyleColor();
    }
  }
  if (!pane.ok) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette::kConflict));
    ImGui::TextWrapped("error: %s%s", pane.error.c_str(),
                       pane.have ? " (showing the last valid configuration)" : "");
    ImGui::PopStyleColor();
  }
  if (!pane.have) return;
  draw_numbers(pane, state, view);
  ImGui::Spacing();
  draw_timeline(pane, state, view);
  ImGui::Spacing();
  const float launch_h = line * 11.5f;  // the counter names wrap to two lines in a half window
  const float rest = std::max(font * 10, view.height - (ImGui::GetCursorPosY() - top) - launch_h);
  draw_bank_view(pane, state, PaneView{view.which, view.width, rest * 0.54f});
  ImGui::Spacing();
  draw_tile_views(pane, state, PaneView{view.which, view.width, rest * 0.46f - font});
  draw_launch_numbers(pane, state, view);
}

// An open trace: the instruction list on the left; on the right the selected execution's numbers,
// timeline and bank view (no tile views or launch totals: a trace has no scenario layout).
void draw_trace(const AppModel& model, UiState& state, float width, float height) {
  const TraceView& tv = model.trace();
  const float gap = ImGui::GetFontSize() * 1.5f;
  const float list_w = std::max(ImGui::GetFontSize() * 20, (width - gap) * 0.42f);
  ImGui::BeginChild("trace_list_pane", ImVec2(list_w, height), false, ImGuiWindowFlags_NoScrollbar);
  draw_trace_list(tv, state, ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y);
  ImGui::EndChild();
  ImGui::SameLine(0, gap);
  ImGui::BeginChild("paneA", ImVec2(width - list_w - gap, height), false, ImGuiWindowFlags_NoScrollbar);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const PaneView view{0, avail.x, avail.y};
  const PaneModel& pane = tv.pane;
  const LoadedTrace& t = *state.trace.loaded;
  const TraceRow& row = t.rows[static_cast<size_t>(std::clamp(state.trace.instr, 0, int(t.rows.size()) - 1))];
  ImGui::PushFont(headline_font(state));
  ImGui::TextUnformatted(trace_row_text(row).c_str());
  ImGui::PopFont();
  ImGui::TextWrapped("launch %zu: %s", row.launch, row.kernel.c_str());
  if (!pane.ok) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette::kConflict));
    ImGui::TextWrapped("error: %s", pane.error.c_str());
    ImGui::PopStyleColor();
  }
  if (pane.ok) {
    draw_numbers(pane, state, view);
    ImGui::Spacing();
    draw_timeline(pane, state, view);
    ImGui::Spacing();
    draw_bank_view(pane, state, PaneView{0, view.width, ImGui::GetContentRegionAvail().y});
  }
  ImGui::EndChild();
}

}  // namespace

void draw_compare(const AppModel& model, UiState& state, float width, float height) {
  const bool two = state.compare;
  const float gap = ImGui::GetFontSize() * 1.5f;
  const float pane_w = two ? (width - gap) / 2 : width;
  const float legend_h = ImGui::GetFrameHeightWithSpacing();
  height -= legend_h;
  if (state.trace.active()) {
    draw_trace(model, state, width, height);
    draw_legend(state);
    return;
  }
  for (int i = 0; i < 2; ++i) {
    if (!two && i != state.edit) continue;
    if (two && i == 1) ImGui::SameLine(0, gap);
    const std::string id = std::string("pane") + char('A' + i);
    ImGui::BeginChild(id.c_str(), ImVec2(pane_w, height), false, ImGuiWindowFlags_NoScrollbar);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_pane(model.pane(i), state, PaneView{i, avail.x, avail.y});
    ImGui::EndChild();
  }
  draw_legend(state);
}

}  // namespace bankscope
