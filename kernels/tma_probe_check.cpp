// tma_probe_check.cpp: the TMA probe's cases and its comparison with the model (see the header).
#include "tma_probe_check.hpp"

#include <algorithm>
#include <sstream>

#include "sim/bank_model.hpp"
#include "sim/counter_names.hpp"
#include "sim/layout.hpp"

namespace bankscope {
namespace tma_probe {

namespace {

ElementType type_of_size(int bytes) {
  switch (bytes) {
    case 1: return ElementType::kChar;
    case 2: return ElementType::kHalf;
    case 4: return ElementType::kFloat;
    case 8: return ElementType::kDouble;
    default: return ElementType::kFloat4;
  }
}

// Global byte id -> "[r][c] byte b" of the case's box.
std::string where(const Case& c, uint16_t g) {
  if (g == kUntouched) return "nothing (untouched)";
  const int r = g / c.inner_bytes, in_row = g % c.inner_bytes;
  std::ostringstream os;
  os << "[" << r << "][" << in_row / c.elem_bytes << "]";
  if (c.elem_bytes > 1) os << " byte " << in_row % c.elem_bytes;
  return os.str();
}

// The first shared byte where two windows differ, as one phrase; "" when they are equal.
std::string first_difference(const Case& c, const std::vector<uint16_t>& model, const std::vector<uint16_t>& got,
                             const char* model_name) {
  int count = 0, first = -1;
  for (size_t s = 0; s < model.size(); ++s) {
    if (model[s] != got[s]) {
      ++count;
      if (first < 0) first = static_cast<int>(s);
    }
  }
  if (first < 0) return "";
  std::ostringstream os;
  os << "differs at shared byte " << first << " (+" << first - c.dst_offset << " in the box): " << model_name
     << " " << where(c, model[size_t(first)]) << ", measured " << where(c, got[size_t(first)]) << " (" << count
     << " bytes differ)";
  return os.str();
}

}  // namespace

std::string Case::name() const {
  std::ostringstream os;
  os << "tma=" << (mode == 0 ? std::string("none") : std::to_string(16 << mode) + "B") << " e=" << elem_bytes
     << " box=" << rows << "x" << inner_bytes << "B dst=" << dst_offset;
  return os.str();
}

std::vector<Case> cases(bool misaligned) {
  std::vector<Case> out;
  if (misaligned) {
    for (int mode = 1; mode <= 3; ++mode) {
      const int span = 16 << mode, repeat = 128 << mode;
      for (int e : {2, 4}) {
        for (int dst : {128, 256, 512}) {
          if (dst % repeat == 0) continue;
          out.push_back(Case{mode, e, span, 2 * repeat / span, dst});
        }
      }
    }
    return out;
  }
  for (int mode = 0; mode <= 3; ++mode) {
    const int span = mode == 0 ? 128 : 16 << mode;
    const int repeat = mode == 0 ? 1024 : 128 << mode;
    std::vector<int> inners = {span, span / 2, 48, 16};
    for (int e : {1, 2, 4, 8, 16}) {
      std::vector<int> seen_inner;
      for (int inner : inners) {
        if (inner < 16 || inner > span || inner % 16 != 0 || inner % e != 0) continue;
        if (std::find(seen_inner.begin(), seen_inner.end(), inner) != seen_inner.end()) continue;
        seen_inner.push_back(inner);
        std::vector<int> seen_rows;
        for (int rows : {1, 3, 8, repeat / inner, 2 * repeat / inner}) {
          if (rows < 1 || rows > 256 || rows * inner > kMaxBoxBytes) continue;
          if (std::find(seen_rows.begin(), seen_rows.end(), rows) != seen_rows.end()) continue;
          seen_rows.push_back(rows);
          out.push_back(Case{mode, e, inner, rows, 0});
        }
      }
    }
  }
  return out;
}

std::vector<uint16_t> expected_window(const Case& c, bool address_bits, bool padded_rows) {
  std::vector<uint16_t> w(kWindowBytes, kUntouched);
  const int pitch = padded_rows ? c.footprint_bytes() / c.rows : c.inner_bytes;
  for (int g = 0; g < c.box_bytes(); ++g) {
    const uint32_t dense = static_cast<uint32_t>(g / c.inner_bytes * pitch + g % c.inner_bytes);
    const uint32_t dst = static_cast<uint32_t>(c.dst_offset);
    const uint32_t s = address_bits ? tma_swizzle_byte(dst + dense, c.mode) : dst + tma_swizzle_byte(dense, c.mode);
    if (s < w.size()) w[s] = static_cast<uint16_t>(g);
  }
  return w;
}

Verdict compare(const Case& c, const std::vector<uint16_t>& landed) {
  Verdict v;
  const std::string head = "case " + c.name() + ": ";
  if (landed.size() != size_t(kWindowBytes)) {
    v.line = head + "no data (" + std::to_string(landed.size()) + " bytes read back)";
    return v;
  }
  PhysicalLayout layout{};
  layout.tma_span = c.mode == 0 ? 0 : 16 << c.mode;
  TileShape shape{c.rows, c.cols(), 2};
  auto array = make_shared_array("box", type_of_size(c.elem_bytes), shape, layout, static_cast<uint32_t>(c.dst_offset));
  if (!array) {
    v.refused = true;
    v.line = head + "refused by the model: " + array.error().message;
    return v;
  }
  std::vector<uint16_t> model(kWindowBytes, kUntouched);
  for (int r = 0; r < c.rows; ++r) {
    for (int col = 0; col < c.cols(); ++col) {
      const uint32_t at = array->byte_address(r, col);
      for (int b = 0; b < c.elem_bytes; ++b) {
        if (at + uint32_t(b) < model.size()) model[at + uint32_t(b)] = static_cast<uint16_t>(r * c.inner_bytes + col * c.elem_bytes + b);
      }
    }
  }
  const std::string diff = first_difference(c, model, landed, "model");
  v.equal = diff.empty();
  v.line = head + (v.equal ? "equal" : diff);
  // A difference: does a rival hypothesis explain it? (The hardware of 2026-12-01f followed none.)
  if (!v.equal) {
    const bool narrow = c.mode != 0 && c.inner_bytes < (16 << c.mode);
    if (narrow && landed == expected_window(c, true, false)) {
      v.line += "; measured = rows packed densely, then swizzled";
    } else if (landed == expected_window(c, false, true)) {
      v.line += "; measured = the formula on the offset in the box, not the address";
    }
  }
  return v;
}

std::string summary(int total, int equal, int refused) {
  std::ostringstream os;
  os << "total: " << total << " cases, " << equal << " equal to the model, " << total - refused - equal << " differ, "
     << refused << " refused by the model";
  if (equal == total) os << ", all cases equal";
  return os.str();
}

std::vector<ReadPrediction> read_predictions(int mode) {
  PhysicalLayout layout{};
  layout.tma_span = mode == 0 ? 0 : 16 << mode;
  auto tile = make_shared_array("tile", ElementType::kHalf, TileShape{64, 64, 2}, layout);
  if (!tile) return {};
  WarpAccess column;
  column.op = Op::kLoad;
  column.width = 16;
  WarpAccess ldsm;
  ldsm.op = Op::kLdmatrix;
  ldsm.width = 16;
  ldsm.matrices = 4;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    column.addr[size_t(lane)] = tile->byte_address(lane, 0);
    const int m = lane / 8;
    ldsm.addr[size_t(lane)] = tile->byte_address(8 * (m % 2) + lane % 8, 8 * (m / 2));
  }
  return {ReadPrediction{"LDS.128 column", counters::wavefronts(Op::kLoad), cost(column).wavefronts},
          ReadPrediction{"ldmatrix.x4", counters::wavefronts(Op::kLdmatrix), cost(ldsm).wavefronts}};
}

}  // namespace tma_probe
}  // namespace bankscope
