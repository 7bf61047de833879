// test_instr_kinds.cpp: the issue-11 instruction kinds (ldmatrix, stmatrix, shared atomics,
// cp.async) through the JSONL interface: parsing, validation errors, and hand-worked predictions of
// the first (assumed) rules R7-R9 of sim/rules.hpp. Every number below is worked out in its comment.
// Written as JSON text on purpose: the same lines are what bankscope-cli and bankscope-gpu read.
#include <fstream>
#include <functional>
#include <string>

#include <doctest/doctest.h>

#include "sim/json_io.hpp"

using namespace bankscope;

namespace {

// 32 offsets from a lane -> byte offset function.
std::string offsets(const std::function<uint32_t(int)>& f) {
  std::string s = "[";
  for (int l = 0; l < 32; ++l) s += (l ? "," : "") + std::to_string(f(l));
  return s + "]";
}

struct Want {
  std::string line;
  int wavefronts;
  int conflicts;
};

}  // namespace

TEST_CASE("ldmatrix / stmatrix: one phase per 8x8 matrix (R7, assumed)") {
  const Want rows[] = {
      // x4, rows back to back: matrix k = lanes 8k..8k+7 = bytes 128k..128k+127, every bank once.
      {R"({"op": "ldmatrix", "num": 4, "trans": false, "mask": "0xffffffff", "offsets": )" +
           offsets([](int l) { return uint32_t(l) * 16; }) + "}",
       4, 0},
      // .trans: the same rows, the same shared-side cost.
      {R"({"op": "ldmatrix", "num": 4, "trans": true, "offsets": )" + offsets([](int l) { return uint32_t(l) * 16; }) + "}",
       4, 0},
      // x1, row stride 128 B: all 8 rows in banks 0-3, 8 distinct words each -> 8 wavefronts.
      {R"({"op": "ldmatrix", "num": 1, "offsets": )" + offsets([](int l) { return uint32_t(l % 8) * 128; }) + "}", 8, 7},
      // x1, row stride 64 B: rows alternate banks 0-3 / 16-19, 4 distinct words per bank -> 4.
      {R"({"op": "ldmatrix", "num": 1, "offsets": )" + offsets([](int l) { return uint32_t(l % 8) * 64; }) + "}", 4, 3},
      // x1: lanes 8..31 are unused, so their conflicting addresses cost nothing.
      {R"({"op": "ldmatrix", "num": 1, "offsets": )" +
           offsets([](int l) { return l < 8 ? uint32_t(l) * 16 : uint32_t(l) * 128; }) + "}",
       1, 0},
      // x2, every row address the same: one word per bank per matrix -> 1 + 1.
      {R"({"op": "ldmatrix", "num": 2, "trans": true, "offsets": )" + offsets([](int) { return 256u; }) + "}", 2, 0},
      // x4 where matrix 1 repeats matrix 0's rows (bytes 0..127): phases are counted separately.
      {R"({"op": "ldmatrix", "num": 4, "offsets": )" + offsets([](int l) { return uint32_t(l % 16 % 8) * 16 + (l >= 16 ? 1024u : 0u); }) + "}",
       4, 0},
      // stmatrix x2, row stride 256 B: 8 rows in banks 0-3 per matrix -> 8 + 8.
      {R"({"op": "stmatrix", "num": 2, "offsets": )" + offsets([](int l) { return uint32_t(l % 8) * 256 + (l >= 8 ? 16u : 0u); }) + "}",
       16, 14},
      // A mask without lanes >= 8*num is fine (they are unused anyway).
      {R"({"op": "stmatrix", "num": 1, "mask": "0x000000ff", "offsets": )" + offsets([](int l) { return uint32_t(l) * 16; }) + "}",
       1, 0},
  };
  for (const Want& w : rows) {
    CAPTURE(w.line);
    auto p = parse_pattern_line(w.line);
    REQUIRE(p.ok());
    const auto out = predict_pattern(*p);
    CHECK(out["wavefronts"] == w.wavefronts);
    CHECK(out["bank_conflicts"] == w.conflicts);
    // The reference simulate() agrees with cost().
    const AccessReport rep = simulate(p->access);
    CHECK(rep.cost.wavefronts == w.wavefronts);
  }
}

