// test_bank_model.cpp: one warp instruction -> wavefronts, against cases checkable by hand.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "sim/bank_model.hpp"

using namespace bankscope;

namespace {

// Lane i at byte i * stride_bytes.
WarpAccess strided(int width, uint32_t stride_bytes, uint32_t mask = 0xffffffffu, Op op = Op::kLoad) {
  WarpAccess a;
  a.op = op;
  a.width = width;
  a.mask = mask;
  for (uint32_t i = 0; i < 32; ++i) a.addr[i] = i * stride_bytes;
  return a;
}

}  // namespace

TEST_CASE("4-byte accesses at word stride s cost gcd(s, 32) wavefronts") {
  for (int s = 1; s <= 130; ++s) {
    CAPTURE(s);
    const AccessCost c = cost(strided(4, 4u * s));
    const int expected = std::gcd(s, 32);
    CHECK(c.wavefronts == expected);
    CHECK(c.n_way == expected);
    CHECK(c.ideal_wavefronts == 1);
    CHECK(c.bank_conflicts() == expected - 1);
  }
}

TEST_CASE("the seed lesson: a column of tile[32][32] vs tile[32][33]") {
  // Column read: lane i reads tile[i][c], byte (i * stride + c) * 4.
  struct Row { int stride; int col; int wavefronts; int conflicts; };
  const Row rows[] = {
      {32, 0, 32, 31},  // 32 distinct words, all in bank 0
      {32, 5, 32, 31},  // ... all in bank 5
      {33, 0, 1, 0},    // word 33 i lands in bank i
      {33, 7, 1, 0},
      {34, 0, 2, 1},    // gcd(34, 32) = 2
      {48, 0, 16, 15},
  };
  for (const Row& r : rows) {
    CAPTURE(r.stride);
    CAPTURE(r.col);
    WarpAccess a;
    for (uint32_t i = 0; i < 32; ++i) a.addr[i] = (i * r.stride + r.col) * 4;
    const AccessCost c = cost(a);
    CHECK(c.wavefronts == r.wavefronts);
    CHECK(c.bank_conflicts() == r.conflicts);
  }
  // Row write: lane i writes tile[r][i]: consecutive words.
  CHECK(cost(strided(4, 4, 0xffffffffu, Op::kStore)).wavefronts == 1);
}

TEST_CASE("each width, consecutive and strided") {
  struct Row { int width; uint32_t stride; uint32_t mask; int wavefronts; int ideal; };
  const Row rows[] = {
      {1, 1, 0xffffffffu, 1, 1},     // 32 bytes = 8 words, 8 banks
      {2, 2, 0xffffffffu, 1, 1},     // 64 bytes
      {1, 128, 0xffffffffu, 32, 1},  // every lane its own word, all in bank 0
      {1, 4, 0xffffffffu, 1, 1},     // one byte of each of 32 words
      {2, 128, 0x0000ffffu, 16, 1},  // 16 active lanes in bank 0
      {8, 8, 0xffffffffu, 2, 2},     // two half-warps of 128 bytes
      {8, 16, 0xffffffffu, 4, 2},    // half-warp: lanes i and i+8 share banks 4i..4i+1
      {8, 256, 0xffffffffu, 32, 2},  // half-warp: 16 words in bank 0 (and 16 in bank 1)
      {8, 8, 0x0000ffffu, 1, 1},     // only the first half-warp issues
      {8, 8, 0x00010001u, 2, 1},     // one lane per half-warp: R6 merges them, banks 0-1 clash
      {16, 16, 0xffffffffu, 4, 4},   // four quarter-warps of 128 bytes
      {16, 32, 0xffffffffu, 8, 4},   // quarter-warp: lanes i, i+4 share 4 banks
      {16, 512, 0xffffffffu, 32, 4}, // quarter-warp: 8 words in each of banks 0..3
      {16, 16, 0x000000ffu, 1, 1},
      {4, 128, 0x0000000fu, 4, 1},
      {4, 128, 0x00000001u, 1, 1},
      {4, 128, 0x00000000u, 0, 0},   // no active lane: nothing issues
  };
  for (const Row& r : rows) {
    CAPTURE(r.width);
    CAPTURE(r.stride);
    CAPTURE(r.mask);
    const AccessCost c = cost(strided(r.width, r.stride, r.mask));
    CHECK(c.wavefronts == r.wavefronts);
    CHECK(c.ideal_wavefronts == r.ideal);
  }
}

TEST_CASE("broadcast and one-writer: lanes sharing a word do not conflict") {
  WarpAccess a = strided(4, 0);  // all lanes byte 0
  CHECK(cost(a).wavefronts == 1);
  a.op = Op::kStore;
  CHECK(cost(a).wavefronts == 1);
  // Pairs through lane ^ 1 share a word; the pairs walk a column (stride 32 words): 16-way.
  WarpAccess pairs;
  for (uint32_t i = 0; i < 32; ++i) pairs.addr[i] = (i >> 1) * 128;
  CHECK(cost(pairs).wavefronts == 16);
  // Two words in one bank, each read by 16 lanes: 2 wavefronts.
  WarpAccess two;
  for (uint32_t i = 0; i < 32; ++i) two.addr[i] = (i & 1) * 128;
  CHECK(cost(two).wavefronts == 2);
}

TEST_CASE("simulate(): per-lane and per-wavefront detail") {
  SUBCASE("stride 32: lane k is served in wavefront k") {
    const AccessReport r = simulate(strided(4, 128));
    REQUIRE(r.wavefronts.size() == 32);
    for (int k = 0; k < 32; ++k) {
      CAPTURE(k);
      CHECK(r.lanes[k].bank[0] == 0);
      CHECK(r.lanes[k].word[0] == uint32_t(32 * k));
      CHECK(r.lanes[k].wavefront == k);
      CHECK(r.wavefronts[k].lanes == (1u << k));
      CHECK(r.wavefronts[k].banks == 1u);
    }
    CHECK(r.bank_words[0].size() == 32);
    CHECK(r.efficiency() == doctest::Approx(1.0 / 32));
  }
  SUBCASE("stride 33: one wavefront, every bank busy") {
    const AccessReport r = simulate(strided(4, 132));
    REQUIRE(r.wavefronts.size() == 1);
    CHECK(r.wavefronts[0].lanes == 0xffffffffu);
    CHECK(r.wavefronts[0].banks == 0xffffffffull);
    for (int k = 0; k < 32; ++k) CHECK(r.lanes[k].bank[0] == k);
  }
  SUBCASE("8-byte lanes touch two banks and belong to a half-warp phase") {
    const AccessReport r = simulate(strided(8, 8));
    REQUIRE(r.phase_masks.size() == 2);
    CHECK(r.phase_masks[0] == 0x0000ffffu);
    CHECK(r.phase_masks[1] == 0xffff0000u);
    CHECK(r.lanes[17].words == 2);
    CHECK(r.lanes[17].bank[0] == 2);
    CHECK(r.lanes[17].bank[1] == 3);
    CHECK(r.lanes[17].phase == 1);
    CHECK(r.lanes[17].wavefront == 1);
  }
  SUBCASE("inactive lanes are not drawn") {
    const AccessReport r = simulate(strided(4, 128, 0x3u));
    CHECK(r.lanes[0].active);
    CHECK_FALSE(r.lanes[2].active);
    CHECK(r.lanes[2].wavefront == -1);
    CHECK(r.cost.wavefronts == 2);
  }
}

