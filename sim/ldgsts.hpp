// ldgsts.hpp: R9, the shared-memory side of cp.async (LDGSTS) as Nsight Compute counts it
// (`smsp__sass_l1tex_data_{pipe_lsu_wavefronts,bank_conflicts_pipe_lsu}_mem_shared_op_ldgsts`), as a
// function of the shared destinations AND the per-lane global sources (sim/RULES.md R9; fitted on
// the H200 probe assets/results/h200/2026-12-01g/ldgsts/, scripts/ldgsts_rules.py H6/H7 hold the same
// rules in Python). Measured, not documented: NVIDIA documents neither.
//
//   .ca (H6): each lane's data is read from the L1's data banks (source bank = source / 4 mod 32)
//   and written to the destination banks. Phases as a store of the width (R3: warp, half-warps,
//   quarter-warps). Within a phase, in lane order, a lane's slot = max(number of earlier lanes of
//   the phase sharing a source bank or a destination bank with it, 1 + the latest slot among those
//   lanes); the phase costs its last slot + 1. Conflicts = wavefronts - active phases.
//   With contiguous sources (the old single-row patterns) this is R8's store rule without CAS.
//   .cg (H7): lanes repeating an earlier active lane's destination are dropped; one wavefront per
//   distinct (source 128-byte line, destination 128-byte row, 16-byte halves swapped or not,
//   32-byte rotation (destination / 32 - source / 32) mod 4); no conflicts.
// Known misses (listed with numbers in tests/conformance/ldgsts_src_v1_open.txt and
// patterns_v2_open.txt): .ca lines whose random sources AND destinations both conflict (off by 1-2),
// .cg lines that reverse or stride 48/80 bytes inside a row.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <tuple>

#include "bank_model.hpp"
#include "rules.hpp"

namespace bankscope {

using LdgstsSources = std::array<uint32_t, kWarpSize>;  // lane -> global source byte offset

// The harness's source when a pattern gives none: lane * width (one contiguous row).
inline LdgstsSources ldgsts_default_sources(const WarpAccess& a) {
  LdgstsSources s{};
  for (int l = 0; l < kWarpSize; ++l) s[size_t(l)] = uint32_t(l) * uint32_t(a.width);
  return s;
}

namespace ldgsts_detail {

inline constexpr uint32_t kLineBytes = 128;   // documented: an L1/L2 cache line
inline constexpr uint32_t kSectorBytes = 32;  // documented: a sector
inline constexpr int kBanks = 32;             // default geometry only (cost() checks)

// Bit mask of the 4-byte banks a `width`-byte lane at byte `addr` touches (width-aligned).
inline uint32_t bank_bits(uint32_t addr, int width) {
  uint32_t m = 0;
  for (int k = 0; k < std::max(1, width / 4); ++k) m |= 1u << ((addr / 4 + uint32_t(k)) % kBanks);
  return m;
}

inline AccessCost cost_ca(const WarpAccess& a, const LdgstsSources& src) {
  uint32_t phase_mask[kWarpSize];
  const int n = rules::phases(a, BankConfig{}, phase_mask);
  AccessCost c;
  for (int p = 0; p < n; ++p) {
    int lanes[kWarpSize];
    int k = 0;
    for (int l = 0; l < kWarpSize; ++l) {
      if ((phase_mask[p] >> l) & 1u) lanes[k++] = l;
    }
    std::array<int, kWarpSize> slot{};
    int last = 0;
    for (int i = 0; i < k; ++i) {
      const int l = lanes[i];
      const uint32_t sb = bank_bits(src[size_t(l)], a.width);
      const uint32_t db = bank_bits(a.addr[size_t(l)], a.width);
      int count = 0, after = 0;
      for (int j = 0; j < i; ++j) {
        const int m = lanes[j];
        if ((sb & bank_bits(src[size_t(m)], a.width)) || (db & bank_bits(a.addr[size_t(m)], a.width))) {
          ++count;
          after = std::max(after, slot[size_t(m)] + 1);
        }
      }
      slot[size_t(l)] = std::max(count, after);
      last = std::max(last, slot[size_t(l)]);
    }
    c.wavefronts += last + 1;
    c.n_way = std::max(c.n_way, last + 1);
  }
  c.ideal_wavefronts = n;
  return c;
}

inline AccessCost cost_cg(const WarpAccess& a, const LdgstsSources& src) {
  const uint32_t active = rules::active_lanes(a);
  std::set<uint32_t> seen;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> keys;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!((active >> l) & 1u)) continue;
    const uint32_t d = a.addr[size_t(l)], s = src[size_t(l)];
    if (!seen.insert(d).second) continue;
    keys.insert({s / kLineBytes, d / kLineBytes, ((s ^ d) >> 4) & 1u,
                  (d / kSectorBytes - s / kSectorBytes) % 4u});
  }
  AccessCost c;
  c.wavefronts = c.ideal_wavefronts = int(keys.size());
  c.n_way = keys.empty() ? 0 : 1;
  return c;
}

}  // namespace ldgsts_detail

// R9 for a validated ldgsts access of the default bank geometry and its sources.
inline AccessCost ldgsts_cost(const WarpAccess& a, const LdgstsSources& src) {
  return a.bypass_l1 ? ldgsts_detail::cost_cg(a, src) : ldgsts_detail::cost_ca(a, src);
}

}  // namespace bankscope