TEST_CASE("shared atomics and cp.async: store-like phases, each lane alone (R8, R9, measured)") {
  const Want rows[] = {
      // 32-bit atom, all lanes on one word: 32 lanes in bank 0, served one by one -> 32, ideal 1
      // (H200: atom32_add_all_same 32/31).
      {R"({"op": "atom", "width": 4, "atom": "add", "offsets": )" + offsets([](int) { return 64u; }) + "}", 32, 31},
      // 32-bit cas, lanes 128 B apart: 32 lanes in bank 0 -> 32, twice for CAS -> 64; the second
      // pass is no conflict -> 31 (H200: atom32_cas_nway8 16/7 is the 8-way case).
      {R"({"op": "atom", "width": 4, "atom": "cas", "offsets": )" + offsets([](int l) { return uint32_t(l) * 128; }) + "}", 64, 31},
      // 32-bit atom, 4-way: lanes l and l+8, l+16, l+24 share a bank, distinct words.
      {R"({"op": "atom", "width": 4, "atom": "max", "offsets": )" + offsets([](int l) { return uint32_t(l % 8) * 4 + uint32_t(l / 8) * 128; }) + "}", 4, 3},
      // 64-bit exch, contiguous: two half-warp phases of 128 B -> 2, ideal 2.
      {R"({"op": "atom", "width": 8, "atom": "exch", "offsets": )" + offsets([](int l) { return uint32_t(l) * 8; }) + "}", 2, 0},
      // 64-bit cas, lanes 0..15 only, all one word: one phase, 16 lanes in banks 2 and 3 -> 16,
      // twice for CAS -> 32, conflicts 15 (H200: atom64_cas_all_same_hi 32/15, the other half).
      {R"({"op": "atom", "width": 8, "atom": "cas", "mask": "0x0000ffff", "offsets": )" + offsets([](int) { return 8u; }) + "}", 32, 15},
      // ldgsts 16 B contiguous: four quarter-warp phases -> 4, ideal 4.
      {R"({"op": "ldgsts", "width": 16, "offsets": )" + offsets([](int l) { return uint32_t(l) * 16; }) + "}", 4, 0},
      // ldgsts 4 B .ca, every lane one address: each lane alone -> 32 (H200: ldgsts4_es0 32/31).
      // (.cg is not pinned here: no rule fits its measurements yet, sim/RULES.md R9.)
      {R"({"op": "ldgsts", "width": 4, "offsets": )" + offsets([](int) { return 0u; }) + "}", 32, 31},
      // ldgsts 4 B, word stride 2: 2-way in every bank -> 2.
      {R"({"op": "ldgsts", "width": 4, "offsets": )" + offsets([](int l) { return uint32_t(l) * 8; }) + "}", 2, 1},
  };
  for (const Want& w : rows) {
    CAPTURE(w.line);
    auto p = parse_pattern_line(w.line);
    REQUIRE(p.ok());
    const auto out = predict_pattern(*p);
    CHECK(out["wavefronts"] == w.wavefronts);
    CHECK(out["bank_conflicts"] == w.conflicts);
    const AccessReport rep = simulate(p->access);
    CHECK(rep.cost.wavefronts == w.wavefronts);
    // The picture lists every wavefront the count has (CAS: both passes; fuzz_jsonl found the
    // second pass missing from the list).
    CHECK(rep.wavefronts.size() == static_cast<size_t>(w.wavefronts));
  }
}

