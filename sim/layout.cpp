// layout.cpp: element types and the checks that make a SharedArray valid.
#include "layout.hpp"

#include <sstream>

namespace bankscope {

const ElementType kAllElementTypes[6] = {ElementType::kChar,   ElementType::kHalf,
                                         ElementType::kFloat,  ElementType::kDouble,
                                         ElementType::kFloat2, ElementType::kFloat4};

int element_size(ElementType t) {
  switch (t) {
    case ElementType::kChar: return 1;
    case ElementType::kHalf: return 2;
    case ElementType::kFloat: return 4;
    case ElementType::kDouble: return 8;
    case ElementType::kFloat2: return 8;
    case ElementType::kFloat4: return 16;
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
  }
  return "?";
}

std::optional<ElementType> parse_element_type(const std::string& s) {
  if (s == "char" || s == "int8" || s == "uint8" || s == "unsigned char") return ElementType::kChar;
  if (s == "half" || s == "fp16" || s == "bf16" || s == "short" || s == "__half") {
    return ElementType::kHalf;
  }
  if (s == "float" || s == "int" || s == "fp32" || s == "uint32") return ElementType::kFloat;
  if (s == "double" || s == "fp64" || s == "long" || s == "int64") return ElementType::kDouble;
  if (s == "float2" || s == "int2") return ElementType::kFloat2;
  if (s == "float4" || s == "int4") return ElementType::kFloat4;
  return std::nullopt;
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
  if (shape.rank == 1) {
    os << "[" << layout.row_stride << "]";
  } else {
    os << "[" << shape.rows << "][" << layout.row_stride << "]";
  }
  if (layout.xor_mask != 0) os << "  /* col ^ (row & " << layout.xor_mask << ") */";
  if (!layout.swizzle.is_identity()) {
    os << "  /* Swizzle<" << layout.swizzle.bits << "," << layout.swizzle.base << ","
       << layout.swizzle.shift << "> */";
  }
  return os.str();
}

Result<SharedArray> make_shared_array(const std::string& name, ElementType type, TileShape shape,
                                      PhysicalLayout layout, uint32_t base) {
  if (shape.rank != 1 && shape.rank != 2) return Error{"dims: an array has 1 or 2 dimensions"};
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
  if (base % 16 != 0) return Error{"array '" + name + "': base offset must be 16-byte aligned"};
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
