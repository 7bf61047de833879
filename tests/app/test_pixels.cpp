// test_pixels.cpp: real-window tests of the visualizer. Each case starts the real `bankscope`
// under Xvfb (Mesa llvmpipe, LIBGL_ALWAYS_SOFTWARE=1), takes screenshots, and counts pixels of
// the panels' exact fill colours inside the rectangles the app reports (--dump-rects). The
// expected counts come from the model (app_model), so a picture that disagrees with the numbers
// fails.
//
// Exit code 77 (ctest SKIP_RETURN_CODE) when Xvfb is missing: skipped, never passed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include <stb_image.h>

#include "app_model.hpp"

using namespace bankscope;

namespace {

const std::string kApp = BANKSCOPE_APP_PATH;
const std::string kOnXvfb = BANKSCOPE_ON_XVFB;  // scripts/on_xvfb.sh
const std::string kOut = std::string(BANKSCOPE_TEST_OUT) + "/pixels";

// Colours of app/panels/panels.hpp (palette::kServe, kDone, kConflict, kPadding, kFuture).
struct Rgb {
  unsigned char r, g, b;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};
constexpr Rgb kServe{0xE6, 0x9F, 0x00};
constexpr Rgb kDone{0x56, 0xB4, 0xE9};
constexpr Rgb kWaiting{0x00, 0x72, 0xB2};
constexpr Rgb kConflict{0xD5, 0x5E, 0x00};
constexpr Rgb kPadding{0x6B, 0x6B, 0x6B};
constexpr Rgb kFuture{0x4A, 0x4A, 0x52};
constexpr Rgb kRetry{0xB8, 0xB8, 0xB8};

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> px;
  Rgb at(int x, int y) const {
    const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3;
    return Rgb{px[i], px[i + 1], px[i + 2]};
  }
};

struct Rect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

Image load_png(const std::string& path) {
  Image img;
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.w, &img.h, &n, 3);
  REQUIRE_MESSAGE(data != nullptr, "cannot read " << path);
  img.px.assign(data, data + size_t(img.w) * size_t(img.h) * 3);
  stbi_image_free(data);
  return img;
}

std::map<std::string, Rect> load_rects(const std::string& path) {
  std::map<std::string, Rect> out;
  std::ifstream in(path);
  std::string name;
  float x0, y0, x1, y1;
  while (in >> name >> x0 >> y0 >> x1 >> y1) {
    out[name] = Rect{int(x0 + 0.5f), int(y0 + 0.5f), int(x1), int(y1)};
  }
  REQUIRE_MESSAGE(!out.empty(), "no rectangles in " << path);
  return out;
}

// Runs the app on its own Xvfb screen; returns the app's exit status. The log holds the app's
// stdout and stderr only: Xvfb's own messages never mix into it (scripts/on_xvfb.sh).
int run_app(const std::string& args, const std::string& log) {
  const std::string cmd =
      "LIBGL_ALWAYS_SOFTWARE=1 " + kOnXvfb + " 1920x1080 " + kApp + " " + args + " > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

int count(const Image& img, const Rect& r, Rgb c) {
  int n = 0;
  for (int y = r.y0; y < r.y1; ++y)
    for (int x = r.x0; x < r.x1; ++x) n += img.at(x, y) == c;
  return n;
}

// Runs of pixels matching `pred` along row y of rectangle r: the number of separate segments.
template <class Pred>
int runs(const Image& img, const Rect& r, int y, Pred pred) {
  int n = 0;
  bool in = false;
  for (int x = r.x0; x < r.x1; ++x) {
    const bool m = pred(img.at(x, y));
    if (m && !in) ++n;
    in = m;
  }
  return n;
}

int segments(const Image& img, const Rect& r) {  // timeline segments of any state
  return runs(img, r, (r.y0 + r.y1) / 2,
              [](Rgb c) { return c == kServe || c == kDone || c == kFuture; });
}

// The model's numbers for the seed kernel's column read at a stride.
AccessReport seed_report(int stride) {
  UiState s;
  load_seed_pair(s);
  set_row_stride(s.configs[0], stride);
  PaneModel p;
  compute_pane(s.configs[0], p);
  REQUIRE(p.ok);
  return p.report;
}

struct Shot {
  Image img;
  std::map<std::string, Rect> rects;
};

Shot shoot(const std::string& name, const std::string& args) {
  std::filesystem::create_directories(kOut);
  const std::string png = kOut + "/" + name + ".png";
  const std::string rects = kOut + "/" + name + ".rects";
  std::filesystem::remove(png);
  const int rc = run_app(args + " --screenshot " + png + " --dump-rects " + rects, kOut + "/" + name + ".log");
  REQUIRE_MESSAGE(rc == 0, "bankscope exited " << rc << ", see " << kOut << "/" << name << ".log");
  return Shot{load_png(png), load_rects(rects)};
}

struct XvfbCheck {
  XvfbCheck() {
    if (std::system("command -v Xvfb > /dev/null 2>&1") != 0) {
      std::fprintf(stderr, "SKIPPED: Xvfb not found (apt-get install xvfb)\n");
      std::exit(77);
    }
  }
} g_xvfb_check;

}  // namespace

