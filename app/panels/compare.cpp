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

// The execution's numbers on one line, for a pane too short for draw_numbers' big figures (compare
// mode under the list, lecture fonts): "32 wavefronts, 31 bank conflicts, 32-way, 3%", shortened
// until it fits.
void draw_numbers_line(const PaneModel& pane, const PaneView& view) {
  const AccessCost& c = pane.report.cost;
  char eff[16];
  std::snprintf(eff, sizeof eff, "%.0f%%", pane.report.efficiency() * 100);
  const std::string w = std::to_string(c.wavefronts) + (c.wavefronts == 1 ? " wavefront" : " wavefronts"),
                    b = std::to_string(c.bank_conflicts()),
                    n = std::to_string(c.n_way) + "-way";
  const std::string line =
      first_fitting({w + ", " + b + " bank conflicts, " + n + ", " + eff + " efficiency",
                     w + ", " + b + " conflicts, " + n + ", " + eff, w + ", " + b + " conflicts", w},
                    view.width - 2);
  ImGui::PushStyleColor(
      ImGuiCol_Text,
      ImGui::ColorConvertU32ToFloat4(c.bank_conflicts() > 0 ? palette::kConflict : palette::kDone));
  ImGui::TextUnformatted(line.c_str());
  ImGui::PopStyleColor();
}

// One side of an open trace: the selected execution's header, its instruction over all executions
// (the report's row), numbers, timeline and bank view (no tile views or launch totals: a trace has
// no scenario). `stats` is the instruction as traced (A) or as the what-if costs it (B).
void draw_trace_side(const PaneModel& pane, const PcStats* stats, const std::string& title,
                     const std::vector<std::string>& subtitles, UiState& state,
                     const PaneView& view) {
  const float top = ImGui::GetCursorPosY();
  ImGui::PushFont(headline_font(state));
  ImGui::TextColored(ImColor(palette::kServe), "%s", view.id().c_str());
  ImGui::SameLine();
  const bool fits = ImGui::CalcTextSize(title.c_str()).x <= ImGui::GetContentRegionAvail().x - 2;
  if (fits) ImGui::TextUnformatted(title.c_str());
  ImGui::PopFont();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + view.width - 2);
  if (!fits) ImGui::TextUnformatted(title.c_str());
  ImGui::PopTextWrapPos();
  // One line each, the first form that fits (a kernel signature is long).
  if (!subtitles.empty()) ImGui::TextUnformatted(first_fitting(subtitles, view.width - 2).c_str());
  if (stats == nullptr && view.which == 1 && state.trace.active()) {
    // A large trace's what-if, costed on a worker: this execution is already remapped below.
    ImGui::TextDisabled(
        "%s", first_fitting({"all executions: computing the what-if ...", "all: computing ..."},
                            view.width - 2)
                  .c_str());
  } else if (stats != nullptr && stats->modelled()) {
    const std::string e = count_text(stats->executions), w = count_text(stats->wavefronts),
                      x = count_text(stats->excess());
    ImGui::TextUnformatted(
        first_fitting(
            {"all " + e + " executions: " + w + " wavefronts, " + x + " conflicts",
             e + " executions: " + w + " wavefronts, " + x + " conflicts",
             "all: " + w + " wavefronts, " + x + " conflicts", "all: " + w + " wavefronts"},
            view.width - 2)
            .c_str());
  }
  if (!pane.ok) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette::kConflict));
    ImGui::TextWrapped("error: %s", pane.error.c_str());
    ImGui::PopStyleColor();
    return;
  }
  // The big figures when the bank view keeps room for about 14 rows of words, else one line.
  const float font = ImGui::GetFontSize();
  if (view.height - (ImGui::GetCursorPosY() - top) >= font * 24) {
    draw_numbers(pane, state, view);
  } else {
    draw_numbers_line(pane, view);
  }
  ImGui::Spacing();
  draw_timeline(pane, state, view);
  ImGui::Spacing();
  draw_bank_view(pane, state,
                 PaneView{view.which, view.width, view.height - (ImGui::GetCursorPosY() - top)});
}

