// test_layout_advisor.cpp: the layout advisor on the shipped transpose tiles, numbers worked by
// hand.
//
// Every kernel below moves a 32x32 (or 64x64) tile per block at n = 2048 (4096 blocks) or 4096
// (64x64 tiles: 4096 blocks), so each access issues 131,072 warp instructions per launch:
//   seed   32x32 threads, 32 warps, 1 store + 1 load each:   4096 * 32     = 131,072 each
//   32x8   32x8 threads, 8 warps, 4 iterations of j:         4096 * 8 * 4  = 131,072 each
//   fast_f4 256 threads, 8 warps, 4 store iterations, 4 loads (k): 4096 * 8 * 4 = 131,072 each
// A row write is served in its minimum: 1 wavefront for 4-byte lanes, 2 for 8 (half a warp per
// 128 bytes), 4 for 16 (a quarter). The unpadded column read is 32 wavefronts in every case:
// 32-way (float), 16-way per half (double), 8-way per quarter (float4, and fast_f4's 4x4 read).
// The conflict-free minimum is then 2 * 131,072 * {1, 2, 4} wavefronts.
#include <doctest/doctest.h>

#include <atomic>
#include <string>

#include "sim/json_io.hpp"
#include "sim/layout_advisor.hpp"

using namespace bankscope;

