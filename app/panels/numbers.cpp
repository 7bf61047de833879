// numbers.cpp: the instruction's numbers as Nsight Compute defines them (wavefronts, bank
// conflicts = wavefronts - ideal, n-way, efficiency = ideal / wavefronts), the per-launch totals
// for the scenario's N, and, when GPU results are loaded, predicted vs measured with differences
// marked by colour AND a symbol ("=" / "!=") so they read without colour vision. Every count names
// the counter it predicts (sim/counter_names.hpp): per launch the instruction-level smsp__sass_
// counters, for the one warp instruction the l1tex__ ones.
#include <algorithm>
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
                 const std::optional<uint64_t>& sass, const std::optional<uint64_t>& hw, bool measured_columns) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::PushTextWrapPos(0.0f);  // counter names are long: wrap inside the column
  ImGui::TextUnformatted(name);
  ImGui::PopTextWrapPos();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(predicted_text.c_str());
  if (!measured_columns) return;
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
  char values[4][32];
  std::snprintf(values[0], sizeof values[0], "%d", c.wavefronts);
  std::snprintf(values[1], sizeof values[1], "%d", c.bank_conflicts());
  std::snprintf(values[2], sizeof values[2], "%d-way", c.n_way);
  std::snprintf(values[3], sizeof values[3], "%.0f%%", rep.efficiency() * 100);
  const char* labels[4] = {"wavefronts", "bank conflicts", "n-way", "efficiency"};
  const ImU32 colours[4] = {plain, bad, c.n_way > 1 ? palette::kConflict : plain, plain};
  // Four columns when every number and label fits its column (with a gap), else two, else one:
  // in lecture mode at 1280x720 "32-way" would run into "3%". Two columns may say "conflicts".
  const float gap = ImGui::GetFontSize();
  auto fits = [&](int per_row) {
    const float w = view.width / float(per_row);
    for (int i = 0; i < 4; ++i) {
      const float v = big->CalcTextSizeA(big->FontSize, 1e9f, 0, values[i]).x;
      const float l = ImGui::CalcTextSize(labels[i]).x;
      const bool last = i % per_row == per_row - 1;  // the last column needs no gap after it
      if (std::max(v, l) + (last ? 0 : gap) > w) return false;
    }
    return true;
  };
  int per_row = 4;
  if (!fits(4)) {
    per_row = 2;
    if (!fits(2)) labels[1] = "conflicts";
    if (!fits(2)) per_row = 1;
  }
  const float col_w = view.width / float(per_row);
  const float x = ImGui::GetCursorPosX();
  for (int i = 0; i < 4; ++i) {
    if (i % per_row != 0) ImGui::SameLine(x + float(i % per_row) * col_w);
    metric(values[i], labels[i], big, colours[i]);
  }
  // What the first two predict: the hardware counters of this warp instruction run alone. The full
  // names take four lines in a narrow pane: then one line, the names on hover.
  char note[256];
  std::snprintf(note, sizeof note, "this warp alone: %s, %s", counters::l1tex_wavefronts(rep.access.op),
                counters::l1tex_bank_conflicts(rep.access.op));
  if (ImGui::CalcTextSize(note).x <= view.width * 2) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + view.width);
    ImGui::TextDisabled("%s", note);
    ImGui::PopTextWrapPos();
  } else {
    const char* brief = "this warp alone: l1tex counters (hover)";
    ImGui::TextDisabled("%s", ImGui::CalcTextSize(brief).x <= view.width ? brief : "l1tex counters: hover");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", note);
  }
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
  ImGui::TextWrapped("per launch, N = %lld (grid %lldx%lld, %s blocks; ideal %d wavefront%s/instr.)",
              static_cast<long long>(spec.n), static_cast<long long>(t.grid.x),
              static_cast<long long>(t.grid.y), group_digits(t.blocks).c_str(),
              pane.report.cost.ideal_wavefronts, pane.report.cost.ideal_wavefronts == 1 ? "" : "s");
  // A cancelled or bounded run: the numbers are a lower bound; say so, with the estimate.
  for (const std::string& line : totals_notes(pane)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette::kServe));
    ImGui::TextWrapped("%s", line.c_str());
    ImGui::PopStyleColor();
  }
  std::string why;
  const KernelResult* k = find_result(state, view.which, pane, &why);
  // Without GPU results the SASS, l1tex and difference columns hold only "-": leave them out so the
  // counter names and counts have the room (a narrow pane cut them to "4,194,30").
  const bool measured = state.results.has_value();
  const int columns = measured ? 5 : 2;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable((view.id() + "launch").c_str(), columns, flags, ImVec2(view.width, 0))) {
    ImGui::TableSetupColumn("counter (instruction-level)", ImGuiTableColumnFlags_WidthStretch, 3.5f);
    // Counts never shrink below their width (fixed, fitted to the widest cell); the names wrap.
    ImGui::TableSetupColumn(t.complete ? "predicted" : "predicted >=", ImGuiTableColumnFlags_WidthFixed);
    if (measured) {
      ImGui::TableSetupColumn(k ? "H200 SASS" : "SASS", ImGuiTableColumnFlags_WidthFixed);
      // The hardware l1tex__ counter of the same name also counts other warps' L1 traffic.
      ImGui::TableSetupColumn(k ? "H200 l1tex" : "l1tex", ImGuiTableColumnFlags_WidthFixed);
      ImGui::TableSetupColumn("difference", ImGuiTableColumnFlags_WidthFixed);
    }
    ImGui::TableHeadersRow();
    const std::optional<uint64_t> none;
    for (const Op op : shown_kinds(pane.scenario)) {
      const OpTotals& o = t.of(op);
      // GPU results files carry LDS/STS counters only: the other kinds have no measured column.
      const CounterSet* m = !k                 ? nullptr
                            : op == Op::kLoad  ? &k->measured_ld
                            : op == Op::kStore ? &k->measured_st
                                               : nullptr;
      compare_row(counters::wavefronts(op), o.wavefronts, count_text(o.wavefronts, o.saturated),
                  m ? m->wavefronts_sass : none, m ? m->wavefronts : none, measured);
      const bool unknown = o.saturated && (o.wavefronts == kCountMax || o.ideal == kCountMax);
      compare_row(counters::bank_conflicts(op), unknown ? 0 : o.wavefronts - o.ideal, conflicts_text(o),
                  none, m ? m->bank_conflicts : none, measured);
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