TEST_CASE("seed pair in compare mode: timeline and serving banks match the model (32 vs 1)") {
  const AccessReport a = seed_report(32), b = seed_report(33);
  REQUIRE(a.cost.wavefronts == 32);
  REQUIRE(b.cost.wavefronts == 1);
  Shot s = shoot("seed_pair", "--size 1600x900");
  CHECK(s.img.w == 1600);
  CHECK(s.img.h == 900);
  struct Row {
    const char* pane;
    const AccessReport* rep;
  };
  const Row rows[] = {{"A", &a}, {"B", &b}};
  for (const Row& r : rows) {
    CAPTURE(r.pane);
    const std::string p = r.pane;
    // One timeline segment per wavefront: 32 for tile[32][32], 1 for tile[32][33].
    CHECK(segments(s.img, s.rects.at(p + ".timeline")) == r.rep->cost.wavefronts);
    // Cycle 1: the banks that serve in wavefront 0 are lit (1 bank vs all 32).
    const Rect h = s.rects.at(p + ".bank_header");
    CHECK(runs(s.img, h, h.y0 + 2, [](Rgb c) { return c == kServe; }) ==
          __builtin_popcountll(r.rep->wavefronts[0].banks));
  }
  // Conflict hatching only where there is a conflict.
  CHECK(count(s.img, s.rects.at("A.bank_words"), kConflict) > 100);
  CHECK(count(s.img, s.rects.at("B.bank_words"), kConflict) == 0);
  // Padding: only in B's physical view, as one column of 32 cells.
  CHECK(count(s.img, s.rects.at("A.physical"), kPadding) == 0);
  CHECK(count(s.img, s.rects.at("A.logical"), kPadding) == 0);
  CHECK(count(s.img, s.rects.at("B.logical"), kPadding) == 0);
  const Rect bp = s.rects.at("B.physical");
  CHECK(count(s.img, bp, kPadding) > 32 * 4);
  // ... and they form one column: the x positions holding padding pixels are one contiguous run
  // (the cells are hatched, so scan columns rather than a single row).
  int column_runs = 0;
  bool in = false;
  for (int x = bp.x0; x < bp.x1; ++x) {
    bool any = false;
    for (int y = bp.y0; y < bp.y1 && !any; ++y) any = s.img.at(x, y) == kPadding;
    if (any && !in) ++column_runs;
    in = any;
  }
  CHECK(column_runs == 1);
  // The legend names only the marks a shown pane draws: no atomic, no CAS spin here.
  CHECK(s.rects.count("legend.retry") == 0);
  CHECK(s.rects.count("legend.serialized") == 0);
}

