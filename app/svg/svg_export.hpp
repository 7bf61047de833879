// svg_export.hpp: bankscope's pictures as standalone SVG documents (text in, text out, no I/O).
//
// The same three drawings the visualizer shows, for files, notebooks and the CLI:
//   AccessReport                         -> bank view: lanes on top, 32 banks below with the words
//                                           each bank serves stacked, coloured by wavefront
//   SharedArray + lane -> (row, col)     -> logical tile and physical layout side by side, cells
//                                           coloured by bank, padding grey and hatched, the warp's
//                                           elements outlined and numbered by lane
//   stride sweeps                        -> wavefronts per instruction against the row stride
//   AccessReport                         -> timeline: one segment per wavefront, the serialization
// and svg_compose() to put several of them in one document (the visualizer's --svg export).
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

// The serialization as the visualizer's timeline shows it: one segment per wavefront on a bar that
// is at least 32 segments wide (so 1 and 32 wavefronts look as different as they are). Segments
// before `cycle` are served, `cycle` is being served (outlined), later ones wait; cycle < 0 shows
// them all waiting. Each segment's <title> names its wavefront and the lanes it completes.
std::string svg_timeline(const AccessReport& rep, int cycle = -1, const std::string& title = "");

// Several drawings (whole documents from the functions above) in one document: `columns` side by
// side, each column's drawings stacked top to bottom; `title` above all. Pattern ids are renamed
// per drawing so the document stays valid XML.
std::string svg_compose(const std::vector<std::vector<std::string>>& columns,
                        const std::string& title = "");

}  // namespace bankscope
