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

// Shared bytes read back, from the aligned base. The copy engine pads rows narrower than the span
// to it (measured, H200 2026-12-01f): the largest case, 128 rows of 16 bytes with 128B, occupies
// 128 x 128 = 16384 bytes (the old 8192-byte window made that case fault); 4 KiB more shows
// that nothing is written past a box.
inline constexpr int kWindowBytes = 20480;
inline constexpr uint16_t kUntouched = 0xFFFF;  // a byte the copy did not write (both passes 0xFF)
inline constexpr int kMaxBoxBytes = 4096;        // global byte ids fit 12 bits: never kUntouched

struct Case {
  int mode = 0;         // CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B
  int elem_bytes = 4;   // 1, 2, 4, 8, 16 (16: copied as pairs of 8-byte elements)
  int inner_bytes = 0;  // box inner dimension in bytes (a multiple of 16, <= the span)
  int rows = 1;         // box outer dimension
  int dst_offset = 0;   // destination bytes past a 1024-aligned shared address (a multiple of 128)

  int box_bytes() const { return inner_bytes * rows; }
  // Shared bytes the box occupies: rows padded to the span (measured), from dst_offset.
  int footprint_bytes() const { return rows * (mode == 0 || inner_bytes > (16 << mode) ? inner_bytes : 16 << mode); }
  int cols() const { return inner_bytes / elem_bytes; }
  // "tma=128B e=4 box=16x128B dst=0"
  std::string name() const;
};

// aligned: every mode x element size x box shapes (inner = span and narrower; 1 row up to two
// repeats), destination on a 1024-byte boundary. misaligned: 128B/64B/32B boxes placed 128, 256
// or 512 bytes past it (legal for the copy, 128-byte aligned), where the pattern of the address
// and that of the offset in the box differ.
std::vector<Case> cases(bool misaligned);

// What the window holds if the copy writes the box at dst_offset with the documented swizzle
// applied to the shared address (address_bits) or to the offset inside the box (not); rows packed
// densely or, padded_rows, each row at a multiple of the span. Measured on the H200 (2026-12-01f):
// address bits, padded rows, which the model now is; the others are the rival hypotheses that a
// difference is checked against.
std::vector<uint16_t> expected_window(const Case& c, bool address_bits, bool padded_rows = false);

struct Verdict {
  bool equal = false;    // equal to the model, every byte of the window
  bool refused = false;  // the model refuses the case (it should take every case the probe runs)
  std::string line;      // "case ...: equal" or "case ...: differs at ...: model X, measured Y"
};

// Compares a measured window with the model: each element's bytes against make_shared_array(...,
// tma_span) placed at dst_offset, and every other byte untouched. A difference says which rival
// hypothesis explains it, if one does (rows packed densely; the formula on the offset in the box).
Verdict compare(const Case& c, const std::vector<uint16_t>& landed);

// The summary line of a run: "total: N cases, E equal to the model, D differ, R refused by the
// model" and ", all cases equal" when E == N. The run's exit status is 0 exactly then.
std::string summary(int total, int equal, int refused);

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
