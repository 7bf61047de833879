// test_kernel_model.cpp: warps formed the CUDA way, per-instruction results and per-launch totals.
#include <doctest/doctest.h>

#include "sim/json_io.hpp"
#include "sim/kernel_model.hpp"

using namespace bankscope;

namespace {

Scenario compiled(const ScenarioSpec& spec) {
  auto s = compile(spec);
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  return *s;
}

ScenarioSpec asset(const char* name) {
  auto r = load_scenario_file(std::string(BANKSCOPE_SOURCE_DIR) + "/assets/scenarios/" + name);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

}  // namespace

TEST_CASE("warps are formed x fastest, 32 consecutive threads each") {
  ScenarioSpec spec = seed_transpose_spec(33);
  spec.block = {16, 16, 1};  // warp 0 = rows 0 and 1 of the block
  spec.accesses = {AccessSpec{"ld", "tile[threadIdx.y][threadIdx.x]", "", {}, 0, ""}};
  const Scenario s = compiled(spec);
  auto w = warp_instructions(s, Dim3{0, 0, 0}, 0);
  REQUIRE(w.ok());
  REQUIRE(w->size() == 1);
  const WarpAccess& a = (*w)[0].access;
  // lane 17 is threadIdx (1, 1): tile[1][1] at byte (33 + 1) * 4.
  CHECK(a.addr[17] == 136);
  CHECK(a.addr[15] == 60);
  CHECK(a.addr[16] == 132);
  auto w3 = warp_instructions(s, Dim3{0, 0, 0}, 3);  // rows 6 and 7
  REQUIRE(w3.ok());
  CHECK((*w3)[0].access.addr[0] == 6 * 33 * 4);
  CHECK_FALSE(warp_instructions(s, Dim3{0, 0, 0}, 8).ok());
}

TEST_CASE("a partial last warp has inactive lanes") {
  ScenarioSpec spec = seed_transpose_spec(32);
  spec.block = {40, 1, 1};
  spec.tile = {40, 1, 1};
  spec.accesses = {AccessSpec{"ld", "tile[0][threadIdx.x % 32]", "", {}, 0, ""}};
  const Scenario s = compiled(spec);
  CHECK(s.warps_per_block() == 2);
  auto w = warp_instructions(s, Dim3{0, 0, 0}, 1);
  REQUIRE(w.ok());
  CHECK((*w)[0].access.mask == 0xffu);
}

TEST_CASE("loops unroll into one instruction per iteration, in order") {
  const Scenario s = compiled(asset("tiled_32x8_32x32.json"));
  auto w = warp_instructions(s, Dim3{0, 0, 0}, 2);  // threadIdx.y == 2
  REQUIRE(w.ok());
  REQUIRE(w->size() == 8);
  CHECK((*w)[0].access.op == Op::kStore);
  CHECK((*w)[5].access.op == Op::kLoad);
  CHECK((*w)[5].loop_values[0] == 8);
  CHECK((*w)[5].text == "ld tile[threadIdx.x][threadIdx.y + j]  (j=8)");
  // Store j=16 by warp 2 writes row 18: lane i at (18 * 32 + i) * 4.
  CHECK((*w)[2].access.addr[7] == (18 * 32 + 7) * 4);
  CHECK(cost((*w)[5].access).wavefronts == 32);
}

TEST_CASE("per-launch totals of the lesson's kernels, N = 2048") {
  struct Row { const char* file; uint64_t ld_wf, st_wf, ld_cf; };
  // 4096 blocks x 32 warps = 131,072 warp instructions per statement.
  const Row rows[] = {
      {"seed_transpose_32x32.json", 4194304, 131072, 4063232},
      {"seed_transpose_32x33.json", 131072, 131072, 0},
      {"tiled_32x8_32x32.json", 4194304, 131072, 4063232},
      {"tiled_32x8_32x33.json", 131072, 131072, 0},
      {"tiled_32x8_xor.json", 131072, 131072, 0},
      {"tiled_32x8_swizzle.json", 131072, 131072, 0},
      {"tiled_32x8_double_32x32.json", 4194304, 262144, 4194304 - 262144},
      {"tiled_32x8_double_32x33.json", 262144, 262144, 0},
      {"tiled_float4_32x32.json", 4194304, 524288, 4194304 - 524288},
      {"tiled_float4_32x33.json", 524288, 524288, 0},
  };
  for (const Row& r : rows) {
    CAPTURE(r.file);
    const Scenario s = compiled(asset(r.file));
    auto t = launch_totals(s);
    REQUIRE(t.ok());
    CHECK(t->blocks == 4096);
    CHECK(t->ld.instructions == 131072);
    CHECK(t->st.instructions == 131072);
    CHECK(t->ld.wavefronts == r.ld_wf);
    CHECK(t->st.wavefronts == r.st_wf);
    CHECK(t->ld.bank_conflicts() == r.ld_cf);
    CHECK(t->st.bank_conflicts() == 0);
  }
}

TEST_CASE("bounds-checked edges: the seed kernel at N = 33, worked by hand") {
  // grid 2x2. Block (0,0) is full. Block (1,0): st has lane 0 of every warp (32 x 1 wf), ld only
  // warp 0 with all lanes on column 0 (1 x 32 wf). Block (0,1): st warp 0 full (1 x 1), ld lane 0
  // of every warp (32 x 1). Block (1,1): one lane each (1 x 1).
  ScenarioSpec spec = asset("seed_transpose_32x32.json");
  spec.n = 33;
  const Scenario s = compiled(spec);
  auto t = launch_totals(s);
  REQUIRE(t.ok());
  CHECK(t->st.instructions == 32 + 32 + 1 + 1);
  CHECK(t->st.wavefronts == 32 + 32 + 1 + 1);
  CHECK(t->ld.instructions == 32 + 1 + 32 + 1);
  CHECK(t->ld.wavefronts == 32 * 32 + 32 + 32 + 1);
}

TEST_CASE("structured totals equal the brute force over every block") {
  const char* files[] = {"seed_transpose_32x32.json", "seed_transpose_32x33.json", "tiled_32x8_32x32.json",
                         "tiled_32x8_double_32x33.json", "tiled_float4_32x32.json", "broadcast.json"};
  const int64_t sizes[] = {1, 31, 33, 100, 257, 1000, 2050};
  for (const char* f : files) {
    for (int64_t n : sizes) {
      CAPTURE(f);
      CAPTURE(n);
      ScenarioSpec spec = asset(f);
      spec.n = n;
      const Scenario s = compiled(spec);
      auto fast = launch_totals(s);
      auto slow = launch_totals_brute_force(s);
      REQUIRE(fast.ok());
      REQUIRE(slow.ok());
      CHECK(fast->ld.instructions == slow->ld.instructions);
      CHECK(fast->ld.wavefronts == slow->ld.wavefronts);
      CHECK(fast->ld.ideal == slow->ld.ideal);
      CHECK(fast->st.instructions == slow->st.instructions);
      CHECK(fast->st.wavefronts == slow->st.wavefronts);
      CHECK(fast->blocks_simulated <= slow->blocks_simulated);
    }
  }
}

TEST_CASE("N = 16384 is costed from a single block") {
  ScenarioSpec spec = asset("tiled_32x8_32x32.json");
  spec.n = 16384;
  const Scenario s = compiled(spec);
  auto t = launch_totals(s);
  REQUIRE(t.ok());
  CHECK(t->blocks == 512u * 512u);
  CHECK(t->blocks_simulated == 1);
  CHECK(t->ld.wavefronts == 512ull * 512 * 32 * 32);
}

TEST_CASE("run-time errors name the statement, the thread and the block") {
  ScenarioSpec spec = asset("tiled_32x8_32x32.json");
  spec.accesses[1].loops[0].end = 40;  // j = 32 reads row 32 + threadIdx.y of a 32-row tile
  const Scenario s = compiled(spec);
  auto t = launch_totals(s);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message ==
        "accesses[1] (ld tile[threadIdx.x][threadIdx.y + j]): at thread (0,0,0) of block (0,0,0), j=32: "
        "index 32 ('threadIdx.y + j') is outside [0, 32) of tile");

