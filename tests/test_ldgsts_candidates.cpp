// test_ldgsts_candidates.cpp: the candidate cp.async rules of sim/ldgsts_candidates.hpp (not the
// model's rule). Hand-worked rows first, each value explained; then every line of the probe batch
// against scripts/ldgsts_rules.py's independent Python statement of the same rules
// (tests/conformance/ldgsts_src_v1_candidates.jsonl, regenerated and diffed by ctest
// conformance.ldgsts_candidates_dump), and R9 (cost()) against the Python H0 on the same lines.
#include <fstream>
#include <functional>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "sim/json_io.hpp"
#include "sim/ldgsts.hpp"
#include "sim/ldgsts_candidates.hpp"

using namespace bankscope;
namespace lc = bankscope::ldgsts_candidates;

namespace {

WarpAccess ldgsts(int width, const std::function<uint32_t(int)>& dst, uint32_t mask = 0xffffffffu,
                  bool cg = false) {
  WarpAccess a;
  a.op = Op::kLdgsts;
  a.width = width;
  a.mask = mask;
  a.bypass_l1 = cg;
  for (int l = 0; l < kWarpSize; ++l) a.addr[size_t(l)] = dst(l);
  return a;
}

lc::Sources sources(const std::function<uint32_t(int)>& f) {
  lc::Sources s{};
  for (int l = 0; l < kWarpSize; ++l) s[size_t(l)] = f(l);
  return s;
}

}  // namespace

TEST_CASE("ldgsts candidates: hand-worked cases") {
  const auto contig4 = [](int l) { return uint32_t(l) * 4; };
  const auto col = [](int l) { return uint32_t(l) * 16384; };  // a column of a 4096-float matrix
  // 4 B, contiguous destinations, contiguous sources: one line, one phase, every bank once -> 1 / 0
  // for every candidate.
  {
    const WarpAccess a = ldgsts(4, contig4);
    const lc::Sources s = lc::default_sources(a);
    CHECK(s[31] == 124);
    CHECK(lc::per_source_line(a, s).wavefronts == 1);
    CHECK(lc::line_shift(a, s).wavefronts == 1);
    CHECK(lc::bandwidth(a, s).wavefronts == 1);
    CHECK(lc::lane_runs(a, s).wavefronts == 1);
  }
  // The SGEMM-like column: every lane in its own line. H1: 32 passes of one lane = 32 / 0. H4:
  // max(1, 32 lines) = 32, R9's 0 conflicts. H3: 32 (line, shift) pairs. H5: 32 runs.
  {
    const WarpAccess a = ldgsts(4, contig4);
    const lc::Sources s = sources(col);
    CHECK(lc::per_source_line(a, s).wavefronts == 32);
    CHECK(lc::per_source_line(a, s).bank_conflicts() == 0);
    CHECK(lc::bandwidth(a, s).wavefronts == 32);
    CHECK(lc::bandwidth(a, s).bank_conflicts() == 0);
    CHECK(lc::line_shift(a, s).wavefronts == 32);
    CHECK(lc::lane_runs(a, s).wavefronts == 32);
  }
  // Groups of 8 lanes per column (4 lines): H1 4 passes x 1 = 4; H3: shift per group is constant
  // (dst - src = 32 g + 4 i - 16384 g - 4 i) -> 4 pairs.
  {
    const WarpAccess a = ldgsts(4, contig4);
    const lc::Sources s =
        sources([](int l) { return uint32_t(l / 8) * 16384 + uint32_t(l % 8) * 4; });
    CHECK(lc::per_source_line(a, s).wavefronts == 4);
    CHECK(lc::line_shift(a, s).wavefronts == 4);
  }
  // All 32 lanes on one destination word, sources in one line: R9 = 32 / 31 (bank 0 serves 32
  // lanes, measured ldgsts4_es0); H1 the same (one pass); H4 max(32, 1) = 32 / 31.
  {
    const WarpAccess a = ldgsts(4, [](int) { return 0u; });
    const lc::Sources s = lc::default_sources(a);
    CHECK(lc::per_source_line(a, s).wavefronts == 32);
    CHECK(lc::per_source_line(a, s).bank_conflicts() == 31);
    CHECK(lc::bandwidth(a, s).bank_conflicts() == 31);
    // ... the same destinations from a column: 32 passes of one lane, 1 each: 32 / 0 under H1.
    CHECK(lc::per_source_line(a, sources(col)).wavefronts == 32);
    CHECK(lc::per_source_line(a, sources(col)).bank_conflicts() == 0);
  }
  // Sources alternating between two lines (even lanes line 0, odd lanes 1 KiB away): H1 2 passes
  // of 16 lanes (1 each) = 2; H5 32 runs of one lane = 32.
  {
    const WarpAccess a = ldgsts(4, contig4);
    const lc::Sources s =
        sources([](int l) { return uint32_t(l % 2) * 1024 + uint32_t(l / 2) * 4; });
    CHECK(lc::per_source_line(a, s).wavefronts == 2);
    CHECK(lc::lane_runs(a, s).wavefronts == 32);
  }
  // .cg 16 B: contiguous both sides -> H3 4 lines x shift 0 = 4 (measured 4); destinations
  // (l/2)*16 -> 16 kept lanes with distinct shifts -16k = 16 (measured 16); one destination -> 1.
  {
    const lc::Sources s = sources([](int l) { return uint32_t(l) * 16; });
    CHECK(lc::line_shift(ldgsts(
                             16, [](int l) { return uint32_t(l) * 16; }, 0xffffffffu, true),
                         s)
              .wavefronts == 4);
    CHECK(lc::line_shift(ldgsts(
                             16, [](int l) { return uint32_t(l / 2) * 16; }, 0xffffffffu, true),
                         s)
              .wavefronts == 16);
    CHECK(lc::line_shift(ldgsts(
                             16, [](int) { return 0u; }, 0xffffffffu, true),
                         s)
              .wavefronts == 1);
  }
  // An inactive lane's source never counts: lane 5 alone -> 1 / 0.
  {
    const WarpAccess a = ldgsts(4, contig4, 1u << 5);
    CHECK(lc::per_source_line(a, sources(col)).wavefronts == 1);
    CHECK(lc::bandwidth(a, sources(col)).wavefronts == 1);
  }
}

