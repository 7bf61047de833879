// svg_export.hpp: bankscope's pictures as standalone SVG documents (text in, text out, no I/O).
//
// The same three drawings the visualizer shows, for files, notebooks and the CLI:
//   AccessReport                         -> bank view: lanes on top, 32 banks below with the words
//                                           each bank serves stacked, coloured by wavefront
//   SharedArray + lane -> (row, col)     -> logical tile and physical layout side by side, cells
//                                           coloured by bank, padding grey and hatched, the warp's
//                                           elements outlined and numbered by lane
//   stride sweeps                        -> wavefronts per instruction against the row stride
// Every state is told by text, outline or hatching as well as by colour (viridis for order,
// a hue wheel for banks), never by colour alone.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/bank_model.hpp"
#include "sim/layout.hpp"

namespace bankscope {

// Lanes -> banks -> words for one warp instruction. `title` is drawn above (escaped).
std::string svg_bank_view(const AccessReport& rep, const std::string& title = "");

// lane -> logical (row, col) of the element it touches; (-1, -1) = inactive lane.
using LaneElements = std::vector<std::pair<int64_t, int64_t>>;

// Logical tile (rows x cols) and physical layout (rows x row_stride) side by side. Arrays of more
// than 128 x 256 cells are refused with an Error (the picture would be unreadable).
Result<std::string> svg_tile_views(const SharedArray& array, const LaneElements& lanes,
                                   const BankConfig& cfg = {}, const std::string& title = "");

struct SweepSeries {
  std::string label;                // "float (4 B)"
  std::vector<int> strides;         // x values
  std::vector<int> wavefronts;      // y values, one per stride
};

// Wavefronts per warp instruction when lane i reads element (i, 0) of a tile whose rows are
// `stride` elements apart (a column read), for stride = 1 .. max_stride; computed with cost().
SweepSeries column_read_sweep(ElementType type, int max_stride, Op op = Op::kLoad);

// A step chart, one panel per series (same x axis, y on a log2 scale).
std::string svg_stride_sweep(const std::vector<SweepSeries>& series, const std::string& title = "");

}  // namespace bankscope
