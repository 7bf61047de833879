// sweep.hpp: a stride sweep: what one statement of a scenario costs as the physical row stride of
// an array changes, everything else held fixed (the classic gcd(stride, 32) staircase).
//
//   (spec, statement K, array, strides A..B) -> per stride: warp instructions, wavefronts,
//                                               wavefronts per instruction, n-way
//
// What is counted: statement K as every warp of block 0 issues it (loops unrolled), one warp
// instruction at a time, with the bank rules of sim/RULES.md (the l1tex__ view). Block 0 keeps a
// sweep of 128 strides instant; per launch, `bankscope-cli predict --stride S` gives the totals.
//
// Strides below the row length: a 2-D array's rows would overlap, which no C declaration can
// express and compile() rejects, so the sweep starts at max(A, cols) and says so (Sweep::first).
// A stride the scenario cannot run at (misaligned wide access, too much shared memory) is a point
// marked invalid, not the end of the sweep. A 1-D array has no row stride: an Error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "status.hpp"

namespace bankscope {

struct SweepOptions {
  int access = 0;     // statement index K (ScenarioSpec::accesses)
  std::string array;  // "" = the array statement K accesses
  int64_t first = 1, last = 128;
};

struct SweepPoint {
  int64_t stride = 0;
  uint64_t instructions = 0;   // warp instructions of statement K, all warps of block 0
  uint64_t wavefronts = 0;     // their wavefronts, summed
  int wf_min = 0, wf_max = 0;  // wavefronts of one instruction, smallest and largest
  int n_way = 0;               // most distinct words one bank serves in one instruction
  // Why this stride cannot run ("" = it can): e.g. a 16-byte access that a stride leaves
  // misaligned (the GPU faults), or an array too large for shared memory. The sweep goes on.
  std::string invalid;
  double wavefronts_per_instruction() const {
    return instructions == 0 ? 0.0 : double(wavefronts) / double(instructions);
  }
};

struct Sweep {
  std::string array;    // the array whose row stride varies
  std::string access;   // statement K's text, "ld tile[threadIdx.x][threadIdx.y]"
  std::string element;  // element type name of that array
  int64_t cols = 0;     // its row length: the smallest stride a declaration allows
  int64_t first = 0;    // first stride swept (max(options.first, cols))
  std::vector<SweepPoint> points;
};

Result<Sweep> stride_sweep(const ScenarioSpec& spec, const SweepOptions& opt);

}  // namespace bankscope
