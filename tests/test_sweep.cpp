// test_sweep.cpp: stride_sweep() on the seed's column read (statement 1, lane i reads (i, y)),
// against curves worked by hand from sim/RULES.md:
//   4 B (R1): lane i hits bank (s*i) mod 32, each lane its own word -> gcd(s, 32) wavefronts.
//   8 B (R3): two half-warp phases; lane i covers banks 2*(s*i mod 16) and +1 -> per phase
//             gcd(s, 16) lanes share a bank pair -> 2 * gcd(s, 16) wavefronts (ideal 2).
//   16 B (R3): four quarter-warp phases; lane i covers banks 4*(s*i mod 8)..+3 -> per phase
//             gcd(s, 8) -> 4 * gcd(s, 8) wavefronts (ideal 4). Distinct addresses: R6 never merges.
// The seed has 32 warps of one column-read instruction each, all with the same cost.
#include <doctest/doctest.h>

#include "sim/json_io.hpp"
#include "sim/sweep.hpp"

using namespace bankscope;

namespace {
struct Row {
  int64_t stride;
  int wavefronts;
};

void check_curve(const char* type, const std::vector<Row>& rows) {
  ScenarioSpec spec = seed_transpose_spec(32);
  spec.arrays[0].type = type;
  SweepOptions opt;
  opt.access = 1;
  opt.first = 32;
  opt.last = 64;
  auto sw = stride_sweep(spec, opt);
  REQUIRE(sw.ok());
  CHECK(sw->array == "tile");
  CHECK(sw->first == 32);
  REQUIRE(sw->points.size() == 33);
  for (const Row& r : rows) {
    CAPTURE(type);
    CAPTURE(r.stride);
    const SweepPoint& p = sw->points[static_cast<size_t>(r.stride - 32)];
    CHECK(p.stride == r.stride);
    CHECK(p.instructions == 32);
    CHECK(p.wf_min == r.wavefronts);
    CHECK(p.wf_max == r.wavefronts);
    CHECK(p.wavefronts == uint64_t(32 * r.wavefronts));
  }
}
}  // namespace

TEST_CASE("float column read: the gcd(stride, 32) staircase") {
  check_curve("float",
              {{32, 32}, {33, 1}, {34, 2}, {36, 4}, {40, 8}, {48, 16}, {64, 32}, {35, 1}, {44, 4}});
}

TEST_CASE("double column read: 2 * gcd(stride, 16)") {
  check_curve("double",
              {{32, 32}, {33, 2}, {34, 4}, {36, 8}, {40, 16}, {48, 32}, {64, 32}, {35, 2}});
}

TEST_CASE("float4 column read: 4 * gcd(stride, 8)") {
  check_curve("float4",
              {{32, 32}, {33, 4}, {34, 8}, {36, 16}, {40, 32}, {48, 32}, {64, 32}, {37, 4}});
}

TEST_CASE("strides below the row length are skipped; 1-D arrays and bad ranges are errors") {
  ScenarioSpec spec = seed_transpose_spec(32);
  SweepOptions opt;
  opt.access = 1;
  opt.first = 1;
  opt.last = 33;
  auto sw = stride_sweep(spec, opt);
  REQUIRE(sw.ok());
  CHECK(sw->first == 32);
  CHECK(sw->points.size() == 2);
  opt.last = 31;
  CHECK_FALSE(stride_sweep(spec, opt).ok());
  opt.first = 40;
  opt.last = 39;
  CHECK_FALSE(stride_sweep(spec, opt).ok());
  opt = SweepOptions{};
  opt.access = 2;
  auto bad = stride_sweep(spec, opt);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("access 2 is outside 0..1") != std::string::npos);
  opt.access = 0;
  opt.array = "nope";
  CHECK_FALSE(stride_sweep(spec, opt).ok());
  ScenarioSpec one_d = seed_transpose_spec(32);
  one_d.arrays[0].dims = {1024};
  one_d.arrays[0].row_stride = 0;
  one_d.accesses.resize(1);
  one_d.accesses[0].target = "tile[threadIdx.y * 32 + threadIdx.x]";
  opt = SweepOptions{};
  auto r1 = stride_sweep(one_d, opt);
  REQUIRE_FALSE(r1.ok());
  CHECK(r1.error().message.find("one-dimensional") != std::string::npos);
}

TEST_CASE("a stride the scenario cannot run at is a marked point, not the end of the sweep") {
  // fast_f4_128x64_t256: float tile[128][64] written as float4 (16 bytes per lane): a row stride
  // that is not a multiple of 4 floats leaves rows misaligned for 16-byte accesses (the GPU
  // faults).
  auto spec = load_scenario_file(std::string(BANKSCOPE_SOURCE_DIR) +
                                 "/assets/scenarios/fast_f4_128x64_t256.json");
  REQUIRE(spec.ok());
  SweepOptions opt;
  opt.access = 0;
  opt.first = 64;
  opt.last = 72;
  auto sw = stride_sweep(*spec, opt);
  REQUIRE(sw.ok());
  REQUIRE(sw->points.size() == 9);
  for (const SweepPoint& p : sw->points) {
    CAPTURE(p.stride);
    CHECK(p.invalid.empty() == (p.stride % 4 == 0));
    if (!p.invalid.empty()) CHECK(p.invalid.find("16-byte aligned") != std::string::npos);
    if (p.invalid.empty()) CHECK(p.instructions > 0);
  }
}
