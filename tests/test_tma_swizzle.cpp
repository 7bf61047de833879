// test_tma_swizzle.cpp: the TMA swizzle modes as named layouts (bank_math.hpp, layout.hpp).
//
// Every expected address is computed here from NVIDIA's description in words, independently of
// tma_swizzle_byte(): "16-byte chunks within a span of 32/64/128 bytes"; the chunk index is XORed
// with the row of the span-wide row within the 256/512/1024-byte repeat.
#include <doctest/doctest.h>

#include "sim/layout.hpp"

using namespace bankscope;

namespace {

// The documented swizzle, written as chunks and rows rather than bit masks: the byte at `a` of a
// box whose rows are `span` bytes wide goes to the chunk (a % span) / 16, XORed with the index of
// its 128-byte line within the repeat (8 lines of 128 bytes for 128B; 4 for 64B, 2 for 32B, whose
// rows of 64 and 32 bytes take 2 and 4 rows per 128-byte line).
uint32_t documented(uint32_t a, int span) {
  if (span == 0) return a;
  const uint32_t chunks = uint32_t(span) / 16;      // 2, 4, 8 chunks per span
  const uint32_t chunk = (a % uint32_t(span)) / 16;
  const uint32_t line = (a / 128) % chunks;         // 128-byte line within the repeat
  return a - chunk * 16 + (chunk ^ line) * 16;
}

ElementType type_of_size(int bytes) {
  switch (bytes) {
    case 1: return ElementType::kChar;
    case 2: return ElementType::kHalf;
    case 4: return ElementType::kFloat;
    case 8: return ElementType::kDouble;
    default: return ElementType::kFloat4;
  }
}

}  // namespace

TEST_CASE("tma swizzle: the byte formula equals the documented chunk permutation") {
  for (int span : {0, 32, 64, 128}) {
    const int mode = tma_swizzle_mode(span);
    REQUIRE(mode >= 0);
    CHECK(tma_span_bytes(mode) == span);
    for (uint32_t a = 0; a < 4096; ++a) {
      CAPTURE(span);
      CAPTURE(a);
      REQUIRE(tma_swizzle_byte(a, mode) == documented(a, span));
    }
  }
  CHECK(tma_repeat_bytes(1) == 256);
  CHECK(tma_repeat_bytes(2) == 512);
  CHECK(tma_repeat_bytes(3) == 1024);
  CHECK(tma_swizzle_mode(16) == -1);
}

