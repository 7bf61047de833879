// bank_model.cpp: applies rules.hpp to one warp instruction.
//
// One routine does the work for both entry points: cost() runs it without detail (the hot path of
// per-launch totals and the benchmark), simulate() with detail for the visualizer and `explain`.
// For LDS/STS of the default geometry cost() takes a faster route to the same numbers: AVX-512,
// AVX2 or portable C++, picked at run time (cost_path()); tests/test_bank_model.cpp checks each of
// them against simulate().
#include "bank_model.hpp"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "ldgsts.hpp"
#include "rules.hpp"

// x86-64 with GCC or Clang: cost() has AVX-512 and AVX2 paths, compiled with target attributes (the
// binary still runs on CPUs without them) and picked at run time (cost_path() below); other
// targets and compilers use the portable code alone.
#if defined(__x86_64__) && defined(__GNUC__)
#define BANKSCOPE_X86_PATHS 1
#if !defined(__clang__)
// GCC 12's unmasked AVX-512 intrinsics start from an "undefined" vector, which its
// -Wmaybe-uninitialized reports wherever they are inlined; the warning is about the header itself.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <cpuid.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>  // the baseline of x86-64: the portable path's 4-bit counters (below)
#endif

namespace bankscope {

Result<BankConfig> make_bank_config(int banks, int bank_bytes) {
  if (banks < 1 || banks > 64) {
    return Error{"banks: " + std::to_string(banks) + " is out of range (1..64)"};
  }
  if (bank_bytes != 4 && bank_bytes != 8) {
    return Error{"bank_bytes: " + std::to_string(bank_bytes) + " must be 4 or 8"};
  }
  return BankConfig{banks, bank_bytes};
}

namespace {
// The atomics not_one_instruction() names.
bool atom_not_one_instruction(const WarpAccess& a) {
  return a.op == Op::kAtomic && a.width == 8 &&
         (a.atom == AtomOp::kPopcInc || a.atom == AtomOp::kAdd || a.atom == AtomOp::kMin || a.atom == AtomOp::kMax);
}
}  // namespace

std::string not_one_instruction(const WarpAccess& a) {
  if (!atom_not_one_instruction(a)) return "";
  if (a.op == Op::kAtomic && a.width == 8 && a.atom == AtomOp::kPopcInc) {
    return "atom popc_inc is ATOMS.POPC.INC.32, 4 bytes only (a 64-bit atomicAdd of 1 is not one "
           "instruction of this kind)";
  }
  if (a.op == Op::kAtomic && a.width == 8 &&
      (a.atom == AtomOp::kAdd || a.atom == AtomOp::kMin || a.atom == AtomOp::kMax)) {
    return std::string("atom ") + atom_name(a.atom) +
           " of 8 bytes is not one instruction on sm_90 (nvcc 13.0 emits LDS.64 plus an "
           "ATOMS.CAST.SPIN.64 compare-and-swap loop); not modelled";
  }
  return "";
}

bool access_valid(const WarpAccess& a) {
  // validate()'s checks in its order, each a test (tests/test_bank_model.cpp compares the two).
  const int w = a.width;
  switch (a.op) {
    case Op::kLoad:
    case Op::kStore:
      if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) return false;
      break;
    case Op::kLdmatrix:
    case Op::kStmatrix: {
      if ((a.matrices != 1 && a.matrices != 2 && a.matrices != 4) || w != 16) return false;
      const uint32_t rows = a.matrices == 4 ? 0xffffffffu : (uint32_t{1} << (8 * a.matrices)) - 1u;
      if ((a.mask & rows) != rows) return false;
      break;
    }
    case Op::kAtomic:
      if ((w != 4 && w != 8) || atom_not_one_instruction(a)) return false;
      break;
    case Op::kLdgsts:
      if ((w != 4 && w != 8 && w != 16) || (a.bypass_l1 && w != 16)) return false;
      break;
  }
  const uint32_t used = used_lanes(a);
  uint32_t any = 0;  // every used lane's address bits: aligned iff their low bits are clear
  if (used == 0xffffffffu) {
    for (int lane = 0; lane < kWarpSize; ++lane) any |= a.addr[lane];  // vectorized (SSE2)
  } else {
    for (uint32_t m = used; m != 0; m &= m - 1) any |= a.addr[static_cast<size_t>(__builtin_ctz(m))];
  }
  return (any & (static_cast<uint32_t>(w) - 1u)) == 0;
}

Result<WarpAccess> validate(const WarpAccess& a, const BankConfig& cfg) {
  (void)cfg;
  switch (a.op) {
    case Op::kLoad:
    case Op::kStore:
      if (a.width != 1 && a.width != 2 && a.width != 4 && a.width != 8 && a.width != 16) {
        return Error{"width: " + std::to_string(a.width) + " bytes is not an access width (1, 2, 4, 8 or 16)"};
      }
      break;
    case Op::kLdmatrix:
    case Op::kStmatrix: {
      if (a.matrices != 1 && a.matrices != 2 && a.matrices != 4) {
        return Error{"num: " + std::to_string(a.matrices) + " must be 1, 2 or 4 (.x1, .x2, .x4)"};
      }
      if (a.width != 16) {
        return Error{std::string(op_name(a.op)) + ": width is 16 bytes (one row of 8 b16 elements), not " +
                     std::to_string(a.width)};
      }
      const uint32_t rows = a.matrices == 4 ? 0xffffffffu : (uint32_t{1} << (8 * a.matrices)) - 1u;
      if ((a.mask & rows) != rows) {
        std::ostringstream os;
        os << "row lanes 0.." << 8 * a.matrices - 1 << " must all be in the mask: " << op_name(a.op) << ".x"
           << a.matrices << " is .sync.aligned (the whole warp executes it)";
        return Error{os.str()};
      }
      break;
    }
    case Op::kAtomic:
      if (a.width != 4 && a.width != 8) {
        return Error{"width: atom is 4 or 8 bytes, not " + std::to_string(a.width)};
      }
      if (const std::string why = not_one_instruction(a); !why.empty()) return Error{why};
      break;
    case Op::kLdgsts:
      if (a.width != 4 && a.width != 8 && a.width != 16) {
        return Error{"width: ldgsts (cp.async) copies 4, 8 or 16 bytes, not " + std::to_string(a.width)};
      }
      if (a.bypass_l1 && a.width != 16) {
        return Error{"cache: cp.async.cg copies 16 bytes only (PTX ISA), not " + std::to_string(a.width)};
      }
      break;
  }
  const uint32_t used = used_lanes(a);
  // Every width accepted above is a power of two: a mask, not a division per lane (which was most of
  // validate()'s time in `report`, measured on the CUB device trace's atomics).
  const uint32_t low = static_cast<uint32_t>(a.width) - 1u;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!((used >> lane) & 1u)) continue;
    if ((a.addr[lane] & low) != 0) {
      std::ostringstream os;
      os << "lane " << lane << ": byte offset " << a.addr[lane] << " is not " << a.width
         << "-byte aligned (the GPU faults with \"misaligned address\")";
      return Error{os.str()};
    }
  }
  return a;
}

