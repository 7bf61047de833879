// test_scenario_kinds.cpp: ldmatrix, stmatrix and shared atomics as scenario accesses (issue 11,
// item 4). Every count is worked by hand from sim/RULES.md R7 (one phase per 8x8 matrix, a bank
// serves one distinct word per wavefront) and R8 (atomics: every active lane served alone, CAS
// twice), and each scenario instruction is checked against `predict --jsonl`'s path on per-lane
// offsets computed here with plain arithmetic (an independent route to the same WarpAccess).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"
#include "sim/predict_report.hpp"
#include "sim/scenario.hpp"

using namespace bankscope;

namespace {

Result<Scenario> compile_text(const std::string& text) {
  auto spec = parse_scenario_json(text, "t.json");
  if (!spec) return spec.error();
  return compile(*spec);
}

// One access in a scenario of `block` threads, `grid` blocks, over the given arrays.
std::string one_access(const std::string& access, const std::string& arrays, int block = 32,
                       int grid = 1) {
  return R"({"name": "t", "block": [)" + std::to_string(block) + R"(], "grid": [)" +
         std::to_string(grid) + R"(], "arrays": )" + arrays + R"(, "accesses": [)" + access + "]}";
}

const char* kHalfTile = R"([{"name": "sA", "type": "half", "dims": [64, 64]}])";
const char* kHalfTileSwizzled =
    R"([{"name": "sA", "type": "half", "dims": [64, 64], "swizzle": [3, 3, 3]}])";

// The JSONL line `predict --jsonl` reads, costed by its own path (parse_pattern_line,
// predict_pattern).
std::pair<int, int> jsonl_cost(const std::string& head, const std::vector<uint32_t>& offsets) {
  std::string line = "{" + head + R"(, "mask": "0xffffffff", "offsets": [)";
  for (size_t i = 0; i < offsets.size(); ++i) line += (i ? "," : "") + std::to_string(offsets[i]);
  line += "]}";
  auto p = parse_pattern_line(line);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message) << " in " << line);
  const auto out = predict_pattern(*p);
  return {out["wavefronts"].get<int>(), out["bank_conflicts"].get<int>()};
}

}  // namespace

// The lecture pair (assets/scenarios/ldmatrix_64x64_half*.json, warp 0, k = 0): ldmatrix.x4 of a
// 16x16 half sub-tile. Lane l gives row l % 16 at column 8 * (l / 16): matrix i = lanes 8i..8i+7.
//   unswizzled: a row is 64 halves = 128 bytes, so row r starts at byte 128 r = word 32 r: the 8
//     rows of a matrix all start in bank 0 and each covers banks 0..3 (or 4..7 at column 8) with 8
//     distinct words: 8 wavefronts per matrix, 4 matrices -> 32 wavefronts, ideal 4 (one per
//     matrix), 28 conflicts, 8-way.
//   swizzled (chunk c of row r at chunk c ^ (r % 8), Swizzle<3,3,3> on half offsets): row r of
//     matrix 0 starts at byte 128 r + 16 (r % 8) = bank 4 (r % 8): the 8 rows cover banks 0..31
//     once: 1 wavefront per matrix, 4 in all, 0 conflicts.
TEST_CASE(
    "ldmatrix.x4 of a 64x64 half tile: 128-byte rows are 8-way, the 128-byte swizzle is "
    "conflict-free") {
  struct Row {
    const char* arrays;
    int wavefronts, conflicts, n_way;
  };
  const Row rows[] = {{kHalfTile, 32, 28, 8}, {kHalfTileSwizzled, 4, 0, 1}};
  for (const Row& r : rows) {
    CAPTURE(r.arrays);
    auto s = compile_text(one_access(
        R"({"op": "ldmatrix", "num": 4, "trans": false, "target": "sA[lane % 16][8 * (lane / 16)]"})",
        r.arrays));
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    auto wi = warp_instructions(*s, Dim3{0, 0, 0}, 0);
    REQUIRE(wi.ok());
    REQUIRE(wi->size() == 1);
    const WarpAccess& a = (*wi)[0].access;
    CHECK(a.op == Op::kLdmatrix);
    CHECK(a.matrices == 4);
    CHECK(a.width == 16);
    const AccessCost c = cost(a);
    CHECK(c.wavefronts == r.wavefronts);
    CHECK(c.bank_conflicts() == r.conflicts);
    CHECK(c.ideal_wavefronts == 4);
    CHECK(c.n_way == r.n_way);
    CHECK((*wi)[0].text == "ldmatrix.x4 sA[lane % 16][8 * (lane / 16)]");
  }
}

