// test_tma_probe.cpp: the host half of bankscope-tma-probe (kernels/tma_probe_check.hpp), without
// a GPU: the cases it runs, and that its comparison finds a wrong landing place and says where.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <utility>

#include "sim/layout.hpp"
#include "tma_probe_check.hpp"

using namespace bankscope::tma_probe;

namespace {

// The model's window for a case, straight from make_shared_array (not from compare()): global byte
// id at each shared byte, kUntouched elsewhere; empty if the model refuses the case.
std::vector<uint16_t> model_window(const Case& c) {
  using namespace bankscope;
  const ElementType t = c.elem_bytes == 1   ? ElementType::kChar
                        : c.elem_bytes == 2 ? ElementType::kHalf
                        : c.elem_bytes == 4 ? ElementType::kFloat
                        : c.elem_bytes == 8 ? ElementType::kDouble
                                            : ElementType::kFloat4;
  PhysicalLayout l{};
  l.tma_span = c.mode == 0 ? 0 : 16 << c.mode;
  auto a = make_shared_array("box", t, TileShape{c.rows, c.cols(), 2}, l, uint32_t(c.dst_offset));
  if (!a) return {};
  std::vector<uint16_t> w(kWindowBytes, kUntouched);
  for (int r = 0; r < c.rows; ++r) {
    for (int col = 0; col < c.cols(); ++col) {
      for (int b = 0; b < c.elem_bytes; ++b) w.at(a->byte_address(r, col) + uint32_t(b)) = uint16_t(r * c.inner_bytes + col * c.elem_bytes + b);
    }
  }
  return w;
}

}  // namespace

TEST_CASE("tma probe: the aligned cases cover every mode and element size, within the hardware's limits") {
  std::set<std::pair<int, int>> seen;
  bool two_repeats_128 = false, narrow_128 = false;
  for (const Case& c : cases(false)) {
    CAPTURE(c.name());
    seen.insert({c.mode, c.elem_bytes});
    const int span = c.mode == 0 ? 128 : 16 << c.mode;
    CHECK(c.inner_bytes % 16 == 0);
    CHECK(c.inner_bytes <= span);
    CHECK(c.box_bytes() <= kMaxBoxBytes);
    CHECK(c.rows <= 256);
    CHECK(c.dst_offset == 0);
    if (c.mode == 3 && c.box_bytes() == 2048) two_repeats_128 = true;
    if (c.mode == 3 && c.inner_bytes < 128) narrow_128 = true;
  }
  CHECK(seen.size() == 4 * 5);
  CHECK(two_repeats_128);
  CHECK(narrow_128);
  for (const Case& c : cases(true)) {
    CAPTURE(c.name());
    CHECK(c.dst_offset % 128 == 0);  // the copy's own alignment requirement (PTX ISA)
    CHECK(c.dst_offset % (128 << c.mode) != 0);
  }
}

TEST_CASE("tma probe: every case fits the window with its rows padded to the span") {
  // The H200 run of 2026-12-01f stopped at "tma=128B e=1 box=128x16B dst=0" (illegal address):
  // 128 rows padded to 128 bytes are 16384 bytes, past the old 8192-byte window.
  int largest = 0;
  for (bool mis : {false, true}) {
    for (const Case& c : cases(mis)) {
      CAPTURE(c.name());
      const int span = c.mode == 0 ? c.inner_bytes : 16 << c.mode;
      const int end = c.dst_offset + c.rows * std::max(c.inner_bytes, span);
      largest = std::max(largest, end);
      CHECK(end <= kWindowBytes);
    }
  }
  CHECK(largest == 128 * 128);
  CHECK(cases(false).size() == 330);
  CHECK(cases(true).size() == 12);
}

TEST_CASE("tma probe: the model takes every case and equals the measured rule (padded rows, address bits)") {
  for (bool mis : {false, true}) {
    for (const Case& c : cases(mis)) {
      CAPTURE(c.name());
      const Verdict v = compare(c, expected_window(c, true, true));
      CHECK_FALSE(v.refused);
      CHECK(v.equal);
      CHECK(v.line == "case " + c.name() + ": equal");
    }
  }
}

