// bank_math.hpp: the address arithmetic that the model and the CUDA kernels share.
//
// Everything here is constexpr and usable from host and device (BANKSCOPE_HD), so the simulator in
// sim/ and the kernels in kernels/ compute shared-memory addresses with the same code and cannot
// drift apart. No allocation, no I/O, no standard library beyond <cstdint>.
//
// Mappings defined here:
//   byte address          -> (bank, word)            bank_of(), word_of()
//   (row, col)            -> physical element offset  PhysicalLayout::offset()
//   physical offset       -> swizzled offset          Swizzle::apply()
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BANKSCOPE_HD __host__ __device__
#else
#define BANKSCOPE_HD
#endif

namespace bankscope {

// Documented by NVIDIA (CUDA C++ Programming Guide, "Shared Memory", compute capability 5.x and
// later, unchanged through 9.0): 32 banks, each 32 bits wide; successive 32-bit words map to
// successive banks.
inline constexpr int kWarpSize = 32;
inline constexpr int kDefaultBanks = 32;
inline constexpr int kDefaultBankBytes = 4;
// Documented by NVIDIA (Hopper tuning guide): a block may use up to 227 KiB of shared memory on
// sm_90 (228 KiB per SM, 1 KiB reserved per block).
inline constexpr uint32_t kMaxSharedBytesPerBlockSm90 = 227u * 1024u;

// byte address -> index of the bank-width word that holds it.
BANKSCOPE_HD constexpr uint32_t word_of(uint32_t byte_addr, int bank_bytes = kDefaultBankBytes) {
  return byte_addr / static_cast<uint32_t>(bank_bytes);
}

// byte address -> bank.
BANKSCOPE_HD constexpr int bank_of(uint32_t byte_addr, int banks = kDefaultBanks,
                                   int bank_bytes = kDefaultBankBytes) {
  return static_cast<int>(word_of(byte_addr, bank_bytes) % static_cast<uint32_t>(banks));
}

BANKSCOPE_HD constexpr int gcd_int(int a, int b) {
  while (b != 0) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

// CuTe-style Swizzle<B, M, S> on an element offset:
//
//   offset bits:  ... [ YYY ][ ... ][ ZZZ ][ MMMM ]
//                       ^ S + M      ^ M    ^ 0
//   apply(o) = o ^ ((o & yyy_mask) >> S)        yyy_mask = ((1 << B) - 1) << (M + S)
//
// The B bits at position M+S are XORed into the B bits at position M; the low M bits (a unit of
// 2^M elements that stays contiguous) are untouched. B = 0 is the identity. S must be >= B so the
// two fields do not overlap (same constraint as cute::Swizzle).
struct Swizzle {
  int bits = 0;   // B
  int base = 0;   // M
  int shift = 0;  // S

  BANKSCOPE_HD constexpr bool is_identity() const { return bits == 0; }
  BANKSCOPE_HD constexpr int64_t apply(int64_t offset) const {
    if (bits == 0) return offset;
    const int64_t yyy_mask = ((int64_t{1} << bits) - 1) << (base + shift);
    return offset ^ ((offset & yyy_mask) >> shift);
  }
};

static_assert(Swizzle{}.apply(77) == 77, "default swizzle is the identity");
// Swizzle<5,0,5> on a 32-wide row is the classic tile[r][c ^ r]: (r=3, c=1) -> 3*32 + (1^3).
static_assert(Swizzle{5, 0, 5}.apply(3 * 32 + 1) == 3 * 32 + (1 ^ 3), "Swizzle<5,0,5> == c ^ r");

// Physical layout of a logical [rows][cols] tile, in elements:
//
//   (row, col) -> swizzle( row * row_stride + (col ^ (row & xor_mask)) )
//
// row_stride >= cols is the padding ("tile[32][33]": logical 32x32, row_stride 33); xor_mask is the
// hand-written XOR swizzle ("tile[r][c ^ r]": xor_mask 31); swizzle is CuTe's Swizzle<B,M,S> on the
// linear offset. Each part is the identity at its default, so any combination composes.
//
// tma_span names a layout the TMA writes (0 = none, 32/64/128 = CU_TENSOR_MAP_SWIZZLE_<span>B): it
// is carried for checks and names only; make_shared_array() sets `swizzle` to the equivalent
// Swizzle<B,4-log2(elem),3> (see tma_swizzle_on_elements), row_stride to the span for rows
// narrower than it, and swizzle_phase to where the array starts within the pattern's repeat, so
// offset() needs no other case.
//
// swizzle_phase (elements, 0 unless set for a TMA array): the swizzle acts on the shared address,
// not on the offset inside the array (measured on the H200, 2026-12-01f), so it is applied to
// phase + offset, and the phase taken off again. The phase is a multiple of 128 bytes, below
// which the swizzle never reaches, so the result stays in the same 128-byte line.
struct PhysicalLayout {
  int row_stride = 0;  // elements between the starts of consecutive rows
  int xor_mask = 0;    // col ^= (row & xor_mask); 0 = none
  Swizzle swizzle{};
  int tma_span = 0;    // 0, 32, 64 or 128: written by TMA with that swizzle mode
  int swizzle_phase = 0;  // elements: (array base % pattern repeat) / element size

  BANKSCOPE_HD constexpr int64_t offset(int64_t row, int64_t col) const {
    const int64_t c = col ^ (row & static_cast<int64_t>(xor_mask));
    return swizzle.apply(row * row_stride + c + swizzle_phase) - swizzle_phase;
  }
};

// TMA swizzle modes (Hopper's tensor copy engine, cp.async.bulk.tensor), documented by NVIDIA:
// CUDA driver API, cuTensorMapEncodeTiled in cuda.h (CUDA 13.0, read here: "CU_TENSOR_MAP_SWIZZLE_
// 32B/64B/128B: swizzle 16B chunks within 32B/64B/128B span"; the bounding box inner dimension
// "must be less than or equal to the swizzle size"; boxDim[0] * element size "a multiple of 16
// bytes"); NVIDIA's CUTLASS, include/cute/atom/copy_traits_sm90_tma_swizzle.hpp (the smem layout
// Swizzle<B,4,3> on bytes is TMA's B32/B64/B128 for B = 1/2/3); the CUDA C++ Programming Guide
// ("Tensor memory access": the pattern repeats every 256/512/1024 bytes) and the PTX ISA ("Tensor
// copy swizzling modes"), cited, not quoted (their text was not reachable from here). On the byte
// address a in shared memory:
//
//   address bits:  ... [ row bits ][ x ][ chunk ][ 16-byte unit ]
//                       ^ 7             ^ 4       ^ 0
//   tma_swizzle(a) = a ^ (((a >> 7) & (2^B - 1)) << 4)      B = 1 (32B), 2 (64B), 3 (128B)
//
// i.e. CuTe's Swizzle<B,4,3> on bytes: the B chunk bits above bit 4 are XORed with the B bits from
// bit 7 up. Within one span-wide row the 16-byte chunks are permuted; 16-byte units stay whole. The
// pattern repeats every 2^(7+B) bytes (256/512/1024).
//
// Measured on the H200 (2026-12-01f, kernels/tma_probe.cu, assets/results/h200/2026-12-01f/tma/):
// - the pattern follows the shared ADDRESS bits, not the offset inside the box: all 12 boxes placed
//   128/256/512 bytes past a repeat boundary matched the formula on the address;
// - a box whose rows are narrower than the span gets each row padded to the span (row r starts at
//   r * span; the rest of the span is not written), then the formula: each of the 73 narrow-row
//   boxes the old (dense) model took matched that byte for byte; the 18 it refused (48-byte rows)
//   differ from the dense formula where and by as many bytes as padding predicts.
// The destination must be 128-byte aligned (documented: CUDA C++ Programming Guide, TMA swizzle
// table, cited not quoted; 128, 256 and 512 past a repeat ran on the H200).
inline constexpr int kTmaSwizzleModes = 4;  // NONE, 32B, 64B, 128B (CUtensorMapSwizzle 0..3)

// 0 (none), 32, 64, 128 -> 0, 1, 2, 3 (the CUtensorMapSwizzle value and the B of Swizzle<B,4,3>);
// -1 for any other span.
BANKSCOPE_HD constexpr int tma_swizzle_mode(int span_bytes) {
  return span_bytes == 0 ? 0 : span_bytes == 32 ? 1 : span_bytes == 64 ? 2 : span_bytes == 128 ? 3 : -1;
}
BANKSCOPE_HD constexpr int tma_span_bytes(int mode) { return mode <= 0 ? 0 : 16 << mode; }
// Bytes after which the pattern repeats (the shared-memory alignment a box needs): 256, 512, 1024.
BANKSCOPE_HD constexpr int tma_repeat_bytes(int mode) { return mode <= 0 ? 16 : 128 << mode; }

// The documented formula on a shared-memory byte address (mode 0..3).
BANKSCOPE_HD constexpr uint32_t tma_swizzle_byte(uint32_t addr, int mode) {
  if (mode <= 0) return addr;
  const uint32_t bits = (uint32_t{1} << mode) - 1u;
  return addr ^ (((addr >> 7) & bits) << 4);
}

// The same permutation on element offsets of an element of `elem_bytes` (1, 2, 4, 8 or 16 bytes,
// 2^k): byte = element << k, so Swizzle<B,4,3> on bytes is Swizzle<B,4-k,3> on elements, exact for
// every element size up to the 16-byte unit. From a base off a repeat boundary, apply it to the
// offset plus the phase (PhysicalLayout::swizzle_phase).
BANKSCOPE_HD constexpr Swizzle tma_swizzle_on_elements(int mode, int elem_bytes) {
  int k = 0;
  while ((1 << k) < elem_bytes) ++k;
  return mode <= 0 ? Swizzle{} : Swizzle{mode, 4 - k, 3};
}

static_assert(tma_swizzle_byte(7 * 128 + 0 * 16, 3) == 7 * 128 + 7 * 16, "128B: row 7, chunk 0 -> chunk 7");
static_assert(tma_swizzle_byte(5 * 32 + 16, 1) == 5 * 32 + 0, "32B: row 5 (bit 7 set), chunk 1 -> chunk 0");
static_assert(tma_swizzle_on_elements(3, 4).apply(9 * 32 + 4) == 9 * 32 + ((1 ^ 1) << 2),
              "128B on floats is Swizzle<3,2,3> (the bench's TMA kernel)");

// 128B on floats from byte 128 of a repeat (phase 32 floats): row 0, chunk 0 is on line 1 -> chunk 1.
static_assert(PhysicalLayout{32, 0, Swizzle{3, 2, 3}, 128, 32}.offset(0, 0) == 4, "phase: the address's line");
static_assert(PhysicalLayout{33}.offset(1, 0) == 33, "padding: row 1 starts one word later");
static_assert(PhysicalLayout{32, 31}.offset(5, 0) == 5 * 32 + 5, "xor: column 0 of row 5 lands at 5");

}  // namespace bankscope