TEST_CASE("the picture follows the stride: --stride 32, 40, 33 on a single scenario") {
  struct Row {
    int stride;
  };
  const Row rows[] = {{32}, {40}, {33}};
  std::vector<Image> images;
  for (const Row& r : rows) {
    CAPTURE(r.stride);
    const AccessReport rep = seed_report(r.stride);
    const std::string scenario = std::string(BANKSCOPE_ASSETS_DIR) + "/scenarios/seed_transpose_32x32.json";
    const std::string args = std::filesystem::exists(scenario)
                                 ? "--scenario " + scenario + " --stride " + std::to_string(r.stride)
                                 : "--compare off --stride " + std::to_string(r.stride);
    Shot s = shoot("stride_" + std::to_string(r.stride), args + " --size 1280x800");
    CHECK(s.rects.count("B.timeline") == 0);  // single view
    CHECK(segments(s.img, s.rects.at("A.timeline")) == rep.cost.wavefronts);
    const Rect h = s.rects.at("A.bank_header");
    CHECK(runs(s.img, h, h.y0 + 2, [](Rgb c) { return c == kServe; }) ==
          __builtin_popcountll(rep.wavefronts[0].banks));
    const int padding = count(s.img, s.rects.at("A.physical"), kPadding);
    if (r.stride == 32) CHECK(padding == 0);
    if (r.stride != 32) CHECK(padding > 0);
    images.push_back(std::move(s.img));
  }
  // Changing the stride changes the picture.
  int differ = 0;
  for (size_t i = 0; i < images[0].px.size(); ++i) differ += images[0].px[i] != images[1].px[i];
  CHECK(differ > 10000);
}

TEST_CASE("a script steps the animation: after 5 steps, 5 segments served and the 6th serving") {
  std::filesystem::create_directories(kOut);
  const std::string script = kOut + "/steps.txt";
  const std::string png = kOut + "/steps.png";
  std::ofstream(script) << "# drive the UI like a lecturer\ncompare on\nstep\nstep\nstep\nstep\nstep\n"
                           "frames 2\nscreenshot " + png + "\n";
  std::filesystem::remove(png);
  REQUIRE(run_app("--script " + script + " --dump-rects " + kOut + "/steps.rects --size 1600x900",
                  kOut + "/steps.log") == 0);
  const Image img = load_png(png);
  const auto rects = load_rects(png + ".rects");
  const Rect t = rects.at("A.timeline");
  const int y = (t.y0 + t.y1) / 2;
  CHECK(runs(img, t, y, [](Rgb c) { return c == kDone; }) == 5);
  CHECK(runs(img, t, y, [](Rgb c) { return c == kServe; }) == 1);
  CHECK(runs(img, t, y, [](Rgb c) { return c == kFuture; }) == 26);
  // B finished in its single cycle: its one segment is served.
  CHECK(runs(img, rects.at("B.timeline"), y, [](Rgb c) { return c == kDone; }) == 1);
}

TEST_CASE("bad arguments: one line on stderr, non-zero exit, no window needed") {
  struct Row {
    std::string args;
    const char* expect;
  };
  const std::string trace = "--trace " + std::string(BANKSCOPE_ASSETS_DIR) +
                            "/results/h200/2026-11-30d/traces/transpose.bstrace";
  const Row rows[] = {
      {"--stride abc", "--stride"},
      {"--scenario /nonexistent/x.json", "x.json"},
      {"--size 5x5", "--size"},
      {"--bogus", "unknown option"},
      {"--trace /nonexistent/t.bstrace", "t.bstrace: cannot open"},
      // The what-if (issue 10, item 5): the field and the reason, before any window.
      {trace + " --array tile@x:float[32][32]", "--array 'tile@x:float[32][32]': byte offset"},
      {trace + " --array tile@0:float[32][32] --layout tile:stride=31",
       "--layout 'tile:stride=31': row_stride: 31 is smaller than the row length 32"},
      {trace + " --array tile@0:float[32][32] --layout buf:stride=33",
       "--layout 'buf:stride=33': no --array named 'buf'"},
      {trace + " --stride 40", "--stride: no what-if array"},
      {"--array tile@0:float[32][32]", "--array: only with --trace FILE"}};
  for (const Row& r : rows) {
    CAPTURE(r.args);
    const std::string log = kOut + "/bad_args.log";
    std::filesystem::create_directories(kOut);
    const std::string cmd = kApp + " " + r.args + " > " + log + " 2>&1";
    const int rc = std::system(cmd.c_str());
    CHECK(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) != 0);
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    const std::string out = text.str();
    CHECK(out.find(r.expect) != std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  }
}

// ---- traces (bankscope --trace) ------------------------------------------------------------------

namespace {
const std::string kTransposeTrace =
    std::string(BANKSCOPE_ASSETS_DIR) + "/results/h200/2026-11-30d/traces/transpose.bstrace";
}  // namespace