TEST_CASE("tma probe: the model reproduces the differences the H200 measured (2026-12-01f, tma_aligned.txt)") {
  // Transcribed from assets/results/h200/2026-12-01f/tma/tma_aligned.txt: the probe compared the
  // hardware with the dense-row formula on the address; where the first difference was and how many
  // bytes differed. Each "measured" side there was "nothing (untouched)". The model (padded rows)
  // against that dense formula must differ at the same byte, by the same count, untouched there.
  struct Row { Case c; int first; int count; };
  const Row rows[] = {
      {{1, 4, 16, 8, 0}, 16, 176},     {{1, 1, 16, 32, 0}, 16, 752},    {{2, 1, 32, 3, 0}, 32, 96},
      {{2, 2, 16, 64, 0}, 16, 1776},   {{2, 4, 48, 8, 0}, 48, 432},     {{2, 16, 32, 32, 0}, 32, 1504},
      {{3, 1, 64, 32, 0}, 64, 3008},   {{3, 1, 16, 64, 0}, 16, 1904},   {{3, 1, 48, 8, 0}, 48, 576},
      // All 18 the dense model refused (48-byte rows ending inside a span): the same, not refused now.
      {{2, 1, 48, 3, 0}, 48, 128},     {{2, 1, 48, 10, 0}, 48, 544},    {{2, 1, 48, 21, 0}, 48, 1200},
      {{2, 2, 48, 3, 0}, 48, 128},     {{2, 2, 48, 10, 0}, 48, 544},    {{2, 2, 48, 21, 0}, 48, 1200},
      {{2, 4, 48, 3, 0}, 48, 128},     {{2, 4, 48, 10, 0}, 48, 544},    {{2, 4, 48, 21, 0}, 48, 1200},
      {{2, 8, 48, 3, 0}, 48, 128},     {{2, 8, 48, 10, 0}, 48, 544},    {{2, 8, 48, 21, 0}, 48, 1200},
      {{2, 16, 48, 3, 0}, 48, 128},    {{2, 16, 48, 10, 0}, 48, 544},   {{2, 16, 48, 21, 0}, 48, 1200},
      {{3, 1, 48, 3, 0}, 48, 176},     {{3, 1, 48, 21, 0}, 48, 1584},   {{3, 1, 48, 42, 0}, 48, 3216},
  };
  for (const Row& r : rows) {
    CAPTURE(r.c.name());
    const std::vector<uint16_t> model = model_window(r.c);
    REQUIRE(model.size() == size_t(kWindowBytes));
    const std::vector<uint16_t> dense = expected_window(r.c, true, false);
    int first = -1, count = 0;
    for (size_t s = 0; s < model.size(); ++s) {
      if (model[s] == dense[s]) continue;
      ++count;
      if (first < 0) first = int(s);
    }
    CHECK(first == r.first);
    CHECK(count == r.count);
    REQUIRE(first >= 0);
    CHECK(model[size_t(first)] == kUntouched);
    CHECK(dense[size_t(first)] == r.c.inner_bytes);  // "model [1][0]": row 1's first byte
  }
}

TEST_CASE("tma probe: a wrong landing place is found and named") {
  // 128B, floats, 8 rows of 128 bytes, but measured as if unswizzled: row 0 agrees; shared byte
  // 128 holds, by the model, row 1's chunk 0 ^ 1 = 1 (element [1][4]), unswizzled [1][0]; every
  // chunk of rows 1..7 moves (c ^ r != c): 7 * 128 bytes differ.
  const Case c{3, 4, 128, 8, 0};
  const Case none{0, 4, 128, 8, 0};
  const Verdict v = compare(c, expected_window(none, true));
  CHECK_FALSE(v.equal);
  CHECK(v.line == "case tma=128B e=4 box=8x128B dst=0: differs at shared byte 128 (+128 in the box): model [1][4] byte 0, "
                  "measured [1][0] byte 0 (896 bytes differ)");
  // Nothing written at all.
  const Verdict empty = compare(c, std::vector<uint16_t>(kWindowBytes, kUntouched));
  CHECK_FALSE(empty.equal);
  CHECK(empty.line == "case tma=128B e=4 box=8x128B dst=0: differs at shared byte 0 (+0 in the box): model [0][0] byte 0, "
                      "measured nothing (untouched) (1024 bytes differ)");
}