namespace {

constexpr int kMaxBanks = 64;
constexpr int kMaxItems = kWarpSize * 4;  // lanes x words per lane (16-byte access, 4-byte banks)

// One (lane, word) pair an access touches.
struct Item {
  uint32_t word;
  int8_t lane;
  int8_t bank;
};

// The core: phases, then per phase the distinct words of each bank. `rep` may be null.
template <bool kDetail>
AccessCost run(const WarpAccess& a, const BankConfig& cfg, AccessReport* rep) {
  assert(validate(a, cfg).ok() && "run() needs a validated access");
  AccessCost c;
  uint32_t phase_mask[kWarpSize];
  const int nphases = rules::phases(a, cfg, phase_mask);
  c.ideal_wavefronts = rules::ideal_wavefronts(a, cfg, nphases);

  const uint32_t bb = static_cast<uint32_t>(cfg.bank_bytes);
  const uint32_t nbanks = static_cast<uint32_t>(cfg.banks);
  const int words_per_lane = a.width > cfg.bank_bytes ? a.width / cfg.bank_bytes : 1;
  const bool each_lane_alone = rules::lanes_on_one_word_serialize(a);

  if constexpr (kDetail) {
    rep->access = a;
    rep->cfg = cfg;
    rep->phase_masks.assign(phase_mask, phase_mask + nphases);
    rep->bank_words.assign(static_cast<size_t>(cfg.banks), {});
    rep->wavefronts.clear();
    for (int lane = 0; lane < kWarpSize; ++lane) {
      LaneDetail& d = rep->lanes[lane];
      d = LaneDetail{};
      d.active = (rules::active_lanes(a) >> lane) & 1u;
      d.addr = a.addr[lane];
      if (!d.active) continue;
      d.words = words_per_lane;
      for (int k = 0; k < words_per_lane; ++k) {
        d.word[k] = word_of(a.addr[lane], cfg.bank_bytes) + static_cast<uint32_t>(k);
        d.bank[k] = static_cast<int>(d.word[k] % nbanks);
      }
    }
  }

  int wavefront_base = 0;
  for (int p = 0; p < nphases; ++p) {
    // Per bank, a linked list (through `next`) of the distinct words it serves in this phase.
    int16_t head[kMaxBanks];
    std::memset(head, -1, sizeof(int16_t) * nbanks);
    int16_t next[kMaxItems];
    uint32_t distinct_word[kMaxItems];
    int8_t count[kMaxBanks] = {};
    int8_t slot_of_item[kMaxItems];
    Item items[kMaxItems];
    int nitems = 0;
    int ndistinct = 0;
    int max_count = 0;

    for (uint32_t m = phase_mask[p]; m != 0; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const uint32_t w0 = a.addr[lane] / bb;
      for (int k = 0; k < words_per_lane; ++k) {
        const uint32_t w = w0 + static_cast<uint32_t>(k);
        const int b = static_cast<int>(w % nbanks);
        int slot = 0;
        // R8, R9: an atomic or a cp.async lane is served alone even on a word another lane
        // of its phase also uses (measured here), so the search for a shared word is skipped.
        int16_t i = each_lane_alone ? int16_t{-1} : head[b];
        int found = -1;
        for (; i >= 0; i = next[i], ++slot) {
          if (distinct_word[i] == w) {
            found = slot;
            break;
          }
        }
        // Lists are appended at the tail so a word's slot is its order of first appearance
        // (the lowest lane that asks for a word is served first).
        if (found < 0) {
          distinct_word[ndistinct] = w;
          next[ndistinct] = -1;
          if (head[b] < 0) {
            head[b] = static_cast<int16_t>(ndistinct);
          } else {
            int16_t t = head[b];
            while (next[t] >= 0) t = next[t];
            next[t] = static_cast<int16_t>(ndistinct);
          }
          ++ndistinct;
          found = count[b]++;
          if (count[b] > max_count) max_count = count[b];
        }
        if constexpr (kDetail) {
          items[nitems] = Item{w, static_cast<int8_t>(lane), static_cast<int8_t>(b)};
          slot_of_item[nitems] = static_cast<int8_t>(found);
        }
        ++nitems;
      }
    }
    c.wavefronts += max_count;
    c.n_way = std::max(c.n_way, max_count);

    if constexpr (kDetail) {
      const size_t first_wf = rep->wavefronts.size();
      rep->wavefronts.resize(first_wf + static_cast<size_t>(max_count));
      for (int s = 0; s < max_count; ++s) rep->wavefronts[first_wf + s].phase = p;
      for (int i = 0; i < nitems; ++i) {
        const Item& it = items[i];
        LaneDetail& d = rep->lanes[it.lane];
        d.phase = p;
        d.wavefront = std::max(d.wavefront, wavefront_base + slot_of_item[i]);
        WavefrontDetail& wf = rep->wavefronts[first_wf + slot_of_item[i]];
        wf.banks |= uint64_t{1} << it.bank;
        const std::pair<int, uint32_t> bw{it.bank, it.word};
        if (std::find(wf.words.begin(), wf.words.end(), bw) == wf.words.end()) {
          wf.words.push_back(bw);
        }
        auto& bw_list = rep->bank_words[static_cast<size_t>(it.bank)];
        if (std::find(bw_list.begin(), bw_list.end(), it.word) == bw_list.end()) {
          bw_list.push_back(it.word);
        }
      }
      for (uint32_t m = phase_mask[p]; m != 0; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        rep->wavefronts[static_cast<size_t>(rep->lanes[lane].wavefront)].lanes |= uint32_t{1}
                                                                                   << lane;
      }
    }
    wavefront_base += max_count;
  }
  // R8: CAS makes a second pass per wavefront; ncu counts it as a wavefront, not as a conflict.
  if (rules::second_pass(a)) {
    if constexpr (kDetail) {
      // The picture: the second pass serves the same (bank, word) pairs again, after all first
      // passes, and a lane's data is complete in its second pass. (The counts are measured; the
      // order of the passes is assumed.)
      const size_t first_passes = rep->wavefronts.size();
      for (size_t i = 0; i < first_passes; ++i) rep->wavefronts.push_back(rep->wavefronts[i]);
      for (size_t i = 0; i < first_passes; ++i) rep->wavefronts[i].lanes = 0;
      for (LaneDetail& d : rep->lanes) {
        if (d.active && d.wavefront >= 0) d.wavefront += static_cast<int>(first_passes);
      }
    }
    c.ideal_wavefronts += c.wavefronts;
    c.wavefronts *= 2;
  }
  if constexpr (kDetail) rep->cost = c;
  return c;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] cost()'s fast paths for the default geometry (32 banks x 4 bytes)
// ---------------------------------------------------------------------------------------------
// Same rules as run(). What every path uses, and why it is exact:
//  - An aligned access of w >= 4 bytes covers w/4 consecutive banks, so two lanes either share all
//    of their words or none: counting distinct w-byte units (byte address >> 2, 3 or 4) per group
//    of w/4 banks is counting distinct words per bank. Widths 1 and 2 use 4-byte units.
//  - ext = phase << group_bits | bank group (32, 16 or 8 groups). A phase serves at least as many
//    lanes as there are groups (R3: 128 / width lanes, or twice that with R6), so phases x groups
//    <= 32 and ext is below 32: one number names a (phase, bank group) pair.
//  - A phase costs the most distinct units any of its groups serves (R3, R4); a phase without
//    active lanes has no lane with its ext values and costs 0 (R5).
//  - Shortcuts, each exact: a full warp with a constant unit stride -> affine_cost() (below); no
//    two active lanes share an ext -> every active phase costs 1; all active lanes on one unit ->
//    every active phase costs 1 (R2's broadcast / one writer).

namespace {

// AccessCost from its three numbers. Returned in registers (RAX = wavefronts and ideal, RDX =
// n_way); built from one 64-bit value because GCC 12 otherwise assembles RAX with two 4-byte stores
// and an 8-byte load, a store-forwarding stall (measured here: 4-byte cost() 78 -> 85 M/s without).
inline AccessCost make_cost(int wavefronts, int ideal, int n_way) {
  static_assert(sizeof(AccessCost) == 12 && offsetof(AccessCost, ideal_wavefronts) == 4, "layout");
  const uint64_t low = static_cast<uint32_t>(wavefronts) | uint64_t{static_cast<uint32_t>(ideal)} << 32;
  AccessCost c;
  std::memcpy(static_cast<void*>(&c), &low, sizeof low);  // trivially copyable
  c.n_way = n_way;
  return c;
}

// The shape of one default-geometry LDS/STS: phases (R3, R6) and bank groups.
struct Shape {
  int per;         // lanes per phase: 32, 16 or 8
  int lane_bits;   // log2(per)
  int shift;       // byte address -> unit: >> 2, 3 or 4
  int group_bits;  // 5, 4 or 3: 32, 16 or 8 bank groups
  int ideal;       // phases with an active lane (R4, R5)
};

inline Shape shape_of(const WarpAccess& a) {
  // Up to 4 bytes: one phase of all 32 lanes (R3: 128 / width lanes, capped at the warp; R6 is about
  // wider loads), without phase_lanes()'s division (measured here: a third of the AVX2 path's time
  // on random 4-byte warps).
  if (a.width <= 4) return Shape{kWarpSize, 5, 2, 5, a.mask != 0};
  Shape s;
  s.per = rules::phase_lanes(a, BankConfig{});
  assert((s.per == 32 || s.per == 16 || s.per == 8) && "phase_lanes() of a valid default-geometry access");
  s.lane_bits = s.per == 32 ? 5 : (s.per == 16 ? 4 : 3);
  s.shift = a.width <= 4 ? 2 : (a.width == 8 ? 3 : 4);
  s.group_bits = 7 - s.shift;
  if (s.per == 32) {
    s.ideal = a.mask != 0;
  } else {
    const uint32_t lanes = (uint32_t{1} << s.per) - 1u;
    s.ideal = 0;
    for (int first = 0; first < kWarpSize; first += s.per) s.ideal += ((a.mask >> first) & lanes) != 0;
  }
  return s;
}

// A full warp whose units step by a constant d (lane i on unit u0 + i d: rows, columns, padded
// and unpadded strides, what tiled kernels issue). d = 0: one unit, every phase costs 1. d > 0:
// strictly increasing, so all units differ and (no two lanes share an address) R6 does not apply;
// within a phase of P lanes on G bank groups (P >= G, both powers of two) the groups (u0 + i d) mod
// G repeat with period G / gcd(d, G), so every group that is hit is hit P gcd(d, G) / G times, and
// gcd(d, G) is the lowest set bit of d capped at G. Exact by this argument; the differential tests
// check it against run<> for every width and strides 0..130.
inline AccessCost affine_cost(const Shape& s, uint32_t d) {
  if (d == 0) return make_cost(s.ideal, s.ideal, 1);
  const uint32_t groups = 1u << s.group_bits;
  const uint32_t low = d & (0u - d);
  const int n = static_cast<int>(static_cast<uint32_t>(s.per) * (low < groups ? low : groups) / groups);
  return make_cost(n * s.ideal, s.ideal, n);
}

}  // namespace

// The portable path: the target's baseline only (x86-64: SSE2, no POPCNT), as a CPU without AVX2
// runs it; no allocation; one constant table (kNibbleInc, below, x86-64 only).
// Templated on the shape so that every loop over the 32 lanes unrolls with constant shifts.
//  0. A full warp with a constant unit stride: affine_cost().
//  1. The ext values the active lanes occupy, as a 32-bit set: no two active lanes on one ext ->
//     every active phase costs 1. All active lanes on one unit -> every active phase costs 1.
//  2. One lane per distinct (phase, unit): every active lane when the units of all 32 lanes
//     strictly increase (strided rows and columns), else through a 64-slot open-addressing table.
//  3. Per counted lane the counted lanes of its ext (compare-and-count over the 32 lanes, no
//     histogram in memory); the busiest per phase.
inline int popcount32(uint32_t x) {  // SWAR: the baseline x86-64 has no POPCNT instruction
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return static_cast<int>((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

constexpr uint32_t kLaneBit[kWarpSize] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,  1u << 8,  1u << 9,  1u << 10,
    1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15, 1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21,
    1u << 22, 1u << 23, 1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31};

// Every pair of `lanes` compared: units_distinct()'s rare case (five lanes or more), out of line so
// that the common case keeps a small frame.
__attribute__((noinline)) static bool units_distinct_pairwise(const uint32_t* addr, int shift, uint32_t lanes) {
  for (uint32_t y = lanes; y != 0;) {
    const uint32_t u = addr[__builtin_ctz(y)] >> shift;
    y &= y - 1;
    for (uint32_t z = y; z != 0; z &= z - 1) {
      if ((addr[__builtin_ctz(z)] >> shift) == u) return false;
    }
  }
  return true;
}

// Whether the two to four lanes in `lanes` (all of one phase) address pairwise different units
// (byte address >> shift), without a branch: a lane past the last is read as lane 31 and its
// compares are masked off.
inline bool units_distinct4(const uint32_t* addr, int shift, uint32_t lanes) {
  uint32_t x = lanes;
  assert((x & (x - 1)) != 0 && "units_distinct4() of fewer than two lanes");
  const uint32_t u0 = addr[__builtin_ctz(x)] >> shift;
  x &= x - 1;
  const uint32_t u1 = addr[__builtin_ctz(x)] >> shift;
  x &= x - 1;
  const uint32_t has2 = x != 0;
  const uint32_t u2 = addr[__builtin_ctz(x | 0x80000000u)] >> shift;
  x &= x - 1;
  const uint32_t has3 = x != 0;
  const uint32_t u3 = addr[__builtin_ctz(x | 0x80000000u)] >> shift;
  const uint32_t dup2 = has2 & static_cast<uint32_t>((u2 == u0) | (u2 == u1));
  const uint32_t dup3 = has3 & static_cast<uint32_t>((u3 == u0) | (u3 == u1) | (u3 == u2));
  return (static_cast<uint32_t>(u0 == u1) | dup2 | dup3) == 0;
}

#if defined(__SSE2__)
// units_distinct4() with vector compares, for the 32-lane phase of 1-, 2- and 4-byte accesses on
// x86-64 (the AVX2 and the portable path): the n lanes' units (1 <= n <= 4) in one 16-byte vector,
// compared with the vector rotated by one and by two dwords (all six pairs), the compares of a lane
// past the n-th masked off (kPairMask[n]); a lane past the n-th is read as lane 31. Half the
// instructions of the scalar compares, and no chain of setcc and or (what round 15's changes to the
// check did to cost(): cost_ir.txt as of commit c2c4941). The vector holds the lowest, second and
// third lowest and the highest of the lanes: for n = 3 the highest is the third again and for n = 2
// the second, in a slot the mask leaves out, so no lane is compared with itself. The highest comes
// from a leading-zero count instead of a third clear-lowest-bit, so that no index waits on more
// than two (the AVX2 path has LZCNT). The chain of indices, loads and compares ends in every
// random warp's result, and that path is what bounds cost() (round 16, assets/results/cpu/cost_ir.txt).
alignas(16) constexpr uint32_t kPairMask[5][2][4] = {{},
                                                     {},
                                                     {{~0u, 0, 0, 0}, {0, 0, 0, 0}},
                                                     {{~0u, ~0u, 0, 0}, {~0u, 0, 0, 0}},
                                                     {{~0u, ~0u, ~0u, ~0u}, {~0u, ~0u, 0, 0}}};
template <int kShift>
__attribute__((always_inline)) inline bool units_distinct4_sse2(const uint32_t* addr, uint32_t lanes, int n) {
  assert(n >= 1 && n <= 4 && __builtin_popcount(lanes) == n);
  const uint32_t x = lanes, x1 = x & (x - 1), x2 = x1 & (x1 - 1);
  const uint32_t i0 = static_cast<uint32_t>(__builtin_ctz(x));
  const uint32_t i1 = static_cast<uint32_t>(__builtin_ctz(x1 | 0x80000000u));
  const uint32_t i2 = static_cast<uint32_t>(__builtin_ctz(x2 | 0x80000000u));
  const uint32_t i3 = 31u ^ static_cast<uint32_t>(__builtin_clz(x));  // x != 0: n >= 1
  __m128i u = _mm_set_epi32(static_cast<int>(addr[i3]), static_cast<int>(addr[i2]), static_cast<int>(addr[i1]),
                            static_cast<int>(addr[i0]));
  if (kShift != 0) u = _mm_srli_epi32(u, kShift);
  const __m128i* m = reinterpret_cast<const __m128i*>(kPairMask[n]);
  const __m128i e1 = _mm_and_si128(_mm_cmpeq_epi32(u, _mm_shuffle_epi32(u, 0x39)), _mm_load_si128(m));
  const __m128i e2 = _mm_and_si128(_mm_cmpeq_epi32(u, _mm_shuffle_epi32(u, 0x4e)), _mm_load_si128(m + 1));
  return _mm_movemask_epi8(_mm_or_si128(e1, e2)) == 0;
}

// The same for five to eight lanes: lanes 0-3 of them in vector a, 4-7 in b. All pairs: a with a
// rotated by one and two dwords, b likewise, b with a rotated by zero to three; the lanes of b past
// the n-th masked off (lanes 0-3 are all there) and read as lane 31. In place of
// units_distinct_pairwise()'s loops and their mispredicted exits (one random 4-byte warp in ten
// has a busiest bank of five lanes or more).
template <int kShift>
__attribute__((always_inline)) inline bool units_distinct8_sse2(const uint32_t* addr, uint32_t lanes, int n) {
  assert(n >= 5 && n <= 8 && __builtin_popcount(lanes) == n);
  uint32_t i[8];
  uint32_t x = lanes;
  for (int k = 0; k < 8; ++k) {
    i[k] = static_cast<uint32_t>(__builtin_ctz(x | 0x80000000u));
    x &= x - 1;
  }
  // Built from the lanes' loads (movd and punpckldq; vpinsrd on the AVX2 path), not stored to
  // memory and read back as vectors: a 16-byte load of four 4-byte stores is not forwarded from the
  // stores and waits for them.
  __m128i a = _mm_set_epi32(static_cast<int>(addr[i[3]]), static_cast<int>(addr[i[2]]), static_cast<int>(addr[i[1]]),
                            static_cast<int>(addr[i[0]]));
  __m128i b = _mm_set_epi32(static_cast<int>(addr[i[7]]), static_cast<int>(addr[i[6]]), static_cast<int>(addr[i[5]]),
                            static_cast<int>(addr[i[4]]));
  if (kShift != 0) {
    a = _mm_srli_epi32(a, kShift);
    b = _mm_srli_epi32(b, kShift);
  }
  const __m128i on = _mm_cmpgt_epi32(_mm_set1_epi32(n), _mm_setr_epi32(4, 5, 6, 7));  // lanes of b there
  const __m128i a1 = _mm_shuffle_epi32(a, 0x39), a2 = _mm_shuffle_epi32(a, 0x4e), a3 = _mm_shuffle_epi32(a, 0x93);
  const __m128i in_a = _mm_or_si128(_mm_cmpeq_epi32(a, a1), _mm_cmpeq_epi32(a, a2));
  const __m128i in_b = _mm_or_si128(
      _mm_and_si128(_mm_cmpeq_epi32(b, _mm_shuffle_epi32(b, 0x39)), _mm_shuffle_epi32(on, 0x39)),
      _mm_and_si128(_mm_cmpeq_epi32(b, _mm_shuffle_epi32(b, 0x4e)), _mm_shuffle_epi32(on, 0x4e)));
  const __m128i across = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi32(b, a), _mm_cmpeq_epi32(b, a1)),
                                      _mm_or_si128(_mm_cmpeq_epi32(b, a2), _mm_cmpeq_epi32(b, a3)));
  return _mm_movemask_epi8(_mm_or_si128(in_a, _mm_and_si128(on, _mm_or_si128(in_b, across)))) == 0;
}
#endif

// The same for any number of lanes (two or more). Called on one (phase, bank group) at a time, so
// `lanes` is small (the busiest group's lane count, 2-5 for random addresses): the first four by
// units_distinct4(), the rest, if any, by a loop.
inline bool units_distinct(const uint32_t* addr, int shift, uint32_t lanes) {
  uint32_t rest = lanes;
  for (int i = 0; i < 4; ++i) rest &= rest - 1;
  return units_distinct4(addr, shift, lanes) && (rest == 0 || units_distinct_pairwise(addr, shift, lanes));
}

// Lanes whose key byte is e, as a lane mask; words[w] holds lanes 8w..8w+7's keys, byte b lane 8w
// + b. Eight bytes at a time with an exact zero-byte test (a byte y is 0 iff bit 7 of ((y & 0x7f) +
// 0x7f) | y is clear; no carry crosses a byte), the eight bit-7 flags gathered into one byte by a
// multiply (their products land on distinct bits, so nothing carries).
inline uint32_t lanes_with_key(const uint64_t (&words)[4], uint8_t e) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kLow7 = 0x7f7f7f7f7f7f7f7full;
  uint32_t lanes = 0;
  for (int w = 0; w < 4; ++w) {
    const uint64_t x = words[w] ^ (kOnes * e);
    const uint64_t zero = ~(((x & kLow7) + kLow7) | x) & (kOnes << 7);
    lanes |= static_cast<uint32_t>(((zero >> 7) * 0x0102040810204080ull) >> 56) << (8 * w);
  }
  return lanes;
}