// The same instructions as JSONL lines with offsets computed here: lane l -> row l % 16, 16-byte
// chunk l / 16 (unswizzled) or (l / 16) ^ (row % 8) (swizzled), byte 128 row + 16 chunk.
TEST_CASE("scenario ldmatrix/stmatrix equal predict --jsonl on the same per-lane offsets") {
  for (const bool swizzled : {false, true}) {
    for (const char* op : {"ldmatrix", "stmatrix"}) {
      for (const int num : {1, 2, 4}) {
        CAPTURE(swizzled);
        CAPTURE(op);
        CAPTURE(num);
        auto s = compile_text(
            one_access(std::string(R"({"op": ")") + op + R"(", "num": )" + std::to_string(num) +
                           R"(, "trans": true, "target": "sA[lane % 16][8 * (lane / 16)]"})",
                       swizzled ? kHalfTileSwizzled : kHalfTile));
        REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
        auto wi = warp_instructions(*s, Dim3{0, 0, 0}, 0);
        REQUIRE(wi.ok());
        std::vector<uint32_t> offsets(32, 0);
        for (uint32_t l = 0; l < 32; ++l) {
          const uint32_t row = l % 16, chunk = swizzled ? (l / 16) ^ (row % 8) : l / 16;
          offsets[l] = 128 * row + 16 * chunk;
          // Lanes 8 num .. 31 are unused: the scenario does not evaluate them, JSONL ignores them.
          if (l < uint32_t(8 * num)) CHECK((*wi)[0].access.addr[l] == offsets[l]);
        }
        const auto [wf, cf] = jsonl_cost(std::string(R"("op": ")") + op + R"(", "num": )" +
                                             std::to_string(num) + R"(, "trans": true)",
                                         offsets);
        const AccessCost c = cost((*wi)[0].access);
        CHECK(c.wavefronts == wf);
        CHECK(c.bank_conflicts() == cf);
        // By hand: unswizzled 8 per matrix (x1, x2 only reach rows 0..15 at chunk 0), swizzled 1.
        CHECK(wf == (swizzled ? 1 : 8) * num);
      }
    }
  }
}

// stmatrix.x2 into a 16-row half tile, lane l -> row l (lanes 0..15). Rows of 32 halves (64
// bytes) start at word 16 r: even rows in banks 0..3, odd rows in 16..19, 4 distinct words each
// per matrix -> 4 wavefronts per matrix, 8 in all, ideal 2, 6 conflicts. Padded to 40 halves (80
// bytes, word 20 r): row r of a matrix starts at bank 20 r mod 32 = 0, 20, 8, 28, 16, 4, 24, 12,
// four banks each, all 32 distinct -> 1 per matrix, 2 in all.
TEST_CASE("stmatrix.x2: 64-byte rows are 4-way, 80-byte rows conflict-free") {
  struct Row {
    int cols, row_stride, wavefronts, conflicts;
  };
  const Row rows[] = {{32, 32, 8, 6}, {32, 40, 2, 0}};
  for (const Row& r : rows) {
    CAPTURE(r.row_stride);
    const std::string arrays = R"([{"name": "sC", "type": "half", "dims": [16, )" +
                               std::to_string(r.cols) + R"(], "row_stride": )" +
                               std::to_string(r.row_stride) + "}]";
    auto s = compile_text(one_access(
        R"({"op": "stmatrix", "num": 2, "trans": true, "target": "sC[lane % 16][0]"})", arrays));
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    auto wi = warp_instructions(*s, Dim3{0, 0, 0}, 0);
    REQUIRE(wi.ok());
    const AccessCost c = cost((*wi)[0].access);
    CHECK(c.wavefronts == r.wavefronts);
    CHECK(c.bank_conflicts() == r.conflicts);
    CHECK((*wi)[0].access.trans);
  }
}

// R8 by hand, one warp of 32 lanes:
//   add hist[lane % 4]     4 words in banks 0..3, 8 lanes each, every lane served alone: 8
//                          wavefronts, ideal 1, 7 conflicts (a load of the same words: 1,
//                          broadcast)
//   add hist[0]            32 lanes on one word: 32 / 31 (measured: atom32_*_all_same)
//   cas hist[lane]         distinct banks: 1 wavefront, counted twice: 2 / 0 (atom32_cas_contig)
//   cas hist[lane % 4]     8 per bank, twice: 16, conflicts unchanged: 7
//   exch 8 bytes h[lane % 16]  half-warp phases; each half covers 128 bytes once: 2 / 0
//                          (atom64_exch_mod16)
TEST_CASE("shared atomics in a scenario: same-address lanes serialize; CAS counts twice") {
  struct Row {
    const char* access;
    int wavefronts, conflicts;
    const char* text;
  };
  const char* arrays =
      R"([{"name": "hist", "type": "int", "dims": [256]}, {"name": "h", "type": "long long", "dims": [64]}])";
  const Row rows[] = {
      {R"({"op": "atom", "atom": "add", "target": "hist[lane % 4]"})", 8, 7,
       "atom.add hist[lane % 4]"},
      {R"({"op": "atom", "atom": "max", "width": 4, "target": "hist[0]"})", 32, 31,
       "atom.max hist[0]"},
      {R"({"op": "atom", "atom": "cas", "target": "hist[lane]"})", 2, 0, "atom.cas hist[lane]"},
      {R"({"op": "atom", "atom": "cas", "target": "hist[lane % 4]"})", 16, 7,
       "atom.cas hist[lane % 4]"},
      {R"({"op": "atom", "atom": "exch", "target": "h[lane % 16]"})", 2, 0,
       "atom.exch.64 h[lane % 16]"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.access);
    auto s = compile_text(one_access(r.access, arrays));
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    auto wi = warp_instructions(*s, Dim3{0, 0, 0}, 0);
    REQUIRE(wi.ok());
    const WarpAccess& a = (*wi)[0].access;
    CHECK(a.op == Op::kAtomic);
    const AccessCost c = cost(a);
    CHECK(c.wavefronts == r.wavefronts);
    CHECK(c.bank_conflicts() == r.conflicts);
    CHECK((*wi)[0].text == r.text);
    // The same offsets through the JSONL path.
    std::vector<uint32_t> offsets(a.addr.begin(), a.addr.end());
    const uint32_t hist_base = s->arrays[0].base, h_base = s->arrays[1].base;
    for (uint32_t l = 0; l < 32; ++l) {
      const std::string t = r.access;
      const uint32_t expect = t.find("h[lane % 16]") != std::string::npos ? h_base + 8 * (l % 16)
                              : t.find("hist[0]") != std::string::npos    ? hist_base
                              : t.find("lane % 4") != std::string::npos   ? hist_base + 4 * (l % 4)
                                                                          : hist_base + 4 * l;
      CHECK(offsets[l] == expect);
    }
    const std::string head = std::string(R"("op": "atom", "width": )") + std::to_string(a.width) +
                             R"(, "atom": ")" + atom_name(a.atom) + "\"";
    const auto [wf, cf] = jsonl_cost(head, offsets);
    CHECK(wf == r.wavefronts);
    CHECK(cf == r.conflicts);
  }
}

// Per launch: the lecture preset's shape, 4 warps x 4 k steps x 8 blocks = 128 ldmatrix.x4, each
// 32 wavefronts (512 per block... 4096 in all, 3584 conflicts) unswizzled, 4 (512, 0) swizzled; a
// histogram of 2 atom.add per warp. Each kind lands in its own total; ld and st stay at zero.
TEST_CASE("per-launch totals keep ldsm, stsm and atom apart from ld and st") {
  const std::string accesses =
      R"({"loop": {"var": "k", "begin": 0, "end": 64, "step": 16}, "body": [
           {"op": "ldmatrix", "num": 4, "target": "sA[16 * warp + lane % 16][k + 8 * (lane / 16)]"}]},
         {"op": "stmatrix", "num": 1, "target": "sA[8 * warp + lane % 8][0]"},
         {"op": "atom", "atom": "add", "target": "hist[lane % 4]", "loops": [{"var": "j", "begin": 0, "end": 2}]})";
  struct Row {
    const char* swizzle;
    uint64_t ldsm_wf, ldsm_cf, stsm_wf;
  };
  // stmatrix.x1, rows 8w..8w+7 at column 0: unswizzled 8 wavefronts (one bank group, 8 words);
  // swizzled 1. 8 blocks x 4 warps = 32 instructions.
  const Row rows[] = {{"", 128 * 32, 128 * 28, 32 * 8},
                      {R"(, "swizzle": [3, 3, 3])", 128 * 4, 0, 32 * 1}};
  for (const Row& r : rows) {
    CAPTURE(r.swizzle);
    const std::string arrays = std::string(R"([{"name": "sA", "type": "half", "dims": [64, 64])") +
                               r.swizzle + R"(}, {"name": "hist", "type": "int", "dims": [4]}])";
    auto s = compile_text(R"({"name": "t", "block": [128], "grid": [8], "arrays": )" + arrays +
                          R"(, "accesses": [)" + accesses + "]}");
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    auto lt = launch_totals(*s);
    REQUIRE(lt.ok());
    CHECK(lt->ldsm.instructions == 128);
    CHECK(lt->ldsm.wavefronts == r.ldsm_wf);
    CHECK(lt->ldsm.bank_conflicts() == r.ldsm_cf);
    CHECK(lt->stsm.instructions == 32);
    CHECK(lt->stsm.wavefronts == r.stsm_wf);
    // 8 blocks x 4 warps x 2 = 64 atom.add, 8 wavefronts each (8 lanes per word, served alone).
    CHECK(lt->atom.instructions == 64);
    CHECK(lt->atom.wavefronts == 64 * 8);
    CHECK(lt->atom.bank_conflicts() == 64 * 7);
    CHECK(lt->ld.instructions == 0);
    CHECK(lt->ld.wavefronts == 0);
    CHECK(lt->st.instructions == 0);
    CHECK(lt->st.wavefronts == 0);
    auto bf = launch_totals_brute_force(*s);
    REQUIRE(bf.ok());
    for (Op op : kAllOps) {
      CHECK(bf->of(op).wavefronts == lt->of(op).wavefronts);
      CHECK(bf->of(op).instructions == lt->of(op).instructions);
    }
    // predict --json: each kind under its own key and counter names.
    auto rows_ = warp_rows(*s, 0);
    REQUIRE(rows_.ok());
    const auto j = predict_json(*s, "t.json", 0, *rows_, *lt);
    CHECK(j["totals"]["ldsm"]["wavefronts"].get<uint64_t>() == r.ldsm_wf);
    CHECK(j["totals"]["ldsm"]["counters"]["wavefronts"].get<std::string>() ==
          "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum");
    CHECK(j["totals"]["stsm"]["counters"]["bank_conflicts"].get<std::string>() ==
          "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum");
    CHECK(j["totals"]["atom"]["counters"]["wavefronts"].get<std::string>() ==
          "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum");
    CHECK(j["totals"]["ld"]["wavefronts"].get<uint64_t>() == 0);
    CHECK(j["totals"]["st"]["wavefronts"].get<uint64_t>() == 0);
  }
}