TEST_CASE("issue-11 kinds: errors name the field and the reason") {
  const std::string contig16 = offsets([](int l) { return uint32_t(l) * 16; });
  struct Row {
    std::string line;
    std::string error;
  };
  const Row rows[] = {
      {R"({"op": "ldmatrix", "offsets": )" + contig16 + "}", "missing 'num' (1, 2 or 4 matrices: .x1, .x2, .x4)"},
      {R"({"op": "ldmatrix", "num": 3, "offsets": )" + contig16 + "}", "num: 3 must be 1, 2 or 4"},
      {R"({"op": "ldmatrix", "num": 8, "offsets": )" + contig16 + "}", "num: 8 is out of range 1..4"},
      {R"({"op": "ldmatrix", "num": 1, "trans": 1, "offsets": )" + contig16 + "}", "trans: expected true or false, got a number"},
      {R"({"op": "ldmatrix", "num": 1, "width": 8, "offsets": )" + contig16 + "}", "width: 8 is out of range 16..16 (ldmatrix rows are 16 bytes)"},
      // Row addresses must be 16-byte aligned (the GPU faults): lane 3 at byte 56.
      {R"({"op": "ldmatrix", "num": 1, "offsets": )" + offsets([](int l) { return l == 3 ? 56u : uint32_t(l) * 16; }) + "}",
       "lane 3: byte offset 56 is not 16-byte aligned (the GPU faults with \"misaligned address\")"},
      // ... but an unused lane's address is not checked: lane 9 of an .x1 may be anything.
      {R"({"op": "stmatrix", "num": 2, "mask": "0xffff7fff", "offsets": )" + contig16 + "}",
       "row lanes 0..15 must all be in the mask: stmatrix.x2 is .sync.aligned (the whole warp executes it)"},
      {R"({"op": "atom", "width": 4, "offsets": )" + contig16 + "}", "missing 'atom' (\"add\", \"min\", \"max\", \"exch\", \"cas\" or \"popc_inc\")"},
      {R"({"op": "atom", "width": 4, "atom": "and", "offsets": )" + contig16 + "}", "atom: 'and' must be \"add\", \"min\", \"max\", \"exch\", \"cas\" or \"popc_inc\""},
      {R"({"op": "atom", "width": 2, "atom": "add", "offsets": )" + contig16 + "}", "width: atom is 4 or 8 bytes, not 2"},
      {R"({"op": "atom", "width": 8, "atom": "min", "offsets": )" + contig16 + "}",
       "atom min of 8 bytes is not one instruction on sm_90"},
      {R"({"op": "atom", "width": 8, "atom": "add", "offsets": )" + contig16 + "}",
       "atom add of 8 bytes is not one instruction on sm_90"},
      {R"({"op": "atom", "width": 8, "atom": "exch", "offsets": )" + offsets([](int l) { return l == 7 ? 4u : 0u; }) + "}",
       "lane 7: byte offset 4 is not 8-byte aligned"},
      {R"({"op": "ldgsts", "width": 2, "offsets": )" + contig16 + "}", "width: ldgsts (cp.async) copies 4, 8 or 16 bytes, not 2"},
      {R"({"op": "ldgsts", "width": 8, "cache": "cg", "offsets": )" + contig16 + "}", "cache: cp.async.cg copies 16 bytes only (PTX ISA), not 8"},
      {R"({"op": "ldgsts", "width": 16, "cache": "cs", "offsets": )" + contig16 + "}", "cache: 'cs' must be \"ca\" or \"cg\""},
      {R"({"op": "ldgsts", "offsets": )" + contig16 + "}", "missing 'width' (4, 8 or 16)"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.line);
    auto p = parse_pattern_line(r.line);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.rfind(r.error, 0) == 0);
  }
  // An unused lane (>= 8*num) may hold a misaligned address: the instruction never reads it.
  auto ok = parse_pattern_line(R"({"op": "ldmatrix", "num": 1, "offsets": )" +
                               offsets([](int l) { return l == 9 ? 4u : uint32_t(l) * 16; }) + "}");
  CHECK(ok.ok());
}

TEST_CASE("issue-11 kinds: the output echoes the input and round-trips through pattern_to_json") {
  auto p = parse_pattern_line(R"({"id": "x", "op": "stmatrix", "num": 2, "trans": true, "mask": "0x0000ffff", "offsets": )" +
                              offsets([](int l) { return uint32_t(l) * 16; }) + "}");
  REQUIRE(p.ok());
  const auto out = predict_pattern(*p);
  CHECK(out.begin().key() == "id");
  CHECK(out["wavefronts"] == 2);
  auto back = parse_pattern_object(pattern_to_json(p->access));
  REQUIRE(back.ok());
  CHECK(back->access.op == Op::kStmatrix);
  CHECK(back->access.matrices == 2);
  CHECK(back->access.trans);
  CHECK(back->access.mask == 0xffffu);
  auto a = parse_pattern_line(R"({"op": "ldgsts", "width": 16, "cache": "cg", "offsets": )" +
                              offsets([](int l) { return uint32_t(l) * 16; }) + "}");
  REQUIRE(a.ok());
  const auto j = pattern_to_json(a->access);
  CHECK(j["cache"] == "cg");
  CHECK(j["op"] == "ldgsts");
  // LDS/STS keep their output form: width first, then op, no new keys.
  auto ld = parse_pattern_line(R"({"width": 4, "op": "ld", "offsets": )" + offsets([](int l) { return uint32_t(l) * 4; }) + "}");
  REQUIRE(ld.ok());
  CHECK(pattern_to_json(ld->access).dump().rfind(R"({"width":4,"op":"ld","mask":"0xffffffff","offsets":[0,4,)", 0) == 0);
}