// Out of line: the fast routes reach it by a tail call, and keep a small frame of their own.
template <int kShift, int kLaneBits>
__attribute__((noinline)) static AccessCost cost_portable_shape(const WarpAccess& a, const uint32_t* addr, int ideal) {
  constexpr uint32_t kGroupBits = 7u - kShift, kGroupMask = (1u << kGroupBits) - 1u;
  const uint32_t mask = a.mask;
  if (mask == 0xffffffffu) {
    const uint32_t d = (addr[1] >> kShift) - (addr[0] >> kShift);
    uint32_t affine = 1;
    for (uint32_t i = 0; i + 1 < kWarpSize; ++i) {
      affine &= static_cast<uint32_t>((addr[i + 1] >> kShift) - (addr[i] >> kShift) == d);
    }
    // A decreasing stride (d above 2^31 as unsigned) is not increasing: the general route below.
    if (affine != 0 && d < 0x80000000u) {
      const Shape s{1 << kLaneBits, kLaneBits, kShift, 7 - kShift, ideal};
      return affine_cost(s, d);
    }
  }
  // ext of lane i: (unit & kGroupMask) | phase << kGroupBits, phase = i >> kLaneBits.
  uint32_t occupied0 = 0, occupied1 = 0;
  if (mask == 0xffffffffu) {
#pragma GCC unroll 32
    for (uint32_t i = 0; i < kWarpSize; i += 2) {
      occupied0 |= 1u << (((addr[i] >> kShift) & kGroupMask) | (i >> kLaneBits) << kGroupBits);
      occupied1 |= 1u << (((addr[i + 1] >> kShift) & kGroupMask) | ((i + 1) >> kLaneBits) << kGroupBits);
    }
  } else {
#pragma GCC unroll 32
    for (uint32_t i = 0; i < kWarpSize; i += 2) {
      occupied0 |= ((mask >> i) & 1u) << (((addr[i] >> kShift) & kGroupMask) | (i >> kLaneBits) << kGroupBits);
      occupied1 |= ((mask >> (i + 1)) & 1u)
                   << (((addr[i + 1] >> kShift) & kGroupMask) | ((i + 1) >> kLaneBits) << kGroupBits);
    }
  }
  // No two active lanes on one (phase, bank group): every active phase costs 1.
  if (popcount32(occupied0 | occupied1) == popcount32(mask)) return make_cost(ideal, ideal, 1);

  // Loops without a per-lane mask test, so that the compiler vectorizes them.
  uint32_t unit[kWarpSize];
  uint32_t ext[kWarpSize];
  for (uint32_t i = 0; i < kWarpSize; ++i) unit[i] = addr[i] >> kShift;
  for (uint32_t i = 0; i < kWarpSize; ++i) ext[i] = (unit[i] & kGroupMask) | (i >> kLaneBits) << kGroupBits;
  uint32_t increasing = 1;
  // From addr, not unit[]: unaligned reloads of just-stored vectors defeat store forwarding.
  for (uint32_t i = 0; i + 1 < kWarpSize; ++i) {
    increasing &= static_cast<uint32_t>((addr[i + 1] >> kShift) > (addr[i] >> kShift));
  }
  uint32_t first = mask;  // one active lane per distinct (phase, unit): all of them when increasing
  if (increasing == 0) {
    const uint32_t u0 = unit[__builtin_ctz(mask)];
    uint32_t differ = 0;
#pragma GCC unroll 32
    for (uint32_t i = 0; i < kWarpSize; ++i) differ |= ((mask >> i) & 1u) & static_cast<uint32_t>(unit[i] != u0);
    if (differ == 0) return make_cost(ideal, ideal, 1);  // one unit: every active phase costs 1
    // key = unit | phase << 30: a unit is below 2^30 (2^28 for 16 bytes, where phases go to 3),
    // so no key is kEmpty.
    constexpr uint32_t kEmpty = 0xffffffffu;
    uint32_t table[64];
    std::memset(table, 0xff, sizeof table);
    first = 0;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctz(m));
      const uint32_t key = unit[i] | (i >> kLaneBits) << 30;
      uint32_t h = (key * 0x9e3779b1u) >> 26;
      while (table[h] != key && table[h] != kEmpty) h = (h + 1) & 63u;
      if (table[h] == kEmpty) {
        table[h] = key;
        first |= 1u << i;
      }
    }
  }
  // Per counted lane, the counted lanes with its ext: key = ext for those lanes, 0x40 | lane (unique,
  // never an ext) for the others, compared with the key sequence shifted by 1..31 (keys stored
  // twice, so each shift is a contiguous read): loops the compiler vectorizes, and no counter
  // that lanes on one bank would wait on (a histogram in memory measured 4x slower here).
  uint8_t key[2 * kWarpSize];
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    key[i] = static_cast<uint8_t>((first & kLaneBit[i]) != 0 ? ext[i] : (0x40u | i));
  }
  std::memcpy(key + kWarpSize, key, kWarpSize);
  uint8_t count[kWarpSize];
  for (uint32_t i = 0; i < kWarpSize; ++i) count[i] = static_cast<uint8_t>(key[i] < 0x40u);
  for (uint32_t r = 1; r < kWarpSize; ++r) {
    for (uint32_t i = 0; i < kWarpSize; ++i) count[i] = static_cast<uint8_t>(count[i] + (key[i] == key[i + r]));
  }
  constexpr uint32_t kPer = 1u << kLaneBits;
  int wavefronts = 0, n_way = 0;
  for (uint32_t p0 = 0; p0 < kWarpSize; p0 += kPer) {
    uint8_t busiest = 0;
    for (uint32_t i = p0; i < p0 + kPer; ++i) busiest = count[i] > busiest ? count[i] : busiest;
    wavefronts += busiest;
    n_way = busiest > n_way ? busiest : n_way;
  }
  return make_cost(wavefronts, ideal, n_way);
}

// The portable path's main route: the constant-stride shortcut (lanes 0, 1 and 31 filter it, a loop
// confirms it), then a count of the active lanes per (phase, bank group) and one check. The count
// is of active lanes, not of distinct units: an upper bound on the group's distinct units, equal to
// it when the group's lanes are on pairwise different units. So a phase costs its busiest lane
// count exactly when one group with that lane count has no two lanes on one unit (every other group
// has at most that many distinct units); that one group is checked, and when it has a shared unit
// (or more than 8 lanes, which random addresses almost never put on one bank) the warp takes
// cost_portable_shape() (the dedupe, then the count).
// One phase of 32 lanes at 4-byte units (widths 1, 2, 4) on x86-64 is counted by
// one_phase_busiest_sse2() instead (4-bit counters, below). Every other shape, and every shape on
// other targets, is counted here, with GCC/Clang vector extensions on 16-byte vectors (SSE2 on
// x86-64, NEON on Arm): ext = bank group | phase << lane_bits, as in the AVX2 path. Each group of
// four lanes has its four keys in every dword of one vector; it is compared with eight constant
// vectors whose dword j holds ext 4c + j in each byte (c = 0..7), so that the four bytes of dword j
// of accumulator c sum to the lanes on ext 4c + j. 64 compares for the 32 x 32 (lane, ext) pairs,
// no table in memory and no loop over lanes; each count becomes count << 5 | ext, so that one max
// names the busiest count and a group with it.
typedef uint8_t Bytes16 __attribute__((vector_size(16)));
typedef uint32_t Words4 __attribute__((vector_size(16)));
typedef int16_t Halves8 __attribute__((vector_size(16)));

// Lanes 4m..4m+3's keys (0xff for an inactive lane), all four in every dword; dword 0 holds them in
// lane order.
template <int kShift, int kLaneBits>
static inline Bytes16 portable_group_keys(const uint32_t* addr, uint32_t m, uint32_t mask) {
  constexpr uint32_t kPer = 1u << kLaneBits, kGroupMask = (1u << (7 - kShift)) - 1u;
  Words4 a;
  std::memcpy(&a, addr + 4 * m, sizeof a);
  Words4 k = ((a >> kShift) & kGroupMask) | ((4u * m) & ~(kPer - 1u));
  if (mask != 0xffffffffu) {
    const uint32_t nib = mask >> (4 * m);
    const Words4 bits = {1u, 2u, 4u, 8u};
    k |= reinterpret_cast<Words4>((Words4{nib, nib, nib, nib} & bits) == 0u) & 0xffu;
  }
  const Words4 u = k | (__builtin_shufflevector(k, k, 1, 0, 3, 2) << 8);
  return reinterpret_cast<Bytes16>(u | (__builtin_shufflevector(u, u, 2, 3, 0, 1) << 16));
}

#define BANKSCOPE_EXT(c)                                                                              \
  reinterpret_cast<Bytes16>(Words4{(4u * (c)) * 0x01010101u, (4u * (c) + 1u) * 0x01010101u,          \
                                   (4u * (c) + 2u) * 0x01010101u, (4u * (c) + 3u) * 0x01010101u})
#define BANKSCOPE_CMP(b, c) reinterpret_cast<Bytes16>((b) == BANKSCOPE_EXT(c))
// Minus the lanes on ext 4c..4c+3 (in the four bytes of each dword), as a tree of adds.
#define BANKSCOPE_NEG_COUNT(c)                                                                       \
  (((BANKSCOPE_CMP(b0, c) + BANKSCOPE_CMP(b1, c)) + (BANKSCOPE_CMP(b2, c) + BANKSCOPE_CMP(b3, c))) + \
   ((BANKSCOPE_CMP(b4, c) + BANKSCOPE_CMP(b5, c)) + (BANKSCOPE_CMP(b6, c) + BANKSCOPE_CMP(b7, c))))

// count << 5 | ext per dword (in its low 16 bits, the high 16 zero), from minus the counts.
static inline Halves8 portable_encode(Bytes16 neg, uint32_t c) {
  Words4 x = reinterpret_cast<Words4>(Bytes16{} - neg);  // four bytes of at most 8 each
  x += x >> 16;
  x += x >> 8;
  x &= 0xffu;
  return reinterpret_cast<Halves8>((x << 5) | Words4{4u * c, 4u * c + 1u, 4u * c + 2u, 4u * c + 3u});
}
static inline Halves8 portable_max(Halves8 a, Halves8 b) { return a > b ? a : b; }
// The max over the four dwords, in dword 0.
static inline int portable_hmax(Halves8 m) {
  m = portable_max(m, __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3));
  m = portable_max(m, __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5));
  return m[0];
}

// BANKSCOPE_GENERIC_COUNT (a test build, sim_tests_generic) leaves it out on x86-64 too, so that
// the vector-extension count that non-x86 targets run for these widths is tested here as well.
#if defined(__SSE2__) && !defined(BANKSCOPE_GENERIC_COUNT)
#define BANKSCOPE_SSE2_COUNT 1
// The portable path's count for one phase of 32 lanes at 4-byte units (widths 1, 2 and 4, random
// 4-byte warps among them: the trace report's worst case), with SSE2 alone (the baseline of
// x86-64): 32 bank counters of 4 bits in one 16-byte vector, one vector add per lane.
//  - key of a lane: its bank times 4 (byte address & 0x7c), 0x80 | that for an inactive lane, as
//    bytes; entry key / 4 of kNibbleInc has a 1 in the counter of that bank (byte bank / 2, low
//    nibble for an even bank), and the entries of inactive keys (32..63) are zero.
//  - four accumulators of eight lanes each, so that no counter passes 8 (a nibble holds 15) and
//    the adds form four short chains; then the nibbles are widened to bytes: lo holds even banks,
//    hi odd banks (byte j: banks 2j and 2j + 1).
//  - each count as the 16-bit word count << 8 | 4 bank, and a butterfly of word maxima: the
//    greatest word, in every word, holds the busiest count and the key (4 x bank) of a bank with
//    it, which is compared with the lanes' keys straight away (round 16: in place of byte maxima,
//    then a compare, a mask, a bit scan and the bank's key made from its index, a longer path to
//    the result, which is what bounds cost(); assets/results/cpu/cost_ir.txt).
// It replaced 64 byte compares and their sums for these widths: random 4-byte warps from 19.5 to
// 26.6 M/s here (Zen 3, assets/results/cpu/model_bench_compare.txt).
struct NibbleTable {
  uint8_t b[64 * 16];
};
constexpr NibbleTable make_nibble_table() {
  NibbleTable t{};
  for (int k = 0; k < kWarpSize; ++k)
    t.b[16 * k + k / 2] = static_cast<uint8_t>(k % 2 == 0 ? 0x01 : 0x10);
  return t;
}
alignas(64) constexpr NibbleTable kNibbleInc = make_nibble_table();

// Returns the busiest bank's lane count (an upper bound on its distinct words) and, in *lanes, the
// lanes of one bank with that count.
template <bool kFull>
__attribute__((always_inline)) inline int one_phase_busiest_sse2(const uint32_t* addr,
                                                                 uint32_t mask, uint32_t* lanes) {
  const __m128i k7c = _mm_set1_epi32(0x7c);
  const __m128i* v = reinterpret_cast<const __m128i*>(addr);
#define BANKSCOPE_KEYS(i) _mm_and_si128(_mm_loadu_si128(v + (i)), k7c)
  __m128i q0 =
      _mm_packus_epi16(_mm_packs_epi32(BANKSCOPE_KEYS(0), BANKSCOPE_KEYS(1)),
                       _mm_packs_epi32(BANKSCOPE_KEYS(2), BANKSCOPE_KEYS(3)));  // lanes 0-15
  __m128i q1 =
      _mm_packus_epi16(_mm_packs_epi32(BANKSCOPE_KEYS(4), BANKSCOPE_KEYS(5)),
                       _mm_packs_epi32(BANKSCOPE_KEYS(6), BANKSCOPE_KEYS(7)));  // lanes 16-31
#undef BANKSCOPE_KEYS
  if (!kFull) {  // byte i of the mask in bytes 8i..8i+7, tested bit by bit
    const __m128i m = _mm_cvtsi32_si128(static_cast<int>(mask));
    const __m128i b = _mm_unpacklo_epi16(_mm_unpacklo_epi8(m, m), _mm_unpacklo_epi8(m, m));
    const __m128i bits = _mm_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m128i inactive = _mm_set1_epi8(static_cast<char>(0x80));
    const __m128i on0 = _mm_cmpeq_epi8(_mm_and_si128(_mm_unpacklo_epi32(b, b), bits), bits);
    const __m128i on1 = _mm_cmpeq_epi8(_mm_and_si128(_mm_unpackhi_epi32(b, b), bits), bits);
    q0 = _mm_or_si128(q0, _mm_andnot_si128(on0, inactive));
    q1 = _mm_or_si128(q1, _mm_andnot_si128(on1, inactive));
  }
  // A full warp's keys are read from its addresses (a load and an and per lane); with inactive
  // lanes, from q0 and q1 stored to key[] (read back as bytes: kept in registers, GCC extracted each
  // byte with shifts). The store and its reload put several cycles more on the path to the result.
  alignas(16) uint8_t key[kWarpSize];
  if (!kFull) {
    _mm_store_si128(reinterpret_cast<__m128i*>(key), q0);
    _mm_store_si128(reinterpret_cast<__m128i*>(key + 16), q1);
    __asm__("" : : "r"(key) : "memory");
  }
  __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
  // Entry key / 4 of the table starts at byte 4 key (a scaled index, no shift).
#define BANKSCOPE_KEY(I) (kFull ? (size_t{addr[I]} & 0x7cu) : size_t{key[I]})
#define BANKSCOPE_INC(A, I) \
  A = _mm_add_epi8(         \
      A, _mm_load_si128(reinterpret_cast<const __m128i*>(kNibbleInc.b + BANKSCOPE_KEY(I) * 4u)))
#define BANKSCOPE_INC4(I)   \
  BANKSCOPE_INC(a0, I);     \
  BANKSCOPE_INC(a1, I + 1); \
  BANKSCOPE_INC(a2, I + 2); \
  BANKSCOPE_INC(a3, I + 3)
  BANKSCOPE_INC4(0);
  BANKSCOPE_INC4(4);
  BANKSCOPE_INC4(8);
  BANKSCOPE_INC4(12);
  BANKSCOPE_INC4(16);
  BANKSCOPE_INC4(20);
  BANKSCOPE_INC4(24);
  BANKSCOPE_INC4(28);
#undef BANKSCOPE_INC4
#undef BANKSCOPE_INC
#undef BANKSCOPE_KEY
  const __m128i low4 = _mm_set1_epi8(0x0f);
#define BANKSCOPE_LO(A) _mm_and_si128(A, low4)
#define BANKSCOPE_HI(A) _mm_and_si128(_mm_srli_epi16(A, 4), low4)
  const __m128i lo = _mm_add_epi8(_mm_add_epi8(BANKSCOPE_LO(a0), BANKSCOPE_LO(a1)),
                                  _mm_add_epi8(BANKSCOPE_LO(a2), BANKSCOPE_LO(a3)));
  const __m128i hi = _mm_add_epi8(_mm_add_epi8(BANKSCOPE_HI(a0), BANKSCOPE_HI(a1)),
                                  _mm_add_epi8(BANKSCOPE_HI(a2), BANKSCOPE_HI(a3)));
#undef BANKSCOPE_HI
#undef BANKSCOPE_LO
  // Each count as the word count << 8 | 4 bank (signed maxima: the words stay below 2^15); the
  // greatest, in every word after the butterfly, names the busiest count and, in its low byte, the
  // key of a bank with it.
  const __m128i even4 = _mm_setr_epi8(0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120);
  const __m128i odd4 = _mm_or_si128(even4, _mm_set1_epi8(4));
  __m128i m = _mm_max_epi16(_mm_max_epi16(_mm_unpacklo_epi8(even4, lo), _mm_unpackhi_epi8(even4, lo)),
                            _mm_max_epi16(_mm_unpacklo_epi8(odd4, hi), _mm_unpackhi_epi8(odd4, hi)));
  m = _mm_max_epi16(m, _mm_shuffle_epi32(m, 0x4e));
  m = _mm_max_epi16(m, _mm_shuffle_epi32(m, 0xb1));
  m = _mm_max_epi16(m, _mm_shufflehi_epi16(_mm_shufflelo_epi16(m, 0xb1), 0xb1));
  const __m128i k = _mm_and_si128(m, _mm_set1_epi16(0xff));
  const __m128i e = _mm_packus_epi16(k, k);
  *lanes = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(q0, e))) |
           static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(q1, e))) << 16;
  return static_cast<int>((static_cast<uint32_t>(_mm_cvtsi128_si32(m)) >> 8) & 0xff);
}
#endif

