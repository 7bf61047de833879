// options.hpp: the visualizer's command line, parsed without touching GLFW (testable headless).
//
//   bankscope [--trace FILE [--array A --layout L]] [--scenario FILE] [--scenario-b FILE] [--stride
//   S] [--compare on|off]
//             [--screenshot PNG] [--frames K] [--size WxH] [--script FILE] [--results FILE]
//             [--large] [--contrast] [--presentation] [--layout-check] [--svg FILE]
//             [--dump-rects FILE] [--bench-frames K] [--bench-empty]
#pragma once

#include <optional>
#include <string>

#include "sim/status.hpp"

namespace bankscope {

struct AppOptions {
  std::string scenario;    // configuration A (single mode unless --compare on)
  std::string scenario_b;  // configuration B (turns compare mode on)
  std::string trace;       // a trace (bankscope-gpu trace) opened on its hottest instruction
  // The trace's what-if, as `bankscope-cli report` spells it: "tile@0:float[32][32]" and
  // "tile:stride=33" (compare mode: A as traced, B the what-if). Only with --trace.
  std::string array;
  std::string layout;
  std::optional<long long> stride;
  std::optional<bool> compare;
  std::string screenshot;  // render, save, exit
  int frames = 3;          // frames rendered before the screenshot
  int width = 1600, height = 900;
  std::string script;
  std::string results;
  std::string dump_rects;  // writes panel rectangles (for the pixel tests)
  bool large = false;
  bool contrast = false;
  bool presentation = false;  // no sidebar (key 'p')
  bool layout_check = false;  // render `frames` frames, report clipped/overlapping text, exit 0/3
  std::string svg;            // export the pictures as SVG and exit (no window)
  int bench_frames = 0;  // > 0: benchmark mode
  bool bench_empty = false;
  bool help = false;
  // True when the app runs unattended and exits by itself (screenshot, script or bench).
  bool batch() const {
    return !screenshot.empty() || !script.empty() || bench_frames > 0 || layout_check || !svg.empty();
  }
};

// Errors are one line naming the option: "--size: expected WxH, got '12'".
Result<AppOptions> parse_options(int argc, const char* const* argv);
const char* usage_text();

}  // namespace bankscope