TEST_CASE("--trace transpose.bstrace: the hottest LDS's 32-way picture (one bank lit, 32 segments)") {
  // The model's numbers for the same execution (launch 0's LDS at pc 0x1390, execution 0).
  UiState st;
  AppModel m;
  REQUIRE(open_trace(st, kTransposeTrace).ok());
  m.update(st);
  const AccessReport& rep = m.trace().pane.report;
  REQUIRE(rep.cost.wavefronts == 32);
  REQUIRE(__builtin_popcountll(rep.wavefronts[0].banks) == 1);
  const int bank = __builtin_ctzll(rep.wavefronts[0].banks);

  Shot s = shoot("trace_transpose", "--trace " + kTransposeTrace + " --size 1600x900");
  REQUIRE(s.rects.count("trace.list") == 1);
  CHECK(segments(s.img, s.rects.at("A.timeline")) == 32);
  // Cycle 1: exactly one bank serves, and it is the model's bank: the orange run in the header
  // lies inside that bank's 1/32 column.
  const Rect h = s.rects.at("A.bank_header");
  const int y = h.y0 + 2;
  CHECK(runs(s.img, h, y, [](Rgb c) { return c == kServe; }) == 1);
  const float col = float(h.x1 - h.x0) / 32;
  int first = -1, last = -1;
  for (int x = h.x0; x < h.x1; ++x) {
    if (s.img.at(x, y) == kServe) last = x, first = first < 0 ? x : first;
  }
  CHECK(first >= h.x0 + int(float(bank) * col) - 1);
  CHECK(last <= h.x0 + int(float(bank + 1) * col) + 1);
  // 32 words of one bank: conflict hatching in the bank view.
  CHECK(count(s.img, s.rects.at("A.bank_words"), kConflict) > 100);
}

TEST_CASE("a script opens a trace, picks an execution and steps the animation") {
  std::filesystem::create_directories(kOut);
  const std::string script = kOut + "/trace_steps.txt";
  const std::string png = kOut + "/trace_steps.png";
  std::ofstream(script) << "trace " + kTransposeTrace + "\ntrace_exec 7\nstep\nstep\nstep\n"
                           "frames 2\nscreenshot " + png + "\n";
  std::filesystem::remove(png);
  REQUIRE(run_app("--script " + script + " --dump-rects " + kOut + "/trace_steps.rects --size 1600x900",
                  kOut + "/trace_steps.log") == 0);
  const Image img = load_png(png);
  const auto rects = load_rects(png + ".rects");
  const Rect t = rects.at("A.timeline");
  const int y = (t.y0 + t.y1) / 2;
  CHECK(runs(img, t, y, [](Rgb c) { return c == kDone; }) == 3);
  CHECK(runs(img, t, y, [](Rgb c) { return c == kServe; }) == 1);
  CHECK(runs(img, t, y, [](Rgb c) { return c == kFuture; }) == 28);
}