TEST_CASE("ldgsts: per-lane global source offsets (\"src\"), default and errors") {
  const std::string contig4 = offsets([](int l) { return uint32_t(l) * 4; });
  // Omitted: the kernel's historical source, lane l at l * width (so old lines keep their meaning).
  auto d = parse_pattern_line(R"({"op": "ldgsts", "width": 8, "offsets": )" + offsets([](int l) { return uint32_t(l) * 8; }) + "}");
  REQUIRE(d.ok());
  CHECK_FALSE(d->src_given);
  CHECK(d->src[0] == 0);
  CHECK(d->src[1] == 8);
  CHECK(d->src[31] == 248);
  // Given: taken lane by lane (a column of a 4096-float column-major matrix: 16384-byte stride).
  auto g = parse_pattern_line(R"({"op": "ldgsts", "width": 4, "offsets": )" + contig4 + R"(, "src": )" +
                              offsets([](int l) { return uint32_t(l) * 16384; }) + "}");
  REQUIRE(g.ok());
  CHECK(g->src_given);
  CHECK(g->src[31] == 507904);
  // R9 reads src: all 32 sources on bank 0 (16384-byte stride), each lane served alone -> 32 / 31
  // (measured on the H200: ls_w4ca_dcontig_stride16384 32/31), where the destinations alone give 1.
  CHECK(predict_pattern(*g)["wavefronts"] == 32);
  CHECK(predict_pattern(*g)["bank_conflicts"] == 31);
  CHECK(predict_pattern(*d)["wavefronts"] == 2);   // contiguous 8-byte row: two half-warp phases
  CHECK(predict_pattern(*g)["src"].size() == 32);  // echoed
  struct Row {
    std::string line;
    std::string error;
  };
  const Row rows[] = {
      {R"({"op": "ld", "width": 4, "offsets": )" + contig4 + R"(, "src": )" + contig4 + "}",
       "src: only an ldgsts (cp.async) pattern has global source offsets"},
      {R"({"op": "ldgsts", "width": 4, "offsets": )" + contig4 + R"(, "src": [0, 4]})",
       "src: expected an array of exactly 32 global byte offsets, got 2 entries"},
      {R"({"op": "ldgsts", "width": 4, "offsets": )" + contig4 + R"(, "src": 7})",
       "src: expected an array of exactly 32 global byte offsets, got a number"},
      {R"({"op": "ldgsts", "width": 4, "offsets": )" + contig4 + R"(, "src": )" +
           offsets([](int l) { return l == 5 ? 67108864u : uint32_t(l) * 4; }) + "}",
       "src[5]: 67108864 is out of range 0..67108863"},
      // cp.async needs its global source aligned to the copy size (PTX ISA): the GPU faults.
      {R"({"op": "ldgsts", "width": 16, "offsets": )" + offsets([](int l) { return uint32_t(l) * 16; }) + R"(, "src": )" +
           offsets([](int l) { return l == 9 ? 152u : uint32_t(l) * 16; }) + "}",
       "src[9]: global byte offset 152 is not 16-byte aligned (the GPU faults with \"misaligned address\")"},
      {R"({"op": "ldgsts", "width": 4, "l2_prefetch": 32, "offsets": )" + contig4 + "}",
       "l2_prefetch: 32 must be 0, 64, 128 or 256 (bytes, PTX .L2::<n>B)"},
      {R"({"op": "atom", "width": 4, "atom": "add", "l2_prefetch": 128, "offsets": )" + contig4 + "}",
       "l2_prefetch: only an ldgsts (cp.async) pattern has an L2 prefetch hint"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.line);
    auto p = parse_pattern_line(r.line);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.rfind(r.error, 0) == 0);
  }
  auto pf = parse_pattern_line(R"({"op": "ldgsts", "width": 4, "l2_prefetch": 128, "offsets": )" + contig4 + "}");
  REQUIRE(pf.ok());
  CHECK(pf->l2_prefetch == 128);
  CHECK(d->l2_prefetch == 0);
  // An inactive lane's source is never used: a misaligned one is accepted.
  auto inactive = parse_pattern_line(R"({"op": "ldgsts", "width": 8, "mask": "0xfffffffe", "offsets": )" +
                                     offsets([](int l) { return uint32_t(l) * 8; }) + R"(, "src": )" +
                                     offsets([](int l) { return l == 0 ? 3u : uint32_t(l) * 8; }) + "}");
  CHECK(inactive.ok());
}