TEST_CASE("bank geometry is configurable for teaching") {
  auto cfg16 = make_bank_config(16, 4);
  REQUIRE(cfg16.ok());
  // 16 banks x 4 bytes: a wavefront carries 64 bytes, so 4-byte lanes go 16 at a time.
  CHECK(cost(strided(4, 4), *cfg16).wavefronts == 2);
  CHECK(cost(strided(4, 64), *cfg16).wavefronts == 32);  // stride 16 words: one bank
  CHECK(cost(strided(4, 68), *cfg16).wavefronts == 2);   // stride 17: conflict-free halves
  CHECK_FALSE(make_bank_config(0, 4).ok());
  CHECK_FALSE(make_bank_config(32, 3).ok());
}

TEST_CASE("validate(): misaligned and bad widths are user errors") {
  WarpAccess a = strided(8, 8);
  a.addr[3] = 28;  // 4-byte aligned, not 8
  auto r = validate(a, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "lane 3: byte offset 28 is not 8-byte aligned (the GPU faults with \"misaligned address\")");
  a.mask = ~(1u << 3);  // an inactive lane may hold anything
  CHECK(validate(a, {}).ok());
  WarpAccess w = strided(4, 4);
  w.width = 3;
  auto rw = validate(w, {});
  REQUIRE_FALSE(rw.ok());
  CHECK(rw.error().message.find("width: 3 bytes") == 0);
}

TEST_CASE("cost() fast path agrees with simulate() on random warps") {
  // Addresses drawn from small pools so that duplicates, broadcasts and conflicts are all common.
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const int widths[] = {1, 2, 4, 8, 16};
  int checked = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    WarpAccess a;
    a.width = widths[next() % 5];
    a.op = (next() & 1) ? Op::kLoad : Op::kStore;
    a.mask = (next() % 4 == 0) ? static_cast<uint32_t>(next()) : 0xffffffffu;
    const uint32_t pool = 1u + static_cast<uint32_t>(next() % 96);
    const uint32_t spread = (next() % 3 == 0) ? 1024u : 128u;
    for (uint32_t i = 0; i < 32; ++i) {
      a.addr[i] = static_cast<uint32_t>(next() % pool) * spread / 16 * 16 +
                  static_cast<uint32_t>(next() % 16) / uint32_t(a.width) * uint32_t(a.width);
    }
    CAPTURE(iter);
    const AccessCost fast = cost(a);
    const AccessCost full = simulate(a).cost;
    CHECK(fast.wavefronts == full.wavefronts);
    CHECK(fast.ideal_wavefronts == full.ideal_wavefronts);
    CHECK(fast.n_way == full.n_way);
    checked += fast.wavefronts > fast.ideal_wavefronts;
  }
  CHECK(checked > 1000);  // the draw really does produce conflicts
}

TEST_CASE("simulate() of a cp.async shows R9's wavefronts, the ones cost() counts (.ca and .cg)") {
  // Found by fuzz_jsonl: a .cg row with one repeated destination, where simulate() had drawn the
  // store rule's 4 wavefronts and cost() (R9's .cg rule: H8 then, H10 now, both) counts 7.
  {
    WarpAccess a;
    a.op = Op::kLdgsts;
    a.width = 16;
    a.bypass_l1 = true;
    const uint32_t dst[32] = {0,   16,  32,  48,  64,  80,  96,  112, 144, 160, 176, 192, 192, 208, 224, 240,
                              256, 272, 288, 304, 320, 336, 352, 368, 384, 400, 416, 432, 448, 464, 480, 496};
    for (int l = 0; l < 32; ++l) a.addr[size_t(l)] = dst[l];
    CHECK(cost(a).wavefronts == 7);
    const AccessReport r = simulate(a);
    CHECK(r.cost.wavefronts == 7);
    CHECK(r.wavefronts.size() == 7);
    // Lane 12 repeats lane 11's destination: dropped, it completes with lane 11.
    CHECK(r.lanes[12].wavefront == r.lanes[11].wavefront);
  }
  uint64_t state = 0x51ed2701a3b5c7d9ull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const int widths[] = {4, 8, 16, 16};
  int differs_from_store_rule = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    WarpAccess a;
    a.op = Op::kLdgsts;
    a.width = widths[iter % 4];
    a.bypass_l1 = iter % 4 == 3;  // .cg copies 16 bytes only
    a.mask = (next() % 3 == 0) ? static_cast<uint32_t>(next()) : 0xffffffffu;
    const uint32_t pool = 1u + static_cast<uint32_t>(next() % 64);
    for (uint32_t i = 0; i < 32; ++i) a.addr[i] = static_cast<uint32_t>(next() % pool) * uint32_t(a.width);
    CAPTURE(iter);
    const AccessCost c = cost(a);
    const AccessReport r = simulate(a);
    CHECK(r.cost.wavefronts == c.wavefronts);
    CHECK(r.cost.ideal_wavefronts == c.ideal_wavefronts);
    CHECK(r.cost.n_way == c.n_way);
    REQUIRE(r.wavefronts.size() == size_t(c.wavefronts));
    uint32_t served = 0;
    for (const WavefrontDetail& w : r.wavefronts) {
      CHECK((served & w.lanes) == 0);
      served |= w.lanes;
    }
    CHECK(served == a.mask);
    for (int l = 0; l < 32; ++l) {
      if (!((a.mask >> l) & 1u)) continue;
      const int w = r.lanes[size_t(l)].wavefront;
      REQUIRE((w >= 0 && w < c.wavefronts));
      CHECK(((r.wavefronts[size_t(w)].lanes >> l) & 1u) == 1u);
    }
    WarpAccess store = a;
    store.op = Op::kStore;
    differs_from_store_rule += simulate(store).cost.wavefronts != c.wavefronts;
  }
  CHECK(differs_from_store_rule > 100);  // the draw reaches where R9 and the plain rule differ
}

TEST_CASE("R6, measured on the H200: wide loads with lane^1 or lane^2 partners merge phases") {
  // Each row is a pattern of tests/conformance/patterns.jsonl with the value the H200 counted.
  struct Row { const char* id; int width; Op op; uint32_t mask; uint32_t (*addr)(uint32_t); int wavefronts; int conflicts; };
  const Row rows[] = {
      // 8 bytes, lane pairs (2k, 2k+1) share: one phase for the warp; 0 and 128 share banks 0-1.
      {"w8_xs1_ld", 8, Op::kLoad, ~0u, [](uint32_t l) { return (l >> 1) * 16; }, 2, 1},
      // ... the same as a store: stores never merge, two half-warp phases.
      {"w8_xs1_st", 8, Op::kStore, ~0u, [](uint32_t l) { return (l >> 1) * 16; }, 2, 0},
      // lanes l and l^2 share (even/odd lanes of a quad): one phase, conflict-free.
      {"w8_bc_mod2_ld", 8, Op::kLoad, ~0u, [](uint32_t l) { return (l & 1) * 8; }, 1, 0},
      // lanes l and l^4 share: no merge, two phases.
      {"w8_bc_mod4_ld", 8, Op::kLoad, ~0u, [](uint32_t l) { return (l & 3) * 8; }, 2, 0},
      // a broadcast merges: 1 wavefront for 8 bytes, 2 (half-warps) for 16.
      {"w8_es0_ld", 8, Op::kLoad, ~0u, [](uint32_t) { return 0u; }, 1, 0},
      {"w16_es0_ld", 16, Op::kLoad, ~0u, [](uint32_t) { return 0u; }, 2, 0},
      // 16 bytes, lane^1 pairs: half-warp phases; 0 and 128 share banks 0-3 in each half.
      {"w16_xs1_ld", 16, Op::kLoad, ~0u, [](uint32_t l) { return (l >> 1) * 32; }, 4, 2},
      // 16 bytes, lanes l and l^4 share: quarter-warp phases as documented.
      {"w16_bc_mod4_ld", 16, Op::kLoad, ~0u, [](uint32_t l) { return (l & 3) * 16; }, 4, 0},
  };
  for (const Row& r : rows) {
    CAPTURE(r.id);
    WarpAccess a;
    a.width = r.width;
    a.op = r.op;
    a.mask = r.mask;
    for (uint32_t l = 0; l < 32; ++l) a.addr[l] = r.addr(l);
    const AccessCost c = cost(a);
    CHECK(c.wavefronts == r.wavefronts);
    CHECK(c.bank_conflicts() == r.conflicts);
    CHECK(simulate(a).cost.wavefronts == r.wavefronts);
  }
}