TEST_CASE("bad ldmatrix/stmatrix/atom input: one line naming the field") {
  struct Row {
    const char* access;
    const char* arrays;
    const char* error;  // a substring of the message
  };
  const char* ints =
      R"([{"name": "hist", "type": "int", "dims": [256]}, {"name": "h", "type": "long long", "dims": [64]}])";
  const Row rows[] = {
      {R"({"op": "ldmatrix", "num": 4, "width": 16, "target": "sA[lane][0]"})", kHalfTile,
       "accesses[0].width: ldmatrix rows are always 16 bytes"},
      {R"({"op": "ldmatrix", "num": 3, "target": "sA[lane][0]"})", kHalfTile,
       "accesses[0].num: 3 must be 1, 2 or 4"},
      {R"({"op": "stmatrix", "target": "sA[lane][0]"})", kHalfTile, "accesses[0]: missing 'num'"},
      {R"({"op": "ldmatrix", "num": 4, "trans": 1, "target": "sA[lane][0]"})", kHalfTile,
       "accesses[0].trans: expected true or false"},
      {R"({"op": "ld", "num": 4, "target": "sA[lane][0]"})", kHalfTile,
       "accesses[0].num: only for"},
      {R"({"op": "atom", "atom": "xor", "target": "hist[lane]"})", ints,
       "accesses[0].atom: 'xor' must be \"add\", \"min\", \"max\", \"exch\", \"cas\" or \"popc_inc\""},
      {R"({"op": "atom", "target": "hist[lane]"})", ints, "accesses[0]: missing 'atom'"},
      {R"({"op": "atom", "atom": "add", "target": "h[lane]"})", ints,
       "accesses[0].atom: atom add of 8 bytes is not one instruction on sm_90"},
      {R"({"op": "atom", "atom": "add", "width": 8, "target": "hist[2 * lane]"})", ints,
       "accesses[0].atom: atom add of 8 bytes is not one instruction on sm_90"},
      {R"({"op": "atom", "atom": "add", "width": 2, "target": "hist[lane]"})", ints,
       "accesses[0].width: atom is 4 or 8 bytes per lane, not 2"},
      // R8c: a float atomicAdd is an LDS + ATOMS.CAST.SPIN retry loop, not ATOMS.ADD (measured).
      {R"({"op": "atom", "atom": "add", "target": "f[lane]"})", R"([{"name": "f", "type": "float", "dims": [64]}])",
       "accesses[0].atom: add on a float array is not one instruction on sm_90"},
      {R"({"op": "st", "atom": "add", "target": "hist[lane]"})", ints,
       "accesses[0].atom: only for"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.access);
    auto s = compile_text(one_access(r.access, r.arrays));
    REQUIRE_FALSE(s.ok());
    CHECK_MESSAGE(s.error().message.find(r.error) != std::string::npos, s.error().message);
    CHECK(s.error().message.find('\n') == std::string::npos);
  }
}