TEST_CASE("every line of the issue-11 suite (tests/conformance/patterns_v2.jsonl) parses and predicts") {
  std::ifstream in(std::string(BANKSCOPE_SOURCE_DIR) + "/tests/conformance/patterns_v2.jsonl");
  REQUIRE(in.good());
  std::string line;
  int n = 0, ldsm = 0, stsm = 0, atoms = 0, ldgsts = 0;
  while (std::getline(in, line)) {
    ++n;
    auto p = parse_pattern_line(line);
    INFO("line " << n << ": " << (p.ok() ? "" : p.error().message));
    REQUIRE(p.ok());
    const auto out = predict_pattern(*p);
    CHECK(out["wavefronts"].get<int>() >= out["bank_conflicts"].get<int>());
    ldsm += p->access.op == Op::kLdmatrix;
    stsm += p->access.op == Op::kStmatrix;
    atoms += p->access.op == Op::kAtomic;
    ldgsts += p->access.op == Op::kLdgsts;
  }
  // The generator's summary: 619 patterns (README, "Issue 11 suite").
  CHECK(n == 619);
  CHECK(ldsm > 0);
  CHECK(stsm > 0);
  CHECK(atoms > 0);
  CHECK(ldgsts > 0);
}

TEST_CASE("every line of the cp.async source probe batch (tests/conformance/ldgsts_src_v1.jsonl) parses") {
  std::ifstream in(std::string(BANKSCOPE_SOURCE_DIR) + "/tests/conformance/ldgsts_src_v1.jsonl");
  REQUIRE(in.good());
  std::string line;
  int n = 0, with_src = 0, prefetch = 0;
  while (std::getline(in, line)) {
    ++n;
    auto p = parse_pattern_line(line);
    INFO("line " << n << ": " << (p.ok() ? "" : p.error().message));
    REQUIRE(p.ok());
    CHECK(p->access.op == Op::kLdgsts);
    with_src += p->src_given;
    prefetch += p->l2_prefetch != 0;
  }
  CHECK(n > 300);
  CHECK(with_src == n);  // every probe names its sources
  CHECK(prefetch > 0);
}

namespace {
WarpAccess access_of(Op op, int width, uint32_t mask, const std::function<uint32_t(int)>& addr) {
  WarpAccess a;
  a.op = op;
  a.width = width;
  a.mask = mask;
  for (int l = 0; l < kWarpSize; ++l) a.addr[static_cast<size_t>(l)] = (mask >> l & 1u) ? addr(l) : 0;
  return a;
}
}  // namespace

// R11, measured on the H200 (assets/results/h200/2026-12-01z): the instruction-level counters merge
// R6's phases only where the merged phase needs one wavefront; the hardware merges with conflicts.
TEST_CASE("cost_sass: Nsight Compute's instruction-level counters against the hardware's (R11)") {
  // 8 bytes, lanes l and l ^ 2 on one address, two words of one bank ([0, 128, 0, 128, ...]).
  const WarpAccess alt = access_of(Op::kLoad, 8, ~0u, [](int l) { return 128u * (l % 2); });
  CHECK(cost(alt).wavefronts == 2);
  CHECK(cost(alt).bank_conflicts() == 1);
  CHECK(cost_sass(alt).wavefronts == 4);           // two half-warps, 2 each
  CHECK(cost_sass(alt).ideal_wavefronts == 2);     // min(4, ceil(32 x 8 / 128))
  // The merged warp conflict-free ([0, 8, 0, 8, ...]): both count 1.
  const WarpAccess mod2 = access_of(Op::kLoad, 8, ~0u, [](int l) { return 8u * (l % 2); });
  CHECK(cost(mod2).wavefronts == 1);
  CHECK(cost_sass(mod2).wavefronts == 1);
  // 16 bytes, lanes 0 and 16 alone on one address: the hardware's two half-warps, one instruction-level.
  const WarpAccess two = access_of(Op::kLoad, 16, 0x00010001u, [](int) { return 64u; });
  CHECK(cost(two).wavefronts == 2);
  CHECK(cost_sass(two).wavefronts == 1);
  // 16 bytes, every lane on one address: 2 both ways (ceil(32 x 16 / 256)).
  const WarpAccess all = access_of(Op::kLoad, 16, ~0u, [](int) { return 64u; });
  CHECK(cost(all).wavefronts == 2);
  CHECK(cost_sass(all).wavefronts == 2);
  // A partial mask over both half-warps that no pairing merges (lanes 0-3 and 16-19 on distinct
  // words): the hardware's ideal counts the two phases, the source view's the bytes.
  const WarpAccess spread = access_of(Op::kLoad, 8, 0x000f000fu, [](int l) { return 8u * l; });
  CHECK(cost(spread).wavefronts == 2);
  CHECK(cost(spread).ideal_wavefronts == 2);
  CHECK(cost_sass(spread).wavefronts == 2);
  CHECK(cost_sass(spread).ideal_wavefronts == 1);  // min(2, ceil(8 x 8 / 128))
  // Stores and 4-byte loads: the same as cost().
  for (const WarpAccess& a : {access_of(Op::kStore, 8, ~0u, [](int l) { return 128u * (l % 2); }),
                              access_of(Op::kLoad, 4, ~0u, [](int l) { return 128u * l; })}) {
    CHECK(cost_sass(a).wavefronts == cost(a).wavefronts);
    CHECK(cost_sass(a).ideal_wavefronts == cost(a).ideal_wavefronts);
  }
}

