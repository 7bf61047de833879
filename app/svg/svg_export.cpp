// svg_export.cpp: SVG text for the bank view, the tile views and the stride sweep.
//
// Index:
//   [SECTION] helpers: escaping, colours
//   [SECTION] bank view
//   [SECTION] tile views
//   [SECTION] stride sweep
//   [SECTION] timeline, composition
#include "svg_export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

namespace bankscope {

// ---------------------------------------------------------------------------------------------
// [SECTION] helpers: escaping, colours
// ---------------------------------------------------------------------------------------------
namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') o += c;
    }
  }
  return o;
}

std::string rgb(double r, double g, double b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(std::clamp(r, 0.0, 1.0) * 255)),
                static_cast<int>(std::lround(std::clamp(g, 0.0, 1.0) * 255)),
                static_cast<int>(std::lround(std::clamp(b, 0.0, 1.0) * 255)));
  return buf;
}

// viridis at t in [0, 1], linear between 9 samples of matplotlib's table.
std::string viridis(double t) {
  static const double k[9][3] = {{0.267, 0.005, 0.329}, {0.278, 0.175, 0.483}, {0.230, 0.322, 0.546},
                                 {0.173, 0.449, 0.558}, {0.128, 0.567, 0.551}, {0.153, 0.680, 0.504},
                                 {0.360, 0.785, 0.388}, {0.668, 0.862, 0.196}, {0.993, 0.906, 0.144}};
  t = std::clamp(t, 0.0, 1.0) * 8.0;
  const int i = std::min(7, static_cast<int>(t));
  const double f = t - i;
  return rgb(k[i][0] + f * (k[i + 1][0] - k[i][0]), k[i][1] + f * (k[i + 1][1] - k[i][1]),
             k[i][2] + f * (k[i + 1][2] - k[i][2]));
}

// A light colour per bank: hues around the wheel, consecutive banks far apart (step 11 of 32).
std::string bank_colour(int bank, int banks) {
  const double h = std::fmod((bank * 11 % std::max(banks, 1)) / double(std::max(banks, 1)), 1.0) * 6.0;
  const double x = 1.0 - std::fabs(std::fmod(h, 2.0) - 1.0);
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h)) {
    case 0: r = 1, g = x; break;
    case 1: r = x, g = 1; break;
    case 2: g = 1, b = x; break;
    case 3: g = x, b = 1; break;
    case 4: r = x, b = 1; break;
    default: r = 1, b = x; break;
  }
  // Pastel: mix with white so black text stays readable.
  return rgb(0.55 + 0.45 * r, 0.55 + 0.45 * g, 0.55 + 0.45 * b);
}

// Text colour readable on viridis(t): dark on the yellow end, white elsewhere.
const char* ink_on_viridis(double t) { return t > 0.6 ? "#000" : "#fff"; }

void header(std::ostringstream& os, int w, int h) {
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 "
     << w << " " << h << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n"
     << "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ddd\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#888\" stroke-width=\"2\"/></pattern></defs>\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
}

void text(std::ostringstream& os, double x, double y, const std::string& s, int size = 12,
          const char* anchor = "start", const char* fill = "#000") {
  os << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << size << "\" text-anchor=\"" << anchor
     << "\" fill=\"" << fill << "\">" << esc(s) << "</text>\n";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] bank view