#if defined(BANKSCOPE_SSE2_COUNT)
// cost_portable_fast() of one 32-lane phase whose busiest bank has more than four lanes: its lanes
// compared pairwise (up to eight), else the dedupe.
__attribute__((noinline)) static AccessCost cost_portable_words_check(const WarpAccess& a, const uint32_t* addr,
                                                                      int ideal, uint32_t lanes, int n) {
  if (n > 8 || !units_distinct8_sse2<2>(addr, lanes, n)) return cost_portable_shape<2, 5>(a, addr, ideal);
  return make_cost(n, ideal, n);
}
#endif

#if defined(BANKSCOPE_SSE2_COUNT)
// cost_portable_fast() of one 32-lane phase past the constant-stride shortcut, out of line and
// reached by a tail call: its registers (a full warp's keys are read into eight at a time) would
// otherwise be saved and restored by every call of cost_portable_fast(), the strided warps' too
// (ten instructions each, round 16's first version).
__attribute__((noinline)) static AccessCost cost_portable_words(const WarpAccess& a, const uint32_t* addr,
                                                                int ideal) {
  const uint32_t mask = a.mask;
  uint32_t lanes = 0;
  const int n = mask == 0xffffffffu ? one_phase_busiest_sse2<true>(addr, mask, &lanes)
                                    : one_phase_busiest_sse2<false>(addr, mask, &lanes);
  // As in cost_portable_fast(): the count is exact when the busiest bank's lanes are on distinct
  // units. Up to four lanes are checked here, more out of line, so that every call from here is a
  // tail call.
  if (n > 4) return cost_portable_words_check(a, addr, ideal, lanes, n);
  if (n >= 2 && !units_distinct4_sse2<2>(addr, lanes, n)) return cost_portable_shape<2, 5>(a, addr, ideal);
  return make_cost(n, ideal, n);
}
#endif

template <int kShift, int kLaneBits>
static AccessCost cost_portable_fast(const WarpAccess& a, const uint32_t* addr, int ideal) {
  constexpr uint32_t kPer = 1u << kLaneBits;
  const uint32_t mask = a.mask;
  if (mask == 0xffffffffu &&
      (addr[31] >> kShift) - (addr[0] >> kShift) == 31u * ((addr[1] >> kShift) - (addr[0] >> kShift))) {
    const uint32_t d = (addr[1] >> kShift) - (addr[0] >> kShift);
    uint32_t affine = 1;
    for (uint32_t i = 0; i + 1 < kWarpSize; ++i) {
      affine &= static_cast<uint32_t>((addr[i + 1] >> kShift) - (addr[i] >> kShift) == d);
    }
    // A decreasing stride (d above 2^31 as unsigned) is not increasing: the general route below.
    if (affine != 0 && d < 0x80000000u) {
      const Shape s{1 << kLaneBits, kLaneBits, kShift, 7 - kShift, ideal};
      return affine_cost(s, d);
    }
  }
#if defined(BANKSCOPE_SSE2_COUNT)
  if constexpr (kShift == 2 && kLaneBits == 5) return cost_portable_words(a, addr, ideal);
#endif
  const Bytes16 b0 = portable_group_keys<kShift, kLaneBits>(addr, 0, mask);
  const Bytes16 b1 = portable_group_keys<kShift, kLaneBits>(addr, 1, mask);
  const Bytes16 b2 = portable_group_keys<kShift, kLaneBits>(addr, 2, mask);
  const Bytes16 b3 = portable_group_keys<kShift, kLaneBits>(addr, 3, mask);
  const Bytes16 b4 = portable_group_keys<kShift, kLaneBits>(addr, 4, mask);
  const Bytes16 b5 = portable_group_keys<kShift, kLaneBits>(addr, 5, mask);
  const Bytes16 b6 = portable_group_keys<kShift, kLaneBits>(addr, 6, mask);
  const Bytes16 b7 = portable_group_keys<kShift, kLaneBits>(addr, 7, mask);
  const Halves8 v0 = portable_encode(BANKSCOPE_NEG_COUNT(0), 0), v1 = portable_encode(BANKSCOPE_NEG_COUNT(1), 1);
  const Halves8 v2 = portable_encode(BANKSCOPE_NEG_COUNT(2), 2), v3 = portable_encode(BANKSCOPE_NEG_COUNT(3), 3);
  const Halves8 v4 = portable_encode(BANKSCOPE_NEG_COUNT(4), 4), v5 = portable_encode(BANKSCOPE_NEG_COUNT(5), 5);
  const Halves8 v6 = portable_encode(BANKSCOPE_NEG_COUNT(6), 6), v7 = portable_encode(BANKSCOPE_NEG_COUNT(7), 7);
  // Per phase the busiest (count << 5 | ext) over its exts: vectors c hold exts 4c..4c+3.
  int busiest[4];
  int phases = 0;
  if (kPer == 32) {
    busiest[phases++] = portable_hmax(portable_max(portable_max(portable_max(v0, v1), portable_max(v2, v3)),
                                                   portable_max(portable_max(v4, v5), portable_max(v6, v7))));
  } else if (kPer == 16) {
    busiest[phases++] = portable_hmax(portable_max(portable_max(v0, v1), portable_max(v2, v3)));
    busiest[phases++] = portable_hmax(portable_max(portable_max(v4, v5), portable_max(v6, v7)));
  } else {
    busiest[phases++] = portable_hmax(portable_max(v0, v1));
    busiest[phases++] = portable_hmax(portable_max(v2, v3));
    busiest[phases++] = portable_hmax(portable_max(v4, v5));
    busiest[phases++] = portable_hmax(portable_max(v6, v7));
  }
  int wavefronts = 0, n_way = 0;
  for (int p = 0; p < phases; ++p) {
    const int n = busiest[p] >> 5;
    if (n >= 2) {
      if (n > 8) return cost_portable_shape<kShift, kLaneBits>(a, addr, ideal);
      // The keys in lane order: dword 0 of each group's vector, eight bytes per word.
      uint64_t words[4];
      const Bytes16 groups[8] = {b0, b1, b2, b3, b4, b5, b6, b7};
      for (int w = 0; w < 4; ++w) {
        words[w] = uint64_t{reinterpret_cast<Words4>(groups[2 * w])[0]} |
                   uint64_t{reinterpret_cast<Words4>(groups[2 * w + 1])[0]} << 32;
      }
      const uint32_t lanes = lanes_with_key(words, static_cast<uint8_t>(busiest[p] & 31));
      if (!units_distinct(addr, kShift, lanes)) return cost_portable_shape<kShift, kLaneBits>(a, addr, ideal);
    }
    wavefronts += n;
    n_way = n > n_way ? n : n_way;
  }
  return make_cost(wavefronts, ideal, n_way);
}
#undef BANKSCOPE_NEG_COUNT
#undef BANKSCOPE_CMP
#undef BANKSCOPE_EXT

static AccessCost cost_portable(const WarpAccess& a, const uint32_t* addr) {
  if (a.mask == 0) return AccessCost{};  // nothing issues (R5)
  if (a.width <= 4) return cost_portable_fast<2, 5>(a, addr, 1);  // one phase: the commonest shape
  const Shape s = shape_of(a);
  switch (s.shift * 8 + s.lane_bits) {
    case 2 * 8 + 5: return cost_portable_fast<2, 5>(a, addr, s.ideal);  // 1, 2, 4 bytes
    case 3 * 8 + 4: return cost_portable_fast<3, 4>(a, addr, s.ideal);  // 8 bytes
    case 3 * 8 + 5: return cost_portable_fast<3, 5>(a, addr, s.ideal);  // 8-byte loads under R6
    case 4 * 8 + 3: return cost_portable_fast<4, 3>(a, addr, s.ideal);  // 16 bytes
    case 4 * 8 + 4: return cost_portable_fast<4, 4>(a, addr, s.ideal);  // 16-byte loads under R6
    default: break;
  }
  assert(false && "shape_of(): no other shape for the default geometry");
  return run<false>(a, BankConfig{}, nullptr);
}

// The same count for the default geometry with AVX-512: no table, no loop over lanes, no branch
// on the addresses. Used where the CPU has AVX-512 F/CD/BW/VL/DQ and VPOPCNTDQ (Intel Ice Lake and
// later, AMD Zen 4 and later); elsewhere cost_default_avx2() or cost_portable(). Why each step is exact:
//  1. key = unit | phase << 30. A unit is the byte address >> 2..4, so below 2^30, and a phase id
//     is 0..3: two lanes share a key exactly when they read the same unit in the same phase.
//  2. Inactive lanes take the key of the first active lane. They then repeat a key that is counted
//     anyway, so the distinct keys of all 32 lanes are the distinct keys of the active lanes (R5).
//  3. Distinct keys: vpconflictd gives, per element of a 16-lane vector, the mask of earlier
//     elements with the same value. The two halves of the warp directly; across the halves, four
//     more on [8 low lanes, 8 high lanes], which together pair every low lane with every high lane.
//     A lane is "first" when no earlier lane has its key: one first lane per distinct key.
//  4. ext = phase << group_bits | bank group (32, 16 or 8 groups of width/4 banks). A phase serves
//     at least as many lanes as there are groups (R3: 128 / width lanes, or twice that with R6), so
//     phases x groups <= 32 and ext fits in 5 bits. From the five
//     bit-planes of ext (lane masks of "bit k of ext is set") the lanes of ext value e are the AND
//     over k of plane k where bit k of e is set, else its complement: 32 masks, one vector lane per
//     e. popcount(first & mask of e) is the number of distinct units group e serves in its phase.
//  5. Per phase the busiest group sets the wavefronts (R3, R4); a phase without active lanes has no
//     lane with its phase id, so all its groups count 0 and it adds nothing.
#ifdef BANKSCOPE_X86_PATHS
__attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512dq,avx512vpopcntdq")))
// `addr`: the lanes' byte offsets, a.addr.data() for cost(); cost_rows() passes its row (equal to
// a.addr), so that these vector loads do not wait on the copy into `a`.
static AccessCost cost_default_avx512(const WarpAccess& a, const uint32_t* addr) {
  const BankConfig cfg;
  if (a.mask == 0) return AccessCost{};  // nothing issues
  // Up to 4 bytes (one bank): one phase of all 32 lanes (R3; R6 concerns wider loads only), so an
  // ideal of 1 (R4), without the rules' phase loop and its division (measured: about a fifth of
  // this path's time on random 4-byte warps, the trace report's worst case). The same numbers.
  int ideal = 1, per = kWarpSize;
  if (a.width > 4) {
    uint32_t phase_mask[kWarpSize];
    ideal = rules::ideal_wavefronts(a, cfg, rules::phases(a, cfg, phase_mask));
    per = rules::phase_lanes(a, cfg);  // 32, 16 or 8 lanes
  }
  assert((per == 32 || per == 16 || per == 8) && "phase_lanes() of a valid default-geometry access");
  const int lane_bits = per == 32 ? 5 : (per == 16 ? 4 : 3);
  const int shift = a.width <= 4 ? 2 : (a.width == 8 ? 3 : 4);
  const int group_bits = 7 - shift;  // 32, 16 or 8 groups of width/4 banks
  const uint32_t group_mask = (1u << group_bits) - 1u;

  // 1. key and ext per lane; 2. inactive lanes copy the first active lane.
  const int f = __builtin_ctz(a.mask);
  const uint32_t f_unit = addr[f] >> shift;
  const uint32_t f_phase = static_cast<uint32_t>(f >> lane_bits);
  const __m512i f_key = _mm512_set1_epi32(static_cast<int>(f_unit | f_phase << 30));
  const __m512i f_ext = _mm512_set1_epi32(static_cast<int>((f_unit & group_mask) | f_phase << group_bits));
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i key[2], ext[2];
  for (int h = 0; h < 2; ++h) {
    const __m512i unit =
        _mm512_srl_epi32(_mm512_loadu_si512(addr + 16 * h), _mm_cvtsi32_si128(shift));
    const __m512i phase = _mm512_srl_epi32(_mm512_add_epi32(iota, _mm512_set1_epi32(16 * h)),
                                           _mm_cvtsi32_si128(lane_bits));
    const __mmask16 active = static_cast<__mmask16>(a.mask >> (16 * h));
    key[h] = _mm512_mask_mov_epi32(f_key, active, _mm512_or_si512(unit, _mm512_slli_epi32(phase, 30)));
    ext[h] = _mm512_mask_mov_epi32(
        f_ext, active,
        _mm512_or_si512(_mm512_and_si512(unit, _mm512_set1_epi32(static_cast<int>(group_mask))),
                        _mm512_sll_epi32(phase, _mm_cvtsi32_si128(group_bits))));
  }

  // 3. Lanes that repeat an earlier lane's key.
  const __m512i lo = key[0], hi = key[1];
  const __m512i c_lo = _mm512_conflict_epi32(lo), c_hi = _mm512_conflict_epi32(hi);
  // In [lo 0-7, hi 0-7], [lo 8-15, hi 0-7], [lo 0-7, hi 8-15] and [lo 8-15, hi 8-15], conflict bits
  // 0-7 of elements 8-15 are a high lane's matches among low lanes.
  const __m512i low8 = _mm512_set1_epi32(0xff);
  const uint32_t x1 = _mm512_test_epi32_mask(_mm512_conflict_epi32(_mm512_shuffle_i64x2(lo, hi, 0x44)), low8);
  const uint32_t x2 = _mm512_test_epi32_mask(_mm512_conflict_epi32(_mm512_shuffle_i64x2(lo, hi, 0x4e)), low8);
  const uint32_t x3 = _mm512_test_epi32_mask(_mm512_conflict_epi32(_mm512_shuffle_i64x2(lo, hi, 0xe4)), low8);
  const uint32_t x4 = _mm512_test_epi32_mask(_mm512_conflict_epi32(_mm512_shuffle_i64x2(lo, hi, 0xee)), low8);
  const uint32_t dup_lo = _mm512_test_epi32_mask(c_lo, c_lo);
  const uint32_t dup_hi = _mm512_test_epi32_mask(c_hi, c_hi) | (x1 | x2) >> 8 | ((x3 | x4) & 0xff00u);
  const uint32_t first = ~(dup_lo | dup_hi << 16);

  // 4. Bit-planes of ext (packed to bytes: one test per plane), then per ext value its first lanes.
  const __m256i ext8 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(ext[0])),
                                               _mm512_cvtepi32_epi8(ext[1]), 1);
  __m512i g0 = _mm512_set1_epi32(static_cast<int>(first));  // ext values 0-15
  __m512i g1 = g0;                                           // ext values 16-31
  for (int k = 0; k < 4; ++k) {
    const __m512i plane = _mm512_set1_epi32(
        static_cast<int>(_mm256_test_epi8_mask(ext8, _mm256_set1_epi8(static_cast<char>(1 << k)))));
    const __m512i bit_k_of_e = _mm512_srai_epi32(_mm512_slli_epi32(iota, 31 - k), 31);  // 0 or ~0
    // ternary-logic 0x90 is a & ~(b ^ c): keep the lanes whose bit k agrees with e's.
    g0 = _mm512_ternarylogic_epi32(g0, plane, bit_k_of_e, 0x90);
    g1 = _mm512_ternarylogic_epi32(g1, plane, bit_k_of_e, 0x90);
  }
  const __m512i plane4 = _mm512_set1_epi32(static_cast<int>(_mm256_test_epi8_mask(ext8, _mm256_set1_epi8(16))));
  g0 = _mm512_andnot_si512(plane4, g0);  // bit 4 of e is 0 for e < 16 ...
  g1 = _mm512_and_si512(plane4, g1);     // ... and 1 above
  __m512i m0 = _mm512_popcnt_epi32(g0), m1 = _mm512_popcnt_epi32(g1);

  // 5. Per phase the busiest of its 2^group_bits consecutive ext values; the sum over phases.
  if (group_bits == 5) {  // one phase of 32 groups
    const int n = static_cast<int>(_mm512_reduce_max_epu32(_mm512_max_epu32(m0, m1)));
    return make_cost(n, ideal, n);
  }
  // Max with ext ^ 1, ^ 2, ^ 4 (and ^ 8 for 16 groups): every lane then holds its phase's maximum.
  m0 = _mm512_max_epu32(m0, _mm512_shuffle_epi32(m0, _MM_PERM_CDAB));  // ^ 1
  m1 = _mm512_max_epu32(m1, _mm512_shuffle_epi32(m1, _MM_PERM_CDAB));
  m0 = _mm512_max_epu32(m0, _mm512_shuffle_epi32(m0, _MM_PERM_BADC));  // ^ 2
  m1 = _mm512_max_epu32(m1, _mm512_shuffle_epi32(m1, _MM_PERM_BADC));
  m0 = _mm512_max_epu32(m0, _mm512_shuffle_i64x2(m0, m0, 0xb1));       // ^ 4
  m1 = _mm512_max_epu32(m1, _mm512_shuffle_i64x2(m1, m1, 0xb1));
  if (group_bits == 4) {
    m0 = _mm512_max_epu32(m0, _mm512_shuffle_i64x2(m0, m0, 0x4e));  // ^ 8
    m1 = _mm512_max_epu32(m1, _mm512_shuffle_i64x2(m1, m1, 0x4e));
  }
  alignas(64) uint32_t busiest[kWarpSize];
  _mm512_store_si512(busiest, m0);
  _mm512_store_si512(busiest + 16, m1);
  int wavefronts = 0, n_way = 0;
  for (int e = 0; e < kWarpSize; e += 1 << group_bits) {
    const int n = static_cast<int>(busiest[e]);
    wavefronts += n;
    n_way = std::max(n_way, n);
  }
  return make_cost(wavefronts, ideal, n_way);
}