TEST_CASE(
    "ldgsts candidates: C++ equals scripts/ldgsts_rules.py on every probe line (and cost() equals "
    "its R9)") {
  const std::string dir = std::string(BANKSCOPE_SOURCE_DIR) + "/tests/conformance/";
  std::ifstream batch(dir + "ldgsts_src_v1.jsonl"), py(dir + "ldgsts_src_v1_candidates.jsonl");
  REQUIRE(batch.good());
  REQUIRE(py.good());
  std::string bl, pl;
  int n = 0;
  const auto pair = [](const AccessCost& c) {
    return std::make_pair(c.wavefronts, c.bank_conflicts());
  };
  const auto want = [](const nlohmann::json& j) {
    return std::make_pair(j[0].get<int>(), j[1].get<int>());
  };
  while (std::getline(batch, bl)) {
    REQUIRE(std::getline(py, pl));
    ++n;
    auto p = parse_pattern_line(bl);
    REQUIRE(p.ok());
    const nlohmann::json e = nlohmann::json::parse(pl);
    CAPTURE(e["id"].get<std::string>());
    REQUIRE(e["id"].get<std::string>() == p->object["id"].get<std::string>());
    const WarpAccess& a = p->access;
    const lc::Sources& s = p->src;
    WarpAccess ca = a;
    ca.bypass_l1 = false;  // the Python H0 is the old R9 (.ca, destinations only)
    // cost() of an access alone uses the contiguous default source, where R9 (H9) is the old rule.
    CHECK(pair(cost(ca)) == want(e["H0_dest_only"]));
    // R9 as adopted (sim/ldgsts.hpp) with the pattern's sources = the Python twin, both kinds.
    CHECK(pair(ldgsts_cost(a, s)) == want(e["R9_model"]));
    CHECK(pair(ldgsts_cost(ca, s)) == want(e["H9_ca_neighbourhood"]));
    CHECK(pair(lc::per_source_line(a, s)) == want(e["H1_per_line"]));
    CHECK(pair(lc::line_shift(a, s)) == want(e["H3_line_shift"]));
    CHECK(pair(lc::bandwidth(a, s)) == want(e["H4_bandwidth"]));
    CHECK(pair(lc::lane_runs(a, s)) == want(e["H5_lane_runs"]));
  }
  CHECK(n > 300);
}