  ScenarioSpec div = seed_transpose_spec(32);
  div.accesses[1].target = "tile[threadIdx.x][32 / (threadIdx.y - 3)]";
  div.accesses[1].guard = "";
  auto ds = compile(div);
  REQUIRE(ds.ok());
  auto w = warp_instructions(*ds, Dim3{0, 0, 0}, 3);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().message.find("division by zero") != std::string::npos);

  ScenarioSpec mis = seed_transpose_spec(33);
  mis.accesses[1].width = 16;  // reading a padded float tile as float4: rows are not 16-byte aligned
  auto ms = compile(mis);
  REQUIRE(ms.ok());
  auto mw = warp_instructions(*ms, Dim3{0, 0, 0}, 0);
  REQUIRE_FALSE(mw.ok());
  CHECK(mw.error().message ==
        "accesses[1] (ld tile[threadIdx.x][threadIdx.y]): lane 1: byte offset 132 is not 16-byte aligned "
        "(the GPU faults with \"misaligned address\")");
}

TEST_CASE("an error in any block is reported, as the brute force would (found by fuzzing)") {
  // A define every thread evaluates divides by zero in block 1 only; a guard whose bounds are
  // constant still divides by zero in block 1. launch_totals must not prove block 1 like block 0.
  struct Row { std::vector<std::pair<std::string, std::string>> defines; std::string guard; };
  const Row rows[] = {
      {{{"bad", "1 / (blockIdx.x - 1)"}}, ""},
      {{}, "(1 / (blockIdx.x - 1)) * 0 + 1"},
      {{}, "(1 << (blockIdx.x + 62)) > 0"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.guard);
    ScenarioSpec spec;
    spec.arrays = {ArraySpec{"tile", "float", {32}, 0, 0, 0, 0, 0}};
    spec.block = {32, 1, 1};
    spec.n = 64;
    spec.tile = {32, 1, 1};
    spec.defines = r.defines;
    spec.accesses = {AccessSpec{"ld", "tile[threadIdx.x]", r.guard, {}, 0, ""}};
    const Scenario s = compiled(spec);
    auto fast = launch_totals(s);
    auto slow = launch_totals_brute_force(s);
    REQUIRE_FALSE(slow.ok());
    REQUIRE_FALSE(fast.ok());
    CHECK(fast.error().message == slow.error().message);
    CHECK(fast.error().message.find("block (") != std::string::npos);
  }
}

TEST_CASE("an edge of a matrix that is not a multiple of the tile costs a few blocks, not all") {
  // N = 16383: the interior, the last tile column, the last tile row and the corner differ; every
  // other block is proved like one of them.
  ScenarioSpec spec = asset("tiled_32x8_32x32.json");
  spec.n = 16383;
  const Scenario s = compiled(spec);
  auto t = launch_totals(s);
  REQUIRE(t.ok());
  CHECK(t->blocks == 512u * 512u);
  CHECK(t->blocks_simulated < 64);
  // By hand: 511 x 511 full blocks issue 32 ld + 32 st instructions (4 per warp, 8 warps); the 511
  // blocks of the last column and the 511 of the last row have 31 of 32 columns/rows in range:
  // st keeps all 32 instructions in the last column (every row has lanes), loses the instruction of
  // row 31 in the last row; ld the other way round; the corner loses one of each.
  const uint64_t full = 511ull * 511;
  CHECK(t->st.instructions == full * 32 + 511 * 32 + 511 * 31 + 31);
  CHECK(t->ld.instructions == full * 32 + 511 * 31 + 511 * 32 + 31);
}