// R8c (assets/results/h200/2026-12-01x): one ATOMS.CAST.SPIN execution, 2 wavefronts per phase.
TEST_CASE("ATOMS.CAST.SPIN: 2 wavefronts per phase, one lane per bank swaps (R8c)") {
  WarpAccess a = access_of(Op::kAtomic, 4, ~0u, [](int l) { return 128u * l; });  // 32 words, one bank
  a.atom = AtomOp::kCastSpin;
  REQUIRE(validate(a, BankConfig{}).ok());
  CHECK(cost(a).wavefronts == 2);
  CHECK(cost(a).bank_conflicts() == 0);
  const AccessReport r = simulate(a);
  CHECK(r.cost.wavefronts == 2);
  REQUIRE(r.wavefronts.size() == 2);
  CHECK(r.wavefronts[0].words.size() == 1);  // bank 0 swaps lane 0's word only
  CHECK(r.wavefronts[1].lanes == ~0u);       // every lane has its result (swapped or not)
  // 8 bytes, all lanes on one word: both half-warps (4 wavefronts), the second half's lane fails on
  // the word the first just swapped, so the picture carries that word once.
  WarpAccess w = access_of(Op::kAtomic, 8, ~0u, [](int) { return 64u; });
  w.atom = AtomOp::kCastSpin;
  CHECK(cost(w).wavefronts == 4);
  CHECK(cost_sass(w).ideal_wavefronts == 4);  // 2 x ceil(32 x 8 / 128)
  const AccessReport r8 = simulate(w);
  REQUIRE(r8.wavefronts.size() == 4);
  CHECK(r8.wavefronts[0].words.size() == 2);  // lane 0's 8 bytes: two banks
  CHECK(r8.wavefronts[2].words.empty());      // lane 16: stale, no swap
  // Which lanes retry (LaneDetail::retries), worked by hand: the 4-byte one-bank warp swaps lane 0
  // only; the 8-byte one-word warp too (lanes 1-15 find bank 0 taken, lane 16 is stale, lanes
  // 17-31 find its bank taken).
  const auto retrying = [](const AccessReport& rep) {
    uint32_t m = 0;
    for (int l = 0; l < kWarpSize; ++l) m |= uint32_t{rep.lanes[static_cast<size_t>(l)].retries} << l;
    return m;
  };
  CHECK(retrying(r) == ~1u);
  CHECK(retrying(r8) == ~1u);
  // Lanes l and l + 16 on word l (banks 0-15): lanes 0-15 swap, lanes 16-31 find their bank taken.
  WarpAccess pairs = access_of(Op::kAtomic, 4, ~0u, [](int l) { return 4u * static_cast<uint32_t>(l % 16); });
  pairs.atom = AtomOp::kCastSpin;
  CHECK(retrying(simulate(pairs)) == 0xffff0000u);
  // 8 bytes, lane l on word pair l % 8 (banks 2(l % 8), +1): per half-warp lanes 0-7 (16-23) take the
  // 16 banks; lanes 8-15 find theirs taken; lanes 16-23 are stale (the first half swapped their
  // words), and 24-31 find their banks taken.
  WarpAccess halves = access_of(Op::kAtomic, 8, ~0u, [](int l) { return 8u * static_cast<uint32_t>(l % 8); });
  halves.atom = AtomOp::kCastSpin;
  CHECK(retrying(simulate(halves)) == 0xffffff00u);
  // Every lane of a partial mask is its own: only active lanes are marked.
  WarpAccess part = access_of(Op::kAtomic, 4, 0x0000000fu, [](int) { return 0u; });
  part.atom = AtomOp::kCastSpin;
  CHECK(retrying(simulate(part)) == 0x0000000eu);
}