TEST_CASE("cost() agrees with simulate() at any address, with anything in inactive lanes") {
  // The fast paths key lanes by address >> 2..4 and copy an active lane into inactive ones; here
  // addresses span all 32 bits (near words far apart share banks), inactive lanes hold unaligned
  // junk, and masks leave whole phases empty.
  uint64_t state = 0x2545f4914f6cdd1dull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<uint32_t>(state >> 16);
  };
  const int widths[] = {1, 2, 4, 8, 16};
  const uint32_t masks[] = {0xffffffffu, 0xffff0000u, 0x0000ff00u, 0x80000001u, 0x00010000u, 0xf0f0f0f0u};
  int conflicted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    WarpAccess a;
    a.width = widths[iter % 5];
    a.op = (iter / 5) % 2 ? Op::kStore : Op::kLoad;
    a.mask = (iter / 10) % 7 == 6 ? next() : masks[(iter / 10) % 7];
    const uint32_t base = next() & ~63u;
    const uint32_t pool = 1u + next() % 48u;
    const uint32_t spread = uint32_t{128} << (next() % 12);  // 128 B .. 256 KiB apart
    for (uint32_t i = 0; i < 32; ++i) {
      const uint32_t w = static_cast<uint32_t>(a.width);
      a.addr[i] = base + (next() % pool) * spread + (next() % 128u) / w * w;
      if (!((a.mask >> i) & 1u)) a.addr[i] = next() | 1u;  // inactive: never looked at
    }
    CAPTURE(iter);
    CAPTURE(a.width);
    CAPTURE(a.mask);
    const AccessCost fast = cost(a);
    const AccessCost full = simulate(a).cost;
    CHECK(fast.wavefronts == full.wavefronts);
    CHECK(fast.ideal_wavefronts == full.ideal_wavefronts);
    CHECK(fast.n_way == full.n_way);
    conflicted += fast.wavefronts > fast.ideal_wavefronts;
  }
  CHECK(conflicted > 2000);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The fast paths equal run<>, rule by rule
// ---------------------------------------------------------------------------------------------
// bank_model.cpp states each rule once, in run<> (through rules.hpp); simulate() is run<> itself.
// cost() takes a fast path for the default geometry: AVX-512, AVX2 or portable (cost_path()). Each
// generator below aims at one rule (sim/RULES.md) and every warp it makes is compared field by
// field with simulate() on every path this CPU has (cost_on()) and through cost() itself; the ctest
// runs sim_tests_{avx2,portable} force cost()'s own choice with BANKSCOPE_SIMD.

#include <cstdlib>
#include <cstring>
#include <string>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include "sim/rules.hpp"

namespace {

constexpr int kWidths[] = {1, 2, 4, 8, 16};

struct Rng {
  uint64_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<uint32_t>(s >> 16);
  }
  uint32_t below(uint32_t n) { return next() % n; }
};

// Every cost() path this CPU has (cost_on(): avx512, avx2, portable) and cost() itself against
// simulate() (run<>), every field. Returns false on a difference.
bool same_as_run(const WarpAccess& a, const char* rule) {
  const AccessCost full = simulate(a).cost;
  bool all_ok = true;
  for (int k = -1; k < 3; ++k) {
    if (k >= 0 && !cost_path_supported(kCostPaths[k])) continue;
    const AccessCost fast = k < 0 ? cost(a) : cost_on(kCostPaths[k], a);
    const bool ok = fast.wavefronts == full.wavefronts && fast.ideal_wavefronts == full.ideal_wavefronts &&
                    fast.n_way == full.n_way;
    if (ok) continue;
    all_ok = false;
    std::string addrs;
    for (int l = 0; l < 32; ++l) addrs += (l ? "," : "") + std::to_string(a.addr[static_cast<size_t>(l)]);
    const std::string rule_name = rule, op = op_name(a.op);
    const std::string path = k < 0 ? std::string("cost() = ") + cost_implementation() : cost_path_name(kCostPaths[k]);
    CAPTURE(rule_name);
    CAPTURE(path);
    CAPTURE(a.width);
    CAPTURE(op);
    CAPTURE(a.mask);
    CAPTURE(addrs);
    CHECK(fast.wavefronts == full.wavefronts);
    CHECK(fast.ideal_wavefronts == full.ideal_wavefronts);
    CHECK(fast.n_way == full.n_way);
  }
  return all_ok;
}

WarpAccess warp(int width, Op op, uint32_t mask = 0xffffffffu) {
  WarpAccess a;
  a.width = width;
  a.op = op;
  a.mask = mask;
  return a;
}

// The same lanes as a load of the same width (R8b's reference).
WarpAccess warp_as_load(WarpAccess a) {
  a.op = Op::kLoad;
  return a;
}

// Lanes one phase serves under R3 alone (before R6): 32, 16 or 8 for the default geometry.
int r3_lanes(int width) { return rules::lanes_per_phase(width, BankConfig{}); }

}  // namespace

TEST_CASE("cost() takes the path its ctest asks for (BANKSCOPE_SIMD), else the best this CPU has") {
  const char* forced = std::getenv("BANKSCOPE_SIMD");
  MESSAGE("cost() path: " << std::string(cost_implementation()));
#if defined(__x86_64__) && defined(__GNUC__)
  const bool has512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq");
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;  // LZCNT: CPUID 0x80000001 ECX bit 5
  const bool lzcnt = __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 5)) != 0;
  const bool has2 = lzcnt && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                    __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
#else
  const bool has512 = false, has2 = false;
#endif
  CHECK(cost_path_supported(CostPath::kAvx512) == has512);
  CHECK(cost_path_supported(CostPath::kAvx2) == has2);
  CHECK(cost_path_supported(CostPath::kPortable));
  const bool no512 = std::getenv("BANKSCOPE_NO_AVX512") != nullptr;
  bool amd = false;
#if defined(__x86_64__) && defined(__GNUC__)
  unsigned v[4] = {};
  if (__get_cpuid(0, &v[0], &v[1], &v[2], &v[3]) != 0) {
    char vendor[13] = {};
    std::memcpy(vendor, &v[1], 4);
    std::memcpy(vendor + 4, &v[3], 4);
    std::memcpy(vendor + 8, &v[2], 4);
    amd = std::string(vendor) == "AuthenticAMD";
  }
#endif
  // AVX-512 by default on AMD only (preferred_cost_path(), tested below), the vendor read here from
  // its string (cpu_is_amd() compares the registers with constants).
  CHECK(cpu_is_amd() == amd);
  const std::string expected =
      forced ? forced : (has512 && !no512 && (amd || !has2) ? "avx512" : (has2 ? "avx2" : "portable"));
  CHECK(std::string(cost_implementation()) == expected);
}

