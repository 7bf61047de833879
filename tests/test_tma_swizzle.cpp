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

TEST_CASE("tma swizzle: every mode and element size, every element of boxes up to two repeats") {
  // (row, col) of a dense box of `cols` elements per row: byte r * cols * e + c * e before the swizzle.
  for (int span : {32, 64, 128}) {
    for (int e : {1, 2, 4, 8, 16}) {
      for (int row_bytes : {16, 32, 48, 64, 128}) {
        if (row_bytes > span) continue;
        const int cols = row_bytes / e;
        if (cols < 1) continue;
        // Two repeats, rounded up to a whole number of spans (the model refuses a box that ends
        // inside a span: see the last test case).
        int rows = 2 * tma_repeat_bytes(tma_swizzle_mode(span)) / row_bytes;
        while (rows * row_bytes % span != 0) ++rows;
        PhysicalLayout l{};
        l.tma_span = span;
        auto a = make_shared_array("box", type_of_size(e), TileShape{rows, cols, 2}, l, 1024);
        CAPTURE(span);
        CAPTURE(e);
        CAPTURE(row_bytes);
        REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().message));
        CHECK(a->layout.tma_span == span);
        for (int r = 0; r < rows; ++r) {
          for (int c = 0; c < cols; ++c) {
            const uint32_t dense = uint32_t(r * row_bytes + c * e);
            CAPTURE(r);
            CAPTURE(c);
            REQUIRE(a->byte_address(r, c) == 1024 + documented(dense, span));
          }
        }
      }
    }
  }
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
      {{8, 32, 2}, ElementType::kFloat, 128, 0, 0, 512,
       "tma_swizzle: the array starts at byte 512, not a multiple of 1024"},
      {{8, 8, 2}, ElementType::kFloat, 32, 0, 0, 128,
       "tma_swizzle: the array starts at byte 128, not a multiple of 256"},
      {{8, 32, 2}, ElementType::kFloat, 128, 33, 0, 0,
       "tma_swizzle: the copy engine writes rows densely"},
      {{8, 32, 2}, ElementType::kFloat, 128, 0, 7, 0,
       "tma_swizzle: it is the whole layout"},
      {{8, 32, 2}, ElementType::kFloat, 96, 0, 0, 0,
       "tma_swizzle: 96 is not a TMA swizzle span"},
      // 3 rows of 48 bytes, 64B: byte 128 (row 2, chunk 1 of its 64-byte block... line 1) goes to
      // chunk 0 ^ 1 = 1 of block [128, 192): byte 144, past the 144-byte box.
      {{3, 12, 2}, ElementType::kFloat, 64, 0, 0, 0,
       "tma_swizzle: element [2][8] would land past the end of the box (144 bytes, not a multiple of the 64-byte span)"},
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
