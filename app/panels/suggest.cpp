// suggest.cpp: the "Suggest a layout" section of the sidebar. A button starts the layout advisor on
// the edited configuration's array (on a worker: app/layout_suggest.hpp); the best layout is
// applied when it finishes, and the top alternatives are listed, each applied by a click.
#include <algorithm>
#include <string>

#include "panels.hpp"

namespace bankscope {

namespace {
constexpr int kAlternatives = 6;  // rows listed: the best and five others
}

void draw_suggest_layout(const AppModel& model, UiState& state) {
  if (!ImGui::CollapsingHeader("Suggest a layout", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const SuggestModel& sm = model.suggestion();
  const ConfigState& cfg = state.configs[static_cast<size_t>(state.edit)];
  if (sm.running) {
    ImGui::Text("searching: %d layouts", sm.searched);
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel##suggest")) state.suggest.cancel = true;
  } else {
    if (ImGui::Button("Suggest a layout")) state.suggest.start = true;
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Search padding, XOR and Swizzle<B,M,S> layouts of '%s' for the fewest wavefronts per "
          "launch",
          cfg.array < static_cast<int>(cfg.spec.arrays.size())
              ? cfg.spec.arrays[static_cast<size_t>(cfg.array)].name.c_str()
              : "?");
    }
  }
  if (!sm.error.empty()) ImGui::TextWrapped("%s", sm.error.c_str());
  if (!sm.result) return;
  const AdvisorResult& r = *sm.result;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("%s%s: %d layouts; before: %s, %s wf; no conflicts: %s wf",
                     state.compare ? (sm.which == 0 ? "A, " : "B, ") : "", r.array_name.c_str(),
                     r.candidates, r.current.text.c_str(),
                     group_digits(r.current.wavefronts).c_str(), group_digits(r.ideal).c_str());
  ImGui::PopStyleColor();
  const int rows = std::min<int>(kAlternatives, static_cast<int>(r.ranked.size()));
  for (int i = 0; i < rows; ++i) {
    const LayoutCandidate& c = r.ranked[static_cast<size_t>(i)];
    std::string label =
        c.text + (c.is_current ? " (before)" : "") + "  " + group_digits(c.wavefronts) + " wf";
    if (c.extra_bytes > 0) label += ", +" + group_digits(c.extra_bytes) + " B";
    label += "##suggest" + std::to_string(i);
    if (ImGui::Selectable(label.c_str(), i == sm.applied)) state.suggest.apply = i;
  }
}

}  // namespace bankscope
