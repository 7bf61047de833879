// layout_suggest.hpp: the visualizer's "suggest a layout" (issue 13, item 3): the layout advisor
// (sim/layout_advisor.hpp) on a worker thread, so the window keeps drawing while it searches
// (a tenth of a second to half a second per shipped scenario: assets/results/cpu/fix_bench.txt).
//
//   panel sets SuggestRequest::start --AppModel::update()--> LayoutSuggester::start (worker)
//   worker finishes --> SuggestModel::result; the best layout is applied to the configuration if it
//   was not edited meanwhile; SuggestRequest::apply = i applies the i-th ranked layout instead.
//
// No GL, no ImGui: tests/app/test_suggest.cpp drives it without a display.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "sim/layout_advisor.hpp"
#include "sim/scenario.hpp"

namespace bankscope {

// What the panel asks for (a member of UiState), consumed by AppModel::update().
struct SuggestRequest {
  bool start = false;   // search layouts of the edited configuration's array
  bool cancel = false;  // stop a running search
  int apply = -1;       // apply ranked layout `apply` of the last result to its configuration
};

// What the panel shows.
struct SuggestModel {
  bool running = false;
  int searched = 0;       // candidates evaluated so far
  int which = 0;          // configuration (0 = A, 1 = B) the search ran on
  int array = 0;          // its array
  uint64_t revision = 0;  // the configuration's revision when the search started
  std::optional<AdvisorResult> result;
  std::string error;  // why the search failed ("" when it did not)
  int applied = -1;   // index into result->ranked of the layout last applied; -1 = none
};

class LayoutSuggester {
 public:
  LayoutSuggester() = default;
  ~LayoutSuggester();  // cancels and joins the worker
  LayoutSuggester(const LayoutSuggester&) = delete;
  LayoutSuggester& operator=(const LayoutSuggester&) = delete;

  // Starts a search of `spec`'s array `array` (cancelling a running one, which is then joined).
  void start(const ScenarioSpec& spec, int which, int array, uint64_t revision);
  void cancel();
  // Takes a finished worker's result; true when something changed (progress or a result).
  bool poll();
  SuggestModel& model() { return model_; }
  const SuggestModel& model() const { return model_; }

 private:
  struct Job {
    std::atomic<bool> cancel{false};
    std::atomic<int> done{0};
    std::atomic<bool> finished{false};
    std::optional<Result<AdvisorResult>> result;
    std::thread worker;
  };
  void stop();
  std::unique_ptr<Job> job_;
  SuggestModel model_;
};

}  // namespace bankscope