// ---------------------------------------------------------------------------------------------
std::string svg_bank_view(const AccessReport& rep, const std::string& title) {
  const int nb = rep.cfg.banks;
  const int cell = 30, left = 70, top = title.empty() ? 30 : 52;
  const int lane_y = top + 16, bank_y = lane_y + 110;
  size_t depth = 1;
  for (const auto& w : rep.bank_words) depth = std::max(depth, w.size());
  const int cols = std::max(nb, kWarpSize);
  const int width = left + cols * cell + 20;
  const int height = bank_y + 22 + static_cast<int>(depth) * 22 + 60;
  const int nwf = static_cast<int>(rep.wavefronts.size());
  auto wf_t = [&](int wf) { return nwf <= 1 ? 0.0 : double(wf) / (nwf - 1); };

  // (bank, word) -> wavefront that serves it (its first), and how many lanes ask for it.
  auto wf_of_word = [&](int bank, uint32_t word) {
    for (int w = 0; w < nwf; ++w) {
      for (const auto& bw : rep.wavefronts[static_cast<size_t>(w)].words) {
        if (bw.first == bank && bw.second == word) return w;
      }
    }
    return -1;
  };

  // A CAS spin (R8c): per bank the lowest lane swaps and the others fail and retry in the loop's
  // next execution (LaneDetail::retries), as the app draws it: failing lanes grey and struck out, a
  // word whose every lane fails grey and struck out (never swapped, not a conflict: the spin costs 2
  // wavefronts per phase whatever the banks).
  const bool spin = rep.access.op == Op::kAtomic && rep.access.atom == AtomOp::kCastSpin;
  std::map<uint32_t, std::pair<int, int>> word_lanes;  // word -> (its lanes, those that fail)
  int failing = 0, active = 0;
  for (const LaneDetail& d : rep.lanes) {
    if (!d.active) continue;
    ++active;
    failing += d.retries;
    for (int k = 0; spin && k < d.words; ++k) {
      auto& [all, fail] = word_lanes[d.word[static_cast<size_t>(k)]];
      ++all;
      fail += d.retries;
    }
  }
  auto never_swapped = [&](uint32_t word) {
    const auto it = word_lanes.find(word);
    return it != word_lanes.end() && it->second.second == it->second.first;
  };
  const char* kRetryFill = "#b8b8b8";  // the app's palette::kRetry
  auto strike = [](std::ostringstream& o, int x, int y, int w, int h) {
    o << "<line x1=\"" << x << "\" y1=\"" << y << "\" x2=\"" << x + w << "\" y2=\"" << y + h
      << "\" stroke=\"#555\" stroke-width=\"1.5\"/>\n";
  };

  std::ostringstream os;
  header(os, width, height);
  if (!title.empty()) text(os, 10, 22, title, 15);
  text(os, 10, lane_y + 16, "lane", 12);
  text(os, 10, bank_y + 14, "bank", 12);
  text(os, 10, bank_y + 38, "words", 12);

  // Lanes: box coloured by the wavefront that completes the lane; inactive lanes hatched.
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const LaneDetail& d = rep.lanes[static_cast<size_t>(lane)];
    const int x = left + lane * cell;
    if (!d.active) {
      os << "<rect x=\"" << x + 1 << "\" y=\"" << lane_y << "\" width=\"" << cell - 2 << "\" height=\"22\" "
         << "fill=\"url(#hatch)\" stroke=\"#888\"><title>lane " << lane << ": inactive</title></rect>\n";
      text(os, x + cell / 2.0, lane_y + 15, std::to_string(lane), 10, "middle", "#444");
      continue;
    }
    const double t = wf_t(d.wavefront);
    const bool retry = spin && d.retries;
    os << "<rect x=\"" << x + 1 << "\" y=\"" << lane_y << "\" width=\"" << cell - 2 << "\" height=\"22\" fill=\""
       << (retry ? kRetryFill : viridis(t)) << "\" stroke=\"#000\"><title>lane " << lane << ": byte " << d.addr
       << ", bank " << d.bank[0] << ", word " << d.word[0] << ", wavefront " << d.wavefront
       << (retry ? ": fails, retries in the next execution" : "") << "</title></rect>\n";
    if (retry) strike(os, x + 1, lane_y, cell - 2, 22);
    text(os, x + cell / 2.0, lane_y + 15, std::to_string(lane), 10, "middle", retry ? "#000" : ink_on_viridis(t));
  }
  // Lane -> bank lines (to the lane's first word).
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const LaneDetail& d = rep.lanes[static_cast<size_t>(lane)];
    if (!d.active) continue;
    for (int k = 0; k < d.words; ++k) {
      const double x0 = left + lane * cell + cell / 2.0;
      const double x1 = left + d.bank[static_cast<size_t>(k)] * cell + cell / 2.0;
      os << "<line x1=\"" << x0 << "\" y1=\"" << lane_y + 22 << "\" x2=\"" << x1 << "\" y2=\"" << bank_y
         << "\" stroke=\"" << (spin && d.retries ? kRetryFill : viridis(wf_t(d.wavefront)))
         << "\" stroke-opacity=\"0.7\" stroke-width=\"1.2\"/>\n";
    }
  }
  // Banks and their words, stacked in the order the lanes first ask for them. A bank serving more
  // than one word in one phase is conflicting: its extra words in that phase get a dashed outline,
  // and the most it serves in a phase is the n-way count below (an 8-byte access's two half-warp
  // phases may each take a word of a bank without a conflict; a spin's never-swapped words are
  // served in none).
  for (int b = 0; b < nb; ++b) {
    const int x = left + b * cell;
    os << "<rect x=\"" << x + 1 << "\" y=\"" << bank_y << "\" width=\"" << cell - 2
       << "\" height=\"20\" fill=\"#eee\" stroke=\"#666\"/>\n";
    text(os, x + cell / 2.0, bank_y + 14, std::to_string(b), 10, "middle");
    const auto& words = rep.bank_words[static_cast<size_t>(b)];
    std::map<int, int> served;  // phase -> words this bank serves in it so far
    int n_way = 0;
    for (size_t i = 0; i < words.size(); ++i) {
      const int y = bank_y + 24 + static_cast<int>(i) * 22;
      const uint32_t byte = words[i] * uint32_t(rep.cfg.bank_bytes);
      if (spin && never_swapped(words[i])) {
        os << "<rect x=\"" << x + 1 << "\" y=\"" << y << "\" width=\"" << cell - 2 << "\" height=\"20\" fill=\""
           << kRetryFill << "\" stroke=\"#000\"><title>bank " << b << ", word " << words[i] << " (byte " << byte
           << "), not swapped: its lanes fail and retry in the next execution</title></rect>\n";
        strike(os, x + 1, y, cell - 2, 20);
        text(os, x + cell / 2.0, y + 14, std::to_string(words[i]), words[i] >= 10000 ? 7 : 9, "middle");
        continue;
      }
      const int wf = wf_of_word(b, words[i]);
      const double t = wf_t(std::max(wf, 0));
      const int before = served[wf >= 0 ? rep.wavefronts[static_cast<size_t>(wf)].phase : -1]++;
      n_way = std::max(n_way, before + 1);
      os << "<rect x=\"" << x + 1 << "\" y=\"" << y << "\" width=\"" << cell - 2 << "\" height=\"20\" fill=\""
         << viridis(t) << "\" stroke=\"#000\""
         << (before > 0 ? " stroke-dasharray=\"3,2\" stroke-width=\"1.5\"" : "") << "><title>bank " << b
         << ", word " << words[i] << " (byte " << byte << "), wavefront " << wf << "</title></rect>\n";
      text(os, x + cell / 2.0, y + 14, std::to_string(words[i]), words[i] >= 10000 ? 7 : 9, "middle",
           ink_on_viridis(t));
    }
    if (n_way > 1) {
      text(os, x + cell / 2.0, bank_y + 24 + static_cast<int>(words.size()) * 22 + 12,
           std::to_string(n_way) + "w", 9, "middle");
    }
  }
  const AccessCost& c = rep.cost;
  std::ostringstream sum;
  sum << c.wavefronts << " wavefront" << (c.wavefronts == 1 ? "" : "s") << " (ideal " << c.ideal_wavefronts
      << "), " << c.bank_conflicts() << " bank conflict" << (c.bank_conflicts() == 1 ? "" : "s") << ", "
      << c.n_way << "-way; " << rep.access.width << "-byte " << op_name(rep.access.op);
  if (spin) {
    sum << " (CAS spin): " << failing << " of " << active << " lane" << (active == 1 ? "" : "s")
        << " fail and retry (grey)";
  }
  sum << "; colour = wavefront (viridis, first dark)";
  text(os, 10, height - 16, sum.str(), 13);
  os << "</svg>\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] tile views
