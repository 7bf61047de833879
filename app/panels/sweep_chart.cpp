// sweep_chart.cpp: beside the stride slider, the selected statement's wavefronts per instruction
// against the row stride of the array being edited (sim/sweep: every warp of block 0), with the
// current stride marked: the gcd(stride, 32) staircase for a float column read, and whatever it
// becomes for the layout and type on screen. The same numbers as `bankscope-cli sweep`.
#include <algorithm>
#include <cmath>
#include <string>

#include "panels/panels.hpp"
#include "sim/json_io.hpp"
#include "sim/sweep.hpp"

namespace bankscope {

namespace {

constexpr int64_t kSliderMax = 128;  // the stride slider's range (controls.cpp)

// A memo of stride_sweep(), not UI state: 128 compiles are too many for every frame, and the curve
// depends on everything but the swept stride, so the key is the spec with that stride cleared.
struct SweepMemo {
  std::string key;
  Result<Sweep> sweep = Error{""};
};

SweepMemo& memo(int which) {
  static SweepMemo memos[2];  // one per configuration (A, B)
  return memos[std::clamp(which, 0, 1)];
}

}  // namespace

void draw_sweep_chart(const ConfigState& cfg, const PaneModel& pane, UiState& state, int which) {
  if (!pane.have || pane.instructions.empty() || cfg.spec.arrays.empty()) return;
  const int sel = std::clamp(pane.selected, 0, static_cast<int>(pane.instructions.size()) - 1);
  const int stmt = pane.instructions[static_cast<size_t>(sel)].stmt;
  const size_t ai =
      static_cast<size_t>(std::clamp(cfg.array, 0, static_cast<int>(cfg.spec.arrays.size()) - 1));
  if (cfg.spec.arrays[ai].dims.size() < 2) return;  // 1-D: no row stride to sweep

  ScenarioSpec keyed = cfg.spec;
  keyed.arrays[ai].row_stride = 0;
  const std::string key =
      scenario_to_json(keyed).dump() + "|" + std::to_string(stmt) + "|" + std::to_string(ai);
  SweepMemo& m = memo(which);
  if (m.key != key) {
    SweepOptions opt;
    opt.access = stmt;
    opt.array = cfg.spec.arrays[ai].name;
    opt.first = 1;
    opt.last = std::max<int64_t>(kSliderMax, cfg.spec.arrays[ai].dims.back());
    m.key = key;
    m.sweep = stride_sweep(keyed, opt);
  }
  if (!m.sweep || m.sweep->points.empty()) {
    ImGui::TextWrapped("stride sweep: %s", m.sweep ? "no stride" : m.sweep.error().message.c_str());
    return;
  }
  const Sweep& sw = *m.sweep;
  int ymax = 1;
  for (const SweepPoint& p : sw.points) ymax = std::max(ymax, p.wf_max);
  int ylog = 1;
  while ((1 << ylog) < ymax) ++ylog;

  ImGui::TextWrapped("stride sweep: wavefronts per instruction of statement %d", stmt);
  const float fs = ImGui::GetFontSize();
  const float w = std::max(ImGui::GetContentRegionAvail().x, 10 * fs);
  const float h = 4.5f * fs;
  const float margin = 2.2f * fs;  // left: the y labels
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(w, h + fs * 1.2f));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 a(o.x + margin, o.y), b(o.x + w - 2, o.y + h);
  dl->AddRectFilled(a, b, palette::kEmptyWord);
  const double x0 = double(sw.points.front().stride) - 0.5,
               x1 = double(sw.points.back().stride) + 0.5;
  auto X = [&](double s) { return a.x + float((s - x0) / (x1 - x0)) * (b.x - a.x); };
  // y: log2, 1 wavefront at the bottom, 2^ylog at the top.
  auto Y = [&](int wf) {
    return b.y - 2 - float(std::log2(double(std::max(wf, 1))) / ylog) * (b.y - a.y - 4);
  };
  for (int e = 0; e <= ylog; ++e)
    dl->AddLine(ImVec2(a.x, Y(1 << e)), ImVec2(b.x, Y(1 << e)), palette::kIdleBank);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddText(ImVec2(o.x, Y(1 << ylog) - 0.1f * fs), text, std::to_string(1 << ylog).c_str());
  dl->AddText(ImVec2(o.x, Y(1) - 0.9f * fs), text, "1");
  dl->AddText(ImVec2(a.x, b.y + 0.1f * fs), text, std::to_string(sw.points.front().stride).c_str());
  const std::string last = std::to_string(sw.points.back().stride);
  dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(last.c_str()).x, b.y + 0.1f * fs), text,
              last.c_str());
  // The steps: each stride's value holds over [s - 0.5, s + 0.5].
  // A stride the scenario cannot run at (misaligned, too large) is a gap.
  for (size_t i = 0; i < sw.points.size(); ++i) {
    const SweepPoint& p = sw.points[i];
    if (!p.invalid.empty()) continue;
    const float y = Y(p.wf_max);
    dl->AddLine(ImVec2(X(double(p.stride) - 0.5), y), ImVec2(X(double(p.stride) + 0.5), y),
                palette::kDone, 2.0f);
    if (i + 1 < sw.points.size() && sw.points[i + 1].invalid.empty()) {
      const float yn = Y(sw.points[i + 1].wf_max);
      if (yn != y)
        dl->AddLine(ImVec2(X(double(p.stride) + 0.5), y), ImVec2(X(double(p.stride) + 0.5), yn),
                    palette::kDone, 1.0f);
    }
  }
  // The current stride: an orange bar over its step, and its value in words below the chart.
  const int64_t cur = cfg.spec.arrays[ai].row_stride == 0 ? cfg.spec.arrays[ai].dims.back()
                                                          : cfg.spec.arrays[ai].row_stride;
  const std::string id = which == 0 ? "A" : "B";
  record_rect(state, id + ".sweep_chart", a, b);
  if (cur >= sw.points.front().stride && cur <= sw.points.back().stride) {
    const SweepPoint& p = sw.points[static_cast<size_t>(cur - sw.points.front().stride)];
    const ImVec2 ma(X(double(cur) - 0.5), a.y), mb(X(double(cur) + 0.5), b.y);
    dl->AddRectFilled(ImVec2(ma.x, ma.y), ImVec2(std::max(mb.x, ma.x + 2), mb.y), palette::kServe);
    record_rect(state, id + ".sweep_marker", ma, mb);
    if (p.invalid.empty()) {
      ImGui::Text("stride %lld: %d wavefront%s per instr.", static_cast<long long>(cur), p.wf_max,
                  p.wf_max == 1 ? "" : "s");
    } else {
      ImGui::TextWrapped("stride %lld cannot run: %s", static_cast<long long>(cur),
                         p.invalid.c_str());
    }
  } else {
    ImGui::Text("stride %lld: beyond the chart (%lld..%lld)", static_cast<long long>(cur),
                static_cast<long long>(sw.points.front().stride),
                static_cast<long long>(sw.points.back().stride));
  }
}

}  // namespace bankscope
