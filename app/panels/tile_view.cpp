// tile_view.cpp: the logical tile and the physical layout side by side.
//
//   logical view   (row, col) as the code indexes it (e.g. 32x32); a cell's colour is the bank
//                  of the element's byte address, so a column that maps to one bank is one colour
//   physical view  the declaration as memory holds it (e.g. 32x33): cell (r, c) is element offset
//                  r * row_stride + c; offsets no logical element maps to (padding) are grey and
//                  hatched. Changing the padding changes this view and not the logical one.
// The selected warp instruction's elements are outlined in both (orange while being served).
#include <algorithm>
#include <cstdio>
#include <vector>

#include "panels/panels.hpp"

namespace bankscope {

namespace {

constexpr int64_t kMaxCells = 64;  // rows/cols shown; larger arrays show their top-left corner

struct Grid {
  int64_t rows = 0, cols = 0;  // shown
  float cell = 0;
  ImVec2 origin;
};

Grid fit_grid(int64_t rows, int64_t cols, ImVec2 origin, float w, float h) {
  Grid g;
  g.rows = std::min(rows, kMaxCells);
  g.cols = std::min(cols, kMaxCells);
  g.cell = std::max(2.0f, std::min(w / float(g.cols), h / float(g.rows)));
  g.origin = origin;
  return g;
}

}  // namespace

void draw_tile_views(const PaneModel& pane, UiState& state, const PaneView& view) {
  const AccessReport& rep = pane.report;
  const WarpInstruction& instr = pane.instructions[static_cast<size_t>(pane.selected)];
  const SharedArray& arr =
      pane.scenario.arrays[static_cast<size_t>(pane.scenario.accesses[static_cast<size_t>(instr.stmt)].array)];
  const int64_t rows = arr.shape.rows, cols = arr.shape.cols;
  const int64_t stride = arr.layout.row_stride;
  const int banks_ = pane.report.cfg.banks;
  // A 1-D array (sdata[256]) has no row stride: both views wrap it at the banks' width (one drawn
  // row = one row of words across the banks), rather than a one-pixel strip.
  const int64_t wrap =
      std::max<int64_t>(1, int64_t(banks_) * pane.report.cfg.bank_bytes / arr.elem_bytes());
  const bool one_d = rows == 1 && cols > wrap;
  const int64_t lrows = one_d ? (cols + wrap - 1) / wrap : rows, lcols = one_d ? wrap : cols;
  // (drawn row, drawn col) -> physical offset of the logical element there, -1 past the end.
  auto logical_offset = [&](int64_t r, int64_t c) -> int64_t {
    if (!one_d) return arr.layout.offset(r, c);
    return r * wrap + c < cols ? arr.layout.offset(0, r * wrap + c) : -1;
  };
  const int64_t pstride = one_d ? wrap : stride;
  const int64_t elem = arr.elem_bytes();
  const int64_t total = static_cast<int64_t>(arr.bytes() / static_cast<uint64_t>(elem));
  const int64_t prows = pstride > 0 ? (total + pstride - 1) / pstride : rows;
  const int banks = rep.cfg.banks, bank_bytes = rep.cfg.bank_bytes;
  const int cycle = state.anim.cycle;

  // physical offset -> logical element (or -1: padding); physical offset -> lane that accesses it.
  std::vector<int64_t> logical_of(static_cast<size_t>(total), -1);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t o = arr.layout.offset(r, c);
      if (o >= 0 && o < total) logical_of[static_cast<size_t>(o)] = r * cols + c;
    }
  }
  std::vector<int> lane_of(static_cast<size_t>(total), -1);
  for (int l = 0; l < kWarpSize; ++l) {
    const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
    if (!d.active || d.addr < arr.base) continue;
    const int64_t first = (int64_t(d.addr) - arr.base) / elem;
    const int64_t n = std::max<int64_t>(1, rep.access.width / elem);
    for (int64_t o = first; o < first + n && o < total; ++o) {
      if (lane_of[static_cast<size_t>(o)] < 0) lane_of[static_cast<size_t>(o)] = l;
    }
  }
  auto lane_ring = [&](int lane) -> ImU32 {
    const int wf = rep.lanes[static_cast<size_t>(lane)].wavefront;
    return wf == cycle ? palette::kServe : palette::kOutline;
  };

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const float half = (view.width - font) / 2;
  const float grid_h = view.height - font - 4;
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);

  char title[160];
  if (one_d) {
    std::snprintf(title, sizeof title, "logical %s[%lld], %lld per row", arr.name.c_str(),
                  static_cast<long long>(cols), static_cast<long long>(wrap));
  } else {
    std::snprintf(title, sizeof title, "logical %s[%lld][%lld]", arr.name.c_str(),
                  static_cast<long long>(rows), static_cast<long long>(cols));
  }
  dl->AddText(start, text_col, title);
  if (one_d) {
    std::snprintf(title, sizeof title, "physical: 1-D, %lld per row of %d banks",
                  static_cast<long long>(wrap), banks_);
  } else {
    std::snprintf(title, sizeof title, "physical: row stride %lld%s",
                  static_cast<long long>(stride), stride > cols ? " (grey = padding)" : "");
  }
  dl->AddText(ImVec2(start.x + half + font, start.y), text_col, title);

  int64_t hovered = -1;  // physical offset under the mouse
  // Draws one cell for physical offset o at (x, y); `padding` cells are hatched grey.
  auto cell = [&](float x, float y, float size, int64_t o, bool padding) {
    const float g = size >= 6 ? 1.0f : 0.0f;
    const ImVec2 a(x, y), b(x + size - g, y + size - g);
    if (padding) {
      dl->AddRectFilled(a, b, palette::kPadding);
      if (size >= 6) hatch_rect(dl, a, b, IM_COL32(0x40, 0x40, 0x40, 0xFF), 4.0f, 1.0f);
    } else {
      const uint32_t byte = arr.base + static_cast<uint32_t>(o * elem);
      dl->AddRectFilled(a, b, bank_color(bank_of(byte, banks, bank_bytes), banks));
    }
    if (ImGui::IsMouseHoveringRect(a, b)) hovered = o;
  };
  auto ring = [&](float x, float y, float size, int lane) {
    const float g = size >= 6 ? 1.0f : 0.0f;
    const float t = std::max(1.5f, size / 6);
    dl->AddRect(ImVec2(x + t / 2, y + t / 2), ImVec2(x + size - g - t / 2, y + size - g - t / 2),
                lane_ring(lane), 0, 0, t);
  };

  // Logical view.
  const ImVec2 lo(start.x, start.y + font + 4);
  const Grid lg = fit_grid(lrows, lcols, lo, half, grid_h);
  for (int64_t r = 0; r < lg.rows; ++r) {
    for (int64_t c = 0; c < lg.cols; ++c) {
      const int64_t o = logical_offset(r, c);
      if (o < 0) continue;
      cell(lo.x + float(c) * lg.cell, lo.y + float(r) * lg.cell, lg.cell, o, false);
    }
  }
  for (int64_t r = 0; r < lg.rows; ++r) {
    for (int64_t c = 0; c < lg.cols; ++c) {
      const int64_t o = logical_offset(r, c);
      if (o >= 0 && o < total && lane_of[static_cast<size_t>(o)] >= 0) {
        ring(lo.x + float(c) * lg.cell, lo.y + float(r) * lg.cell, lg.cell, lane_of[static_cast<size_t>(o)]);
      }
    }
  }
  record_rect(state, view.id() + ".logical", lo,
              ImVec2(lo.x + float(lg.cols) * lg.cell, lo.y + float(lg.rows) * lg.cell));

  // Physical view.
  const ImVec2 po(start.x + half + font, start.y + font + 4);
  const Grid pg = fit_grid(prows, pstride, po, half, grid_h);
  for (int64_t r = 0; r < pg.rows; ++r) {
    for (int64_t c = 0; c < pg.cols; ++c) {
      const int64_t o = r * pstride + c;
      if (o >= total) continue;
      cell(po.x + float(c) * pg.cell, po.y + float(r) * pg.cell, pg.cell, o,
           logical_of[static_cast<size_t>(o)] < 0);
    }
  }
  for (int64_t r = 0; r < pg.rows; ++r) {
    for (int64_t c = 0; c < pg.cols; ++c) {
      const int64_t o = r * pstride + c;
      if (o < total && lane_of[static_cast<size_t>(o)] >= 0) {
        ring(po.x + float(c) * pg.cell, po.y + float(r) * pg.cell, pg.cell, lane_of[static_cast<size_t>(o)]);
      }
    }
  }
  record_rect(state, view.id() + ".physical", po,
              ImVec2(po.x + float(pg.cols) * pg.cell, po.y + float(pg.rows) * pg.cell));
  ImGui::Dummy(ImVec2(view.width, view.height));

  if (hovered >= 0 && hovered < total) {
    const uint32_t byte = arr.base + static_cast<uint32_t>(hovered * elem);
    const int64_t li = logical_of[static_cast<size_t>(hovered)];
    ImGui::BeginTooltip();
    if (li >= 0) {
      ImGui::Text("%s[%lld][%lld]", arr.name.c_str(), static_cast<long long>(li / cols),
                  static_cast<long long>(li % cols));
    } else {
      ImGui::Text("padding (no logical element)");
    }
    ImGui::Text("physical offset %lld, byte 0x%x, bank %d, word %u", static_cast<long long>(hovered),
                byte, bank_of(byte, banks, bank_bytes), word_of(byte, bank_bytes));
    const int lane = lane_of[static_cast<size_t>(hovered)];
    if (lane >= 0) {
      ImGui::Text("lane %d, wavefront %d", lane, rep.lanes[static_cast<size_t>(lane)].wavefront);
    }
    ImGui::EndTooltip();
  }
}

}  // namespace bankscope