// cost_rows() with AVX-512: the row checks as two vector compares per half warp, and the row's
// vectors read from the row itself. Measured here: the Python batch's earlier loop (a scalar check
// and copy per lane, then cost()) spent about a third of its time in the check and copy, and 32
// scalar stores followed by 64-byte loads of them defeat store forwarding.
__attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512dq,avx512vpopcntdq")))
static size_t cost_rows_avx512(WarpAccess a, const uint32_t* addr, const uint32_t* masks, bool one_mask,
                               size_t n, uint32_t limit, int32_t* wavefronts, int32_t* bank_conflicts) {
  const __m512i too_far = _mm512_set1_epi32(static_cast<int>(limit));
  const __m512i align = _mm512_set1_epi32(a.width - 1);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t* row = addr + i * kWarpSize;
    const uint32_t mask = one_mask ? masks[0] : masks[i];
    const __m512i lo = _mm512_loadu_si512(row), hi = _mm512_loadu_si512(row + 16);
    const uint32_t out_of_range =
        _mm512_cmpge_epu32_mask(lo, too_far) | _mm512_cmpge_epu32_mask(hi, too_far);
    const uint32_t misaligned = _mm512_mask_test_epi32_mask(static_cast<__mmask16>(mask), lo, align) |
                                _mm512_mask_test_epi32_mask(static_cast<__mmask16>(mask >> 16), hi, align);
    if ((out_of_range | misaligned) != 0) return i;
    // The rules (phases, R6's pairs) read a.addr: copied with two vector stores; the vector loads
    // in cost_default_avx512 read the row itself.
    _mm512_storeu_si512(a.addr.data(), lo);
    _mm512_storeu_si512(a.addr.data() + 16, hi);
    a.mask = mask;
    const AccessCost c = cost_default_avx512(a, row);
    wavefronts[i] = c.wavefronts;
    bank_conflicts[i] = c.bank_conflicts();
  }
  return n;
}
#endif


#ifdef BANKSCOPE_X86_PATHS
#define BANKSCOPE_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt,lzcnt")))  // cost_path_supported()

// The AVX2 path: the shortcuts of the portable path (a constant stride, one unit), a count of lanes
// per (phase, bank group) with no loop over lanes and no branch on the addresses, and one check.
// 1-, 2- and 4-byte accesses (one phase, 32 banks) count with 4-bit counters made by vpsllvq
// (one_phase_busiest_avx2(), cost_avx2_words()); 8- and 16-byte ones as below.
//  - ext = bank group | phase << lane_bits (lane_bits = log2 of the phase's lanes, so phase p's
//    groups are the bytes p * per.. of 32; a group index is below per, since phases x groups <=
//    32). Inactive lanes take key 0xff, which no ext equals.
//  - ext_counts() (below): per ext, how many lanes hold it.
//  - The main route (cost_avx2_shape) counts every active lane: per (phase, group) an upper bound
//    on its distinct units, equal to it when the group's lanes are on pairwise different units. A
//    phase costs its busiest count exactly when one group with that count has no two lanes on one
//    unit (every other group has at most that many distinct units); that one group is checked, and
//    a shared unit sends the warp to the route with the dedupe.
//  - The dedupe route (cost_default_avx2_dedupe): one lane per distinct key, key = unit | phase <<
//    (16 - phase_bits) as 16 bits (the unit must fit beside the phase bits, and 0xffff is kept for
//    inactive lanes and for the padding; a unit too large for that, i.e. an address at or beyond
//    256 KiB / 2^phase_bits, takes the portable path). Lanes 0-15 and 16-31 sit in two vectors;
//    comparing each with the 32-lane sequence shifted down by r = 1..31 (padded with 0xffff) marks
//    every lane that has an equal key at a higher lane. The unmarked active lanes are the last of
//    their key: one per distinct key. Skipped when the units of all 32 lanes strictly increase
//    (then all keys differ). Then ext_counts() of those lanes' ext: distinct units per group.

#define BANKSCOPE_DUP_STEP(R)                                                                   \
  do {                                                                                          \
    __m256i wa, wb;                                                                             \
    if constexpr ((R) < 8) {                                                                    \
      wa = _mm256_alignr_epi8(mid_a, key_a, 2 * ((R) & 7));                                     \
      wb = _mm256_alignr_epi8(mid_b, key_b, 2 * ((R) & 7));                                     \
    } else if constexpr ((R) == 8) {                                                            \
      wa = mid_a;                                                                               \
      wb = mid_b;                                                                               \
    } else {                                                                                    \
      wa = _mm256_alignr_epi8(key_b, mid_a, 2 * ((R) & 7));                                     \
      wb = _mm256_alignr_epi8(pad, mid_b, 2 * ((R) & 7));                                       \
    }                                                                                           \
    dup_a = _mm256_or_si256(dup_a, _mm256_or_si256(_mm256_cmpeq_epi16(key_a, wa),               \
                                                   _mm256_cmpeq_epi16(key_a, wb)));             \
    dup_b = _mm256_or_si256(dup_b, _mm256_cmpeq_epi16(key_b, wb));                              \
  } while (0)

// The keys of 32 lanes (below 256 each, one per 32-bit element) as 32 bytes, each group of four
// lanes (0-3, 4-7, ...) in one dword but the dwords not in lane order (packus works per 128-bit
// half); in_lane_order() puts them in order. ext_counts() does not need the order.
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline __m256i pack_keys(const __m256i (&key)[4]) {
  return _mm256_packus_epi16(_mm256_packus_epi32(key[0], key[1]), _mm256_packus_epi32(key[2], key[3]));
}
// A pack_keys() result in lane order: its dwords hold lanes 0-3, 8-11, 16-19, 24-27, 4-7, 12-15,
// 20-23, 28-31.
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline __m256i in_lane_order(const __m256i packed) {
  return _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// Per ext value 0..31, how many of the 32 key bytes of k8 hold it (any lane order; keys from 32 up
// count nowhere). Each dword m of k8 (four lanes' keys) is broadcast and compared with four
// constant vectors (c = 0..3) whose four bytes of dword m hold one ext, E(c, m) = 16 (c >> 1) + 8 (m
// >> 2) + 4 (c & 1) + (m & 3): the four bytes of dword m of accumulator c sum to the lanes on E(c,
// m) (at most 32). That is 32 compares for the 32 x 32 (lane, ext) pairs and 10 shuffles; comparing
// the keys with their 31 rotations (the earlier count) took 31 shuffles, and the shuffle ports were
// its bottleneck (measured here, AMD EPYC Zen 3: random 4-byte warps 22-27 M/s before, see README
// for after). E is chosen so that the sums come out as words in ext order: ext 0-7 in the low
// 128-bit half of *h01, 8-15 in its high half, 16-23 and 24-31 in *h23's.
#define BANKSCOPE_EXT_PAIR(SRC, IMM0, IMM1, C)                                                       \
  _mm256_add_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi32(SRC, IMM0), C),                              \
                  _mm256_cmpeq_epi8(_mm256_shuffle_epi32(SRC, IMM1), C))
// Minus the count of ext 8c + m in the four bytes of dword m (a sum of -1 per match, as a tree:
// three adds deep instead of a chain of eight).
#define BANKSCOPE_EXT_ACC(C)                                                                          \
  _mm256_add_epi8(_mm256_add_epi8(BANKSCOPE_EXT_PAIR(lo, 0x00, 0x55, C), BANKSCOPE_EXT_PAIR(lo, 0xaa, 0xff, C)), \
                  _mm256_add_epi8(BANKSCOPE_EXT_PAIR(hi, 0x00, 0x55, C), BANKSCOPE_EXT_PAIR(hi, 0xaa, 0xff, C)))
// The counts as 16-bit words, negated, in ext order (see above; maddubs sums byte pairs, hadd
// adjacent pairs).
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline void ext_counts_neg16(const __m256i k8, __m256i* h01,
                                                                                        __m256i* h23) {
  const __m256i lo = _mm256_permute2x128_si256(k8, k8, 0x00), hi = _mm256_permute2x128_si256(k8, k8, 0x11);
  const __m256i ext0 = _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10,
                                        10, 10, 11, 11, 11, 11);
  const __m256i ext1 = _mm256_add_epi8(ext0, _mm256_set1_epi8(4));
  const __m256i ext2 = _mm256_add_epi8(ext0, _mm256_set1_epi8(16));
  const __m256i ext3 = _mm256_add_epi8(ext0, _mm256_set1_epi8(20));
  const __m256i ones = _mm256_set1_epi8(1);  // maddubs: unsigned first operand, signed second
  *h01 = _mm256_hadd_epi16(_mm256_maddubs_epi16(ones, BANKSCOPE_EXT_ACC(ext0)),
                           _mm256_maddubs_epi16(ones, BANKSCOPE_EXT_ACC(ext1)));
  *h23 = _mm256_hadd_epi16(_mm256_maddubs_epi16(ones, BANKSCOPE_EXT_ACC(ext2)),
                           _mm256_maddubs_epi16(ones, BANKSCOPE_EXT_ACC(ext3)));
}
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline __m256i ext_counts(const __m256i k8) {
  __m256i h01, h23;
  ext_counts_neg16(k8, &h01, &h23);
  const __m256i zero = _mm256_setzero_si256();
  // packus interleaves the halves: ext 0-7, 16-23 | 8-15, 24-31; the permute puts them in order.
  return _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_sub_epi16(zero, h01), _mm256_sub_epi16(zero, h23)),
                                  0xd8);
}
#undef BANKSCOPE_EXT_ACC
#undef BANKSCOPE_EXT_PAIR

// The busiest count of each phase, in the first byte of its 8, 16 or 32 bytes of counts (per 128-bit
// half: for 32-lane phases the max of bytes 0 and 16).
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline __m256i phase_max(__m256i m, int per) {
  m = _mm256_max_epu8(m, _mm256_srli_si256(m, 1));
  m = _mm256_max_epu8(m, _mm256_srli_si256(m, 2));
  m = _mm256_max_epu8(m, _mm256_srli_si256(m, 4));
  if (per >= 16) m = _mm256_max_epu8(m, _mm256_srli_si256(m, 8));
  return m;
}

// Whether a full warp's units step by one constant d (returned in *d), as affine_cost() needs.
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline bool constant_stride(const uint32_t* addr, int shift,
                                                                                       uint32_t* d) {
  const __m128i sh = _mm_cvtsi32_si128(shift);
  *d = (addr[1] >> shift) - (addr[0] >> shift);
  const __m256i vd = _mm256_set1_epi32(static_cast<int>(*d));
  // Lanes i + 1 - i for i = 0..30 (the last vector takes 23..30 and 24..31).
  __m256i same = _mm256_set1_epi32(-1);
  for (int k = 0; k < 4; ++k) {
    const int at = k < 3 ? 8 * k : 23;
    const __m256i cur = _mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + at)), sh);
    const __m256i next = _mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + at + 1)), sh);
    same = _mm256_and_si256(same, _mm256_cmpeq_epi32(_mm256_sub_epi32(next, cur), vd));
  }
  return _mm256_movemask_epi8(same) == -1 && *d < 0x80000000u;
}

// Whether the lanes of one busiest group are on pairwise different units: the group is the first
// ext whose byte of at_max (the counts equal to the busiest) is set within ext_bits (its phase's
// 32 or 16 bytes), its lanes those whose key byte in k8 (pack_keys() order) is that ext.
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline bool busiest_distinct(const uint32_t* addr, int shift,
                                                                                        __m256i k8, __m256i at_max,
                                                                                        uint32_t ext_bits) {
  const int e = __builtin_ctz(static_cast<uint32_t>(_mm256_movemask_epi8(at_max)) & ext_bits);
  const uint32_t lanes = static_cast<uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpeq_epi8(in_lane_order(k8), _mm256_set1_epi8(static_cast<char>(e)))));
  return units_distinct(addr, shift, lanes);
}

