// test_tma_probe.cpp: the host half of bankscope-tma-probe (kernels/tma_probe_check.hpp), without
// a GPU: the cases it runs, and that its comparison finds a wrong landing place and says where.
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "tma_probe_check.hpp"

using namespace bankscope::tma_probe;

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

TEST_CASE("tma probe: the model's layout equals the formula on every aligned case it takes") {
  int refused = 0;
  for (const Case& c : cases(false)) {
    CAPTURE(c.name());
    const Verdict v = compare(c, expected_window(c, true));
    CHECK(v.equal);
    if (v.refused) {
      ++refused;
      // Only boxes that end inside a span (48-byte rows; 3 rows of a narrower row) are refused.
      CHECK(c.box_bytes() % (16 << c.mode) != 0);
      CHECK(v.line.find("would land past the end of the box") != std::string::npos);
    } else {
      CHECK(v.line == "case " + c.name() + ": equal");
    }
  }
  CHECK(refused > 0);
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

TEST_CASE("tma probe: rows narrower than the span, if the hardware padded them, are recognised") {
  // 128B, 4-byte elements, 16 rows of 64 bytes. Padded: row 1 at byte 128, line 1: its chunk 0
  // goes to chunk 1 (byte 144). Dense (the model): row 1 at byte 64, line 0, unswizzled. Shared
  // byte 64 differs first: the model has [1][0], padding leaves it untouched. Bytes that differ:
  // line 0's second half (64), lines 1..7 whole (model rows 2k, 2k+1 vs padded row k: 7 x 128)
  // and padded rows 8..15 in lines 8..15 where the model has nothing (8 x 64): 1472.
  const Case c{3, 4, 64, 16, 0};
  const std::vector<uint16_t> padded = expected_window(c, true, true);
  CHECK(padded[144] == 64);  // global byte 64 = [1][0]
  const Verdict v = compare(c, padded);
  CHECK_FALSE(v.equal);
  CHECK(v.line == "case tma=128B e=4 box=16x64B dst=0: differs at shared byte 64 (+64 in the box): model [1][0] byte 0, "
                  "measured nothing (untouched) (1472 bytes differ); measured = rows padded to the 128-byte span, then swizzled");
}

TEST_CASE("tma probe: a refused box (ending inside a span) is matched against padded rows too") {
  // 3 rows of 48 bytes with 128B: 144 bytes; line 1's chunk 0 would go to byte 144, past the end.
  const Case c{3, 4, 48, 3, 0};
  const Verdict v = compare(c, expected_window(c, true, true));
  CHECK(v.refused);
  CHECK_FALSE(v.equal);
  CHECK(v.line.rfind("case tma=128B e=4 box=3x48B dst=0: refused; the copy engine pads rows to the 128-byte span, then "
                     "follows the address formula [model refuses: tma_swizzle: element [2][8] would land past the end",
                     0) == 0);
}

TEST_CASE("tma probe: a misaligned box says which formula the hardware follows") {
  // 128B box 128 bytes past a 1024 boundary: by address bits its row 0 is line 1 (chunks ^ 1).
  const Case c{3, 4, 128, 16, 128};
  const std::vector<uint16_t> by_address = expected_window(c, true);
  CHECK(by_address[128] == 16);  // shared byte 128 = box row 0, chunk 0 ^ 1 = 1 -> global byte 16
  const Verdict a = compare(c, by_address);
  CHECK(a.equal);
  CHECK(a.refused);
  CHECK(a.line.find("(address bits) [model refuses: tma_swizzle: the array starts at byte 128, not a multiple of 1024") !=
        std::string::npos);
  const Verdict o = compare(c, expected_window(c, false));
  CHECK_FALSE(o.equal);
  CHECK(o.line.find("NOT the address") != std::string::npos);
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
