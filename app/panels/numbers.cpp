// numbers.cpp: the instruction's numbers as Nsight Compute defines them (wavefronts, bank
// conflicts = wavefronts - ideal, n-way, efficiency = ideal / wavefronts), the per-launch totals
// for the scenario's N, and, when GPU results are loaded, predicted vs measured with differences
// marked by colour AND a symbol ("=" / "!=") so they read without colour vision.
#include <cmath>
#include <cstdio>

#include "panels/panels.hpp"

namespace bankscope {

namespace {

void metric(const char* value, const char* label, ImFont* big, ImU32 col) {
  ImGui::BeginGroup();
  ImGui::PushFont(big);
  ImGui::PushStyleColor(ImGuiCol_Text, col);
  ImGui::TextUnformatted(value);
  ImGui::PopStyleColor();
  ImGui::PopFont();
  ImGui::TextUnformatted(label);
  ImGui::EndGroup();
}

void count_cell(const std::optional<uint64_t>& v) {
  ImGui::TableNextColumn();
  if (v) {
    ImGui::TextUnformatted(group_digits(*v).c_str());
  } else {
    ImGui::TextDisabled("-");
  }
}

// One counter: the prediction, the instruction-level (SASS) count where ncu has one, the hardware
// l1tex counter, and the difference against the exact count when there is one (the hardware
// counter also counts L1 traffic from other warps, so it reads high under contention).
void compare_row(const char* name, uint64_t predicted, const std::optional<uint64_t>& sass,
                 const std::optional<uint64_t>& hw) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(group_digits(predicted).c_str());
  count_cell(sass);
  count_cell(hw);
  ImGui::TableNextColumn();
  const std::optional<uint64_t>& measured = sass ? sass : hw;
  if (!measured) return;
  const double diff = double(*measured) - double(predicted);
  const double rel = predicted == 0 ? (diff == 0 ? 0.0 : 1.0) : diff / double(predicted);
  const char* against = sass ? "SASS" : "hw";
  if (diff == 0) {
    ImGui::TextColored(ImColor(palette::kDone), "= exact (%s)", against);
  } else if (predicted == 0) {
    ImGui::TextColored(ImColor(palette::kConflict), "!= %+.0f (%s)", diff, against);
  } else if (std::fabs(rel) <= 0.05) {
    ImGui::TextColored(ImColor(palette::kServe), "~ %+.1f%% (%s)", rel * 100, against);
  } else {
    ImGui::TextColored(ImColor(palette::kConflict), "!= %+.1f%% (%s)", rel * 100, against);
  }
}

}  // namespace

void draw_numbers(const PaneModel& pane, UiState& state, const PaneView& view) {
  const AccessReport& rep = pane.report;
  const AccessCost& c = rep.cost;
  ImFont* big = headline_font(state);
  const ImU32 plain = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 bad = c.bank_conflicts() > 0 ? palette::kConflict : palette::kDone;
  char buf[32];
  const float col_w = view.width / 4;
  const float x = ImGui::GetCursorPosX();
  std::snprintf(buf, sizeof buf, "%d", c.wavefronts);
  metric(buf, "wavefronts", big, plain);
  ImGui::SameLine(x + col_w);
  std::snprintf(buf, sizeof buf, "%d", c.bank_conflicts());
  metric(buf, "bank conflicts", big, bad);
  ImGui::SameLine(x + 2 * col_w);
  std::snprintf(buf, sizeof buf, "%d-way", c.n_way);
  metric(buf, "n-way", big, c.n_way > 1 ? palette::kConflict : plain);
  ImGui::SameLine(x + 3 * col_w);
  std::snprintf(buf, sizeof buf, "%.0f%%", rep.efficiency() * 100);
  metric(buf, "efficiency", big, plain);
}

// Launch totals and GPU comparison: drawn under the pictures.
void draw_launch_numbers(const PaneModel& pane, UiState& state, const PaneView& view) {
  const ScenarioSpec& spec = pane.scenario.spec;
  if (!pane.totals) {
    ImGui::TextWrapped("launch totals: %s", pane.totals_error.c_str());
    return;
  }
  const LaunchTotals& t = *pane.totals;
  ImGui::Text("per launch, N = %lld (grid %lldx%lld, %s blocks; ideal %d wavefront%s/instr.)",
              static_cast<long long>(spec.n), static_cast<long long>(t.grid.x),
              static_cast<long long>(t.grid.y), group_digits(t.blocks).c_str(),
              pane.report.cost.ideal_wavefronts, pane.report.cost.ideal_wavefronts == 1 ? "" : "s");
  const KernelResult* k = find_result(state, view.which, pane);
  const int columns = 5;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable((view.id() + "launch").c_str(), columns, flags, ImVec2(view.width, 0))) {
    ImGui::TableSetupColumn("counter");
    ImGui::TableSetupColumn("predicted");
    ImGui::TableSetupColumn(k ? "H200 SASS" : "SASS");
    ImGui::TableSetupColumn(k ? "H200 l1tex" : "l1tex");  // also counts other warps' L1 traffic
    ImGui::TableSetupColumn("difference");
    ImGui::TableHeadersRow();
    const std::optional<uint64_t> none;
    compare_row("ld wavefronts", t.ld.wavefronts, k ? k->measured_ld.wavefronts_sass : none,
                k ? k->measured_ld.wavefronts : none);
    compare_row("ld bank conflicts", t.ld.bank_conflicts(), none, k ? k->measured_ld.bank_conflicts : none);
    compare_row("st wavefronts", t.st.wavefronts, k ? k->measured_st.wavefronts_sass : none,
                k ? k->measured_st.wavefronts : none);
    compare_row("st bank conflicts", t.st.bank_conflicts(), none, k ? k->measured_st.bank_conflicts : none);
    ImGui::EndTable();
  }
  if (state.results && !k) {
    ImGui::TextDisabled("no measured row for this scenario, N and stride in %s", state.results_path.c_str());
  } else if (k && k->measured_ms) {
    std::string line = "measured " + std::to_string(*k->measured_ms).substr(0, 5) + " ms";
    if (k->measured_gbps) line += ", " + std::to_string(int(*k->measured_gbps)) + " GB/s";
    if (k->predicted_ms) line += "   (timing model: " + std::to_string(*k->predicted_ms).substr(0, 5) + " ms)";
    ImGui::TextUnformatted(line.c_str());
  }
}

}  // namespace bankscope
