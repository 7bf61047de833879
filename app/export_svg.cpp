// export_svg.cpp: the visualizer's panes as SVG (see export_svg.hpp).
#include "export_svg.hpp"

#include <unordered_map>

namespace bankscope {

LaneElements lane_elements(const AccessReport& rep, const SharedArray& array) {
  LaneElements out(kWarpSize, {-1, -1});
  const int64_t elem = array.elem_bytes();
  std::unordered_map<int64_t, std::pair<int64_t, int64_t>> logical;  // physical offset -> (r, c)
  for (int64_t r = 0; r < array.shape.rows; ++r) {
    for (int64_t c = 0; c < array.shape.cols; ++c) logical[array.layout.offset(r, c)] = {r, c};
  }
  for (int l = 0; l < kWarpSize; ++l) {
    const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
    if (!d.active || d.addr < array.base) continue;
    const auto it = logical.find((int64_t(d.addr) - array.base) / elem);
    if (it != logical.end()) out[static_cast<size_t>(l)] = it->second;
  }
  return out;
}

namespace {

std::vector<std::string> pane_drawings(const PaneModel& pane, const UiState& state,
                                       const std::string& id) {
  const AccessReport& rep = pane.report;
  std::string title = id;
  if (!pane.declaration.empty()) title += ": " + pane.declaration;
  if (!pane.instructions.empty()) {
    title += ", " + pane.instructions[static_cast<size_t>(pane.selected)].text;
  }
  std::vector<std::string> parts{svg_timeline(rep, state.anim.cycle, title), svg_bank_view(rep)};
  if (!pane.instructions.empty()) {
    const WarpInstruction& in = pane.instructions[static_cast<size_t>(pane.selected)];
    const SharedArray& arr = pane.scenario.arrays[static_cast<size_t>(
        pane.scenario.accesses[static_cast<size_t>(in.stmt)].array)];
    // Arrays too large for a readable picture are left out (the bank view still shows the words).
    Result<std::string> tiles = svg_tile_views(arr, lane_elements(rep, arr), rep.cfg);
    if (tiles) parts.push_back(std::move(tiles).value());
  }
  return parts;
}

}  // namespace

Result<std::string> export_svg(const AppModel& model, const UiState& state) {
  std::vector<std::vector<std::string>> columns;
  if (state.trace.active()) {
    // Compare mode with a what-if: A as traced, B the what-if, as the window shows them.
    const TraceView& tv = model.trace();
    const bool two = state.compare && tv.what_if;
    // Single view: the what-if's picture when there is one (the window shows that one too).
    const bool what_if = tv.what_if && tv.what_if_pane.ok;
    if (tv.pane.ok && (two || !what_if))
      columns.push_back(pane_drawings(tv.pane, state, two ? "A traced" : "trace"));
    if (what_if) columns.push_back(pane_drawings(tv.what_if_pane, state, two ? "B" : "what-if"));
  } else {
    for (int i = 0; i < 2; ++i) {
      if (!state.compare && i != state.edit) continue;
      const PaneModel& pane = model.pane(i);
      if (pane.have) columns.push_back(pane_drawings(pane, state, i == 0 ? "A" : "B"));
    }
  }
  if (columns.empty()) return Error{"svg export: no configuration has a picture to export"};
  return svg_compose(columns, "bankscope");
}

}  // namespace bankscope
