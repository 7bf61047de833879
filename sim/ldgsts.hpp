// ldgsts.hpp: R9, the shared-memory side of cp.async (LDGSTS) as Nsight Compute counts it
// (`smsp__sass_l1tex_data_{pipe_lsu_wavefronts,bank_conflicts_pipe_lsu}_mem_shared_op_ldgsts`), as
// a function of the shared destinations AND the per-lane global sources (sim/RULES.md R9).
// Measured on the H200, not documented: NVIDIA documents neither. scripts/ldgsts_rules.py holds the
// same rules in Python (H9_ca_neighbourhood, H10_cg_rank).
//
//   .ca (H9, 2026-12-01u): each lane's data is read from the L1's data banks (source bank = source
//   / 4 mod 32, the line's place in the L1) and written to the destination banks. Phases as a
//   store of the width (R3: warp, half-warps, quarter-warps). A lane's neighbourhood is the lanes
//   of its phase on one of its source banks or one of its destination banks (itself included, a
//   lane on the same word counted like any other); the phase costs the largest neighbourhood.
//   Conflicts = wavefronts - active phases. Found on every collision structure of 3, 4 and 5
//   lanes (assets/results/h200/2026-12-01u/ldgsts_small, 3514 patterns, all equal), then equal on
//   every earlier measured .ca line it was not found on (probe 363, patterns_v2 71, fresh 120).
//   With contiguous sources it is R8's store rule without CAS (every lane alone in its bank).
//   .cg (H10, 2026-12-01v): lanes repeating an earlier active lane's destination are dropped. A
//   kept lane is a 16-byte piece: source line, source piece p = source % 128 / 16 (sector p / 2,
//   half p % 2), destination row, destination piece q (chunk q / 2), swap x = (p ^ q) & 1. Its
//   rank = the later kept lanes with the same line, piece, swap and row (a piece read twice the
//   same way goes out twice). Lanes of one (rank, line, row) form a group; a piece is paired when
//   its partner half (p ^ 1 -> q ^ 1) is in the group. One wavefront moves, under ONE symmetry g
//   of the four sectors (s -> s + r or s -> r - s, mod 4) and one swap, either paired pieces
//   (whole sectors S into chunks g(S)) or unpaired pieces of one half; a group costs the fewest
//   wavefronts that cover it; no conflicts. Found on the .cg small-structure probe
//   (assets/results/h200/2026-12-01v, 5284 of 5284), then equal on every earlier measured .cg line
//   (190 of 190; H8, the rule before, 175).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

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

