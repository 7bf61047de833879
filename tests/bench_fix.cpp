// bench_fix.cpp: how long the layout advisor (`bankscope-cli fix`, sim/layout_advisor.hpp) takes on
// every shipped scenario, single core: load + compile + pick the default array + advise_layout(),
// median of 5 runs, wall clock and this process's CPU time (which a loaded machine inflates less).
// The goal (issue 13) is under one second for every shipped scenario. Usage: bankscope-bench-fix
// [SCENARIO_DIR]   (default: the source tree's assets/scenarios, recursive)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/json_io.hpp"
#include "sim/layout_advisor.hpp"

using namespace bankscope;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  const std::string dir =
      argc > 1 ? argv[1] : std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios";
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::printf(
      "bankscope-bench-fix: fix (load, compile, default array, advise_layout), single core, median "
      "of 5\n\n");
  std::printf("%-44s %9s %9s %9s %9s  %s\n", "scenario", "wall ms", "cpu ms", "searched", "valid",
              "best layout (wavefronts per launch: current -> best)");
  double worst = 0;
  int failed = 0;
  for (const std::string& f : files) {
    const std::string name = std::filesystem::relative(f, dir).string();
    std::vector<double> times, cpu_times;
    Result<AdvisorResult> last = Error{"not run"};
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = Clock::now();
      const std::clock_t c0 = std::clock();
      auto spec = load_scenario_file(f);
      if (!spec) {
        last = spec.error();
        break;
      }
      auto s = compile(*spec);
      if (!s) {
        last = s.error();
        break;
      }
      auto a = costliest_array(*s);
      if (!a) {
        last = a.error();
        break;
      }
      last = advise_layout(*s, *a);
      times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      cpu_times.push_back(1000.0 * double(std::clock() - c0) / CLOCKS_PER_SEC);
      if (!last) break;
    }
    if (!last) {
      ++failed;
      std::printf("%-44s  error: %s\n", name.c_str(), last.error().message.c_str());
      continue;
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu_times.begin(), cpu_times.end());
    const double ms = times[times.size() / 2];
    const double cpu_ms = cpu_times[cpu_times.size() / 2];
    worst = std::max(worst, ms);
    const LayoutCandidate& best = last->ranked.front();
    std::printf("%-44s %9.1f %9.1f %9d %9zu  %s: %s %llu -> %llu\n", name.c_str(), ms, cpu_ms,
                last->candidates, last->ranked.size(), last->array_name.c_str(), best.text.c_str(),
                static_cast<unsigned long long>(last->current.wavefronts),
                static_cast<unsigned long long>(best.wavefronts));
  }
  std::printf("\nslowest (wall clock): %.1f ms over %zu scenarios (%d failed)\n", worst,
              files.size(), failed);
  return failed == 0 ? 0 : 1;
}
