// export_svg.hpp: what the visualizer shows, as one SVG document (`bankscope --svg FILE`, key v,
// the sidebar's "Export SVG"): for each pane shown (A, or A and B side by side in compare mode) the
// timeline at the current cycle, the bank view and the tile views of the selected instruction,
// drawn by app/svg/svg_export (the same writer the Python package uses). No GL: works headless.
#pragma once

#include <string>

#include "app_model.hpp"
#include "svg/svg_export.hpp"

namespace bankscope {

// lane -> logical (row, col) of the element the lane's address falls on in `array`; (-1, -1) for
// inactive lanes and addresses outside the array or on padding.
LaneElements lane_elements(const AccessReport& rep, const SharedArray& array);

// The document; an Error when no pane has a picture (every configuration failed to load).
Result<std::string> export_svg(const AppModel& model, const UiState& state);

}  // namespace bankscope