// `lane_wf` (may be null): each active lane's wavefront (0-based over the instruction), -1 else.
// The count is R9's (below); the schedule is one that fits it: lanes in lane order take the first
// wavefront of their phase that no earlier lane sharing a source or destination bank took (at most
// the count, since a lane shares one with at most count - 1 others), then lanes are moved from
// shared wavefronts into empty ones until the phase has `count` of them. The H200's counters give
// the count only, not which lane completes in which wavefront.
inline AccessCost cost_ca(const WarpAccess& a, const LdgstsSources& src, bool zero_reads_nothing,
                          int* lane_wf) {
  uint32_t phase_mask[kWarpSize];
  const int n = rules::phases(a, BankConfig{}, phase_mask);
  AccessCost c;
  for (int p = 0; p < n; ++p) {
    int lanes[kWarpSize];
    uint32_t sb[kWarpSize], db[kWarpSize];
    int k = 0;
    for (int l = 0; l < kWarpSize; ++l) {
      if (((phase_mask[p] >> l) & 1u) == 0) continue;
      sb[k] = zero_reads_nothing && src[size_t(l)] == 0 ? 0u : bank_bits(src[size_t(l)], a.width);
      db[k] = bank_bits(a.addr[size_t(l)], a.width);
      lanes[k++] = l;
    }
    // Each lane's neighbourhood: the lanes of the phase on one of its source banks or one of its
    // destination banks, itself included. The phase costs the largest.
    int count = 0;
    for (int i = 0; i < k; ++i) {
      int nb = 0;
      for (int j = 0; j < k; ++j) nb += (sb[i] & sb[j]) != 0 || (db[i] & db[j]) != 0;
      count = std::max(count, nb);
    }
    if (lane_wf) {
      int wf[kWarpSize];
      int used = 0;
      for (int i = 0; i < k; ++i) {
        uint32_t taken = 0;  // wavefronts of earlier lanes sharing a bank with lane i (count <= 32)
        for (int j = 0; j < i; ++j) {
          if ((sb[i] & sb[j]) != 0 || (db[i] & db[j]) != 0) taken |= 1u << wf[j];
        }
        wf[i] = __builtin_ctz(~taken);
        used = std::max(used, wf[i] + 1);
      }
      // Move the last lane of a wavefront holding two or more into a new one until there are
      // `count` (a lane alone conflicts with nothing, and count <= k).
      for (int i = k - 1; i >= 0 && used < count; --i) {
        bool shared = false;
        for (int j = 0; j < k && !shared; ++j) shared = j != i && wf[j] == wf[i];
        if (shared) wf[i] = used++;
      }
      for (int i = 0; i < k; ++i) lane_wf[lanes[i]] = c.wavefronts + wf[i];
    }
    c.wavefronts += count;
    c.n_way = std::max(c.n_way, count);
  }
  c.ideal_wavefronts = n;
  return c;
}

// The dihedral group of a line's four 32-byte sectors: s -> s + r and s -> r - s (mod 4).
inline int d4(int g, int s) {
  return g < 4 ? (s + g) % 4 : ((g - 4) - s + 8) % 4;
}

// The fewest of the passes that cover every piece of a group, when piece i lies in exactly the two
// passes edge[i][0] and edge[i][1] (a rotation and a reflection of the sectors): a minimum vertex
// cover of at most 8 edges, by branching on the first edge not covered yet. `chosen` the passes
// taken so far; the best set found goes to *best (its size is returned).
inline int fewest_passes(const uint8_t (*edge)[2], int n, uint64_t chosen, int bound,
                         uint64_t* best) {
  int i = 0;
  for (; i < n; ++i) {
    if (((chosen >> edge[i][0]) & 1u) == 0 && ((chosen >> edge[i][1]) & 1u) == 0) break;
  }
  const int taken = __builtin_popcountll(chosen);
  if (i == n) {
    *best = chosen;
    return taken;
  }
  if (taken + 1 >= bound) return bound;  // cannot beat the best found
  for (int side = 0; side < 2; ++side) {
    bound = fewest_passes(edge, n, chosen | (uint64_t{1} << edge[i][side]), bound, best);
  }
  return bound;
}