TEST_CASE("preferred_cost_path(): AVX-512 on AMD only, else AVX2, else portable") {
  // (avx512 usable, avx2 usable, AMD) -> the path.
  CHECK(preferred_cost_path(true, true, true) == CostPath::kAvx512);    // Zen 4
  CHECK(preferred_cost_path(true, true, false) == CostPath::kAvx2);     // an Intel Xeon with AVX-512
  CHECK(preferred_cost_path(false, true, true) == CostPath::kAvx2);     // Zen 3, or BANKSCOPE_NO_AVX512
  CHECK(preferred_cost_path(false, true, false) == CostPath::kAvx2);    // Haswell to Alder Lake
  CHECK(preferred_cost_path(true, false, false) == CostPath::kAvx512);  // no AVX2 path (no LZCNT): the only vector one
  CHECK(preferred_cost_path(false, false, true) == CostPath::kPortable);
  CHECK(preferred_cost_path(false, false, false) == CostPath::kPortable);
}

TEST_CASE("BANKSCOPE_SIMD names: avx512, avx2, portable; anything else is a one-line error") {
  for (CostPath p : kCostPaths) {
    const auto r = parse_cost_path(cost_path_name(p));
    REQUIRE(r.ok());
    CHECK(*r == p);
  }
  for (const char* bad : {"", "AVX2", "sse", "avx", "avx2 ", "none"}) {
    const auto r = parse_cost_path(bad);
    CAPTURE(bad);
    REQUIRE(!r.ok());
    CHECK(r.error().message == std::string("BANKSCOPE_SIMD: '") + bad + "' is not a cost() path (avx512, avx2 or portable)");
  }
}

// Hand-counted warps, every path: the counts here are worked out by hand from RULES.md, not taken
// from simulate().
TEST_CASE("every cost() path: hand-counted warps") {
  struct Row {
    const char* what;
    int width;
    Op op;
    uint32_t mask;
    uint32_t stride_bytes;  // lane i at i * stride_bytes (+ 4096 * (i % 2) when split)
    bool split;
    int wavefronts, ideal, n_way;
  };
  const Row rows[] = {
      {"4B row, stride 4: 32 banks once", 4, Op::kLoad, 0xffffffffu, 4, false, 1, 1, 1},
      {"4B column of tile[32][32]: bank 0, 32 words", 4, Op::kLoad, 0xffffffffu, 128, false, 32, 1, 32},
      {"4B column of tile[32][33]: 32 banks", 4, Op::kLoad, 0xffffffffu, 132, false, 1, 1, 1},
      {"4B stride 8 bytes: 16 banks x 2 words", 4, Op::kStore, 0xffffffffu, 8, false, 2, 1, 2},
      {"4B broadcast: one word", 4, Op::kLoad, 0xffffffffu, 0, false, 1, 1, 1},
      {"4B stride 64 bytes, lanes 0-7: banks 0,16 x 4 words", 4, Op::kLoad, 0xffu, 64, false, 4, 1, 4},
      {"4B even lanes at 0, odd at 4096: bank 0 x 2 words", 4, Op::kLoad, 0xffffffffu, 0, true, 2, 1, 2},
      {"8B row: 2 phases of 16 lanes, 1 each", 8, Op::kStore, 0xffffffffu, 8, false, 2, 2, 1},
      {"8B stride 16 bytes: per phase 16 lanes on 8 groups, 2 each", 8, Op::kStore, 0xffffffffu, 16, false, 4, 2, 2},
      {"16B stride 128 bytes: 4 phases of 8 lanes on group 0", 16, Op::kStore, 0xffffffffu, 128, false, 32, 4, 8},
      {"16B row, lanes 8-15 only: one phase", 16, Op::kLoad, 0xff00u, 16, false, 1, 1, 1},
      {"mask 0: nothing", 4, Op::kLoad, 0u, 4, false, 0, 0, 0},
  };
  for (const Row& r : rows) {
    WarpAccess a;
    a.width = r.width;
    a.op = r.op;
    a.mask = r.mask;
    for (uint32_t l = 0; l < 32; ++l) a.addr[l] = l * r.stride_bytes + (r.split ? 4096u * (l % 2) : 0u);
    for (CostPath p : kCostPaths) {
      if (!cost_path_supported(p)) continue;
      const AccessCost c = cost_on(p, a);
      const std::string what = r.what, path = cost_path_name(p);
      CAPTURE(what);
      CAPTURE(path);
      CHECK(c.wavefronts == r.wavefronts);
      CHECK(c.ideal_wavefronts == r.ideal);
      CHECK(c.n_way == r.n_way);
    }
  }
}

TEST_CASE("differential R1 (bank = word % 32): every width x element strides 0..130 x random bases") {
  Rng rng{0x51ed27a3c4b1e9f1ull};
  int n = 0, bad = 0;
  for (int w : kWidths) {
    for (uint32_t s = 0; s <= 130; ++s) {
      for (int b = 0; b < 4; ++b) {
        const uint32_t base = b == 0 ? 0u : rng.below(4096) * 16u;  // 16-aligned: every width
        for (Op op : {Op::kLoad, Op::kStore}) {
          WarpAccess a = warp(w, op);
          for (uint32_t l = 0; l < 32; ++l) a.addr[l] = base + l * s * uint32_t(w);
          bad += !same_as_run(a, "R1");
          ++n;
        }
      }
    }
  }
  CHECK(n == 5 * 131 * 4 * 2);
  CHECK(bad == 0);
}

TEST_CASE("differential R2 (one word, no conflict): broadcast, shared words, several writers, bytes of a word") {
  Rng rng{0x9e3779b97f4a7c15ull};
  int n = 0, bad = 0, conflicted = 0;
  for (Op op : {Op::kLoad, Op::kStore}) {
    for (int w : kWidths) {
      // Broadcast / one writer: every lane one address.
      for (uint32_t base : {0u, 128u, 4096u, 16u * rng.below(2048)}) {
        WarpAccess a = warp(w, op);
        for (uint32_t l = 0; l < 32; ++l) a.addr[l] = base;
        bad += !same_as_run(a, "R2 broadcast");
        ++n;
      }
      // Groups of k lanes share one address; the groups walk a column (stride 128 bytes = one
      // bank) or a row: distinct words of a bank conflict, lanes of one word do not.
      for (uint32_t k : {2u, 4u, 8u, 16u}) {
        for (uint32_t stride : {128u, 256u, 16u, 132u}) {
          for (int order = 0; order < 2; ++order) {
            WarpAccess a = warp(w, op);
            for (uint32_t l = 0; l < 32; ++l) {
              const uint32_t g = order == 0 ? l / k : l % (32 / k);  // contiguous or interleaved groups
              a.addr[l] = g * stride / uint32_t(w) * uint32_t(w);
            }
            const AccessCost c = simulate(a).cost;
            conflicted += c.wavefronts > c.ideal_wavefronts;
            bad += !same_as_run(a, "R2 shared words");
            ++n;
          }
        }
      }
    }
    // Sub-word: 1- and 2-byte lanes on different bytes of one word never conflict; words of one
    // bank do (4 / w lanes per word, the words 128 bytes apart).
    for (int w : {1, 2}) {
      const uint32_t per_word = 4u / uint32_t(w);
      for (uint32_t words_apart : {4u, 128u, 256u}) {
        WarpAccess a = warp(w, op);
        for (uint32_t l = 0; l < 32; ++l) a.addr[l] = (l / per_word) * words_apart + (l % per_word) * uint32_t(w);
        bad += !same_as_run(a, "R2 bytes of a word");
        ++n;
        // The same with the bytes shuffled among the lanes of each word.
        for (uint32_t l = 0; l < 32; l += per_word) {
          for (uint32_t i = per_word - 1; i > 0; --i) std::swap(a.addr[l + i], a.addr[l + rng.below(i + 1)]);
        }
        bad += !same_as_run(a, "R2 bytes of a word, shuffled");
        n += 1;
      }
    }
  }
  CHECK(n > 300);
  CHECK(conflicted > 50);  // the groups really do conflict across words
  CHECK(bad == 0);
}

