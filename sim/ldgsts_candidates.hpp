// ldgsts_candidates.hpp: CANDIDATE rules for the shared-memory side of cp.async (LDGSTS) that let
// the GLOBAL source addresses matter (issue 11; tests/conformance/README_ldgsts_src.md, H1-H5).
// None is the model's rule: the probe (scripts/h200_ldgsts.sh, 2026-12-01g) rejected them all, and
// R9 is sim/ldgsts.hpp's (H9 for .ca, H10 for .cg). They stay, written on top of cost()'s
// destination-only store rule, as the record of what was tried; scripts/ldgsts_rules.py holds the same rules in Python
// for the scorer, and tests/test_ldgsts_candidates.cpp holds the two together on every probe line.
//
//   (WarpAccess of op ldgsts, lane -> global source byte offset) -> AccessCost
// Assumed (to be measured): the source's 128-byte line (H1, H3, H4, H5) is the unit the L1 hands to
// the shared-memory write; within a unit, R9 (measured: every active lane served alone).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <utility>

#include "bank_model.hpp"

namespace bankscope::ldgsts_candidates {

using Sources = std::array<uint32_t, kWarpSize>;  // lane -> global source byte offset
inline constexpr uint32_t kSourceLineBytes = 128;

// The harness's default when a pattern gives no "src": lane * width (contiguous).
inline Sources default_sources(const WarpAccess& a) {
  Sources s{};
  for (int l = 0; l < kWarpSize; ++l) s[size_t(l)] = uint32_t(l) * uint32_t(a.width);
  return s;
}

namespace detail {

// R9 (the .ca rule) on the lanes of `lanes` only: the unit every candidate sums.
inline AccessCost r9_on(const WarpAccess& a, uint32_t lanes) {
  WarpAccess g = a;
  g.mask = lanes;
  g.bypass_l1 = false;  // R9's measured rule, also for .cg units
  return cost(g);
}

// Sum of r9_on over lane groups (group id per active lane).
template <typename GroupOf>
AccessCost grouped(const WarpAccess& a, GroupOf group_of) {
  std::array<std::pair<uint64_t, uint32_t>, kWarpSize> groups{};  // (id, lanes)
  int n = 0;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!((a.mask >> l) & 1u)) continue;
    const uint64_t id = group_of(l);
    int k = 0;
    while (k < n && groups[size_t(k)].first != id) ++k;
    if (k == n) groups[size_t(n++)] = {id, 0u};
    groups[size_t(k)].second |= 1u << l;
  }
  AccessCost c;
  for (int k = 0; k < n; ++k) {
    const AccessCost g = r9_on(a, groups[size_t(k)].second);
    c.wavefronts += g.wavefronts;
    c.ideal_wavefronts += g.ideal_wavefronts;
    c.n_way = std::max(c.n_way, g.n_way);
  }
  return c;
}

}  // namespace detail

// H1: one pass per 128-byte source line; each pass costs R9 over its lanes.
inline AccessCost per_source_line(const WarpAccess& a, const Sources& src) {
  return detail::grouped(a, [&](int l) { return uint64_t(src[size_t(l)] / kSourceLineBytes); });
}

// H3 (the .cg candidate, 23 of 25 patterns_v2 .cg lines): lanes repeating an earlier lane's
// destination are dropped; one wavefront per distinct (source line, destination - source); no
// conflicts (all measured .cg lines had 0).
inline AccessCost line_shift(const WarpAccess& a, const Sources& src) {
  std::set<uint32_t> seen;
  std::set<std::pair<uint32_t, int64_t>> keys;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!((a.mask >> l) & 1u) || !seen.insert(a.addr[size_t(l)]).second) continue;
    keys.insert(
        {src[size_t(l)] / kSourceLineBytes, int64_t(a.addr[size_t(l)]) - int64_t(src[size_t(l)])});
  }
  AccessCost c;
  c.wavefronts = c.ideal_wavefronts = int(keys.size());
  c.n_way = keys.empty() ? 0 : 1;
  return c;
}

// H4: max(R9, number of distinct source lines); R9's conflicts.
inline AccessCost bandwidth(const WarpAccess& a, const Sources& src) {
  const AccessCost r9 = detail::r9_on(a, a.mask);
  std::set<uint32_t> lines;
  for (int l = 0; l < kWarpSize; ++l) {
    if ((a.mask >> l) & 1u) lines.insert(src[size_t(l)] / kSourceLineBytes);
  }
  AccessCost c = r9;
  c.wavefronts = std::max(r9.wavefronts, int(lines.size()));
  c.ideal_wavefronts = c.wavefronts - r9.bank_conflicts();
  return c;
}

// H5: runs of consecutive active lanes on one source line are requests; each costs R9.
inline AccessCost lane_runs(const WarpAccess& a, const Sources& src) {
  std::array<uint64_t, kWarpSize> run{};
  uint64_t id = 0;
  int64_t last = -1;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!((a.mask >> l) & 1u)) continue;
    const int64_t line = src[size_t(l)] / kSourceLineBytes;
    if (line != last) ++id;
    last = line;
    run[size_t(l)] = id;
  }
  return detail::grouped(a, [&](int l) { return run[size_t(l)]; });
}

}  // namespace bankscope::ldgsts_candidates
