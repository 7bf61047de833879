// layout_check.hpp: `bankscope --layout-check`: does every piece of text of one frame stand whole?
//
// Reads the frame ImGui has just built (call after ImGui::Render()), so no panel needs to route its
// text through a helper: every text call, ImGui widget or ImDrawList::AddText, ends up as glyph
// quads in a draw list, and each quad is tied to the draw command (and so the clip rectangle: the
// window, child window or table column) that owns it. It reports
//   - clipped text: a glyph that crosses its owner's clip rectangle ("tile[" cut at a pane edge,
//     "4,194,30" cut by a table column); vertical crossings are allowed in scrollable windows;
//   - overflowing panes: a non-scrolling window whose content runs past its bottom or right edge
//     (text there is not drawn at all, so no glyph could show it);
//   - shortened text: an ellipsis glyph (ImGui shortens table headers that do not fit);
//   - overlapping text: two glyphs of different text runs whose boxes intersect ("32-way" running
//     into "3%").
// Glyphs are told from other quads by their texture coordinates: everything else ImGui draws uses
// the atlas' white pixel once baked anti-aliased lines are switched off
// (prepare_layout_check(), before ImGui::NewFrame()).
#pragma once

#include <string>
#include <vector>

namespace bankscope {

// Style settings the check relies on (textured lines off). Call once before the first frame.
void prepare_layout_check();

// One line per problem, e.g. "clipped: 'tile[32][33]' in paneA crosses its clip rect by 41 px".
// Empty when every text item of the frame is whole and apart from the others.
std::vector<std::string> check_text_layout();

}  // namespace bankscope