// Errors found when the warp runs (they depend on the lane): a misaligned row address (row 1 at
// column 4 = byte 128 + 8), a row that runs past the array (column 60: bytes 120..135 of a
// 128-byte row of the last row), and a guard that leaves row lanes out (.sync.aligned).
TEST_CASE("ldmatrix row addresses: misaligned, past the array, or row lanes inactive are errors") {
  struct Row {
    const char* access;
    const char* error;
  };
  // sB: 100 halves = 200 bytes; the row at element 96 (byte 192) would need bytes 192..207.
  const std::string arrays =
      R"([{"name": "sA", "type": "half", "dims": [64, 64]}, {"name": "sB", "type": "half", "dims": [100]}])";
  const Row rows[] = {
      {R"({"op": "ldmatrix", "num": 1, "target": "sA[lane][4 * lane]"})", "is not 16-byte aligned"},
      {R"({"op": "ldmatrix", "num": 1, "target": "sB[8 * lane + 40]"})", "runs past the end of sB"},
      {R"({"op": "ldmatrix", "num": 2, "target": "sA[lane][0]", "if": "lane < 12"})",
       "row lanes 0..15 must all be"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.access);
    auto s = compile_text(one_access(r.access, arrays));
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    auto wi = warp_instructions(*s, Dim3{0, 0, 0}, 0);
    REQUIRE_FALSE(wi.ok());
    CHECK_MESSAGE(wi.error().message.find(r.error) != std::string::npos, wi.error().message);
    CHECK(wi.error().message.find("accesses[0]") != std::string::npos);
    CHECK(wi.error().message.find('\n') == std::string::npos);
  }
  // Lanes 8..31 of an .x1 are not evaluated: rows past the tile there are no error.
  auto s = compile_text(
      one_access(R"({"op": "ldmatrix", "num": 1, "target": "sA[lane * 4][0]"})", kHalfTile));
  REQUIRE(s.ok());
  auto wi = warp_instructions(*s, Dim3{0, 0, 0}, 0);
  REQUIRE_MESSAGE(wi.ok(), (wi.ok() ? "" : wi.error().message));
  CHECK((*wi)[0].access.mask == 0xffu);
}

TEST_CASE("ldmatrix/stmatrix/atom fields survive a save and a reload") {
  const std::string text = one_access(
      R"({"op": "ldmatrix", "num": 2, "trans": true, "target": "sA[lane % 16][0]"},
         {"op": "atom", "atom": "cas", "target": "sA[0][2 * lane]", "width": 4})",
      kHalfTile);
  auto spec = parse_scenario_json(text, "t.json");
  REQUIRE_MESSAGE(spec.ok(), (spec.ok() ? "" : spec.error().message));
  auto again = parse_scenario_json(scenario_to_json(*spec).dump(), "t2.json");
  REQUIRE(again.ok());
  REQUIRE(again->accesses.size() == 2);
  CHECK(again->accesses[0].op == "ldmatrix");
  CHECK(again->accesses[0].num == 2);
  CHECK(again->accesses[0].trans);
  CHECK(again->accesses[1].atom == "cas");
  CHECK(again->accesses[1].width == 4);
}
