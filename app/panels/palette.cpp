// palette.cpp: colours, hatching and the ImGui theme shared by the panels.
#include <algorithm>
#include <cmath>

#include "panels/panels.hpp"

namespace bankscope {

ImU32 bank_color(int bank, int banks) {
  // Polynomial fit of matplotlib's viridis (public domain fit by Matt Zucker), t in [0, 1].
  // Kept away from the darkest end so that cells stay distinguishable from the background.
  const double t = 0.12 + 0.86 * (banks > 1 ? double(bank) / double(banks - 1) : 0.0);
  const double r = 0.2777273272234177 + t * (0.1050930431085774 + t * (-0.3308618287255563 +
                   t * (-4.634230498983486 + t * (6.228269936347081 + t * (4.776384997670288 +
                   t * -5.435455855934631)))));
  const double g = 0.005407344544966578 + t * (1.404613529898575 + t * (0.214847559468213 +
                   t * (-5.799100973351585 + t * (14.17993336680509 + t * (-13.74514537774601 +
                   t * 4.645852612178535)))));
  const double b = 0.3340998053353061 + t * (1.384590162594685 + t * (0.09509516302823659 +
                   t * (-19.33244095627987 + t * (56.69055260068105 + t * (-65.35303263337234 +
                   t * 26.3124352495832)))));
  auto to8 = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
  return IM_COL32(to8(r), to8(g), to8(b), 255);
}

void hatch_rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float spacing, float thickness) {
  dl->PushClipRect(a, b, true);
  const float h = b.y - a.y;
  for (float x = a.x - h; x < b.x; x += spacing) {
    dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), col, thickness);
  }
  dl->PopClipRect();
}

ImU32 text_on(ImU32 bg) {
  const float r = float((bg >> IM_COL32_R_SHIFT) & 0xFF);
  const float g = float((bg >> IM_COL32_G_SHIFT) & 0xFF);
  const float b = float((bg >> IM_COL32_B_SHIFT) & 0xFF);
  return (0.299f * r + 0.587f * g + 0.114f * b) > 140.0f ? IM_COL32(0, 0, 0, 255)
                                                         : IM_COL32(255, 255, 255, 255);
}

void record_rect(UiState& state, const std::string& name, ImVec2 a, ImVec2 b) {
  state.rects[name] = PixelRect{a.x, a.y, b.x, b.y};
}

ImVec4 clear_color(const UiState& state) {
  return state.high_contrast ? ImVec4(0, 0, 0, 1) : ImVec4(0.11f, 0.11f, 0.13f, 1);
}

void apply_theme(const UiState& state) {
  ImGuiStyle& style = ImGui::GetStyle();
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.WindowBorderSize = 0;
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = clear_color(state);
  c[ImGuiCol_ChildBg] = clear_color(state);
  if (state.high_contrast) {
    c[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_FrameBg] = ImVec4(0.18f, 0.18f, 0.18f, 1);
    c[ImGuiCol_Border] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_Button] = ImVec4(0.0f, 0.30f, 0.55f, 1);
    c[ImGuiCol_SliderGrab] = ImVec4(0.90f, 0.62f, 0.0f, 1);
    style.FrameBorderSize = 1;
  } else {
    c[ImGuiCol_Text] = ImVec4(0.92f, 0.92f, 0.94f, 1);
    style.FrameBorderSize = 0;
  }
}

}  // namespace bankscope

namespace bankscope {

namespace {
// ImGui owns the fonts (in its atlas); these are borrowed pointers set once at start-up.
ImFont* g_fonts[4] = {nullptr, nullptr, nullptr, nullptr};
}  // namespace

void set_fonts(ImFont* body, ImFont* headline, ImFont* large_body, ImFont* large_headline) {
  g_fonts[0] = body;
  g_fonts[1] = headline;
  g_fonts[2] = large_body;
  g_fonts[3] = large_headline;
}

ImFont* body_font(bool large) {
  ImFont* f = g_fonts[large ? 2 : 0];
  return f ? f : ImGui::GetIO().Fonts->Fonts[0];
}

ImFont* headline_font(bool large) {
  ImFont* f = g_fonts[large ? 3 : 1];
  return f ? f : body_font(large);
}

ImFont* body_font(const UiState& state) { return body_font(state.large_font); }
ImFont* headline_font(const UiState& state) { return headline_font(state.large_font); }

std::string group_digits(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

}  // namespace bankscope
