// bank_model.cpp: applies rules.hpp to one warp instruction.
//
// One routine does the work for both entry points: cost() runs it without detail (the hot path of
// per-launch totals and the benchmark), simulate() with detail for the visualizer and `explain`.
#include "bank_model.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "rules.hpp"

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

Result<WarpAccess> validate(const WarpAccess& a, const BankConfig& cfg) {
  if (a.width != 1 && a.width != 2 && a.width != 4 && a.width != 8 && a.width != 16) {
    return Error{"width: " + std::to_string(a.width) + " bytes is not an access width (1, 2, 4, 8 or 16)"};
  }
  (void)cfg;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!((a.mask >> lane) & 1u)) continue;
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

  if constexpr (kDetail) {
    rep->access = a;
    rep->cfg = cfg;
    rep->phase_masks.assign(phase_mask, phase_mask + nphases);
    rep->bank_words.assign(static_cast<size_t>(cfg.banks), {});
    rep->wavefronts.clear();
    for (int lane = 0; lane < kWarpSize; ++lane) {
      LaneDetail& d = rep->lanes[lane];
      d = LaneDetail{};
      d.active = (a.mask >> lane) & 1u;
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
        int16_t i = head[b];
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

AccessCost cost(const WarpAccess& a, const BankConfig& cfg) {
  AccessCost c;
  if (cfg.is_default() && cost_default_geometry(a, &c)) return c;
  return run<false>(a, cfg, nullptr);
}

AccessReport simulate(const WarpAccess& a, const BankConfig& cfg) {
  AccessReport rep;
  run<true>(a, cfg, &rep);
  return rep;
}

}  // namespace bankscope