TEST_CASE("R9 .ca (H9): the schedule ldgsts_cost() hands out fits its count") {
  // Random .ca patterns of every width with sources and destinations on few banks (so that both
  // sides collide), random masks: every active lane gets a wavefront of the instruction, no two
  // lanes of one wavefront share a source bank or a destination bank, and every wavefront of the
  // count holds a lane (simulate() draws each one).
  uint64_t x = 0x9e3779b97f4a7c15ull;
  const auto next = [&x]() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return uint32_t(x >> 11);
  };
  for (int t = 0; t < 600; ++t) {
    const int width = 4 << (t % 3);
    const uint32_t banks = 1u + next() % 6;  // units per side: few, so that lanes collide
    WarpAccess a = ldgsts(
        width, [&](int) { return (next() % banks) * uint32_t(width) + (next() % 8) * 128u; },
        next() | 1u);
    const LdgstsSources s =
        sources([&](int) { return (next() % banks) * uint32_t(width) + (next() % 64) * 128u; });
    int wf[kWarpSize];
    const AccessCost c = ldgsts_cost(a, s, false, wf);
    REQUIRE(c.wavefronts > 0);
    std::vector<int> in_wf(size_t(c.wavefronts), 0);
    for (int l = 0; l < kWarpSize; ++l) {
      const bool on = (a.mask >> l) & 1u;
      CHECK((wf[l] >= 0) == on);
      if (!on) continue;
      REQUIRE(wf[l] < c.wavefronts);
      ++in_wf[size_t(wf[l])];
      for (int m = 0; m < l; ++m) {
        if (!((a.mask >> m) & 1u) || wf[m] != wf[l]) continue;
        const uint32_t src_shared = ldgsts_detail::bank_bits(s[size_t(l)], width) &
                                    ldgsts_detail::bank_bits(s[size_t(m)], width);
        const uint32_t dst_shared = ldgsts_detail::bank_bits(a.addr[size_t(l)], width) &
                                    ldgsts_detail::bank_bits(a.addr[size_t(m)], width);
        CHECK(src_shared == 0u);
        CHECK(dst_shared == 0u);
      }
    }
    for (int n : in_wf) CHECK(n > 0);
    // A lane's wavefront lies inside its phase's: phases are costed one after the other.
    uint32_t phase_mask[kWarpSize];
    const int phases = rules::phases(a, BankConfig{}, phase_mask);
    int first = 0;
    for (int ph = 0; ph < phases; ++ph) {
      int last = first - 1;
      for (int l = 0; l < kWarpSize; ++l) {
        if (((phase_mask[ph] >> l) & 1u) == 0) continue;
        CHECK(wf[l] >= first);
        last = std::max(last, wf[l]);
      }
      first = last + 1;
    }
    CHECK(first == c.wavefronts);
  }
}

TEST_CASE(
    "R9 .cg (H10): the C++ equals scripts/ldgsts_rules.py on patterns that exercise the rank") {
  // tests/conformance/ldgsts_cg_rank_check.jsonl (gen_ldgsts_cg_rank_check.py, diffed by ctest
  // conformance.ldgsts_cg_rank_check_gen): 400 random .cg patterns, pieces read several times into
  // one or two rows, each with the Python H10's count; the rank changes the count on 87 of them.
  std::ifstream in(std::string(BANKSCOPE_SOURCE_DIR) +
                   "/tests/conformance/ldgsts_cg_rank_check.jsonl");
  REQUIRE(in.good());
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    auto p = parse_pattern_line(line);
    REQUIRE(p.ok());
    const nlohmann::json want = nlohmann::json::parse(line)["h10"];
    CAPTURE(p->object["id"].get<std::string>());
    int wf[kWarpSize];
    const AccessCost c = ldgsts_cost(p->access, p->src, false, wf);
    CHECK(c.wavefronts == want[0].get<int>());
    CHECK(c.bank_conflicts() == want[1].get<int>());
    for (int l = 0; l < kWarpSize; ++l) {
      if ((p->access.mask >> l) & 1u) CHECK((wf[l] >= 0 && wf[l] < c.wavefronts));
    }
    ++n;
  }
  CHECK(n == 400);
}
