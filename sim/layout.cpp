// layout.cpp: element types and the checks that make a SharedArray valid.
#include "layout.hpp"

#include <optional>
#include <sstream>

namespace bankscope {

const ElementType kAllElementTypes[kElementTypeCount] = {
    ElementType::kChar,   ElementType::kHalf,     ElementType::kFloat,    ElementType::kDouble,
    ElementType::kFloat2, ElementType::kFloat4,   ElementType::kInt,      ElementType::kUnsigned,
    ElementType::kShort,  ElementType::kLongLong, ElementType::kHalf2,    ElementType::kBfloat16,
    ElementType::kInt4};

int TileShape::dim(int d) const {
  if (extent[0] != 0) return extent[d];
  if (rank == 1) return cols;
  return d == 0 ? rows : cols;
}

int64_t TileShape::row_of(const int64_t* idx) const {
  int64_t row = 0;
  for (int d = 0; d + 1 < rank; ++d) row = row * dim(d) + idx[d];
  return row;
}

int element_size(ElementType t) {
  switch (t) {
    case ElementType::kChar: return 1;
    case ElementType::kHalf: return 2;
    case ElementType::kFloat: return 4;
    case ElementType::kDouble: return 8;
    case ElementType::kFloat2: return 8;
    case ElementType::kFloat4: return 16;
    case ElementType::kInt: return 4;
    case ElementType::kUnsigned: return 4;
    case ElementType::kShort: return 2;
    case ElementType::kLongLong: return 8;
    case ElementType::kHalf2: return 4;
    case ElementType::kBfloat16: return 2;
    case ElementType::kInt4: return 16;
  }
  return 4;
}

const char* element_name(ElementType t) {
  switch (t) {
    case ElementType::kChar: return "char";
    case ElementType::kHalf: return "half";
    case ElementType::kFloat: return "float";
    case ElementType::kDouble: return "double";
    case ElementType::kFloat2: return "float2";
    case ElementType::kFloat4: return "float4";
    case ElementType::kInt: return "int";
    case ElementType::kUnsigned: return "unsigned";
    case ElementType::kShort: return "short";
    case ElementType::kLongLong: return "long long";
    case ElementType::kHalf2: return "half2";
    case ElementType::kBfloat16: return "bfloat16";
    case ElementType::kInt4: return "int4";
  }
  return "?";
}

std::optional<ElementType> parse_element_type(const std::string& s) {
  if (s == "char" || s == "int8" || s == "uint8" || s == "unsigned char") return ElementType::kChar;
  if (s == "half" || s == "fp16" || s == "__half") return ElementType::kHalf;
  if (s == "bfloat16" || s == "bf16" || s == "__nv_bfloat16") return ElementType::kBfloat16;
  if (s == "short" || s == "int16" || s == "unsigned short") return ElementType::kShort;
  if (s == "float" || s == "fp32") return ElementType::kFloat;
  if (s == "int" || s == "int32") return ElementType::kInt;
  if (s == "unsigned" || s == "unsigned int" || s == "uint32") return ElementType::kUnsigned;
  if (s == "half2" || s == "__half2") return ElementType::kHalf2;
  if (s == "double" || s == "fp64") return ElementType::kDouble;
  if (s == "long long" || s == "long" || s == "int64" || s == "unsigned long long") return ElementType::kLongLong;
  if (s == "float2" || s == "int2") return ElementType::kFloat2;
  if (s == "float4") return ElementType::kFloat4;
  if (s == "int4") return ElementType::kInt4;
  return std::nullopt;
}

Result<int> parse_tma_swizzle(const std::string& text) {
  if (text == "none") return 0;
  if (text == "32B") return 32;
  if (text == "64B") return 64;
  if (text == "128B") return 128;
  return Error{"'" + text + "' is not a TMA swizzle mode (32B, 64B, 128B or none: CU_TENSOR_MAP_SWIZZLE_<mode>)"};
}

std::string tma_swizzle_name(int span_bytes) {
  return span_bytes == 0 ? "none" : std::to_string(span_bytes) + "B";
}

Result<ElementType> parse_element_type_exact(const std::string& name) {
  std::string known;
  for (ElementType t : kAllElementTypes) known += std::string(known.empty() ? "" : ", ") + element_name(t);
  const std::optional<ElementType> t = parse_element_type(name);
  if (!t) return Error{"'" + name + "' is not an element type (one of " + known + ")"};
  if (name != element_name(*t)) {
    return Error{"'" + name + "' is not a type of its own here: it would be modelled and shown as " +
                 element_name(*t) + " (same size, same banks); give " + element_name(*t) + " (one of " + known + ")"};
  }
  return *t;
}

uint64_t SharedArray::bytes() const {
  return uint64_t(shape.rows) * uint64_t(layout.row_stride) * uint64_t(elem_bytes());
}

std::string SharedArray::declaration() const {
  std::ostringstream os;
  os << "__shared__ " << element_name(type) << " " << name;
  for (int d = 0; d + 1 < shape.rank; ++d) os << "[" << shape.dim(d) << "]";
  os << "[" << layout.row_stride << "]";
  if (layout.xor_mask != 0) os << "  /* col ^ (row & " << layout.xor_mask << ") */";
  if (layout.tma_span != 0) {
    os << "  /* TMA CU_TENSOR_MAP_SWIZZLE_" << layout.tma_span << "B */";
  } else if (!layout.swizzle.is_identity()) {
    os << "  /* Swizzle<" << layout.swizzle.bits << "," << layout.swizzle.base << ","
       << layout.swizzle.shift << "> */";
  }
  return os.str();
}

namespace {

// A TMA-written box. Measured on the H200 (2026-12-01f): the copy engine places row r at r * span
// bytes when rows are narrower than the span (the rest of the span is not written), and applies
// the documented Swizzle<B,4,3> to the shared ADDRESS, so a box off a repeat boundary sees the
// pattern of the address it lands on. The layout is that and nothing else: sets row_stride (the
// span, in elements, or the row), the equivalent swizzle on element offsets and its phase.
std::optional<Error> check_tma_layout(ElementType type, const TileShape& shape, PhysicalLayout& layout, uint32_t base) {
  const int span = layout.tma_span;
  const int mode = tma_swizzle_mode(span);
  const std::string name = "CU_TENSOR_MAP_SWIZZLE_" + std::to_string(span) + "B";
  if (mode <= 0) return Error{"tma_swizzle: " + std::to_string(span) + " is not a TMA swizzle span (32B, 64B or 128B)"};
  const int elem = element_size(type);
  const int64_t row_bytes = int64_t(shape.cols) * elem;
  // Documented (cuTensorMapEncodeTiled): the box's inner dimension in bytes is at most the span
  // and a multiple of 16.
  if (row_bytes > span) {
    return Error{"tma_swizzle: rows of " + std::to_string(row_bytes) + " bytes are wider than the " +
                 std::to_string(span) + "-byte span of " + name +
                 " (a box's inner dimension is at most the span: split the tile into boxes of " +
                 std::to_string(span / elem) + " columns)"};
  }
  if (row_bytes % 16 != 0) {
    return Error{"tma_swizzle: rows of " + std::to_string(row_bytes) +
                 " bytes are not a multiple of 16 bytes (a TMA box's inner dimension must be)"};
  }
  const int stride = span / elem;  // rows narrower than the span are padded to it (measured)
  if (layout.row_stride != 0 && layout.row_stride != shape.cols && layout.row_stride != stride) {
    return Error{"tma_swizzle: the copy engine places rows " + std::to_string(span) + " bytes apart (" +
                 std::to_string(stride) + " " + element_name(type) + "s); row_stride " +
                 std::to_string(layout.row_stride) + " cannot be combined with it"};
  }
  const Swizzle sw = tma_swizzle_on_elements(mode, elem);
  if (layout.xor_mask != 0 ||
      (!layout.swizzle.is_identity() &&
       (layout.swizzle.bits != sw.bits || layout.swizzle.base != sw.base || layout.swizzle.shift != sw.shift))) {
    return Error{"tma_swizzle: it is the whole layout; drop xor and swizzle (" + name + " is Swizzle<" +
                 std::to_string(sw.bits) + "," + std::to_string(sw.base) + "," + std::to_string(sw.shift) +
                 "> on " + element_name(type) + " offsets)"};
  }
  // Documented (CUDA C++ Programming Guide, TMA swizzle table; PTX ISA: cited, not read here): a
  // tensor copy's shared destination is 128-byte aligned; a less aligned one is not measured. From
  // any 128-byte-aligned base the pattern is that of the address (measured: 128, 256 and 512 bytes
  // past a repeat on the H200).
  if (base % 128 != 0) {
    return Error{"tma_swizzle: the array starts at byte " + std::to_string(base) +
                 ", not a multiple of 128 (a TMA box's shared-memory destination must be 128-byte aligned)"};
  }
  layout.row_stride = stride;
  layout.swizzle = sw;
  layout.swizzle_phase = static_cast<int>(base % static_cast<uint32_t>(tma_repeat_bytes(mode))) / elem;
  return std::nullopt;
}

}  // namespace

Result<SharedArray> make_shared_array(const std::string& name, ElementType type, TileShape shape,
                                      PhysicalLayout layout, uint32_t base) {
  if (shape.rank < 1 || shape.rank > kMaxArrayRank) return Error{"dims: an array has 1 to 4 dimensions"};
  if (shape.extent[0] != 0) {  // N-D: rows is the product of the leading extents
    int64_t rows = 1;
    for (int d = 0; d < shape.rank; ++d) {
      if (shape.extent[d] < 1) return Error{"dims: sizes must be positive"};
      if (d + 1 < shape.rank) rows *= shape.extent[d];
      if (rows > (1 << 20)) return Error{"dims: the leading dimensions hold more than 2^20 rows"};
    }
    shape.rows = static_cast<int>(rows);
    shape.cols = shape.extent[shape.rank - 1];
  } else if (shape.rank > 2) {
    return Error{"dims: a " + std::to_string(shape.rank) + "-D shape needs its extents"};
  }
  if (shape.rows < 1 || shape.cols < 1) {
    return Error{"dims: sizes must be positive, got [" + std::to_string(shape.rows) + "][" +
                 std::to_string(shape.cols) + "]"};
  }
  if (layout.row_stride == 0) layout.row_stride = shape.cols;
  if (layout.row_stride < shape.cols) {
    return Error{"row_stride: " + std::to_string(layout.row_stride) +
                 " is smaller than the row length " + std::to_string(shape.cols) +
                 " (stride must be >= cols; pad with a larger stride)"};
  }
  if (layout.tma_span != 0) {
    if (std::optional<Error> e = check_tma_layout(type, shape, layout, base)) return *e;
  }
  if (layout.xor_mask < 0) return Error{"xor: mask must be >= 0"};
  const Swizzle& s = layout.swizzle;
  if (s.bits < 0 || s.base < 0 || s.shift < 0 || s.bits > 16 || s.base > 16 || s.shift > 16) {
    return Error{"swizzle: B, M and S must each be in 0..16"};
  }
  if (s.bits > 0 && s.shift < s.bits) {
    return Error{"swizzle: Swizzle<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," +
                 std::to_string(s.shift) + "> needs S >= B (the XORed fields would overlap)"};
  }
  SharedArray a{name, type, shape, layout, base};
  const uint64_t total = a.bytes();
  if (uint64_t(base) + total > kMaxSharedBytesPerBlockSm90) {
    return Error{"array '" + name + "' needs " + std::to_string(total) +
                 " bytes of shared memory; a block can have at most " +
                 std::to_string(kMaxSharedBytesPerBlockSm90) + " (227 KiB on sm_90)"};
  }
  // C aligns an object to its type: a float4 array starts on 16 bytes, a short array on 2.
  if (base % static_cast<uint32_t>(element_size(type)) != 0) {
    return Error{"array '" + name + "': byte offset " + std::to_string(base) + " is not a multiple of its " +
                 std::to_string(element_size(type)) + "-byte element (" + element_name(type) + ")"};
  }
  // Every logical element must land inside the declaration, on its own place.
  if (layout.xor_mask != 0 || !s.is_identity()) {
    const int64_t slots = int64_t(shape.rows) * layout.row_stride;
    std::vector<bool> used(static_cast<size_t>(slots), false);
    for (int r = 0; r < shape.rows; ++r) {
      for (int c = 0; c < shape.cols; ++c) {
        const int64_t off = layout.offset(r, c);
        if (off < 0 || off >= slots) {
          return Error{"layout: element [" + std::to_string(r) + "][" + std::to_string(c) +
                       "] maps to offset " + std::to_string(off) + ", outside the array (" +
                       std::to_string(slots) + " elements)"};
        }
        if (used[static_cast<size_t>(off)]) {
          return Error{"layout: two elements map to offset " + std::to_string(off) +
                       " (the xor/swizzle is not a permutation of this shape)"};
        }
        used[static_cast<size_t>(off)] = true;
      }
    }
  }
  return a;
}

}  // namespace bankscope