// ---------------------------------------------------------------------------------------------
Result<std::string> svg_tile_views(const SharedArray& a, const LaneElements& lanes, const BankConfig& cfg,
                                   const std::string& title) {
  const int rows = a.shape.rows, cols = a.shape.cols, stride = a.layout.row_stride;
  if (rows > 128 || stride > 256) {
    return Error{"tile view: " + std::to_string(rows) + " x " + std::to_string(stride) +
                 " cells is more than the 128 x 256 a picture shows"};
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    const auto& [r, c] = lanes[i];
    if (r == -1 && c == -1) continue;
    if (r < 0 || r >= rows || c < 0 || c >= cols) {
      return Error{"lane " + std::to_string(i) + ": element [" + std::to_string(r) + "][" + std::to_string(c) +
                   "] is outside the " + std::to_string(rows) + " x " + std::to_string(cols) + " tile"};
    }
  }
  const int cell = std::clamp(560 / std::max(cols, stride), 6, 22);
  const bool labels = cell >= 16;
  const int top = title.empty() ? 46 : 66, left = 20, gap = 40;
  const int lw = cols * cell, pw = stride * cell;
  const int width = left + lw + gap + pw + 20;
  const int height = top + rows * cell + 50;
  const int eb = a.elem_bytes();
  auto bank_at = [&](int64_t phys) {
    return bank_of(a.base + static_cast<uint32_t>(phys * eb), cfg.banks, cfg.bank_bytes);
  };

  std::ostringstream os;
  header(os, width, height);
  if (!title.empty()) text(os, 10, 22, title, 15);
  text(os, left, top - 10, "logical " + std::to_string(rows) + " x " + std::to_string(cols) + " (what the code indexes)", 12);
  const int px = left + lw + gap;
  text(os, px, top - 10, "physical: " + a.declaration(), 12);

  std::vector<int> used(static_cast<size_t>(rows) * static_cast<size_t>(stride), 0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int64_t off = a.layout.offset(r, c);
      if (off >= 0 && off < int64_t(used.size())) used[static_cast<size_t>(off)] = 1;
      const int b = bank_at(off);
      const int x = left + c * cell, y = top + r * cell;
      os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\""
         << bank_colour(b, cfg.banks) << "\" stroke=\"#fff\" stroke-width=\"0.5\"><title>[" << r << "][" << c
         << "] -> offset " << off << ", bank " << b << "</title></rect>\n";
      if (labels) text(os, x + cell / 2.0, y + cell * 0.7, std::to_string(b), 8, "middle", "#333");
    }
  }
  for (int64_t off = 0; off < int64_t(used.size()); ++off) {
    const int r = static_cast<int>(off / stride), c = static_cast<int>(off % stride);
    const int x = px + c * cell, y = top + r * cell;
    if (!used[static_cast<size_t>(off)]) {
      os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell << "\" height=\"" << cell
         << "\" fill=\"url(#hatch)\" stroke=\"#fff\" stroke-width=\"0.5\"><title>offset " << off
         << ": padding</title></rect>\n";
      continue;
    }
    const int b = bank_at(off);
    os << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell << "\" height=\"" << cell << "\" fill=\""
       << bank_colour(b, cfg.banks) << "\" stroke=\"#fff\" stroke-width=\"0.5\"><title>offset " << off << ", bank "
       << b << "</title></rect>\n";
    if (labels) text(os, x + cell / 2.0, y + cell * 0.7, std::to_string(b), 8, "middle", "#333");
  }
  // The warp's elements: a thick outline in both views, lane number beside it where there is room.
  for (size_t i = 0; i < lanes.size(); ++i) {
    const auto& [r, c] = lanes[i];
    if (r == -1 && c == -1) continue;
    const int64_t off = a.layout.offset(r, c);
    const int lx = left + static_cast<int>(c) * cell, ly = top + static_cast<int>(r) * cell;
    const int qx = px + static_cast<int>(off % stride) * cell, qy = top + static_cast<int>(off / stride) * cell;
    for (auto [x, y] : {std::pair<int, int>{lx, ly}, std::pair<int, int>{qx, qy}}) {
      os << "<rect x=\"" << x + 1 << "\" y=\"" << y + 1 << "\" width=\"" << cell - 2 << "\" height=\"" << cell - 2
         << "\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"><title>lane " << i << "</title></rect>\n";
    }
  }
  text(os, 10, height - 16,
       "cell colour and number = bank; hatched = padding; black outline = the warp's elements", 12);
  os << "</svg>\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] stride sweep
