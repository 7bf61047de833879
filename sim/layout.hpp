// layout.hpp: a __shared__ array as the lesson separates it: a logical shape (what the code indexes,
// e.g. 32x32) and a physical layout (where each element lives, e.g. rows 33 elements apart).
//
//   logical index (row, col)  -> physical element offset   PhysicalLayout::offset (bank_math.hpp)
//   physical element offset   -> byte address               SharedArray::byte_address
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bank_math.hpp"
#include "status.hpp"

namespace bankscope {

enum class ElementType : uint8_t {
  kChar, kHalf, kFloat, kDouble, kFloat2, kFloat4,
  // Distinct names for what the kernel declares (only the size matters to the banks).
  kInt, kUnsigned, kShort, kLongLong, kHalf2, kBfloat16, kInt4,
};

int element_size(ElementType t);
const char* element_name(ElementType t);
// "char", "half", "float", "double", "float2", "float4", "int", "unsigned", "short", "long long",
// "half2", "bfloat16", "int4" (also "int8", "fp16", "uint32", ... aliases).
std::optional<ElementType> parse_element_type(const std::string& name);
// A type as a user names it on a command line (--type): accepted only when it is the name the
// model prints back (element_name), so `--type int` is never silently shown as float. An alias
// (fp32, int8, ...) or an unknown name is an Error saying which name to give instead. The one
// place the CLI parses a type name: new element types extend ElementType and this follows.
Result<ElementType> parse_element_type_exact(const std::string& name);
inline constexpr int kElementTypeCount = 13;
extern const ElementType kAllElementTypes[kElementTypeCount];

// The logical shape: what `tile[r][c]` indexes. One to four dimensions, as C declares them:
//   (i0, .., i{rank-1}) -> (row, col)   row = the leading indices flattened (row-major), col = the
//                                        last index. A 1-D array is one row. Padding (row_stride),
//                                        xor and swizzle act on (row, col), as in `float a[4][8][33]`.
inline constexpr int kMaxArrayRank = 4;
struct TileShape {
  int rows = 1;  // product of every extent but the last
  int cols = 1;  // the last extent
  int rank = 2;  // 1 to 4: how many indices an access gives
  // The extents, outermost first (rank of them). All 0 = derived from rows and cols (rank 1 or 2).
  int extent[kMaxArrayRank] = {0, 0, 0, 0};
  int dim(int d) const;  // extent d, derived when not given
  // (i0..i{rank-1}) -> flattened row; the caller has bounds-checked every index.
  int64_t row_of(const int64_t* idx) const;
};

struct SharedArray {
  std::string name = "tile";
  ElementType type = ElementType::kFloat;
  TileShape shape;
  PhysicalLayout layout{1};  // row_stride defaults to shape.cols (set by make_shared_array)
  uint32_t base = 0;         // byte offset of element 0 in the block's shared memory

  int elem_bytes() const { return element_size(type); }
  // Bytes the declaration reserves: rows * row_stride elements.
  uint64_t bytes() const;
  // Logical (row, col) -> byte address. The caller has bounds-checked the indices.
  uint32_t byte_address(int64_t row, int64_t col) const {
    return base + static_cast<uint32_t>(layout.offset(row, col) * elem_bytes());
  }
  // The C declaration this layout corresponds to, e.g. "__shared__ float tile[32][33]"
  // (an array in the extern buffer: "extern __shared__ ... at byte 4096").
  std::string declaration() const;
};

// The TMA swizzle modes by name, as scenario files ("tma_swizzle": "128B") and `--layout
// NAME:tma_swizzle=128B` spell them: "32B", "64B", "128B" (also "none" = 0) -> the span in bytes.
// Anything else is an Error listing the names.
Result<int> parse_tma_swizzle(const std::string& text);
// 32 -> "32B"; 0 -> "none".
std::string tma_swizzle_name(int span_bytes);

// Checks a layout against its shape: stride >= cols, xor mask and swizzle keep every element
// inside the array, total size within the per-block limit, base a multiple of the element size.
// A TMA layout (layout.tma_span != 0): rows at most the span and a multiple of 16 bytes, no
// padding, xor or other swizzle of its own, base a multiple of 128 bytes; its row stride is set
// to the span (rows narrower than it are padded, measured), its swizzle and the swizzle's phase
// (the base within the pattern's repeat: the swizzle follows the address, measured).
Result<SharedArray> make_shared_array(const std::string& name, ElementType type, TileShape shape,
                                      PhysicalLayout layout, uint32_t base = 0);

}  // namespace bankscope