TEST_CASE("differential R3 (8-/16-byte accesses in half-/quarter-warp phases)") {
  Rng rng{0x2545f4914f6cdd1dull};
  int n = 0, bad = 0;
  for (int w : {8, 16}) {
    const uint32_t per = static_cast<uint32_t>(r3_lanes(w));  // 16 or 8
    for (Op op : {Op::kLoad, Op::kStore}) {
      // Lane l = (phase p, slot i): address (i * k + p * c) * w. k spreads a phase over the banks
      // (k = 1: 128 contiguous bytes); c moves the phases onto the same (c = 128 / w) or other banks.
      for (uint32_t k : {1u, 2u, 3u, 4u, 8u, 16u, 17u}) {
        for (uint32_t c : {0u, 1u, 128u / uint32_t(w), 256u / uint32_t(w), 33u}) {
          WarpAccess a = warp(w, op);
          for (uint32_t l = 0; l < 32; ++l) a.addr[l] = ((l % per) * k + (l / per) * c) * uint32_t(w);
          bad += !same_as_run(a, "R3");
          ++n;
          // The same phases with their lanes permuted inside each phase.
          for (uint32_t p = 0; p < 32; p += per) {
            for (uint32_t i = per - 1; i > 0; --i) std::swap(a.addr[p + i], a.addr[p + rng.below(i + 1)]);
          }
          bad += !same_as_run(a, "R3 permuted");
          ++n;
        }
      }
    }
  }
  CHECK(n == 2 * 2 * 7 * 5 * 2);
  CHECK(bad == 0);
}

TEST_CASE("differential R4 (ideal = phases with an active lane): every subset of phases, each width") {
  Rng rng{0x7f4a7c159e3779b9ull};
  int n = 0, bad = 0;
  for (int w : kWidths) {
    const int per = r3_lanes(w);
    const int phases = 32 / per;
    for (Op op : {Op::kLoad, Op::kStore}) {
      for (uint32_t subset = 1; subset < (1u << phases); ++subset) {
        for (int fill = 0; fill < 2; ++fill) {  // whole phases, or one random lane of each
          uint32_t mask = 0;
          for (int p = 0; p < phases; ++p) {
            if (!((subset >> p) & 1u)) continue;
            const uint32_t lanes = per == 32 ? 0xffffffffu : ((1u << per) - 1u) << (p * per);
            mask |= fill == 0 ? lanes : 1u << (p * per + static_cast<int>(rng.below(uint32_t(per))));
          }
          WarpAccess a = warp(w, op, mask);
          for (uint32_t l = 0; l < 32; ++l) a.addr[l] = l * uint32_t(w) * (1u + rng.below(3));
          for (uint32_t l = 0; l < 32; ++l) a.addr[l] = a.addr[l] / uint32_t(w) * uint32_t(w);
          const AccessCost c = simulate(a).cost;
          uint32_t phase_mask[32];
          CHECK(c.ideal_wavefronts == rules::phases(a, BankConfig{}, phase_mask));
          bad += !same_as_run(a, "R4");
          ++n;
        }
      }
    }
  }
  CHECK(n == 3 * 1 * 2 * 2 + 3 * 2 * 2 + 15 * 2 * 2);  // 1, 2 or 4 phases: 2^phases - 1 subsets
  CHECK(bad == 0);
}

TEST_CASE("differential R5 (inactive lanes cost nothing): random masks, empty phases, mask 0") {
  Rng rng{0x1234567887654321ull};
  int n = 0, bad = 0, empty_phase = 0;
  for (int w : kWidths) {
    const int per = r3_lanes(w);
    for (Op op : {Op::kLoad, Op::kStore}) {
      for (int i = 0; i < 200; ++i) {
        uint32_t mask = rng.next();
        if (i % 4 == 1) mask &= 0x0000ffffu;  // a half-warp empty
        if (i % 4 == 2) mask &= 0x00ff00ffu;  // quarter-warps 1 and 3 empty
        if (i % 10 == 3) mask = 0;            // nothing issues: 0 wavefronts, 0 ideal
        if (i % 10 == 4) mask = 1u << rng.below(32);
        WarpAccess a = warp(w, op, mask);
        const uint32_t stride = uint32_t(w) * (1u + rng.below(64));
        for (uint32_t l = 0; l < 32; ++l) {
          a.addr[l] = l * stride;
          // Inactive lanes hold what the model must never read: unaligned, far away.
          if (!((mask >> l) & 1u)) a.addr[l] = rng.next() | 1u;
        }
        for (int p = 0; p < 32; p += per) {
          const uint32_t lanes = per == 32 ? 0xffffffffu : ((1u << per) - 1u) << p;
          empty_phase += (mask & lanes) == 0;
        }
        if (mask == 0) CHECK(cost(a).wavefronts == 0);
        bad += !same_as_run(a, "R5");
        ++n;
      }
    }
  }
  CHECK(n == 5 * 2 * 200);
  CHECK(empty_phase > 500);
  CHECK(bad == 0);
}

TEST_CASE("differential R6 (wide loads with lane^1 / lane^2 partners merge phases)") {
  Rng rng{0x0ddc0ffee0ddf00dull};
  int n = 0, bad = 0, merged = 0, not_merged = 0;
  for (int w : {8, 16}) {
    const int per = r3_lanes(w);
    for (Op op : {Op::kLoad, Op::kStore}) {
      for (uint32_t partner : {1u, 2u}) {
        for (int variant = 0; variant < 4; ++variant) {  // shared, one pair broken, partner inactive, broken + inactive
          for (uint32_t stride : {1u, 2u, 4u, 8u, 16u, 32u, 33u}) {
            for (uint32_t base : {0u, 16u * rng.below(1024)}) {
              WarpAccess a = warp(w, op);
              // The pair (l, l ^ partner) reads the address of its lower lane.
              for (uint32_t l = 0; l < 32; ++l) a.addr[l] = base + (l & ~partner) * stride * uint32_t(w);
              const uint32_t victim = rng.below(32);
              if (variant == 1 || variant == 3) a.addr[victim] = base + 4096u * uint32_t(w);  // its pair disagrees
              if (variant == 2) a.mask &= ~(1u << (victim ^ partner));  // a partner sits out
              if (variant == 3) a.mask &= ~(1u << victim);              // ... the one that disagreed
              (rules::phase_lanes(a, BankConfig{}) > per ? merged : not_merged) += 1;
              bad += !same_as_run(a, "R6");
              ++n;
            }
          }
        }
      }
    }
  }
  CHECK(n == 2 * 2 * 2 * 4 * 7 * 2);
  CHECK(merged > 50);      // loads whose pairs agree (or whose disagreeing lane sits out)
  CHECK(not_merged > 100); // stores, and loads with a broken pair
  CHECK(bad == 0);
}