// The route with the dedupe; cost_default_avx2() below sends a warp here when the lane count of
// its busiest group is not its count of distinct units.
BANKSCOPE_TARGET_AVX2 __attribute__((noinline))
static AccessCost cost_default_avx2_dedupe(const WarpAccess& a, const uint32_t* addr) {
  const uint32_t mask = a.mask;
  if (mask == 0) return AccessCost{};  // nothing issues (R5)
  const Shape s = shape_of(a);  // a full warp at a constant stride too (the scattered routes do not look for it)
  const int phase_bits = 5 - s.lane_bits;
  const __m128i shift = _mm_cvtsi32_si128(s.shift);
  const __m128i lane_bits = _mm_cvtsi32_si128(s.lane_bits);
  const __m128i key_phase = _mm_cvtsi32_si128(16 - phase_bits);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i group_mask = _mm256_set1_epi32((1 << s.group_bits) - 1);
  const __m256i phase_of = _mm256_set1_epi32(~(s.per - 1));
  const __m256i unit_limit = _mm256_set1_epi32((1 << (16 - phase_bits)) - 2);
  const __m256i vmask = _mm256_set1_epi32(static_cast<int>(mask));
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i unit[4], active[4], ext[4], lane[4], phase[4];
  __m256i too_far = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) {
    lane[k] = _mm256_add_epi32(iota, _mm256_set1_epi32(8 * k));
    phase[k] = _mm256_srl_epi32(lane[k], lane_bits);
    const __m256i bit = _mm256_sllv_epi32(one, lane[k]);
    active[k] = _mm256_cmpeq_epi32(_mm256_and_si256(vmask, bit), bit);
    unit[k] = _mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * k)), shift);
    ext[k] = _mm256_or_si256(_mm256_and_si256(unit[k], group_mask), _mm256_and_si256(lane[k], phase_of));
    too_far = _mm256_or_si256(too_far, _mm256_and_si256(active[k], _mm256_cmpgt_epi32(unit[k], unit_limit)));
  }
  // All active lanes on one unit: one wavefront per active phase.
  const __m256i u0 = _mm256_set1_epi32(static_cast<int>(addr[__builtin_ctz(mask)] >> s.shift));
  __m256i differ = _mm256_setzero_si256();
  for (int k = 0; k < 4; ++k) differ = _mm256_or_si256(differ, _mm256_andnot_si256(_mm256_cmpeq_epi32(unit[k], u0), active[k]));
  if (_mm256_testz_si256(differ, differ)) return make_cost(s.ideal, s.ideal, 1);

  uint32_t first = mask;  // one active lane per distinct key
  // Strictly increasing units over all 32 lanes: lanes i and i + 1 for i = 0..30 (the last vector
  // compares 23..30 with 24..31).
  __m256i increasing = _mm256_cmpgt_epi32(unit[3], _mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 23)), shift));
  for (int k = 0; k < 3; ++k) {
    const __m256i next = _mm256_srl_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * k + 1)), shift);
    increasing = _mm256_and_si256(increasing, _mm256_cmpgt_epi32(next, unit[k]));
  }
  if (_mm256_movemask_epi8(increasing) != -1) {  // else all 32 units differ
    if (!_mm256_testz_si256(too_far, too_far)) return cost_portable(a, addr);
    const __m256i inactive_key = _mm256_set1_epi32(0xffff);
    __m256i key[4];
    for (int k = 0; k < 4; ++k) {
      key[k] = _mm256_blendv_epi8(inactive_key, _mm256_or_si256(unit[k], _mm256_sll_epi32(phase[k], key_phase)), active[k]);
    }
    // 32 -> 16 bits; packus works per 128-bit half, the permute restores lane order.
    const __m256i key_a = _mm256_permute4x64_epi64(_mm256_packus_epi32(key[0], key[1]), 0xd8);  // lanes 0-15
    const __m256i key_b = _mm256_permute4x64_epi64(_mm256_packus_epi32(key[2], key[3]), 0xd8);  // lanes 16-31
    const __m256i pad = _mm256_set1_epi16(-1);
    const __m256i mid_a = _mm256_permute2x128_si256(key_a, key_b, 0x21);  // lanes 8-23
    const __m256i mid_b = _mm256_permute2x128_si256(key_b, pad, 0x21);    // lanes 24-31, padding
    __m256i dup_a = _mm256_cmpeq_epi16(key_a, key_b);  // r = 16
    __m256i dup_b = _mm256_setzero_si256();
    BANKSCOPE_DUP_STEP(1); BANKSCOPE_DUP_STEP(2); BANKSCOPE_DUP_STEP(3); BANKSCOPE_DUP_STEP(4);
    BANKSCOPE_DUP_STEP(5); BANKSCOPE_DUP_STEP(6); BANKSCOPE_DUP_STEP(7); BANKSCOPE_DUP_STEP(8);
    BANKSCOPE_DUP_STEP(9); BANKSCOPE_DUP_STEP(10); BANKSCOPE_DUP_STEP(11); BANKSCOPE_DUP_STEP(12);
    BANKSCOPE_DUP_STEP(13); BANKSCOPE_DUP_STEP(14); BANKSCOPE_DUP_STEP(15);
    const __m256i dup8 = _mm256_permute4x64_epi64(_mm256_packs_epi16(dup_a, dup_b), 0xd8);
    first = mask & ~static_cast<uint32_t>(_mm256_movemask_epi8(dup8));
  }

  // Distinct units per (phase, group): ext_counts() of the first lanes' ext (0xff for the others).
  const __m256i vfirst = _mm256_set1_epi32(static_cast<int>(first));
  const __m256i uncounted = _mm256_set1_epi32(0xff);
  __m256i key2[4];
  for (int k = 0; k < 4; ++k) {
    const __m256i bit = _mm256_sllv_epi32(one, lane[k]);
    key2[k] = _mm256_blendv_epi8(uncounted, ext[k], _mm256_cmpeq_epi32(_mm256_and_si256(vfirst, bit), bit));
  }
  alignas(32) uint8_t busiest[kWarpSize];
  _mm256_store_si256(reinterpret_cast<__m256i*>(busiest), phase_max(ext_counts(pack_keys(key2)), s.per));
  if (s.per == 32) {
    const int n = busiest[0] > busiest[16] ? busiest[0] : busiest[16];
    return make_cost(n, s.ideal, n);
  }
  int wavefronts = 0, n_way = 0;
  for (int p = 0; p < kWarpSize; p += s.per) {
    wavefronts += busiest[p];
    n_way = busiest[p] > n_way ? busiest[p] : n_way;
  }
  return make_cost(wavefronts, s.ideal, n_way);
}

// The keys of lanes 8k..8k+7 for the main route: ext = bank group | phase << lane_bits, 0xff for an
// inactive lane.
template <int kShift, int kLaneBits>
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline __m256i lane_keys(const uint32_t* addr, int k,
                                                                                    uint32_t mask) {
  constexpr int kPer = 1 << kLaneBits, kGroupBits = 7 - kShift;
  const __m256i unit = _mm256_srli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * k)), kShift);
  __m256i key = _mm256_and_si256(unit, _mm256_set1_epi32((1 << kGroupBits) - 1));
  const __m256i lane = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(8 * k));
  if (kPer < kWarpSize) key = _mm256_or_si256(key, _mm256_and_si256(lane, _mm256_set1_epi32(~(kPer - 1))));
  if (mask != 0xffffffffu) {
    const __m256i bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), lane);
    const __m256i inactive = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(mask)), bit),
                                                _mm256_setzero_si256());
    key = _mm256_or_si256(key, _mm256_and_si256(inactive, _mm256_set1_epi32(0xff)));
  }
  return key;
}

// The count for one phase of 32 lanes at 4-byte units (1-, 2- and 4-byte accesses) with 4-bit
// counters, in place of ext_counts()'s 32 x 32 compares: a lane on bank b (byte address & 0x7c is
// 4 b) adds 1 to nibble b of a 128-bit counter held as two 64-bit halves (banks 0-15, 16-31) in each
// vector element; vpsllvq makes the nibble (1 << 4 b in the low half, 1 << (4 b - 64) in the high
// half; a shift of 64 or more, the other half or an inactive lane's 0x80, gives 0). The even and
// odd lane of each element are added, then the four groups of eight lanes: 8 lanes per element at
// most, below the 15 a nibble holds. The nibbles are widened to bytes and the four elements summed,
// each count becomes the word (60 - count) << 8 | 4 bank, and phminposuw names the busiest count and
// one bank with it. Returns that count and, in *lanes, the active lanes on that bank (for the check
// that they are on distinct units). Random 4-byte warps: 39.9 -> 42.0 M/s here (Zen 3, best of
// three alternating runs, assets/results/cpu/model_bench_compare.txt of round 10).
template <bool kFull>
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline int one_phase_busiest_avx2(const uint32_t* addr,
                                                                                            uint32_t mask,
                                                                                            uint32_t* lanes) {
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256i c64 = _mm256_set1_epi64x(64);
  __m256i off[4] = {};
  if (!kFull) {
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int g = 0; g < 4; ++g) {
      const __m256i bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_add_epi32(iota, _mm256_set1_epi32(8 * g)));
      off[g] = _mm256_and_si256(
          _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(mask)), bit), _mm256_setzero_si256()),
          _mm256_set1_epi32(0x80));
    }
  }
  // The sums as pairs of groups of eight lanes, then the two pairs: as a tree of four (GCC
  // reassociates them unless the empty asm holds each pair's sum) they kept eight vectors live and
  // spilled six to the stack; one group at a time (round 15) put three adds in a row on the path.
  // key[g]: byte address & 0x7c (4 x bank) of lanes 8g..8g+7, for the nibble shifts and, packed to
  // bytes, for the busiest bank's lanes below.
  __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();  // the pair of groups 2g' and 2g' + 1
  __m256i lo_sum = _mm256_setzero_si256(), hi_sum = _mm256_setzero_si256();
  __m256i key[4];
  for (int g = 0; g < 4; ++g) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * g));
    key[g] = _mm256_and_si256(x, _mm256_set1_epi32(0x7c));
    __m256i se = _mm256_and_si256(key[g], _mm256_set1_epi64x(0xffffffff)), so = _mm256_srli_epi64(key[g], 32);
    if (!kFull) {
      se = _mm256_or_si256(se, _mm256_and_si256(off[g], _mm256_set1_epi64x(0xffffffff)));
      so = _mm256_or_si256(so, _mm256_srli_epi64(off[g], 32));
    }
    const __m256i l = _mm256_add_epi64(_mm256_sllv_epi64(one, se), _mm256_sllv_epi64(one, so));
    const __m256i h = _mm256_add_epi64(_mm256_sllv_epi64(one, _mm256_sub_epi64(se, c64)),
                                       _mm256_sllv_epi64(one, _mm256_sub_epi64(so, c64)));
    if (g % 2 == 0) {
      lo = l;
      hi = h;
    } else {
      lo = _mm256_add_epi64(lo, l);
      hi = _mm256_add_epi64(hi, h);
      __asm__("" : "+x"(lo), "+x"(hi));  // no code: only holds the order
      lo_sum = _mm256_add_epi64(lo_sum, lo);
      hi_sum = _mm256_add_epi64(hi_sum, hi);
    }
  }
  // Each element's 16 nibbles as bytes, complemented (15 - nibble: andnot), the four elements
  // summed: the low and high 64 bits of each 128-bit half first (t and u pair banks 0-15 with
  // 16-31), then the halves. inv_e byte j: 60 - the count of bank 2j (j < 8) or 2 (j - 8) + 16;
  // inv_o byte j: the same for the bank after that one. Round 16: the complement in the andnot in
  // place of a later xor, and the halves summed into 128-bit vectors in place of 256-bit counts
  // reduced after the words were made; each left a step of the path to the result
  // (assets/results/cpu/cost_ir.txt).
  const __m256i low4 = _mm256_set1_epi8(0x0f);
  const __m256i t = _mm256_unpacklo_epi64(lo_sum, hi_sum), u = _mm256_unpackhi_epi64(lo_sum, hi_sum);
  const __m256i even = _mm256_add_epi8(_mm256_andnot_si256(t, low4), _mm256_andnot_si256(u, low4));
  const __m256i odd = _mm256_add_epi8(_mm256_andnot_si256(_mm256_srli_epi64(t, 4), low4),
                                      _mm256_andnot_si256(_mm256_srli_epi64(u, 4), low4));
  const __m128i inv_e = _mm_add_epi8(_mm256_castsi256_si128(even), _mm256_extracti128_si256(even, 1));
  const __m128i inv_o = _mm_add_epi8(_mm256_castsi256_si128(odd), _mm256_extracti128_si256(odd, 1));
  // Each as the word (60 - count) << 8 | 4 bank (one unpack with the constant bytes 4 bank): the
  // least word names the busiest count and, in its low byte, 4 x a bank with it (phminposuw), the
  // byte the lane keys are compared with.
  const __m128i key_e = _mm_setr_epi8(0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120);
  const __m128i key_o = _mm_or_si128(key_e, _mm_set1_epi8(4));
  const __m128i w = _mm_min_epu16(_mm_min_epu16(_mm_unpacklo_epi8(key_e, inv_e), _mm_unpackhi_epi8(key_e, inv_e)),
                                  _mm_min_epu16(_mm_unpacklo_epi8(key_o, inv_o), _mm_unpackhi_epi8(key_o, inv_o)));
  const __m128i least = _mm_minpos_epu16(w);
  // The lanes on that bank: byte address & 0x7c (4 x bank) of each lane, as bytes in lane order.
  const __m256i keys =
      in_lane_order(_mm256_packs_epi16(_mm256_packs_epi32(key[0], key[1]), _mm256_packs_epi32(key[2], key[3])));
  *lanes = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(keys, _mm256_broadcastb_epi8(least)))) &
           (kFull ? ~0u : mask);
  return 60 - static_cast<int>((static_cast<uint32_t>(_mm_cvtsi128_si32(least)) & 0xffffu) >> 8);
}