// ---------------------------------------------------------------------------------------------
SweepSeries column_read_sweep(ElementType type, int max_stride, Op op) {
  SweepSeries s;
  const int eb = element_size(type);
  s.label = std::string(element_name(type)) + " (" + std::to_string(eb) + " B)";
  for (int stride = 1; stride <= max_stride; ++stride) {
    WarpAccess w;
    w.op = op;
    w.width = eb;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      w.addr[static_cast<size_t>(lane)] = static_cast<uint32_t>(lane * stride * eb);
    }
    s.strides.push_back(stride);
    s.wavefronts.push_back(cost(w).wavefronts);
  }
  return s;
}

// One panel per series (small multiples: the staircases overlap too much to share axes), y on a
// log2 scale so that 1, 2, 4, .. 32 wavefronts are evenly spaced steps.
std::string svg_stride_sweep(const std::vector<SweepSeries>& series, const std::string& title) {
  const int left = 70, right = 20, top = title.empty() ? 14 : 40, plot_w = 760, panel_h = 110, gap = 34;
  const int npanels = std::max<int>(1, static_cast<int>(series.size()));
  const int width = left + plot_w + right, height = top + npanels * (panel_h + gap) + 30;
  int xmax = 1, ymax = 1;
  for (const auto& s : series) {
    for (int x : s.strides) xmax = std::max(xmax, x);
    for (int y : s.wavefronts) ymax = std::max(ymax, y);
  }
  int ylog = 0;
  while ((1 << ylog) < ymax) ++ylog;
  ylog = std::max(ylog, 1);
  int xstep = 1;
  while (xmax / xstep > 16) xstep *= 2;
  auto X = [&](double x) { return left + (x - 0.5) / xmax * plot_w; };

  std::ostringstream os;
  header(os, width, height);
  if (!title.empty()) text(os, 10, 24, title, 15);
  static const char* kDash[] = {"", "6,3", "2,2", "8,3,2,3"};
  for (int k = 0; k < npanels; ++k) {
    const int ptop = top + k * (panel_h + gap) + 16;
    // y: 0 wavefronts at the bottom edge, then 1, 2, 4, .. on a log2 scale above it.
    auto Y = [&](int y) {
      const double v = y <= 0 ? -0.5 : std::log2(double(y));
      return ptop + panel_h - (v + 0.5) / (ylog + 0.5) * panel_h;
    };
    for (int e = 0; e <= ylog; ++e) {
      os << "<line x1=\"" << left << "\" y1=\"" << Y(1 << e) << "\" x2=\"" << left + plot_w << "\" y2=\""
         << Y(1 << e) << "\" stroke=\"#ddd\"/>\n";
      text(os, left - 6, Y(1 << e) + 4, std::to_string(1 << e), 10, "end");
    }
    for (int x = xstep; x <= xmax; x += xstep) {
      os << "<line x1=\"" << X(x) << "\" y1=\"" << ptop + panel_h << "\" x2=\"" << X(x) << "\" y2=\""
         << ptop + panel_h + 4 << "\" stroke=\"#000\"/>\n";
      text(os, X(x), ptop + panel_h + 15, std::to_string(x), 10, "middle");
    }
    os << "<rect x=\"" << left << "\" y=\"" << ptop << "\" width=\"" << plot_w << "\" height=\"" << panel_h
       << "\" fill=\"none\" stroke=\"#000\"/>\n";
    if (k >= static_cast<int>(series.size())) continue;
    const SweepSeries& s = series[static_cast<size_t>(k)];
    text(os, left, ptop - 5, s.label, 12);
    const std::string colour = viridis(series.size() <= 1 ? 0.0 : 0.8 * double(k) / double(series.size() - 1));
    // Steps: each stride's value holds over [x - 0.5, x + 0.5]. A stride missing from the series
    // (one the scenario cannot run at) is a gap: the line breaks there rather than bridging it.
    const size_t npts = std::min(s.strides.size(), s.wavefronts.size());
    for (size_t i = 0; i < npts;) {
      os << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.8\"";
      if (*kDash[k % 4]) os << " stroke-dasharray=\"" << kDash[k % 4] << "\"";
      os << " points=\"";
      size_t j = i;
      do {
        os << X(s.strides[j] - 0.5) << "," << Y(s.wavefronts[j]) << " " << X(s.strides[j] + 0.5) << ","
           << Y(s.wavefronts[j]) << " ";
        ++j;
      } while (j < npts && s.strides[j] == s.strides[j - 1] + 1);
      os << "\"><title>" << esc(s.label) << "</title></polyline>\n";
      i = j;
    }
  }
  text(os, left + plot_w / 2.0, height - 10, "row stride (elements); lane i reads element (i, 0)", 12, "middle");
  const double mid = top + npanels * (panel_h + gap) / 2.0;
  os << "<text x=\"16\" y=\"" << mid << "\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
     << mid << ")\">wavefronts per warp instruction (log2)</text>\n";
  os << "</svg>\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// [SECTION] timeline, composition
// ---------------------------------------------------------------------------------------------
std::string svg_timeline(const AccessReport& rep, int cycle, const std::string& title) {
  const int waves = static_cast<int>(rep.wavefronts.size());
  const int left = 10, top = title.empty() ? 26 : 48, bar_w = 640, bar_h = 24;
  const int width = left + bar_w + 20, height = top + bar_h + 40;
  const int scale = std::max(waves, 32);
  const double seg = double(bar_w) / scale;
  const double gap = seg >= 6 ? 2 : 0;
  std::ostringstream os;
  header(os, width, height);
  if (!title.empty()) text(os, 10, 22, title, 15);
  std::ostringstream head;
  head << "timeline: " << waves << " wavefront" << (waves == 1 ? "" : "s") << ", one per cycle";
  if (cycle >= 0 && cycle < waves) head << " (cycle " << cycle + 1 << " shown)";
  text(os, left, top - 8, head.str(), 12);
  for (int k = 0; k < waves; ++k) {
    const bool done = cycle >= 0 && k < cycle, now = k == cycle;
    const char* fill = now ? "#e69f00" : done ? "#56b4e9" : "#bbbbc4";
    const int lanes = __builtin_popcount(rep.wavefronts[static_cast<size_t>(k)].lanes);
    os << "<rect x=\"" << left + k * seg << "\" y=\"" << top << "\" width=\"" << seg - gap
       << "\" height=\"" << bar_h << "\" fill=\"" << fill << "\" stroke=\""
       << (now ? "#000" : "none") << "\"><title>wavefront " << k + 1 << ": completes " << lanes
       << " lane" << (lanes == 1 ? "" : "s") << "</title></rect>\n";
    if (seg >= 14)
      text(os, left + (k + 0.5) * seg, top + bar_h - 7, std::to_string(k + 1), 10, "middle");
  }
  text(os, left, top + bar_h + 18,
       "orange = being served, blue = served, grey = waiting; bar length = 32 cycles or the "
       "instruction's",
       11);
  os << "</svg>\n";
  return os.str();
}

namespace {

int attr_of(const std::string& svg, const char* name) {
  const size_t tag = svg.find("<svg");
  const size_t at = svg.find(std::string(" ") + name + "=\"", tag);
  return at == std::string::npos ? 0 : std::atoi(svg.c_str() + at + std::strlen(name) + 3);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

}  // namespace

std::string svg_compose(const std::vector<std::vector<std::string>>& columns,
                        const std::string& title) {
  const int gap = 20, top = title.empty() ? 0 : 36;
  int width = 0, height = 0;
  std::vector<int> col_w;
  for (const auto& col : columns) {
    int w = 0, h = 0;
    for (const std::string& part : col)
      w = std::max(w, attr_of(part, "width")), h += attr_of(part, "height") + gap;
    col_w.push_back(w);
    width += w + gap;
    height = std::max(height, h);
  }
  width = std::max(width - gap, 1), height = std::max(top + height - gap, 1);
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
     << "\" viewBox=\"0 0 " << width << " " << height
     << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  if (!title.empty()) text(os, 10, 24, title, 16);
  int x = 0, n = 0;
  for (size_t c = 0; c < columns.size(); ++c) {
    int y = top;
    for (const std::string& part : columns[c]) {
      // Nested <svg> elements keep each drawing's own coordinates.
      const std::string id = "hatch" + std::to_string(n++);
      std::string body = replace_all(part, "id=\"hatch\"", "id=\"" + id + "\"");
      body = replace_all(body, "url(#hatch)", "url(#" + id + ")");
      const size_t tag = body.find("<svg");
      if (tag == std::string::npos) continue;
      body.replace(tag, 4, "<svg x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\"");
      os << body;
      y += attr_of(part, "height") + gap;
    }
    x += col_w[c] + gap;
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace bankscope
