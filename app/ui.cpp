// ui.cpp: lays out one frame (sidebar of controls, main area of one or two panes) and maps the
// lecture shortcuts onto UiState. Calls the panels; touches neither GLFW nor GL.
#include "ui.hpp"

#include <algorithm>

#include "panels/panels.hpp"

namespace bankscope {

void handle_shortcuts(const Shortcuts& k, UiState& state, AppModel& model) {
  ConfigState& cfg = state.configs[static_cast<size_t>(state.edit)];
  const int64_t step = k.shift ? 4 : 1;
  int64_t delta = 0;
  if (k.right) delta += step;
  if (k.left) delta -= step;
  if (k.up) delta += 8 * step;
  if (k.down) delta -= 8 * step;
  if (delta != 0 && state.trace.active()) {
    // On a trace the arrows move the what-if's row stride (a stride below the columns is refused).
    if (state.trace.what_if.active()) {
      PhysicalLayout l = state.trace.what_if.layout;
      l.row_stride = std::clamp<int>(l.row_stride + static_cast<int>(delta),
                                     state.trace.what_if.array->shape.cols, 1024);
      Result<bool> r = set_trace_what_if_layout(state, l);
      if (!r) state.message = r.error().message, state.message_is_error = true;
    }
  } else if (delta != 0) {
    set_row_stride(cfg, std::clamp<int64_t>(row_stride(cfg) + delta, 1, 1024));
  }
  if (k.space) state.anim.playing = !state.anim.playing;
  if (k.step_fwd || k.step_back) {
    model.update(state);
    const int total = model.total_cycles(state);
    state.anim.playing = false;
    state.anim.cycle = std::clamp(state.anim.cycle + (k.step_fwd ? 1 : -1), 0, total - 1);
  }
  if (k.fullscreen) state.request_fullscreen_toggle = true;
  if (k.screenshot) state.request_screenshot = "bankscope_screenshot.png";
  if (k.compare) state.compare = !state.compare;
  if (k.large) state.large_font = !state.large_font;
  if (k.contrast) state.high_contrast = !state.high_contrast;
  if (k.presentation) state.presentation = !state.presentation;
  if (k.svg) state.request_svg = "bankscope_export.svg";
  if (k.digit > 0 && !state.trace.active()) {
    Result<bool> r = load_preset(state, k.digit - 1);
    state.message = r ? "preset " + std::to_string(k.digit) + ": " +
                            state.presets[static_cast<size_t>(k.digit - 1)].name
                      : r.error().message;
    state.message_is_error = !r;
  }
}

void draw_frame(AppModel& model, UiState& state) {
  model.update(state);  // edits from the last frame's widgets and shortcuts show in this frame
  apply_theme(state);
  ImGui::PushFont(body_font(state));
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("bankscope", nullptr, flags);
  if (!state.presentation) {  // presentation mode ('p'): the panes take the whole window
    // The sidebar is the presenter's, the panes are the class's: the sidebar keeps the normal font
    // in lecture mode, so the panes (and the bank numbers in them) get no narrower (issue 12).
    ImGui::PushFont(body_font(false));
    const float sidebar_w = std::min(ImGui::GetFontSize() * 19, vp->WorkSize.x * 0.3f);
    ImGui::BeginChild("sidebar", ImVec2(sidebar_w, 0), false);
    ImGui::PushFont(headline_font(false));
    ImGui::TextUnformatted("bankscope");
    ImGui::PopFont();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("shared-memory bank conflicts");
    ImGui::PopStyleColor();
    draw_controls(model, state);
    if (!state.trace.active()) draw_suggest_layout(model, state);
    ImGui::EndChild();
    ImGui::PopFont();
    ImGui::SameLine(0, body_font(false)->FontSize);  // the same gap in lecture mode
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::BeginChild("main", avail, false, ImGuiWindowFlags_NoScrollbar);
  model.update(state);  // the sidebar may have changed something this frame
  draw_compare(model, state, avail.x, avail.y);
  ImGui::EndChild();
  ImGui::End();
  ImGui::PopFont();
}

}  // namespace bankscope
