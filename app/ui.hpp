// ui.hpp: one frame of the visualizer (sidebar + main area) and the keyboard shortcuts. ImGui only.
#pragma once

#include "app_model.hpp"
#include "window.hpp"

namespace bankscope {

void draw_frame(AppModel& model, UiState& state);
void handle_shortcuts(const Shortcuts& keys, UiState& state, AppModel& model);

}  // namespace bankscope