namespace {

Scenario load(const std::string& file) {
  auto spec = load_scenario_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/" + file);
  REQUIRE_MESSAGE(spec.ok(), spec.error().message);
  auto s = compile(*spec);
  REQUIRE_MESSAGE(s.ok(), s.error().message);
  return *s;
}

const LayoutCandidate* find(const AdvisorResult& r, const std::string& text) {
  for (const LayoutCandidate& c : r.ranked) {
    if (c.text == text) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE(
    "the advisor removes every conflict of the shipped tiles at no more than the README's "
    "padding") {
  struct Row {
    const char* file;
    uint64_t current;     // wavefronts per launch as shipped (unpadded)
    uint64_t minimum;     // conflict-free: 2 * 131,072 * wavefronts per row
    const char* best;     // the first conflict-free layout in order of bytes, then simplicity
    uint64_t readme_pad;  // extra bytes of the README's fix: [32][33] (32 rows * 1 element), or 0
  };
  const Row rows[] = {
      // column read 131,072 * 32 + row write 131,072 * 1; xor 31 (= Swizzle<5,0,5>) is col ^ row
      {"seed_transpose_32x32.json", 4325376, 262144, "xor 31", 128},
      {"tiled_32x8_32x32.json", 4325376, 262144, "xor 31", 128},
      // 131,072 * 32 + 131,072 * 2; a half-warp's 16 rows need 4 XORed bits
      {"tiled_32x8_double_32x32.json", 4456448, 524288, "xor 15", 256},
      // 131,072 * 32 + 131,072 * 4; a quarter-warp's 8 rows need 3 XORed bits
      {"tiled_float4_32x32.json", 4718592, 1048576, "xor 7", 512},
      // 4x4 read 131,072 * 32 + row write 131,072 * 4; rows 4i+k of a quarter, chunk ^= i: xor 28,
      // the same permutation as fast_f4's Swizzle<3,2,6> (bits 8..10 of the offset into 2..4)
      {"fast_f4_64x64_t256_unswizzled.json", 4718592, 1048576, "xor 28", 0},
  };
  for (const Row& r : rows) {
    CAPTURE(r.file);
    const Scenario s = load(r.file);
    auto res = advise_layout(s, 0);
    REQUIRE_MESSAGE(res.ok(), res.error().message);
    CHECK(res->current.wavefronts == r.current);
    CHECK(res->ideal == r.minimum);
    REQUIRE_FALSE(res->ranked.empty());
    const LayoutCandidate& top = res->ranked.front();
    CHECK(top.text == r.best);
    CHECK(top.wavefronts == r.minimum);
    CHECK(top.conflicts == 0);
    CHECK(top.extra_bytes <= r.readme_pad);
    CHECK(top.worst_access == -1);
  }
}

TEST_CASE("padding the seed tile: stride 33 is conflict-free, 34 is 2-way, 48 is 16-way") {
  const Scenario s = load("seed_transpose_32x32.json");
  auto res = advise_layout(s, 0);
  REQUIRE(res.ok());
  struct Row {
    const char* text;
    uint64_t wavefronts;
    uint64_t extra;
  };
  // Stride S puts a column on gcd(S, 32) words per bank: 131,072 reads * gcd + 131,072 writes;
  // the padding costs 32 rows * (S - 32) * 4 bytes.
  const Row rows[] = {{"stride 33", 262144, 128},
                      {"stride 34", 393216, 256},
                      {"stride 36", 655360, 512},
                      {"stride 48", 2228224, 2048},
                      {"stride 64", 4325376, 4096}};
  for (const Row& r : rows) {
    CAPTURE(r.text);
    const LayoutCandidate* c = find(*res, r.text);
    REQUIRE(c != nullptr);
    CHECK(c->wavefronts == r.wavefronts);
    CHECK(c->extra_bytes == r.extra);
  }
  // Swizzle<5,0,5> is xor 31's permutation: evaluated once, under the simpler name.
  CHECK(find(*res, "Swizzle<5,0,5>") == nullptr);
  // The worst access of the unpadded tile is the column read (statement 1), 31 conflicts each.
  CHECK(res->current.worst_access == 1);
  CHECK(res->current.worst_conflicts == 131072u * 31u);
  auto n_way = access_n_way(s, 1);
  REQUIRE(n_way.ok());
  CHECK(*n_way == 32);
  // Ranking: wavefronts, then bytes: the 0-byte xor 31 before stride 33 (128 bytes).
  CHECK(res->ranked[1].text == "stride 33");
}

TEST_CASE("the budget bounds the padding; invalid candidates are counted with their reason") {
  const Scenario s = load("seed_transpose_32x32.json");
  AdvisorOptions opt;
  opt.budget_bytes = 127;  // below one element per row (32 * 4 bytes)
  auto res = advise_layout(s, 0, opt);
  REQUIRE(res.ok());
  CHECK(find(*res, "stride 33") == nullptr);
  // pads 1..32 (one turn of the banks: 128 bytes / 4) each cost 128 bytes or more
  REQUIRE_FALSE(res->skipped.empty());
  CHECK(res->skipped.front().first == "padding over the budget");
  CHECK(res->skipped.front().second == 32);
  CHECK(res->ranked.front().text == "xor 31");

  // fast_f4 reads the float tile 16 bytes at a time: an odd padding or an XOR of the low two
  // column bits misaligns the LDS.128 / STS.128; those candidates are skipped, not fatal.
  auto f4 = advise_layout(load("fast_f4_64x64_t256_unswizzled.json"), 0);
  REQUIRE(f4.ok());
  int misaligned = 0;
  for (const auto& [reason, n] : f4->skipped) {
    if (reason == "a wide access becomes misaligned") misaligned = n;
  }
  CHECK(misaligned > 0);
  CHECK(find(*f4, "stride 65") == nullptr);
  CHECK(find(*f4, "xor 1") == nullptr);
}

TEST_CASE("a cancelled search says so; a bad array index is an error") {
  const Scenario s = load("tiled_32x8_32x32.json");
  std::atomic<bool> cancel{true};
  AdvisorOptions opt;
  opt.cancel = &cancel;
  auto res = advise_layout(s, 0, opt);
  REQUIRE(res.ok());
  CHECK(res->cancelled);
  auto bad = advise_layout(s, 3);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "array: 3 is outside 0..0");
}

TEST_CASE("costliest_array picks the array with the most wavefronts") {
  // broadcast.json: coeff[8] read as a broadcast (1 wavefront) and table[8][64] read twice, the
  // second time at stride 2 (2 wavefronts): table costs more.
  const Scenario s = load("broadcast.json");
  auto a = costliest_array(s);
  REQUIRE(a.ok());
  CHECK(s.arrays[static_cast<size_t>(*a)].name == "table");
}

TEST_CASE("with_layout and layout_text") {
  ScenarioSpec spec = seed_transpose_spec(32);
  const ScenarioSpec out = with_layout(spec, 0, PhysicalLayout{33, 1, Swizzle{3, 2, 6}});
  CHECK(out.arrays[0].row_stride == 33);
  CHECK(out.arrays[0].xor_mask == 1);
  CHECK(out.arrays[0].swizzle_shift == 6);
  CHECK(layout_text(PhysicalLayout{33, 1, Swizzle{3, 2, 6}}, 32) ==
        "stride 33 + xor 1 + Swizzle<3,2,6>");
  CHECK(layout_text(PhysicalLayout{32}, 32) == "none");
}

namespace {

// One warp reads 16-byte column chunks of a half tile: lane l reads row l, chunk k (8 halves), for
// k = 0 .. chunks-1. Rows of `cols` halves; `tma` = the array's tma_swizzle ("" = none given).
Scenario column_chunks(int cols, int chunks, const std::string& tma) {
  const std::string text = R"({"name": "column chunks", "n": 32, "block": [32, 1], "grid": [1, 1],
    "arrays": [{"name": "tile", "type": "half", "dims": [32, )" + std::to_string(cols) + "]" +
                           (tma.empty() ? "" : ", \"tma_swizzle\": \"" + tma + "\"") + R"(}],
    "accesses": [{"op": "ld", "width": 16, "target": "tile[threadIdx.x][8 * k]",
                  "loops": [{"var": "k", "begin": 0, "end": )" + std::to_string(chunks) + R"(, "step": 1}]}]})";
  auto spec = parse_scenario_json(text, "column_chunks");
  REQUIRE_MESSAGE(spec.ok(), spec.error().message);
  auto s = compile(*spec);
  REQUIRE_MESSAGE(s.ok(), s.error().message);
  return *s;
}

}  // namespace

TEST_CASE("advisor: TMA 128B makes 16-byte column reads of a [32][64] half tile conflict-free, at no byte") {
  // Rows of 128 bytes: lane l's chunk k sits at byte 128 l + 16 k. Unswizzled a quarter-warp's 8
  // rows hit one 16-byte bank group: 8-way, 8 wavefronts per quarter, 32 per instruction, 8
  // instructions: 256. TMA 128B puts chunk k of row l at chunk k ^ (l % 8): 8 distinct per quarter,
  // 4 per instruction, 32. XOR masks keep 16-byte units whole only with mask bits >= 3, which rows
  // 8q..8q+7 leave constant: no help. Padding by 8 halves is conflict-free too, at 32 * 16 bytes.
  const Scenario s = column_chunks(64, 8, "");
  auto r = advise_layout(s, 0);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->current.wavefronts == 256);
  CHECK(r->ideal == 32);
  REQUIRE(!r->ranked.empty());
  CHECK(r->ranked[0].text == "tma_swizzle 128B (= Swizzle<3,3,3>)");
  CHECK(r->ranked[0].wavefronts == 32);
  CHECK(r->ranked[0].extra_bytes == 0);
  const LayoutCandidate* pad = find(*r, "stride 72");
  REQUIRE(pad != nullptr);
  CHECK(pad->wavefronts == 32);
  CHECK(pad->extra_bytes == 32 * 16);
  // 32B and 64B cannot write 128-byte rows: not candidates.
  CHECK(find(*r, "tma_swizzle 32B (= Swizzle<1,3,3>)") == nullptr);
  CHECK(find(*r, "tma_swizzle 64B (= Swizzle<2,3,3>)") == nullptr);
}

