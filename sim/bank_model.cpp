// bank_model.cpp: applies rules.hpp to one warp instruction.
//
// One routine does the work for both entry points: cost() runs it without detail (the hot path of
// per-launch totals and the benchmark), simulate() with detail for the visualizer and `explain`.
// For the default geometry cost() takes a faster route to the same numbers (AVX-512 where the CPU
// has it, else a bitmap); tests/test_bank_model.cpp checks both against simulate().
#include "bank_model.hpp"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "rules.hpp"

// x86-64 with GCC or Clang: cost() has an AVX-512 path, picked at run time (see
// cost_default_avx512 below); other targets and compilers use the portable code alone.
#if defined(__x86_64__) && defined(__GNUC__)
#define BANKSCOPE_AVX512 1
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

std::string not_one_instruction(const WarpAccess& a) {
  if (a.op == Op::kAtomic && a.width == 8 &&
      (a.atom == AtomOp::kAdd || a.atom == AtomOp::kMin || a.atom == AtomOp::kMax)) {
    return std::string("atom ") + atom_name(a.atom) +
           " of 8 bytes is not one instruction on sm_90 (nvcc 13.0 emits LDS.64 plus an "
           "ATOMS.CAST.SPIN.64 compare-and-swap loop); not modelled";
  }
  return "";
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
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!((used >> lane) & 1u)) continue;
    if (a.addr[lane] % static_cast<uint32_t>(a.width) != 0) {
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

// The hot path for the default geometry (32 banks x 4 bytes), same rules as run(): an aligned
// access of w >= 4 bytes covers w/4 consecutive banks, so two lanes either share all of their words
// or none; counting distinct w-byte units per group of w/4 banks is counting distinct words per
// bank. Loops run over all 32 lanes without branches so the compiler vectorizes them (an AVX2 clone
// is picked at run time where the CPU has it). Duplicates are found with a bitmap over the units
// (shared memory is at most 227 KiB, so 2^16 units of 4 bytes cover it).
// tests/test_bank_model.cpp checks this path against run() on random input.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define BANKSCOPE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define BANKSCOPE_CLONES
#endif

BANKSCOPE_CLONES
static bool cost_default_geometry(const WarpAccess& a, AccessCost* out) {
  constexpr uint32_t kUnits = 1u << 16;
  // Bitmap of units already counted; a word of it is valid only when its stamp is the current
  // generation, so nothing has to be cleared between calls.
  thread_local uint64_t seen[kUnits / 64];
  thread_local uint32_t stamp[kUnits / 64];
  thread_local uint32_t generation = 0;
  const uint32_t shift = a.width <= 4 ? 2u : (a.width == 8 ? 3u : 4u);
  const uint32_t group_mask = (128u >> shift) - 1u;  // bank groups of width/4 banks: 32, 16 or 8
  uint32_t unit[kWarpSize], group_bit[kWarpSize];
  uint32_t too_far = 0;
  for (uint32_t i = 0; i < kWarpSize; ++i) {
    const uint32_t active = (a.mask >> i) & 1u;
    unit[i] = a.addr[i] >> shift;
    group_bit[i] = active << (unit[i] & group_mask);
    too_far |= active & (unit[i] >= kUnits ? 1u : 0u);
  }
  if (too_far) return false;
  BankConfig cfg;
  uint32_t phase_mask[kWarpSize];
  const int nphases = rules::phases(a, cfg, phase_mask);
  AccessCost c;
  c.ideal_wavefronts = rules::ideal_wavefronts(a, cfg, nphases);
  const uint32_t per = static_cast<uint32_t>(rules::phase_lanes(a, cfg));
  for (int p = 0; p < nphases; ++p) {
    const uint32_t pm = phase_mask[p];
    const uint32_t first = static_cast<uint32_t>(__builtin_ctz(pm)) / per * per;
    uint32_t groups_seen = 0, hits = 0;
    for (uint32_t i = first; i < first + per; ++i) {
      groups_seen |= group_bit[i];
      hits += group_bit[i] != 0;
    }
    int max_count = 1;
    // Two active lanes in one bank group: count distinct units per group.
    if (static_cast<uint32_t>(__builtin_popcount(groups_seen)) != hits) {
      uint8_t count[32] = {};
      max_count = 0;
      if (++generation == 0) {  // wrapped: start the stamps afresh
        std::memset(stamp, 0, sizeof stamp);
        generation = 1;
      }
      for (uint32_t m = pm; m != 0; m &= m - 1) {
        const uint32_t u = unit[__builtin_ctz(m)];
        const uint32_t w = u >> 6;
        const uint64_t bit = uint64_t{1} << (u & 63);
        const uint64_t word = stamp[w] == generation ? seen[w] : 0;
        stamp[w] = generation;
        seen[w] = word | bit;
        if (word & bit) continue;
        const int k = ++count[u & group_mask];
        max_count = k > max_count ? k : max_count;
      }
    }
    c.wavefronts += max_count;
    c.n_way = std::max(c.n_way, max_count);
  }
  *out = c;
  return true;
}

// The same count for the default geometry with AVX-512: no table, no loop over lanes, no branch
// on the addresses. Used where the CPU has AVX-512 F/CD/BW/VL/DQ and VPOPCNTDQ (Intel Ice Lake and
// later, AMD Zen 4 and later); elsewhere cost_default_geometry() above. Why each step is exact:
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
#ifdef BANKSCOPE_AVX512
// AccessCost from its three numbers. Returned in registers (RAX = wavefronts and ideal, RDX =
// n_way); built from one 64-bit value because GCC 12 otherwise assembles RAX with two 4-byte stores
// and an 8-byte load, a store-forwarding stall (measured here: 4-byte cost() 78 -> 85 M/s without).
static inline AccessCost make_cost(int wavefronts, int ideal, int n_way) {
  static_assert(sizeof(AccessCost) == 12 && offsetof(AccessCost, ideal_wavefronts) == 4, "layout");
  const uint64_t low = static_cast<uint32_t>(wavefronts) | uint64_t{static_cast<uint32_t>(ideal)} << 32;
  AccessCost c;
  std::memcpy(static_cast<void*>(&c), &low, sizeof low);  // trivially copyable
  c.n_way = n_way;
  return c;
}

__attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512dq,avx512vpopcntdq")))
// `addr`: the lanes' byte offsets, a.addr.data() for cost(); cost_rows() passes its row (equal to
// a.addr), so that these vector loads do not wait on the copy into `a`.
static AccessCost cost_default_avx512(const WarpAccess& a, const uint32_t* addr) {
  const BankConfig cfg;
  if (a.mask == 0) return AccessCost{};  // nothing issues
  uint32_t phase_mask[kWarpSize];
  const int ideal = rules::ideal_wavefronts(a, cfg, rules::phases(a, cfg, phase_mask));
  const int per = rules::phase_lanes(a, cfg);  // 32, 16 or 8 lanes
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

// BANKSCOPE_NO_AVX512 (any value) forces the portable path, so that tests can check it here too.
static bool use_avx512() {
#ifdef BANKSCOPE_AVX512
  static const bool yes =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq") &&
      std::getenv("BANKSCOPE_NO_AVX512") == nullptr;
  return yes;
#else
  return false;
#endif
}

const char* cost_implementation() { return use_avx512() ? "avx512" : "portable"; }

AccessCost cost(const WarpAccess& a, const BankConfig& cfg) {
  AccessCost c;
  // The fast paths below know LDS/STS only; every other kind takes the reference route.
  if (!is_plain(a.op)) return run<false>(a, cfg, nullptr);
#ifdef BANKSCOPE_AVX512
  if (cfg.is_default() && use_avx512()) return cost_default_avx512(a, a.addr.data());
#endif
  if (cfg.is_default() && cost_default_geometry(a, &c)) return c;
  return run<false>(a, cfg, nullptr);
}

size_t cost_rows(const WarpAccess& proto, const uint32_t* addr, const uint32_t* masks, bool one_mask, size_t n,
                 uint32_t limit, int32_t* wavefronts, int32_t* bank_conflicts) {
  assert(is_plain(proto.op) && validate(proto, BankConfig{}).ok() && "cost_rows() needs a valid LDS/STS");
#ifdef BANKSCOPE_AVX512
  if (use_avx512()) return cost_rows_avx512(proto, addr, masks, one_mask, n, limit, wavefronts, bank_conflicts);
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
    const AccessCost c = cost(a);
    wavefronts[i] = c.wavefronts;
    bank_conflicts[i] = c.bank_conflicts();
  }
  return n;
}

AccessReport simulate(const WarpAccess& a, const BankConfig& cfg) {
  AccessReport rep;
  run<true>(a, cfg, &rep);
  return rep;
}

}  // namespace bankscope