TEST_CASE("--trace atom_cast.bstrace: an ATOMS.CAST.SPIN execution's failing lanes turn grey at their swap wavefront") {
  // R8c: per phase a read and a swap wavefront; one lane per bank swaps and the others fail and
  // retry in the loop's next execution (LaneDetail::retries, checked by hand in
  // test_instr_kinds.cpp). A word whose lanes all fail is drawn grey and struck out, one where some
  // fail and one swaps gets a grey corner; before round 12 both were drawn "waiting" to the end.
  std::filesystem::create_directories(kOut);
  const std::string trace = std::string(BANKSCOPE_ASSETS_DIR) + "/results/h200/2026-12-01y/atom_cast.bstrace";
  UiState st;
  AppModel m;
  REQUIRE(open_trace(st, trace).ok());
  m.update(st);
  int row = -1;
  for (size_t i = 0; i < st.trace.loaded->rows.size() && row < 0; ++i) {
    if (st.trace.loaded->rows[i].stats.pc.opcode == "ATOMS.CAST.SPIN.64") row = static_cast<int>(i);
  }
  REQUIRE(row >= 0);
  st.trace.instr = row;
  st.trace.exec = 0;
  st.trace.touch();
  m.update(st);
  REQUIRE(m.trace().pane.ok);
  const AccessReport& rep = m.trace().pane.report;
  REQUIRE(rep.access.atom == AtomOp::kCastSpin);
  std::map<uint32_t, std::pair<int, int>> lanes_of;  // word -> (lanes, failing lanes)
  for (const LaneDetail& d : rep.lanes) {
    for (int j = 0; d.active && j < d.words; ++j) {
      auto& [all, failing] = lanes_of[d.word[static_cast<size_t>(j)]];
      ++all;
      failing += d.retries;
    }
  }
  size_t whole = 0, part = 0;
  for (const auto& [word, n] : lanes_of) {
    whole += n.second == n.first;
    part += n.second > 0 && n.second < n.first;
  }
  REQUIRE(whole > 0);
  REQUIRE(part > 0);  // lane 6 fails on a word a lane of the second phase swaps
  for (const int cycle : {0, rep.cost.wavefronts - 1}) {
    CAPTURE(cycle);
    const std::string name = kOut + "/cast_spin_" + std::to_string(cycle);
    std::ofstream(name + ".txt") << "trace " << trace << "\ntrace_instr " << row << "\ncycle " << cycle
                                 << "\nframes 2\nscreenshot " << name << ".png\n";
    std::filesystem::remove(name + ".png");
    REQUIRE(run_app("--script " + name + ".txt --dump-rects " + name + ".rects --size 1600x900", name + ".log") == 0);
    const Image img = load_png(name + ".png");
    const auto rects = load_rects(name + ".png.rects");
    size_t drawn_whole = 0, drawn_part = 0;
    for (const auto& [key, r] : rects) {
      const bool w = key.rfind("A.retry.w", 0) == 0, p = key.rfind("A.retry_part.w", 0) == 0;
      if (!w && !p) continue;
      (w ? drawn_whole : drawn_part)++;
      CHECK(count(img, r, kRetry) * 4 > (r.x1 - r.x0) * (r.y1 - r.y0));
    }
    // At the first wavefront (a read) no lane has failed yet; at the last every failure shows.
    CHECK(drawn_whole == (cycle == 0 ? 0 : whole));
    CHECK(drawn_part == (cycle == 0 ? 0 : part));
    CHECK(rects.count("A.bank_phases_note") == 1);  // "CAS spin: N lanes swap, M fail and retry"
    // The legend's key to the grey, at every cycle (the lanes fail in this execution).
    REQUIRE(rects.count("legend.retry") == 1);
    const Rect key = rects.at("legend.retry");
    CHECK(count(img, key, kRetry) * 2 > (key.x1 - key.x0) * (key.y1 - key.y0));
    CHECK(rects.count("legend.serialized") == 0);
  }
}

TEST_CASE("--trace with a what-if (--array, --layout): A as traced 32-way, B padded 1 wavefront") {
  // The model's numbers for the same execution (launch 0's LDS at pc 0x1390, execution 0).
  UiState st;
  AppModel m;
  REQUIRE(open_trace(st, kTransposeTrace).ok());
  REQUIRE(set_trace_array(st, "tile@0:float[32][32]").ok());
  REQUIRE(set_trace_layout(st, "tile:stride=33").ok());
  m.update(st);
  const AccessReport& a = m.trace().pane.report;
  const AccessReport& b = m.trace().what_if_pane.report;
  REQUIRE(a.cost.wavefronts == 32);
  REQUIRE(b.cost.wavefronts == 1);
  REQUIRE(__builtin_popcountll(b.wavefronts[0].banks) == 32);

  Shot s = shoot("trace_whatif",
                 "--trace " + kTransposeTrace +
                     " --array tile@0:float[32][32] --layout tile:stride=33 --size 1600x900");
  REQUIRE(s.rects.count("trace.list") == 1);
  REQUIRE(s.rects.count("B.timeline") == 1);
  // One timeline segment per wavefront: 32 as traced, 1 with the padded tile.
  CHECK(segments(s.img, s.rects.at("A.timeline")) == 32);
  CHECK(segments(s.img, s.rects.at("B.timeline")) == 1);
  // Cycle 1: one bank serves in A, all 32 in B.
  for (const char* p : {"A", "B"}) {
    CAPTURE(p);
    const Rect h = s.rects.at(std::string(p) + ".bank_header");
    CHECK(runs(s.img, h, h.y0 + 2, [](Rgb c) { return c == kServe; }) ==
          __builtin_popcountll((std::string(p) == "A" ? a : b).wavefronts[0].banks));
  }
  // Conflict hatching only as traced.
  CHECK(count(s.img, s.rects.at("A.bank_words"), kConflict) > 100);
  CHECK(count(s.img, s.rects.at("B.bank_words"), kConflict) == 0);
  // Side by side under the list: B right of A, both below the list.
  CHECK(s.rects.at("B.bank_header").x0 > s.rects.at("A.bank_header").x1);
  CHECK(s.rects.at("A.timeline").y0 >= s.rects.at("trace.list").y1);
}

