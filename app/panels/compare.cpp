// compare.cpp: the main area. One configuration, or two side by side (compare mode, the default:
// the seed's tile[32][32] vs tile[32][33]), each with its own header, numbers, timeline, bank view,
// tile views and launch totals. A configuration whose last edit failed keeps its last good picture
// under a one-line error.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "panels/panels.hpp"

namespace bankscope {

namespace {

// The first of `candidates` that fits `width` in the current font (the last one otherwise).
const std::string& first_fitting(const std::vector<std::string>& candidates, float width) {
  for (const std::string& c : candidates) {
    if (ImGui::CalcTextSize(c.c_str()).x <= width) return c;
  }
  return candidates.back();
}

void draw_pane(const PaneModel& pane, UiState& state, const PaneView& view) {
  const float font = ImGui::GetFontSize();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float top = ImGui::GetCursorPosY();
  // Title: the declaration in the headline font; in a narrow pane without "__shared__ ", then in
  // the body font (the full declaration on hover).
  const std::string decl = pane.have ? pane.declaration : "(no scenario)";
  std::string shorter = decl;
  if (shorter.rfind("__shared__ ", 0) == 0) shorter = shorter.substr(11);
  ImGui::PushFont(headline_font(state));
  ImGui::TextColored(ImColor(palette::kServe), "%s", view.id().c_str());
  ImGui::SameLine();
  const float title_w = ImGui::GetContentRegionAvail().x - 2;  // after "A ", to the pane edge
  const bool head_fits = ImGui::CalcTextSize(shorter.c_str()).x <= title_w;
  if (head_fits) ImGui::TextUnformatted(first_fitting({decl, shorter}, title_w).c_str());
  ImGui::PopFont();
  if (!head_fits) {  // beside "A", wrapping at the pane's edge (2 px: a glyph's edge pixels)
    ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x - 2);
    ImGui::TextUnformatted(shorter.c_str());
    ImGui::PopTextWrapPos();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", decl.c_str());
  if (pane.have) {
    // What is shown, from the picture's own model (not the edit, which may have failed): the
    // statement (numbered as in the selector, "worst" when that was the choice), warp and name.
    // B says how it was paired with A on the same line; one line where it fits (the block and
    // scenario name go first, then on hover).
    const bool paired =
        view.which == 1 && state.compare && !pane.pairing_failed && !pane.pairing.empty();
    const std::string head = std::string(pane.worst ? "worst: " : "") + instruction_text(pane, pane.selected) +
                             ", warp " + std::to_string(pane.warp);
    const std::string pairing = paired ? "; " + pane.pairing : "";
    const std::string full = head + ", block (0,0) of " + pane.scenario.spec.name + pairing;
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + view.width - 2);  // 2 px: a glyph's edge pixels
    ImGui::TextUnformatted(first_fitting({full, head + pairing, head}, view.width).c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", full.c_str());
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
  // The pictures take what the launch totals leave (their height as drawn last frame). When that
  // is too little for readable pictures (lecture fonts in a small window), the totals fold into one
  // line whose tooltip holds them.
  ImGuiStorage* store = ImGui::GetStateStorage();
  const ImGuiID launch_key = ImGui::GetID("launch_h");
  const float launch_h = store->GetFloat(launch_key, line * 11.5f);
  const float used = ImGui::GetCursorPosY() - top;
  const float min_pictures = font * 14;
  const bool fold = view.height - used - launch_h < min_pictures;
  const float rest = std::max(font * 4, view.height - used - (fold ? line * 2 : launch_h) - ImGui::GetStyle().ItemSpacing.y * 3);
  // Still too little room for both pictures: the bank view (the lesson) stays, the tile views fold
  // into a line whose tooltip draws them.
  const bool fold_tiles = fold && rest < font * 14;
  // Folded tiles leave one line under the bank view (its "hover" line), not the two that `rest`
  // kept for the folded totals plus that line: the bank view takes the difference (in lecture
  // mode, room for the 8/16-byte phases note in full).
  const float bank_h =
      fold_tiles ? view.height - used - line - ImGui::GetStyle().ItemSpacing.y * 3 : rest * 0.54f;
  draw_bank_view(pane, state, PaneView{view.which, view.width, bank_h});
  ImGui::Spacing();
  if (fold_tiles) {
    ImGui::TextDisabled("%s", first_fitting({"tile views, launch totals: hover", "tiles, totals: hover"}, view.width).c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      draw_tile_views(pane, state, PaneView{view.which, font * 30, font * 16});
      draw_launch_numbers(pane, state, PaneView{view.which, font * 30, 0});
      ImGui::EndTooltip();
    }
    return;
  }
  draw_tile_views(pane, state, PaneView{view.which, view.width, rest * 0.46f - font});
  if (fold) {
    ImGui::TextDisabled("%s", first_fitting({"per-launch totals: hover (p: more room)", "launch totals: hover"}, view.width).c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      draw_launch_numbers(pane, state, PaneView{view.which, font * 32, 0});
      ImGui::EndTooltip();
    }
  } else {
    const float y0 = ImGui::GetCursorPosY();
    draw_launch_numbers(pane, state, view);
    store->SetFloat(launch_key, ImGui::GetCursorPosY() - y0);
  }
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
  const float gap = body_font(false)->FontSize * 1.5f;  // lecture mode: no narrower panes
  const float pane_w = two ? (width - gap) / 2 : width;
  const float legend_h = legend_height(width);
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
    // A few pixels of side padding: glyphs such as 'j' reach left of their pen position, and a
    // wrapped line starting at the pane's edge would lose them.
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(3, 0));
    ImGui::BeginChild(id.c_str(), ImVec2(pane_w, height), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_AlwaysUseWindowPadding);
    ImGui::PopStyleVar();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_pane(model.pane(i), state, PaneView{i, avail.x, avail.y});
    ImGui::EndChild();
  }
  draw_legend(state);
}

}  // namespace bankscope
