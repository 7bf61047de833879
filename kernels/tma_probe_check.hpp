// tma_probe_check.hpp: the host half of the TMA swizzle probe (kernels/tma_probe.cu): which boxes
// it copies, and the comparison of where the copy engine put each byte with the model's layout.
// Plain C++ (no CUDA headers) so that it is unit-tested without a GPU (tests/test_tma_probe.cpp).
//
//   case -> tensor map          mode (NONE/32B/64B/128B), element size, box [rows][inner bytes],
//                               destination offset from a 1024-byte-aligned shared address
//   landed[s] -> verdict        landed[s] = the global byte index (row * inner + byte) that shared
//                               byte s of the window holds after the copy (kUntouched if none);
//                               the model says where element (r, c) goes: SharedArray::byte_address
//                               of a make_shared_array() with tma_span set
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bankscope {
namespace tma_probe {

inline constexpr int kWindowBytes = 8192;       // shared bytes read back, from the aligned base
inline constexpr uint16_t kUntouched = 0xFFFF;  // a byte the copy did not write (both passes 0xFF)
inline constexpr int kMaxBoxBytes = 4096;        // global byte ids fit 12 bits: never kUntouched

struct Case {
  int mode = 0;         // CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B
  int elem_bytes = 4;   // 1, 2, 4, 8, 16 (16: copied as pairs of 8-byte elements)
  int inner_bytes = 0;  // box inner dimension in bytes (a multiple of 16, <= the span)
  int rows = 1;         // box outer dimension
  int dst_offset = 0;   // destination bytes past a 1024-aligned shared address (a multiple of 128)

  int box_bytes() const { return inner_bytes * rows; }
  int cols() const { return inner_bytes / elem_bytes; }
  // "tma=128B e=4 box=16x128B dst=0"
  std::string name() const;
};

// aligned: every mode x element size x box shapes (inner = span and narrower; 1 row up to two
// repeats), destination on a 1024-byte boundary. misaligned: 128B/64B/32B boxes placed 128, 256
// or 512 bytes past it (legal for the copy, 128-byte aligned; refused by the model), to learn
// whether the pattern follows the address or the offset.
std::vector<Case> cases(bool misaligned);

// What the window holds if the copy writes the box at dst_offset with the documented swizzle
// applied to the shared address (address_bits) or to the offset inside the box (not); rows packed
// densely (the model's assumption) or, padded_rows, each row at a multiple of the span (the rival
// hypothesis for rows narrower than the span).
std::vector<uint16_t> expected_window(const Case& c, bool address_bits, bool padded_rows = false);

struct Verdict {
  bool equal = false;    // equal to the model; for a case the model refuses: to the address formula
  bool refused = false;  // the model refuses the case (misaligned, or a box ending inside a span)
  std::string line;      // "case ...: equal" or "case ...: differs at ...: model X, measured Y"
};

// Compares a measured window with the model. A case the model takes: each element's bytes against
// make_shared_array(..., tma_span) placed at dst_offset, and every other byte untouched. A case it
// refuses (misaligned base; a box that ends inside a span, which the documented formula would
// write past): against expected_window for both hypotheses; the line says which one holds.
Verdict compare(const Case& c, const std::vector<uint16_t>& landed);

// The model's cost of the reads of tma_probe_reads (one warp, a 64x64 half tile written by TMA with
// `mode` 0 or 3): the LDS.128 of column chunk 0 of rows 0..31 and the ldmatrix.x4 of the 16x16
// block at (0, 0). Each with the ncu counter it predicts.
struct ReadPrediction {
  std::string what;     // "LDS.128 column" or "ldmatrix.x4"
  std::string counter;  // the instruction-level wavefront metric
  int wavefronts = 0;
};
std::vector<ReadPrediction> read_predictions(int mode);

}  // namespace tma_probe
}  // namespace bankscope