TEST_CASE("a script sets the what-if on a trace and steps both sides together") {
  std::filesystem::create_directories(kOut);
  const std::string script = kOut + "/trace_whatif_steps.txt";
  const std::string png = kOut + "/trace_whatif_steps.png";
  // xor 31 turns the column read conflict-free (col ^= row): B finishes in its one wavefront.
  std::ofstream(script) << "trace " + kTransposeTrace +
                               "\narray tile@0:float[32][32]\nxor 31\n"
                               "step\nstep\nstep\nframes 2\nscreenshot " +
                               png + "\n";
  std::filesystem::remove(png);
  REQUIRE(run_app("--script " + script + " --dump-rects " + kOut +
                      "/trace_whatif_steps.rects --size 1600x900",
                  kOut + "/trace_whatif_steps.log") == 0);
  const Image img = load_png(png);
  const auto rects = load_rects(png + ".rects");
  const Rect ta = rects.at("A.timeline");
  const int ya = (ta.y0 + ta.y1) / 2;
  CHECK(runs(img, ta, ya, [](Rgb c) { return c == kDone; }) == 3);
  CHECK(runs(img, ta, ya, [](Rgb c) { return c == kServe; }) == 1);
  const Rect tb = rects.at("B.timeline");
  const int yb = (tb.y0 + tb.y1) / 2;
  CHECK(runs(img, tb, yb, [](Rgb c) { return c == kDone; }) == 1);  // its only wavefront, served
  CHECK(runs(img, tb, yb, [](Rgb c) { return c == kServe; }) == 0);
}

TEST_CASE("--trace on a truncated file: one line naming the file, non-zero exit") {
  std::filesystem::create_directories(kOut);
  std::ifstream in(kTransposeTrace, std::ios::binary);
  std::vector<char> head(5000);
  in.read(head.data(), std::streamsize(head.size()));
  const std::string cut = kOut + "/cut.bstrace";
  std::ofstream(cut, std::ios::binary).write(head.data(), std::streamsize(head.size()));
  const std::string log = kOut + "/trace_cut.log";
  const int rc = std::system((kApp + " --trace " + cut + " > " + log + " 2>&1").c_str());
  CHECK(WIFEXITED(rc));
  CHECK(WEXITSTATUS(rc) != 0);
  std::ifstream lf(log);
  std::stringstream text;
  text << lf.rdbuf();
  const std::string out = text.str();
  CAPTURE(out);
  CHECK(out.rfind("bankscope: " + cut + ": trace: byte ", 0) == 0);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
}

// ---- issue 12
// -------------------------------------------------------------------------------------

namespace {
// Distinct words the instruction touches in each bank (brute force over the lanes' words, not the
// bank view's code): what the bank view must draw.
std::vector<int> words_per_bank(const AccessReport& rep) {
  std::vector<std::vector<uint32_t>> per(static_cast<size_t>(rep.cfg.banks));
  for (int l = 0; l < kWarpSize; ++l) {
    const LaneDetail& d = rep.lanes[static_cast<size_t>(l)];
    if (!d.active) continue;
    for (int j = 0; j < d.words; ++j) {
      const uint32_t w = d.word[static_cast<size_t>(j)];
      auto& v = per[w % uint32_t(rep.cfg.banks)];
      if (std::find(v.begin(), v.end(), w) == v.end()) v.push_back(w);
    }
  }
  std::vector<int> out;
  for (const auto& v : per) out.push_back(int(v.size()));
  return out;
}

// Word cells the bank view drew, per bank ("A.word.b07.w000231" rectangles, --dump-rects), each
// checked to hold a word colour in the screenshot.
std::vector<int> drawn_per_bank(const Shot& s, const std::string& pane, int banks) {
  std::vector<int> out(static_cast<size_t>(banks), 0);
  const std::string prefix = pane + ".word.b";
  for (const auto& [name, r] : s.rects) {
    if (name.rfind(prefix, 0) != 0) continue;
    const int bank = std::atoi(name.c_str() + prefix.size());
    REQUIRE(bank < banks);
    ++out[static_cast<size_t>(bank)];
    // The cell is drawn: a quarter or more of it is a word's fill (waiting / serving / served)
    // or its conflict marks; the rest is its lane number.
    int filled = 0, all = 0;
    for (int y = r.y0; y < r.y1; ++y) {
      for (int x = r.x0; x < r.x1; ++x) {
        const Rgb c = s.img.at(x, y);
        filled += c == kServe || c == kWaiting || c == kDone || c == kConflict;
        ++all;
      }
    }
    CHECK(filled * 4 > all);
  }
  return out;
}
}  // namespace

