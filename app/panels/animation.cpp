// animation.cpp: the serialization replayed one wavefront per cycle. The timeline bar has one
// segment per wavefront of the instruction (1 for tile[32][33]'s column read, 32 for tile[32][32]):
// served segments sky blue, the current one orange, the rest grey. Controls: play/pause, step,
// speed, loop. In compare mode both panes share the clock, so the conflict-free one finishes first.
#include <algorithm>
#include <cstdio>

#include "panels/panels.hpp"

namespace bankscope {

void draw_timeline(const PaneModel& pane, UiState& state, const PaneView& view) {
  const int waves = pane.report.cost.wavefronts;
  const int cycle = state.anim.cycle;
  const float font = ImGui::GetFontSize();
  if (waves == 0) {
    ImGui::TextUnformatted("no active lane: the instruction costs nothing");
    return;
  }
  const AccessReport& rep = pane.report;
  const bool spin = rep.access.op == Op::kAtomic && rep.access.atom == AtomOp::kCastSpin;
  if (cycle < waves) {
    const WavefrontDetail& wf = rep.wavefronts[static_cast<size_t>(cycle)];
    const int lanes = __builtin_popcount(wf.lanes);
    char full[128], brief[96];
    if (spin && cycle % 2 == 0) {  // R8c: the phase's read pass, then its swap pass
      std::snprintf(full, sizeof full, "cycle %d / %d: wavefront %d reads the words to compare", cycle + 1, waves,
                    cycle + 1);
      std::snprintf(brief, sizeof brief, "cycle %d / %d: read", cycle + 1, waves);
    } else if (spin) {
      int fails = 0;
      for (int l = 0; l < kWarpSize; ++l) fails += (wf.lanes >> l & 1u) && rep.lanes[static_cast<size_t>(l)].retries;
      const int swaps = lanes - fails;
      std::snprintf(full, sizeof full, "cycle %d / %d: wavefront %d: %d lane%s swap%s, %d retr%s", cycle + 1, waves,
                    cycle + 1, swaps, swaps == 1 ? "" : "s", swaps == 1 ? "s" : "", fails, fails == 1 ? "ies" : "y");
      std::snprintf(brief, sizeof brief, "cycle %d / %d: %d swap, %d retry", cycle + 1, waves, swaps, fails);
    } else {
      std::snprintf(full, sizeof full, "cycle %d / %d: wavefront %d completes %d lane%s", cycle + 1, waves,
                    cycle + 1, lanes, lanes == 1 ? "" : "s");
      std::snprintf(brief, sizeof brief, "cycle %d / %d: %d lane%s", cycle + 1, waves, lanes, lanes == 1 ? "" : "s");
    }
    // The short form in a narrow pane (lecture fonts), so the label keeps to one line.
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + view.width - 2);  // 2 px: a glyph's edge pixels
    ImGui::TextUnformatted(ImGui::CalcTextSize(full).x <= view.width ? full : brief);
    ImGui::PopTextWrapPos();
  } else {
    ImGui::Text("done after %d cycle%s", waves, waves == 1 ? "" : "s");
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float h = font * 1.1f;
  // The bar's width is proportional to the longest instruction across panes (compare mode), so
  // 1 cycle and 32 cycles look as different as they are.
  const int scale = std::max(waves, 32);
  const float seg = view.width / float(scale);
  const float gap = seg >= 6 ? 2.0f : 0.0f;
  for (int k = 0; k < waves; ++k) {
    const ImU32 col = k < cycle ? palette::kDone : k == cycle ? palette::kServe : palette::kFuture;
    dl->AddRectFilled(ImVec2(o.x + float(k) * seg, o.y), ImVec2(o.x + float(k + 1) * seg - gap, o.y + h), col);
  }
  record_rect(state, view.id() + ".timeline", o, ImVec2(o.x + view.width, o.y + h));
  ImGui::Dummy(ImVec2(view.width, h + 2));
}

void draw_animation_controls(const AppModel& model, UiState& state) {
  AnimationState& a = state.anim;
  const int total = model.total_cycles(state);
  if (ImGui::Button("|<")) a.cycle = 0, a.playing = false;
  ImGui::SameLine();
  if (ImGui::Button("<")) a.cycle = std::max(0, a.cycle - 1), a.playing = false;
  ImGui::SameLine();
  if (ImGui::Button(a.playing ? "pause" : "play ")) a.playing = !a.playing;
  ImGui::SameLine();
  if (ImGui::Button(">")) a.cycle = std::min(total - 1, a.cycle + 1), a.playing = false;
  ImGui::SameLine();
  ImGui::Checkbox("loop", &a.loop);
  int shown = a.cycle + 1;
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderInt("##cycle", &shown, 1, std::max(1, total), "cycle %d")) a.cycle = shown - 1;
  ImGui::SetNextItemWidth(-1);
  ImGui::SliderFloat("##speed", &a.speed, 0.5f, 60.0f, "%.1f wavefronts/s", ImGuiSliderFlags_Logarithmic);
}

}  // namespace bankscope