// `lane_wf` as cost_ca's: a dropped lane completes with the earlier lane it repeats. No allocation:
// the trace report calls this for every traced .cg execution.
inline AccessCost cost_cg(const WarpAccess& a, const LdgstsSources& src, int* lane_wf) {
  const uint32_t active = rules::active_lanes(a);
  // Kept lanes: a lane repeating an earlier active lane's destination is dropped; rep[l] is the
  // kept lane an active lane l completes with.
  // A 1024-bit filter on the 16-byte destination index finds the (rare) repeats without comparing
  // every pair: only a lane whose bit is already set is compared with the earlier kept lanes.
  int kept[kWarpSize], rep[kWarpSize];
  int nk = 0;
  uint64_t seen[16] = {};
  for (int l = 0; l < kWarpSize; ++l) {
    if (((active >> l) & 1u) == 0) continue;
    rep[l] = l;
    const uint32_t h = (a.addr[size_t(l)] >> 4) & 1023u;
    if ((seen[h >> 6] >> (h & 63)) & 1u) {
      for (int j = 0; j < nk; ++j) {
        if (a.addr[size_t(kept[j])] == a.addr[size_t(l)]) {
          rep[l] = kept[j];
          break;
        }
      }
    }
    seen[h >> 6] |= uint64_t{1} << (h & 63);
    if (rep[l] == l) kept[nk++] = l;
  }
  // Pieces: source line and piece p, destination row and piece q, swap x.
  uint32_t line[kWarpSize], row[kWarpSize];
  int p[kWarpSize], q[kWarpSize], x[kWarpSize], rank[kWarpSize], group[kWarpSize];
  for (int i = 0; i < nk; ++i) {
    const uint32_t s = src[size_t(kept[i])], d = a.addr[size_t(kept[i])];
    line[i] = s / kLineBytes;
    row[i] = d / kLineBytes;
    p[i] = int((s % kLineBytes) / 16);
    q[i] = int((d % kLineBytes) / 16);
    x[i] = (p[i] ^ q[i]) & 1;
  }
  // Rank = later kept lanes with the same line, piece, swap and row; groups of (rank, line, row),
  // numbered in order of their first lane.
  // Ranks from the last lane back; a 1024-bit filter on a hash of (line, row, piece, swap) skips
  // the comparisons for a piece no later lane can repeat (nearly every piece).
  uint64_t later[16] = {};
  for (int i = nk - 1; i >= 0; --i) {
    const uint32_t h =
        (line[i] * 0x9E3779B1u ^ row[i] * 0x85EBCA77u ^ uint32_t(p[i] * 2 + x[i]) * 0xC2B2AE3Du) >>
        22;
    rank[i] = 0;
    if ((later[h >> 6] >> (h & 63)) & 1u) {
      for (int j = i + 1; j < nk; ++j) {
        rank[i] += line[j] == line[i] && row[j] == row[i] && p[j] == p[i] && x[j] == x[i];
      }
    }
    later[h >> 6] |= uint64_t{1} << (h & 63);
  }
  int ng = 0, group_first[kWarpSize];
  for (int i = 0; i < nk; ++i) {
    group[i] = -1;
    for (int g = 0; g < ng && group[i] < 0; ++g) {
      const int f = group_first[g];
      if (rank[f] == rank[i] && line[f] == line[i] && row[f] == row[i]) group[i] = g;
    }
    if (group[i] < 0) {
      group[i] = ng;
      group_first[ng++] = i;
    }
  }
  AccessCost c;
  for (int g = 0; g < ng; ++g) {
    int member[kWarpSize];
    int n = 0;
    for (int i = 0; i < nk; ++i) {
      if (group[i] == g) member[n++] = i;
    }
    if (n > 8) {
      // Only for an access validate() refuses (a misaligned .cg lane): distinct 16-byte
      // destinations in one 128-byte row are at most 8. Each piece alone.
      for (int k = 0; k < n; ++k) {
        if (lane_wf) lane_wf[kept[member[k]]] = c.wavefronts + k;
      }
      c.wavefronts += n;
      continue;
    }
    // Each piece lies in two passes (g, swap, kind): the rotation and the reflection taking its
    // sector to its chunk; kind 2 for a paired piece (both halves of its sector in the group,
    // into one chunk, one swap), else its half. Pass id (g * 2 + swap) * 3 + kind, below 48.
    uint8_t edge[8][2];
    int piece_at[8];  // source piece of the group's member at destination piece q, -1 for none
    for (int k = 0; k < 8; ++k) piece_at[k] = -1;
    for (int k = 0; k < n; ++k) piece_at[q[member[k]]] = p[member[k]];  // q differ within a row
    for (int k = 0; k < n; ++k) {
      const int i = member[k], S = p[i] / 2, C = q[i] / 2;
      const bool paired = piece_at[q[i] ^ 1] == (p[i] ^ 1);
      const int kind = paired ? 2 : p[i] % 2;
      const int rot = (C - S + 4) % 4, refl = 4 + (C + S) % 4;
      edge[k][0] = uint8_t((rot * 2 + x[i]) * 3 + kind);
      edge[k][1] = uint8_t((refl * 2 + x[i]) * 3 + kind);
    }
    uint64_t chosen = 0;
    const int passes = fewest_passes(edge, n, 0, n + 1, &chosen);
    if (lane_wf) {
      // The chosen passes in the order of their first piece; a piece completes in the first of
      // its two passes that was chosen.
      int order[64];
      int next = 0;
      for (int k = 0; k < 64; ++k) order[k] = -1;
      for (int k = 0; k < n; ++k) {
        for (int side = 0; side < 2; ++side) {
          const int e = edge[k][side];
          if (((chosen >> e) & 1u) && order[e] < 0) order[e] = next++;
        }
      }
      for (int k = 0; k < n; ++k) {
        int w = passes;
        for (int side = 0; side < 2; ++side) {
          const int e = edge[k][side];
          if ((chosen >> e) & 1u) w = std::min(w, order[e]);
        }
        lane_wf[kept[member[k]]] = c.wavefronts + w;
      }
    }
    c.wavefronts += passes;
  }
  if (lane_wf) {
    for (int l = 0; l < kWarpSize; ++l) {
      if ((active >> l) & 1u) lane_wf[l] = lane_wf[rep[l]];
    }
  }
  c.ideal_wavefronts = c.wavefronts;
  c.n_way = c.wavefronts > 0 ? 1 : 0;
  return c;
}

}  // namespace ldgsts_detail

