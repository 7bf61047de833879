// test_app_model.cpp: the visualizer's non-GL layer (app/app_model.hpp, app/options.hpp):
// UiState + scenario -> the reports the panels draw, script steps, command-line parsing.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "app_model.hpp"
#include "options.hpp"

using namespace bankscope;

namespace {

UiState seed_state() {
  UiState s;
  load_seed_pair(s);
  return s;
}

Result<bool> run(UiState& s, AppModel& m, const std::string& text) {
  Result<std::vector<ScriptStep>> steps = parse_script(text, "test");
  if (!steps) return steps.error();
  for (const ScriptStep& step : *steps) {
    Result<bool> r = apply_step(step, s, m);
    if (!r) return r;
  }
  return true;
}

}  // namespace

TEST_CASE("seed pair: the column read costs 32 wavefronts with [32][32] and 1 with [32][33]") {
  UiState s = seed_state();
  AppModel m;
  CHECK(m.update(s));
  const PaneModel& a = m.pane(0);
  const PaneModel& b = m.pane(1);
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  CHECK(a.declaration == "__shared__ float tile[32][32]");
  CHECK(b.declaration == "__shared__ float tile[32][33]");
  CHECK(a.report.access.op == Op::kLoad);
  CHECK(a.report.cost.wavefronts == 32);
  CHECK(a.report.cost.bank_conflicts() == 31);
  CHECK(a.report.cost.n_way == 32);
  CHECK(b.report.cost.wavefronts == 1);
  CHECK(b.report.cost.bank_conflicts() == 0);
  // Shared clock: compare mode animates as long as the slower pane needs.
  CHECK(m.total_cycles(s) == 32);
  // Per launch (N = 2048, 64x64 blocks of 32 warps): ld wavefronts 32 per instruction.
  REQUIRE(a.totals);
  CHECK(a.totals->ld.instructions == 4096u * 32u);
  CHECK(a.totals->ld.wavefronts == 4096u * 32u * 32u);
  CHECK(b.totals->ld.wavefronts == 4096u * 32u);
  // No change, no recompute.
  CHECK_FALSE(m.update(s));
}

TEST_CASE("stride steps: wavefronts of the column read = 32 / (32 / gcd(stride, 32))") {
  struct Row {
    int stride;
    int wavefronts;
  };
  const Row rows[] = {{32, 32}, {33, 1}, {34, 2}, {36, 4}, {40, 8}, {48, 16}, {64, 32}, {65, 1}, {128, 32}};
  for (const Row& r : rows) {
    CAPTURE(r.stride);
    UiState s = seed_state();
    s.compare = false;
    AppModel m;
    REQUIRE(run(s, m, "edit a\nstride " + std::to_string(r.stride)).ok());
    m.update(s);
    REQUIRE(m.pane(0).ok);
    CHECK(m.pane(0).report.cost.wavefronts == r.wavefronts);
    CHECK(m.total_cycles(s) == r.wavefronts);
  }
}

TEST_CASE("a bad edit keeps the last good picture and names the problem") {
  UiState s = seed_state();
  AppModel m;
  m.update(s);
  REQUIRE(run(s, m, "stride 31").ok());  // narrower than the 32 logical columns
  m.update(s);
  CHECK_FALSE(m.pane(0).ok);
  CHECK(m.pane(0).have);
  CHECK_FALSE(m.pane(0).error.empty());
  CHECK(m.pane(0).report.cost.wavefronts == 32);  // still the [32][32] picture
  REQUIRE(run(s, m, "stride 33").ok());
  m.update(s);
  CHECK(m.pane(0).ok);
  CHECK(m.pane(0).report.cost.wavefronts == 1);
}

TEST_CASE("lane mask, op and element type edits reach the report") {
  UiState s = seed_state();
  AppModel m;
  REQUIRE(run(s, m, "mask 0x0000000f").ok());
  m.update(s);
  CHECK(m.pane(0).report.cost.wavefronts == 4);  // 4 lanes, 4 words in bank 0
  REQUIRE(run(s, m, "mask 0xffffffff\nop st").ok());
  m.update(s);
  CHECK(m.pane(0).report.access.op == Op::kStore);
  CHECK(m.pane(0).report.cost.wavefronts == 32);
  REQUIRE(run(s, m, "op ld\ntype double").ok());
  m.update(s);
  REQUIRE(m.pane(0).ok);
  CHECK(m.pane(0).report.access.width == 8);
  CHECK(m.pane(0).declaration == "__shared__ double tile[32][32]");
}

TEST_CASE("animation: step, back, loop and the end of the instruction") {
  UiState s = seed_state();
  AppModel m;
  REQUIRE(run(s, m, "step\nstep\nstep").ok());
  CHECK(s.anim.cycle == 3);
  REQUIRE(run(s, m, "back").ok());
  CHECK(s.anim.cycle == 2);
  REQUIRE(run(s, m, "cycle 100").ok());
  CHECK(s.anim.cycle == 31);  // clamped to the last wavefront
  s.anim.playing = true;
  s.anim.loop = true;
  s.anim.speed = 1;
  m.advance(s, 1.0);
  CHECK(s.anim.cycle == 0);  // wrapped
  s.anim.loop = false;
  s.anim.cycle = 30;
  m.advance(s, 5.0);
  CHECK(s.anim.cycle == 31);
  CHECK_FALSE(s.anim.playing);
}