TEST_CASE("differential: random warps of every width, op and mask") {
  Rng rng{0xfeedfacecafebeefull};
  int bad = 0;
  for (int i = 0; i < 20000; ++i) {
    const int w = kWidths[rng.below(5)];
    WarpAccess a = warp(w, rng.below(2) ? Op::kLoad : Op::kStore, rng.below(3) ? 0xffffffffu : rng.next());
    const uint32_t pool = 1u + rng.below(64);
    const uint32_t spread = 16u << rng.below(8);  // 16 B .. 2 KiB apart
    for (uint32_t l = 0; l < 32; ++l) a.addr[l] = (rng.below(pool) * spread + rng.below(128)) / uint32_t(w) * uint32_t(w);
    bad += !same_as_run(a, "random");
  }
  CHECK(bad == 0);
}

// cost_on()'s 4-byte shared atomics: R8 (every active lane served alone, so the most active lanes
// on one bank) and R8b (ATOMS.POPC.INC: a 4-byte load's cost) take the LDS/STS count on each path;
// CAS and CAST.SPIN stay on the reference route. Every operation against simulate(), lanes drawn
// from few words so that active lanes share words (where R8 and R8b differ) and banks; the
// generator's coverage of shared words is counted by brute force.
TEST_CASE("differential: 4-byte shared atomics of every operation (R8, R8b, CAS, CAST.SPIN) on every path") {
  Rng rng{0x5eed0a70c0ffee11ull};
  const AtomOp ops[] = {AtomOp::kAdd, AtomOp::kMin,     AtomOp::kMax,     AtomOp::kExch,
                        AtomOp::kCas, AtomOp::kPopcInc, AtomOp::kCastSpin};
  int bad = 0, shared = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint32_t r = rng.below(4);
    WarpAccess a = warp(4, Op::kAtomic, r == 0 ? 0u : (r == 1 ? rng.next() : 0xffffffffu));
    a.atom = ops[rng.below(7)];
    const uint32_t pool = 1u + rng.below(48);
    const uint32_t spread = 4u << rng.below(10);  // 4 B .. 2 KiB apart
    for (uint32_t l = 0; l < 32; ++l) a.addr[l] = rng.below(pool) * spread;
    bool shares = false;
    for (uint32_t x = 0; x < 32; ++x)
      for (uint32_t y = x + 1; y < 32; ++y)
        shares |= (a.mask >> x & 1u) && (a.mask >> y & 1u) && a.addr[x] == a.addr[y];
    shared += shares;
    bad += !same_as_run(a, "atomic");
  }
  CHECK(bad == 0);
  CHECK(shared > 10000);
}

// The avx2 and portable paths count the active lanes of each (phase, bank group) and check one
// busiest group for two lanes on one unit (then they dedupe and count again). Aimed at that check:
// few bank groups and few rows, so groups hold 2-12 lanes; words shared by copying lanes; 1- and
// 2-byte lanes on bytes of one word; random masks. The generator's coverage is counted by brute
// force here (not by the code under test): warps whose first busiest group shares a unit while
// another group of the same lane count does not, and busiest groups of 5 or more distinct units.
TEST_CASE("differential: busiest bank groups with and without shared units (the count-then-check route)") {
  Rng rng{0x5eedc0de12345678ull};
  int bad = 0, n = 0, first_shares_other_not = 0, busiest_shares = 0, wide_distinct = 0;
  for (int i = 0; i < 30000; ++i, ++n) {
    const int w = kWidths[rng.below(5)];
    WarpAccess a = warp(w, rng.below(2) ? Op::kLoad : Op::kStore, rng.below(3) ? 0xffffffffu : rng.next() | rng.next());
    const int shift = w <= 4 ? 2 : (w == 8 ? 3 : 4);
    const uint32_t groups = 128u >> shift;
    const uint32_t group_pool = 1u + rng.below(4), rows = 1u + rng.below(16);
    const uint32_t g0 = rng.below(groups);
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t unit = (rng.below(rows) * 7u + 1u) * groups + (g0 + rng.below(group_pool)) % groups;
      a.addr[l] = (unit << shift) + (w < 4 ? rng.below(4u / uint32_t(w)) * uint32_t(w) : 0u);
    }
    for (uint32_t c = rng.below(8); c > 0; --c) a.addr[rng.below(32)] = a.addr[rng.below(32)];  // shared words
    bad += !same_as_run(a, "count-then-check");
    // Brute force, per phase: lane count and distinct units of each bank group.
    const int per = rules::phase_lanes(a, BankConfig{});
    for (int p0 = 0; p0 < 32; p0 += per) {
      int lanes[32] = {}, distinct[32] = {};
      for (int l = p0; l < p0 + per; ++l) {
        if (!((a.mask >> l) & 1u)) continue;
        const uint32_t u = a.addr[size_t(l)] >> shift, g = u % groups;
        ++lanes[g];
        bool seen = false;
        for (int k = p0; k < l; ++k) seen |= ((a.mask >> k) & 1u) && (a.addr[size_t(k)] >> shift) == u;
        distinct[g] += !seen;
      }
      int busiest = 0;
      for (uint32_t g = 0; g < groups; ++g) busiest = std::max(busiest, lanes[g]);
      if (busiest < 2) continue;
      int first = -1;  // the group of the lowest lane with the busiest count
      for (int l = p0; l < p0 + per && first < 0; ++l) {
        const int g = int((a.addr[size_t(l)] >> shift) % groups);
        if (((a.mask >> l) & 1u) && lanes[g] == busiest) first = g;
      }
      bool other_exact = false;
      for (uint32_t g = 0; g < groups; ++g) other_exact |= int(g) != first && lanes[g] == busiest && distinct[g] == busiest;
      busiest_shares += distinct[first] < busiest;
      first_shares_other_not += distinct[first] < busiest && other_exact;
      wide_distinct += busiest >= 5 && distinct[first] == busiest;
    }
  }
  MESSAGE("busiest group shares a unit: " << busiest_shares << ", and another of its count does not: "
                                          << first_shares_other_not << ", 5+ distinct: " << wide_distinct);
  CHECK(n == 30000);
  CHECK(busiest_shares > 5000);
  CHECK(first_shares_other_not > 100);
  CHECK(wide_distinct > 1000);
  CHECK(bad == 0);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] cost_rows(): the batch entry point is cost() row by row, and stops at the first bad row
// ---------------------------------------------------------------------------------------------