TEST_CASE("advisor: an array TMA writes gets only TMA modes, ranked by wavefronts") {
  // [128][16] half, rows of 32 bytes, written with SWIZZLE_32B; lane l reads row 4 l, chunk k
  // (k = 0, 1). A wider mode pads each 32-byte row to its span (measured on the H200, 2026-12-01f),
  // so row 4 l starts at 4 l x span. A quarter-warp's 8 lanes (l % 8) then share bits 4..6 but for
  // what the swizzle XORs in, and those pick the 16-byte bank group:
  //   none  byte 128 l + 16 k: one group, 8-way: 32 per read, 2 reads: 64
  //   32B   byte 128 l + 16 k, bit 4 ^= bit 7 (l & 1): 2 groups, 4-way: 16 per read, 32 (current)
  //   64B   byte 256 l + 16 k, bits 4,5 ^= bits 7,8 (0, l & 1): 2 groups, 4-way: 32, 4096 bytes more
  //   128B  byte 512 l + 16 k, bits 4..6 ^= bits 7..9 (0, 0, l & 1): 2 groups, 4-way: 32, 12288 more
  // (Under the old dense-row assumption 128B was conflict-free here, 8: the padding takes that away.)
  // Padding, XOR and generic swizzles are not offered: the copy engine writes none of them.
  const std::string text = R"({"name": "strided chunks", "n": 32, "block": [32, 1], "grid": [1, 1],
    "arrays": [{"name": "tile", "type": "half", "dims": [128, 16], "tma_swizzle": "32B"}],
    "accesses": [{"op": "ld", "width": 16, "target": "tile[4 * threadIdx.x][8 * k]",
                  "loops": [{"var": "k", "begin": 0, "end": 2, "step": 1}]}]})";
  auto spec = parse_scenario_json(text, "strided_chunks");
  REQUIRE_MESSAGE(spec.ok(), spec.error().message);
  auto s = compile(*spec);
  REQUIRE_MESSAGE(s.ok(), s.error().message);
  auto r = advise_layout(*s, 0);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->current.wavefronts == 32);
  CHECK(r->current.text == "tma_swizzle 32B (= Swizzle<1,3,3>)");
  REQUIRE(r->ranked.size() == 4);
  CHECK(r->ranked[0].is_current);
  CHECK(r->ranked[1].text == "tma_swizzle 64B (= Swizzle<2,3,3>, stride 32)");
  CHECK(r->ranked[1].wavefronts == 32);
  CHECK(r->ranked[1].extra_bytes == 4096);
  CHECK(r->ranked[2].text == "tma_swizzle 128B (= Swizzle<3,3,3>, stride 64)");
  CHECK(r->ranked[2].wavefronts == 32);
  CHECK(r->ranked[2].extra_bytes == 12288);
  CHECK(r->ranked[3].text == "none");
  CHECK(r->ranked[3].wavefronts == 64);
  CHECK(r->skipped.empty());
  // --write: the file says tma_swizzle and nothing else about the layout (the padding is implied).
  const nlohmann::ordered_json j = scenario_to_json(with_layout(*spec, 0, r->ranked[2].layout));
  CHECK(j["arrays"][0]["tma_swizzle"] == "128B");
  CHECK_FALSE(j["arrays"][0].contains("swizzle"));
  CHECK_FALSE(j["arrays"][0].contains("row_stride"));
}

