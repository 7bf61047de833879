// test_layout.cpp: logical (row, col) -> physical offset -> byte address, and layout checks.
#include <doctest/doctest.h>

#include "sim/layout.hpp"

using namespace bankscope;

TEST_CASE("padding moves rows, not the logical shape") {
  auto a = make_shared_array("tile", ElementType::kFloat, TileShape{32, 32, 2}, PhysicalLayout{33});
  REQUIRE(a.ok());
  CHECK(a->shape.cols == 32);
  CHECK(a->bytes() == 32 * 33 * 4);
  CHECK(a->declaration() == "__shared__ float tile[32][33]");
  struct Row { int r, c; uint32_t byte; int bank; };
  const Row rows[] = {{0, 0, 0, 0}, {1, 0, 132, 1}, {2, 0, 264, 2}, {31, 0, 31 * 132, 31}, {1, 31, 256, 0}};
  for (const Row& x : rows) {
    CAPTURE(x.r);
    CAPTURE(x.c);
    CHECK(a->byte_address(x.r, x.c) == x.byte);
    CHECK(bank_of(a->byte_address(x.r, x.c)) == x.bank);
  }
}

TEST_CASE("XOR and Swizzle<5,0,5> are the same permutation of a 32x32 float tile") {
  auto x = make_shared_array("t", ElementType::kFloat, TileShape{32, 32, 2}, PhysicalLayout{32, 31});
  auto s = make_shared_array("t", ElementType::kFloat, TileShape{32, 32, 2}, PhysicalLayout{32, 0, Swizzle{5, 0, 5}});
  REQUIRE(x.ok());
  REQUIRE(s.ok());
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 32; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      CHECK(x->byte_address(r, c) == s->byte_address(r, c));
      CHECK(x->byte_address(r, c) == uint32_t((r * 32 + (c ^ r)) * 4));
    }
  }
  // Column c of either layout hits every bank once.
  uint32_t banks = 0;
  for (int r = 0; r < 32; ++r) banks |= 1u << bank_of(x->byte_address(r, 7));
  CHECK(banks == 0xffffffffu);
}

TEST_CASE("element types") {
  const int sizes[] = {1, 2, 4, 8, 8, 16};
  for (int i = 0; i < 6; ++i) CHECK(element_size(kAllElementTypes[i]) == sizes[i]);
  CHECK(parse_element_type("float4") == ElementType::kFloat4);
  CHECK(parse_element_type("fp16") == ElementType::kHalf);
  CHECK_FALSE(parse_element_type("quad").has_value());
}

TEST_CASE("the element types real kernels declare, by name and size") {
  struct Row { const char* name; ElementType type; int bytes; const char* printed; };
  const Row rows[] = {
      {"int", ElementType::kInt, 4, "int"},
      {"unsigned", ElementType::kUnsigned, 4, "unsigned"},
      {"unsigned int", ElementType::kUnsigned, 4, "unsigned"},
      {"short", ElementType::kShort, 2, "short"},
      {"long long", ElementType::kLongLong, 8, "long long"},
      {"half2", ElementType::kHalf2, 4, "half2"},
      {"bfloat16", ElementType::kBfloat16, 2, "bfloat16"},
      {"bf16", ElementType::kBfloat16, 2, "bfloat16"},
      {"int4", ElementType::kInt4, 16, "int4"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.name);
    REQUIRE(parse_element_type(r.name).has_value());
    CHECK(*parse_element_type(r.name) == r.type);
    CHECK(element_size(r.type) == r.bytes);
    CHECK(std::string(element_name(r.type)) == r.printed);
  }
  CHECK(kElementTypeCount == 13);
}

TEST_CASE("an N-D array flattens its leading indices into the row") {
  // float t[2][3][4][33]: (i0, i1, i2, col) -> row (i0 * 3 + i1) * 4 + i2, byte row * 33 * 4 + col * 4.
  TileShape shape;
  shape.rank = 4;
  shape.extent[0] = 2;
  shape.extent[1] = 3;
  shape.extent[2] = 4;
  shape.extent[3] = 32;
  auto a = make_shared_array("t", ElementType::kFloat, shape, PhysicalLayout{33});
  REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().message));
  CHECK(a->shape.rows == 24);
  CHECK(a->shape.cols == 32);
  CHECK(a->bytes() == 24u * 33 * 4);
  CHECK(a->declaration() == "__shared__ float t[2][3][4][33]");
  struct Row { int64_t idx[4]; int64_t row; uint32_t byte; };
  const Row rows[] = {
      {{0, 0, 0, 0}, 0, 0},
      {{0, 0, 1, 0}, 1, 132},
      {{0, 1, 0, 5}, 4, 4 * 132 + 20},
      {{1, 2, 3, 31}, 23, 23 * 132 + 124},
  };
  for (const Row& r : rows) {
    CAPTURE(r.row);
    CHECK(a->shape.row_of(r.idx) == r.row);
    CHECK(a->byte_address(a->shape.row_of(r.idx), r.idx[3]) == r.byte);
  }
}

TEST_CASE("bad layouts are rejected with a reason") {
  struct Row { TileShape shape; PhysicalLayout layout; ElementType type; const char* starts; };
  const Row rows[] = {
      {{32, 32, 2}, PhysicalLayout{31}, ElementType::kFloat, "row_stride: 31 is smaller than the row length 32"},
      {{256, 256, 2}, PhysicalLayout{256}, ElementType::kFloat, "array 't' needs 262144 bytes of shared memory; a block can have at most 232448"},
      {{64, 32, 2}, PhysicalLayout{32, 63}, ElementType::kFloat, "layout: element [63][0] maps to offset 2079, outside the array (2048 elements)"},
      {{32, 32, 2}, PhysicalLayout{32, 0, Swizzle{3, 0, 2}}, ElementType::kFloat, "swizzle: Swizzle<3,0,2> needs S >= B"},
      {{0, 32, 2}, PhysicalLayout{32}, ElementType::kFloat, "dims: sizes must be positive"},
      {{1, 1, 5}, PhysicalLayout{1}, ElementType::kFloat, "dims: an array has 1 to 4 dimensions"},
      {{1, 1, 3}, PhysicalLayout{1}, ElementType::kFloat, "dims: a 3-D shape needs its extents"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.starts);
    auto a = make_shared_array("t", r.type, r.shape, r.layout);
    REQUIRE_FALSE(a.ok());
    CHECK(a.error().message.rfind(r.starts, 0) == 0);
  }
}

TEST_CASE("parse_element_type_exact: a type is its own name or refused, never shown as another") {
  for (ElementType t : kAllElementTypes) {
    CAPTURE(element_name(t));
    auto r = parse_element_type_exact(element_name(t));
    REQUIRE(r.ok());
    CHECK(*r == t);
  }
  auto alias = parse_element_type_exact("fp32");
  REQUIRE_FALSE(alias.ok());
  CHECK(alias.error().message.find("give float") != std::string::npos);
  // int: an alias of float today (refused); once int is an element type it must print as int.
  auto i = parse_element_type_exact("int");
  if (i.ok()) CHECK(std::string(element_name(*i)) == "int");
  auto bad = parse_element_type_exact("qfloat");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("not an element type") != std::string::npos);
}
