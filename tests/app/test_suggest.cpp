// test_suggest.cpp: "suggest a layout" in the app model (app/layout_suggest.hpp), no display.
// Seed tile[32][32] (tests/test_layout_advisor.cpp works the numbers out): as shipped 4,325,376
// wavefronts per launch; best xor 31 (no conflict, 0 bytes) at 262,144; second stride 33.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "app_model.hpp"

using namespace bankscope;

namespace {
bool wait_suggestion(UiState& s, AppModel& m) {
  for (int i = 0; i < 3000; ++i) {
    m.update(s);
    if (!m.suggestion().running) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}
}  // namespace

TEST_CASE("suggest a layout: the best is applied, a click applies an alternative") {
  UiState s;
  load_seed_pair(s);  // A = tile[32][32]
  s.edit = 0;
  AppModel m;
  m.update(s);
  s.suggest.start = true;
  m.update(s);
  REQUIRE(wait_suggestion(s, m));
  const SuggestModel& sm = m.suggestion();
  REQUIRE(sm.error.empty());
  REQUIRE(sm.result.has_value());
  CHECK(sm.which == 0);
  CHECK(sm.result->current.wavefronts == 4325376);
  REQUIRE(sm.result->ranked.size() >= 2);
  CHECK(sm.result->ranked[0].text == "xor 31");
  CHECK(sm.applied == 0);
  // Applied to A: the layout changed, and the pane's column read is now 1 wavefront.
  CHECK(s.configs[0].spec.arrays[0].xor_mask == 31);
  CHECK(s.configs[0].spec.arrays[0].row_stride == 32);
  m.update(s);
  REQUIRE(m.pane(0).ok);
  CHECK(m.pane(0).report.cost.wavefronts == 1);
  // B (tile[32][33]) is untouched.
  CHECK(s.configs[1].spec.arrays[0].row_stride == 33);

  // Clicking the second row applies stride 33 instead (and no xor).
  CHECK(sm.result->ranked[1].text == "stride 33");
  s.suggest.apply = 1;
  m.update(s);
  CHECK(sm.applied == 1);
  CHECK(s.configs[0].spec.arrays[0].xor_mask == 0);
  CHECK(s.configs[0].spec.arrays[0].row_stride == 33);
  m.update(s);
  CHECK(m.pane(0).report.cost.wavefronts == 1);
}

TEST_CASE("suggest a layout: an edit during the search keeps the user's edit") {
  UiState s;
  load_seed_pair(s);
  AppModel m;
  m.update(s);
  s.suggest.start = true;
  m.update(s);
  set_row_stride(s.configs[0], 34);  // edited while the search runs (or just after it started)
  REQUIRE(wait_suggestion(s, m));
  REQUIRE(m.suggestion().result.has_value());
  CHECK(m.suggestion().applied == -1);
  CHECK(s.configs[0].spec.arrays[0].row_stride == 34);
}

TEST_CASE("script step 'suggest' runs the search to the end and applies the best") {
  UiState s;
  load_seed_pair(s);
  AppModel m;
  m.update(s);
  auto steps = parse_script("edit a\nsuggest\n", "t.txt");
  REQUIRE(steps.ok());
  for (const ScriptStep& st : *steps) REQUIRE(apply_step(st, s, m).ok());
  CHECK(s.configs[0].spec.arrays[0].xor_mask == 31);
  auto bad = parse_script("suggest now\n", "t.txt");
  REQUIRE(bad.ok());
  auto r = apply_step(bad->front(), s, m);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "suggest: takes no argument");
}