TEST_CASE("cost_rows: hand-checked rows, then the first bad row stops the batch, on every path") {
  // Row 0: tile[32][32] column (stride 128 B): 32 wavefronts, 31 conflicts. Row 1: stride 132 B
  // (tile[32][33]): 1, 0. Row 2: all lanes on one word (broadcast): 1, 0. Row 3: a misaligned lane
  // (lane 5 at byte 2) that is outside the mask 0xffffffdf: stride 128 B without lane 5: 31, 30.
  struct Case {
    const char* what;
    uint32_t bad_row;  // what is put in row 2, or 0 for none
    int bad_lane;
    uint32_t mask;
    size_t costed;  // rows cost_rows() reports done
  };
  const Case cases[] = {
      {"four good rows", 0, 0, 0xffffffffu, 4},
      {"row 2 lane 7 misaligned", 6, 7, 0xffffffffu, 2},
      {"row 2 lane 9 past 227 KiB", 227u * 1024u, 9, 0xffffffffu, 2},
      {"row 2 lane 31 at the last 4 bytes", 227u * 1024u - 4u, 31, 0xffffffffu, 4},
  };
  for (const Case& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    std::vector<uint32_t> addr(4 * kWarpSize);
    for (uint32_t l = 0; l < 32; ++l) {
      addr[l] = 128u * l;
      addr[32 + l] = 132u * l;
      addr[64 + l] = 64u;
      addr[96 + l] = l == 5 ? 2u : 128u * l;
    }
    if (c.bad_row != 0) addr[64 + c.bad_lane] = c.bad_row;
    const uint32_t masks[] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffdfu};
    for (CostPath p : kCostPaths) {
      if (!cost_path_supported(p)) continue;
      const std::string path = cost_path_name(p);
      CAPTURE(path);
      std::vector<int32_t> wf(4, -1), bc(4, -1);
      const size_t done = cost_rows_on(p, warp(4, Op::kLoad), addr.data(), masks, false, 4,
                                       kMaxSharedBytesPerBlockSm90, wf.data(), bc.data());
      CHECK(done == c.costed);
      CHECK(wf[0] == 32);
      CHECK(bc[0] == 31);
      CHECK(wf[1] == 1);
      CHECK(bc[1] == 0);
      if (done == 4) {
        CHECK(wf[2] == 1);
        CHECK(bc[2] == 0);
        CHECK(wf[3] == 31);
        CHECK(bc[3] == 30);
      } else {
        CHECK(wf[2] == -1);  // nothing written past the bad row
      }
    }
  }
}

