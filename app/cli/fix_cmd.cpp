// fix_cmd.cpp: `bankscope-cli fix`, a table over advise_layout() (sim/layout_advisor.hpp) and an
// atomic save of the scenario with the best layout. The input file is written only when the user
// names it as --write.
#include "fix_cmd.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "sim/counter_names.hpp"
#include "sim/json_io.hpp"
#include "sim/layout_advisor.hpp"
#include "sim/scenario.hpp"

namespace bankscope::cli {

namespace {

// Ctrl-C stops the search (a scenario whose addresses depend on blockIdx makes every candidate
// visit every block); what was ranked so far is printed, labelled, exit 130. A second Ctrl-C
// ends the process the default way.
std::atomic<bool> g_fix_interrupted{false};
extern "C" void on_fix_sigint(int) {
  g_fix_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
}

int fail(const std::string& message) {
  std::cerr << "bankscope-cli: " << message << "\n";
  return 1;
}

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string percent(uint64_t part, uint64_t whole) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1)
     << (whole == 0 ? 100.0 : 100.0 * double(part) / double(whole)) << "%";
  return os.str();
}

}  // namespace

CLI::App* add_fix_command(CLI::App& app, FixArgs& a) {
  auto* c = app.add_subcommand(
      "fix",
      "search padding, XOR and Swizzle<B,M,S> layouts of one array for the fewest wavefronts");
  c->add_option("scenario", a.scenario, "scenario JSON file")->required()->check(CLI::ExistingFile);
  c->add_option("--array", a.array,
                "which shared array (default: the one whose accesses cost the most wavefronts)");
  c->add_option("--budget", a.budget,
                "most extra bytes a layout may add to the array (default: no limit)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  c->add_option("--top", a.top, "rows of the ranked table (default 10)")
      ->check(CLI::Range(1, 10000));
  c->add_option("--write", a.write, "save the scenario with the best layout to OUT.json (atomic)");
  return c;
}

int run_fix(const FixArgs& a) {
  auto spec = load_scenario_file(a.scenario);
  if (!spec) return fail(spec.error().message);
  auto s = compile(*spec);
  if (!s) return fail(with_context(a.scenario, s.error()).message);
  std::signal(SIGINT, on_fix_sigint);
  TotalsOptions topt;
  topt.cancel = &g_fix_interrupted;
  int array = -1;
  if (a.array.empty()) {
    auto c = costliest_array(*s, topt);
    if (!c && g_fix_interrupted.load()) {
      std::cerr << "bankscope-cli: fix: cancelled while choosing the array (Ctrl-C)\n";
      return 130;
    }
    if (!c) return fail(with_context(a.scenario, c.error()).message);
    array = *c;
  } else {
    std::string names;
    for (size_t i = 0; i < s->arrays.size(); ++i) {
      if (s->arrays[i].name == a.array) array = static_cast<int>(i);
      names += (i ? ", " : "") + s->arrays[i].name;
    }
    if (array < 0)
      return fail("--array: no shared array named '" + a.array + "' in " + a.scenario +
                  " (it has: " + names + ")");
  }
  AdvisorOptions opt;
  if (a.budget >= 0) opt.budget_bytes = static_cast<uint64_t>(a.budget);
  opt.cancel = &g_fix_interrupted;
  auto r = advise_layout(*s, array, opt);
  std::signal(SIGINT, SIG_DFL);
  if (!r) return fail(with_context(a.scenario, r.error()).message);
  if (r->cancelled && r->ranked.empty()) {
    std::cerr << "bankscope-cli: fix: cancelled while evaluating the scenario's own layout\n";
    return 130;
  }

  const SharedArray& arr = s->arrays[static_cast<size_t>(array)];
  std::cout << "scenario  " << s->spec.name << "  (" << a.scenario << ")\n";
  std::cout << "array     " << arr.declaration() << "   logical [" << arr.shape.rows << "]["
            << arr.shape.cols << "]; " << r->candidates << " layouts searched";
  if (a.budget >= 0) std::cout << " within " << with_commas(uint64_t(a.budget)) << " extra bytes";
  std::cout << "\nper launch, wavefronts = " << counters::wavefronts(Op::kLoad)
            << " + _st; conflict-free minimum " << with_commas(r->ideal) << "\n\n";
  // The layout column: 30 wide, or wider for a long name (a TMA mode with its Swizzle, current).
  const int shown = std::min<int>(a.top, static_cast<int>(r->ranked.size()));
  auto name_of = [](const LayoutCandidate& c) { return c.text + (c.is_current ? " (current)" : ""); };
  size_t longest = name_of(r->current).size();
  for (int i = 0; i < shown; ++i) longest = std::max(longest, name_of(r->ranked[size_t(i)]).size());
  const int nw_col = static_cast<int>(std::max<size_t>(30, longest + 2));
  std::cout << std::right << std::setw(3) << "#"
            << "  " << std::left << std::setw(nw_col) << "layout" << std::right << std::setw(14)
            << "wavefronts" << std::setw(14) << "% of current" << std::setw(13) << "extra bytes"
            << "  worst access\n";
  bool current_shown = false;
  auto print_row = [&](const std::string& rank, const LayoutCandidate& c) {
    const std::string name = name_of(c);
    std::string worst = "none (conflict-free)";
    if (c.worst_access >= 0) {
      const ScenarioSpec cs = with_layout(s->spec, array, c.layout);
      auto sc = compile(cs);
      auto nw = sc ? access_n_way(*sc, c.worst_access) : Result<int>(sc.error());
      std::string label = s->accesses[static_cast<size_t>(c.worst_access)].label;
      if (label.size() > 40) label = label.substr(0, 37) + "...";
      worst = label + (nw ? ", " + std::to_string(*nw) + "-way" : "");
    }
    std::cout << std::right << std::setw(3) << rank << "  " << std::left << std::setw(nw_col) << name
              << std::right << std::setw(14) << with_commas(c.wavefronts) << std::setw(14)
              << percent(c.wavefronts, r->current.wavefronts) << std::setw(13)
              << with_commas(c.extra_bytes) << "  " << worst << "\n";
  };
  for (int i = 0; i < shown; ++i) {
    const LayoutCandidate& c = r->ranked[static_cast<size_t>(i)];
    current_shown = current_shown || c.is_current;
    print_row(std::to_string(i + 1), c);
  }
  if (!current_shown) {
    for (size_t i = 0; i < r->ranked.size(); ++i) {
      if (r->ranked[i].is_current) print_row(std::to_string(i + 1), r->ranked[i]);
    }
  }
  if (!r->skipped.empty()) {
    std::cout << "skipped:";
    for (size_t i = 0; i < r->skipped.size(); ++i) {
      std::cout << (i ? ";" : "") << " " << r->skipped[i].second << " " << r->skipped[i].first;
    }
    std::cout << "\n";
  }
  if (r->cancelled) {
    std::cout << "cancelled: ranked " << r->evaluated << " of " << r->candidates
              << " layouts (Ctrl-C); nothing written\n";
    return 130;
  }
  const LayoutCandidate& best = r->ranked.front();
  std::cout << "best      " << best.text << ": " << with_commas(best.wavefronts)
            << " wavefronts per launch ("
            << (best.conflicts == 0
                    ? "no conflicts"
                    : with_commas(best.conflicts) + " over the conflict-free minimum")
            << "), " << with_commas(best.extra_bytes) << " extra bytes\n";

  if (!a.write.empty()) {
    ScenarioSpec out = with_layout(*spec, array, best.layout);
    if (!best.is_current) out.name += " (fix: " + arr.name + " " + best.text + ")";
    auto ok = save_scenario_file(a.write, out);
    if (!ok) return fail("--write: " + ok.error().message);
    std::cout << "wrote     " << a.write << " (" << arr.name << ": " << best.text << ")\n";
  }
  return 0;
}

}  // namespace bankscope::cli