// The AVX2 path's main route (see above): a full warp at a constant unit stride (rows, columns:
// what tiled kernels issue) by affine_cost(), found by lanes 0, 1 and 31 in scalar code (random
// lanes fail that at once) and confirmed by constant_stride(); else count every active lane per
// (phase, group) and per phase check one busiest group for a shared unit. A busiest group of more
// than 8 lanes goes to the dedupe route rather than compare its lanes pairwise (32 random lanes
// put 9 on one bank about once in 10^5 warps). Templated on the shape, so that shifts and masks
// are constants. Quarter-warp phases (16-byte accesses without R6) take the dedupe route: four
// checks cost more than the dedupe.
template <int kShift, int kLaneBits>
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline AccessCost cost_avx2_shape(const WarpAccess& a, const uint32_t* addr, int ideal) {
  constexpr int kPer = 1 << kLaneBits, kGroupBits = 7 - kShift;
  const uint32_t mask = a.mask;
  const Shape s{kPer, kLaneBits, kShift, kGroupBits, ideal};
  if (mask == 0xffffffffu &&
      (addr[31] >> kShift) - (addr[0] >> kShift) == 31u * ((addr[1] >> kShift) - (addr[0] >> kShift))) {
    uint32_t d = 0;
    if (constant_stride(addr, kShift, &d)) return affine_cost(s, d);
  }
  // Named vectors, not an array: GCC kept an array of them on the stack, and the reloads lengthened
  // the path every later step waits on.
  const __m256i k0 = lane_keys<kShift, kLaneBits>(addr, 0, mask), k1 = lane_keys<kShift, kLaneBits>(addr, 1, mask);
  const __m256i k2 = lane_keys<kShift, kLaneBits>(addr, 2, mask), k3 = lane_keys<kShift, kLaneBits>(addr, 3, mask);
  const __m256i k8 = _mm256_packus_epi16(_mm256_packus_epi32(k0, k1), _mm256_packus_epi32(k2, k3));  // pack_keys()
  if (kPer == kWarpSize) {
    // One phase: its busiest count and one ext with that count from one phminposuw. Each word
    // becomes (63 - count) << 2 | source (the 128-bit half it came from, 0-3), so that the least
    // word names the count and, with its index i, the ext: 8 source + i. The ext stays in a vector
    // register on its way to the lane compare (a trip through a general register and back was on
    // the path that every later step waits on).
    const __m256i klanes = in_lane_order(k8);
    __m256i h01, h23;
    ext_counts_neg16(k8, &h01, &h23);
    const __m256i c63 = _mm256_set1_epi16(63);
    const __m256i v01 = _mm256_or_si256(_mm256_slli_epi16(_mm256_add_epi16(h01, c63), 2),
                                        _mm256_setr_epi16(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
    const __m256i v23 = _mm256_or_si256(_mm256_slli_epi16(_mm256_add_epi16(h23, c63), 2),
                                        _mm256_setr_epi16(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i v = _mm256_min_epu16(v01, v23);
    const __m128i least = _mm_minpos_epu16(_mm_min_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
    const int n = 63 - ((_mm_cvtsi128_si32(least) & 0xffff) >> 2);
    if (n >= 2) {
      if (n > 8) return cost_default_avx2_dedupe(a, addr);  // random lanes rarely put 9 on one bank
      // Word 0: (63 - n) << 2 | source, word 1: index.
      const __m128i e = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(least, _mm_cvtsi32_si128(3)), 3), _mm_srli_si128(least, 2));
      const uint32_t lanes =
          static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(klanes, _mm256_broadcastb_epi8(e))));
      if (!units_distinct(addr, kShift, lanes)) return cost_default_avx2_dedupe(a, addr);
    }
    return make_cost(n, ideal, n);
  }
  const __m256i count = ext_counts(k8);
  const __m256i m = phase_max(count, kPer);
  const int n0 = _mm256_extract_epi8(m, 0), n1 = _mm256_extract_epi8(m, 16);  // half-warp phases
  for (int p = 0; p < 2; ++p) {
    const int n = p == 0 ? n0 : n1;
    if (n < 2) continue;
    const __m256i at_max = _mm256_cmpeq_epi8(count, _mm256_set1_epi8(static_cast<char>(n)));
    if (n > 8 || !busiest_distinct(addr, kShift, k8, at_max, 0xffffu << (16 * p))) return cost_default_avx2_dedupe(a, addr);
  }
  return make_cost(n0 + n1, ideal, n0 > n1 ? n0 : n1);
}

// cost_avx2_words() of a busiest bank of more than four lanes: up to eight compared pairwise
// (units_distinct8_sse2()), else the dedupe. Out of line, and reached by a tail call, so that cost_avx2_words() calls
// nothing that returns to it and needs no frame.
BANKSCOPE_TARGET_AVX2 __attribute__((noinline)) static AccessCost cost_avx2_words_check(const WarpAccess& a,
                                                                                      const uint32_t* addr, int shift,
                                                                                      uint32_t lanes, int n) {
  if (n > 8) return cost_default_avx2_dedupe(a, addr);
  if (!(shift == 0 ? units_distinct8_sse2<0>(addr, lanes, n) : units_distinct8_sse2<2>(addr, lanes, n))) {
    return cost_default_avx2_dedupe(a, addr);
  }
  return make_cost(n, 1, n);
}

// 1-, 2- and 4-byte accesses: one phase of 32 lanes at 4-byte units (the commonest shape, and with
// random lanes the slowest), in two steps: the count, one_phase_busiest_avx2() (the busiest bank's
// lane count and lanes), then (here) the check of those lanes (the count is exact when they are on
// distinct units, see above), else the dedupe. One to four lanes are checked here (one passes: kPairMask[1]
// masks every pair), more out of line, so that every call from here is a tail call and a function
// that ends in it keeps no registers of its caller's. kWord: 4-byte accesses, whose aligned byte
// addresses are equal exactly when their units are (the check compares them unshifted).
template <bool kWord>
BANKSCOPE_TARGET_AVX2 __attribute__((always_inline)) static inline AccessCost words_finish_avx2(const WarpAccess& a,
                                                                                          const uint32_t* addr,
                                                                                          int n, uint32_t lanes) {
  if (n > 4) return cost_avx2_words_check(a, addr, kWord ? 0 : 2, lanes, n);
  if (!units_distinct4_sse2<kWord ? 0 : 2>(addr, lanes, n)) return cost_default_avx2_dedupe(a, addr);
  return make_cost(n, 1, n);
}

// The whole cost of such an access, out of line so that its frame is its own: a full warp at a
// constant stride by affine_cost(), as cost_avx2_shape(); else the two steps above. kAffine: look
// for the constant stride first; without it (plain_cost_fn()'s scattered choice) an evenly spaced
// warp takes the general route, which is exact for any warp, only slower for those.
template <bool kWord, bool kAffine = true>
BANKSCOPE_TARGET_AVX2 __attribute__((noinline)) static AccessCost cost_avx2_words(const WarpAccess& a,
                                                                                const uint32_t* addr) {
  const uint32_t mask = a.mask;
  if (mask == 0) return AccessCost{};  // nothing issues (R5)
  // (4-byte accesses: the filter on byte addresses, which are 4 x their units.)
  constexpr int kFilterShift = kWord ? 0 : 2;
  if (kAffine && mask == 0xffffffffu &&
      (addr[31] >> kFilterShift) - (addr[0] >> kFilterShift) ==
          31u * ((addr[1] >> kFilterShift) - (addr[0] >> kFilterShift))) {
    uint32_t d = 0;
    if (constant_stride(addr, 2, &d)) return affine_cost(Shape{kWarpSize, 5, 2, 5, 1}, d);
  }
  uint32_t lanes = 0;
  const int n = mask == 0xffffffffu ? one_phase_busiest_avx2<true>(addr, mask, &lanes)
                                    : one_phase_busiest_avx2<false>(addr, mask, &lanes);
  return words_finish_avx2<kWord>(a, addr, n, lanes);
}

// The two steps out of line, for split_cost_fn() (the count is the same for every width).
BANKSCOPE_TARGET_AVX2 __attribute__((noinline)) static BusiestLanes words_count_split(const WarpAccess& a,
                                                                                    const uint32_t* addr,
                                                                                    uint32_t* copy) {
  BusiestLanes b;
  if (a.mask != 0) {
    b.n = a.mask == 0xffffffffu ? one_phase_busiest_avx2<true>(addr, a.mask, &b.lanes)
                                : one_phase_busiest_avx2<false>(addr, a.mask, &b.lanes);
  }
  for (int k = 0; k < 4; ++k) {  // after the count, which reads addr as it needs
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(copy + 8 * k),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(addr + 8 * k)));
  }
  return b;
}
// The second step: one to four lanes checked here, five to eight out of line
// (words_check8_split()), the dedupe when they are more or two share a unit; every call a tail
// call. (Through words_finish_avx2(), as cost_avx2_words() takes it, 4 more instructions per
// random execution: callgrind, 46.8 -> 42.7 here.)
template <bool kWord>
BANKSCOPE_TARGET_AVX2 __attribute__((noinline)) static AccessCost words_check8_split(const WarpAccess& a,
                                                                                   const uint32_t* addr,
                                                                                   BusiestLanes b) {
  if (b.n > 8 || !units_distinct8_sse2<kWord ? 0 : 2>(addr, b.lanes, b.n)) return cost_default_avx2_dedupe(a, addr);
  return make_cost(b.n, 1, b.n);
}
template <bool kWord>
BANKSCOPE_TARGET_AVX2 __attribute__((noinline)) static AccessCost words_finish_split(const WarpAccess& a,
                                                                                    const uint32_t* addr,
                                                                                    BusiestLanes b) {
  if (b.n > 4) return words_check8_split<kWord>(a, addr, b);
  if (b.n != 0 && !units_distinct4_sse2<kWord ? 0 : 2>(addr, b.lanes, b.n)) return cost_default_avx2_dedupe(a, addr);
  // One AccessCost built, here alone: with a second (`return AccessCost{}` for n = 0), GCC built
  // both in memory on the stack, with a frame to align it (8 more instructions per random execution).
  return make_cost(b.n, b.n != 0 ? 1 : 0, b.n);  // n = 0: nothing issues (R5)
}

// R8's cost (busiest_cost_portable(), below) with AVX2: the count of cost_avx2_words(), without its
// check, as a PlainCost (atomic_cost_fn()).
BANKSCOPE_TARGET_AVX2 static AccessCost busiest_cost_avx2(const WarpAccess& a, const uint32_t* addr) {
  if (a.mask == 0) return AccessCost{};  // nothing issues (R5)
  uint32_t lanes = 0;
  const int n = a.mask == 0xffffffffu ? one_phase_busiest_avx2<true>(addr, a.mask, &lanes)
                                      : one_phase_busiest_avx2<false>(addr, a.mask, &lanes);
  return make_cost(n, 1, n);
}

BANKSCOPE_TARGET_AVX2
static AccessCost cost_default_avx2(const WarpAccess& a, const uint32_t* addr) {
  if (a.width <= 4) return a.width == 4 ? cost_avx2_words<true>(a, addr) : cost_avx2_words<false>(a, addr);
  if (a.mask == 0) return AccessCost{};  // nothing issues (R5)
  const Shape s = shape_of(a);
  switch (s.shift * 8 + s.lane_bits) {
    case 3 * 8 + 4: return cost_avx2_shape<3, 4>(a, addr, s.ideal);  // 8 bytes
    case 3 * 8 + 5: return cost_avx2_shape<3, 5>(a, addr, s.ideal);  // 8-byte loads under R6
    case 4 * 8 + 4: return cost_avx2_shape<4, 4>(a, addr, s.ideal);  // 16-byte loads under R6
    default: break;                                                    // 16 bytes: quarter-warp phases
  }
  uint32_t d = 0;
  if (a.mask == 0xffffffffu && constant_stride(addr, s.shift, &d)) return affine_cost(s, d);
  return cost_default_avx2_dedupe(a, addr);
}
#undef BANKSCOPE_DUP_STEP

// cost_rows() with AVX2: the row checks as vector compares, the row's vectors read from the row.
BANKSCOPE_TARGET_AVX2
static size_t cost_rows_avx2(WarpAccess a, const uint32_t* addr, const uint32_t* masks, bool one_mask, size_t n,
                             uint32_t limit, int32_t* wavefronts, int32_t* bank_conflicts) {
  const __m256i too_far = _mm256_set1_epi32(static_cast<int>(limit));
  const __m256i align = _mm256_set1_epi32(a.width - 1);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t* row = addr + i * kWarpSize;
    const uint32_t mask = one_mask ? masks[0] : masks[i];
    const __m256i vmask = _mm256_set1_epi32(static_cast<int>(mask));
    __m256i bad = _mm256_setzero_si256();
    for (int k = 0; k < 4; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 8 * k));
      const __m256i bit = _mm256_sllv_epi32(one, _mm256_add_epi32(iota, _mm256_set1_epi32(8 * k)));
      const __m256i active = _mm256_cmpeq_epi32(_mm256_and_si256(vmask, bit), bit);
      const __m256i beyond = _mm256_cmpeq_epi32(_mm256_max_epu32(v, too_far), v);  // v >= limit
      const __m256i misaligned = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(v, align), _mm256_setzero_si256()), active);
      bad = _mm256_or_si256(bad, _mm256_or_si256(beyond, misaligned));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(a.addr.data() + 8 * k), v);
    }
    if (!_mm256_testz_si256(bad, bad)) return i;
    a.mask = mask;
    const AccessCost c = cost_default_avx2(a, row);
    wavefronts[i] = c.wavefronts;
    bank_conflicts[i] = c.bank_conflicts();
  }
  return n;
}
#endif

const char* cost_path_name(CostPath p) {
  switch (p) {
    case CostPath::kAvx512: return "avx512";
    case CostPath::kAvx2: return "avx2";
    case CostPath::kPortable: return "portable";
  }
  return "?";
}

Result<CostPath> parse_cost_path(const std::string& name) {
  for (CostPath p : kCostPaths) {
    if (name == cost_path_name(p)) return p;
  }
  return Error{"BANKSCOPE_SIMD: '" + name + "' is not a cost() path (avx512, avx2 or portable)"};
}

bool cost_path_supported(CostPath p) {
  switch (p) {
    case CostPath::kPortable: return true;
#ifdef BANKSCOPE_X86_PATHS
    case CostPath::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq");
    case CostPath::kAvx2: {
      // LZCNT (the AVX2 path's check) is CPUID 0x80000001 ECX bit 5; Clang's
      // __builtin_cpu_supports does not know it. Every AVX2 CPU of Intel and AMD has it. Asked
      // once: CPUID took about 2 us a call on this VM, and cost_on()'s assert asks per warp.
      static const bool lzcnt = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 5)) != 0;
      }();
      return lzcnt && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
             __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    }
#else
    case CostPath::kAvx512:
    case CostPath::kAvx2: return false;
#endif
  }
  return false;
}

// Chosen once. A bad BANKSCOPE_SIMD ends the process here: cost() has no error channel, and
// running another path than the one a test or bench asked for would make its result a lie. Out of
// line: inlined into cost() (with cost_path()'s guard), it gave every cost() call a large frame.
__attribute__((noinline)) static CostPath choose_cost_path() {
  if (const char* forced = std::getenv("BANKSCOPE_SIMD")) {
    const Result<CostPath> p = parse_cost_path(forced);
    if (!p) {
      std::fprintf(stderr, "bankscope: %s\n", p.error().message.c_str());
      std::exit(2);
    }
    if (!cost_path_supported(*p)) {
      std::fprintf(stderr, "bankscope: BANKSCOPE_SIMD: '%s' is not supported by this CPU or build\n", forced);
      std::exit(2);
    }
    return *p;
  }
  const bool no_avx512 = std::getenv("BANKSCOPE_NO_AVX512") != nullptr;
  return preferred_cost_path(!no_avx512 && cost_path_supported(CostPath::kAvx512),
                             cost_path_supported(CostPath::kAvx2), cpu_is_amd());
}

bool cpu_is_amd() {
#ifdef BANKSCOPE_X86_PATHS
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;  // vendor: EBX, EDX, ECX of leaf 0 spell "AuthenticAMD"
  return __get_cpuid(0, &eax, &ebx, &ecx, &edx) != 0 && ebx == 0x68747541u && edx == 0x69746e65u &&
         ecx == 0x444d4163u;
#else
  return false;
#endif
}

CostPath preferred_cost_path(bool avx512, bool avx2, bool amd) {
  if (avx512 && (amd || !avx2)) return CostPath::kAvx512;
  if (avx2) return CostPath::kAvx2;
  return CostPath::kPortable;
}

// Out of line, for the same reason: the guard of its static stays out of cost()'s frame.
__attribute__((noinline)) CostPath cost_path() {
  static const CostPath p = choose_cost_path();
  return p;
}

const char* cost_implementation() { return cost_path_name(cost_path()); }

