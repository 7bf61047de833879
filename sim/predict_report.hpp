// predict_report.hpp: what `bankscope-cli predict` reports for a scenario, as values and as JSON,
// defined once so the CLI and the Python package (python/) print the same object.
//
//   (scenario, warp) -> per-statement rows for that warp of block 0      warp_rows()
//   scenario -> per statement, the warp of block 0 with the most wavefronts   worst_warp_rows()
//   (scenario, rows, launch totals) -> the `predict --json` object        predict_json()
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernel_model.hpp"
#include "scenario.hpp"

namespace bankscope {

// One statement as one warp of block 0 issues it (its loop iterations together).
struct AccessRow {
  int stmt = 0;
  int instructions = 0;  // warp instructions this warp issues for the statement
  int wf_min = 0, wf_max = 0;  // wavefronts per instruction, smallest and largest
  int n_way = 0;
  int cf_min = 0, cf_max = 0;  // bank conflicts (wavefronts - ideal) per instruction
  int conflicts = 0;  // summed over the warp's instructions of this statement
  int wavefronts = 0;
};
Result<std::vector<AccessRow>> warp_rows(const Scenario& s, int warp);

// Per statement, the warp of block 0 whose instructions cost the most wavefronts (largest
// wf_max, then largest total, then the lowest warp), so a table that shows one warp cannot hide
// the conflicts of another. warp = -1 where no warp of block 0 issues the statement.
struct WorstWarpRow {
  int warp = -1;
  AccessRow row;
};
Result<std::vector<WorstWarpRow>> worst_warp_rows(const Scenario& s);

// The name of an op's per-launch total, as ncu's counters spell the kind: "ld", "st", "ldsm",
// "stsm", "atom" ("ldgsts").
const char* totals_key(Op op);
// The kinds whose totals a report shows, each under its own counters: ld and st when the scenario
// has an LDS/STS statement (or `always_plain`: the JSON keeps them for its readers), then ldsm,
// stsm, atom for each such statement kind. A scenario of ldmatrix alone lists no ld/st zeros.
std::vector<Op> kinds_of(const Scenario& s, bool always_plain = false);

// A clamped count makes wavefronts - ideal unknowable.
bool conflicts_unknown(const OpTotals& t);

// Per-launch counts of one op, each with the counter it predicts; a saturated count says so.
nlohmann::ordered_json totals_json(const OpTotals& t, Op op);

// The whole `predict --json` object. `file` is the path as the user gave it.
nlohmann::ordered_json predict_json(const Scenario& s, const std::string& file, int warp,
                                    const std::vector<AccessRow>& rows, const LaunchTotals& lt,
                                    const std::vector<WorstWarpRow>* worst = nullptr);

}  // namespace bankscope