TEST_CASE("bank view: every word the instruction touches is drawn, however far apart") {
  struct Row {
    const char* scenario;
    int stride;  // 0 = the file's
    // Worked by hand for the column read: floats are one phase, gcd(stride, 32)-way; 8-byte lanes
    // are served in 2 phases of 16 lanes, 16-byte lanes in 4 of 8, each phase n-way on its bank,
    // so a bank holds phases x n-way words (32 for the double and float4 [32][32] tiles).
    int n_way, phases, words;
  };
  const Row rows[] = {{"seed_transpose_32x32.json", 32, 32, 1, 32},
                      {"seed_transpose_32x32.json", 48, 16, 1, 16},
                      {"seed_transpose_32x32.json", 64, 32, 1, 32},
                      {"seed_transpose_32x32.json", 128, 32, 1, 32},
                      {"seed_transpose_32x32.json", 1024, 32, 1, 32},
                      {"tiled_32x8_double_32x32.json", 0, 16, 2, 32},
                      {"tiled_float4_32x32.json", 0, 8, 4, 32}};
  for (const Row& r : rows) {
    CAPTURE(r.scenario);
    CAPTURE(r.stride);
    const std::string path = std::string(BANKSCOPE_ASSETS_DIR) + "/scenarios/" + r.scenario;
    UiState st;
    load_seed_pair(st);
    REQUIRE(load_scenario_into(st, 0, path).ok());
    if (r.stride != 0) set_row_stride(st.configs[0], r.stride);
    AppModel m;
    m.update(st);
    REQUIRE(m.pane(0).ok);
    const AccessReport& rep = m.pane(0).report;
    CHECK(rep.cost.n_way == r.n_way);
    CHECK(int(rep.phase_masks.size()) == r.phases);
    const std::vector<int> want = words_per_bank(rep);
    CHECK(*std::max_element(want.begin(), want.end()) == r.words);
    std::string args = "--scenario " + path + " --size 1600x900";
    if (r.stride != 0) args += " --stride " + std::to_string(r.stride);
    Shot s = shoot(std::string("every_word_") + r.scenario + "_" + std::to_string(r.stride), args);
    const std::vector<int> drawn = drawn_per_bank(s, "A", rep.cfg.banks);
    for (int b = 0; b < rep.cfg.banks; ++b) {
      CAPTURE(b);
      CHECK(drawn[static_cast<size_t>(b)] == want[static_cast<size_t>(b)]);
    }
    // More than one phase: the view says why a bank holds more words than its n-way.
    CHECK(s.rects.count("A.bank_phases_note") == (r.phases > 1 ? 1u : 0u));
  }
}

TEST_CASE(
    "a script step the scenario cannot show: one line 'p.txt:1: warp 50 out of range (0..31)', "
    "exit 1") {
  std::filesystem::create_directories(kOut);
  struct Row {
    const char* step;
    const char* message;
  };
  const Row rows[] = {{"warp 50", "warp 50 out of range (0..31)"},
                      {"instr 99", "instr 99 out of range (0..1)"},
                      {"stride x", "stride: expects a row stride >= 1"}};
  for (const Row& r : rows) {
    CAPTURE(r.step);
    const std::string script = kOut + "/p.txt";
    std::ofstream(script) << r.step << "\nscreenshot " << kOut << "/p.png\n";
    const std::string log = kOut + "/p.log";
    const int rc = run_app("--script " + script, log);
    CHECK(rc == 1);
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == "bankscope: " + script + ":1: " + r.message + "\n");
  }
}