TEST_CASE("script errors name the line; unknown steps and bad values are errors") {
  UiState s = seed_state();
  AppModel m;
  struct Row {
    const char* text;
    const char* expect;
  };
  const Row rows[] = {{"stride x", "line 1: 'stride'"},
                      {"stride 33\nwiggle", "line 2: 'wiggle': unknown step"},
                      {"compare maybe", "expects on or off"},
                      {"type quad", "expects an element type"},
                      {"preset 99", "preset 99"}};
  for (const Row& r : rows) {
    CAPTURE(r.text);
    Result<bool> res = run(s, m, r.text);
    REQUIRE_FALSE(res.ok());
    CHECK(res.error().message.find(r.expect) != std::string::npos);
  }
  CHECK_FALSE(parse_script("# only a comment\n", "x.txt").ok());
}

TEST_CASE("scenario files: a failed load keeps the previous scenario; save then load round-trips") {
  UiState s = seed_state();
  const std::string dir = std::filesystem::temp_directory_path() / "bankscope_app_test";
  std::filesystem::create_directories(dir);
  const std::string bad = dir + "/bad.json";
  std::ofstream(bad) << "{ \"arrays\": [ {";
  Result<bool> r = load_scenario_into(s, 0, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("bad.json") != std::string::npos);
  CHECK(s.configs[0].source == "built-in");
  CHECK(s.configs[0].spec.arrays[0].row_stride == 32);

  set_row_stride(s.configs[0], 40);
  const std::string good = dir + "/stride40.json";
  REQUIRE(save_config(s, 0, good).ok());
  UiState t = seed_state();
  REQUIRE(load_scenario_into(t, 1, good).ok());
  CHECK(t.configs[1].spec.arrays[0].row_stride == 40);
  AppModel m;
  m.update(t);
  REQUIRE(m.pane(1).ok);
  // Loaded files pick the costliest instruction by default: the column read, 8 wavefronts.
  CHECK(m.pane(1).report.cost.wavefronts == 8);
  std::filesystem::remove_all(dir);
}

TEST_CASE("presets are the scenario files sorted by name") {
  const std::vector<Preset> p = find_presets(std::string(BANKSCOPE_ASSETS_DIR) + "/scenarios");
  REQUIRE(p.size() >= 2);
  for (size_t i = 1; i < p.size(); ++i) CHECK(p[i - 1].name < p[i].name);
  CHECK(find_presets("/nonexistent/dir").empty());
}

TEST_CASE("command line: good and bad options") {
  {
    const char* argv[] = {"bankscope", "--scenario", "a.json", "--stride", "33", "--size", "800x600",
                          "--screenshot", "o.png", "--frames", "5"};
    Result<AppOptions> o = parse_options(11, argv);
    REQUIRE(o.ok());
    CHECK(o->scenario == "a.json");
    CHECK(*o->stride == 33);
    CHECK(o->width == 800);
    CHECK(o->height == 600);
    CHECK(o->frames == 5);
    CHECK(o->batch());
  }
  struct Row {
    std::vector<const char*> argv;
    const char* expect;
  };
  const Row rows[] = {{{"bankscope", "--stride", "0"}, "--stride"},
                      {{"bankscope", "--stride"}, "--stride"},
                      {{"bankscope", "--size", "100"}, "--size"},
                      {{"bankscope", "--size", "10x10"}, "--size"},
                      {{"bankscope", "--compare", "yes"}, "--compare"},
                      {{"bankscope", "--frobnicate"}, "unknown option '--frobnicate'"}};
  for (const Row& r : rows) {
    CAPTURE(r.expect);
    Result<AppOptions> o = parse_options(static_cast<int>(r.argv.size()), r.argv.data());
    REQUIRE_FALSE(o.ok());
    CHECK(o.error().message.find(r.expect) != std::string::npos);
  }
}

TEST_CASE("the committed H200 results load and match the seed pair's predictions exactly") {
  UiState s = seed_state();
  AppModel m;
  const std::string results = std::string(BANKSCOPE_ASSETS_DIR) + "/results/h200/validate.json";
  REQUIRE(run(s, m, "results " + results).ok());
  m.update(s);
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    const PaneModel& pane = m.pane(which);
    REQUIRE(pane.totals.has_value());
    const KernelResult* k = find_result(s, which, pane);
    REQUIRE(k != nullptr);
    CHECK(k->n == 2048);
    REQUIRE(k->measured_ld.wavefronts_sass.has_value());
    // The prediction equals the instruction-level count the H200 measured.
    CHECK(*k->measured_ld.wavefronts_sass == pane.totals->ld.wavefronts);
    CHECK(*k->measured_st.wavefronts_sass == pane.totals->st.wavefronts);
  }
  CHECK(m.pane(0).totals->ld.wavefronts == 4194304);
  CHECK(m.pane(1).totals->ld.wavefronts == 131072);
  UiState bad = seed_state();
  auto r = run(bad, m, "results /nonexistent/validate.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("/nonexistent/validate.json") != std::string::npos);
}