TEST_CASE("every ranked candidate costs what running the kernel in that layout costs") {
  // The advisor costs candidates from one logical profile of the launch (launch_profile()); the
  // reference here compiles each candidate and runs it block by block (the brute force), and
  // takes the worst access from that run. Smaller n keep the brute force short.
  struct Row {
    const char* file;
    int64_t n;     // 0 = as shipped
    int64_t grid;  // a grid [grid, grid] instead of the file's fixed one; 0 = as shipped
    int array;
  };
  const Row rows[] = {
      {"fast_f4_64x64_t256_unswizzled.json", 64, 0, 0},  // misaligned candidates skipped
      {"broadcast.json", 0, 2, 1},                       // two arrays
      {"realworld/sgemm_bk.json", 64, 0, 1},             // 16-byte loads of a 1-D array
      {"realworld/stencil3d.json", 12, 0, 0},            // a 3-D tile, a loop of equal iterations
      {"realworld/scan_blelloch.json", 1500, 0, 0},      // predicated, guards in loops
  };
  for (const Row& r : rows) {
    CAPTURE(r.file);
    auto spec =
        load_scenario_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/" + r.file);
    REQUIRE(spec.ok());
    if (r.n != 0) spec->n = r.n;
    if (r.grid != 0) spec->grid = {r.grid, r.grid, 1};
    auto s = compile(*spec);
    REQUIRE(s.ok());
    auto res = advise_layout(*s, r.array);
    REQUIRE_MESSAGE(res.ok(), res.error().message);
    int skipped = 0;
    for (const auto& [reason, n] : res->skipped) skipped += n;
    CHECK(static_cast<int>(res->ranked.size()) + skipped == res->candidates);
    for (const LayoutCandidate& c : res->ranked) {
      CAPTURE(c.text);
      auto sc = compile(with_layout(*spec, r.array, c.layout));
      REQUIRE(sc.ok());
      auto lt = launch_totals_brute_force(*sc);
      REQUIRE(lt.ok());
      CHECK(c.wavefronts == lt->ld.wavefronts + lt->st.wavefronts);
      CHECK(c.conflicts == lt->ld.conflicts + lt->st.conflicts);
      int worst = -1;
      uint64_t worst_conflicts = 0;
      for (size_t i = 0; i < lt->per_access.size(); ++i) {
        if (lt->per_access[i].conflicts > worst_conflicts) {
          worst_conflicts = lt->per_access[i].conflicts;
          worst = static_cast<int>(i);
        }
      }
      CHECK(c.worst_access == worst);
      CHECK(c.worst_conflicts == worst_conflicts);
    }
  }
}

