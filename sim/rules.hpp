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
//   [measured] R4  ideal wavefronts = number of phases that have an active lane; ncu's
//         bank_conflicts = wavefronts - ideal (all 1,560 patterns of tests/conformance agree).
//   [measured] R5  inactive lanes cost nothing; a phase with no active lane is skipped (372
//         patterns of tests/conformance with a partial mask, 111 of them leaving a phase empty,
//         all equal on the H200). [assumed] an instruction with no active lane costs 0 wavefronts
//         (the suite has no mask-0 pattern); whether a warp issues it at all is the compiler's
//         choice (branch or predicated), which the scenario states, not this rule.
//   [measured] R6  64- and 128-bit LOADS whose active lanes read the same address as their
//         partner lane ^ 1 (every pair), or the same address as their partner lane ^ 2 (every
//         pair), are served in phases of twice as many lanes: a whole warp for 8 bytes, a
//         half-warp for 16. Stores never merge. Found on the H200 (sm_90) with the conformance
//         suite: it explains all 144 patterns where R3 alone was wrong and none of the 1,416
//         others changes (sim/RULES.md has the evidence).
//   [measured] R7  ldmatrix/stmatrix (issue 11): each 8x8 matrix is one phase of its 8 row lanes
//         (8 rows x 16 bytes = 128 bytes); within it each bank serves one distinct word per
//         wavefront, a repeated row address is served once; .trans changes nothing on the shared
//         side; lanes 8*num..31 are not used. The same as a 16-byte access of lanes 0..8*num-1
//         without R6. H200: 392 of 392 patterns (tests/conformance/patterns_v2.jsonl).
//   [measured] R8  shared atomics (ATOMS, 4 and 8 bytes): phases as a store of that width (R3, no
//         R6); every active lane is served alone, lanes on one word too (no R2): a bank costs the
//         lanes that touch it. CAS costs twice the wavefronts, the conflicts unchanged. H200: 131
//         of 131.
//   [measured] R8b ATOMS.POPC.INC.32 (red.shared.add of 1, or atomicAdd(&x, 1) with its result
//         unused): lanes on one word are one increment, served once: the cost of a 4-byte load of
//         the same lanes (R1-R5). H200: 17 of 17, then a fresh batch 24 of 24 (2026-12-01q).
//   [measured] R8c ATOMS.CAST.SPIN(.64), one execution of the retry loop of a float or 64-bit
//         atomicAdd: phases as a store; each bank serves the lowest active lane on it (the others
//         fail and retry); 2 wavefronts per phase with an active lane, no conflict. H200: 40 of 40
//         loops, then 36 of 36 predicted before they ran (2026-12-01x/y). ATOMS.AND/OR/XOR/INC/DEC
//         (32-bit) cost as R8's ADD (30 of 30, then 12 of 12).
//   [measured] R9 cp.async (LDGSTS) shared side, from the shared destinations and each lane's
//         global source (sim/ldgsts.hpp; cost() and simulate() both take it): .ca (H9) a phase
//         costs its largest lane neighbourhood (R8 without the CAS doubling when the sources are
//         contiguous); .cg (H10) by sector symmetries. Every measured single-warp line equal
//         (.ca 4,365, .cg 5,474; RULES.md).
//   [measured] R11 Nsight Compute's instruction-level (SASS-patched) counters, which trace reports
//         compare with: as R1-R6 except 8/16-byte loads, which they merge only where the merged
//         phase needs one wavefront (cost_sass(), bank_model.cpp). H200: 2,274 of 2,275 patterns
//         with both counters (2026-12-01z).
//   [documented; measured in part] R10 where TMA puts a tile (issue 11; a layout rule, applied by
//         make_shared_array, not a bank rule): CU_TENSOR_MAP_SWIZZLE_32B/64B/128B = Swizzle<B,4,3>
//         on the shared byte address (B = 1, 2, 3; documented); rows narrower than the span padded
//         to it, and the pattern on the address bits, not the offset in the box (measured on the
//         H200, 2026-12-01f). bank_math.hpp, sim/RULES.md; kernels/tma_probe.cu measures it.
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

// R5 + R7: the lanes whose data the instruction moves.
inline uint32_t active_lanes(const WarpAccess& a) { return used_lanes(a); }

// R6: do the lanes of `m` (default: the active lanes) read the same address as their partner lane
// ^ `partner` (1 or 2)? A lane whose partner is not in `m` has nothing to disagree with. (R11 asks
// it of one half-warp's lanes.)
inline bool pairs_share_address(const WarpAccess& a, int partner, uint32_t m) {
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const int other = lane ^ partner;
    if (other < lane) continue;
    if (((m >> lane) & 1u) && ((m >> other) & 1u) && a.addr[lane] != a.addr[other]) {
      return false;
    }
  }
  return true;
}
inline bool pairs_share_address(const WarpAccess& a, int partner) {
  return pairs_share_address(a, partner, active_lanes(a));
}

// R3 + R6 (+ R7, R8, R9: the new kinds never merge; R7's 16-byte rows give 8-lane phases, one
// per matrix): the lanes one phase of this access serves.
inline int phase_lanes(const WarpAccess& a, const BankConfig& cfg) {
  int per = lanes_per_phase(a.width, cfg);
  if (a.op == Op::kLoad && a.width > cfg.bank_bytes && cfg.is_default() && per < kWarpSize &&
      (pairs_share_address(a, 1) || pairs_share_address(a, 2))) {
    per *= 2;
  }
  return per;
}

// Splits the active lanes into phases, in issue order. Writes up to kWarpSize lane masks into
// `out` and returns how many. (R3, R5, R6.)
inline int phases(const WarpAccess& a, const BankConfig& cfg, uint32_t* out) {
  const int per = phase_lanes(a, cfg);
  int n = 0;
  for (int first = 0; first < kWarpSize; first += per) {
    const uint32_t group =
        per >= kWarpSize ? 0xffffffffu : (((uint32_t{1} << per) - 1u) << first);
    const uint32_t m = active_lanes(a) & group;
    if (m != 0) out[n++] = m;
  }
  return n;
}

// R8, R9: lanes of one phase on the same word are served one after another, not together:
// shared atomics (ATOMS) and the shared side of cp.async .ca (LDGSTS). Measured on the H200.
// R8b: not ATOMS.POPC.INC (atomicAdd(&x, 1)): its lanes on one word are one increment, served
// once, so it costs what a 4-byte load of the same lanes costs (measured on the H200,
// assets/results/h200/2026-12-01q: 17 of 17 named patterns, then 24 of 24 fresh ones predicted
// before they were measured).
inline bool lanes_on_one_word_serialize(const WarpAccess& a) {
  return (a.op == Op::kAtomic && a.atom != AtomOp::kPopcInc) || (a.op == Op::kLdgsts && !a.bypass_l1);
}

// R8: compare-and-swap costs every wavefront twice; the second pass is no conflict (measured).
inline bool second_pass(const WarpAccess& a) {
  return a.op == Op::kAtomic && a.atom == AtomOp::kCas;
}

// R4: what the instruction needs at minimum, given its phases.
inline int ideal_wavefronts(const WarpAccess& /*a*/, const BankConfig& /*cfg*/, int phase_count) {
  return phase_count;
}

}  // namespace bankscope::rules