namespace {
// A 1-D array, as reductions declare it: __shared__ float sdata[256], read sdata[tid].
std::string write_sdata_scenario() {
  std::filesystem::create_directories(kOut);
  const std::string path = kOut + "/sdata256.json";
  std::ofstream(path) << R"({"name": "reduction, sdata[256]", "n": 256, "block": [256, 1],
    "grid": [1, 1], "arrays": [{"name": "sdata", "type": "float", "dims": [256]}],
    "accesses": [{"op": "ld", "target": "sdata[threadIdx.x]"}]})";
  return path;
}
}  // namespace

TEST_CASE("narrow cells keep every lane label: sdata[256] in compare mode at 1280x720") {
  const std::string sdata = write_sdata_scenario();
  Shot s =
      shoot("narrow_labels", "--scenario " + sdata + " --scenario-b " + sdata + " --size 1280x720");
  for (const char* pane : {"A", "B"}) {
    CAPTURE(pane);
    int words = 0, labels = 0;
    for (const auto& [name, r] : s.rects) {
      words += name.rfind(std::string(pane) + ".word.", 0) == 0;
      labels += name.rfind(std::string(pane) + ".lane_label.", 0) == 0;
    }
    // Warp 0 reads words 0..31, one lane each: 32 labels, lanes 10..31 too.
    CHECK(words == 32);
    CHECK(labels == 32);
  }
}

TEST_CASE(
    "1-D arrays: sdata[256] is drawn wrapped at the banks' width (8 rows of 32), not a strip") {
  const std::string sdata = write_sdata_scenario();
  Shot s = shoot("sdata_1d", "--scenario " + sdata + " --size 1600x900");
  for (const char* view : {"A.logical", "A.physical"}) {
    CAPTURE(view);
    const Rect r = s.rects.at(view);
    // 256 floats, 32 per row of banks: 32 x 8 square cells, width / height = 4.
    const float aspect = float(r.x1 - r.x0) / float(std::max(1, r.y1 - r.y0));
    CHECK(aspect > 3.6f);
    CHECK(aspect < 4.4f);
  }
}

// Issue 12: the stride sweep beside the slider. The seed's column read (statement 1) at strides
// 32..128: gcd(stride, 32) wavefronts (sim/sweep, doctest test_sweep.cpp), drawn as steps on a
// log2 axis (1 at the bottom, 32 at the top) with the current stride (34) marked in orange.
TEST_CASE("stride sweep chart: the gcd staircase, the current stride marked") {
  const std::string scenario = std::string(BANKSCOPE_ASSETS_DIR) + "/scenarios/seed_transpose_32x32.json";
  Shot s = shoot("sweep_chart", "--scenario " + scenario + " --stride 34 --size 1600x900");
  const Rect c = s.rects.at("A.sweep_chart");
  const Rect m = s.rects.at("A.sweep_marker");
  const double w = c.x1 - c.x0, h = c.y1 - c.y0;
  REQUIRE(w > 50);
  // Strides 32..128: 97 steps; stride k's step is centred at (k - 31.5) / 97 of the width.
  auto center = [&](int stride) { return c.x0 + (stride - 31.5) / 97.0 * w; };
  CHECK(std::abs((m.x0 + m.x1) / 2.0 - center(34)) < 2.0);
  CHECK(count(s.img, m, kServe) > 0);
  constexpr Rgb kCurve = kDone;  // palette::kDone
  // The curve's pixels in one stride's column: its height is log2(wavefronts) / 5 of the chart.
  auto curve_top = [&](int stride) {
    const int x = int(center(stride));
    for (int y = c.y0; y < c.y1; ++y)
      if (s.img.at(x, y) == kCurve) return (c.y1 - y) / h;  // 0 = bottom, 1 = top
    return -1.0;
  };
  CHECK(curve_top(33) >= 0);
  CHECK(curve_top(33) < 0.1);                               // 1 wavefront
  CHECK(curve_top(64) > 0.9);                               // 32
  CHECK(std::abs(curve_top(48) - 0.8) < 0.1);               // 16: log2 16 / log2 32
  CHECK(std::abs(curve_top(40) - 0.6) < 0.1);               // 8
  CHECK(std::abs(curve_top(36) - 0.4) < 0.1);               // 4
}
