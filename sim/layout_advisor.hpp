// layout_advisor.hpp: which physical layout of one shared array makes the whole kernel cheapest
// (issue 13, item 3: `bankscope-cli fix`, the app's "suggest a layout").
//
//   (scenario, array) -> candidate layouts   padding (row stride cols .. cols + one turn of the
//                                            banks), XOR masks, CuTe Swizzle<B,M,S>, padding + XOR
//   candidate -> per-launch wavefronts       launch_totals() of the scenario with that layout,
//                                            every access of the kernel, loads and stores together;
//                                            computed as totals_from_profile() of one
//                                            launch_profile() (kernel_model.hpp): the launch's
//                                            logical indices are evaluated once, and each
//                                            candidate maps and costs its distinct warp executions
//   candidates -> ranking                    fewest wavefronts, then fewest extra bytes, then the
//                                            simplest (fewest parts: padding < XOR < swizzle)
//
// Pure: no I/O, no threads. A candidate the scenario cannot run (a wide access left misaligned, a
// swizzle that is not a permutation of the shape) is skipped and its reason counted.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel_model.hpp"
#include "scenario.hpp"

namespace bankscope {

struct AdvisorOptions {
  // Largest memory overhead (bytes over the logical rows * cols * element size) a candidate may
  // have; kCountMax = no limit beyond the search range and the 227 KiB per block.
  uint64_t budget_bytes = kCountMax;
  // Passed to every candidate's launch_totals(): a candidate whose totals stop at the cap is
  // skipped ("over the block cap"); setting *cancel stops the search (AdvisorResult::cancelled).
  uint64_t max_simulated_blocks = 0;
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<int>* candidates_done = nullptr;  // progress, out of AdvisorResult::candidates
  // Candidates are costed from one launch_profile() holding at most this many distinct warp
  // executions (about 400 bytes each: 2^18 is about 100 MB); a launch with more (an address that
  // depends on blockIdx in a large grid) runs the kernel once per candidate instead: the same
  // result, slower.
  uint64_t max_profile_executions = uint64_t{1} << 18;
};

struct LayoutCandidate {
  PhysicalLayout layout;     // row_stride explicit (cols + pad)
  int pad = 0;               // elements added to each row
  uint64_t extra_bytes = 0;  // the array's bytes minus rows * cols * element size
  uint64_t wavefronts = 0;   // per launch, every access of the kernel, every kind (ld, st, ldsm, stsm, atom)
  uint64_t conflicts = 0;    // wavefronts - ideal, every kind
  int worst_access = -1;     // the statement with the most conflicts per launch; -1 = none
  uint64_t worst_conflicts = 0;
  int parts = 0;            // how many of padding, XOR, swizzle it uses (0 = as declared, unpadded)
  bool is_current = false;  // the scenario's own layout
  std::string text;         // "stride 33", "xor 31", "Swizzle<3,2,6>", "stride 33 + xor 1", "none"
};

struct AdvisorResult {
  int array = 0;
  std::string array_name;
  uint64_t ideal = 0;                   // the conflict-free minimum: wavefronts with no conflict
  LayoutCandidate current;              // the scenario's layout as it is
  std::vector<LayoutCandidate> ranked;  // every valid candidate, best first (current included)
  int candidates = 0;                   // enumerated (after removing ones identical to another)
  int evaluated = 0;
  std::vector<std::pair<std::string, int>> skipped;  // reason -> count, in first-seen order
  bool cancelled = false;  // stopped by AdvisorOptions::cancel: `ranked` is partial
};

// The array whose accesses cost the most wavefronts per launch (the default of `fix`); 0 when
// there is one. A run stopped by `opt` (cancel, cap) is an error saying so.
Result<int> costliest_array(const Scenario& s, const TotalsOptions& opt = {});

// `spec` with array `array` laid out as `layout` (row_stride, xor and swizzle all set from it).
ScenarioSpec with_layout(const ScenarioSpec& spec, int array, const PhysicalLayout& layout);

// Short name of a layout of an array of `cols` columns: "stride 33", "xor 31 + Swizzle<3,2,6>".
std::string layout_text(const PhysicalLayout& layout, int cols);

// Searches layouts of array `array` of `s`. Errors: the array does not exist, or the scenario's
// own layout cannot be evaluated (its error, as predict would print it).
Result<AdvisorResult> advise_layout(const Scenario& s, int array, const AdvisorOptions& opt = {});

// The most distinct words one bank serves in one phase for statement `stmt`, over every warp of
// block (0,0,0): the n-way of a table's worst access.
Result<int> access_n_way(const Scenario& s, int stmt);

}  // namespace bankscope
