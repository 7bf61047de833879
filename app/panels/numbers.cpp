// numbers.cpp: the instruction's numbers as Nsight Compute defines them (wavefronts, bank
// conflicts = wavefronts - ideal, n-way, efficiency = ideal / wavefronts), the per-launch totals
// for the scenario's N, and, when GPU results are loaded, predicted vs measured with differences
// marked by colour AND a symbol ("=" / "!=") so they read without colour vision. Every count names
// the counter it predicts (sim/counter_names.hpp): per launch the instruction-level smsp__sass_
// counters, for the one warp instruction the l1tex__ ones.
#include <cmath>
#include <cstdio>

#include "panels/panels.hpp"
#include "sim/counter_names.hpp"

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
void compare_row(const char* name, uint64_t predicted, const std::string& predicted_text,
                 const std::optional<uint64_t>& sass, const std::optional<uint64_t>& hw) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::PushTextWrapPos(0.0f);  // counter names are long: wrap inside the column
  ImGui::TextUnformatted(name);
  ImGui::PopTextWrapPos();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(predicted_text.c_str());
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
  // What the first two predict: the hardware counters of this warp instruction run alone.
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + view.width);
  ImGui::TextDisabled("this warp alone: %s, %s", counters::l1tex_wavefronts(rep.access.op),
                      counters::l1tex_bank_conflicts(rep.access.op));
  ImGui::PopTextWrapPos();
}

// Launch totals and GPU comparison: drawn under the pictures.
void draw_launch_numbers(const PaneModel& pane, UiState& state, const PaneView& view) {
  const ScenarioSpec& spec = pane.scenario.spec;
  if (pane.totals_running) {
    // A worker is visiting every block (an index that depends on blockIdx): progress and Cancel.
    const float done = pane.totals_blocks == 0
                           ? 0.0f
                           : float(double(pane.totals_blocks_done) / double(pane.totals_blocks));
    const std::string note = totals_notes(pane).front();
    ImGui::Text("per launch, N = %lld:", static_cast<long long>(spec.n));
    ImGui::ProgressBar(done, ImVec2(view.width * 0.6f, 0), note.c_str());
    ImGui::SameLine();
    if (pane.totals_cancelling) {
      ImGui::TextDisabled("cancelling");
    } else if (ImGui::Button(("Cancel##totals" + view.id()).c_str())) {
      state.cancel_totals[static_cast<size_t>(view.which)] = true;
    }
    return;
  }
  if (!pane.totals) {
    ImGui::TextWrapped("launch totals: %s", pane.totals_error.c_str());
    return;
  }
  const LaunchTotals& t = *pane.totals;
  ImGui::Text("per launch, N = %lld (grid %lldx%lld, %s blocks; ideal %d wavefront%s/instr.)",
              static_cast<long long>(spec.n), static_cast<long long>(t.grid.x),
              static_cast<long long>(t.grid.y), group_digits(t.blocks).c_str(),
              pane.report.cost.ideal_wavefronts, pane.report.cost.ideal_wavefronts == 1 ? "" : "s");
  // A cancelled or bounded run: the numbers are a lower bound; say so, with the estimate.
  for (const std::string& line : totals_notes(pane)) {
    ImGui::TextColored(ImColor(palette::kServe), "%s", line.c_str());
  }
  std::string why;
  const KernelResult* k = find_result(state, view.which, pane, &why);
  const int columns = 5;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable((view.id() + "launch").c_str(), columns, flags, ImVec2(view.width, 0))) {
    ImGui::TableSetupColumn("counter (instruction-level)", ImGuiTableColumnFlags_WidthStretch, 3.5f);
    ImGui::TableSetupColumn(t.complete ? "predicted" : "predicted >=", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn(k ? "H200 SASS" : "SASS", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    // The hardware l1tex__ counter of the same name also counts other warps' L1 traffic.
    ImGui::TableSetupColumn(k ? "H200 l1tex" : "l1tex", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("difference", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableHeadersRow();
    const std::optional<uint64_t> none;
    for (const Op op : {Op::kLoad, Op::kStore}) {
      const OpTotals& o = op == Op::kLoad ? t.ld : t.st;
      const CounterSet* m = k ? (op == Op::kLoad ? &k->measured_ld : &k->measured_st) : nullptr;
      compare_row(counters::wavefronts(op), o.wavefronts, count_text(o.wavefronts, o.saturated),
                  m ? m->wavefronts_sass : none, m ? m->wavefronts : none);
      const bool unknown = o.saturated && (o.wavefronts == kCountMax || o.ideal == kCountMax);
      compare_row(counters::bank_conflicts(op), unknown ? 0 : o.wavefronts - o.ideal, conflicts_text(o),
                  none, m ? m->bank_conflicts : none);
    }
    ImGui::EndTable();
  }
  if (state.results && !k) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + view.width);
    ImGui::TextDisabled("%s", why.c_str());
    ImGui::PopTextWrapPos();
  } else if (k && k->measured_ms) {
    std::string line = "measured " + std::to_string(*k->measured_ms).substr(0, 5) + " ms";
    if (k->measured_gbps) line += ", " + std::to_string(int(*k->measured_gbps)) + " GB/s";
    if (k->predicted_ms) line += "   (timing model: " + std::to_string(*k->predicted_ms).substr(0, 5) + " ms)";
    ImGui::TextUnformatted(line.c_str());
  }
}

}  // namespace bankscope
