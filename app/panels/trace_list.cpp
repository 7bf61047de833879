// trace_list.cpp: an open trace's shared-memory instructions, hottest first (most excess
// wavefronts, i.e. bank conflicts), and the controls that step through the selected instruction's
// executions (other blocks, warps, loop iterations). The bank view and timeline beside it draw the
// selected execution's real lanes (compare.cpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "panels/panels.hpp"

namespace bankscope {

namespace {

// Kernel names from the trace are demangled signatures; the list shows the name up to its '('.
std::string short_kernel(const std::string& k) {
  std::string s = k.substr(0, k.find('('));
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  return s.size() > 28 ? s.substr(0, 27) + "~" : s;
}

}  // namespace

void draw_trace_list(const TraceView& view, UiState& state, float width, float height) {
  const LoadedTrace& t = *state.trace.loaded;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::TextUnformatted(std::filesystem::path(t.path).filename().string().c_str());
  // Below the name, wrapped: a narrow list (lecture fonts, 1024 px) must not cut it.
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2);
  ImGui::Text("%zu launches, %s warp executions%s", t.report.launches.size(),
              count_text(t.report.summary.executions).c_str(),
              t.report.summary.complete ? "" : " (cut short: no end record)");
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  if (t.report.summary.dropped > 0) {
    ImGui::TextColored(ImColor(palette::kConflict), "%s executions dropped (trace buffer full)",
                       count_text(t.report.summary.dropped).c_str());
  }

  // Execution stepping: previous / next, or type a number.
  const int n = static_cast<int>(view.executions.size());
  int exec = state.trace.exec;
  if (ImGui::Button("< prev")) exec = std::max(0, exec - 1);
  ImGui::SameLine();
  if (ImGui::Button("next >")) exec = std::min(n - 1, exec + 1);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  ImGui::InputInt("##exec", &exec, 0, 0);
  char range[64];
  std::snprintf(range, sizeof range, "execution (0..%d)%s", n - 1, view.executions_capped ? ", first ones only" : "");
  // Beside the field where it fits, else on its own line.
  const float after_field = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetStyle().ItemSpacing.x;
  if (after_field + ImGui::CalcTextSize(range).x < width - 2) ImGui::SameLine();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2);
  ImGui::TextUnformatted(range);
  ImGui::PopTextWrapPos();
  exec = std::clamp(exec, 0, std::max(0, n - 1));
  if (exec != state.trace.exec) {
    state.trace.exec = exec;
    state.trace.touch();
    state.anim.cycle = 0;
  }
  if (view.exec < n) {
    // Beside the range where it fits (the compare layout's wide list), else on its own line.
    const TraceWarp& w = view.executions[static_cast<size_t>(view.exec)];
    char who[96];
    std::snprintf(who, sizeof who, "block %u, warp %u, %d active lanes (mask 0x%08x)", w.block,
                  w.warp, __builtin_popcount(w.mask), w.mask);
    const float after =
        ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetStyle().ItemSpacing.x * 3;
    if (after + ImGui::CalcTextSize(who).x < width - 2)
      ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 3);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2);
    ImGui::TextUnformatted(who);
    ImGui::PopTextWrapPos();
  }
  ImGui::Spacing();

  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float list_h = std::max(line * 4, height - (ImGui::GetCursorPosY() + line));
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollX;  // narrow: scroll, never cut a count
  // With a what-if, the wavefronts and conflicts columns say both: "16,384 -> 512" (as traced ->
  // the what-if layout), so the comparison stays in view when a narrow list scrolls sideways.
  const bool what_if =
      view.what_if && (view.what_if_running || view.what_if_rows.size() == t.rows.size());
  const bool pending = view.what_if_running;  // a large trace's what-if, still on its worker
  // A count, in the conflict colour when it is one.
  auto conflicts = [](uint64_t v) {
    if (v > 0) {
      ImGui::TextColored(ImColor(palette::kConflict), "%s", count_text(v).c_str());
    } else {
      ImGui::TextUnformatted("0");
    }
  };
  if (ImGui::BeginTable("trace_list", 8, flags, ImVec2(width, list_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    // Every column fits its widest cell; a narrow list scrolls sideways (ScrollX) instead.
    ImGui::TableSetupColumn("launch / kernel", ImGuiTableColumnFlags_WidthFixed);
    for (const char* c : {"pc", "opcode", "line", "execs"}) ImGui::TableSetupColumn(c);
    ImGui::TableSetupColumn(what_if ? "wavefronts A -> B" : "wavefronts");
    ImGui::TableSetupColumn(what_if ? "conflicts A -> B" : "conflicts");
    ImGui::TableSetupColumn("worst");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < t.rows.size(); ++i) {
      const TraceRow& r = t.rows[i];
      const PcStats& s = r.stats;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char label[96];
      std::snprintf(label, sizeof label, "%zu %s##row%zu", r.launch, short_kernel(r.kernel).c_str(),
                    i);
      const bool selected = static_cast<int>(i) == state.trace.instr;
      if (ImGui::Selectable(label, selected, ImGuiSelectableFlags_SpanAllColumns) && !selected) {
        state.trace.instr = static_cast<int>(i);
        state.trace.exec = 0;
        state.trace.touch();
        state.anim.cycle = 0;
      }
      ImGui::TableNextColumn();
      ImGui::Text("0x%llx", static_cast<unsigned long long>(s.pc.pc));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.pc.opcode.c_str());
      ImGui::TableNextColumn();
      if (s.pc.line != 0) {
        ImGui::Text("%u", s.pc.line);
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(count_text(s.executions).c_str());
      if (!s.modelled()) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("not modelled");
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        continue;
      }
      const PcStats* w = what_if && !pending ? &view.what_if_rows[i] : nullptr;
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(count_text(s.wavefronts).c_str());
      if (what_if) {
        ImGui::SameLine(0, 0);
        ImGui::Text(" -> %s", w ? count_text(w->wavefronts).c_str() : "...");
      }
      ImGui::TableNextColumn();
      conflicts(s.excess());
      if (what_if) {
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(" -> ");
        ImGui::SameLine(0, 0);
        if (w) {
          conflicts(w->excess());
        } else {
          ImGui::TextUnformatted("...");
        }
      }
      ImGui::TableNextColumn();
      ImGui::Text("%d-way", s.worst_n_way);
    }
    ImGui::EndTable();
  }
  record_rect(state, "trace.list", top, ImVec2(top.x + width, top.y + list_h));
}

}  // namespace bankscope