// An open trace: the instruction list, and the selected execution's pictures. Single view: the
// list on the left, the execution on the right. Compare mode with a what-if: the list across the
// top, A (as traced) and B (the what-if layout) side by side under it, like two scenarios.
void draw_trace(const AppModel& model, UiState& state, float width, float height) {
  const TraceView& tv = model.trace();
  const float gap = body_font(false)->FontSize * 1.5f;
  const LoadedTrace& t = *state.trace.loaded;
  const int instr = std::clamp(state.trace.instr, 0, int(t.rows.size()) - 1);
  const TraceRow& row = t.rows[static_cast<size_t>(instr)];
  const std::string subtitle = "launch " + std::to_string(row.launch) + ": " + row.kernel;
  // Shorter forms of the subtitle: the kernel's name without its signature, then the launch alone.
  std::string name = row.kernel.substr(0, row.kernel.find('('));
  if (name.rfind("void ", 0) == 0) name = name.substr(5);
  const std::string launch = "launch " + std::to_string(row.launch);
  const std::string short_subtitle = launch + ": " + name;
  const bool two = state.compare && tv.what_if;
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_AlwaysUseWindowPadding;
  if (!two) {
    const float list_w = std::max(ImGui::GetFontSize() * 20, (width - gap) * 0.42f);
    ImGui::BeginChild("trace_list_pane", ImVec2(list_w, height), false,
                      ImGuiWindowFlags_NoScrollbar);
    draw_trace_list(tv, state, ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y);
    ImGui::EndChild();
    ImGui::SameLine(0, gap);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(3, 0));
    ImGui::BeginChild("paneA", ImVec2(width - list_w - gap, height), false, flags);
    ImGui::PopStyleVar();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Single view with a what-if, compare off: the what-if's picture (what the user is trying).
    const bool what_if = tv.what_if && tv.what_if_pane.have;
    const PaneModel& pane = what_if ? tv.what_if_pane : tv.pane;
    const PcStats* stats = !what_if                  ? &row.stats
                           : tv.what_if_rows.empty() ? nullptr
                                                     : &tv.what_if_rows[static_cast<size_t>(instr)];
    draw_trace_side(pane, stats, what_if ? "what-if " + tv.what_if_label : trace_row_text(row),
                    what_if ? std::vector<std::string>{trace_row_text(row) + ", " + subtitle,
                                                       trace_row_text(row)}
                            : std::vector<std::string>{subtitle, short_subtitle, launch},
                    state, PaneView{0, avail.x, avail.y});
    ImGui::EndChild();
    return;
  }
  // The list takes a third of the height (at least its header and four rows); the panes the rest.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float list_h = std::max(line * 8.5f, height * 0.34f);
  ImGui::BeginChild("trace_list_pane", ImVec2(width, list_h), false, ImGuiWindowFlags_NoScrollbar);
  draw_trace_list(tv, state, ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y);
  ImGui::EndChild();
  const float panes_h = height - list_h - ImGui::GetStyle().ItemSpacing.y;
  const float pane_w = (width - gap) / 2;
  for (int i = 0; i < 2; ++i) {
    if (i == 1) ImGui::SameLine(0, gap);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(3, 0));
    ImGui::BeginChild(i == 0 ? "paneA" : "paneB", ImVec2(pane_w, panes_h), false, flags);
    ImGui::PopStyleVar();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const PaneView view{i, avail.x, avail.y};
    if (i == 0) {
      draw_trace_side(tv.pane, &row.stats, "traced " + trace_row_text(row),
                      {subtitle, short_subtitle, launch}, state, view);
    } else {
      // The same instruction and execution as A: the subtitle says only what differs.
      draw_trace_side(
          tv.what_if_pane,
          tv.what_if_rows.empty() ? nullptr : &tv.what_if_rows[static_cast<size_t>(instr)],
          "what-if " + tv.what_if_label,
          {"the same lanes, " + tv.what_if_label.substr(0, tv.what_if_label.find(':')) +
               " remapped",
           "the same lanes"},
          state, view);
    }
    ImGui::EndChild();
  }
}

}  // namespace

void draw_compare(const AppModel& model, UiState& state, float width, float height) {
  const bool two = state.compare;
  const float gap = body_font(false)->FontSize * 1.5f;  // lecture mode: no narrower panes
  const float pane_w = two ? (width - gap) / 2 : width;
  const LegendMarks marks = legend_marks(model, state);
  const float legend_h = legend_height(width, marks);
  height -= legend_h;
  if (state.trace.active()) {
    draw_trace(model, state, width, height);
    draw_legend(state, marks);
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
  draw_legend(state, marks);
}

}  // namespace bankscope