TEST_CASE(
    "a launch with too many distinct executions for a profile is ranked the slow way, alike") {
  // max_profile_executions = 1: no profile, every candidate runs the kernel (launch_totals()).
  for (const char* file : {"fast_f4_64x64_t256_unswizzled.json", "realworld/bitonic_sort.json"}) {
    CAPTURE(file);
    const Scenario s = load(file);
    auto fast = advise_layout(s, 0);
    AdvisorOptions slow_opt;
    slow_opt.max_profile_executions = 1;
    auto slow = advise_layout(s, 0, slow_opt);
    REQUIRE(fast.ok());
    REQUIRE(slow.ok());
    CHECK(fast->candidates == slow->candidates);
    CHECK(fast->ideal == slow->ideal);
    CHECK(fast->skipped == slow->skipped);
    REQUIRE(fast->ranked.size() == slow->ranked.size());
    for (size_t i = 0; i < fast->ranked.size(); ++i) {
      CAPTURE(i);
      CHECK(fast->ranked[i].text == slow->ranked[i].text);
      CHECK(fast->ranked[i].wavefronts == slow->ranked[i].wavefronts);
      CHECK(fast->ranked[i].conflicts == slow->ranked[i].conflicts);
      CHECK(fast->ranked[i].worst_access == slow->ranked[i].worst_access);
    }
  }
}

TEST_CASE("advisor: an ldmatrix kernel is ranked by its ldmatrix wavefronts too (every kind counts)") {
  // ldmatrix_64x64_half.json: 8 blocks x 4 warps x 4 k steps = 128 ldmatrix.x4 per launch. Rows
  // of 128 bytes: a matrix's 8 rows start in one 16-byte bank group, 8 wavefronts a matrix, 32 an
  // instruction: 4,096 per launch; the ideal is 4 an instruction: 512. A layout that spreads the 8
  // rows of a matrix over 8 bank groups (128-byte swizzle, or padding by 8 halves) costs 512.
  auto spec = load_scenario_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/ldmatrix_64x64_half.json");
  REQUIRE(spec.ok());
  auto s = compile(*spec);
  REQUIRE(s.ok());
  auto r = advise_layout(*s, 0);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->current.wavefronts == 4096);
  CHECK(r->current.conflicts == 3584);
  CHECK(r->ideal == 512);
  REQUIRE_FALSE(r->ranked.empty());
  CHECK(r->ranked[0].wavefronts == 512);
  CHECK(r->ranked[0].conflicts == 0);
  CHECK(r->ranked[0].extra_bytes == 0);  // a swizzle, not padding, wins the tie on bytes
}