TEST_CASE("tma probe: rows narrower than the span, if the hardware packed them densely, are recognised") {
  // 128B, 4-byte elements, 16 rows of 64 bytes. The model (padded): row 1 at byte 128, line 1: its
  // chunk 0 goes to chunk 1 (byte 144); bytes 64..127 untouched. Dense: row 1 at byte 64, line 0,
  // unswizzled. Shared byte 64 differs first. Bytes that differ: line 0's second half (64), lines
  // 1..7 whole (dense rows 2k, 2k+1 vs padded row k: 7 x 128) and padded rows 8..15 in lines 8..15
  // where dense has nothing (8 x 64): 1472.
  const Case c{3, 4, 64, 16, 0};
  const std::vector<uint16_t> dense = expected_window(c, true, false);
  CHECK(expected_window(c, true, true)[144] == 64);  // global byte 64 = [1][0]
  const Verdict v = compare(c, dense);
  CHECK_FALSE(v.equal);
  CHECK_FALSE(v.refused);
  CHECK(v.line == "case tma=128B e=4 box=16x64B dst=0: differs at shared byte 64 (+64 in the box): model nothing (untouched), "
                  "measured [1][0] byte 0 (1472 bytes differ); measured = rows packed densely, then swizzled");
}

TEST_CASE("tma probe: a box ending inside a span (48-byte rows) is taken, padded") {
  // 3 rows of 48 bytes with 128B: rows at 0, 128, 256; row 1 is on line 1: chunk 0 -> 1 (byte 144).
  const Case c{3, 4, 48, 3, 0};
  const std::vector<uint16_t> padded = expected_window(c, true, true);
  CHECK(padded[144] == 48);  // global byte 48 = [1][0]
  CHECK(padded[48] == kUntouched);
  const Verdict v = compare(c, padded);
  CHECK_FALSE(v.refused);
  CHECK(v.equal);
}

TEST_CASE("tma probe: a box off the repeat is predicted from the address bits") {
  // 128B box 128 bytes past a 1024 boundary: by address bits its row 0 is line 1 (chunks ^ 1).
  const Case c{3, 4, 128, 16, 128};
  const std::vector<uint16_t> by_address = expected_window(c, true);
  CHECK(by_address[128] == 16);  // shared byte 128 = box row 0, chunk 0 ^ 1 = 1 -> global byte 16
  const Verdict a = compare(c, by_address);
  CHECK(a.equal);
  CHECK_FALSE(a.refused);
  CHECK(a.line == "case tma=128B e=4 box=16x128B dst=128: equal");
  const Verdict o = compare(c, expected_window(c, false));
  CHECK_FALSE(o.equal);
  CHECK(o.line.find("; measured = the formula on the offset in the box, not the address") != std::string::npos);
}

TEST_CASE("tma probe: reads of the TMA-filled 64x64 half tile, predicted by hand") {
  // LDS.128 of column chunk 0, rows 0..31: unswizzled every lane is on banks 0-3, 8 rows per
  // quarter-warp -> 8 wavefronts x 4 quarters = 32; 128B: rows r..r+7 put chunk 0 at chunks
  // 0..7, all 32 banks once per quarter -> 4. ldmatrix.x4: each 8x8 matrix is 8 rows of one chunk:
  // 8-way unswizzled (8 x 4 = 32), one wavefront each with 128B (4).
  const auto none = read_predictions(0);
  const auto sw = read_predictions(3);
  REQUIRE(none.size() == 2);
  REQUIRE(sw.size() == 2);
  CHECK(none[0].wavefronts == 32);
  CHECK(none[1].wavefronts == 32);
  CHECK(sw[0].wavefronts == 4);
  CHECK(sw[1].wavefronts == 4);
  CHECK(sw[1].counter == "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum");
}
