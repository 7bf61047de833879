// options.cpp: command-line parsing for `bankscope` (see options.hpp for the synopsis).
#include "options.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace bankscope {

namespace {

bool to_int(const std::string& s, long long lo, long long hi, long long* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace

const char* usage_text() {
  return "usage: bankscope [options]\n"
         "  (no options)          compare mode on the seed pair tile[32][32] vs tile[32][33]\n"
         "  --scenario FILE       open a scenario file (single view)\n"
         "  --trace FILE          open a trace (bankscope-gpu trace) on its hottest instruction\n"
         "  --array A             with --trace: a shared array of the kernel,\n"
         "                        NAME@BYTE:TYPE[ROWS][COLS] (tile@0:float[32][32]), as in\n"
         "                        bankscope-cli report --array\n"
         "  --layout L            with --array: the what-if layout, NAME:stride=S, NAME:xor=M\n"
         "                        or NAME:swizzle=B,M,S (';' joins parts), beside the trace\n"
         "  --scenario-b FILE     second scenario for compare mode\n"
         "  --stride S            physical row stride of the edited array (elements)\n"
         "  --compare on|off      side-by-side compare mode\n"
         "  --screenshot PNG      render, save a PNG of the window, exit\n"
         "  --frames K            frames to render before the screenshot (default 3)\n"
         "  --size WxH            window size (default 1600x900)\n"
         "  --script FILE         run steps (stride 33, step, play, frames 10, screenshot a.png, ...)\n"
         "  --results FILE        GPU results JSON (predicted vs measured)\n"
         "  --large               large fonts (lecture mode)\n"
         "  --contrast            high-contrast colours\n"
         "  --presentation        hide the sidebar (key p)\n"
         "  --layout-check        render, then list clipped or overlapping text; exit 3 if any\n"
         "  --svg FILE            write the bank view, tile views and timeline as SVG, exit\n"
         "  --dump-rects FILE     write the panels' pixel rectangles (for tests)\n"
         "  --bench-frames K      benchmark: K frames with the animation running\n"
         "  --bench-empty         benchmark an empty ImGui frame instead\n";
}

Result<AppOptions> parse_options(int argc, const char* const* argv) {
  AppOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* out) -> bool {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    long long n = 0;
    if (arg == "-h" || arg == "--help") {
      o.help = true;
    } else if (arg == "--large") {
      o.large = true;
    } else if (arg == "--contrast") {
      o.contrast = true;
    } else if (arg == "--presentation") {
      o.presentation = true;
    } else if (arg == "--layout-check") {
      o.layout_check = true;
    } else if (arg == "--bench-empty") {
      o.bench_empty = true;
      if (o.bench_frames == 0) o.bench_frames = 300;
    } else if (arg == "--scenario" || arg == "--scenario-b" || arg == "--trace" || arg == "--screenshot" ||
               arg == "--script" || arg == "--results" || arg == "--dump-rects" || arg == "--svg") {
      if (!value(&v) || v.empty()) return Error{arg + ": expected a file name"};
      if (arg == "--scenario") o.scenario = v;
      if (arg == "--scenario-b") o.scenario_b = v;
      if (arg == "--trace") o.trace = v;
      if (arg == "--screenshot") o.screenshot = v;
      if (arg == "--script") o.script = v;
      if (arg == "--results") o.results = v;
      if (arg == "--dump-rects") o.dump_rects = v;
      if (arg == "--svg") o.svg = v;
    } else if (arg == "--array" || arg == "--layout") {
      const bool is_array = arg == "--array";
      if (!value(&v) || v.empty()) {
        return Error{arg + ": expected " + (is_array ? "NAME@BYTE:TYPE[ROWS][COLS]"
                                                     : "NAME:stride=S, NAME:xor=M or NAME:swizzle=B,M,S")};
      }
      std::string& slot = is_array ? o.array : o.layout;
      if (!slot.empty()) {
        return Error{arg + ": given twice (the app tries one array's layout at a time)"};
      }
      slot = v;
    } else if (arg == "--stride") {
      if (!value(&v) || !to_int(v, 1, 1 << 20, &n)) {
        return Error{"--stride: expected an integer >= 1, got '" + v + "'"};
      }
      o.stride = n;
    } else if (arg == "--frames" || arg == "--bench-frames") {
      if (!value(&v) || !to_int(v, 1, 1000000, &n)) {
        return Error{arg + ": expected an integer >= 1, got '" + v + "'"};
      }
      (arg == "--frames" ? o.frames : o.bench_frames) = static_cast<int>(n);
    } else if (arg == "--compare") {
      if (!value(&v) || (v != "on" && v != "off")) {
        return Error{"--compare: expected on or off, got '" + v + "'"};
      }
      o.compare = v == "on";
    } else if (arg == "--size") {
      const bool got = value(&v);
      const size_t x = v.find('x');
      long long w = 0, h = 0;
      if (!got || x == std::string::npos || !to_int(v.substr(0, x), 16, 8192, &w) ||
          !to_int(v.substr(x + 1), 16, 8192, &h)) {
        return Error{"--size: expected WxH (16x16 .. 8192x8192), got '" + v + "'"};
      }
      o.width = static_cast<int>(w);
      o.height = static_cast<int>(h);
    } else {
      return Error{"unknown option '" + arg + "' (bankscope --help lists them)"};
    }
  }
  if ((!o.array.empty() || !o.layout.empty()) && o.trace.empty()) {
    return Error{std::string(o.array.empty() ? "--layout" : "--array") +
                 ": only with --trace FILE"};
  }
  if (!o.layout.empty() && o.array.empty()) {
    return Error{"--layout: needs --array (the array it lays out)"};
  }
  return o;
}

}  // namespace bankscope