TEST_CASE("cost_rows: equals simulate() row by row on random rows of every width, op and mask, every path") {
  Rng rng{0x5eedba7c4ull};
  int bad = 0;
  for (int batch = 0; batch < 200; ++batch) {
    const int w = kWidths[rng.below(5)];
    const Op op = rng.below(2) ? Op::kLoad : Op::kStore;
    const size_t n = 1 + rng.below(100);
    const bool one_mask = rng.below(2) == 0;
    std::vector<uint32_t> addr(n * kWarpSize), masks(one_mask ? 1 : n);
    for (uint32_t& m : masks) m = rng.below(3) ? 0xffffffffu : rng.next();
    const uint32_t pool = 1u + rng.below(64);
    const uint32_t spread = 16u << rng.below(8);
    for (uint32_t& x : addr) x = (rng.below(pool) * spread + rng.below(128)) / uint32_t(w) * uint32_t(w);
    // cost_rows() itself, then cost_rows_on() on every path this CPU has, against simulate().
    for (int k = -1; k < 3; ++k) {
      if (k >= 0 && !cost_path_supported(kCostPaths[k])) continue;
      std::vector<int32_t> wf(n), bc(n);
      const size_t done =
          k < 0 ? cost_rows(warp(w, op), addr.data(), masks.data(), one_mask, n, kMaxSharedBytesPerBlockSm90,
                            wf.data(), bc.data())
                : cost_rows_on(kCostPaths[k], warp(w, op), addr.data(), masks.data(), one_mask, n,
                               kMaxSharedBytesPerBlockSm90, wf.data(), bc.data());
      REQUIRE(done == n);
      for (size_t i = 0; i < n; ++i) {
        WarpAccess a = warp(w, op, masks[one_mask ? 0 : i]);
        std::copy(addr.begin() + static_cast<std::ptrdiff_t>(i * kWarpSize),
                  addr.begin() + static_cast<std::ptrdiff_t>((i + 1) * kWarpSize), a.addr.begin());
        const AccessCost c = simulate(a).cost;
        bad += wf[i] != c.wavefronts || bc[i] != c.bank_conflicts();
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("plain_cost_fn(): cost_sass() of an LDS/STS from lanes elsewhere, on every path; null where it is not cost()") {
  // Lanes from a small pool of words, so that lanes share words and banks (a 2-byte access read as
  // a 4-byte one, or any width through the wrong count, differs here), in random masks.
  Rng rng{0x91a1ull};
  int bad = 0, compared = 0;
  for (int k = 0; k < 3; ++k) {
    const CostPath p = kCostPaths[k];
    if (!cost_path_supported(p)) continue;
    for (const int w : kWidths) {
      for (int variant = 0; variant < 4; ++variant) {  // load, store; each plain and scattered
        const Op op = variant % 2 == 0 ? Op::kLoad : Op::kStore;
        const bool scattered = variant >= 2;
        const PlainCost f = plain_cost_fn(p, op, w, scattered);
        CAPTURE(cost_path_name(p));
        CAPTURE(w);
        CAPTURE(scattered);
        if (op == Op::kLoad && w >= 8) {  // R11: cost_sass() is not cost() for these
          const bool is_null = f == nullptr;
          CHECK(is_null);
          continue;
        }
        const bool has_fn = f != nullptr;
        REQUIRE(has_fn);
        for (int i = 0; i < 400; ++i) {
          WarpAccess a = warp(w, op, rng.below(3) ? 0xffffffffu : rng.next());
          alignas(64) std::array<uint32_t, kWarpSize> lanes{};
          const uint32_t pool = 1u + rng.below(48);
          for (uint32_t& x : lanes) x = (rng.below(pool) * 4u * (1u + rng.below(3)) + rng.below(16)) / uint32_t(w) * uint32_t(w);
          if (i % 4 == 0) {  // evenly spaced: the affine route, or (scattered) the general one
            const uint32_t stride = uint32_t(w) * rng.below(40), base = uint32_t(w) * rng.below(64);
            for (uint32_t lane = 0; lane < kWarpSize; ++lane) lanes[lane] = base + lane * stride;
          }
          a.addr = lanes;
          const AccessCost want = cost_sass(a);
          a.addr.fill(0xdead0u);  // not read: the lanes are at `lanes`
          const AccessCost got = f(a, lanes.data());
          ++compared;
          bad += got.wavefronts != want.wavefronts || got.ideal_wavefronts != want.ideal_wavefronts || got.n_way != want.n_way;
        }
      }
    }
  }
  CHECK(compared >= 4800);
  CHECK(bad == 0);
  for (const Op op : {Op::kAtomic, Op::kLdgsts, Op::kLdmatrix}) {
    const bool is_null = plain_cost_fn(CostPath::kPortable, op, 4) == nullptr;
    CHECK(is_null);
  }
}

TEST_CASE("atomic_cost_fn(): cost_sass() of a 4-byte atomic from lanes elsewhere, on every path; null for CAS, CAST.SPIN, 8 bytes") {
  // As plain_cost_fn()'s test: lanes from a small pool of words (lanes share words, where R8b's
  // POPC.INC costs a load's broadcast and R8's other atomics serve each lane alone), random masks
  // (the empty one too), every path, each plain and scattered.
  Rng rng{0xa70cull};
  const AtomOp atoms[] = {AtomOp::kAdd, AtomOp::kMin, AtomOp::kMax, AtomOp::kExch, AtomOp::kPopcInc};
  int bad = 0, compared = 0, shared_word = 0;
  for (int k = 0; k < 3; ++k) {
    const CostPath p = kCostPaths[k];
    if (!cost_path_supported(p)) continue;
    for (const AtomOp atom : atoms) {
      for (const bool scattered : {false, true}) {
        const PlainCost f = atomic_cost_fn(p, atom, 4, scattered);
        CAPTURE(cost_path_name(p));
        CAPTURE(atom_name(atom));
        CAPTURE(scattered);
        const bool has_fn = f != nullptr;
        REQUIRE(has_fn);
        for (int i = 0; i < 300; ++i) {
          WarpAccess a = warp(4, Op::kAtomic, i == 0 ? 0u : rng.below(3) ? 0xffffffffu : rng.next());
          a.atom = atom;
          alignas(64) std::array<uint32_t, kWarpSize> lanes{};
          const uint32_t pool = 1u + rng.below(48);
          for (uint32_t& x : lanes) x = rng.below(pool) * 4u * (1u + rng.below(40));
          if (i % 4 == 0) {  // evenly spaced (stride 0: every lane on one word)
            const uint32_t stride = 4u * rng.below(40), base = 4u * rng.below(64);
            for (uint32_t lane = 0; lane < kWarpSize; ++lane) lanes[lane] = base + lane * stride;
          }
          a.addr = lanes;
          const AccessCost want = cost_sass(a);
          shared_word += want.wavefronts != cost_sass(warp_as_load(a)).wavefronts;
          a.addr.fill(0xdead0u);  // not read: the lanes are at `lanes`
          const AccessCost got = f(a, lanes.data());
          ++compared;
          bad += got.wavefronts != want.wavefronts || got.ideal_wavefronts != want.ideal_wavefronts || got.n_way != want.n_way;
        }
      }
    }
  }
  CHECK(compared >= 3000);
  CHECK(shared_word > 100);  // the premise: R8 and R8b differ on many of these warps
  CHECK(bad == 0);
  for (const AtomOp atom : {AtomOp::kCas, AtomOp::kCastSpin}) {
    const bool is_null = atomic_cost_fn(CostPath::kPortable, atom, 4) == nullptr;
    CHECK(is_null);
  }
  for (const AtomOp atom : atoms) {
    const bool is_null = atomic_cost_fn(CostPath::kPortable, atom, 8) == nullptr;
    CHECK(is_null);
  }
}

TEST_CASE("split_cost_fn(): the two steps, the second from a copy of the lanes, give the scattered function's numbers") {
  // The scattered choice of 1-, 2- and 4-byte LDS/STS and of POPC.INC (R8b) on the AVX2 path has
  // two steps; every other function has none. Lanes as plain_cost_fn()'s test, and lanes random
  // over 48 KiB (busiest banks of 2 to 8 lanes, now and then two on one word: the dedupe), random
  // masks, the empty one too. The second step reads a copy of the lanes, the first's are then
  // overwritten (as a trace's report does: the reader writes the next execution's lanes in place).
  Rng rng{0x5b11ull};
  int bad = 0, compared = 0, dedupe = 0, over4 = 0;
  for (int k = 0; k < 3; ++k) {
    const CostPath p = kCostPaths[k];
    if (!cost_path_supported(p)) continue;
    for (const int w : kWidths) {
      for (const bool scattered : {false, true}) {
        for (const Op op : {Op::kLoad, Op::kStore, Op::kAtomic}) {
          const PlainCost f = op == Op::kAtomic ? atomic_cost_fn(p, AtomOp::kPopcInc, w, scattered) : plain_cost_fn(p, op, w, scattered);
          const SplitCost sc = split_cost_fn(f);
          CAPTURE(cost_path_name(p));
          CAPTURE(w);
          CAPTURE(scattered);
          CAPTURE(op_name(op));
          const bool split = sc.count != nullptr && sc.finish != nullptr;
          const bool none = sc.count == nullptr && sc.finish == nullptr;
          CHECK((split || none));
          CHECK(split == (p == CostPath::kAvx2 && scattered && w <= 4 && f != nullptr));
          if (!split) continue;
          for (int i = 0; i < 600; ++i) {
            WarpAccess a = warp(w, op, i == 0 ? 0u : rng.below(3) ? 0xffffffffu : rng.next());
            if (op == Op::kAtomic) a.atom = AtomOp::kPopcInc;
            alignas(64) std::array<uint32_t, kWarpSize> lanes{};
            if (i % 2 == 0) {
              const uint32_t pool = 1u + rng.below(48);
              for (uint32_t& x : lanes) x = (rng.below(pool) * 4u * (1u + rng.below(3)) + rng.below(16)) / uint32_t(w) * uint32_t(w);
            } else {
              for (uint32_t& x : lanes) x = rng.below(48 * 1024 / uint32_t(w)) * uint32_t(w);
            }
            a.addr = lanes;
            const AccessCost want = f(a, lanes.data());
            const AccessCost ref = cost_sass(a);
            a.addr.fill(0xdead0u);  // not read: the lanes are at `lanes`, then at `copy`
            alignas(64) std::array<uint32_t, kWarpSize> copy{};
            const BusiestLanes b = sc.count(a, lanes.data(), copy.data());
            lanes.fill(0xbad0u);
            const AccessCost got = sc.finish(a, copy.data(), b);
            ++compared;
            over4 += b.n > 4;
            dedupe += want.wavefronts < b.n;
            bad += got.wavefronts != want.wavefronts || got.ideal_wavefronts != want.ideal_wavefronts ||
                   got.n_way != want.n_way || want.wavefronts != ref.wavefronts || want.n_way != ref.n_way;
          }
        }
      }
    }
  }
  if (cost_path_supported(CostPath::kAvx2)) {
    CHECK(compared >= 4 * 600);
    CHECK(over4 > 50);   // the premise: the second step's route for five lanes or more is taken,
    CHECK(dedupe > 50);  // and so is its dedupe
  }
  CHECK(bad == 0);
}

TEST_CASE("access_valid() is validate().ok(), for every op, width, count, mask, atom and alignment") {
  // Random accesses, most of them near a boundary of a rule: widths 0-17, ldmatrix counts 0-5 with
  // row lanes off now and then, 8-byte atomics of each op, .cg at each width, one lane off its
  // alignment (an inactive one too, which must not count).
  std::mt19937 rng(41);
  const Op ops[] = {Op::kLoad, Op::kStore, Op::kAtomic, Op::kLdmatrix, Op::kStmatrix, Op::kLdgsts};
  const AtomOp atoms[] = {AtomOp::kAdd, AtomOp::kMin, AtomOp::kMax, AtomOp::kExch, AtomOp::kCas, AtomOp::kPopcInc,
                          AtomOp::kCastSpin};
  int valid = 0, invalid = 0;
  for (int i = 0; i < 40000; ++i) {
    WarpAccess a;
    a.op = ops[rng() % 6];
    a.width = rng() % 4 == 0 ? static_cast<int>(rng() % 18) : 1 << (rng() % 5);
    a.matrices = static_cast<int>(rng() % 6);
    a.atom = atoms[rng() % 7];
    a.bypass_l1 = rng() % 2 == 0;
    a.mask = rng() % 3 == 0 ? static_cast<uint32_t>(rng()) : rng() % 2 == 0 ? 0xffffffffu : ~(1u << (rng() % 32));
    const uint32_t w = a.width > 0 ? static_cast<uint32_t>(a.width) : 1u;
    for (uint32_t lane = 0; lane < 32; ++lane) a.addr[lane] = w * static_cast<uint32_t>(rng() % 4096);
    if (rng() % 3 == 0) a.addr[rng() % 32] += 1 + static_cast<uint32_t>(rng() % 15);  // off its alignment
    const bool want = validate(a, BankConfig{}).ok();
    CAPTURE(i);
    CHECK(access_valid(a) == want);
    (want ? valid : invalid) += 1;
  }
  CHECK(valid > 5000);
  CHECK(invalid > 5000);
}