TEST_CASE("tma swizzle: every mode, element size, row width and 128-byte-aligned base, every element") {
  // (row, col) of a box with rows of `row_bytes`: row r starts at r * span (rows narrower than the
  // span are padded to it: measured), then the documented swizzle of the shared address base + that
  // (the address, not the offset: measured). Bases 0..1024 in steps of 128: on and off the repeat.
  for (int span : {32, 64, 128}) {
    for (int e : {1, 2, 4, 8, 16}) {
      for (int row_bytes : {16, 32, 48, 64, 128}) {
        if (row_bytes > span || row_bytes % e != 0) continue;
        const int cols = row_bytes / e;
        for (int rows : {1, 3, 2 * tma_repeat_bytes(tma_swizzle_mode(span)) / span}) {
          for (uint32_t base = 0; base <= 1024; base += 128) {
            PhysicalLayout l{};
            l.tma_span = span;
            auto a = make_shared_array("box", type_of_size(e), TileShape{rows, cols, 2}, l, base);
            CAPTURE(span);
            CAPTURE(e);
            CAPTURE(row_bytes);
            CAPTURE(rows);
            CAPTURE(base);
            REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().message));
            CHECK(a->layout.tma_span == span);
            CHECK(a->bytes() == uint64_t(rows) * uint64_t(span));  // what the copy occupies
            for (int r = 0; r < rows; ++r) {
              for (int c = 0; c < cols; ++c) {
                CAPTURE(r);
                CAPTURE(c);
                REQUIRE(a->byte_address(r, c) == documented(base + uint32_t(r * span + c * e), span));
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("tma swizzle: one narrow-row box as the H200 wrote it (2026-12-01f, tma_aligned.txt)") {
  // "case tma=32B e=4 box=8x16B dst=0: differs at shared byte 16 (+16 in the box): model [1][0]
  // byte 0, measured nothing (untouched) (176 bytes differ); measured = rows padded to the 32-byte
  // span, then swizzled". So: shared bytes 16..31 untouched; row 1 at byte 32 (line 0: chunk 0
  // stays); row 4 at byte 128, line 1: its chunk 0 goes to chunk 1, byte 144 (and 128..143 stay
  // untouched). 8 rows x 32 bytes = 256 bytes occupied.
  PhysicalLayout l{};
  l.tma_span = 32;
  auto a = make_shared_array("box", ElementType::kFloat, TileShape{8, 4, 2}, l);
  REQUIRE(a.ok());
  CHECK(a->layout.row_stride == 8);
  CHECK(a->bytes() == 256);
  CHECK(a->byte_address(0, 3) == 12);
  CHECK(a->byte_address(1, 0) == 32);
  CHECK(a->byte_address(3, 3) == 108);
  CHECK(a->byte_address(4, 0) == 144);
  CHECK(a->byte_address(7, 3) == 3 * 32 + 128 + 16 + 12);
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 4; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      const uint32_t at = a->byte_address(r, c);
      CHECK((at / 16) % 2 == (r >= 4 ? 1u : 0u));  // never the other half of its 32-byte row
    }
  }
  CHECK(a->declaration() == "__shared__ float box[8][8]  /* TMA CU_TENSOR_MAP_SWIZZLE_32B */");
}

TEST_CASE("tma swizzle: a box off the repeat follows the address (H200, 2026-12-01f, tma_misaligned.txt)") {
  // "case tma=128B e=4 box=16x128B dst=128: refused; the copy engine follows the formula on the
  // shared address (address bits)": row 0 is line 1 of the 1024-byte repeat, so its chunk 0 goes
  // to chunk 1; row 6 is line 7: chunk 0 -> chunk 7; row 7 starts the next repeat (line 0).
  PhysicalLayout l{};
  l.tma_span = 128;
  auto a = make_shared_array("box", ElementType::kFloat, TileShape{16, 32, 2}, l, 128);
  REQUIRE(a.ok());
  CHECK(a->byte_address(0, 0) == 128 + 16);
  CHECK(a->byte_address(0, 4) == 128 + 0);
  CHECK(a->byte_address(6, 0) == 128 + 6 * 128 + 7 * 16);
  CHECK(a->byte_address(7, 0) == 1024);
  // 64B, halves, 256 bytes past a 512-byte repeat: row 0 is on line 2 (chunk ^ 2).
  l.tma_span = 64;
  auto h = make_shared_array("box", ElementType::kHalf, TileShape{16, 32, 2}, l, 256);
  REQUIRE(h.ok());
  CHECK(h->byte_address(0, 0) == 256 + 32);
  CHECK(h->byte_address(0, 8) == 256 + 48);
  CHECK(h->byte_address(2, 0) == 256 + 128 + 48);  // line 3
}

TEST_CASE("tma swizzle 128B on floats is fast_tma's Swizzle<3,2,3>; on halves Swizzle<3,3,3>") {
  PhysicalLayout l{};
  l.tma_span = 128;
  auto f = make_shared_array("tile", ElementType::kFloat, TileShape{64, 32, 2}, l);
  auto h = make_shared_array("tile", ElementType::kHalf, TileShape{64, 64, 2}, l);
  REQUIRE(f.ok());
  REQUIRE(h.ok());
  CHECK(f->layout.swizzle.bits == 3);
  CHECK(f->layout.swizzle.base == 2);
  CHECK(f->layout.swizzle.shift == 3);
  CHECK(h->layout.swizzle.base == 3);
  // Row 7, col 0 of the half tile: chunk 0 ^ 7 = 7 -> byte 7 * 128 + 7 * 16.
  CHECK(h->byte_address(7, 0) == 7 * 128 + 7 * 16);
  CHECK(h->declaration() == "__shared__ half tile[64][64]  /* TMA CU_TENSOR_MAP_SWIZZLE_128B */");
}

TEST_CASE("tma swizzle: what the copy engine cannot write is refused, naming the field") {
  struct Row { TileShape shape; ElementType type; int span; int stride; int xor_mask; uint32_t base; const char* starts; };
  const Row rows[] = {
      {{8, 64, 2}, ElementType::kFloat, 128, 0, 0, 0,
       "tma_swizzle: rows of 256 bytes are wider than the 128-byte span of CU_TENSOR_MAP_SWIZZLE_128B"},
      {{8, 32, 2}, ElementType::kHalf, 32, 0, 0, 0,
       "tma_swizzle: rows of 64 bytes are wider than the 32-byte span of CU_TENSOR_MAP_SWIZZLE_32B"},
      {{8, 6, 2}, ElementType::kFloat, 64, 0, 0, 0,
       "tma_swizzle: rows of 24 bytes are not a multiple of 16 bytes"},
      {{8, 32, 2}, ElementType::kFloat, 128, 0, 0, 64,
       "tma_swizzle: the array starts at byte 64, not a multiple of 128 (a TMA box's shared-memory destination must be "
       "128-byte aligned)"},
      {{8, 8, 2}, ElementType::kFloat, 32, 0, 0, 1040,
       "tma_swizzle: the array starts at byte 1040, not a multiple of 128"},
      {{8, 32, 2}, ElementType::kFloat, 128, 33, 0, 0,
       "tma_swizzle: the copy engine places rows 128 bytes apart (32 floats); row_stride 33 cannot be combined with it"},
      {{8, 4, 2}, ElementType::kFloat, 64, 12, 0, 0,
       "tma_swizzle: the copy engine places rows 64 bytes apart (16 floats); row_stride 12 cannot be combined with it"},
      {{8, 32, 2}, ElementType::kFloat, 128, 0, 7, 0,
       "tma_swizzle: it is the whole layout"},
      {{8, 32, 2}, ElementType::kFloat, 96, 0, 0, 0,
       "tma_swizzle: 96 is not a TMA swizzle span"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.starts);
    PhysicalLayout l{r.stride, r.xor_mask};
    l.tma_span = r.span;
    auto a = make_shared_array("t", r.type, r.shape, l, r.base);
    REQUIRE_FALSE(a.ok());
    CAPTURE(a.error().message);
    CHECK(a.error().message.rfind(r.starts, 0) == 0);
  }
}