// R9 for a validated ldgsts access of the default bank geometry and its sources.
// `zero_reads_nothing`: a source of 0 is a lane of cp.async's zero-fill form with a null source
// pointer, which reads no global memory: its .ca lane has no source side. The tracer records a null
// pointer as 0 and writes no sources for an execution with a real address whose low 32 bits are 0
// (kernels/tracer/injection.cpp), so in a trace 0 means null (observed: cuBLAS SGEMM's and
// PyTorch's prefetches past K). A zero-fill with a real pointer and src-size 0 (CUTLASS's form)
// reads nothing either (measured on the H200, assets/results/h200/2026-12-01o/probe_zfill: a 4-byte
// .ca with its 32 sources on one bank counts 32 wavefronts with src-size 4 and 1 with src-size 0),
// and the Compute Sanitizer API reports its source as NULL too, so a trace has 0 there as well
// (2026-12-01t: corpus zfill_cp_async, 32 / 16 / 1 wavefronts, equal to ncu). Probe patterns give
// sources as offsets, where 0 is a real one, so they pass false. Fitted on
// assets/results/h200/2026-12-01k/trace (every .ca PC of cuBLAS SGEMM, 16 of 16, and of PyTorch's
// matmul, 16 of 16, then equal the H200's counts: zerofill_check.txt; 8 and 8 without it), then
// checked on a kernel it was not fitted on: cuBLAS SGEMM at M 1000, N 777, K 555, every count equal
// per launch and per instruction (2026-12-01l); those runs costed .ca by H6, the rule then, and are
// not re-run under H9 yet (scripts/h200_round9.sh). `lane_wf` (may be null) receives a schedule that
// fits R9's count: each active lane's wavefront, -1 for the others (simulate() draws it; the counts
// are measured, which lane completes in which wavefront is not).
inline AccessCost ldgsts_cost(const WarpAccess& a, const LdgstsSources& src,
                              bool zero_reads_nothing = false, int* lane_wf = nullptr) {
  if (lane_wf) std::fill(lane_wf, lane_wf + kWarpSize, -1);
  return a.bypass_l1 ? ldgsts_detail::cost_cg(a, src, lane_wf)
                     : ldgsts_detail::cost_ca(a, src, zero_reads_nothing, lane_wf);
}

}  // namespace bankscope
