// rules.hpp: the rule set, in one place. Which lanes of a warp instruction are served together
// (phases), and what an access needs at minimum (ideal wavefronts). bank_model.cpp applies the
// rules; nothing else in bankscope decides them. sim/RULES.md explains each rule and its evidence.
//
// Status of each rule:
//   [documented] NVIDIA, CUDA C++ Programming Guide, "Shared Memory" (cc 5.x+):
//     R1  32 banks of 32 bits; successive 32-bit words in successive banks.
//     R2  a shared-memory request for a warp is conflict-free unless two lanes address different
//         32-bit words in the same bank; lanes reading the same word get it by broadcast; for a
//         write to one word by several lanes only one lane writes (no conflict). Bytes of one word
//         never conflict (several lanes may access different bytes of one word).
//   [documented, older guides / widely reported] R3  64-bit accesses are processed a half-warp at
//         a time and 128-bit accesses a quarter-warp at a time: a phase serves at most
//         banks * bank_bytes bytes of distinct lanes (128 bytes by default).
//   [assumed]  R4  ideal wavefronts = number of phases that have an active lane; ncu's
//         bank_conflicts = wavefronts - ideal. (To be measured by the fidelity suite.)
//   [assumed]  R5  inactive lanes cost nothing; a phase with no active lane is skipped.
#pragma once

#include <cstdint>

#include "bank_model.hpp"

namespace bankscope::rules {

// R3: how many consecutive lanes one phase serves.
inline int lanes_per_phase(int width, const BankConfig& cfg) {
  const int bytes_per_wavefront = cfg.banks * cfg.bank_bytes;
  int lanes = width > 0 ? bytes_per_wavefront / width : kWarpSize;
  if (lanes < 1) lanes = 1;
  if (lanes > kWarpSize) lanes = kWarpSize;
  return lanes;
}

// Splits the active lanes into phases, in issue order. Writes up to kWarpSize lane masks into
// `out` and returns how many. (R3, R5.)
inline int phases(const WarpAccess& a, const BankConfig& cfg, uint32_t* out) {
  const int per = lanes_per_phase(a.width, cfg);
  int n = 0;
  for (int first = 0; first < kWarpSize; first += per) {
    const uint32_t group =
        per >= kWarpSize ? 0xffffffffu : (((uint32_t{1} << per) - 1u) << first);
    const uint32_t m = a.mask & group;
    if (m != 0) out[n++] = m;
  }
  return n;
}

// R4: what the instruction needs at minimum, given its phases.
inline int ideal_wavefronts(const WarpAccess& /*a*/, const BankConfig& /*cfg*/, int phase_count) {
  return phase_count;
}

}  // namespace bankscope::rules