namespace {

// R8c: one execution of ATOMS.CAST.SPIN(.64). Phases as a store of the width (R3: the warp for 4
// bytes, half-warps for 8); in each, every bank serves one lane, the lowest active lane on it, and
// the others fail (the loop retries them: that is the count of executions, not this instruction's
// cost). A compare-and-swap pass is two wavefronts, so an execution costs 2 per phase with an active
// lane, with no bank conflict (the l1tex counter reads 0). Measured on the H200
// (kernels/probes/atom_cast.cu, assets/results/h200/2026-12-01x: 40 of 40 launches; fresh batch
// predicted before it ran, 2026-12-01y: 36 of 36). The picture: each phase's two passes carry the
// served lanes' words; every active lane has its result (swapped or not) in the second.
AccessCost cast_spin(const WarpAccess& a, const BankConfig& cfg, AccessReport* rep) {
  uint32_t phase_mask[kWarpSize];
  const int nphases = rules::phases(a, cfg, phase_mask);
  AccessCost c;
  c.wavefronts = 2 * nphases;
  c.ideal_wavefronts = c.wavefronts;
  c.n_way = nphases > 0 ? 1 : 0;
  if (rep == nullptr) return c;
  run<true>(a, cfg, rep);  // lanes, words and banks; the wavefronts are replaced below
  rep->wavefronts.clear();
  const uint32_t nbanks = static_cast<uint32_t>(cfg.banks);
  std::vector<uint32_t> written;  // words swapped by an earlier phase of this execution
  for (int p = 0; p < nphases; ++p) {
    WavefrontDetail pass;
    pass.phase = p;
    uint64_t taken = 0;
    const size_t before = written.size();
    for (uint32_t m = phase_mask[p]; m != 0; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      const LaneDetail& d = rep->lanes[static_cast<size_t>(lane)];
      const uint64_t bit = uint64_t{1} << (d.word[0] % nbanks);
      if (taken & bit) {  // a lower lane has this bank: this lane fails and retries
        rep->lanes[static_cast<size_t>(lane)].retries = true;
        continue;
      }
      taken |= bit;
      // A word an earlier half-warp swapped: this lane's compare value is stale, it fails too.
      if (std::find(written.begin(), written.begin() + static_cast<std::ptrdiff_t>(before), d.word[0]) !=
          written.begin() + static_cast<std::ptrdiff_t>(before)) {
        rep->lanes[static_cast<size_t>(lane)].retries = true;
        continue;
      }
      written.push_back(d.word[0]);
      for (int k = 0; k < d.words; ++k) {
        pass.banks |= uint64_t{1} << d.bank[static_cast<size_t>(k)];
        pass.words.emplace_back(d.bank[static_cast<size_t>(k)], d.word[static_cast<size_t>(k)]);
      }
    }
    rep->wavefronts.push_back(pass);
    pass.lanes = phase_mask[p];
    rep->wavefronts.push_back(pass);
    for (uint32_t m = phase_mask[p]; m != 0; m &= m - 1) {
      rep->lanes[static_cast<size_t>(__builtin_ctz(m))].wavefront = 2 * p + 1;
    }
  }
  rep->cost = c;
  return c;
}

}  // namespace

// R8 for a 4-byte shared atomic of the default geometry other than POPC.INC (R8b), CAS and
// CAST.SPIN (R8c): one phase of 32 lanes (as a 4-byte store), every active lane served alone, lanes
// on one word too, so the phase costs the most active lanes on one bank, with no check for shared
// words. The count is the LDS/STS route's (before its check), on this CPU's path: busiest_cost_avx2()
// (above) and, without AVX2, busiest_cost_portable(); each a PlainCost (atomic_cost_fn()).
static AccessCost busiest_cost_portable(const WarpAccess& a, const uint32_t* addr) {
  if (a.mask == 0) return AccessCost{};  // nothing issues (R5)
  int n = 0;
#if defined(BANKSCOPE_SSE2_COUNT)
  uint32_t lanes = 0;
  n = a.mask == 0xffffffffu ? one_phase_busiest_sse2<true>(addr, a.mask, &lanes)
                            : one_phase_busiest_sse2<false>(addr, a.mask, &lanes);
#else
  int count[kWarpSize] = {};
  for (uint32_t m = a.mask; m != 0; m &= m - 1) {
    const int c = ++count[(addr[__builtin_ctz(m)] >> 2) & 31u];
    n = c > n ? c : n;
  }
#endif
  return make_cost(n, 1, n);
}

static PlainCost busiest_cost_fn(CostPath p) {
#ifdef BANKSCOPE_X86_PATHS
  if (p == CostPath::kAvx2 || p == CostPath::kAvx512) return busiest_cost_avx2;  // AVX-512 CPUs have AVX2
#endif
  (void)p;
  return busiest_cost_portable;
}

// cost_on()'s routes other than the fast paths, out of line: inlined, R9's source walk gave
// cost_on() a large frame that every LDS/STS paid for.
__attribute__((noinline)) static AccessCost cost_not_plain(CostPath p, const WarpAccess& a, const BankConfig& cfg) {
  if (a.op == Op::kAtomic && a.width == 4 && cfg.is_default() && a.atom != AtomOp::kCas &&
      a.atom != AtomOp::kCastSpin) {
    if (a.mask == 0) return AccessCost{};  // nothing issues (R5)
    if (a.atom == AtomOp::kPopcInc) {  // R8b: the cost of a 4-byte load of the same lanes
      WarpAccess load = a;
      load.op = Op::kLoad;
      return cost_on(p, load, cfg);
    }
    return busiest_cost_fn(p)(a, a.addr.data());
  }
  // R9 (sim/ldgsts.hpp) costs cp.async from its sources too; an access alone has none, so it gets
  // the harness's contiguous row (predict_pattern passes a pattern's "src").
  if (a.op == Op::kLdgsts && cfg.is_default()) return ldgsts_cost(a, ldgsts_default_sources(a));
  if (a.op == Op::kAtomic && a.atom == AtomOp::kCastSpin) return cast_spin(a, cfg, nullptr);
  return run<false>(a, cfg, nullptr);
}

AccessCost cost_on(CostPath p, const WarpAccess& a, const BankConfig& cfg) {
  // The fast paths know LDS/STS of the default geometry only; everything else takes run<> (or R9).
  if (!is_plain(a.op) || !cfg.is_default()) return cost_not_plain(p, a, cfg);
  assert(cost_path_supported(p) && "cost_on() on a path this CPU lacks");
  assert(validate(a, cfg).ok() && "cost() needs a validated access");
#ifdef BANKSCOPE_X86_PATHS
  if (p == CostPath::kAvx512) return cost_default_avx512(a, a.addr.data());
  if (p == CostPath::kAvx2) return cost_default_avx2(a, a.addr.data());
#endif
  (void)p;
  return cost_portable(a, a.addr.data());
}

AccessCost cost(const WarpAccess& a, const BankConfig& cfg) { return cost_on(cost_path(), a, cfg); }

PlainCost plain_cost_fn(CostPath p, Op op, int width, bool scattered) {
  if (!is_plain(op) || (op == Op::kLoad && width >= 8)) return nullptr;  // cost_sass() is not cost() for these
  assert(cost_path_supported(p) && "plain_cost_fn() on a path this CPU lacks");
#ifdef BANKSCOPE_X86_PATHS
  if (p == CostPath::kAvx512) return cost_default_avx512;
  if (p == CostPath::kAvx2) {  // cost_default_avx2()'s choice, made once
    if (width == 4) return scattered ? cost_avx2_words<true, false> : cost_avx2_words<true>;
    if (width < 4) return scattered ? cost_avx2_words<false, false> : cost_avx2_words<false>;
    return cost_default_avx2;
  }
#endif
  (void)p;
  (void)width;
  (void)scattered;
  return cost_portable;
}

SplitCost split_cost_fn(PlainCost f) {
#ifdef BANKSCOPE_X86_PATHS
  if (f == cost_avx2_words<true, false>) return SplitCost{words_count_split, words_finish_split<true>};
  if (f == cost_avx2_words<false, false>) return SplitCost{words_count_split, words_finish_split<false>};
#endif
  (void)f;
  return SplitCost{};
}

PlainCost atomic_cost_fn(CostPath p, AtomOp atom, int width, bool scattered) {
  // cost_not_plain()'s routes for a 4-byte atomic, each cost_sass() of it (no wide-load or CAST.SPIN
  // change after cost()): R8b the load's function, R8 the busiest bank's lanes.
  if (width != 4 || atom == AtomOp::kCas || atom == AtomOp::kCastSpin) return nullptr;
  assert(cost_path_supported(p) && "atomic_cost_fn() on a path this CPU lacks");
  if (atom == AtomOp::kPopcInc) return plain_cost_fn(p, Op::kLoad, 4, scattered);
  return busiest_cost_fn(p);
}

AccessCost cost_sass_wide_or_atomic(const WarpAccess& a, const BankConfig& cfg) {
  const bool wide_load = a.op == Op::kLoad && a.width >= 8 && cfg.is_default() && a.mask != 0;
  AccessCost c = wide_load ? AccessCost{} : cost(a, cfg);  // a wide load is costed below instead
  const bool cast_spin = a.op == Op::kAtomic && a.atom == AtomOp::kCastSpin;
  // (Every other atomic is cost() itself: returned before the popcount, which the baseline x86-64
  // makes a libgcc call, 4 of CUB's 500 instructions per execution.)
  if (!cfg.is_default() || a.mask == 0 || (a.op != Op::kLoad && !cast_spin)) return c;
  const int active = __builtin_popcount(a.mask);
  const int bytes = active * a.width;
  if (cast_spin) {
    c.ideal_wavefronts = 2 * ((bytes + 127) / 128);  // the source view's Ideal (R8c)
    return c;
  }
  if (wide_load) {
    // R11: the instruction-level counter merges R6's phases (the warp for 8 bytes, each half-warp
    // for 16) only where the merged lanes need one wavefront; elsewhere it counts R3's phases. A warp
    // whose active lanes all read one address counts ceil(bytes / 256).
    const uint32_t first = a.addr[static_cast<size_t>(__builtin_ctz(a.mask))];
    bool one_address = true;
    for (uint32_t m = a.mask; m != 0; m &= m - 1) one_address &= a.addr[static_cast<size_t>(__builtin_ctz(m))] == first;
    // Lanes that fit one phase whether R6 merges or not (a whole group that pairs, or one R3 phase)
    // cost what run<> gives them alone: the busiest bank's distinct words.
    const auto busiest_bank = [&a, &cfg](uint32_t lanes) {
      WarpAccess part = a;
      part.mask = lanes;
      return run<false>(part, cfg, nullptr).wavefronts;
    };
    int wavefronts = 0, n_way = 1;
    if (one_address) {
      wavefronts = (bytes + 255) / 256;
    } else {
      const int merged = a.width == 8 ? 32 : 16;  // lanes of an R6-merged phase
      const int r3 = merged / 2;                  // lanes of an R3 phase
      for (int g = 0; g < kWarpSize; g += merged) {
        const uint32_t lanes = a.mask & (merged == 32 ? 0xffffffffu : (0xffffu << g));
        if (lanes == 0) continue;
        if ((rules::pairs_share_address(a, 1, lanes) || rules::pairs_share_address(a, 2, lanes)) &&
            busiest_bank(lanes) == 1) {
          wavefronts += 1;
          continue;
        }
        for (int h = g; h < g + merged; h += r3) {
          const uint32_t part = lanes & (((uint32_t{1} << r3) - 1u) << h);
          if (part == 0) continue;
          const int busiest = busiest_bank(part);
          wavefronts += busiest;
          n_way = std::max(n_way, busiest);
        }
      }
    }
    c.wavefronts = wavefronts;
    c.n_way = n_way;
  }
  c.ideal_wavefronts = std::min(c.wavefronts, (bytes + 127) / 128);
  return c;
}

size_t cost_rows_on(CostPath p, const WarpAccess& proto, const uint32_t* addr, const uint32_t* masks, bool one_mask,
                    size_t n, uint32_t limit, int32_t* wavefronts, int32_t* bank_conflicts) {
  assert(is_plain(proto.op) && validate(proto, BankConfig{}).ok() && "cost_rows() needs a valid LDS/STS");
  assert(cost_path_supported(p) && "cost_rows_on() on a path this CPU lacks");
#ifdef BANKSCOPE_X86_PATHS
  if (p == CostPath::kAvx512) return cost_rows_avx512(proto, addr, masks, one_mask, n, limit, wavefronts, bank_conflicts);
  if (p == CostPath::kAvx2) return cost_rows_avx2(proto, addr, masks, one_mask, n, limit, wavefronts, bank_conflicts);
#endif
  WarpAccess a = proto;
  const uint32_t align = static_cast<uint32_t>(a.width) - 1u;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t* row = addr + i * kWarpSize;
    a.mask = one_mask ? masks[0] : masks[i];
    uint32_t bad = 0;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      a.addr[static_cast<size_t>(lane)] = row[lane];
      bad |= static_cast<uint32_t>(row[lane] >= limit) | (row[lane] & align & (0u - ((a.mask >> lane) & 1u)));
    }
    if (bad != 0) return i;
    const AccessCost c = cost_portable(a, row);
    wavefronts[i] = c.wavefronts;
    bank_conflicts[i] = c.bank_conflicts();
  }
  return n;
}

size_t cost_rows(const WarpAccess& proto, const uint32_t* addr, const uint32_t* masks, bool one_mask, size_t n,
                 uint32_t limit, int32_t* wavefronts, int32_t* bank_conflicts) {
  return cost_rows_on(cost_path(), proto, addr, masks, one_mask, n, limit, wavefronts, bank_conflicts);
}

namespace {

// simulate() of a default-geometry ldgsts: run<> gives each lane's phase, banks and words; R9
// (what cost() counts) gives the wavefronts and which lane completes in which.
void ldgsts_schedule(const WarpAccess& a, AccessReport* rep) {
  int lane_wf[kWarpSize];
  const AccessCost c = ldgsts_cost(a, ldgsts_default_sources(a), false, lane_wf);
  rep->cost = c;
  rep->wavefronts.assign(static_cast<size_t>(c.wavefronts), WavefrontDetail{});
  for (int lane = 0; lane < kWarpSize; ++lane) {
    LaneDetail& d = rep->lanes[static_cast<size_t>(lane)];
    if (!d.active) continue;
    assert(lane_wf[lane] >= 0 && lane_wf[lane] < c.wavefronts && "R9 schedules every active lane");
    d.wavefront = lane_wf[lane];
    WavefrontDetail& wf = rep->wavefronts[static_cast<size_t>(lane_wf[lane])];
    if (wf.lanes == 0) wf.phase = d.phase;  // .cg's wavefronts may span phases: the lowest lane's
    wf.lanes |= uint32_t{1} << lane;
    for (int k = 0; k < d.words; ++k) {
      const std::pair<int, uint32_t> bw{d.bank[static_cast<size_t>(k)], d.word[static_cast<size_t>(k)]};
      wf.banks |= uint64_t{1} << bw.first;
      if (std::find(wf.words.begin(), wf.words.end(), bw) == wf.words.end()) wf.words.push_back(bw);
    }
  }
}

}  // namespace

AccessReport simulate(const WarpAccess& a, const BankConfig& cfg) {
  AccessReport rep;
  if (a.op == Op::kAtomic && a.atom == AtomOp::kCastSpin) {
    cast_spin(a, cfg, &rep);
    return rep;
  }
  run<true>(a, cfg, &rep);
  // cost() takes R9 for these (cost_on()); the report must show the same wavefronts.
  if (a.op == Op::kLdgsts && cfg.is_default()) ldgsts_schedule(a, &rep);
  return rep;
}

}  // namespace bankscope
